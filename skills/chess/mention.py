"""One spoken move before it meets a board, and how well each legal move explains it.

A `Mention` holds the features a phrase carries (piece, target squares, source hints, capture,
check, castling side, promotion); `Mention.scored` weighs every legal move against them, with
the sound-alike squares speech recognition may have written, and `MIN_SCORE` is what naming a
move takes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import lru_cache

import chess

from . import memo, openings
from .spoken_words import (_ABSORBED_WEIGHT, _LOOSE_WEIGHT, _QUIET_BONUS, _RHYME_WEIGHT, RHYMING_FILES,
                           sounding_like)

__all__ = ["MIN_SCORE", "SCORE_TIE", "Mention"]

# --- mentions -----------------------------------------------------------------------------------

MIN_SCORE = 3.0
"""The least score (`Mention.scored`) with which a mention names a move."""
SCORE_TIE = 1e-9
"""Scores closer than this are a tie (sums of float weights)."""


@dataclass
class Mention:
    """What one spoken move says, before it meets a board; `resolve` picks the legal move."""

    start: int
    end: int
    text: str
    """The words that said it (``text[start:end]`` of the parsed text)."""
    piece: int | None = None
    targets: dict[int, float] = field(default_factory=dict)
    """Candidate target squares with how sure the words make us (1.0 = said plainly)."""
    from_file: int | None = None
    from_rank: int | None = None
    from_square: int | None = None
    maybe_rank: int | None = None
    """A "2" before the square: usually the spoken "to", sometimes a rank ("rook 2 e2")."""
    pawn_implied: bool = False
    """A file hint with no piece ("e takes d5", "exd5") means a pawn, as in SAN."""
    capture: bool = False
    captured: int | None = None
    check: bool = False
    mate: bool = False
    castle: str | None = None
    """"K", "Q", or "?" when the side was not said."""
    promotion: int | None = None
    recapture: bool = False
    side: chess.Color | None = None
    move_number: int | None = None
    black: bool | None = None
    """From numbering: "3..." says Black's move, "3." White's; None when unnumbered."""
    number_glued: bool = False
    """The number was heard run into the square ("3d3" for "three e3"): a guess, so the move is read
    only where the line stands at that move number."""
    cue: bool = False
    """A word that says a move is made (to, takes, plays, goes ...)."""
    acted: bool = False
    """A spoken move word stronger than "to" (takes, plays, retreats ...): "the knight to f5" may be
    a misheard "the knight that defends e5", "the knight retreats to f5" is a move."""
    notation: bool = False
    """Written in notation ("Bd2", "exd5", "O-O"): typed, not a guess of speech recognition."""
    pushed: bool = False
    """Said with "pushes"/"advances": a pawn walking forward, never a capture."""
    weak: bool = False
    """The target came from an ASR guess ("before", "84", "see 5") rather than a plain square."""
    bare: bool = False
    """Only a square: no piece, no hint, no cue."""
    played_plain: bool = False
    """A move word right before the square, no piece named ("black plays d6"): narrators name every
    piece but the pawn, so read strictly it is a pawn's move, as a bare square is."""
    piece_weak: bool = False
    """The piece is a guess from a sound-alike ("I'd take"): preferred, not required."""
    absorbed: bool = False
    """A c-file square right after a spoken capture word: maybe the s of "takes" + another rhyming
    file ("take c4" heard for "takes d4")."""
    quiet: bool = False
    """Said with "to" and no capture word: an empty target square is likelier."""
    file_heard: bool = False
    """The source file was a spoken letter ("e takes d5"), not notation ("exd5")."""
    location: bool = False
    """Reads as a place rather than a move ("the knight on f3", "the d5 square")."""
    earlier_piece: int | None = None
    """A piece named before the one the move is made with, with no square of its own ("the other
    knight, then pawn to d4"): what is left of a move speech recognition lost."""
    wing: str | None = None
    """"K" or "Q": the piece is the king's or the queen's ("the queen's knight", "the king's pawn"),
    named by the side of the board it started on."""
    shade: str | None = None
    """"light" or "dark": a bishop named by the colour of its squares ("the dark-squared bishop")."""
    five_f: bool = False
    """Said after a knight heard as "i5" ("i5, c6"): maybe "knight f6", the f-file square of its rank."""
    object_of_on: bool = False
    """An "on" came before the piece ("pressure on the knight to f5"): the piece may be what is
    talked about, not what moves."""

    def resolve(self, board: chess.Board, strict: bool = True) -> chess.Move | None:
        """The legal move that best explains this mention, or None when none or several do.

        ``strict`` follows SAN where speech is vague: a bare square is a pawn move, and sound-alike
        squares ("c4" for "d4") are considered only when a piece and a move word were heard.
        """
        best = self.candidates(board, strict)
        return best[0] if len(best) == 1 else None

    def candidates(self, board: chess.Board, strict: bool = True, sound_alikes: bool = True) -> list[chess.Move]:
        """The legal moves that explain this mention best, tied; empty when none is plausible.

        Without ``sound_alikes`` only the squares as heard count, no rhyming files.
        """
        scored = self.scored(board, strict, sound_alikes)
        if not scored or scored[0][0] < MIN_SCORE:
            return []
        return [move for s, move in scored if s > scored[0][0] - SCORE_TIE]

    def scored(
        self, board: chess.Board, strict: bool = True, sound_alikes: bool = True, loose: bool = False
    ) -> list[tuple[float, chess.Move]]:
        """Every legal move the mention could name, with how well it explains it, best first.

        ``loose`` also lets any file of a heard rank stand in for the heard one, at a weight too low
        to pass on its own: for a caller with a prior (an opening book) to choose from when the
        squares as heard fit nothing ("retreats to e3" heard for "a3").
        """
        # placing a lesson weighs the same mentions on the same positions again and again
        key = (id(self), _position(board), self._stack_read(board), strict, sound_alikes, loose)
        return list(memo.recall("scored", key, self, lambda: self._weigh(board, strict, sound_alikes, loose)))

    def _stack_read(self, board: chess.Board) -> tuple:
        """What weighing this mention reads of ``board``'s move stack: the last move (a recapture's
        square) and, for a piece named by its wing, every move (where each piece started)."""
        return (board.move_stack[-1] if self.recapture and board.move_stack else None,
                tuple(board.move_stack) if self.wing is not None else None)

    def _weigh(
        self, board: chess.Board, strict: bool, sound_alikes: bool, loose: bool
    ) -> list[tuple[float, chess.Move]]:
        """`scored`, worked out (not remembered)."""
        if self.side is not None and board.turn != self.side:
            return []
        targets = self._heard_as(strict, loose) if sound_alikes else dict(self.targets)
        heard = sound_alikes and not self.object_of_on and (not strict or (self.piece is not None and self.cue))
        # the a-file square of an f4/f5 weighed as a rhyme is, also where any file of the rank is (``loose``)
        swallowed = self._swallowed(self._heard_as(strict, False) if loose else targets) if heard else {}
        targets = {**targets, **swallowed} if loose else {**swallowed, **targets}
        if loose and not sound_alikes:
            targets = {**self._any_file(), **targets}
        if self.recapture and not targets:
            if not board.move_stack:
                return []
            targets = {board.peek().to_square: 1.0}  # from the board, not from speech: no sound-alikes
        if self.castle:
            legal: Iterable[chess.Move] = board.generate_castling_moves()  # what _score allows
        elif targets:
            legal = _legal_to(board, targets)
        else:
            legal = board.legal_moves
        return sorted(
            (
                (s, move)
                for move in legal
                if (s := self._as_said(move, swallowed)._score(board, move, targets, strict, sound_alikes)) is not None
                and (move.to_square not in swallowed or _stays_in_book(board, move))
            ),
            key=lambda sm: -sm[0],
        )

    def _swallowed(self, targets: dict[int, float]) -> dict[int, float]:
        """ "knight to a5" heard "knight to f5": the "ay" of the file run into the "f" that "four" and
        "five" start with. The a-file's square of an f4 or f5 heard, at a rhyme's discount, where no
        square heard or rhymed is it; a guess kept only where it stays in opening theory (`_weigh`), and
        not for a piece after "on" ("pressure on the knight to f5" may be no move at all)."""
        found = {}
        for sq, w in self.targets.items():
            if chess.square_file(sq) == 5 and chess.square_rank(sq) in _F_RANKS:
                a_square = chess.square(0, chess.square_rank(sq))
                if a_square not in targets:
                    found[a_square] = w * _RHYME_WEIGHT
        return found

    def _as_said(self, move: chess.Move, swallowed: dict[int, float]) -> Mention:
        """This mention as said for a move to an a-file square ``swallowed`` from an f4/f5: "knight to a5"
        heard "I'd take f5", the "to a" run together heard as "take": its capture word was a "to"."""
        if self.capture and move.to_square in swallowed:
            return replace(self, capture=False, quiet=True)
        return self

    def _heard_as(self, strict: bool, loose: bool) -> dict[int, float]:
        """The target squares with the squares speech recognition may have written for them, each
        at its discount (the squares as heard first: a guess never lowers one)."""
        targets = dict(self.targets)
        for sq, w in self.targets.items():
            rank = chess.square_rank(sq)
            if self.absorbed:
                for f in RHYMING_FILES:
                    targets.setdefault(chess.square(f, rank), w * _ABSORBED_WEIGHT)
        if targets and (not strict or (self.piece is not None and self.cue)):
            for sq, w in self.targets.items():
                for f in sounding_like(chess.square_file(sq)):
                    targets.setdefault(chess.square(f, chess.square_rank(sq)), w * _RHYME_WEIGHT)
        if loose:
            targets = {**self._any_file(), **targets}
        return targets

    def _any_file(self) -> dict[int, float]:
        """Any file of a heard rank, at the loose weight."""
        found: dict[int, float] = {}
        for sq, w in self.targets.items():
            for f in range(8):
                found.setdefault(chess.square(f, chess.square_rank(sq)), w * _LOOSE_WEIGHT)
        return found

    def _score(  # noqa: C901 - independent cues of one spoken move, weighed side by side; not split yet
        self, board: chess.Board, move: chess.Move, targets: dict[int, float], strict: bool, sound_alikes: bool = True
    ) -> float | None:
        """How well `move` explains the mention; None rules it out."""
        if self.castle:
            if not board.is_castling(move):
                return None
            side = "K" if board.is_kingside_castling(move) else "Q"
            if self.castle != "?" and side != self.castle:
                return None
            score = 8.0
        else:
            weight = None
            if targets:
                weight = targets.get(move.to_square)
                if weight is None:
                    return None
                score = 4.0 * weight
            elif self.captured is None:
                return None
            else:
                score = 0.0
            piece = board.piece_type_at(move.from_square)
            if self.piece is not None:
                if piece == self.piece:
                    score += 2
                elif not self.piece_weak or weight is None or weight < 1:
                    # another piece than one guessed from a sound-alike ("I'd take") only to the square
                    # as heard: a sound-alike piece and a sound-alike square are two guesses
                    return None
            elif self.pawn_implied or (strict and (self.bare or self.played_plain)):
                if piece != chess.PAWN:
                    return None
                score += 1
            elif piece == chess.PAWN:
                score += 1
            if self.shade is not None and piece == chess.BISHOP \
                    and bool(chess.BB_LIGHT_SQUARES & chess.BB_SQUARES[move.from_square]) != (self.shade == "light"):
                return None  # the other bishop: "the dark-squared bishop" never stood on a light square
            if self.wing is not None:
                if not _started_on_wing(board, move.from_square, piece, self.wing):
                    return None
                score += 1
            file = chess.square_file(move.from_square)
            if self.from_file is not None and self.from_file != file:
                # a file letter said aloud may be a sound-alike ("d takes" heard for "e takes"):
                # allowed without the bonus, like a sound-alike target square
                heard = sound_alikes and self.file_heard
                if not (heard and self.from_file in RHYMING_FILES and file in RHYMING_FILES):
                    return None
            elif self.from_file is not None:
                score += 1
            if self.from_rank is not None:
                if self.from_rank != chess.square_rank(move.from_square):
                    return None
                score += 1
            if self.from_square is not None and self.from_square != move.from_square:
                # "from d8 to f6" heard for "from g8": a square's file letter may be a sound-alike,
                # allowed without the bonus, as a target square's is
                said, left = self.from_square, move.from_square
                if not (sound_alikes and chess.square_rank(said) == chess.square_rank(left)
                        and chess.square_file(said) in RHYMING_FILES and chess.square_file(left) in RHYMING_FILES):
                    return None
            elif self.from_square is not None:
                score += 1
            if self.maybe_rank is not None and chess.square_rank(move.from_square) == self.maybe_rank:
                score += 0.5
            is_capture = board.is_capture(move)
            if self.pushed and is_capture and not (self.capture or self.recapture):
                return None  # "white pushes pawn to d5" is no exd5
            if self.capture or self.recapture:
                if not is_capture:
                    return None
                score += 1
            elif self.quiet and not is_capture:
                score += _QUIET_BONUS
            if self.captured is not None:
                taken = chess.PAWN if board.is_en_passant(move) else board.piece_type_at(move.to_square)
                if taken != self.captured:
                    return None
                score += 2
            if move.promotion:
                if self.promotion is not None and move.promotion != self.promotion:
                    return None
                score += 2 if self.promotion else (0.5 if move.promotion == chess.QUEEN else 0)
            elif self.promotion is not None:
                return None
        if self.check or self.mate:
            gives = board.gives_check(move)
            score += 1 if gives else -1
            if self.mate and gives:
                board.push(move)
                score += 1 if board.is_checkmate() else -0.5
                board.pop()
        return score


