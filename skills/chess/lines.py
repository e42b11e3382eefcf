"""Lines through a narrated lesson: every move placed in the position where it was said.

A lesson is not one game. The narrator restarts ("we start with"), branches ("instead of Bb5"),
goes back ("after 2. Nf3"), and advises ("the best move here is ..."). Moves are kept as a tree of
lines from the initial position, so each mention lands on an exact position (EPD) with the second
it was said, and the advice is kept apart from the moves that were merely played.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import cast

import chess

from tutorialbook.acquire.transcript import UNSURE, Segment
from . import openings, rehearing
from .moves import MIN_SCORE, Mention, find_mentions

__all__ = ["LineMove", "MoveEvent", "track_lines"]


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


_RESTART = re.compile(
    r"\b(?:(?:we|let's|lets|let\s+us|we'll|i'll)\s+(?:start|begin)|start(?:ing)?\s+(?:again|over|with)|"
    r"from\s+the\s+(?:starting|initial)\s+position|from\s+the\s+(?:start|beginning)|from\s+scratch|"
    r"back\s+to\s+the\s+(?:start|beginning|starting\s+position|initial\s+position)|the\s+game\s+(?:starts|begins))\b",
    re.IGNORECASE,
)
_INSTEAD_OF = re.compile(r"\binstead\s+o[fn]\b", re.IGNORECASE)  # "instead on": ASR for "instead of"
_ALTERNATIVE = re.compile(
    r"\b(?:instead|alternatively|another\s+(?:option|idea|move|possibility|try)\s+is|"
    r"(?:can|could|may|might)\s+also\s+(?:play|try|go\s+for)|also\s+possible\s+is|"
    r"(?:can|could|may|might)\s+(?:also\s+)?(?:choose|opt\s+for|prefer))\b",
    re.IGNORECASE,
)
# "going back to move two": the position where move two is played (White's or Black's, the moves say)
# "back to move two" as speech recognition writes it: "back to move to." (a number's sound-alike
# only where the sentence or clause ends on it)
_BACK_TO_MOVE = re.compile(
    r"\b(?:back|return(?:ing)?)\s+to\s+move\s+(?:number\s+)?(?:(?P<n>\d{1,3}|one|two|three|four|five|six|seven|"
    r"eight|nine|ten|eleven|twelve)\b|(?P<heard>to|too|for|won)(?=\s*(?:[.,;:!?]|$)))",
    re.IGNORECASE,
)
# "decline the gambit with bishop c5 on move two": the move said nearest it is that move number's
# (speech recognition's "on move to," as _BACK_TO_MOVE reads it)
_ON_MOVE = re.compile(
    r"\b(?:on|at|for)\s+move\s+(?:number\s+)?(?:(?P<n>\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|"
    r"eleven|twelve)\b|(?P<heard>to|too|for|won)(?=\s*(?:[.,;:!?]|$)))",
    re.IGNORECASE,
)
# a move number said before its move: "three d4", "3 d4" at a sentence's or clause's start, or after "is" or "play"
# (not "two": that is the spoken "to"); then a pause or a space, not "3d4" run together
_MOVE_NUMBER_SAID = r"(?P<n>[1-9]|1[0-9]|one|three|four|five|six|seven|eight|nine|ten|eleven|twelve)(?:\s*[,.]\s*|\s+)"
_SPOKEN_NUMBER = re.compile(rf"(?:^|[.,;:!?]|\b(?:is|play|plays|played|playing))\s*{_MOVE_NUMBER_SAID}$", re.IGNORECASE)
_LEADING_NUMBER = re.compile(_MOVE_NUMBER_SAID, re.IGNORECASE)
_NUMBERS = {w: n for n, w in enumerate("one two three four five six seven eight nine ten eleven twelve".split(), 1)}
_NUMBERS |= {"to": 2, "too": 2, "for": 4, "won": 1}
# "black can also wait with the recapture and play knight f6": words between "can also" and the
# move word (none that starts a next step: "but", "then", "first", "now"); the move offered is an
# alternative only where it cannot be played where the lesson stands
_OFFERED = re.compile(
    r"\b(?:can|could|may|might)\s+also\s+(?:(?!but\b|then\b|first\b|now\b)[a-z]+\s+){1,6}?(?:play|try|go\s+for)\b",
    re.IGNORECASE,
)
_SUPPOSE = re.compile(r"\b(?:suppose|what\s+if|imagine)\b", re.IGNORECASE)
# A move named in a rule about move order is not made: "get the bishop out before you play e3",
# "without playing e3", "if you play e3 first (too early), the bishop is locked in".
_HYPOTHETICAL = re.compile(
    r"\b(?:(?:before|until|unless)\s+(?:you|we|white|black|they|he|she)\s+(?:have\s+|has\s+)?(?:can\s+)?|"
    r"(?:before|without|instead\s+of)\s+(?=(?:playing|pushing|moving|putting|developing)\b)|"
    r"\bif\s+you\s+(?=(?:play|push|move|put|go)\b[^.;!?]*\b(?:first|too\s+early|too\s+soon|prematurely)\b))",
    re.IGNORECASE,
)
# A move named as what another move stops or runs into is not made: "knight f3, which stops queen h4
# check", "taking on e4 too early runs into queen e7" (only the mention said right after the words)
_PREVENTED = re.compile(
    r"\b(?:stops?|stopped|stopping|prevents?|prevented|preventing|threatens?|threatened|threatening|"
    r"(?:rules?|ruled|ruling)\s+out|discourages?|discouraged|discouraging|"
    r"(?:runs?|ran|running|walks?|walked|walking)\s+into)\s+(?:(?:the|a|an|any|white's|black's)\s+)*",
    re.IGNORECASE,
)
# at most one word between the cue and the move it stops: "which stops we(?) h4 check" (queen misheard)
_ONE_WORD = re.compile(r"\s*(?:[A-Za-z']+\s+)?")
# What turns from a move warned against back to the lesson: "don't take on e4; first, d6"
_TURNS_AWAY = re.compile(r";|\b(?:first|instead|rather|but|better)\b", re.IGNORECASE)
# A position referred to by the move that reached it: "after 3. Bb5", and "back to the position
# of/at the bishop to c4" (how ASR often writes a quickly said "after").
_AFTER = re.compile(r"\bafter\b|\bposition\s+(?:of|at)(?:\s+the\b)?", re.IGNORECASE)
_AFTER_GAP = re.compile(
    r"\s*(?:the\s+(?:position|moves?)\s+(?:after\s+)?)?(?:\d+\s*(?:\.\.\.|…|\.)\s*(?:\.\.\.|…)?\s*)?", re.IGNORECASE
)
_RUN_GAP = re.compile(r"\s*(?:\d+\s*(?:\.\.\.|…|\.)\s*(?:\.\.\.|…)?\s*)?")
_RECOMMEND = re.compile(
    r"\b(?:best|the\s+main\s+(?:move|line|idea)|you\s+should|should\s+play|i\s+recommend|recommended|"
    r"strongest|the\s+key\s+move|the\s+(?:right|correct)\s+move|must\s+play|a\s+(?:good|strong)\s+move)\b",
    re.IGNORECASE,
)
_AVOID = re.compile(
    r"(?:\b(?:don't|do\s+not|never|avoid|careful\s+not\s+to|(?:should|must)(?:\s+not|n't))\b|"
    r"\b(?:mistake|blunder|dubious|bad\s+move|is\s+bad)\b)",
    re.IGNORECASE,
)
_REASON = re.compile(
    r"\b(?:because(?:\s+of)?|since|as(?=\s+(?:it|this|that|the|there|he|she|they|we|you)\b)|so\s+that|"
    r"in\s+order\s+to|which|to)\b\s*",
    re.IGNORECASE,
)
_CAUSE = re.compile(r"\b(?:because(?:\s+of)?|since)\b\s*", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?]+(?=\s+[A-Z0-9\"'(]|\s*$)")
_MOVE_NUMBER_DOT = re.compile(r"(?:^|\s)\d{1,3}$")
# "After bishop. To b4, check, ...": speech recognition may end a sentence inside a move, between
# the piece and where it goes. Such a stop is no stop: it is blanked (offsets kept).
_STOP_IN_MOVE = re.compile(
    r"\b(?P<piece>pawn|knight|bishop|rook|queen|king)(?P<stop>[.!?]+)(?=\s+(?:to|takes|captures)\b)", re.IGNORECASE
)
_SUBJECT = re.compile(r"\s*(white|black)\b(?!['’]s)", re.IGNORECASE)  # a sentence opening with the side that acts
_ALTERNATIVE_REACH = 2  # how many plies back "instead"/"alternatively" may reach
# What staying in the opening book is worth, against a sound-alike's discount of 4 × (1 - 0.3) = 2.8
# (moves.py): one book move does not outweigh what was heard, two in a row do.
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
#: how many of a lesson's first sentences may name its opening when its title names none, and how
#: much of them (and of a title) is read for a name: a transcript without full stops is one sentence
_NAMING_SENTENCES = 2
_NAMING_CHARS = 500
_CONFIRM = 4  # how many moves said next a repair (a replaced or a lost move) must explain
_GAP_CONFIRM = 2  # a lost move found without opening theory needs this many of them
_LOOKAHEAD = 2  # moves said next that may confirm a guess, each resolved with those after it
_EPS = 1e-9


@dataclass
class _Line:
    id: int
    moves: list[chess.Move]
    branch_of: int | None


@dataclass
class _Said:
    """A mention in its sentence: where it was said and what role the words give it."""

    mention: Mention
    role: str  # "move", "reference", "instead_of", "alternative", "offered", "suppose", "hypothetical"
    kind: str = "move"
    reason: str = ""


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


class _Tracker:
    """The tree of lines and a cursor in it (a line and how many of its moves are played)."""

    def __init__(self) -> None:
        self.lines: list[_Line] = []
        self.line: _Line | None = None
        self.ply = 0
        self.fresh = True  # at the initial position after a restart: a new first move starts a new line
        self.last: tuple[_Line, int] | None = None  # the last move spoken about: its line and index
        self.seen: dict[str, tuple[int, tuple[chess.Move, ...]]] = {}
        self.events: list[MoveEvent] = []
        self.held: tuple[_Line | None, int] | None = None  # a return from a warned-against line, held
        self.at_move = False  # the cursor was set by "back to move N": White's and Black's move N are both near
        self.sentence_at = 0  # the index of the sentence being placed
        self.dropped: list[tuple[int, int]] = []  # (sentence, mention) of each move said that fit nowhere
        self.repeated: set[tuple[int, int]] = set()  # (sentence, mention) naming a move played before
        self.checkpoints: list[_Tracker] = []  # after placing a whole lesson: the state before each sentence

    def copy(self) -> _Tracker:
        """This state, to go on from while it stays as it is (lines copied; events never change)."""
        twin = _Tracker.__new__(_Tracker)
        twin.__dict__.update(self.__dict__)
        twins = {id(line): _Line(line.id, list(line.moves), line.branch_of) for line in self.lines}
        twin.lines = [twins[id(line)] for line in self.lines]
        twin.line = twins[id(self.line)] if self.line is not None else None
        twin.last = (twins[id(self.last[0])], self.last[1]) if self.last is not None else None
        held = self.held
        twin.held = (twins[id(held[0])] if held[0] is not None else None, held[1]) if held is not None else None
        twin.seen, twin.events = dict(self.seen), list(self.events)
        twin.dropped, twin.repeated = list(self.dropped), set(self.repeated)
        twin.checkpoints = []
        return twin

    def book_plies(self) -> int:
        """How many of the moves placed reach a position of opening theory."""
        return sum(1 for event in self.events if openings.in_book(event.epd_after))

    def titled_plies(self) -> int:
        """How many of the moves placed reach a position of the opening the lesson is titled after."""
        titled = _TITLED.get()
        return sum(1 for event in self.events if event.epd_after in titled) if titled else 0

    # positions -----------------------------------------------------------------------------------

    def path(self) -> list[chess.Move]:
        return self.line.moves[: self.ply] if self.line else []

    @staticmethod
    def board(moves: list[chess.Move]) -> chess.Board:
        """The position after `moves`, with its move stack (a recapture needs the last move)."""
        b = chess.Board()
        for move in moves:
            b.push(move)
        return b

    @staticmethod
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
            after = board.copy()
            after.push(alt)
            if not openings.board_in_book(after):
                if alt == move:
                    values[alt] = score
                continue  # only theory may overrule what was heard
            nxt = _Tracker.resolve(following[0], after, strict, following[1:]) if following else None
            confirmed = nxt is not None and _in_book(after, nxt)
            if alt not in heard and not (mention.acted or confirmed):
                continue
            score += _BOOK_BONUS * (2 if confirmed else 1)
            if openings.epd(after) in _TITLED.get():
                score += _TITLE_BONUS
            if score >= MIN_SCORE:
                values[alt] = score
        top = max(values.values(), default=0.0)
        best = [alt for alt, value in values.items() if value > top - _EPS]
        return move if move in best or len(best) != 1 else best[0]

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
                    and self.resolve(mention, self.board(self.line.moves[:k])) is not None]
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

    def played_elsewhere(self, mention: Mention) -> tuple[_Line, int] | None:
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

    def resumes(self, restore: tuple[_Line | None, int], mention: Mention) -> chess.Move | None:
        """The move `mention` names where the lesson was before a warned-against line (``restore``)."""
        line, ply = restore
        return self.resolve(mention, self.board(line.moves[:ply] if line else []))

    def replaces_last(self, said: _Said, following: tuple[Mention, ...]) -> chess.Move | None:
        """A move that cannot follow the move just played but fits in its place, when the moves said
        next in the sentence then all fit too: the move just played was never said (speech
        recognition invents words, e.g. a phrase of its vocabulary prompt) or was misheard. Without
        a next mention to confirm it, nothing is replaced."""
        if self.line is None or not self.ply or self.last != (self.line, self.ply - 1) or not following:
            return None
        path = self.path()
        board = self.board(path[:-1])
        move = self.resolve(said.mention, board)
        if move is None or move == path[-1]:
            return None
        board.push(move)
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
        board = self.board(self.path())
        book = openings.board_in_book(board)
        by_book, by_sentence = [], []
        for gap in board.legal_moves:
            book_gap = book and _in_book(board, gap)
            if not book_gap and len(following) < _GAP_CONFIRM:
                continue
            board.push(gap)
            move = self.resolve(mention, board)
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
                self.line = _Line(len(self.lines) + 1, [*path, move], parent.id if parent else None)
                self.lines.append(self.line)
            self.ply, self.fresh, self.last = p + 1, False, (self.line, p)
        self.at_move = False
        self.emit(cast(_Line, self.line), p, said, quote, seg)  # follow() or the branch above set it

    def emit(self, line: _Line, index: int, said: _Said, quote: str, seg: Segment) -> None:
        before = self.board(line.moves[:index])
        move = line.moves[index]
        san = before.san(move)
        epd_before = openings.epd(before)
        before.push(move)
        epd_after = openings.epd(before)
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
        places: list[tuple[_Line, int]] = []
        if self.line is not None and (said.role == "suppose" or self.ply < len(self.line.moves)):
            # "suppose", or back inside a line ("go back to the position after 3. Bg5. Black can
            # also play Nbd7"): the move offered replaces the one the line continues with
            places.append((self.line, self.ply))
            if self.at_move and self.ply < len(self.line.moves):
                places.append((self.line, self.ply + 1))  # "back to move one, black can choose c5"
        if self.last is not None:
            line, index = self.last
            places += [(line, k) for k in range(index, max(index - _ALTERNATIVE_REACH, -1), -1)]
        for line, k in places:
            move = self.resolve(said.mention, self.board(line.moves[:k]))
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
        restore: tuple[_Line | None, int] | None = held  # after a warned-against line, back to the lesson
        # below, cast(_Line, self.line): a move was followed or found in path(), so there is a line
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
                    self.ply, self.last = k, (cast(_Line, self.line), k)
                continue
            self.go_to_number(m)
            if said.role == "offered":
                if self.resolve(m, self.board(self.path())) is None and self.alternative(said, quote, seg):
                    continue
                said = dataclasses.replace(said, role="move")
            if said.role in ("alternative", "suppose") and self.alternative(said, quote, seg):
                continue
            board = self.board(self.path())
            move = self.resolve(m, board, following=_upcoming(saids[n + 1 :], then))
            if move is None and said.role == "move":
                move = _untie(m, board, _upcoming(saids[n + 1 :], then, _CONFIRM))
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
                        self.emit(cast(_Line, self.line), self.ply - 1, said, quote, seg)
                    continue
                k = self.played_at(m)
                if k is not None:
                    self.ply, self.last = k + 1, (cast(_Line, self.line), k)
                    if said.kind != "move":
                        self.emit(cast(_Line, self.line), k, said, quote, seg)
                    continue
                if move is None and (found := self.played_elsewhere(m)) is not None:
                    line, k = found
                    self.line, self.ply, self.fresh, self.last = line, k + 1, False, (line, k)
                    if said.kind != "move":
                        self.emit(line, k, said, quote, seg)
                    continue
            if move is not None:
                self.play(move, said, quote, seg)
                continue
            k = self.played_at(m)  # said again, or advice about a move already played
            if k is not None:
                self.repeated.add((self.sentence_at, n))
                self.last = (cast(_Line, self.line), k)
                if said.kind != "move":
                    self.emit(cast(_Line, self.line), k, said, quote, seg)
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
                self.play(cast(chess.Move, self.resolve(m, self.board(self.path()))), said, quote, seg)
            elif said.role == "move" and again:
                # "pawn to e5 [played before], white can play knight to c3 [fits nowhere here]": an
                # "instead of" lost to speech recognition; the move replaces the one said again
                if not self.alternative(said, quote, seg):
                    self.dropped.append((self.sentence_at, n))
            else:
                self.dropped.append((self.sentence_at, n))
            again = k is not None and said.kind == "move"
        cut = opens and then is not None and self.resolve(then, self.board(self.path())) is not None
        if restore is not None and held is None and cut:
            # "... because knight takes d4. | Queen takes d4, and bishop to b5 check": a sentence that
            # opens with a move continuing the warned-against line is that line's end, cut off by
            # speech recognition's full stop; the lesson resumes after it
            self.held = restore
        elif restore is not None:
            self.line, self.ply = restore


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


def _said_next(rest: list[_Said]) -> tuple[Mention, ...]:
    """The moves said next in the sentence (up to `_CONFIRM`, up to one that may move the cursor),
    that a repair must explain too; else the next mention alone."""
    return _upcoming(rest, None, _CONFIRM) or tuple(said.mention for said in rest[:1])


def _fits(board: chess.Board, mentions: tuple[Mention, ...]) -> bool:
    """Whether each of `mentions`, in turn, names a move from `board` on (`board` is left as it was)."""
    board = board.copy()
    for mention in mentions:
        move = _Tracker.resolve(mention, board)
        if move is None:
            return False
        board.push(move)
    return True


def _in_book(board: chess.Board, move: chess.Move) -> bool:
    """Whether `move` leads to a position some opening line passes through."""
    board = board.copy(stack=False)
    board.push(move)
    return openings.board_in_book(board)


def _epd_after(board: chess.Board, move: chess.Move) -> str:
    """The position (EPD) `move` leads to (`board` is left as it was)."""
    board = board.copy(stack=False)
    board.push(move)
    return openings.epd(board)


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


def _roles(text: str) -> list[_Said]:
    """The mentions of a sentence with the role its words give each one."""
    saids: list[_Said] = []
    markers: list[tuple[int, str]] = []  # the first mention after (or around) each position takes the role
    replaced: Mention | None = None
    offered: int | None = None
    mentions = find_mentions(text)
    instead = _INSTEAD_OF.search(text)
    contrast = instead is not None and _contrasts_an_action(text, mentions, instead)
    if instead and not contrast:
        # The replaced move is often a bare square ("instead of e5"), which running narration
        # reads as a place; here it is known to be a move.
        clause_end = text.find(",", instead.end())
        objects = find_mentions(text[instead.end() : clause_end if clause_end >= 0 else len(text)], strict=False)
        if objects:
            replaced = objects[0]
            replaced.start, replaced.end = replaced.start + instead.end(), replaced.end + instead.end()
            saids.append(_Said(replaced, "instead_of"))
        offered = _offered_before(text, mentions, instead.start())
        markers.append((offered if offered is not None else (replaced.end if replaced else instead.end()),
                        "alternative"))
    markers += [
        (m.start(), "alternative")
        for m in _ALTERNATIVE.finditer(text)
        if not (instead and m.start() == instead.start())
    ]
    markers += [(m.start(), "offered") for m in _OFFERED.finditer(text)]
    markers += [(m.start(), "suppose") for m in _SUPPOSE.finditer(text)]
    markers += [(m.start(), "hypothetical") for m in _HYPOTHETICAL.finditer(text)]
    markers += [(m.start(), "hypothetical") for m in _PREVENTED.finditer(text)
                if any(m.start() < said.start and _ONE_WORD.fullmatch(text[m.end() : said.start]) for said in mentions)]
    afters = [m.end() for m in _AFTER.finditer(text)]
    previous_end, in_run = 0, False
    for m in mentions:
        if replaced and m.start < replaced.end and m.end > replaced.start:
            previous_end = m.end
            continue
        role = next((r for pos, r in markers if previous_end <= pos < m.end), None)  # may sit in its prefix
        in_run = any(previous_end <= a <= m.start and _AFTER_GAP.fullmatch(text[a : m.start]) for a in afters) or (
            in_run and _RUN_GAP.fullmatch(text[previous_end : m.start]) is not None
        )
        saids.append(_Said(m, role or ("reference" if in_run else "move")))
        previous_end = m.end
    # in reading order, but the move replaced first: "c5 instead of knight f6" plays c5 where f6 was
    saids.sort(key=lambda s: offered - 0.5 if s.role == "instead_of" and offered is not None else s.mention.start)
    subject = _SUBJECT.match(text)
    first = next((s for s in saids if s.role == "move"), None)
    if (
        subject
        and first is not None
        and first.mention.side is None
        and first.mention.earlier_piece is None  # "black the other knight, then pawn to d4": not d4's
        and first.mention.start > subject.end()
    ):
        # "White attacks f7, knight to g5": the sentence's subject makes its first move
        first.mention.side = chess.WHITE if subject.group(1).lower() == "white" else chess.BLACK
    _advice(text, [s for s in saids if s.role != "instead_of"])
    _number_said(text, saids)
    _number_before(text, saids)
    return saids


def _number_before(text: str, saids: list[_Said]) -> None:
    """ "A second try for White is three d4": a move number said without its full stop right before
    a move, at the start of a sentence or clause or after "is"/"play", numbers that move."""
    for said in saids:
        if said.mention.move_number is None and said.role != "instead_of":
            lead = _LEADING_NUMBER.match(said.mention.text)  # "three d4": the number read as the move's prefix
            if number := _SPOKEN_NUMBER.search(text[: said.mention.start + (lead.end() if lead else 0)]):
                n = number.group("n").lower()
                said.mention.move_number, said.mention.black = int(n) if n.isdigit() else _NUMBERS[n], None


def _number_said(text: str, saids: list[_Said]) -> None:
    """Give "on move two" to the mention said nearest it that carries no number of its own; which
    side's move two it is, the board tells (``_Tracker.go_to_number``)."""
    for on in _ON_MOVE.finditer(text):
        near = [s for s in saids if s.role != "instead_of" and s.mention.move_number is None]
        if not near:
            return
        said = min(near, key=lambda s: max(on.start() - s.mention.end, s.mention.start - on.end(), 0))
        number = (on.group("n") or on.group("heard")).lower()
        said.mention.move_number, said.mention.black = int(number) if number.isdigit() else _NUMBERS[number], None


