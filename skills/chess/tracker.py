"""The tree of a lesson's lines and a cursor in it: where each move said is placed.

`_Tracker.sentence` places one sentence's mentions, by the roles `roles._roles` gave them: played,
followed along a known line, forked as an alternative, referred back to, or repaired where speech
recognition replaced or lost a move (and, placed again, with `bridging`'s lost moves played).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import cast

import chess

from tutorialbook.acquire.transcript import Segment
from . import memo, openings
from .events import MoveEvent, PlacedLine
from .mention import Mention
from .roles import _BACK_TO_MOVE, _NUMBERS, _RESTART, _TURNS_AWAY, _Said
from .spoken_words import sounding_like
from .theory import _TITLED, _after, _epd_after, _fits, _in_book, _mated_by_next, _played, _untie, resolve

_ALTERNATIVE_REACH = 2  # how many plies back "instead"/"alternatively" may reach
_CONFIRM = 4  # how many moves said next a repair (a replaced or a lost move) must explain
_GAP_CONFIRM = 2  # a lost move found without opening theory needs this many of them
_LOOKAHEAD = 2  # moves said next that may confirm a guess, each resolved with those after it
_DEVELOP = re.compile(r"\bdevelop", re.IGNORECASE)  # "develops", "development": a piece off its starting square
_JOINED = re.compile(r"\s*and\s*")  # "to d3 and d6": two squares of one phrase


class _Tracker:
    """The tree of lines and a cursor in it (a line and how many of its moves are played)."""

    def __init__(self) -> None:
        self.lines: list[PlacedLine] = []
        self.line: PlacedLine | None = None
        self.ply = 0
        self.fresh = True  # at the initial position after a restart: a new first move starts a new line
        self.last: tuple[PlacedLine, int] | None = None  # the last move spoken about: its line and index
        self.seen: dict[str, tuple[int, tuple[chess.Move, ...]]] = {}
        self.events: list[MoveEvent] = []
        self.booked = 0  # how many of the events reach a position of opening theory (`book_plies`)
        self.held: tuple[PlacedLine | None, int] | None = None  # a return from a warned-against line, held
        self.at_move = False  # the cursor was set by "back to move N": White's and Black's move N are both near
        self.sentence_at = 0  # the index of the sentence being placed
        self.dropped: list[tuple[int, int]] = []  # (sentence, mention) of each move said that fit nowhere
        self.repeated: set[tuple[int, int]] = set()  # (sentence, mention) naming a move played before
        self.checkpoints: list[_Tracker] = []  # after placing a whole lesson: the state before each sentence
        self.said_at: dict[tuple[int, int], tuple[chess.Move, ...]] = {}  # the path each move said met
        # a lost move (or two in a row) to play before (sentence, mention)
        self.bridges: dict[tuple[int, int], chess.Move | tuple[chess.Move, ...]] = {}
        self.saids: list[list[_Said]] = []  # the mentions of each sentence the lesson was placed from

    def copy(self) -> _Tracker:
        """This state, to go on from while it stays as it is (lines copied; events never change)."""
        twin = _Tracker.__new__(_Tracker)
        twin.__dict__.update(self.__dict__)
        twins = {id(line): PlacedLine(line.id, list(line.moves), line.branch_of) for line in self.lines}
        twin.lines = [twins[id(line)] for line in self.lines]
        twin.line = twins[id(self.line)] if self.line is not None else None
        twin.last = (twins[id(self.last[0])], self.last[1]) if self.last is not None else None
        held = self.held
        twin.held = (twins[id(held[0])] if held[0] is not None else None, held[1]) if held is not None else None
        twin.seen, twin.events = dict(self.seen), list(self.events)
        twin.dropped, twin.repeated = list(self.dropped), set(self.repeated)
        twin.said_at = dict(self.said_at)
        twin.checkpoints = []
        return twin

    def book_plies(self) -> int:
        """How many of the moves placed reach a position of opening theory: counted as each is placed
        (`emit`), from its board, where asking of each event's EPD again read it back into a board
        for every hearing and bridge tried."""
        return self.booked

    def moves(self) -> tuple[tuple[int, int, str], ...]:
        """Each move placed: its line, ply and SAN."""
        return tuple((event.line, event.ply, event.san) for event in self.events)

    def titled_plies(self) -> int:
        """How many of the moves placed reach a position of the opening the lesson is titled after."""
        titled = _TITLED.get()
        return sum(1 for event in self.events if event.epd_after in titled) if titled else 0

    # positions -----------------------------------------------------------------------------------

    def path(self) -> list[chess.Move]:
        return self.line.moves[: self.ply] if self.line else []

    @staticmethod
    def board(moves: list[chess.Move]) -> chess.Board:
        """The position after `moves`, with its move stack (a recapture needs the last move). While a
        lesson is placed, one board per path, shared: replaying the path was most of what placing a
        mention cost. So a caller leaves it as it was (a move pushed on it is popped)."""
        boards = memo.kept("boards")
        key = tuple(moves)
        if boards is not None and key in boards:
            return boards[key]
        b = chess.Board()
        for move in moves:
            b.push(move)
        if boards is not None:
            boards[key] = b
        return b

    def restart(self) -> None:
        """Back to the initial position; the current line is still preferred if the moves follow it."""
        self.ply, self.fresh = 0, True

    def back_to_move(self, number: int) -> None:
        """ "Going back to move two": the cursor before White's move two, along the current line."""
        if self.line is not None and 0 < number:
            self.ply, self.at_move = min(2 * (number - 1), len(self.line.moves)), True
            self.fresh = self.ply == 0

    def go_to_number(self, mention: Mention) -> None:
        """ "3. Bb5" names its ply: move there along the current line when it exists."""
        if mention.move_number is None:
            return
        index = 2 * (mention.move_number - 1) + (1 if mention.black else 0)
        if mention.black is None and self.line is not None:
            # "on move two", said without a side: White's move two, or Black's where only that fits
            fits = [k for k in (index, index + 1) if k <= len(self.line.moves)
                    and resolve(mention, self.board(self.line.moves[:k])) is not None]
            index = fits[0] if fits else index
        if index != self.ply and index <= (len(self.line.moves) if self.line else 0):
            self.ply = index
            if index == 0:
                self.fresh = True

    def played_at(self, mention: Mention, strict: bool = True, ahead: bool = False, exact: bool = False) -> int | None:
        """Index in the current path where `mention` was played, searching back from the cursor.

        ``ahead`` first tries the move just after the cursor: after "go back to the position
        after 2. Nf3", "instead of Nc6" names the move the line continues with. ``exact`` counts
        the squares only as heard (no sound-alikes).
        """
        path = self.path()
        if ahead and self.line is not None and self.ply < len(self.line.moves):
            if self.line.moves[self.ply] in mention.candidates(self.board(path), strict, not exact):
                return self.ply
        for k in range(len(path) - 1, -1, -1):
            if path[k] in mention.candidates(self.board(path[:k]), strict, not exact):
                return k
        return None

    def played_elsewhere(self, mention: Mention) -> tuple[PlacedLine, int] | None:
        """A move played in another line, the line last spoken about first, then the newest.

        "After Bb4+, white must give back the queen" continues a line the narrator left (a trap
        shown in a side line, then the lesson went back): the reference says where to resume.
        """
        order = [self.last[0]] if self.last is not None else []
        order += [line for line in reversed(self.lines) if line is not self.line and line not in order]
        for line in order:
            if line is self.line:
                continue
            for k in range(len(line.moves) - 1, -1, -1):
                if line.moves[k] in mention.candidates(self.board(line.moves[:k])):
                    return line, k
        return None

    def resumes(self, restore: tuple[PlacedLine | None, int], mention: Mention) -> chess.Move | None:
        """The move `mention` names where the lesson was before a warned-against line (``restore``)."""
        line, ply = restore
        return resolve(mention, self.board(line.moves[:ply] if line else []))

    def replaces_last(self, said: _Said, following: tuple[Mention, ...]) -> chess.Move | None:
        """A move that cannot follow the move just played but fits in its place, when the moves said
        next in the sentence then all fit too: the move just played was never said (speech
        recognition invents words, e.g. a phrase of its vocabulary prompt) or was misheard. Without
        a next mention to confirm it, nothing is replaced."""
        if self.line is None or not self.ply or self.last != (self.line, self.ply - 1) or not following:
            return None
        path = self.path()
        board = self.board(path[:-1])
        move = resolve(said.mention, board)
        if move is None or move == path[-1]:
            return None
        with _played(board, move):
            return move if _fits(board, following) else None

    def lost_ply(self, mention: Mention, following: tuple[Mention, ...] = ()) -> chess.Move | None:
        """The one move speech recognition lost before `mention`: "knight to c3, [d takes e4,]
        knight takes e4" heard without its middle. Opening theory may supply it (from a book
        position, the single book move after which the mention names a book move and the moves said
        next fit), or the sentence itself: the single legal move after which `mention` and at least
        `_GAP_CONFIRM` moves said next all fit ("[pawn to h4], pawn to h6, knight to f3, knight to
        d7, and pawn to h5": only h4 lets the h-pawn reach h5). Of several, a piece named before the
        mention with no square of its own picks the one it moves, else the opening the lesson is
        titled after picks the one on its line; otherwise several are a refusal."""
        path = self.path()  # each rehearing and bridge tried asks again, from the same positions
        key = (id(mention), tuple(map(id, following)), tuple(path))
        return memo.recall("lost", key, (mention, following),
                           lambda: _lost_before(self.board(path), mention, following))

    def lost_move(self, mention: Mention, following: tuple[Mention, ...]) -> tuple[chess.Move, chess.Move] | None:
        """The whole move (both sides' plies) speech recognition lost before `mention` ("knight c3, d takes
        c4, [five, a4; black answers bishop f5,] six e3, e6"): the same side is to move after it, so only
        opening theory tells the loss. From a book position at the end of the line, the one pair of book
        moves after which `mention` and the move said next both name book moves and the `_GAP_CONFIRM` or
        more moves said next in the sentence all follow; several are a refusal. (Measured: without the
        second book move and with one move said next, held lessons lost moves to pairs guessed wrong.)"""
        path = self.path()
        if len(following) < _GAP_CONFIRM or self.line is None or self.ply != len(self.line.moves):
            return None
        if mention.move_number is not None and 2 * mention.move_number - 2 + bool(mention.black) != self.ply + 2:
            return None  # said with the number of another move
        key = (id(mention), tuple(map(id, following)), tuple(path))
        return memo.recall("lost_move", key, (mention, following),
                           lambda: _lost_pair(self.board(path), mention, following))

    def developed_two_back(self, mention: Mention) -> tuple[chess.Move | None, list[MoveEvent], chess.Move] | None:
        """ "We keep the bishop with bishop d3 [g3 misheard]. Black castles. White finishes development with
        bishop d3 [or b3]": a piece move said with a word of development ("develops", "development"), as
        the line's next, that names as heard, or on a rhyming file, the square of the same side's move
        just before (two plies back) by the same piece was said once and misheard once (or both times), on
        rhyming files of the same rank; to develop is to bring a piece off the square it started on, which
        tells the hearings apart. Either that earlier move is the misheard one (the one move of its piece
        to a rhyming square after which the other side's reply still follows and one move brings a piece
        of ``mention``'s out to a square it names): (that move, the events of the two moves to replay, the
        move bringing the piece out); or ``mention`` is (the one move bringing such a piece out to a square
        it names): (None, [], that move). None when neither, or both, or several."""
        path = self.path()
        k = self.ply - 2
        if mention.piece is None or self.line is None or self.ply != len(self.line.moves) or k < 0:
            return None
        board = self.board(path[:k])
        said, reply = path[k], path[k + 1]
        heard = {chess.square(f, chess.square_rank(sq)) for sq in mention.targets
                 for f in (chess.square_file(sq), *sounding_like(chess.square_file(sq)))}
        if board.piece_type_at(said.from_square) != mention.piece or said.to_square not in heard:
            return None
        rank, files = chess.square_rank(said.to_square), sounding_like(chess.square_file(said.to_square))

        def brought_out(on: chess.Board) -> list[chess.Move]:
            return [move for move in on.legal_moves if move.to_square in heard
                    and on.piece_type_at(move.from_square) == mention.piece and _leaves_home(on, move)]

        before: list[tuple[chess.Move, chess.Move]] = []
        for move in board.legal_moves:
            if move == said or board.piece_type_at(move.from_square) != mention.piece \
                    or chess.square_rank(move.to_square) != rank or chess.square_file(move.to_square) not in files:
                continue
            with _played(board, move):
                if not board.is_legal(reply):
                    continue
                with _played(board, reply):
                    out = brought_out(board)
                    before += [(move, out[0])] if len(out) == 1 else []
        here = brought_out(self.board(path))
        if len(before) + len(here) != 1:
            return None
        if here:
            return None, [], here[0]
        epds = (openings.epd(board), _epd_after(board, said))
        events = [next((e for e in reversed(self.events) if e.epd_before == epd and e.uci == move.uci()), None)
                  for epd, move in zip(epds, (said, reply))]
        if None in events:
            return None
        return before[0][0], cast(list[MoveEvent], events), before[0][1]

    def replay_two_back(self, k: int, swap: chess.Move, events: list[MoveEvent], mention: Mention) -> None:
        """The line forked at ``k`` with ``swap`` for the move played there and the other side's reply
        played again after it, each quoted as it was said (``events``)."""
        reply = self.path()[k + 1]
        self.ply = k
        for move, event in zip((swap, reply), events):
            self.play(move, _Said(mention, "move", event.kind, event.reason), event.quote,
                      Segment(event.start, event.end, event.quote))

    # moves -----------------------------------------------------------------------------------

    def follow(self, move: chess.Move) -> bool:
        """Advance along a known continuation without a new event; False if the move is new here."""
        path, p = self.path(), self.ply
        for line in [self.line, *self.lines] if self.line else self.lines:
            if len(line.moves) > p and line.moves[:p] == path and line.moves[p] == move:
                self.line, self.ply, self.fresh = line, p + 1, False
                self.last = (line, p)
                return True
        return False

    def play(self, move: chess.Move, said: _Said, quote: str, seg: Segment) -> None:
        """Play `move` at the cursor: follow a known line, extend the current one, or fork a new one."""
        path, p = self.path(), self.ply
        if not self.follow(move):
            # a warned-against move never extends the line being taught: it opens a side line
            if self.line is not None and len(self.line.moves) == p and said.kind != "avoid":
                self.line.moves.append(move)
            else:
                parent = None if self.line is None or (self.fresh and p == 0) else self.line
                while (
                    parent is not None
                    and parent.branch_of is not None
                    and self.lines[parent.branch_of - 1].moves[:p] == path
                ):
                    parent = self.lines[parent.branch_of - 1]  # fork from the oldest line that shares the path
                self.line = PlacedLine(len(self.lines) + 1, [*path, move], parent.id if parent else None)
                self.lines.append(self.line)
            self.ply, self.fresh, self.last = p + 1, False, (self.line, p)
        self.at_move = False
        self.emit(cast(PlacedLine, self.line), p, said, quote, seg)  # follow() or the branch above set it

    def emit(self, line: PlacedLine, index: int, said: _Said, quote: str, seg: Segment) -> None:
        before = self.board(line.moves[:index])
        move = line.moves[index]
        san = before.san(move)
        epd_before = openings.epd(before)
        after = _after(before, move)
        epd_after = openings.epd(after)
        self.booked += openings.board_in_book(after)
        path = tuple(line.moves[: index + 1])
        first = self.seen.setdefault(epd_after, (line.id, path))
        self.events.append(
            MoveEvent(
                line=line.id,
                ply=index + 1,
                san=san,
                uci=move.uci(),
                epd_before=epd_before,
                epd_after=epd_after,
                start=seg.start,
                end=seg.end,
                quote=quote,
                kind=said.kind,
                reason=said.reason,
                branch_of=line.branch_of,
                transposes_to=first[0] if first[1] != path else None,
            )
        )

    def alternative(self, said: _Said, quote: str, seg: Segment) -> bool:
        """A move offered in place of one just discussed: fork where it is legal and new."""
        places: list[tuple[PlacedLine, int]] = []
        if self.line is not None and (said.role == "suppose" or self.ply < len(self.line.moves)):
            # "suppose", or back inside a line ("go back to the position after 3. Bg5. Black can
            # also play Nbd7"): the move offered replaces the one the line continues with
            places.append((self.line, self.ply))
            if self.at_move and self.ply < len(self.line.moves):
                places.append((self.line, self.ply + 1))  # "back to move one, black can choose c5"
        if self.last is not None:
            line, index = self.last
            places += [(line, k) for k in range(index, max(index - _ALTERNATIVE_REACH, -1), -1)]
        again = said.role == "alternative" and self.played_at(said.mention, exact=True) is not None
        for line, k in places:
            board = self.board(line.moves[:k])
            move = resolve(said.mention, board)
            if move is None and again:
                # "if black claims d5 [c5 misheard] instead of knight f6": what is offered instead is new, so a
                # move that names one played before as heard was misheard: its sound-alikes, theory's choice
                move = resolve(_heard_again(said.mention), board)
            if move is not None and (k >= len(line.moves) or line.moves[k] != move):
                self.line, self.ply = line, k
                self.play(move, said, quote, seg)
                return True
        return False

    # sentences -------------------------------------------------------------------------------

    def sentence(  # noqa: C901 - a sentence's cues in reading order; to split with the chess tests' owner
        self,
        text: str,
        quote: str,
        seg_at: Callable[[int], Segment],
        saids: list[_Said],
        then: Mention | None,
        opens: bool = False,
    ) -> None:
        """Place the mentions of one sentence (`quote`: it as the transcript shows it); `then` is the
        move the next sentence opens with, if it continues from here: what confirms a guess at this
        sentence's last move."""
        if _RESTART.search(text):
            self.restart()
        elif back := _BACK_TO_MOVE.search(text):
            n = (back.group("n") or back.group("heard")).lower()
            self.back_to_move(int(n) if n.isdigit() else _NUMBERS[n])
        held, self.held = self.held, None
        restore: tuple[PlacedLine | None, int] | None = held  # after a warned-against line, back to the lesson
        # below, cast(PlacedLine, self.line): a move was followed or found in path(), so there is a line
        again = False  # the mention before was a move played earlier, said again
        for n, said in enumerate(saids):
            m = said.mention
            seg = seg_at(m.end - 1)  # when the square was said: a move's words may start a segment earlier
            if said.kind == "avoid" and restore is None:
                restore = (self.line, self.ply)
            if said.role == "hypothetical":
                continue  # a rule about when to play a move, not the move
            if said.role == "instead_of":
                k = self.played_at(m, strict=False, ahead=True)
                if k is not None:
                    self.ply, self.last = k, (cast(PlacedLine, self.line), k)
                continue
            self.go_to_number(m)
            self.said_at[(self.sentence_at, n)] = tuple(self.path())
            bridge = self.bridges.get((self.sentence_at, n))
            lost_moves = () if bridge is None else bridge if isinstance(bridge, tuple) else (bridge,)
            for lost in lost_moves:
                if not self.board(self.path()).is_legal(lost):
                    break
                self.play(lost, _Said(m, "move"), quote, seg)  # bridging.py's lost move(s) before this one
            if m.number_glued and m.move_number is not None \
                    and self.ply not in (2 * m.move_number - 2, 2 * m.move_number - 1):
                # a number heard run into its square ("3d3") is a guess: only for the ply it is said at
                self.dropped.append((self.sentence_at, n))
                continue
            if said.role == "offered":
                if resolve(m, self.board(self.path())) is None and self.alternative(said, quote, seg):
                    continue
                said = dataclasses.replace(said, role="move")
            if said.role in ("alternative", "suppose") and self.alternative(said, quote, seg):
                continue
            board = self.board(self.path())
            move = resolve(m, board, following=_upcoming(saids[n + 1 :], then))
            move = _mated_by_next(m, board, move, _upcoming(saids[n + 1 :], None, 1))
            if move is None and said.role == "move":
                move = _untie(m, board, _upcoming(saids[n + 1 :], then, _CONFIRM))
            if move is None and said.role == "move" and n and self.last is not None:
                move = _mirrored(m, board, saids[n - 1].mention, self.last, text)
            if (
                move is not None
                and move not in m.candidates(board, sound_alikes=False)
                and self.played_at(m, exact=True) is not None
                and not _in_book(board, move)
            ):
                # "pawn to e5" as heard names the e5 played before; a sound-alike new move ("g5")
                # wins over that repeat only when it stays in opening theory
                move = None
            if said.role == "reference":
                self.repeated.add((self.sentence_at, n))  # where to go on from: heard as said
                if move is not None and self.follow(move):
                    if said.kind != "move":
                        self.emit(cast(PlacedLine, self.line), self.ply - 1, said, quote, seg)
                    continue
                k = self.played_at(m)
                if k is not None:
                    self.ply, self.last = k + 1, (cast(PlacedLine, self.line), k)
                    if said.kind != "move":
                        self.emit(cast(PlacedLine, self.line), k, said, quote, seg)
                    continue
                if move is None and (found := self.played_elsewhere(m)) is not None:
                    line, k = found
                    self.line, self.ply, self.fresh, self.last = line, k + 1, False, (line, k)
                    if said.kind != "move":
                        self.emit(line, k, said, quote, seg)
                    continue
                if move is None:
                    # "after c takes g5" for cxd5: a reference that names nothing played here or
                    # elsewhere, nor a move, was misheard; it may be heard again (rehearing.py)
                    self.repeated.discard((self.sentence_at, n))
            if move is not None:
                self.play(move, said, quote, seg)
                continue
            k = self.played_at(m)  # said again, or advice about a move already played
            if k is not None and m.move_number is not None and k // 2 + 1 != m.move_number:
                k = None  # "5, c3" where c3 was move three: said with another number, not said again
            if (k is None or k == self.ply - 2) and said.role == "move" and said.kind == "move" \
                    and _DEVELOP.search(text[saids[n - 1].mention.end if n else 0 : m.start]) \
                    and (developed := self.developed_two_back(m)) is not None:
                swap, events, move = developed
                if swap is not None:
                    self.replay_two_back(self.ply - 2, swap, events, m)
                self.play(move, said, quote, seg)
                again = False
                continue
            if k is not None:
                self.repeated.add((self.sentence_at, n))
                self.last = (cast(PlacedLine, self.line), k)
                if said.kind != "move":
                    self.emit(cast(PlacedLine, self.line), k, said, quote, seg)
            elif said.kind != "move":
                if not self.alternative(said, quote, seg):
                    self.dropped.append((self.sentence_at, n))
            elif (
                said.role == "move"
                and restore is not None
                and restore is not held
                and n
                and _TURNS_AWAY.search(text[saids[n - 1].mention.end : m.start])
                and (move := self.resumes(restore, m))
            ):
                # "Black must not take back on e4; first, d6 kicks the knight": a move the line
                # warned against in this sentence cannot go on with, said after words that turn away
                # from it, is the lesson's, from where that line left it
                (self.line, self.ply), restore = restore, None
                self.play(move, said, quote, seg)
            elif said.role == "move" and (move := self.replaces_last(said, _said_next(saids[n + 1 :]))):
                self.ply -= 1
                self.play(move, said, quote, seg)
            elif said.role == "move" and not again and (gap := self.lost_ply(m, _said_next(saids[n + 1 :]))):
                self.play(gap, _Said(m, "move"), quote, seg)
                # lost_ply chose `gap` because `m` names a move after it
                self.play(cast(chess.Move, resolve(m, self.board(self.path()))), said, quote, seg)
            elif said.role == "move" and (pair := self.lost_move(m, _said_next(saids[n + 1 :]))):
                for gap in pair:
                    self.play(gap, _Said(m, "move"), quote, seg)
                # lost_move chose the pair because `m` names a book move after it
                following = _said_next(saids[n + 1 :])[:_LOOKAHEAD]
                self.play(cast(chess.Move, resolve(m, self.board(self.path()), following=following)), said, quote, seg)
            elif said.role == "move" and again:
                # "pawn to e5 [played before], white can play knight to c3 [fits nowhere here]": an
                # "instead of" lost to speech recognition; the move replaces the one said again
                if not self.alternative(said, quote, seg):
                    self.dropped.append((self.sentence_at, n))
            else:
                self.dropped.append((self.sentence_at, n))
            again = k is not None and said.kind == "move"
        cut = opens and then is not None and resolve(then, self.board(self.path())) is not None
        if restore is not None and held is None and cut:
            # "... because knight takes d4. | Queen takes d4, and bishop to b5 check": a sentence that
            # opens with a move continuing the warned-against line is that line's end, cut off by
            # speech recognition's full stop; the lesson resumes after it
            self.held = restore
        elif restore is not None:
            self.line, self.ply = restore


