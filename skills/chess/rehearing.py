"""Hearing a lesson's squares again where its moves stop fitting.

Speech recognition swaps the files whose letters rhyme (bee, cee, dee, ee, gee): "e4 and d5" for
"e4 and e5". A swap that still names a legal move is played, and the lesson's next moves then fit
nowhere ("pawn takes d4" with no black pawn able to take there, "swaps knights on c6" with no knight
that reaches it): one misheard letter loses the rest of the line. Placing moves one at a time cannot
see that; the whole lesson can. Where a move said fits nowhere, each square said in the sentences
just before it (and its own) is heard once more as a rhyming file, the lesson is placed again, and a
hearing is kept only when fewer moves said then fit nowhere, up to a few sentences on and over the
whole lesson too. What the narrator said is never overruled by a guess that explains nothing more,
nor by one that takes the lesson off the opening it is titled after: a hearing that places fewer of
its positions is not kept, however many moves it lets fit further on.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Protocol, TypeVar

import chess

from .spoken_words import sounding_like

#: sentences before a move that fit nowhere in which its cause may have been said
REACH = 3
#: sentences after it that a new hearing is judged on (as well as the whole lesson)
AHEAD = 2
#: moves said that fit nowhere a new hearing must place (one may be a piece misheard anywhere)
GAIN = 2
#: placings of the lesson tried at most (each costs one reading of the moves, ~5-10 ms a lesson)
BUDGET = 16


class Placed(Protocol):  # a placing of a lesson's moves (tracker.py's tracker)
    dropped: list[tuple[int, int]]
    """(sentence, mention) of each move said that fit nowhere, in the order said"""
    repeated: set[tuple[int, int]]
    """(sentence, mention) of each that named, as heard, a move played before: the narrator going
    back to it ("pawn to e5 was strong"), which a new hearing must not turn into a new move"""

    def book_plies(self) -> int:
        """How many moves placed reach a position of opening theory: between hearings that
        place as many, the lesson more likely walked through the one that stays in theory."""

    def titled_plies(self) -> int:
        """How many reach a position of the opening the lesson is titled after: between hearings
        that place as many, the one that keeps to the lesson's own opening first."""


P = TypeVar("P", bound=Placed)
S = TypeVar("S")


def best(saids: list[list[S]], place: Callable[[list[list[S]], int | None, tuple[P, int] | None], P]) -> P:
    """The placing of ``saids`` (each sentence's mentions, each with a ``mention``) by ``place``
    after hearing squares again where moves fit nowhere; ``place(saids, None, None)`` itself when
    no new hearing places more. ``place(saids, until, resume)`` places the sentences up to
    ``until`` (all with None), going on from ``resume`` = (an earlier placing of the whole lesson,
    a sentence before which ``saids`` are as they were then)."""
    current = place(saids, None, None)
    tried, mended_none = 0, set()
    while tried < BUDGET:
        drop = next((d for d in current.dropped if d not in mended_none), None)
        if drop is None:
            break
        until = drop[0] + AHEAD
        before = sum(1 for d in current.dropped if d[0] <= until)
        fewest, found = (before, 0, 0), None
        for n, heard in _hearings(saids, drop, current.repeated):
            if tried >= BUDGET:
                break
            tried += 1
            # the sentence before the one heard again looks ahead to its first move
            trial = place(heard, until, (current, max(n - 1, 0)))
            left = (len(trial.dropped), -trial.titled_plies(), -trial.book_plies())
            if left[0] <= before - GAIN and left < fewest:
                fewest, found = left, (n, heard)
        if found is not None:
            tried += 1
            trial = place(found[1], None, (current, max(found[0] - 1, 0)))
            kept_title = trial.titled_plies() >= current.titled_plies()
            if len(trial.dropped) <= len(current.dropped) - GAIN and kept_title:
                saids, current = found[1], trial
                continue
        mended_none.add(drop)
    return current


def _hearings(saids: list[list[S]], drop: tuple[int, int],
              repeated: set[tuple[int, int]]) -> Iterator[tuple[int, list[list[S]]]]:
    """``saids`` with one square heard as another rhyming file (and the sentence it is in): the
    mentions from ``REACH`` sentences before ``drop`` up to it, the nearest first, but those
    ``repeated``."""
    for n in range(drop[0], max(drop[0] - REACH, 0) - 1, -1):
        last = drop[1] if n == drop[0] else len(saids[n]) - 1
        for k in range(last, -1, -1):
            if (n, k) in repeated:
                continue
            said = saids[n][k]
            for targets in _rhymes(said.mention.targets):  # type: ignore[attr-defined]
                mention = dataclasses.replace(said.mention, targets=targets)  # type: ignore[attr-defined]
                sentence = [*saids[n]]
                sentence[k] = dataclasses.replace(said, mention=mention)  # type: ignore[type-var]
                yield n, [*saids[:n], sentence, *saids[n + 1:]]


def _rhymes(targets: dict[int, float]) -> Iterator[dict[int, float]]:
    """One square said on a rhyming file, as each other rhyming file of its rank; one on the a- or
    e-file also as the other ("ay" and "ee")."""
    if len(targets) != 1:
        return
    square = next(iter(targets))
    file, rank = chess.square_file(square), chess.square_rank(square)
    for other in sounding_like(file):
        if other != file:
            yield {chess.square(other, rank): 1.0}