def _contrasts_an_action(text: str, mentions: list[Mention], instead: re.Match[str]) -> bool:
    """ "Instead of defending, black counterattacks with knight f6": "instead of" before an action
    that names no move (a verb in -ing, not "castling") sets what follows against that action, not
    against a move; the move said is the line's next, not an alternative to an earlier one."""
    clause_end = text.find(",", instead.end())
    clause = text[instead.end() : clause_end if clause_end >= 0 else len(text)]
    return (
        re.match(r"\s*[a-z]+ing\b", clause, re.IGNORECASE) is not None
        and not find_mentions(clause, strict=False)
        and _offered_before(text, mentions, instead.start()) is None
    )


def _offered_before(text: str, mentions: list[Mention], instead_at: int) -> int | None:
    """Where the move offered sits when it comes before "instead of" in the same clause ("if black
    plays c5 instead of knight f6, ..."): the alternative is that move, not the one after."""
    before = [m for m in mentions if m.end <= instead_at and not text[m.end : instead_at].strip(" ,")]
    return before[-1].start if before else None


def _advice(text: str, saids: list[_Said]) -> None:
    """Mark the mention each recommendation or warning is about, with the narrator's reason."""
    cues = sorted(
        [(m.start(), m.end(), "recommend") for m in _RECOMMEND.finditer(text)]
        + [(m.start(), m.end(), "avoid") for m in _AVOID.finditer(text)]
    )
    for n, (start, end, kind) in enumerate(cues):
        next_cue = cues[n + 1][0] if n + 1 < len(cues) else len(text)
        target = next((s for s in saids if end <= s.mention.start < next_cue), None)
        if target is None:
            target = next((s for s in reversed(saids) if s.mention.end <= start), None)
        if target is not None and target.kind == "move":
            target.kind = kind
            target.reason = _reason(text, target.mention, [s.mention for s in saids])