def _lost_before(board: chess.Board, mention: Mention, following: tuple[Mention, ...]) -> chess.Move | None:
    """`_Tracker.lost_ply` at ``board`` (its path's), worked out (not remembered)."""
    book = openings.board_in_book(board)
    by_book, by_sentence = [], []
    for gap in board.legal_moves:
        book_gap = book and _in_book(board, gap)
        if not book_gap and len(following) < _GAP_CONFIRM:
            continue
        board.push(gap)
        move = resolve(mention, board)
        if move is not None:
            board.push(move)
            fits = _fits(board, following)  # the moves said next must follow from it too
            board.pop()
            if book_gap and _in_book(board, move) and fits:
                by_book.append(gap)
            if len(following) >= _GAP_CONFIRM and fits:
                by_sentence.append(gap)
        board.pop()
    titled = _TITLED.get()
    for found in (by_book, by_sentence):
        if len(found) > 1 and mention.earlier_piece is not None:
            # "black the [other] knight, then pawn to d4": the lost move was the knight's
            found = [gap for gap in found if board.piece_type_at(gap.from_square) == mention.earlier_piece]
        if len(found) > 1 and titled:  # of several, those on the line the lesson is titled after
            found = [gap for gap in found if _epd_after(board, gap) in titled] or found
        if len(found) == 1:
            return found[0]
    return None