# the ranks said "four" and "five", whose "f" may be heard as the file (`Mention._swallowed`)
_F_RANKS = (3, 4)


def _stays_in_book(board: chess.Board, move: chess.Move) -> bool:
    """Whether ``move`` reaches a position of opening theory (``board`` is left as it was)."""
    board.push(move)
    try:
        return openings.board_in_book(board)
    finally:
        board.pop()


def _position(board: chess.Board) -> tuple:
    """What a weighing reads of ``board`` but its move stack: the pieces, the side to move, the
    castling rights and the en passant square (not the clocks)."""
    return (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
            board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK], board.turn, board.castling_rights,
            board.ep_square)


_CASTLED = chess.BB_C1 | chess.BB_G1 | chess.BB_C8 | chess.BB_G8


def _legal_to(board: chess.Board, squares: Iterable[int]) -> Iterator[chess.Move]:
    """The legal moves to ``squares``, in ``board.legal_moves``' order: a mention names a square,
    and weighing only the moves that reach it is what makes placing a lesson fast (python-chess
    masks castling by the rook's square, so a castling move is taken by its king's)."""
    mask = 0
    for square in squares:
        mask |= chess.BB_SQUARES[square]
    seen = set()
    for move in board.generate_legal_moves(chess.BB_ALL, mask):
        if chess.BB_SQUARES[move.to_square] & mask and move not in seen:
            seen.add(move)
            yield move
    if mask & _CASTLED:
        for move in board.generate_castling_moves():
            if chess.BB_SQUARES[move.to_square] & mask and move not in seen:
                seen.add(move)
                yield move


