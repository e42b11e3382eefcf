"""Chess words for speech recognition and for telling a chess lesson from any other tutorial."""

import re

from .moves import find_mentions

__all__ = ["INITIAL_PROMPT", "looks_like_chess"]

# faster-whisper conditions its first window on this text: with it, tiny.en writes "knight to f3"
# where it otherwise hears "night to F3" or "point 24". The moves are a legal game, written the way
# `moves.find_moves` reads them, so what the model imitates is what the parser expects.
INITIAL_PROMPT = (
    "Chess lesson. Pawn to e4, pawn to e5, knight to f3, knight to c6, bishop to b5, pawn to a6, "
    "bishop takes c6, d takes c6, castles kingside, pawn to f6, pawn to d4, e takes d4, knight takes d4, "
    "pawn to c5, knight to b3, queen takes d1, rook takes d1. Check, checkmate, castles queenside, "
    "en passant, promotes to a queen. The Sicilian Defense, the Ruy Lopez, the Queen's Gambit, "
    "the King's Indian, the French Defense and the Caro-Kann."
)

_STRONG = re.compile(
    r"\b(?:chess|pawns?|knights?|bishops?|rooks?|checkmates?|stalemate|gambit|fianchetto|en passant|"
    r"sicilian|ruy lopez|caro[- ]kann|najdorf|grandmaster|endgame|middlegame|kingside|queenside)\b",
    re.IGNORECASE,
)
_WEAK = re.compile(
    r"\b(?:kings?|queens?|check|castles?|castling|opening|defen[cs]e|attack|variation|moves?)\b", re.IGNORECASE
)


def looks_like_chess(text: str) -> bool:
    """True when `text` reads as chess narration, for choosing the domain pack automatically.

    Moves count most (a parsed mention such as "knight to f3"), then words only chess uses,
    then words chess shares with everyday English (king, check, attack). The signal must also be
    dense enough that one aside in a long talk about something else does not count.
    """
    words = len(text.split())
    if not words:
        return False
    score = 2 * len(find_mentions(text)) + len(_STRONG.findall(text)) + 0.5 * len(_WEAK.findall(text))
    return score >= 4 and score >= words / 40
