"""From the boards a video shows to the moves played on them, with the second each position
appeared.

Frames are read by `board.BoardReader`; a reading counts only once it is stable (the next frame
reads the same, or nothing changes on screen for `HOLD` seconds), so transitions and half-drawn
boards pass by unread. Each stable position is joined to the one before by the legal move, or
the two-move sequence, that turns one into the other (the narration's moves break ties). A
position seen before ("let's go back") moves the cursor there, and the next move played from it
starts a new line branching at that point. A position of opening theory no move explains (a lesson
that opens on 3...a6) starts a line there. Any other reading no legal move explains is dropped,
never guessed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import chess

from tutorialbook.acquire.frames import FrameStats, sample_frames
from . import openings
from .board import BoardReader, Placement
from .events import LineMove, PlacedLine

HOLD = 0.6  # seconds a picture must stay unchanged to count when the next frame differs
FPS = 3.0  # frames read a second at most (on change)
MAX_SIDE = 960  # frames are scaled to this longer side before reading
_MAX_UNKNOWN = 6  # squares a reading may leave unread and still be matched
SHOWN = 3  # frames with a board that make a video a chess video (the pack's `seen`)


@dataclass(frozen=True)
class BoardMove(LineMove):
    """A move seen played on the board."""

    shown: float
    """When the position before the move was first on screen."""
    played: float
    """When the position after it appeared."""
    branch_of: int | None = None


@dataclass
class Sight:
    """What a video's frames showed: the moves, and counts for the report."""

    moves: list[BoardMove] = field(default_factory=list)
    frames_read: int = 0
    frames_with_board: int = 0
    positions: int = 0
    """Distinct positions seen (stable, legal, joined to the lesson's lines)."""
    dropped: int = 0
    """Stable readings no legal move explained."""
    warnings: list[str] = field(default_factory=list)
    times: dict[str, float] = field(default_factory=dict)
    """EPD -> the second the position was first on screen."""

    @property
    def has_board(self) -> bool:
        return self.frames_with_board > 0


_KINDS = [(piece_type, color) for color in chess.COLORS for piece_type in chess.PIECE_TYPES]


@dataclass(frozen=True)
class _Picture:
    """A reading as bitboards: checked against the many boards a search tries (a two-move search
    ~900), a dozen mask tests each rather than a walk over the squares (that walk was most of the
    time spent joining a lesson's readings)."""

    readable: bool  # at most `_MAX_UNKNOWN` squares unread
    allowed: int  # squares a piece may stand on: those read as holding one, and those unread
    known: int  # squares read as holding a piece
    kinds: tuple[int, ...]  # per (piece type, colour) of `_KINDS`: the squares read as holding it
    unread: int  # squares not read

    @classmethod
    def of(cls, placement: Placement) -> "_Picture":
        unread = [square for square, piece in placement.items() if piece is None]
        kinds = dict.fromkeys(_KINDS, 0)
        for square, piece in placement.items():
            if piece is not None:
                kinds[piece] |= chess.BB_SQUARES[square]
        known = 0
        for mask in kinds.values():
            known |= mask
        unread_mask = 0
        for square in unread:
            unread_mask |= chess.BB_SQUARES[square]
        return cls(len(unread) <= _MAX_UNKNOWN, known | unread_mask, known, tuple(kinds.values()), unread_mask)

    def moved_from(self, board: chess.BaseBoard) -> int:
        """The squares a move towards the reading may start from: those where `board` and the
        reading disagree, and those unread (a piece that moves leaves its square, and in a
        two-move sequence nothing of its colour comes back to it)."""
        differ = board.occupied & ~self.allowed | self.known & ~board.occupied
        for (piece_type, color), mask in zip(_KINDS, self.kinds):
            differ |= (board.pieces_mask(piece_type, color) & self.known) ^ mask
        return differ | self.unread

    def shows(self, board: chess.BaseBoard) -> bool:
        """Whether the reading shows `board`: every square read holds that piece there, and no
        piece stands where the reading saw an empty square (unread squares match anything)."""
        if not self.readable or board.occupied & ~self.allowed:
            return False
        return all(board.pieces_mask(piece_type, color) & self.known == mask
                   for (piece_type, color), mask in zip(_KINDS, self.kinds))


