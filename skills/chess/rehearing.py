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

A misheard move may stay legal for longer ("e4 and d5" for e5, then "pawn takes d4" read as dxe4):
the first move that fits nowhere comes sentences later. So the moves played on the way to its
position, further back, are heard again too; being far from what they explain, such a hearing is
kept only when it alone does best and places more positions in opening theory (as `bridging`).

Speech recognition also loses or garbles a piece word ("i5 f6", "society f6" for "knight f6"): the
bare square left is read as a pawn's, which is often legal too, and the line derails the same way.
So a square said without a piece is also heard as each piece that could go there from where it was
placed, after the rhyming files, under the same rules (two pieces that do as well are a refusal);
only where a pawn could go there too: that is how a lost piece word goes unseen. A garbled word just
before the square ("i5", "society") is not asked for: real words stand in for pieces as often ("can
do f1" for "king to f1"), and telling a garbled word from a real one would take a word list.
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
#: plies back from where a move fit nowhere that the moves played on the way there are heard again
#: beyond `REACH` (a derailed line rarely stays legal longer)
PATH_PLIES = 8
#: placings tried at most for those, over the lesson (they place more sentences, so cost more)
PATH_BUDGET = 16
#: of each budget, placings tried at most for a square heard with a piece (tried after the rhymes,
#: on a budget of their own, so the rhymes are tried as before)
PIECE_BUDGET = 8
#: placings tried at most, over the lesson, for two squares said in a row heard again together
PAIR_BUDGET = 48
#: the pieces a square said without one may have lost the name of
PIECES = (chess.KNIGHT, chess.BISHOP, chess.QUEEN, chess.KING, chess.ROOK)


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

    def moves(self) -> tuple:
        """What was placed: hearings that place the same are one hearing."""

    @property
    def said_at(self) -> dict[tuple[int, int], tuple[chess.Move, ...]]:
        """(sentence, mention) -> the moves played before the position it was placed at"""


P = TypeVar("P", bound=Placed)
S = TypeVar("S")


def best(saids: list[list[S]], place: Callable[[list[list[S]], int | None, tuple[P, int] | None], P],
         halfway: list[tuple[int, int, S, S]] | None = None) -> P:
    """The placing of ``saids`` (each sentence's mentions, each with a ``mention``) by ``place``
    after hearing squares again where moves fit nowhere; ``place(saids, None, None)`` itself when
    no new hearing places more. ``place(saids, until, resume)`` places the sentences up to
    ``until`` (all with None), going on from ``resume`` = (an earlier placing of the whole lesson,
    a sentence before which ``saids`` are as they were then). ``halfway`` collects, where no
    hearing mends `GAIN` moves, the one that alone does best mending one (sentence, mention, as
    said, as heard again): not kept here, it may be with a lost move bridged after it."""
    current = place(saids, None, None)
    tried, far, mended_none = 0, 0, set()
    pieced, far_pieced, paired = 0, 0, 0
    # a lesson's rhymes may spend `BUDGET` on its first moves that fit nowhere: the later ones are
    # still heard with pieces, near and along their path, while those placings last
    while tried < BUDGET or pieced < PIECE_BUDGET:
        drop = next((d for d in current.dropped if d not in mended_none), None)
        if drop is None:
            break
        until = drop[0] + AHEAD
        before = sum(1 for d in current.dropped if d[0] <= until)
        fewest, found, placed = (before, 0, 0), None, set()
        half: dict[tuple, tuple] = {}
        for n, heard, piece in _hearings(saids, drop, current):
            if (pieced if piece else tried) >= (PIECE_BUDGET if piece else BUDGET):
                if piece:
                    break
                continue
            if piece:
                pieced += 1
            else:
                tried += 1
            # the sentence before the one heard again looks ahead to its first move
            trial = place(heard, until, (current, max(n - 1, 0)))
            left = (len(trial.dropped), -trial.titled_plies(), -trial.book_plies())
            if left[0] <= before - GAIN and left < fewest:
                fewest, found, placed = left, (n, heard), {trial.moves()}
            elif left[0] <= before - GAIN and left == fewest:
                placed.add(trial.moves())
            _note_halfway(half, left, before, trial, n, saids, heard)
        _keep_halfway(halfway, half, placed)
        if len(placed) > 1:
            found = None  # two hearings that place different moves do as well: not guessed
        if found is not None:
            tried += 1
            trial = place(found[1], None, (current, max(found[0] - 1, 0)))
            kept_title = trial.titled_plies() >= current.titled_plies()
            if len(trial.dropped) <= len(current.dropped) - GAIN and kept_title:
                saids, current = found[1], trial
                continue
        spent_pairs, heard_pair = _told_apart_or_paired(saids, drop, current, place, PAIR_BUDGET - paired,
                                                        half, placed)
        paired += spent_pairs
        if heard_pair is not None:
            saids, current = heard_pair
            continue
        if far < PATH_BUDGET:
            spent, heard_far = _far(saids, drop, current, place, PATH_BUDGET - far, PIECE_BUDGET - far_pieced)
            far, far_pieced = far + spent[0], far_pieced + spent[1]
            if heard_far is not None:
                saids, current = heard_far
                continue
        mended_none.add(drop)
    return current


def _far(saids: list[list[S]], drop: tuple[int, int], current: P, place: Callable, budget: int,
         piece_budget: int) -> tuple[tuple[int, int], tuple[list[list[S]], P] | None]:
    """Placings tried (squares heard on rhyming files, with pieces), and ``saids`` heard again
    further back than `REACH` (on the path to the position where ``drop`` fit nowhere; a piece's
    within ``piece_budget``) with the lesson placed so, if one hearing alone does best
    and over the whole lesson leaves `GAIN` fewer moves fitting nowhere, as many on the titled
    opening and more in opening theory; else None."""
    until = drop[0] + AHEAD
    before = sum(1 for d in current.dropped if d[0] <= until)
    moved = [at for at in on_path(current, drop) if saids[at[0]][at[1]].role == "move"]  # type: ignore[attr-defined]
    hearings = list(_hearings(saids, drop, current, moved))
    rhymed = sum(1 for *_, piece in hearings if not piece)
    if len(hearings) - rhymed > piece_budget:
        hearings = hearings[:rhymed]  # not all pieces can be tried: as before pieces were heard
    pieced = len(hearings) - rhymed
    if not hearings or rhymed >= budget:
        return (0, 0), None  # not all of them can be tried: none is guessed
    scores = []
    for n, heard, _ in hearings:
        trial = place(heard, until, (current, max(n - 1, 0)))
        scores.append(((len(trial.dropped), -trial.titled_plies(), -trial.book_plies()), n, heard, trial.moves()))
    top = min(score for score, *_ in scores)
    # hearings that place the same moves (b5, e5 and g5 all read as the book's e5) are one
    found = list({moves: (n, heard) for score, n, heard, moves in scores if score == top}.values())
    if top[0] > before - GAIN or len(found) != 1:
        return (rhymed, pieced), None  # nothing gained, or two hearings do as well: not guessed
    n, heard = found[0]
    trial = place(heard, None, (current, max(n - 1, 0)))
    if gains_in_theory(trial, current):
        return (rhymed + 1, pieced), (heard, trial)
    return (rhymed + 1, pieced), None


def _paired(saids: list[list[S]], drop: tuple[int, int], current: P, place: Callable, budget: int
            ) -> tuple[int, tuple[list[list[S]], P] | None]:
    """Placings tried, and ``saids`` with two bare squares said in a row ("six, e3, e6" heard as "b3,
    d6") both heard again on rhyming files, with the lesson placed so: a narrator says a move and its
    reply together, and the voice that blurs one letter blurs the next; the first square heard alone
    leaves the reply fitting nowhere still, and the second alone comes at the wrong side's turn, so
    no hearing of one square mends anything. Kept, as a repair far from what it explains, only when
    one pair alone does best and over the whole lesson it leaves `GAIN` fewer moves fitting nowhere,
    as many on the titled opening and more in opening theory."""
    n, k = drop
    pairs = [(k - 1, k)] if k >= 1 and bare_square(saids[n][k - 1]) and bare_square(saids[n][k]) else []
    hearings = [(a, b, first, second) for a, b in pairs
                for first in rhymes(saids[n][a].mention.targets)  # type: ignore[attr-defined]
                for second in rhymes(saids[n][b].mention.targets)]  # type: ignore[attr-defined]
    if not hearings or len(hearings) > budget:
        return 0, None  # not all of them can be tried: none is guessed
    until = drop[0] + AHEAD
    before = sum(1 for d in current.dropped if d[0] <= until)
    scores = []
    for a, b, first, second in hearings:
        heard = heard_as(heard_as(saids, n, a, targets=first), n, b, targets=second)
        trial = place(heard, until, (current, max(n - 1, 0)))
        scores.append(((len(trial.dropped), -trial.titled_plies(), -trial.book_plies()), heard, trial.moves()))
    top = min(score for score, *_ in scores)
    found = list({moves: heard for score, heard, moves in scores if score == top}.values())
    if top[0] > before - GAIN or len(found) != 1:
        return len(hearings), None
    trial = place(found[0], None, (current, max(n - 1, 0)))
    return len(hearings) + 1, ((found[0], trial) if gains_in_theory(trial, current) else None)


#: hearings that each mend one move said, alike near it, placed over the whole lesson at most
TIED = 4


def _told_apart_or_paired(saids: list[list[S]], drop: tuple[int, int], current: P, place: Callable, budget: int,
                          half: dict, placed: set) -> tuple[int, tuple[list[list[S]], P] | None]:
    """Placings tried (of ``budget``, for pairs), and the lesson heard again where no one hearing near
    ``drop`` mended enough: one of several alike told apart by the rest of the lesson (`_told_apart_later`,
    its few placings on no budget), else two squares in a row (`_paired`)."""
    tied = _told_apart_later(saids, half, placed, current, place)
    return (0, tied) if tied is not None else _paired(saids, drop, current, place, budget)


def _told_apart_later(saids: list[list[S]], half: dict, placed: set, current: P, place: Callable
                      ) -> tuple[list[list[S]], P] | None:
    """``saids`` with the one of several hearings alike near a move that fit nowhere, each mending only
    it (``half``; none ``placed`` mending more), that alone over the whole lesson leaves twice `GAIN`
    fewer moves fitting nowhere, as many on the titled opening, with the lesson placed so: "plays d6"
    where no pawn goes, heard b6, c6, e6 or g6, all legal there, is e6 when a bishop goes to d6 later
    and the lesson follows. No book test: the lesson's own later moves tell the hearings apart, not
    theory, which a line off the book (London after 2...Nf6) never reaches. None when none or two do,
    or more than `TIED` are alike (nothing is guessed)."""
    best = min((h[0] for h in half.values()), default=None)
    tied = [h for h in half.values() if h[0] == best]
    if placed or len(tied) < 2 or len(tied) > TIED:
        return None
    kept = []
    for _, n, k, _, again in tied:
        heard = [*saids[:n], [*saids[n][:k], again, *saids[n][k + 1:]], *saids[n + 1:]]
        trial = place(heard, None, (current, max(n - 1, 0)))
        if len(trial.dropped) <= len(current.dropped) - 2 * GAIN and trial.titled_plies() >= current.titled_plies():
            kept.append((heard, trial))
    return kept[0] if len(kept) == 1 else None


def bare_square(said) -> bool:
    """Whether ``said`` is a move said as one square alone ("e3")."""
    mention = said.mention
    return said.role == "move" and mention.bare and len(mention.targets) == 1


def _note_halfway(half: dict, left: tuple, before: int, trial: P, n: int, saids: list[list[S]],
                  heard: list[list[S]]) -> None:
    """Note in ``half`` a hearing (of sentence ``n``) that mends exactly one move said that fit nowhere."""
    if left[0] == before - 1:
        k = next(k for k in range(len(heard[n])) if heard[n][k] is not saids[n][k])
        half.setdefault(trial.moves(), (left, n, k, saids[n][k], heard[n][k]))


def _keep_halfway(halfway: list | None, half: dict, placed: set) -> None:
    """Where no hearing mended `GAIN` moves (nothing ``placed``), the one of ``half`` that alone does
    best, into ``halfway``; two that do as well are not guessed."""
    ranked = sorted(half.values(), key=lambda h: h[0])
    if halfway is not None and not placed and ranked and (len(ranked) == 1 or ranked[1][0] != ranked[0][0]):
        halfway.append(ranked[0][1:])


def mends_much(trial: Placed, current: Placed) -> bool:
    """Whether ``trial`` leaves twice `GAIN` fewer moves fitting nowhere than ``current``, as many on the
    titled opening and no fewer in opening theory: two repairs together (a hearing and a lost move)
    that make a whole passage follow, where theory no longer reaches."""
    return (len(trial.dropped) <= len(current.dropped) - 2 * GAIN and trial.titled_plies() >= current.titled_plies()
            and trial.book_plies() >= current.book_plies())


def gains_in_theory(trial: Placed, current: Placed) -> bool:
    """Whether a lesson placed with a repair far from what it explains is kept over ``current``:
    `GAIN` fewer moves said fit nowhere, as many positions on the titled opening, and more in
    opening theory, which a lesson walks through (a wrong repair may make later moves legal,
    rarely in theory)."""
    return (len(trial.dropped) <= len(current.dropped) - GAIN and trial.titled_plies() >= current.titled_plies()
            and trial.book_plies() > current.book_plies())


def on_path(current: Placed, drop: tuple[int, int]) -> list[tuple[int, int]]:
    """The mentions said before the `REACH` sentences up to ``drop`` and placed on the way to the
    position where it fit nowhere, within `PATH_PLIES` plies of it, the nearest first."""
    path = current.said_at.get(drop)
    if path is None:
        return []
    on = [at for at, before in current.said_at.items() if at[0] < drop[0] - REACH
          and len(path) - PATH_PLIES <= len(before) < len(path) and path[:len(before)] == before]
    return sorted(on, key=lambda at: (-len(current.said_at[at]), -at[0], -at[1]))


def _hearings(saids: list[list[S]], drop: tuple[int, int], current: Placed,
              at: list[tuple[int, int]] | None = None) -> Iterator[tuple[int, list[list[S]], bool]]:
    """``saids`` with one square heard as another rhyming file (and the sentence it is in), and
    whether it was heard with a piece instead (those after all the rhymes): the mentions ``at``
    (else those from ``REACH`` sentences before ``drop`` up to it), the nearest first, but those
    ``current`` placed as ``repeated``."""
    places = [(n, k) for n, k in (near(saids, drop) if at is None else at) if (n, k) not in current.repeated]
    for n, k in places:
        mention = saids[n][k].mention  # type: ignore[attr-defined]
        if getattr(mention, "five_f", False) and len(mention.targets) == 1:
            # "i5, c6" heard again as "knight f6", its "ef" heard as the five: first, as the one other
            # square such a knight is known to be said for (a rhyme of c6 is only a guess)
            rank = chess.square_rank(next(iter(mention.targets)))
            yield n, heard_as(saids, n, k, targets={chess.square(5, rank): 1.0}, five_f=False), False
    for n, k in places:
        said = saids[n][k]
        for targets in rhymes(said.mention.targets):  # type: ignore[attr-defined]
            yield n, heard_as(saids, n, k, targets=targets), False
    for n, k in places:
        for piece in _pieces(saids[n][k].mention, current.said_at.get((n, k))):  # type: ignore[attr-defined]
            yield n, heard_as(saids, n, k, piece=piece, bare=False), True


def near(saids: list[list[S]], drop: tuple[int, int]) -> list[tuple[int, int]]:
    """The mentions from `REACH` sentences before ``drop`` up to it, the nearest first: where what
    made ``drop`` fit nowhere was most likely said."""
    return [(n, k) for n in range(drop[0], max(drop[0] - REACH, 0) - 1, -1)
            for k in range(drop[1] if n == drop[0] else len(saids[n]) - 1, -1, -1)]


def heard_as(saids: list[list[S]], n: int, k: int, **changes) -> list[list[S]]:
    """``saids`` with the mention ``k`` of sentence ``n`` heard with ``changes``."""
    said = saids[n][k]
    sentence = [*saids[n]]
    sentence[k] = dataclasses.replace(said, mention=dataclasses.replace(said.mention, **changes))  # type: ignore
    return [*saids[:n], sentence, *saids[n + 1:]]


def _pieces(mention, path: tuple[chess.Move, ...] | None) -> list[int]:
    """The pieces that could go, after ``path``, to the one square ``mention`` says without a piece,
    a file or a capture: a piece word speech recognition lost or garbled leaves just the square."""
    if (path is None or mention.piece is not None or mention.castle or len(mention.targets) != 1
            or mention.from_file is not None or mention.from_square is not None or mention.pawn_implied
            or mention.pushed or mention.promotion is not None):
        return []
    board = chess.Board()
    for move in path:
        board.push(move)
    if mention.side is not None and board.turn != mention.side:
        return []
    square = next(iter(mention.targets))
    there = {board.piece_type_at(move.from_square) for move in board.generate_legal_moves(
        chess.BB_ALL, chess.BB_SQUARES[square])}
    if chess.PAWN not in there:
        return []  # no pawn went there as heard: another repair's (a bare square is a pawn's)
    return [piece for piece in PIECES if piece in there]


def rhymes(targets: dict[int, float]) -> Iterator[dict[int, float]]:
    """One square said on a rhyming file, as each other rhyming file of its rank; one on the a- or
    e-file also as the other ("ay" and "ee")."""
    if len(targets) != 1:
        return
    square = next(iter(targets))
    file, rank = chess.square_file(square), chess.square_rank(square)
    for other in sounding_like(file):
        if other != file:
            yield {chess.square(other, rank): 1.0}
