"""ECO codes and names for positions, so a lesson's lines land in the right chapter and section.

Names come from the lichess chess-openings list (CC0, shipped in ``data/``). They are keyed by the
position a line reaches (EPD), not by its move order, so a transposition gets the same name as
the main move order.
"""

from __future__ import annotations

import csv
import functools
import io
import re
import threading
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources

import chess

__all__ = ["Opening", "by_occupancy", "classify", "family", "in_book", "lookup", "named_in", "path_to",
           "variation"]


@dataclass(frozen=True)
class Opening:
    """One named line of the list: its ECO code, full name, and the moves that define it."""

    eco: str
    name: str
    pgn: str

    @property
    def family(self) -> str:
        return family(self.name)

    @property
    def variation(self) -> str | None:
        return variation(self.name)


def family(name: str) -> str:
    """The opening family, the part before ':' ("Sicilian Defense"): a chapter of the book."""
    return name.split(":", 1)[0].strip()


def variation(name: str) -> str | None:
    """The first variation after ':' ("Najdorf Variation"): a section; None for a bare family."""
    if ":" not in name:
        return None
    return name.split(":", 1)[1].split(",", 1)[0].strip()


_lock = threading.Lock()
_index: dict[str, Opening] | None = None
_book: frozenset[str] = frozenset()
#: the squares the pieces of each position of ``_book`` stand on (occupied bitboards)
_book_squares: frozenset[int] = frozenset()


def _load() -> dict[str, Opening]:
    """EPD -> Opening for every row, and every position on the way, built once on first use (about
    a second). Once built, read without the lock: placing a lesson asks hundreds of thousands of times."""
    global _index, _book, _book_squares
    if _index is not None:
        return _index
    with _lock:
        if _index is None:
            index: dict[str, Opening] = {}
            book, squares = {chess.Board().epd()}, {chess.Board().occupied}
            for opening, _, board, last in _walk_rows():
                book.add(board.epd())
                squares.add(board.occupied)
                if last:
                    index.setdefault(board.epd(), opening)
            _book, _book_squares = frozenset(book), frozenset(squares)
            _index = index  # last: a reader that finds it built finds the book built
        return _index


def _walk_rows() -> Iterator[tuple[Opening, tuple[str, ...], chess.Board, bool]]:
    """Every row's positions in the list's order: (row, its moves so far, the board after them,
    whether that is the row's own position). A row goes on from the longest row before it that
    it extends, so each move is played once; the board is the walk's own, read it at once."""
    boards: dict[tuple[str, ...], chess.Board] = {(): chess.Board()}
    for opening in _load_rows():
        sans = tuple(tok for tok in opening.pgn.split() if not tok[0].isdigit())
        k = next(k for k in range(len(sans), -1, -1) if sans[:k] in boards)
        board = boards[sans[:k]].copy(stack=False)
        if k == len(sans):  # the same moves as a row before it
            yield opening, sans, board, True
        for n, san in enumerate(sans[k:], k + 1):
            board.push_san(san)
            yield opening, sans[:n], board, n == len(sans)
        boards[sans] = board


def lookup(epd: str) -> Opening | None:
    """The opening named by exactly this position (EPD or FEN), or None."""
    return _load().get(_normal(epd))


@functools.lru_cache(maxsize=1 << 16)
def _normal(epd: str) -> str:
    """A position's EPD (or FEN) as ``Board.epd()`` writes it: its first four fields read and written
    again (a FEN's en passant square stands only where a capture there is legal). Cached: placing a
    lesson and naming its lines ask of the same few hundred positions again and again."""
    board, _ = chess.Board.from_epd(" ".join(epd.split()[:4]))
    return board.epd()


#: EPDs of positions already written out, by :func:`_key`: ``Board.epd()`` costs ~40 µs, and
#: placing a lesson's moves asks it of the same few hundred positions tens of thousands of times
_EPDS: dict[tuple, str] = {}
_EPDS_KEPT = 1 << 16  # emptied when full (~10 MB)


def _key(board: chess.Board) -> tuple:
    """What a position's EPD is made of: its pieces, the side to move, castling rights and the en
    passant square (before EPD's check that a capture there is legal, so two keys may share an EPD)."""
    return (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
            board.occupied_co[chess.WHITE], board.turn, board.castling_rights, board.ep_square)


def epd(board: chess.Board) -> str:
    """``board.epd()``, remembered."""
    key = _key(board)
    found = _EPDS.get(key)
    if found is None:
        if len(_EPDS) >= _EPDS_KEPT:
            _EPDS.clear()
        found = _EPDS[key] = board.epd()
    return found


def board_in_book(board: chess.Board) -> bool:
    """:func:`in_book` of a board. The squares its pieces stand on are looked up first: most positions
    a lesson's guesses try are no book position's, and writing a new one's EPD costs ~40 µs."""
    _load()
    return board.occupied in _book_squares and epd(board) in _book


def in_book(epd: str) -> bool:
    """Whether some line of the list passes through this position, named or not (1. e4 e6 2. d4 d5
    3. e5 c5 4. c3 Nc6 5. Nf3 Qb6 has no row of its own, yet 6. a3 and 6. Bd3 do): opening theory
    a lesson is likely to walk through, the prior that speech recognition's guesses are weighed by."""
    _load()
    return _normal(epd) in _book


