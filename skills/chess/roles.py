"""What the words of a sentence make of the moves it mentions.

A move said is not always a move made: it may be replaced ("instead of"), offered ("can also
play"), supposed, named in a rule ("before you play e3"), referred back to ("after 3. Bb5"),
advised or warned against, or numbered ("on move two"). `_roles` gives each mention of a sentence
its role; the cues that move the tracker's cursor (a restart, "back to move two", a turn away from
a warned-against line) are read here too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import chess

from .mention import Mention
from .moves import find_mentions

_RESTART = re.compile(
    r"\b(?:(?:we|let's|lets|let\s+us|we'll|i'll)\s+(?:start|begin)|start(?:ing)?\s+(?:again|over|with)|"
    r"from\s+the\s+(?:starting|initial)\s+position|from\s+the\s+(?:start|beginning)|from\s+scratch|"
    r"back\s+to\s+the\s+(?:start|beginning|starting\s+position|initial\s+position)|the\s+game\s+(?:starts|begins))\b",
    re.IGNORECASE,
)
_INSTEAD_OF = re.compile(r"\binstead\s+o[fn]\b", re.IGNORECASE)  # "instead on": ASR for "instead of"
_ALTERNATIVE = re.compile(
    r"\b(?:instead|alternatively|another\s+(?:option|idea|move|possibility|try)\s+is|"
    r"(?:can|could|may|might)\s+also\s+(?:play|try|go\s+for)|also\s+possible\s+is|"
    r"(?:can|could|may|might)\s+(?:also\s+)?(?:choose|opt\s+for|prefer))\b",
    re.IGNORECASE,
)
# "going back to move two": the position where move two is played (White's or Black's, the moves say)
# "back to move two" as speech recognition writes it: "back to move to." (a number's sound-alike
# only where the sentence or clause ends on it)
#: a move's number after "move" ("move number two"), or its sound-alike where the clause ends on it
_MOVE_N = (r"move\s+(?:number\s+)?(?:(?P<n>\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b"
           r"|(?P<heard>to|too|for|won)(?=\s*(?:[.,;:!?]|$)))")
_BACK_TO_MOVE = re.compile(rf"\b(?:back|return(?:ing)?)\s+to\s+{_MOVE_N}", re.IGNORECASE)
# "decline the gambit with bishop c5 on move two": the move said nearest it is that move number's
# (speech recognition's "on move to," as _BACK_TO_MOVE reads it)
_ON_MOVE = re.compile(rf"\b(?:on|at|for)\s+{_MOVE_N}", re.IGNORECASE)
# "bishop c5 on v2": "on move two" with the "mo" of "move" lost, its "v" run into the number, written as a
# square of a rhyming letter; only where the clause ends on it
_ON_V = re.compile(r"\b(?:on|at)\s+v(?P<n>[1-9])(?=\s*(?:[.,;:!?]|$))", re.IGNORECASE)
# "puts the bishop on v2": a piece's place, not a number
_PIECE_BEFORE = re.compile(r"\b(?:pawn|knight|bishop|rook|queen|king)s?\s*$", re.IGNORECASE)
# "with bishop c5, pawn move to, that bishop ...": "on move two" with its "on" lost or garbled; "move to"
# that ends a clause names no square to move to, so it is the number of the move said before it (not
# where "back to move to")
_MOVE_HEARD = re.compile(r"(?<!\bto\s)\bmove\s+(?P<heard>to|too|for)(?=\s*(?:[.,;:!?]|$))", re.IGNORECASE)
# a move number said before its move: "three d4", "3 d4" at a sentence's or clause's start, or after "is" or "play"
# (not "two": that is the spoken "to"); then a pause or a space, not "3d4" run together
_MOVE_NUMBER_SAID = r"(?P<n>[1-9]|1[0-9]|one|three|four|five|six|seven|eight|nine|ten|eleven|twelve)(?:\s*[,.]\s*|\s+)"
_SPOKEN_NUMBER = re.compile(rf"(?:^|[.,;:!?]|\b(?:is|play|plays|played|playing))\s*{_MOVE_NUMBER_SAID}$", re.IGNORECASE)
_LEADING_NUMBER = re.compile(_MOVE_NUMBER_SAID, re.IGNORECASE)
_NUMBERS = {w: n for n, w in enumerate("one two three four five six seven eight nine ten eleven twelve".split(), 1)}
_NUMBERS |= {"to": 2, "too": 2, "for": 4, "won": 1}
# "black can also wait with the recapture and play knight f6": words between "can also" and the
# move word (none that starts a next step: "but", "then", "first", "now"); the move offered is an
# alternative only where it cannot be played where the lesson stands
_OFFERED = re.compile(
    r"\b(?:can|could|may|might)\s+also\s+(?:(?!but\b|then\b|first\b|now\b)[a-z]+\s+){1,6}?(?:play|try|go\s+for)\b",
    re.IGNORECASE,
)
_SUPPOSE = re.compile(r"\b(?:suppose|what\s+if|imagine)\b", re.IGNORECASE)
# A move named in a rule about move order is not made: "get the bishop out before you play e3",
# "without playing e3", "if you play e3 first (too early), the bishop is locked in".
_HYPOTHETICAL = re.compile(
    r"\b(?:(?:before|until|unless)\s+(?:you|we|white|black|they|he|she)\s+(?:have\s+|has\s+)?(?:can\s+)?|"
    r"(?:before|without|instead\s+of)\s+(?=(?:playing|pushing|moving|putting|developing)\b)|"
    r"\bif\s+you\s+(?=(?:play|push|move|put|go)\b[^.;!?]*\b(?:first|too\s+early|too\s+soon|prematurely)\b))",
    re.IGNORECASE,
)
# A move named as what another move stops or runs into is not made: "knight f3, which stops queen h4
# check", "taking on e4 too early runs into queen e7" (only the mention said right after the words)
_PREVENTED = re.compile(
    r"\b(?:stops?|stopped|stopping|prevents?|prevented|preventing|threatens?|threatened|threatening|"
    r"(?:rules?|ruled|ruling)\s+out|discourages?|discouraged|discouraging|"
    r"(?:runs?|ran|running|walks?|walked|walking)\s+into)\s+(?:(?:the|a|an|any|white's|black's)\s+)*",
    re.IGNORECASE,
)
# at most one word between the cue and the move it stops: "which stops we(?) h4 check" (queen misheard)
_ONE_WORD = re.compile(r"\s*(?:[A-Za-z']+\s+)?")
# What turns from a move warned against back to the lesson: "don't take on e4; first, d6"
_TURNS_AWAY = re.compile(r";|\b(?:first|instead|rather|but|better)\b", re.IGNORECASE)
# A position referred to by the move that reached it: "after 3. Bb5", and "back to the position
# of/at the bishop to c4" (how ASR often writes a quickly said "after").
_AFTER = re.compile(r"\bafter\b|\bposition\s+(?:of|at)(?:\s+the\b)?", re.IGNORECASE)
_AFTER_GAP = re.compile(
    r"\s*(?:the\s+(?:position|moves?)\s+(?:after\s+)?)?(?:\d+\s*(?:\.\.\.|…|\.)\s*(?:\.\.\.|…)?\s*)?", re.IGNORECASE
)
_RUN_GAP = re.compile(r"\s*(?:\d+\s*(?:\.\.\.|…|\.)\s*(?:\.\.\.|…)?\s*)?")
_RECOMMEND = re.compile(
    r"\b(?:best|the\s+main\s+(?:move|line|idea)|you\s+should|should\s+play|i\s+recommend|recommended|"
    r"strongest|the\s+key\s+move|the\s+(?:right|correct)\s+move|must\s+play|a\s+(?:good|strong)\s+move)\b",
    re.IGNORECASE,
)
_AVOID = re.compile(
    r"(?:\b(?:don't|do\s+not|never|avoid|careful\s+not\s+to|(?:should|must)(?:\s+not|n't))\b|"
    r"\b(?:mistake|blunder|dubious|bad\s+move|is\s+bad)\b)",
    re.IGNORECASE,
)
_REASON = re.compile(
    r"\b(?:because(?:\s+of)?|since|as(?=\s+(?:it|this|that|the|there|he|she|they|we|you)\b)|so\s+that|"
    r"in\s+order\s+to|which|to)\b\s*",
    re.IGNORECASE,
)
_CAUSE = re.compile(r"\b(?:because(?:\s+of)?|since)\b\s*", re.IGNORECASE)
_SUBJECT = re.compile(r"\s*(white|black)\b(?!['’]s)", re.IGNORECASE)  # a sentence opening with the side that acts


@dataclass
class _Said:
    """A mention in its sentence: where it was said and what role the words give it."""

    mention: Mention
    role: str  # "move", "reference", "instead_of", "alternative", "offered", "suppose", "hypothetical"
    kind: str = "move"
    reason: str = ""


def _roles(text: str) -> list[_Said]:
    """The mentions of a sentence with the role its words give each one."""
    saids: list[_Said] = []
    markers: list[tuple[int, str]] = []  # the first mention after (or around) each position takes the role
    replaced: Mention | None = None
    offered: int | None = None
    mentions = find_mentions(text)
    instead = _INSTEAD_OF.search(text)
    contrast = instead is not None and _contrasts_an_action(text, mentions, instead)
    if instead and not contrast:
        # The replaced move is often a bare square ("instead of e5"), which running narration
        # reads as a place; here it is known to be a move.
        clause_end = text.find(",", instead.end())
        objects = find_mentions(text[instead.end() : clause_end if clause_end >= 0 else len(text)], strict=False)
        if objects:
            replaced = objects[0]
            replaced.start, replaced.end = replaced.start + instead.end(), replaced.end + instead.end()
            saids.append(_Said(replaced, "instead_of"))
        offered = _offered_before(text, mentions, instead.start())
        markers.append((offered if offered is not None else (replaced.end if replaced else instead.end()),
                        "alternative"))
    markers += [
        (m.start(), "alternative")
        for m in _ALTERNATIVE.finditer(text)
        if not (instead and m.start() == instead.start())
    ]
    markers += [(m.start(), "offered") for m in _OFFERED.finditer(text)]
    markers += [(m.start(), "suppose") for m in _SUPPOSE.finditer(text)]
    markers += [(m.start(), "hypothetical") for m in _HYPOTHETICAL.finditer(text)]
    markers += [(m.start(), "hypothetical") for m in _PREVENTED.finditer(text)
                if any(m.start() < said.start and _ONE_WORD.fullmatch(text[m.end() : said.start]) for said in mentions)]
    afters = [m.end() for m in _AFTER.finditer(text)]
    previous_end, in_run = 0, False
    for m in mentions:
        if replaced and m.start < replaced.end and m.end > replaced.start:
            previous_end = m.end
            continue
        role = next((r for pos, r in markers if previous_end <= pos < m.end), None)  # may sit in its prefix
        in_run = any(previous_end <= a <= m.start and _AFTER_GAP.fullmatch(text[a : m.start]) for a in afters) or (
            in_run and _RUN_GAP.fullmatch(text[previous_end : m.start]) is not None
        )
        saids.append(_Said(m, role or ("reference" if in_run else "move")))
        previous_end = m.end
    # in reading order, but the move replaced first: "c5 instead of knight f6" plays c5 where f6 was
    saids.sort(key=lambda s: offered - 0.5 if s.role == "instead_of" and offered is not None else s.mention.start)
    subject = _SUBJECT.match(text)
    first = next((s for s in saids if s.role == "move"), None)
    if (
        subject
        and first is not None
        and first.mention.side is None
        and first.mention.earlier_piece is None  # "black the other knight, then pawn to d4": not d4's
        and first.mention.start > subject.end()
    ):
        # "White attacks f7, knight to g5": the sentence's subject makes its first move
        first.mention.side = chess.WHITE if subject.group(1).lower() == "white" else chess.BLACK
    _advice(text, [s for s in saids if s.role != "instead_of"])
    _number_said(text, saids)
    _number_before(text, saids)
    return saids


def _number_before(text: str, saids: list[_Said]) -> None:
    """ "A second try for White is three d4": a move number said without its full stop right before
    a move, at the start of a sentence or clause or after "is"/"play", numbers that move."""
    for said in saids:
        if said.mention.move_number is None and said.role != "instead_of":
            lead = _LEADING_NUMBER.match(said.mention.text)  # "three d4": the number read as the move's prefix
            if number := _SPOKEN_NUMBER.search(text[: said.mention.start + (lead.end() if lead else 0)]):
                n = number.group("n").lower()
                said.mention.move_number, said.mention.black = int(n) if n.isdigit() else _NUMBERS[n], None


def _number_said(text: str, saids: list[_Said]) -> None:
    """Give "on move two" to the mention said nearest it that carries no number of its own; which
    side's move two it is, the board tells (``_Tracker.go_to_number``)."""
    numbers = list(_ON_MOVE.finditer(text))
    numbers += [m for m in _ON_V.finditer(text) if not _PIECE_BEFORE.search(text[: m.start()])]
    heard = [m for m in _MOVE_HEARD.finditer(text) if not any(on.start() <= m.start() < on.end() for on in numbers)]
    for on in numbers + heard:
        near = [s for s in saids if s.role != "instead_of" and s.mention.move_number is None
                and (on not in heard or s.mention.end <= on.start())]  # "move to, say, e5" is no number
        if not near:
            return
        said = min(near, key=lambda s: max(on.start() - s.mention.end, s.mention.start - on.end(), 0))
        number = (on.groupdict().get("n") or on.group("heard")).lower()
        said.mention.move_number, said.mention.black = int(number) if number.isdigit() else _NUMBERS[number], None


