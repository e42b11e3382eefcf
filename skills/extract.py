"""Extractive consolidation without an LLM: sentences, instructive sentences become skill
drafts, titles and one-line summaries are picked from the text itself."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

#: a sentence's end: not after an unsure word's "(?)", an initial ("Andrew G. Morgan") or "e.g."/"i.e."/"vs."
_SENTENCE_END = re.compile(r"(?<=[.!?])(?<!\(\?)(?<!\b[A-Z]\.)(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bvs\.)"
                           r"[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_NUMBERED = re.compile(r"^\s*\d+[.)]\s+")

STOPWORDS = frozenset(
    """a an the and or but if then else when while of to in on at by for with from into onto
    over under about as is are was were be been being it its this that these those there here
    you your we our they their he she his her i me my us them so do does did done not no yes
    can could should would will shall may might must have has had just also very really than
    too more most some any all each every what which who whom how why where up down out off
    again once only own same such both few other let lets let's now first next finally step
    going get got make made thing things way like well one two three okay ok right""".split()
)

#: Verbs that commonly open an instruction ("Fold the whites", "Run git add").
IMPERATIVE_VERBS = frozenset(
    """add adjust apply ask avoid bake beat begin blend boil bring build buy call castle change
    configure crack cool develop discard dissolve drag dust feed fry grate grease hide knead
    lift line load log pin preheat proof push recapture refresh restart review rotate score
    shake sharpen sift skip soak sprinkle stage stretch swap tap trim tuck uncover unplug
    verify warm weigh wrap
    check choose chop clean clear click close combine commit compare connect consider control
    cook copy count cover create cut decide define delete develop dice do drain draw drop
    enable ensure enter exchange expect fill find finish fix focus fold follow force get give
    go grab heat hold install keep knead lay leave let limit look lower make mark measure
    meet melt mix move note open pay pick place plan play pour prefer prepare press prevent
    protect pull push put read reduce remember remove repeat replace rest return rinse roll
    run save season select separate serve set shape simmer slice split spread start stir
    stop store strain stretch take taste test think tighten trade try turn type undo use
    wait wash watch whisk work write""".split()
)

_OPENERS = re.compile(
    r"^(?:(?:first of all|first and foremost|last but not least|first(?! of\b| and foremost\b)|then|"
    r"next(?! up\b)|now(?! that\b| is\b)|finally|"
    r"so(?! far\b| that\b)|and|also|after that|afterwards|to start|"
    r"once (?:that'?s|it'?s|they'?re) [a-z ]+?|step \d+)[,:]?\s+)+",
    re.I,
)
_ADVICE = re.compile(
    r"\b(?:always|never|don'?t|do not|make sure|be sure|remember|the key (?:idea|point|thing|rule|is)|"
    r"the trick|the secret|it'?s (?:important|essential|crucial|best)|you (?:should|must|need to|have to|want to)|"
    r"avoid|the rule|rule of thumb|tip:|note that|important:|best practice|the main idea|aim to|try to)\b",
    re.I,
)
_LEADING_CLAUSE = re.compile(r"^(?:if|when|whenever|once|before|after|as soon as|while)\b[^,]{3,80},\s*", re.I)
_LATER_CLAUSE = re.compile(r"(?:,\s*(?:so|then|and then)|;|:)\s+", re.I)
_CONDITION = re.compile(
    r"\b((?:when|whenever|if|before|after|once|until|unless)\b[^,;.]{3,80})", re.I
)


@dataclass
class SkillDraft:
    """A skill read off the text: one instruction, or one numbered procedure."""

    name: str
    when_to_use: str
    steps: list[str]
    quote: str
    segment_indexes: list[int] = field(default_factory=list)
    search_text: str = ""
    """What the skill is found by (a passage with its section's title path); empty: name and steps."""
    span: tuple[float, float] | None = None
    """The evidence span when it is part of a segment (a split paragraph); None: the segments'."""
    code: list[int] = field(default_factory=list)
    """Which steps are code blocks, to be shown as typed (``rows.encode_steps``)."""


def split_sentences(text: str) -> list[str]:
    """Sentences of a paragraph; list items each count as one."""
    out: list[str] = []
    for line in _join_wrapped_lines(text):
        for sentence in _SENTENCE_END.split(_LIST_ITEM.sub("", line)):
            sentence = sentence.strip()
            if sentence:
                out.append(sentence)
    return out


def _join_wrapped_lines(text: str) -> list[str]:
    lines: list[str] = []
    for raw in text.splitlines():
        if _LIST_ITEM.match(raw) or not lines:
            lines.append(raw.strip())
        else:
            lines[-1] += " " + raw.strip()
    return [line for line in lines if line]


def is_instructive(sentence: str) -> bool:
    """Imperatives (also after an "if …," clause), always/never, "remember", "the key
    idea", "you should"…"""
    bare = _strip_markup(_LIST_ITEM.sub("", sentence))
    if len(bare.split()) < 3 or bare.endswith("?"):
        return False
    if _ADVICE.search(bare):
        return True
    main = _LEADING_CLAUSE.sub("", _OPENERS.sub("", bare))
    clauses = [main] + _LATER_CLAUSE.split(main)[1:]
    for clause in clauses:
        words = re.findall(r"[a-z']+", _OPENERS.sub("", clause).lower())
        if words and words[0] in IMPERATIVE_VERBS:
            return True
    return False


def _procedure_name(title: str) -> str:
    """A numbered procedure no line introduces is named after its section: "How to install
    Flask" where the heading states a step, else the heading itself ("The Application Factory",
    not "How to the Application Factory"; a section number dropped)."""
    title = re.sub(r"^\d+(?:\.\d+)*\.?\s+", "", title.strip())
    first = title.split()[0].lower() if title else ""
    return f"How to {title[:1].lower()}{title[1:]}" if first in IMPERATIVE_VERBS else title


def skill_drafts(paragraph: str, segment_index: int, context: str) -> list[SkillDraft]:
    """Skills of one segment: a numbered list is one procedure; other instructive
    sentences are one skill each. ``context`` (the section title) fills "when to use"."""
    lines = _join_wrapped_lines(paragraph)
    numbered = [line for line in lines if _NUMBERED.match(line)]
    drafts: list[SkillDraft] = []
    if len(numbered) >= 2:
        steps = [_strip_markup(_LIST_ITEM.sub("", line)) for line in numbered]
        intro = [line for line in lines if not _LIST_ITEM.match(line)]
        name = name_from(intro[0]) if intro else _procedure_name(context) or name_from(steps[0])
        drafts.append(
            SkillDraft(name, _when(" ".join(intro), context), steps, paragraph.strip(), [segment_index])
        )
        lines = [line for line in lines if not _NUMBERED.match(line) and line not in intro[:1]]
    for line in lines:
        for sentence in split_sentences(line):
            if is_instructive(sentence):
                clean = _strip_markup(_LIST_ITEM.sub("", sentence))
                drafts.append(
                    SkillDraft(name_from(clean), _when(clean, context), [clean], sentence, [segment_index])
                )
    return drafts


def name_from(sentence: str) -> str:
    name = _OPENERS.sub("", _strip_markup(sentence)).strip().rstrip(".:;!").rstrip()  # "contributors :"
    name = re.sub(  # "Note: …", "Remember to …", "The key idea is that …"; not "Note the following"
        r"^(?:(?:remember|note|tip|important)[:,]\s+(?:that\s+|to\s+)?|(?:remember|note)\s+(?:that|to)\s+"
        r"|the (?:key|main) (?:idea|point|thing|rule)(?: here)? is[:,]?\s+(?:that\s+|to\s+)?)", "", name, flags=re.I,
    )
    return clipped(sentence_case(name))


#: the longest name a skill gets
MAX_NAME_CHARS = 90


def clipped(name: str) -> str:
    """A name no longer than ``MAX_NAME_CHARS``, cut at a word with an ellipsis."""
    return name if len(name) <= MAX_NAME_CHARS else name[:MAX_NAME_CHARS - 3].rsplit(" ", 1)[0] + "…"


#: an operator standing alone after a first word: the phrase is code ("y ~ x", "x <- 1")
_OPERATOR = re.compile(r"^[^\w\s]+$")


def sentence_case(phrase: str) -> str:
    """The phrase with its first letter in upper case, as a title starts — unless its first
    word is code or a name written in its own case ("dev.off(k) closes…", "type= sets…",
    "is.na", "iOS", "y ~ x", "ischar (x)"): upper-casing those changes what they say."""
    tokens = phrase.split(maxsplit=2)
    if not tokens:
        return phrase
    first = tokens[0].rstrip(",:;!?")
    if tokens[0].endswith(":") and len(tokens) > 1:
        return phrase  # a term over its meaning ("sshd: Start the ssh daemon"): as the author wrote it
    if not re.fullmatch(r"[a-z][a-z'’-]*", first) or (len(tokens) > 1 and _OPERATOR.match(tokens[1])) \
            or len(tokens) > 1 and tokens[1].startswith("(") and tokens[0] == first \
            or len(tokens) > 2 and re.fullmatch(r"\**\w*[_\d]\w*", tokens[1]) and tokens[2].startswith("("):
        return phrase  # "ischar (x) returns …": a call; "void mpfr_init (mpfr_t x)": a declaration
    return phrase[:1].upper() + phrase[1:]


def _when(sentence: str, context: str) -> str:
    condition = _CONDITION.search(sentence)
    if condition:
        return condition.group(1).strip()
    return f"While working on: {context}" if context else ""


#: a pair of Markdown emphasis marks around words ("*not*", "**Note**", "_really_")
#: emphasis opens on a word (or a bracket) and closes after one (or after ".", ":", "!", "?" or a bracket):
#: bc's "Comments start with the characters '/*' and end with the characters '*/'" keeps its stars
_EMPHASIS = re.compile(r"(?<![\w*])(\*\*?|__?)(?=[\w(\[])(.+?)(?<=[\w.:!?)\]])\1(?![\w*])")


def _strip_markup(text: str) -> str:
    """Markdown emphasis and code marks off: backticks, and ``*`` or ``_`` only in pairs around
    words. A mark without its pair is the text's own (``*args``, ``SELECT * FROM``, ``*.txt``:
    Python's signatures had been named "retry_all(retries: …)"), and so is a name between double
    underscores (``__init__``) or with one inside (``call_api``)."""
    text = _EMPHASIS.sub(lambda m: m.group(0) if m.group(1) == "__" and m.group(2).isidentifier() else m.group(2),
                         text.replace("`", ""))
    return text.strip()


def keywords(texts: list[str], n: int = 4) -> list[str]:
    counts: Counter[str] = Counter()
    first: dict[str, int] = {}
    for text in texts:
        for word in re.findall(r"[A-Za-z][A-Za-z'-]{2,}", text):
            low = word.lower()
            if low not in STOPWORDS:
                counts[low] += 1
                first.setdefault(low, len(first))
    top = [w for w, _ in counts.most_common(n)]
    return sorted(top, key=first.__getitem__)


def central_index(vectors: np.ndarray, among: np.ndarray | None = None) -> int:
    """The row most similar to all the others: the best one-line summary of a span. ``among`` (a
    mask with at least one row set) limits which rows may be chosen; the centroid is still all
    of them's. Of one or two rows, the first allowed."""
    if len(vectors) <= 2:
        return int(np.argmax(among)) if among is not None else 0
    scores = vectors @ vectors.mean(axis=0)
    return int(np.argmax(scores if among is None else np.where(among, scores, -np.inf)))


def one_line(text: str, limit: int = 160) -> str:
    sentences = [" ".join(_strip_markup(_LIST_ITEM.sub("", s)).split()) for s in split_sentences(text)]
    sentences = [s for s in sentences if s] or [""]
    first = next((s for s in sentences if not s.endswith(":")), sentences[0])
    return first if len(first) <= limit else first[: limit - 1].rsplit(" ", 1)[0] + "…"


def states(line: str) -> bool:
    """A sentence that says something: not a short lead-in announcing what follows ("Run:", "You
    get this:") nor a word or two ("True"). A longer lead-in says what follows is about ("Sinatra
    applications can be run directly:"): it stays, unless it stops on a word that wants what
    follows ("Thus the default timeout is:", "We get a list of selectors for the quote HTML
    elements with:": aiohttp's and Scrapy's sections had been summed up so)."""
    from tutorialbook.skills.passages import wants_more

    words = len(line.split())
    return words >= 3 and not (line.endswith(":") and (words < 5 or wants_more(line[:-1].split()[-1])))


def opening(segments) -> str:
    """What a chapter's introduction says first: its first segment stating something in prose,
    not a licence's or a greeting's (``passages.is_boilerplate``)."""
    from tutorialbook.skills.passages import is_boilerplate

    lines = [one_line(seg.text) for seg in segments if seg.kind != "code"] or [one_line(segments[0].text)]
    plain = [line for line in lines if not is_boilerplate(line)] or lines
    return next((line for line in plain if states(line)), plain[0])


def summary(segments, indexes: list[int], vectors: np.ndarray, ideas: int = 2) -> str:
    """A node's summary: the opening sentence of its most central segment and, where it holds
    more than one idea, of the central segment least like that one, in document order. Only a
    node of code alone is summed up by its code: a section's prose says what it teaches, its
    examples' lines (">>> r = requests.get(…)") are not what a person writes as a summary; nor
    is a short lead-in ("Run:", "You get this:") or a word or two ("True"), while a segment
    saying something (:func:`states`) is there; nor is a licence's clause or a greeting."""
    prose = [j for j, i in enumerate(indexes) if segments[i].kind != "code"]
    if prose and len(prose) < len(indexes):
        indexes, vectors = [indexes[j] for j in prose], vectors[prose]
    from tutorialbook.skills.passages import is_boilerplate

    lines = [one_line(segments[i].text) for i in indexes]
    # no licence's or greeting's sentence either: no skill holds it (cpio's README, "… Permission is
    # granted to anyone to make or distribute verbatim copies of this document …")
    plain = np.array([not is_boilerplate(segments[i].text) for i in indexes])
    stated = np.array([states(line) for line in lines]) & plain
    if not stated.any():
        stated[:] = plain if plain.any() else True
    first = central_index(vectors, stated)
    chosen = [first]
    if len(indexes) >= 4 and ideas > 1:
        centre = vectors.mean(axis=0)
        fit = np.where(stated, vectors @ centre - vectors @ vectors[first], -np.inf)  # central, unlike the first
        fit[first] = -np.inf
        if np.isfinite(fit.max()):
            chosen.append(int(np.argmax(fit)))
    return " ".join(dict.fromkeys(lines[i] for i in sorted(chosen) if lines[i]))


def topic_boundaries(vectors: np.ndarray, window: int = 3, min_size: int = 4) -> list[int]:
    """Indexes where a new topic starts: deep drops in similarity between the windows
    before and after each gap (TextTiling over sentence embeddings)."""
    n = len(vectors)
    if n < 2 * min_size:
        return []
    sims = []
    for gap in range(1, n):
        left = vectors[max(0, gap - window) : gap].mean(axis=0)
        right = vectors[gap : gap + window].mean(axis=0)
        sims.append(float(left @ right / (np.linalg.norm(left) * np.linalg.norm(right) + 1e-9)))
    sims_arr = np.array(sims)
    depth = np.zeros_like(sims_arr)
    for i, value in enumerate(sims_arr):
        depth[i] = (sims_arr[: i + 1].max() - value) + (sims_arr[i:].max() - value)
    threshold = depth.mean() + depth.std() / 2
    chosen: list[int] = []
    for i in np.argsort(-depth):
        gap = int(i) + 1
        if depth[i] < threshold or depth[i] <= 0.05:
            break
        if all(abs(gap - c) >= min_size for c in chosen) and min_size <= gap <= n - min_size:
            chosen.append(gap)
    return sorted(chosen)
