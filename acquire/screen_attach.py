"""Screen texts into the words consolidation reads: the transcript as heard stays as it is (it
is what the segments table keeps), and ``for_consolidation`` gives the builder a copy whose
segments also say what was on screen while they were spoken.

* Where the narration names a command or an identifier that is on screen at that moment
  ("git rebase dash i head tilde three" while ``git rebase -i HEAD~3`` is shown), the screen's
  spelling replaces the heard words, and a command gets its time: "(on screen at 0:42)".
* A command or code block shown but not named joins the last sentence of the segment spoken
  when it appeared, as an instruction with its time ("…: run git status --short (on screen at
  0:00)."), so the skill drafted from that segment carries it as a step.
* Slide titles become section headings (segment index, level 2) when the source has none.
"""

from __future__ import annotations

import dataclasses
import re
from difflib import SequenceMatcher

from tutorialbook.acquire.screen import clock
from tutorialbook.acquire.transcript import ScreenText, Segment, Transcript

ATTACHED = ("command", "code")  # what joins the narration; output and slide text stay on screen only
SLACK = 0.75  # s: a text shown this soon after a segment ends still belongs to it
MATCH = 0.6  # share of a command's words the narration must say, in order, to name it
SOUNDS_LIKE = 0.65  # else: how alike (difflib ratio) the heard letters and the spoken command must be
LINE_BREAK = " ⏎ "  # a code block's lines inside one segment's text