def by_occupancy(occupied: int) -> tuple[chess.BaseBoard, ...]:
    """The positions of opening theory whose pieces stand on exactly the squares of `occupied` (a
    bitboard): what a board reader that sees only where pieces stand can name, and so learn what
    each piece looks like from. Mostly one or none (11 of 7,838 such sets are two positions')."""
    return tuple(chess.BaseBoard(fen) for fen in _placements()[1].get(occupied, ()))


def path_to(board_fen: str) -> tuple[str, ...] | None:
    """The moves (SAN) from the start of a line of the list that reaches a position with these
    pieces (a ``Board.board_fen()``), the first line to reach it; None when none does. A video
    that opens on a position of theory is followed from there, its side to move and castling
    rights those of that line."""
    return _placements()[0].get(board_fen)


_placements_lock = threading.Lock()  # a board reader's thread and an ingest's may ask first at once


def _placements() -> tuple[dict[str, tuple[str, ...]], dict[int, tuple[str, ...]]]:
    """``_built_placements``, built by one thread while another waits."""
    with _placements_lock:
        return _built_placements()


@functools.lru_cache(maxsize=1)
def _built_placements() -> tuple[dict[str, tuple[str, ...]], dict[int, tuple[str, ...]]]:
    """Every position on the list's lines, by its pieces: placement -> the SAN moves of the first
    line reaching it, and occupied bitboard -> the placements with it. Built once when a board
    reader first needs it (~1 s; not in ``_load``, which every chess lesson pays for)."""
    paths: dict[str, tuple[str, ...]] = {chess.STARTING_BOARD_FEN: ()}
    occupancies: dict[int, set[str]] = {chess.Board().occupied: {chess.STARTING_BOARD_FEN}}
    for _, sans, board, _ in _walk_rows():
        placement = board.board_fen()
        if placement not in paths:
            paths[placement] = sans
            occupancies.setdefault(board.occupied, set()).add(placement)
    return paths, {occupied: tuple(sorted(fens)) for occupied, fens in occupancies.items()}


#: words of an opening's name that say what kind of line it is, not which: a title saying "Defense"
#: names no opening
_KIND_WORDS = frozenset({"defense", "defence", "opening", "game", "variation", "attack", "system", "main", "line",
                         "the", "of", "and", "with", "in"})
_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> frozenset[str]:
    """A name's words, lower case, accents and apostrophes dropped ("Grünfeld" and "Grunfeld",
    "King's" and "Kings" alike), hyphens parting ("Caro-Kann" and "Caro Kann" alike)."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", text.lower()) if not unicodedata.combining(c))
    return frozenset(_WORD.findall(plain.replace("'", "").replace("\u2019", "")))


@functools.lru_cache(maxsize=256)
def named_in(title: str) -> frozenset[str]:
    """The positions (EPD) along the opening lines a tutorial's title names: a lesson mostly walks
    through the opening it is titled after. A row of the list is named when every word of its name
    but the kind words (Defense, Game, Variation ...) is in the title ("Sicilian Najdorf" names
    "Sicilian Defense: Najdorf Variation"); of those, the rows naming the most words count
    ("King's Indian Defense", not "Indian Defense"). Empty when the title names none."""
    said = _words(title)
    best, lines = 0, list[str]()
    for opening, name in zip(_load_rows(), _row_names()):
        if name and name <= said and len(name) >= best:
            if len(name) > best:
                best, lines = len(name), []
            lines.append(opening.pgn)
    positions: set[str] = set()
    for pgn in lines:
        board = chess.Board()
        for san in (tok for tok in pgn.split() if not tok[0].isdigit()):
            board.push_san(san)
            positions.add(board.epd())
    return frozenset(positions)


@functools.lru_cache(maxsize=1)
def _row_names() -> tuple[frozenset[str], ...]:
    """Each row's name as ``named_in`` matches it: its words less the kind words."""
    return tuple(_words(opening.name) - _KIND_WORDS for opening in _load_rows())


@functools.lru_cache(maxsize=1)
def _load_rows() -> tuple[Opening, ...]:
    """Every row of the list, in its order (names repeat: a line with several move orders)."""
    data = resources.files(__package__).joinpath("data")
    return tuple(Opening(row["eco"], row["name"], row["pgn"])
                 for letter in "abcde"
                 for row in csv.DictReader(io.StringIO(data.joinpath(f"{letter}.tsv").read_text(encoding="utf-8")),
                                           delimiter="\t"))


def classify(board: chess.Board) -> Opening | None:
    """The most specific opening for `board`: its own position, else the latest named one before it.

    Walks back through ``board.move_stack``, so "1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6
    6. Be3 e5 7. Nb3" is still the Najdorf English Attack. A board set from a FEN has no moves to
    walk back through: only its own position can be named.
    """
    index = _load()
    b = board.copy()
    while True:
        found = index.get(b.epd())
        if found is not None or not b.move_stack:
            return found
        b.pop()
