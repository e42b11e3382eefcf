"""ECO codes and names for positions, so a lesson's lines land in the right chapter and section.

Names come from the lichess chess-openings list (CC0, shipped in ``data/``). They are keyed by the
position a line reaches (EPD), not by its move order, so a transposition gets the same name as
the main move order.
"""

from __future__ import annotations

import csv
import io
import threading
from dataclasses import dataclass
from importlib import resources

import chess

__all__ = ["Opening", "classify", "family", "lookup", "variation"]


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


def _load() -> dict[str, Opening]:
    """EPD -> Opening for every row, built once on first use (about a second)."""
    global _index
    with _lock:
        if _index is None:
            boards: dict[tuple[str, ...], chess.Board] = {(): chess.Board()}
            index: dict[str, Opening] = {}
            data = resources.files(__package__).joinpath("data")
            for letter in "abcde":
                text = data.joinpath(f"{letter}.tsv").read_text(encoding="utf-8")
                for row in csv.DictReader(io.StringIO(text), delimiter="\t"):
                    sans = tuple(tok for tok in row["pgn"].split() if not tok[0].isdigit())
                    k = next(k for k in range(len(sans), -1, -1) if sans[:k] in boards)
                    board = boards[sans[:k]].copy(stack=False)
                    for san in sans[k:]:
                        board.push_san(san)
                    boards[sans] = board
                    index.setdefault(board.epd(), Opening(row["eco"], row["name"], row["pgn"]))
            _index = index
        return _index


def lookup(epd: str) -> Opening | None:
    """The opening named by exactly this position (EPD or FEN), or None."""
    board, _ = chess.Board.from_epd(" ".join(epd.split()[:4]))
    return _load().get(board.epd())


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
