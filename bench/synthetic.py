"""A synthetic tutorialbook of any size: a TOC of chapters and sections holding instructive skills.

Used by ``bench/retrieval.py``. Deterministic for a given size and seed: the same texts come out
every run, so their vectors can be cached by the texts' hash.

Each chapter teaches one craft (cooking, woodworking, photography, ...), each section one focus
of that craft (an object it works on), and each section holds 20-50 skills written from
instructive templates (imperatives, always/never, "remember", "the key idea", numbered steps)
over the craft's vocabulary. Queries are task descriptions an agent might send, built from the
same vocabulary in other words.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field

# craft: (objects, verbs, tools, problems, goals) — each a "|"-separated list
CRAFTS: dict[str, tuple[str, str, str, str, str]] = {
    "cooking": (
        "onion|garlic|pasta|rice|steak|chicken breast|salmon fillet|tomato sauce|stock|omelette|risotto|"
        "roux|vinaigrette|pan sauce|stir fry|potatoes|broccoli|mushrooms|dumplings|curry paste",
        "chop|sear|simmer|season|reduce|whisk|deglaze|caramelize|poach|blanch|rest|baste|toss|dice",
        "cast iron pan|chef's knife|wooden spoon|dutch oven|wok|thermometer|sheet pan|saucepan",
        "burns on the bottom|tastes bland|turns out soggy|sticks to the pan|splits|is too salty|dries out",
        "a deeper flavour|an even cook|a crisp crust|a glossy finish|a tender bite|less splatter",
    ),
    "baking": (
        "sourdough|starter|brioche|baguette|pie crust|croissant dough|sponge cake|cookies|scones|focaccia|"
        "choux pastry|meringue|cheesecake|banana bread|muffins|bagels|rye loaf|puff pastry|ganache|icing",
        "knead|proof|fold|shape|score|laminate|cream|sift|glaze|chill|temper|autolyse|preheat|dock",
        "bench scraper|banneton|stand mixer|rolling pin|baking stone|lame|piping bag|proofing box",
        "collapses in the oven|comes out dense|spreads too much|cracks on top|stays raw inside|burns underneath",
        "an open crumb|a flaky layer|a tall rise|a crackly crust|a moist crumb|an even bake",
    ),
    "woodworking": (
        "dovetail joint|mortise|tenon|tabletop|drawer front|cabinet door|bookshelf|cutting board|chair leg|"
        "picture frame|oak board|walnut slab|plywood sheet|edge banding|end grain|finish coat|glue joint|box lid",
        "plane|saw|chisel|sand|clamp|glue|rip|crosscut|rout|joint|mark|bevel|stain|oil",
        "hand plane|table saw|router|marking gauge|block plane|card scraper|bar clamp|miter saw",
        "tears out|splits along the grain|ends up out of square|gaps at the joint|cups after glue up|blotches",
        "a tight fit|a flat surface|a clean edge|a square corner|a smooth finish|less tear out",
    ),
    "photography": (
        "portrait|landscape|night sky|street scene|product shot|sunset|waterfall|wedding|food photo|"
        "studio headshot|macro subject|moving car|city skyline|group photo|backlit subject|interior|wildlife",
        "expose|focus|frame|meter|bracket|compose|light|pan|stabilise|crop|edit|retouch|white balance|underexpose",
        "tripod|prime lens|polarising filter|reflector|softbox|remote shutter|ND filter|speedlight",
        "comes out blurry|looks washed out|has blown highlights|shows noise|looks flat|has a colour cast",
        "sharp detail|a soft background|balanced light|rich colour|a dramatic mood|clean shadows",
    ),
    "gardening": (
        "tomato plants|seedlings|rose bush|lawn|compost heap|raised bed|herb garden|fruit tree|hedge|"
        "potato crop|strawberries|bulbs|houseplants|cuttings|clay soil|vegetable patch|climbing beans|orchid",
        "prune|water|mulch|transplant|fertilise|sow|harden off|stake|weed|divide|deadhead|aerate|propagate|thin",
        "pruning shears|watering can|garden fork|soil test kit|hand trowel|hose timer|cold frame|wheelbarrow",
        "wilts in the heat|yellows at the leaves|gets aphids|rots at the roots|bolts early|stops flowering",
        "a bigger harvest|strong roots|healthy leaves|more blooms|fewer pests|better drainage",
    ),
    "guitar": (
        "barre chord|power chord|pentatonic scale|fingerpicking pattern|strumming pattern|vibrato|bend|"
        "hammer on|pull off|slide|open tuning|capo position|chord change|solo phrase|riff|arpeggio|palm mute",
        "fret|strum|pick|tune|mute|bend|slide|alternate pick|hammer|practise|loop|transpose|memorise|voice",
        "metronome|capo|plectrum|tuner|looper pedal|slide bar|fingerstyle thumb pick|practice amp",
        "buzzes on the fret|sounds muddy|drifts out of tune|feels sloppy|hurts the wrist|rushes the beat",
        "a clean tone|steady timing|smooth changes|more sustain|a relaxed hand|clear notes",
    ),
    "programming": (
        "function|unit test|database query|api endpoint|loop|class|error handler|config file|pull request|"
        "dependency|log message|cache|thread pool|regular expression|data migration|commit|interface|script",
        "refactor|test|profile|document|name|validate|log|cache|index|review|mock|benchmark|deploy|debug",
        "debugger|linter|profiler|type checker|version control|test runner|formatter|tracer",
        "fails intermittently|runs too slowly|leaks memory|throws on empty input|deadlocks|breaks in production",
        "readable code|faster responses|fewer bugs|clear errors|safe retries|reproducible builds",
    ),
    "running": (
        "long run|interval session|tempo run|hill repeat|warm up|cool down|race pace|easy run|stride|"
        "cadence|marathon plan|recovery week|trail descent|track workout|fuel plan|taper|running form",
        "pace|stretch|hydrate|fuel|breathe|recover|taper|build|log|strengthen|rest|lean|land|drive",
        "heart rate monitor|foam roller|running watch|energy gel|trail shoes|hydration vest|track|treadmill",
        "causes shin pain|feels too hard|leaves you drained|ends in cramps|stalls progress|causes blisters",
        "a faster finish|steady breathing|fewer injuries|more endurance|a lighter stride|better recovery",
    ),
    "painting": (
        "watercolour wash|oil portrait|acrylic landscape|underpainting|glaze layer|skin tone|sky gradient|"
        "still life|colour palette|highlight|shadow|brush stroke|canvas|background|reflection|tree foliage",
        "mix|blend|layer|glaze|dilute|block in|scumble|stipple|varnish|sketch|lift|dry brush|tone|prime",
        "flat brush|palette knife|round brush|easel|masking fluid|gesso|mahl stick|colour wheel",
        "turns muddy|cracks when dry|looks chalky|bleeds at the edge|dries too fast|looks flat",
        "luminous colour|crisp edges|soft transitions|depth|a lively texture|clean highlights",
    ),
    "chess": (
        "opening|pawn structure|king safety|endgame|knight outpost|bishop pair|rook on the seventh|"
        "pin|fork|skewer|isolated pawn|passed pawn|queen trade|castling|center control|sacrifice|zugzwang",
        "develop|castle|trade|pin|fork|push|blockade|centralise|calculate|defend|attack|simplify|prophylaxis|exchange",
        "opening book|engine|clock|scoresheet|puzzle set|endgame table|training partner|analysis board",
        "loses a pawn|leaves the king exposed|runs out of time|drifts into a passive position|blunders a piece",
        "a lasting initiative|a safer king|active pieces|a winning endgame|control of the centre|fewer blunders",
    ),
    "cycling": (
        "chain|derailleur|brake pads|tyre pressure|saddle height|climb|descent|group ride|sprint|cadence|"
        "inner tube|cassette|headset|wheel truing|cornering line|bike fit|winter ride|century ride",
        "adjust|lube|shift|brake|pump|true|corner|climb|draft|patch|align|tighten|clean|pace",
        "chain tool|torque wrench|floor pump|tyre lever|multi tool|truing stand|chain checker|bike stand",
        "skips gears|squeals when braking|gets a flat|feels unstable|wears out early|rattles on bumps",
        "smooth shifting|reliable braking|less fatigue|faster climbs|safer cornering|longer part life",
    ),
    "knitting": (
        "cast on|bind off|cable|ribbing|sock heel|sweater yoke|lace chart|colourwork|gauge swatch|"
        "button band|seam|short rows|pick up stitches|dropped stitch|yarn over|decrease|increase|i-cord",
        "knit|purl|block|cast|bind|pick|seam|swatch|count|slip|weave|measure|decrease|frog",
        "circular needle|stitch marker|cable needle|row counter|blocking mat|tapestry needle|yarn swift|darning egg",
        "curls at the edge|comes out too tight|ladders between needles|puckers|stretches out|loses stitches",
        "even tension|a neat edge|a stretchy cuff|crisp cables|a good fit|invisible seams",
    ),
    "home repair": (
        "leaky tap|drywall patch|door hinge|tile grout|light switch|toilet flush|window seal|shelf bracket|"
        "paint job|clogged drain|squeaky floor|caulk line|radiator|fence post|roof gutter|circuit breaker",
        "patch|seal|tighten|replace|drill|level|caulk|sand|prime|unclog|anchor|isolate|measure|insulate",
        "stud finder|spirit level|cordless drill|plunger|caulk gun|putty knife|voltage tester|pipe wrench",
        "keeps dripping|cracks again|sags over time|lets in a draft|trips the breaker|stains the wall",
        "a lasting fix|a level finish|a dry wall|a safe circuit|less noise|a clean line",
    ),
    "swimming": (
        "freestyle stroke|flip turn|breathing pattern|kick|catch|backstroke|breaststroke timing|butterfly|"
        "streamline|open water sighting|dive start|drill set|pull buoy set|pace clock|body rotation|pool wall",
        "breathe|kick|glide|rotate|streamline|sight|pull|exhale|push off|reach|time|relax|drill|count",
        "kickboard|pull buoy|fins|snorkel|paddles|pace clock|goggles|wetsuit",
        "leaves you breathless|sinks the legs|zigzags in open water|feels slow|strains the shoulder|splashes",
        "a longer glide|easier breathing|a straighter line|more speed|relaxed shoulders|less drag",
    ),
    "electronics": (
        "solder joint|breadboard circuit|led|resistor|microcontroller|power supply|sensor|pcb trace|"
        "capacitor|voltage divider|motor driver|battery pack|wire harness|serial link|ground plane|relay",
        "solder|desolder|measure|probe|wire|flash|debounce|ground|shield|fuse|prototype|calibrate|route|strip",
        "multimeter|soldering iron|oscilloscope|bench supply|flux pen|wire stripper|logic analyser|hot air station",
        "overheats|reads noisy values|resets at random|shorts out|drains the battery|flickers",
        "a stable signal|a clean joint|a safe current|longer battery life|reliable readings|less noise",
    ),
    "language learning": (
        "vocabulary list|verb conjugation|listening practice|pronunciation|flashcard deck|grammar rule|"
        "conversation|reading habit|writing journal|accent|idiom|past tense|sentence pattern|dictation|shadowing",
        "review|repeat|shadow|conjugate|label|translate|recall|read|write|record|speak|listen|chunk|space",
        "spaced repetition app|dictionary|tutor|podcast|grammar book|language partner|subtitles|notebook",
        "slips from memory|sounds unnatural|stalls at a plateau|confuses the tenses|freezes in conversation",
        "faster recall|natural phrasing|clear pronunciation|steady progress|more confidence|richer vocabulary",
    ),
}

MANNERS = (
    "slowly|gently|firmly|in small steps|in one smooth motion|a little at a time|with light pressure|"
    "at a steady pace|before anything else|right at the end|in short bursts|with patience|evenly|"
    "from the centre outwards|in thin layers|while it is still warm|in a consistent order|by feel"
).split("|")

TEMPLATES = (
    "{V} the {o} {m}",
    "Always {v} the {o} before you {v2} the {o2}",
    "Never {v} the {o} while it {p}",
    "Remember to {v} the {o} {m}",
    "The key idea is to {v} the {o} for {g}",
    "Use the {t} to {v} the {o}",
    "{V} the {o} {m} so you get {g}",
    "If the {o} {p}, {v} it {m}",
    "Keep the {t} close and {v} the {o} {m}",
    "Check the {o} with the {t} before you {v} it",
)

WHEN = (
    "When the {o} {p}",
    "Before you {v} the {o2}",
    "Whenever you want {g}",
    "When working on the {o} with a {t}",
    "If you are new to the {o}",
    "When time is short and you need {g}",
)

STEPS = (
    "{V} the {o} {m}.",
    "Check that the {o} has not started to {v2}.",
    "Use the {t} for {g}.",
    "Wait, then {v2} the {o2} {m}.",
    "Watch for signs that it {p}.",
    "Repeat until you get {g}.",
)

QUERY_TEMPLATES = (
    "how do I {v} my {o} {m}",
    "my {o} {p}, what should I do",
    "best way to get {g} with the {o}",
    "tips for using a {t} on the {o}",
    "what to do when the {o} {p}",
    "{v} {o} {t}",
    "how can I stop the {o} from going wrong when I {v} it",
    "I want {g}: how should I {v} the {o}",
)

ADJECTIVES = ("Essential", "Practical", "Advanced", "Everyday", "Foundations of", "Mastering", "Troubleshooting",
              "Quick", "Classic", "Modern")


@dataclass
class Skill:
    id: str
    node_id: str
    name: str
    when_to_use: str
    steps: list[str]


@dataclass
class Node:
    id: str
    parent_id: str
    position: int
    title: str
    summary: str
    kind: str
    skills: list[Skill] = field(default_factory=list)


@dataclass
class Book:
    name: str
    root: Node
    chapters: list[Node]
    sections: list[Node]
    skills: list[Skill]

    @property
    def nodes(self) -> list[Node]:
        return [self.root] + self.chapters + self.sections


def _vocab(craft: str) -> dict[str, list[str]]:
    objects, verbs, tools, problems, goals = CRAFTS[craft]
    return {"o": objects.split("|"), "v": verbs.split("|"), "t": tools.split("|"),
            "p": problems.split("|"), "g": goals.split("|")}


def _fill(rng: random.Random, template: str, vocab: dict[str, list[str]], focus: str | None = None) -> str:
    o = focus if focus and rng.random() < 0.7 else rng.choice(vocab["o"])
    v = rng.choice(vocab["v"])
    values = {
        "o": o, "o2": rng.choice([x for x in vocab["o"] if x != o]), "v": v,
        "v2": rng.choice([x for x in vocab["v"] if x != v]), "t": rng.choice(vocab["t"]),
        "p": rng.choice(vocab["p"]), "g": rng.choice(vocab["g"]), "m": rng.choice(MANNERS),
    }
    values["V"] = values["v"][0].upper() + values["v"][1:]
    return template.format(**values)


def _hid(*parts) -> str:
    return hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()[:12]


def generate(n_skills: int, book: str = "bench", seed: int = 7) -> Book:
    """A book of exactly ``n_skills`` skills under chapters (one craft each) and sections."""
    rng = random.Random(f"{seed}:{n_skills}")
    crafts = sorted(CRAFTS)
    root = Node("n_root_" + hashlib.sha256(book.encode()).hexdigest()[:8], "", 0, book.capitalize(),
                f"Everything the tutorials of {book!r} teach.", "book")
    chapters: list[Node] = []
    sections: list[Node] = []
    skills: list[Skill] = []
    remaining = n_skills
    chapter_index = 0
    breadth = max(1, round((n_skills / 10_000) ** 0.5))  # bigger books: more sections a chapter
    while remaining > 0:
        craft = crafts[chapter_index % len(crafts)]
        vocab = _vocab(craft)
        edition = chapter_index // len(crafts)
        title = f"{ADJECTIVES[edition % len(ADJECTIVES)]} {craft}" + (f" {edition // len(ADJECTIVES) + 1}"
                                                                      if edition >= len(ADJECTIVES) else "")
        chapter = Node("n_" + _hid(book, "c", chapter_index), root.id, chapter_index, title.strip(),
                       f"How to work with {', '.join(rng.sample(vocab['o'], 3))} in {craft}.", "chapter")
        chapters.append(chapter)
        n_sections = rng.randint(6, 14) * breadth
        for s in range(n_sections):
            if remaining <= 0:
                break
            focus = rng.choice(vocab["o"])
            size = min(remaining, rng.randint(20, 50))
            section = Node("n_" + _hid(book, "s", chapter_index, s), chapter.id, s,
                           f"{focus.capitalize()}: {rng.choice(vocab['v'])} and {rng.choice(vocab['v'])}",
                           f"Getting {rng.choice(vocab['g'])} from the {focus}.", "section")
            sections.append(section)
            for j in range(size):
                name = _fill(rng, rng.choice(TEMPLATES), vocab, focus)
                steps = [_fill(rng, t, vocab, focus) for t in rng.sample(STEPS, rng.randint(2, 4))]
                if rng.random() < 0.3:
                    steps = [f"{i + 1}. {step}" for i, step in enumerate(steps)]
                skill = Skill("s_" + _hid(book, section.id, j), section.id, name,
                              _fill(rng, rng.choice(WHEN), vocab, focus), steps)
                section.skills.append(skill)
                skills.append(skill)
            remaining -= size
        chapter_index += 1
    return Book(book, root, chapters, sections, skills)


def queries(book: Book, n: int, seed: int = 11) -> list[str]:
    """Task descriptions in the book's vocabulary (not copies of any skill)."""
    rng = random.Random(seed)
    crafts = sorted(CRAFTS)
    out = []
    for i in range(n):
        vocab = _vocab(crafts[rng.randrange(min(len(crafts), max(1, len(book.chapters))))])
        out.append(_fill(rng, rng.choice(QUERY_TEMPLATES), vocab))
    return out


def skill_text(skill: Skill) -> str:
    """The searchable text of a skill, as the builder writes it."""
    return f"{skill.name}. {skill.when_to_use}. " + " ".join(skill.steps)


def embed_text(skill: Skill) -> str:
    """The text a skill's vector is computed from, as the builder embeds it."""
    return skill.name + ". " + " ".join(skill.steps)


def node_text(node: Node, skill_names: list[str]) -> str:
    return f"{node.title}. {node.summary} " + "; ".join(skill_names[:30])
