"""A move speech recognition lost, found where the moves said after it stop fitting.

One ply lost ("knight c6" heard as "zy takes") leaves the other side to move: the moves said next
are illegal, or legal for the wrong side in the wrong position, and the rest of the line is lost
with them (a cascade). Where a move said fits nowhere, each legal move is tried as a lost one just
before it or before a move said in the `rehearing.REACH` sentences up to it (the first moves after the loss
may still have been legal), if the move said there and the next one then follow. A bridge is kept
only when it alone does best (fewest moves fitting nowhere, then most on the titled opening, then
in opening theory: two as good are a refusal, nothing is guessed), and over the whole lesson leaves
`rehearing.GAIN` fewer moves fitting nowhere and places more in opening theory, which a lesson walks through:
a wrong bridge may make later moves legal, rarely in theory. A bridge that mends only one move is kept
when it puts `THEORY_GAIN` more moves in theory ("gains time with [knight c3, lost], hitting her. The
main retreat is queen a5"): the lost move was the one that brings the whole line back to the book.

Two plies lost in a row (a move and its reply, "knight f3, knight c6" heard as noise) leave the side to
move right: the moves said next may stay legal until one that needs a lost piece fits nowhere, and no
one lost move mends that. Where none does, pairs of moves in a row are tried the same way, only pairs
of opening theory (two free plies let too many pairs through off the book) after which the move said
and `TWO_CONFIRM` more follow (where more pairs do than the budget, only those on the opening the lesson
is titled after), on a budget of their own; before the moves said just before it, else (the side to move
stays right, so the moves said after two lost may stay legal for long) before those played on the way to
where it fit nowhere; a pair is kept as a single bridge far from what it explains is, with the two
bridged moves themselves not counted among those it places in theory.
"""

from __future__ import annotations

from collections.abc import Callable

import chess

from .rehearing import AHEAD, GAIN, gains_in_theory, mends_much, near, on_path
from .roles import _Said
from .theory import _TITLED, _after, _epd_after, _fits, _in_book, resolve
from .tracker import _Tracker

#: placings of the lesson tried at most (each ~5-10 ms a lesson)
BUDGET = 48
#: moves said next (across sentences) that must follow a bridge before it is tried on the lesson
#: (more are often misheard too)
CONFIRM = 1

Place = Callable[[list[list[_Said]], "int | None", "tuple[_Tracker, int] | None", dict], _Tracker]


def best(saids: list[list[_Said]], place: Place, current: _Tracker, against: _Tracker | None = None) -> _Tracker:
    """``current`` (a whole lesson placed from ``saids``) with the lost moves that explain its
    moves said that fit nowhere; ``place(saids, until, resume, bridges)`` places the lesson as
    ``rehearing.best``'s ``place`` does, with ``bridges`` ((sentence, mention) -> the move lost
    before it) played. ``against``: a placing a bridge may be kept over instead, when it
    `rehearing.mends_much` more (``lines._bridged``: after a hearing that alone mended too little)."""
    bridges: dict[tuple[int, int], chess.Move | tuple[chess.Move, ...]] = {}
    tried, done, two = 0, set(), 0
    while tried < BUDGET:
        drop = next((d for d in current.dropped if d not in done), None)
        if drop is None:
            break
        done.add(drop)
        found: tuple[tuple[int, int], chess.Move | tuple[chess.Move, ...]] | None
        found, spent = _sole(saids, place, current, drop, bridges, BUDGET - tried)
        tried += spent
        if found is None and two < TWO_BUDGET:
            # on a budget of its own: single lost moves are looked for as before
            found, spent = _sole_two(saids, place, current, drop, bridges, TWO_BUDGET - two)
            two += spent
        if found is None:
            continue  # nothing gained, or two bridges do as well: not guessed
        (at, gap), tried = found, tried + 1
        trial = place(saids, None, (current, at[0]), {**bridges, at: gap})
        if isinstance(gap, tuple):
            if _two_kept(trial, current):
                bridges[at], current = gap, trial
        elif gains_in_theory(trial, current) or _into_theory(trial, current) \
                or (against is not None and mends_much(trial, against)):
            bridges[at], current = gap, trial
    return current