def _started_on_wing(board: chess.Board, square: int, piece: int | None, wing: str) -> bool:
    """Whether the piece on ``square`` started the game on the king's side ("K": files e-h; a pawn:
    the e-file) or the queen's ("Q": files a-d; a pawn: the d-file), by replaying the moves."""
    origin = _origins(tuple(board.move_stack)).get(square, square)
    file = chess.square_file(origin)
    if piece == chess.PAWN:
        return file == (4 if wing == "K" else 3)
    return file >= 4 if wing == "K" else file <= 3


@lru_cache(maxsize=64)
def _origins(moves: tuple[chess.Move, ...]) -> dict[int, int]:
    """Square -> the square its piece started the game on, after ``moves`` from the initial position."""
    board = chess.Board()
    origin = {sq: sq for sq in chess.SquareSet(board.occupied)}
    for move in moves:
        if board.is_castling(move):
            kingside = board.is_kingside_castling(move)
            rank = chess.square_rank(move.from_square)
            rook_from, rook_to = chess.square(7 if kingside else 0, rank), chess.square(5 if kingside else 3, rank)
            king_to = chess.square(6 if kingside else 2, rank)
            king, rook = origin.pop(move.from_square, move.from_square), origin.pop(rook_from, rook_from)
            origin[king_to], origin[rook_to] = king, rook
        else:
            if board.is_en_passant(move):
                origin.pop(chess.square(chess.square_file(move.to_square), chess.square_rank(move.from_square)), None)
            origin[move.to_square] = origin.pop(move.from_square, move.from_square)
        board.push(move)
    return origin
