"""The moves a lesson's reading yields: each placed in its line, with the positions around it.

`LineMove` is a move of a line of play (also what `board_moves` reads off the board); `MoveEvent`
is one said in the narration, with when, how and why; `PlacedLine` is a line while its moves are
being placed (by the narration's tracker and by the board's).
"""

from __future__ import annotations

from dataclasses import dataclass

import chess

__all__ = ["LineMove", "MoveEvent", "PlacedLine"]


@dataclass
class PlacedLine:
    """A line of play as it grows: its id (from 1, in order of appearance), every move from the
    initial position, and the line it forked from (None for one started from scratch)."""

    id: int
    moves: list[chess.Move]
    branch_of: int | None


@dataclass(frozen=True)
class LineMove:
    """A move in a line of play, with the positions (EPD) before and after it."""

    line: int
    """Line id, from 1 in order of appearance; a line holds every move from the initial position."""
    ply: int
    """1 for White's first move, 2 for Black's reply, ..."""
    san: str
    uci: str
    epd_before: str
    epd_after: str


@dataclass(frozen=True)
class MoveEvent(LineMove):
    """One move said in a lesson, in the line it belongs to."""

    start: float
    end: float
    quote: str
    """The sentence that said it."""
    kind: str = "move"
    """"move" (played or shown), "recommend" (advised) or "avoid" (warned against)."""
    reason: str = ""
    """For advice: why, in the narrator's words; the whole sentence when no reason is given."""
    branch_of: int | None = None
    """The line this line forked from; None for a line started from scratch."""
    transposes_to: int | None = None
    """An earlier line that reached the same position by another move order."""
