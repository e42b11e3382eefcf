"""The move a mention names in a lesson, speech recognition's guesses weighed by opening theory.

A lesson mostly walks through the opening it is titled after: where what was heard ties or fits
nothing, the book (and the title's line) and the moves said next decide, never against what was
heard without theory's confirmation.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import chess

from . import memo, openings
from .mention import MIN_SCORE, SCORE_TIE, Mention, _position

# What staying in the opening book is worth, against a sound-alike's discount of 4 × (1 - 0.3) = 2.8
# (mention.py): one book move does not outweigh what was heard, two in a row do.
_BOOK_BONUS = 2.0
# What the opening a lesson is titled after is worth on top of theory's bonus: a sound-alike that
# stays on the titled line beats the move as heard without a second book move to confirm it.
_TITLE_BONUS = 2.0
#: the positions along the opening the lesson being read is titled after (``openings.named_in``):
#: set by ``track_lines`` for its own call, so concurrent readings of other lessons keep theirs
_TITLED: ContextVar[frozenset[str]] = ContextVar("titled", default=frozenset())
#: whether those positions come from the lesson's title (not from its first sentences): only then may a
#: square said bare be heard again as the titled line's move there
_BY_TITLE: ContextVar[bool] = ContextVar("by_title", default=False)


def resolve(
    mention: Mention, board: chess.Board, strict: bool = True, following: tuple[Mention, ...] = ()
) -> chess.Move | None:
    """The move `mention` names on `board`, speech recognition's guesses weighed by opening theory,
    which a lesson mostly walks through.

    A tie ("pawn to d4" heard where only b4, e4 and g4 are legal: sound-alikes) goes to the one
    candidate that stays in the book. From a book position, a move that stays in it gains
    `_BOOK_BONUS`, and again when the next of the `following` mentions, resolved the same way,
    then names a book move too: a sound-alike beats the move as heard only with that second
    move ("bishop to d2, and black strikes with pawn to e5" is 6. Be2 e5 of the King's Indian).
    When nothing fits the squares as heard, a book move to another file of the heard rank may
    stand in, after a move word or with that second move ("the queen retreats to e3" for 9...
    Qa3 of the Poisoned Pawn; not "the knight to f5", a misheard "the knight that defends e5").
    Notation ("Bd2") was typed, not guessed: it stands. Otherwise a tie is a refusal.
    """
    # placing a lesson asks it again and again of the same mentions and boards; a board is its position
    # and its move stack (a recapture's square, where pieces started, which have moved)
    key = (id(mention), tuple(map(id, following)), strict, _position(board), tuple(board.move_stack))
    return memo.recall("resolved", key, (mention, following), lambda: _resolve(mention, board, strict, following))


def _resolve(mention: Mention, board: chess.Board, strict: bool, following: tuple[Mention, ...]) -> chess.Move | None:
    """`resolve`, worked out (not remembered)."""
    move = _pick(mention, board, strict)
    if mention.notation or not openings.board_in_book(board):
        return move
    scored = mention.scored(board, strict)
    heard = {alt for _, alt in scored}
    if not mention.candidates(board, strict, sound_alikes=False):
        scored = mention.scored(board, strict, loose=True)
    elif strict:
        scored += _titled_guesses(mention, board, heard)
    values: dict[chess.Move, float] = {}
    for score, alt in scored:
        with _played(board, alt) as after:
            if not openings.board_in_book(after):
                if alt == move:
                    values[alt] = score
                continue  # only theory may overrule what was heard
            nxt = resolve(following[0], after, strict, following[1:]) if following else None
            confirmed = nxt is not None and _in_book(after, nxt)
            if alt not in heard and not (mention.acted or confirmed):
                continue
            score += _BOOK_BONUS * (2 if confirmed else 1)
            if openings.epd(after) in _TITLED.get():
                score += _TITLE_BONUS
        if score >= MIN_SCORE:
            values[alt] = score
    top = max(values.values(), default=0.0)
    best = [alt for alt, value in values.items() if value > top - SCORE_TIE]
    return move if move in best or len(best) != 1 else best[0]


def _untie(mention: Mention, board: chess.Board, following: tuple[Mention, ...]) -> chess.Move | None:
    """Of moves the mention names equally well ("take c4" heard for Nxd4 or Qxd4), the one after
    which every move said next follows, when each other fails one ("... because knight takes d4,
    queen takes d4": after Qxd4 Black has no queen to take). None when no or several such."""
    tied = mention.candidates(board)
    if len(tied) < 2 or not following:
        return None
    fit = []
    for move in tied:
        board.push(move)
        if _fits(board, following):
            fit.append(move)
        board.pop()
    return fit[0] if len(fit) == 1 else None


def _mated_by_next(mention: Mention, board: chess.Board, move: chess.Move | None,
                   following: tuple[Mention, ...]) -> chess.Move | None:
    """The move ``mention`` names when the move said next is said to be checkmate ("don't play knight gf6,
    because knight to d6 is checkmate"): a trap's mate shows what was played before it, so where ``move``
    (what was heard, None for a tie) does not let the next move mate, the one move the mention may name
    (as heard, or with a sound-alike file or square: "df6" for "gf6", a spoken source file run into the
    square) that does is what was said.
    ``move`` where no mate is claimed, or where none or several candidates let it be."""
    if not following or not following[0].mate:
        return move

    def mates(alt: chess.Move) -> bool:
        after = board.copy()
        after.push(alt)
        reply = resolve(following[0], after)
        if reply is None:
            return False
        after.push(reply)
        return after.is_checkmate()

    if move is not None and mates(move):
        return move
    # the source file as a spoken letter, also where speech recognition ran it into the square ("df6")
    heard = dataclasses.replace(mention, file_heard=True) if mention.from_file is not None else mention
    mating = [alt for score, alt in heard.scored(board) if score >= MIN_SCORE and mates(alt)]
    return mating[0] if len(mating) == 1 else move


def _fits(board: chess.Board, mentions: tuple[Mention, ...]) -> bool:
    """Whether each of `mentions`, in turn, names a move from `board` on (`board` is left as it was)."""
    played = 0
    try:
        for mention in mentions:
            move = resolve(mention, board)
            if move is None:
                return False
            board.push(move)
            played += 1
        return True
    finally:
        for _ in range(played):
            board.pop()


@contextmanager
def _played(board: chess.Board, move: chess.Move) -> Iterator[chess.Board]:
    """`board` with `move` played, taken back after the block: a copy of the board would copy its
    whole move stack, move by move, and weighing a lesson's guesses tries each on a position."""
    board.push(move)
    try:
        yield board
    finally:
        board.pop()


def _in_book(board: chess.Board, move: chess.Move) -> bool:
    """Whether `move` leads to a position some opening line passes through."""
    return openings.board_in_book(_after(board, move))


def _epd_after(board: chess.Board, move: chess.Move) -> str:
    """The position (EPD) `move` leads to (`board` is left as it was)."""
    return openings.epd(_after(board, move))


def _after(board: chess.Board, move: chess.Move) -> chess.Board:
    """A copy of `board` with `move` played, without the moves before it."""
    after = board.copy(stack=False)
    after.push(move)
    return after


def _pick(mention: Mention, board: chess.Board, strict: bool) -> chess.Move | None:
    """The best candidate, a tie broken by the one that stays in the book, else (a capture by either
    knight) by the knight that has not moved yet; None if still tied."""
    best = mention.candidates(board, strict)
    if len(best) > 1:
        booked = [move for move in best if _in_book(board, move)]
        best = booked if len(booked) == 1 else _undeveloped_knight(board, booked or best)
    return best[0] if len(best) == 1 else None


def _undeveloped_knight(board: chess.Board, tied: list[chess.Move]) -> list[chess.Move]:
    """ "Knight takes d2" where both knights can: the one still on the square it started on (an
    opening develops pieces; "knight b takes d2" heard without its "b"). ``tied`` when no such one,
    and for quiet moves (with a misheard square, two knights reaching it is a guess; measured: a
    quiet move taken this way added spurious moves)."""
    if len(tied) != 2 or any(board.piece_type_at(move.from_square) != chess.KNIGHT or not board.is_capture(move)
                             for move in tied):
        return tied
    start = chess.BB_B1 | chess.BB_G1 | chess.BB_B8 | chess.BB_G8
    touched = {square for move in board.move_stack for square in (move.from_square, move.to_square)}
    home = [move for move in tied if chess.BB_SQUARES[move.from_square] & start and move.from_square not in touched]
    return home if len(home) == 1 else tied


def _titled_guesses(mention: Mention, board: chess.Board, heard: set[chess.Move]) -> list[tuple[float, chess.Move]]:
    """What a square said without its piece or "to" may have been, read loosely (a rhyming file,
    another piece: "gains time with knight c3" heard "without c3"), where that reaches a position
    of the opening the lesson's title names. Weighed as sound-alikes are, so it wins only where
    what was heard lacks theory's confirmation (``resolve``)."""
    titled = _TITLED.get()
    if not (titled and _BY_TITLE.get()):
        return []
    guesses = []
    for score, alt in mention.scored(board, False):
        if alt not in heard:
            board.push(alt)
            if openings.epd(board) in titled:
                guesses.append((score, alt))
            board.pop()
    return guesses