def _reason(text: str, mention: Mention, mentions: list[Mention]) -> str:
    """The words after "because", "to", "which" ... that follow the advised move, else the sentence."""
    for m in _REASON.finditer(text, mention.end):
        if any(o.start <= m.start() < o.end for o in mentions):
            continue  # the "to" of "knight to f3"
        reason = text[m.end() :].strip().rstrip(".!?").strip()
        if reason:
            return reason
    cause = _CAUSE.search(text)
    if cause and text[cause.end() :].strip():
        return text[cause.end() :].split(",")[0].strip().rstrip(".!?")
    return text.strip()


def _titled_guesses(mention: Mention, board: chess.Board, heard: set[chess.Move]) -> list[tuple[float, chess.Move]]:
    """What a square said without its piece or "to" may have been, read loosely (a rhyming file,
    another piece: "gains time with knight c3" heard "without c3"), where that reaches a position
    of the opening the lesson's title names. Weighed as sound-alikes are, so it wins only where
    what was heard lacks theory's confirmation (``_Tracker.resolve``)."""
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
        return rehearing.best(saids, lambda heard, until, resume: _place(sentences, heard, until, resume)).events
    finally:
        _TITLED.reset(token)
        _BY_TITLE.reset(by_title)


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
           until: int | None = None, resume: tuple[_Tracker, int] | None = None) -> _Tracker:
    """Every sentence's mentions placed in turn (``saids``: the mentions of each sentence), or
    those of the sentences up to ``until``. ``resume`` is a whole lesson placed before and a
    sentence from which on ``saids`` may differ: its state before that sentence is gone on from.
    A whole lesson placed keeps the state before each sentence (``checkpoints``)."""
    saids = [*saids, []]
    tracker, start, marks = _Tracker(), 0, []
    if resume is not None:
        base, start = resume
        tracker, marks = base.checkpoints[start].copy(), base.checkpoints[:start]
    for n in range(start, len(sentences)):
        if until is not None and n > until:
            break
        if until is None:
            marks.append(tracker.copy())
        text, quote, seg_of = sentences[n]
        first = saids[n + 1][0] if saids[n + 1] else None
        continues = first is not None and first.role == "move" and not _RESTART.search(sentences[n + 1][0])
        then = first.mention if continues and first is not None else None
        opens = then is not None and not sentences[n + 1][0][: then.start].strip()  # nothing said before it
        tracker.sentence_at = n
        tracker.sentence(text, quote, seg_of, saids[n], then, opens)
    tracker.checkpoints = marks if until is None else []
    return tracker