def _contrasts_an_action(text: str, mentions: list[Mention], instead: re.Match[str]) -> bool:
    """ "Instead of defending, black counterattacks with knight f6": "instead of" before an action
    that names no move (a verb in -ing, not "castling") sets what follows against that action, not
    against a move; the move said is the line's next, not an alternative to an earlier one. So is a
    move said just before it across a pause ("two, knight f3, instead of defending, ..."): speech
    recognition's comma for the full stop that ended the sentence before, not "c5 instead of
    castling"."""
    clause_end = text.find(",", instead.end())
    clause = text[instead.end() : clause_end if clause_end >= 0 else len(text)]
    offered = _offered_before(text, mentions, instead.start())
    paused = offered is not None and "," in text[next(m.end for m in mentions if m.start == offered) : instead.start()]
    return (
        re.match(r"\s*[a-z]+ing\b", clause, re.IGNORECASE) is not None
        and not find_mentions(clause, strict=False)
        and (offered is None or paused)
    )


def _offered_before(text: str, mentions: list[Mention], instead_at: int) -> int | None:
    """Where the move offered sits when it comes before "instead of" in the same clause ("if black
    plays c5 instead of knight f6, ..."): the alternative is that move, not the one after."""
    before = [m for m in mentions if m.end <= instead_at and not text[m.end : instead_at].strip(" ,")]
    return before[-1].start if before else None


