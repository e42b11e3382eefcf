"""Chess words for speech recognition and for telling a chess lesson from any other tutorial."""

import re

import chess

from .moves import find_moves

__all__ = ["HOTWORDS", "INITIAL_PROMPT", "looks_like_chess"]

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

# faster-whisper's ``hotwords``: the words a spoken move is made of, added to every window's prompt.
HOTWORDS = "knight bishop rook queen king pawn takes castles kingside queenside a b c d e f g h"

# The move-list prompt invites Whisper to loop ("knight to f3, knight to f3, ..." for 40 s of a
# lesson): no 6-token run may repeat within a window. Real narration repeats a move (5 tokens:
# " knight to f3,") but rarely the word after it too. bench/chess_voices.py, design voices and
# lessons: espeak-ng en-us 76.3% -> 92.5% of plies, flite slt 97.8% -> 97.8%, spurious 15 -> 3.
DECODING = {"no_repeat_ngram_size": 6}

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

    Square-like tokens are no evidence by themselves (a hex dump's "d4 c3 b2 a1", a command
    line's "a1 a2"): moves count only as far as they make a legal sequence from the starting
    position, and a word only chess uses (pawn, gambit, Sicilian ...) or pieces moved in that
    sequence ("Nf3", "the knight to f3") must be there too. Words chess
    shares with everyday English (king, check, attack) count half. The signal must be dense enough
    that one aside in a long talk about something else does not count.
    """
    words = len(text.split())
    if not words:
        return False
    strong = len(_STRONG.findall(text))
    board = chess.Board()
    played = pieces = 0
    for move, _ in find_moves(board, text):
        pieces += board.piece_type_at(move.from_square) != chess.PAWN
        played += 1
        board.push(move)
    if not strong and pieces < 2:  # bare squares alone ("e4 e5 f3 c6" in a hex dump) are no game
        return False
    score = 2 * played + strong + 0.5 * len(_WEAK.findall(text))
    return score >= 4 and score >= words / 40