def one(saids: list[list[_Said]], place: Place, current: _Tracker) -> _Tracker | None:
    """``current`` placed again with the one lost move that alone does best where its first move said
    fits nowhere (as `best` finds it), whatever it gains over the lesson; None where none or two do."""
    if not current.dropped:
        return None
    found, _ = _sole(saids, place, current, current.dropped[0], current.bridges, BUDGET)
    if found is None:
        return None
    at, gap = found
    return place(saids, None, (current, at[0]), {**current.bridges, at: gap})


def _sole(saids: list[list[_Said]], place: Place, current: _Tracker, drop: tuple[int, int],
          bridges: dict, budget: int) -> tuple[tuple[tuple[int, int], chess.Move] | None, int]:
    """The one lost move (where, which) that, bridged on top of ``bridges``, leaves the fewest moves
    fitting nowhere up to `AHEAD` sentences past ``drop`` (then the most on the titled opening, then
    in theory), if it leaves fewer than ``current`` does; None where none or two do as well. With
    how many placings of at most ``budget`` it tried."""
    until = drop[0] + AHEAD
    before = sum(1 for d in current.dropped if d[0] <= until)
    scores: dict[tuple[tuple[int, int], chess.Move], tuple[int, int, int]] = {}
    tried = 0
    for at in _before(saids, drop, current):
        for gap in _gaps(saids, at, current.said_at[at]):
            if tried >= budget:
                break
            tried += 1
            trial = place(saids, until, (current, at[0]), {**bridges, at: gap})
            scores[at, gap] = (len(trial.dropped), -trial.titled_plies(), -trial.book_plies())
    top = min(scores.values(), default=None)
    found = [bridge for bridge, left in scores.items() if left == top]
    if top is None or top[0] >= before or len(found) != 1:
        return None, tried
    return found[0], tried


#: placings tried at most, for each move said that fit nowhere that no one lost move explains, for
#: two lost in a row (a move and its reply: "knight f3, knight c6" lost together leave the side to move
#: right, but the next move that needs either fitting nowhere)
TWO_BUDGET = 48
#: moves said next that must follow two lost moves (with two free plies, one follows too often)
TWO_CONFIRM = 3


def _two_kept(trial: _Tracker, current: _Tracker) -> bool:
    """Whether two lost moves bridged are kept: as `rehearing.gains_in_theory`, with the two moves
    themselves (always in theory) not counted among those the lesson places more in theory."""
    return (len(trial.dropped) <= len(current.dropped) - GAIN and trial.titled_plies() >= current.titled_plies()
            and trial.book_plies() > current.book_plies() + 2)


def _sole_two(saids: list[list[_Said]], place: Place, current: _Tracker, drop: tuple[int, int],
              bridges: dict, budget: int) -> tuple[tuple[tuple[int, int], tuple[chess.Move, ...]] | None, int]:
    """As `_sole`, two lost moves in a row before one move said: the pair of opening theory after which
    it and the `TWO_CONFIRM` moves said next follow, that alone does best up to `AHEAD` sentences past
    ``drop``; before the moves said in the `rehearing.REACH` sentences up to ``drop``, else (two lost
    moves leave the side to move right, so the moves said after them may stay legal for longer) before
    those played on the way to where it fit nowhere (`rehearing.on_path`). When more pairs follow than
    ``budget`` placings, only those on the titled opening are tried; when still more, none (not all
    tried: none is guessed). With how many placings it tried."""
    far = [at for at in on_path(current, drop) if saids[at[0]][at[1]].role == "move" and at not in current.repeated]
    spent = 0
    for ats in (_before(saids, drop, current), far):
        found, tried = _pair_among(saids, place, current, drop, bridges, budget - spent, ats)
        spent += tried
        if found is not None:
            return found, spent
    return None, spent