def _advice(text: str, saids: list[_Said]) -> None:
    """Mark the mention each recommendation or warning is about, with the narrator's reason."""
    cues = sorted(
        [(m.start(), m.end(), "recommend") for m in _RECOMMEND.finditer(text)]
        + [(m.start(), m.end(), "avoid") for m in _AVOID.finditer(text)]
    )
    for n, (start, end, kind) in enumerate(cues):
        next_cue = cues[n + 1][0] if n + 1 < len(cues) else len(text)
        target = next((s for s in saids if end <= s.mention.start < next_cue), None)
        if target is None:
            target = next((s for s in reversed(saids) if s.mention.end <= start), None)
        if target is not None and target.kind == "move":
            target.kind = kind
            target.reason = _reason(text, target.mention, [s.mention for s in saids])


def _reason(text: str, mention: Mention, mentions: list[Mention]) -> str:
    """The words after "because", "to", "which" ... that follow the advised move, else the sentence."""
    for m in _REASON.finditer(text, mention.end):
        if any(o.start <= m.start() < o.end for o in mentions):
            continue  # the "to" of "knight to f3"
        reason = text[m.end() :].strip().rstrip(".!?").strip()
        if reason:
            return reason
    cause = _CAUSE.search(text)
    if cause and text[cause.end() :].strip():
        return text[cause.end() :].split(",")[0].strip().rstrip(".!?")
    return text.strip()
