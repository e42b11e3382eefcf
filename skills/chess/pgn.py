"""PGN sources: an annotated game is a lesson whose moves are stated exactly.

Comments are the narration; moves are positions. Nothing is parsed from words: the moves, the
lines (the main line and every variation, each branching from the line it leaves), and the
advice come straight from the game tree — a move marked good (``!``, ``!!``) is recommended, one
marked bad (``?``, ``??``, ``?!``) is warned against, with the move's comment as the reason.
Each move with a comment or a mark, and each run of plain moves, becomes a segment of text
("5. O-O Be7. Black develops quietly."), located by character offsets like any text source.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, field

import chess
import chess.pgn

from tutorialbook.errors import TutorialbookError
from tutorialbook.skills.chess.events import MoveEvent
from tutorialbook.acquire.transcript import Segment, Transcript

GOOD = {chess.pgn.NAG_GOOD_MOVE, chess.pgn.NAG_BRILLIANT_MOVE}
BAD = {chess.pgn.NAG_MISTAKE, chess.pgn.NAG_BLUNDER, chess.pgn.NAG_DUBIOUS_MOVE}
SEPARATOR = "\n\n"


@dataclass
class _Writer:
    """Segments and move events in reading order, with offsets into the joined text."""

    segments: list[Segment] = field(default_factory=list)
    events: list[MoveEvent] = field(default_factory=list)
    offset: int = 0
    pending: list[tuple[chess.pgn.ChildNode, int, int | None]] = field(default_factory=list)
    lines: int = 0

    def text(self, text: str, moves: Sequence[tuple[chess.pgn.ChildNode, int, int | None]] = ()) -> None:
        text = " ".join(text.split())
        if not text:
            return
        start, end = self.offset, self.offset + len(text)
        self.segments.append(Segment(float(start), float(end), text))
        self.offset = end + len(SEPARATOR)
        for node, line, branch_of in moves:
            self.events.append(_event(node, line, branch_of, start, end, text))

    def move(self, node: chess.pgn.ChildNode, line: int, branch_of: int | None) -> None:
        """A move joins the run of plain moves; a comment ends the run with it; a marked move
        is said on its own ("The best move is 5. O-O.")."""
        if set(node.nags) & (GOOD | BAD):
            self.flush()
        self.pending.append((node, line, branch_of))
        if node.comment.strip() or set(node.nags) & (GOOD | BAD):
            self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        moves, self.pending = self.pending, []
        words, last = [], moves[-1][0]
        for n, (node, _, _) in enumerate(moves):
            words.append(_numbered(node, first=n == 0))
        said = " ".join(words) + "."
        if set(last.nags) & GOOD:
            said = f"The best move is {said}"
        elif set(last.nags) & BAD:
            said = f"A mistake is {said}"
        self.text(f"{said} {last.comment}", moves)


def read_pgn(text: str, name: str = "pgn") -> Transcript:
    """Every game of a PGN text as one transcript whose move events are exact."""
    writer = _Writer()
    handle = io.StringIO(text)
    games = 0
    while (game := chess.pgn.read_game(handle)) is not None:
        games += 1
        if game.errors:
            raise TutorialbookError("source", f"{name}: game {games}: {game.errors[0]}")
        title = _title(game.headers)
        writer.text(f"{title}. {game.comment}" if title else game.comment)
        writer.lines += 1
        _walk(game, writer, writer.lines, None)
        writer.flush()
    if not games or not writer.events:
        raise TutorialbookError("source", f"{name}: no game with moves found in this PGN")
    return Transcript(writer.segments, duration=float(writer.offset), timed=False,
                      models={"reader": "python-chess pgn"}, moves=writer.events)


def _walk(node: chess.pgn.GameNode, writer: _Writer, line: int, branch_of: int | None) -> None:
    """The line from ``node`` on: its main move, then the side lines that replace that move
    (each a line of its own), then on down the main line."""
    while node.variations:
        main, *others = node.variations
        writer.move(main, line, branch_of)
        branch_of = None  # only a line's first move says where it left from
        for other in others:
            writer.flush()
            writer.lines += 1
            side = writer.lines
            writer.text(f"Instead of {_numbered(main, first=True)}:")
            writer.move(other, side, line)
            _walk(other, writer, side, None)
            writer.flush()
        node = main


def _event(node: chess.pgn.ChildNode, line: int, branch_of: int | None, start: int, end: int,
           quote: str) -> MoveEvent:
    board = node.parent.board()
    nags = set(node.nags)
    kind = "recommend" if nags & GOOD else "avoid" if nags & BAD else "move"
    return MoveEvent(
        line=line, ply=board.ply() + 1, san=board.san(node.move), uci=node.move.uci(), epd_before=board.epd(),
        epd_after=node.board().epd(), start=float(start), end=float(end), quote=quote,
        kind=kind, reason=" ".join(node.comment.split()) if kind != "move" else "", branch_of=branch_of,
    )


def _numbered(node: chess.pgn.ChildNode, first: bool) -> str:
    board = node.parent.board()
    number = board.fullmove_number
    san = board.san(node.move)
    if board.turn == chess.WHITE:
        return f"{number}. {san}"
    return f"{number}... {san}" if first else san


def _title(headers: chess.pgn.Headers) -> str:
    players = " – ".join(h for h in (headers.get("White", "?"), headers.get("Black", "?")) if h != "?")
    parts = [p for p in (headers.get("Event", "?"), players, headers.get("Opening", "")) if p and p != "?"]
    return ", ".join(parts)