def matches(placement: Placement, board: chess.BaseBoard) -> bool:
    """Whether a reading shows `board` (unread squares match anything)."""
    return _Picture.of(placement).shows(board)


def stable(readings: list[tuple[float, Placement | None]]) -> list[tuple[float, Placement]]:
    """The readings that held: the same in the next frame, or on screen `HOLD` seconds (the
    last frame holds to the end of the video)."""
    out: list[tuple[float, Placement]] = []
    for n, (t, placement) in enumerate(readings):
        if placement is None:
            continue
        nxt = readings[n + 1] if n + 1 < len(readings) else None
        until = nxt[0] if nxt else t + HOLD
        if (nxt is not None and nxt[1] == placement) or until - t >= HOLD - 1e-6:
            if out and out[-1][1] == placement:
                continue
            out.append((t, placement))
    return out


class _Tracker:
    def __init__(self, hints: set[tuple[str, str]]) -> None:
        self.hints = hints  # (EPD before, UCI) the narration says
        self.lines: list[PlacedLine] = []
        self.line: PlacedLine | None = None
        self.ply = 0
        self.moves: list[BoardMove] = []
        self.times: dict[str, float] = {chess.Board().epd(): -1.0}
        self.dropped = 0

    def board(self, line: PlacedLine | None = None, ply: int | None = None) -> chess.Board:
        line = line or self.line
        b = chess.Board()
        for move in (line.moves[: self.ply if ply is None else ply] if line else []):
            b.push(move)
        return b

    def places(self) -> Iterable[tuple[PlacedLine | None, int]]:
        """Every position of every line, the current line's first, the start last."""
        others = [other for other in reversed(self.lines) if other is not self.line]
        for line in [self.line, *others] if self.line else []:
            for ply in range(len(line.moves), -1, -1):
                yield line, ply
        yield None, 0

    def sequences(self, board: chess.Board, picture: _Picture, depth: int = 2) -> list[list[chess.Move]]:
        """The one- or two-move sequences from `board` that reach the reading (each move from a
        square where the boards disagree or that was not read: no other can)."""
        found: list[list[chess.Move]] = []
        if not picture.readable:
            return found
        starts = picture.moved_from(board)
        for move in board.generate_legal_moves(from_mask=starts):
            board.push(move)
            if picture.shows(board):
                found.append([move])
            board.pop()
        if found or depth < 2:
            return found
        for move in board.generate_legal_moves(from_mask=starts):
            board.push(move)
            for reply in board.generate_legal_moves(from_mask=starts):
                board.push(reply)
                if picture.shows(board):
                    found.append([move, reply])
                board.pop()
            board.pop()
        return found

    def pick(self, board: chess.Board, found: list[list[chess.Move]]) -> list[chess.Move] | None:
        if len(found) <= 1:
            return found[0] if found else None
        if len({tuple(seq) for seq in found}) == 1:
            return found[0]
        said = []
        for seq in found:  # the narration's moves break a tie (a transposition of two moves)
            b, score = board.copy(stack=False), 0
            for move in seq:
                score += (b.epd(), move.uci()) in self.hints
                b.push(move)
            said.append(score)
        best = max(said)
        winners = [seq for seq, s in zip(found, said) if s == best]
        return winners[0] if len(winners) == 1 and best > 0 else None

    def see(self, t: float, placement: Placement) -> None:
        picture = _Picture.of(placement)
        current = self.board()
        if picture.shows(current):
            return
        for line, ply in self.places():  # back to a position shown before
            if (line, ply) == (self.line, self.ply):
                continue
            b = self.board(line, ply) if line else chess.Board()
            if picture.shows(b):
                self.line, self.ply = line, ply
                return
        for n, (line, ply) in enumerate([(self.line, self.ply), *self.places()]):  # from here, or earlier
            b = self.board(line, ply) if line else chess.Board()
            seq = self.pick(b, self.sequences(b, picture, 2 if n == 0 else 1))
            if seq:
                self.line, self.ply = line, ply
                for move in seq:
                    self.play(move, t)
                return
        if not self.opens(t, placement):
            self.dropped += 1

    def opens(self, t: float, placement: Placement) -> bool:
        """A position no move explains that opening theory reaches (a lesson that opens on 3...a6,
        or sets up another opening) starts a line of its own there, reached by theory's moves,
        which were not shown (no moves are counted for them); whether it was one."""
        if None in placement.values():
            return False
        board = chess.BaseBoard.empty()
        board.set_piece_map({square: chess.Piece(*cast("tuple[int, bool]", piece))
                             for square, piece in placement.items()})
        path = openings.path_to(board.board_fen())
        if not path:
            return False
        replay = chess.Board()
        self.line = PlacedLine(len(self.lines) + 1, [replay.push_san(san) for san in path], None)
        self.lines.append(self.line)
        self.ply = len(path)
        self.times.setdefault(self.board().epd(), t)
        return True

    def play(self, move: chess.Move, t: float) -> None:
        before = self.board()
        path = before.move_stack
        for line in ([self.line] if self.line else []) + self.lines:  # a continuation shown before
            if len(line.moves) > self.ply and line.moves[: self.ply] == path and line.moves[self.ply] == move:
                self.line, self.ply = line, self.ply + 1
                return
        if self.line is not None and len(self.line.moves) == self.ply:
            self.line.moves.append(move)
        else:
            parent = self.line.id if self.line is not None and self.ply > 0 else None
            self.line = PlacedLine(len(self.lines) + 1, [*path, move], parent)
            self.lines.append(self.line)
        self.ply += 1
        epd_before = before.epd()
        san = before.san(move)
        before.push(move)
        epd_after = before.epd()
        shown = self.times.get(epd_before, t)
        self.times.setdefault(epd_after, t)
        self.moves.append(BoardMove(self.line.id, self.ply, san, move.uci(), epd_before, epd_after,
                                    max(shown, 0.0), t, self.line.branch_of))


