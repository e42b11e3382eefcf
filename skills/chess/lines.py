"""Lines through a narrated lesson: every move placed in the position where it was said.

A lesson is not one game. The narrator restarts ("we start with"), branches ("instead of Bb5"),
goes back ("after 2. Nf3"), and advises ("the best move here is ..."). Moves are kept as a tree of
lines from the initial position, so each mention lands on an exact position (EPD) with the second
it was said, and the advice is kept apart from the moves that were merely played.

Here the transcript is read into sentences and the whole lesson placed (`track_lines`); what the
words make of each mention is `roles`'s, where it is placed `tracker`'s, which move it names
`theory`'s, and what comes out `events`'s.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from typing import cast

from tutorialbook.acquire.transcript import UNSURE, Segment
from . import bridging, memo, openings, rehearing
from .events import MoveEvent
from .roles import _RESTART, _Said, _roles
from .theory import _BY_TITLE, _TITLED
from .tracker import _Tracker

__all__ = ["read_lesson", "track_lines"]

_SENTENCE_END = re.compile(r"[.!?]+(?=\s+[A-Z0-9\"'(]|\s*$)")
_MOVE_NUMBER_DOT = re.compile(r"(?:^|\s)\d{1,3}$")
# "After bishop. To b4, check, ...": speech recognition may end a sentence inside a move, between
# the piece and where it goes. Such a stop is no stop: it is blanked (offsets kept).
_STOP_IN_MOVE = re.compile(
    r"\b(?P<piece>pawn|knight|bishop|rook|queen|king)(?P<stop>[.!?]+)(?=\s+(?:to|takes|captures)\b)", re.IGNORECASE
)
# what may open a sentence before a move that goes on with the one before it: nothing, or the reason word
# that speech recognition's full stop cut off from the sentence it explains
_REASON = re.compile(r"\s*(?:(?:because|since)\s*,?\s*)?", re.IGNORECASE)
#: how many of a lesson's first sentences may name its opening when its title names none, and how
#: much of them (and of a title) is read for a name: a transcript without full stops is one sentence
_NAMING_SENTENCES = 2
_NAMING_CHARS = 500
#: hearings that alone mend one move said that fit nowhere (``rehearing.best``'s ``halfway``), tried
#: again with lost moves bridged
HALFWAY = 2


def _sentences(segments: list[Segment]) -> Iterable[tuple[str, str, list[tuple[int, int, Segment]], int]]:
    """Sentences of the whole transcript (they cross segment boundaries), with segment offsets: each
    as read (the ASR's unsure-word marks blanked, offsets kept) and as quoted (marks shown)."""
    doc, spans = "", []
    for seg in segments:
        if doc:
            doc += " "
        spans.append((len(doc), len(doc) + len(seg.text), seg))
        doc += seg.text
    quoted = doc = _STOP_IN_MOVE.sub(lambda m: m.group("piece") + " " * len(m.group("stop")), doc)
    doc = doc.replace(UNSURE, " " * len(UNSURE))  # "after(?) queen(?) to b6" reads as "after queen to b6"
    start = 0
    for m in _SENTENCE_END.finditer(doc):
        if m.group().startswith(".") and _MOVE_NUMBER_DOT.search(doc[: m.start()]):
            continue  # "1. e4": a move number, not a full stop
        yield doc[start : m.end()], quoted[start : m.end()], spans, start
        start = m.end()
    if doc[start:].strip():
        yield doc[start:], quoted[start:], spans, start


def track_lines(segments: Iterable[Segment], title: str = "") -> list[MoveEvent]:
    """Every move a narrated lesson mentions, in order, placed in its line of play; where moves said
    fit nowhere, the squares speech recognition may have misheard before them are heard again
    (``rehearing.py``). ``title``: the lesson's; the opening it names (else the one its first
    sentences name: "today's topic is the English Opening") is the line its guesses lean to,
    after what was heard (a lesson titled "Scotch Game" that was heard to say "e4 and d5" more
    likely said e5, and a rehearing that keeps to the Scotch wins a tie)."""
    sentences = _read(list(segments))
    saids = [_roles(text) for text, _, _ in sentences]
    opening = " ".join(text for text, _, _ in sentences[:_NAMING_SENTENCES])[:_NAMING_CHARS]
    named = openings.named_in(title[:_NAMING_CHARS]) if title else frozenset()
    token = _TITLED.set(named or openings.named_in(opening))
    by_title = _BY_TITLE.set(bool(named))
    try:
        with memo.lesson():  # the lesson is placed again for each hearing and bridge tried
            halfway: list[tuple[int, int, _Said, _Said]] = []
            heard = rehearing.best(saids, lambda heard, until, resume: _place(sentences, heard, until, resume),
                                   halfway)
            return _bridged(sentences, heard, halfway).events
    finally:
        _TITLED.reset(token)
        _BY_TITLE.reset(by_title)


def _bridged(sentences: list[tuple[str, str, Callable[[int], Segment]]], heard: _Tracker,
             halfway: list[tuple[int, int, _Said, _Said]]) -> _Tracker:
    """``heard`` (the lesson placed after rehearing) with the lost moves `bridging` finds; or, where a
    misheard square and a lost move came in a row ("c takes b5, knight takes back on d5. | [bishop to
    g2, lost] The knight drops back to b6"), a hearing that alone mended one move said that fit
    nowhere (``halfway``: sentence, mention, the mention as said, as heard again) with the lost moves
    bridged after it, when together they leave twice `rehearing.GAIN` fewer moves fitting nowhere and
    no fewer in opening theory (neither repair alone gains enough to be kept)."""

    def place(said, until, resume, bridges):
        return _place(sentences, said, until, resume, bridges)

    done = bridging.best(heard.saids, place, heard)
    for n, k, was, again in halfway[:HALFWAY]:
        if heard.saids[n][k] is not was:
            continue  # heard again since
        with_it = [*heard.saids[:n], [*heard.saids[n][:k], again, *heard.saids[n][k + 1:]], *heard.saids[n + 1:]]
        base = _place(sentences, with_it, None, (heard, max(n - 1, 0)))
        trial = bridging.best(with_it, place, base, done)
        if rehearing.gains_in_theory(trial, done) or rehearing.mends_much(trial, done):
            return trial
    # a hearing that mended nothing alone but took the line back into theory, with the one lost move that
    # alone does best after it: kept when together they leave fewer moves fitting nowhere and place more
    # in theory (one repair tied to the other, neither guessed: each must be the only one that does best)
    for n, k, _, again in _back_to_theory(sentences, done):
        with_it = [*done.saids[:n], [*done.saids[n][:k], again, *done.saids[n][k + 1:]], *done.saids[n + 1:]]
        base = _place(sentences, with_it, None, (done, max(n - 1, 0)), done.bridges)
        paired = bridging.one(with_it, place, base)
        if (paired is not None and len(paired.dropped) < len(done.dropped)
                and paired.titled_plies() >= done.titled_plies() and paired.book_plies() > done.book_plies()):
            return paired
    return done


def _back_to_theory(sentences: list[tuple[str, str, Callable[[int], Segment]]], done: _Tracker
                    ) -> list[tuple[int, int, _Said, _Said]]:
    """A square said alone, heard again on a rhyming file, that mends no move said on its own but
    takes the line back into opening theory ("Then d3" for "then g3": d3 is legal, the line goes on
    legally, off the book, until a move said fits nowhere; with g3 the moves said stay in theory, yet
    the move lost after them, "[bishop to g2]", still leaves the next fitting nowhere): as ``halfway``'s
    (sentence, mention, as said, as heard again), to be tried with lost moves bridged after it. Only
    the one hearing, near the first move said that fits nowhere or on the way to its position, that
    alone places the most moves in theory without leaving more fitting nowhere or fewer on the titled
    opening; none when two do as well (nothing is guessed)."""
    drop = done.dropped[0] if done.dropped else None
    if drop is None:
        return []
    saids = done.saids
    at = [*rehearing.near(saids, drop), *rehearing.on_path(done, drop)]
    scores: dict[tuple, tuple[int, int, int, _Said, _Said]] = {}
    for n, k in dict.fromkeys(at):
        said = saids[n][k]
        if (n, k) in done.repeated or (n, k) not in done.said_at or not rehearing.bare_square(said):
            continue
        for targets in rehearing.rhymes(said.mention.targets):
            again = rehearing.heard_as(saids, n, k, targets=targets)
            trial = _place(sentences, again, None, (done, max(n - 1, 0)), done.bridges)
            if (len(trial.dropped) <= len(done.dropped) and trial.titled_plies() >= done.titled_plies()
                    and trial.book_plies() > done.book_plies()):
                scores.setdefault(trial.moves(), (trial.book_plies(), n, k, said, again[n][k]))
    ranked = sorted(scores.values(), key=lambda s: -s[0])
    if not ranked or (len(ranked) > 1 and ranked[1][0] == ranked[0][0]):
        return []
    return [ranked[0][1:]]


def read_lesson(segments: Iterable[Segment], title: str = "") -> list[MoveEvent]:
    """`track_lines`, remembered for the last few lessons read: ingest reads a lesson's moves for its
    outline, and refinement reads them again, from the transcript as stored, for its questions. Only
    a segment's times and text are read, so the transcript stored and read back is the same lesson."""
    return list(_read_once(tuple((seg.start, seg.end, seg.text) for seg in segments), title))


@functools.lru_cache(maxsize=8)
def _read_once(spans: tuple[tuple[float, float, str], ...], title: str) -> tuple[MoveEvent, ...]:
    """`read_lesson` of a transcript's (start, end, text) spans, worked out (the events are frozen)."""
    return tuple(track_lines([Segment(start, end, text) for start, end, text in spans], title))


def _read(segments: list[Segment]) -> list[tuple[str, str, Callable[[int], Segment]]]:
    """The transcript's sentences: each as read, as quoted, and the segment of a position in it."""
    sentences: list[tuple[str, str, Callable[[int], Segment]]] = []
    for text, quoted, spans, offset in _sentences(segments):

        def seg_at(pos: int, spans=spans, offset=offset) -> Segment:
            return next(seg for start, end, seg in reversed(spans) if start <= offset + pos)

        stripped = text.lstrip()
        shift = len(text) - len(stripped)
        # the defaults bind this sentence's values; called with the position only
        at = cast(Callable[[int], Segment], lambda pos, shift=shift, seg_at=seg_at: seg_at(pos + shift))
        sentences.append((stripped.rstrip(), quoted.strip(), at))
    return sentences


def _place(sentences: list[tuple[str, str, Callable[[int], Segment]]], saids: list[list[_Said]],
           until: int | None = None, resume: tuple[_Tracker, int] | None = None,
           bridges: dict | None = None) -> _Tracker:
    """Every sentence's mentions placed in turn (``saids``: the mentions of each sentence), or
    those of the sentences up to ``until``. ``resume`` is a whole lesson placed before and a
    sentence from which on ``saids`` may differ: its state before that sentence is gone on from.
    A whole lesson placed keeps the state before each sentence (``checkpoints``)."""
    heard, saids = saids, [*saids, []]
    tracker, start, marks = _Tracker(), 0, []
    if resume is not None:
        base, start = resume
        tracker, marks = base.checkpoints[start].copy(), base.checkpoints[:start]
    tracker.bridges, tracker.saids = bridges or {}, heard
    for n in range(start, len(sentences)):
        if until is not None and n > until:
            break
        if until is None:
            marks.append(tracker.copy())
        text, quote, seg_of = sentences[n]
        first = saids[n + 1][0] if saids[n + 1] else None
        continues = first is not None and first.role == "move" and not _RESTART.search(sentences[n + 1][0])
        then = first.mention if continues and first is not None else None
        # nothing said before it but what gives a reason ("| Because knight takes f7 leads to ...")
        opens = then is not None and _REASON.fullmatch(sentences[n + 1][0][: then.start]) is not None
        tracker.sentence_at = n
        tracker.sentence(text, quote, seg_of, saids[n], then, opens)
    tracker.checkpoints = marks if until is None else []
    return tracker