_WORD = re.compile(r"[A-Za-z]+|\d+")
_NUMBERS = {w: str(n) for n, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty".split())}
_DIGITS = {v: k for k, v in _NUMBERS.items()}
_SYMBOL_WORDS = {"-": "dash", "~": "tilde", ".": "dot", "/": "slash", "\\": "backslash", "_": "underscore",
                 "=": "equals", "|": "pipe", ":": "colon", "*": "star", "#": "hash", "$": "dollar", "+": "plus",
                 "^": "caret"}
#: words a narrator says for punctuation: not part of what a command's words are matched on
_SPOKEN_SYMBOLS = frozenset(
    "dash dashes hyphen minus double tilde dot slash backslash underscore equals pipe colon star "
    "asterisk hash dollar plus caret".split())


def for_consolidation(transcript: Transcript) -> Transcript:
    """The transcript the builder reads: segments enriched with the screen, slide titles as
    headings. Without screen texts (or untimed), the transcript itself."""
    shown = [s for s in transcript.screen if s.text.strip()]
    if not shown or not transcript.timed or not transcript.segments:
        return transcript
    segments = transcript.segments
    texts = [s.text for s in segments]
    named: set[int] = set()
    spoken_in: dict[int, int] = {}  # screen text -> first segment that says one of its terms
    for i, segment in enumerate(segments):
        here = [(n, s) for n, s in enumerate(shown) if _overlap(segment, s) > 0 and s.kind in ATTACHED]
        texts[i], found = correct(texts[i], [s for _, s in here])
        for (n, _), hit in zip(here, found):
            if hit == "whole":
                named.add(n)
            if hit:
                spoken_in.setdefault(n, i)
    for n, s in enumerate(shown):
        if s.kind in ATTACHED and n not in named:
            home = spoken_in.get(n, _when_shown(segments, s))
            texts[home] = _append(texts[home], s)
    headings = transcript.headings or _headings(segments, shown)
    return dataclasses.replace(
        transcript, segments=[Segment(s.start, s.end, t) for s, t in zip(segments, texts)], headings=headings)


def correct(heard: str, shown: list[ScreenText]) -> tuple[str, list[str]]:
    """``heard`` with the screen's spelling where it names what is shown; and, per screen
    text, "whole" (a command said out loud), "term" (some of its identifiers said) or ""."""
    words = _words(heard)
    edits: list[tuple[int, int, str]] = []
    named = []
    for s in shown:
        span = (_named(words, s.text) or _sounds_like(heard, s.text)) if s.kind == "command" else None
        named.append("whole" if span is not None else "")
        if span is not None and not any(a < span[1] and span[0] < b for a, b, _ in edits):
            edits.append((span[0], span[1], f"{s.text} (on screen at {clock(s.start)})"))
    for n, s in enumerate(shown):
        for term in _identifiers(s.text):
            for a, b in _spans(words, _parts(term)):
                if not any(x < b and a < y for x, y, _ in edits):
                    edits.append((a, b, term))
                    named[n] = named[n] or "term"
    for a, b, new in sorted(edits, reverse=True):
        heard = heard[:a] + new + heard[b:]
    return heard, named


def _words(text: str) -> list[tuple[str, int, int]]:
    """(canonical word, start, end): lower case, number words as digits, spoken punctuation dropped."""
    out = []
    for m in _WORD.finditer(text):
        word = m.group().lower()
        if word in _SPOKEN_SYMBOLS:
            continue
        out.append((_NUMBERS.get(word, word), m.start(), m.end()))
    return out


def _parts(text: str) -> list[str]:
    """A screen text's words as a narrator would say them: camelCase split, punctuation gone."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)
    return [w.lower() for w in _WORD.findall(spaced)]


def _named(words: list[tuple[str, int, int]], command: str) -> tuple[int, int] | None:
    """The character span of the narration that says ``command`` (most of its words, in
    order, close together), or None."""
    parts = _parts(command)
    if len(parts) < 2 or not words:
        return None
    heard = [w for w, _, _ in words]
    matcher = SequenceMatcher(None, heard, parts, autojunk=False)
    blocks = [b for b in matcher.get_matching_blocks() if b.size]
    best = None
    for first in range(len(blocks)):  # the densest run of blocks that covers enough of the command
        matched = 0
        for last in range(first, len(blocks)):
            matched += blocks[last].size
            a, b = blocks[first].a, blocks[last].a + blocks[last].size
            if b - a > 1.5 * len(parts) + 2:
                break
            if matched >= max(2, MATCH * len(parts)) and (best is None or matched > best[0]):
                best = (matched, a, b)
    if best is None:
        return None
    return words[best[1]][1], words[best[2] - 1][2]


def _spoken(text: str) -> str:
    """How a narrator says a command: punctuation and digits as words (``-i`` "dash i")."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)
    out = []
    for token in re.findall(r"[A-Za-z]+|\d+|[^\sA-Za-z\d]", spaced):
        if token.isdigit():
            out.append(_DIGITS.get(token, token))
        elif token.isalpha():
            out.append(token.lower())
        elif token in _SYMBOL_WORDS:
            out.append(_SYMBOL_WORDS[token])
    return " ".join(out)


def _sounds_like(heard: str, command: str) -> tuple[int, int] | None:
    """The run of heard words that sounds most like the command said aloud, when its letters
    mostly agree (speech recognition turns "git rebase dash i head tilde three" into "good
    remade smash I had till the free": few words survive, most letters do)."""
    target = _spoken(command)
    if len(target) < 8:
        return None
    words = list(re.finditer(r"[A-Za-z0-9']+", heard))
    best, best_ratio = None, SOUNDS_LIKE
    matcher = SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(target)
    for i in range(len(words)):
        for j in range(i, len(words)):
            said = heard[words[i].start():words[j].end()].lower()
            if len(said) > 1.3 * len(target):
                break
            if len(said) < 0.7 * len(target):
                continue
            matcher.set_seq1(said)
            if matcher.quick_ratio() >= best_ratio and matcher.ratio() >= best_ratio:
                best, best_ratio = (words[i].start(), words[j].end()), matcher.ratio()
    return best


def _identifiers(text: str) -> list[str]:
    """Terms of a screen text a narrator says as several words: ``--force-with-lease``,
    ``HEAD~3``, ``call_api``, ``useState`` (punctuation or camelCase inside, two parts or more)."""
    out = []
    for term in re.split(r"[\s()\[\]{},;:=\"']+", text):
        term = term.rstrip(".")
        if len(_parts(term)) >= 2 and (
            re.search(r"[A-Za-z0-9][^A-Za-z0-9\s]+[A-Za-z0-9]", term)
            or re.search(r"[a-z][A-Z]", term)
            or term.startswith("-")
        ):
            out.append(term)
    return sorted(set(out), key=len, reverse=True)  # longest first: it wins an overlap


def _spans(words: list[tuple[str, int, int]], parts: list[str]) -> list[tuple[int, int]]:
    """Character spans where the narration says exactly these words in a row."""
    heard = [w for w, _, _ in words]
    n = len(parts)
    return [(words[i][1], words[i + n - 1][2]) for i in range(len(heard) - n + 1) if heard[i:i + n] == parts]


def _append(text: str, shown: ScreenText) -> str:
    """The segment's text with a shown command or code joined to its last sentence as an
    instruction ("…: run git status --short (on screen at 0:00).")."""
    body = shown.text.replace("\n", LINE_BREAK)
    verb = "use" if shown.kind == "code" else "run"
    return f"{text.rstrip().rstrip('.!?')}: {verb} {body} (on screen at {clock(shown.start)})."


def _when_shown(segments: list[Segment], shown: ScreenText) -> int:
    """The segment being spoken when a text appeared, else the next one (the narrator comes
    to it), else the last."""
    for i, segment in enumerate(segments):
        if segment.start - SLACK <= shown.start <= segment.end or segment.start > shown.start:
            return i
    return len(segments) - 1


def _headings(segments: list[Segment], shown: list[ScreenText]) -> list[tuple[int, int, str]]:
    """Slide titles as level-2 headings at the first segment spoken while (or after) each shows."""
    out: list[tuple[int, int, str]] = []
    for s in shown:
        if s.kind != "title":
            continue
        at = next((i for i, seg in enumerate(segments) if seg.end > s.start + 0.1), None)
        title = " ".join(s.text.split())
        if at is not None and not any(i == at or t == title for i, _, t in out):
            out.append((at, 2, title))
    return out


def _overlap(segment: Segment, shown: ScreenText) -> float:
    return min(segment.end + SLACK, shown.end) - max(segment.start, shown.start)