def _lost_pair(board: chess.Board, mention: Mention, following: tuple[Mention, ...]
               ) -> tuple[chess.Move, chess.Move] | None:
    """`_Tracker.lost_move` at ``board`` (its path's), worked out (not remembered)."""
    if not openings.board_in_book(board):
        return None
    found = []
    for first in [gap for gap in board.legal_moves if _in_book(board, gap)]:
        with _played(board, first):
            for second in [gap for gap in board.legal_moves if _in_book(board, gap)]:
                with _played(board, second):
                    move = resolve(mention, board, following=following[:_LOOKAHEAD])
                    if move is not None and _in_book(board, move):
                        with _played(board, move):
                            nxt = resolve(following[0], board, following=following[1:_LOOKAHEAD + 1])
                            if nxt is not None and _in_book(board, nxt) and _fits(board, following):
                                found.append((first, second))
    return found[0] if len(found) == 1 else None


def _heard_again(mention: Mention) -> Mention:
    """``mention`` weighed with its sound-alike squares, as one said with a piece and a move word is: a
    bare square stays a pawn's."""
    return dataclasses.replace(mention, piece=chess.PAWN if mention.piece is None else mention.piece, cue=True)


def _leaves_home(board: chess.Board, move: chess.Move) -> bool:
    """Whether ``move`` brings a piece off the square it started the game on (no move has touched it)."""
    start = chess.Board().piece_at(move.from_square)
    return start is not None and start == board.piece_at(move.from_square) and not any(
        move.from_square in (played.from_square, played.to_square) for played in board.move_stack)