def _pair_among(saids: list[list[_Said]], place: Place, current: _Tracker, drop: tuple[int, int], bridges: dict,
                budget: int, ats: list[tuple[int, int]]
                ) -> tuple[tuple[tuple[int, int], tuple[chess.Move, ...]] | None, int]:
    """`_sole_two`'s pair lost before one of the moves said ``ats``, and the placings tried."""
    until = drop[0] + AHEAD
    before = sum(1 for d in current.dropped if d[0] <= until)
    pairs = [(at, gap) for at in ats if at not in bridges
             for gap in _gaps(saids, at, current.said_at[at], plies=2, confirm=TWO_CONFIRM)]
    if len(pairs) > budget:
        # a lesson's opening moves let many pairs of theory follow: of them, those on its titled opening
        pairs = [(at, gap) for at, gap in pairs if _on_titled(current.said_at[at], gap)]
    if not pairs or len(pairs) > budget:
        return None, 0
    scores: dict[tuple[tuple[int, int], tuple[chess.Move, ...]], tuple[int, int, int]] = {}
    for at, gap in pairs:
        trial = place(saids, until, (current, at[0]), {**bridges, at: gap})
        scores[at, gap] = (len(trial.dropped), -trial.titled_plies(), -trial.book_plies())
    top = min(scores.values())
    found = [bridge for bridge, left in scores.items() if left == top]
    if top[0] >= before or len(found) != 1:
        return None, len(pairs)
    return found[0], len(pairs)


def _on_titled(path: tuple[chess.Move, ...], gap: tuple[chess.Move, ...]) -> bool:
    """Whether each of the moves ``gap`` after ``path`` reaches a position of the opening the lesson
    is titled after (none when it names none)."""
    titled = _TITLED.get()
    board = _Tracker.board(list(path))
    for move in gap:
        if _epd_after(board, move) not in titled:
            return False
        board = _after(board, move)  # a copy: the shared board of ``path`` is left as it was
    return True


#: positions of opening theory a bridge that mends a single move must add
THEORY_GAIN = 4


def _into_theory(trial: _Tracker, current: _Tracker) -> bool:
    """Whether a bridge that mends one move said is kept: it brings `THEORY_GAIN` more of the lesson's
    moves into opening theory, and as many onto the opening the lesson is titled after."""
    return (len(trial.dropped) < len(current.dropped) and trial.titled_plies() >= current.titled_plies()
            and trial.book_plies() >= current.book_plies() + THEORY_GAIN)


def _before(saids: list[list[_Said]], drop: tuple[int, int], current: _Tracker) -> list[tuple[int, int]]:
    """Where the lost move may have been said: before the move said that fit nowhere or before one of
    the moves said in the `rehearing.REACH` sentences up to it (a lost move may leave the next ones legal for
    the wrong side), the nearest first."""
    return [(n, k) for n, k in near(saids, drop) if (n, k) in current.said_at and saids[n][k].role == "move"
            and (n, k) not in current.repeated]


def _gaps(saids: list[list[_Said]], at: tuple[int, int], path: tuple[chess.Move, ...], plies: int = 1,
          confirm: int = CONFIRM) -> list:
    """The legal moves at ``path`` after which the move said at ``at`` and the `CONFIRM` (``confirm``)
    moves said next (across sentences) all follow; with ``plies`` 2, the pairs of moves in a row."""
    sentence, k = at
    mention = saids[sentence][k].mention
    nxt = tuple(s.mention for s in [*saids[sentence][k + 1:], *(s for later in saids[sentence + 1:] for s in later)]
                if s.role == "move")[:confirm]
    board = _Tracker.board(list(path))
    gaps: list = []

    def follows() -> bool:
        move = resolve(mention, board)
        if move is None:
            return False
        board.push(move)
        try:
            return _fits(board, nxt)
        finally:
            board.pop()

    for gap in list(board.legal_moves):
        if plies > 1 and not _in_book(board, gap):
            continue
        board.push(gap)
        try:
            if plies == 1:
                if follows():
                    gaps.append(gap)
                continue
            for reply in list(board.legal_moves):
                if not _in_book(board, reply):
                    continue
                board.push(reply)
                try:
                    if follows():
                        gaps.append((gap, reply))
                finally:
                    board.pop()
        finally:
            board.pop()
    return gaps