def track(
    readings: list[tuple[float, Placement]], hints: Iterable[tuple[str, str]] = ()
) -> tuple[list[BoardMove], int, dict[str, float]]:
    """Moves joining stable readings: (moves, readings dropped, EPD -> first time on screen)."""
    tracker = _Tracker(set(hints))
    for t, placement in readings:
        if tracker.line is None and tracker.times[chess.Board().epd()] < 0 and matches(placement, chess.Board()):
            tracker.times[chess.Board().epd()] = t
        tracker.see(t, placement)
    return tracker.moves, tracker.dropped, tracker.times


@dataclass
class Frames:
    """What the frame worker read: each sampled frame's placement (None: no board)."""

    readings: list[tuple[float, Placement | None]] = field(default_factory=list)
    frames_read: int = 0
    frames_with_board: int = 0
    warnings: list[str] = field(default_factory=list)


def read_frames(path: str | Path, cancel: Callable[[], bool] | None = None,
                on_board: Callable[[], None] | None = None) -> Frames:
    """Read the board of every sampled frame (runs on a worker beside transcription);
    ``on_board()`` is called once, when `SHOWN` frames have shown a board."""
    stats = FrameStats()
    reader = BoardReader()
    out = Frames()
    for frame in sample_frames(path, fps=FPS, max_side=MAX_SIDE, stats=stats, cancel=cancel):
        reading = reader.read(frame)
        out.frames_with_board += reading.found
        if on_board is not None and reading.found and out.frames_with_board == SHOWN:
            on_board()
        out.readings.append((frame.time, reading.placement if reading.found else None))
    out.frames_read = stats.kept
    out.warnings = list(stats.warnings)
    return out


def sight(frames: Frames, hints: Iterable[tuple[str, str]] = ()) -> Sight:
    """The moves the frames show, ties between move orders broken by the narration's `hints`."""
    moves, dropped, times = track(stable(frames.readings), hints)
    seen = Sight(moves, frames_read=frames.frames_read, frames_with_board=frames.frames_with_board,
                 dropped=dropped, warnings=list(frames.warnings), times={e: t for e, t in times.items() if t >= 0})
    seen.positions = len({m.epd_after for m in moves} | ({moves[0].epd_before} if moves else set()))
    return seen