def _mirrored(mention: Mention, board: chess.Board, before: Mention, last: tuple[PlacedLine, int],
              text: str) -> chess.Move | None:
    """ "both sides develop their [garbled bishops] to d3 and d6": a bare square joined by "and" to the
    move just placed, on its square's mirror (same file, the other side's rank), is the other side's
    same piece going there, where that piece can and nothing else fits."""
    line, index = last
    if not mention.bare or len(mention.targets) != 1 or index >= len(line.moves):
        return None
    played, square = line.moves[index], next(iter(mention.targets))
    if square != chess.square_mirror(played.to_square) or not _JOINED.fullmatch(text[before.end : mention.start]):
        return None
    piece = _Tracker.board(line.moves[:index + 1]).piece_type_at(played.to_square)
    moves = [move for move in board.legal_moves
             if move.to_square == square and board.piece_type_at(move.from_square) == piece]
    return moves[0] if len(moves) == 1 else None


def _upcoming(rest: list[_Said], then: Mention | None, limit: int = _LOOKAHEAD) -> tuple[Mention, ...]:
    """The next `limit` moves said from the cursor on: up to a mention that may move the cursor
    elsewhere (a reference, an alternative), else on into the next sentence's first move."""
    ahead = []
    for said in rest:
        if said.role != "move":
            break
        ahead.append(said.mention)
    else:
        if then is not None:
            ahead.append(then)
    return tuple(ahead[:limit])


def _said_next(rest: list[_Said]) -> tuple[Mention, ...]:
    """The moves said next in the sentence (up to `_CONFIRM`, up to one that may move the cursor),
    that a repair must explain too; else the next mention alone."""
    return _upcoming(rest, None, _CONFIRM) or tuple(said.mention for said in rest[:1])

