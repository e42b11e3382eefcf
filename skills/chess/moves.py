"""Spoken chess moves to legal moves.

Narrators say one move many ways ("knight to f3", "Nf3", "the knight goes to f3") and speech
recognition adds its own errors ("night to F3", "pawn to 84", "before" for b4). A grammar would
break on these, so a phrase is reduced to the features it carries (piece, target square, source
hints, capture, check, castling side, promotion) and, of the legal moves of the board, the one
that explains those features best wins. Nothing plausible, or a tie, is a refusal: a wrong move
would corrupt every position after it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import chess

from tutorialbook.acquire.transcript import UNSURE

__all__ = ["MIN_SCORE", "Mention", "find_mentions", "find_moves", "parse_spoken_move"]

# --- tokens -------------------------------------------------------------------------------------

_TOKEN = re.compile(
    # the mark a transcript puts after a word the ASR was unsure of: skipped, the word still counts
    rf"(?P<unsure>{re.escape(UNSURE)})"
    r"|(?P<castle>(?<![\w-])[Oo0]-[Oo0](?P<long>-[Oo0])?(?P<cchk>[+#])?(?![\w-]))"
    # SAN, UCI and bare squares. A lower-case piece letter counts only where a file letter cannot
    # be meant ("nf3"; "bc4" but not "bxc4", which is a pawn capture).
    r"|(?P<san>(?<![A-Za-z0-9])(?P<piece>[KQRBN]|[nrqk](?=[a-h]?[1-8]?[x×:]?[a-hA-H][1-8])|b(?=[a-h][1-8]))?"
    r"(?P<ff>[a-h])?(?P<fr>[1-8])?(?P<x>[x×:])?(?P<sq>[a-hA-H][1-8])(?:=?(?P<promo>[QRBNqrbn]))?"
    r"(?P<chk>[+#])?(?![A-Za-z0-9]))"
    r"|(?P<movenum>(?<![\w.])\d{1,3}(?:\.\.\.|…|\.))"
    r"|(?P<dots>\.\.\.|…)"
    r"|(?P<word>[A-Za-z]+(?:['’][A-Za-z]+)?)"
    r"|(?P<number>\d+)"
    r"|(?P<sym>[+#=,;:!?().])"
)

_PIECE_WORDS = {
    chess.PAWN: "pawn pawns pon paun porn",
    chess.KNIGHT: "knight knights night nights nite knite height heights",
    chess.BISHOP: "bishop bishops bishup bishap",
    chess.ROOK: "rook rooks rock rocks brook ruk",
    chess.QUEEN: "queen queens",
    chess.KING: "king kings",
}
_PIECES = {w: p for p, words in _PIECE_WORDS.items() for w in words.split()}
_PLURAL_PIECES = {"knights", "bishops", "rooks"}  # a bare square is a pawn's already
_PIECE_LETTERS = {
    "p": chess.PAWN,
    "n": chess.KNIGHT,
    "b": chess.BISHOP,
    "r": chess.ROOK,
    "q": chess.QUEEN,
    "k": chess.KING,
}

_WORD_KINDS = {
    "capture": (
        "takes take took taking captures capture captured capturing grabs grab x swaps swap swapped "
        "exchanges exchange exchanged trades trade traded"
    ),
    "recapture": "recaptures recapture recaptured recapturing retakes retake retook",
    "check": "check checks czech cheque chek",
    "mate": "checkmate checkmates mate mates",
    "castle": "castles castle castled castling castel castels canceling cancelling",
    "promote": "promotes promote promoted promoting promotion becomes equals underpromotes underpromote",
    "to": "to too into onto",
    "on": "on at",
    "from": "from",
    "with": "with",
    "verb": (
        "play plays played playing go goes going went move moves moved moving jump jumps jumped "
        "come comes came develop develops developed developing push pushes pushed pushing advance "
        "advances advanced retreat retreats retreated put puts bring brings reply replies replied "
        "answer answers answered respond responds responded continue continues continued place "
        "places placed placing drops drop dropped heads head headed lands landed returns return returned "
        "swings swung slides slid hops hopped reroutes rerouted "
        # every form of each: a narrator's tense or aspect says nothing about whether a move is made
        "gone coming jumping retreating putting bringing brought advancing answering replying responding "
        "continuing dropping heading land landing returning swing swinging slide sliding hop hopping "
        "reroute rerouting"
    ),
    "filler": (
        "the an his her its their my our your then now also simply just immediately again back "
        "directly straight can could should would might may will must and so first finally next "
        "here usually typically often normally probably we i you he she they it let lets us out "
        # which of two like pieces: "the light-squared bishop" ("other" is no filler: "black the other
        # knight, then pawn to d4" is what is left of a lost knight move before White's d4)
        "remaining light dark squared"
    ),
    "side": "kingside queenside",
}
_KIND_OF = {w: k for k, words in _WORD_KINDS.items() for w in words.split()}
_CASTLE_FORM = re.compile(r"^cast[le]{2}(?:e?s|e?d|e?ing|ings)?$")
_COLORS = {"white": chess.WHITE, "whites": chess.WHITE, "black": chess.BLACK, "blacks": chess.BLACK}
_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
# A file letter said aloud is often written as a word that sounds like it ("see 5", "be 4").
_HOMOPHONES = {
    "ay": 0,
    "be": 1,
    "bee": 1,
    "see": 2,
    "sea": 2,
    "cee": 2,
    "dee": 3,
    "ee": 4,
    "ef": 5,
    "eff": 5,
    "gee": 6,
    # the letter names' vowels heard shifted ("jay" for "gee", "say" for "see": "to j3", "to say 5")
    "j": 6,
    "jee": 6,
    "say": 2,
    "aitch": 7,
    "age": 7,
}
# Letters that are no file but whose names rhyme with the files' bee, cee, dee, ee, gee ("pee",
# "tee", "vee", "zee"): a square said on a rhyming file is written with one ("to t3" for g3, "bishop
# p2" for e2), so such a letter before a rank names any rhyming file of it, none preferred.
_RHYMING_LETTERS = set("ptvz")
_RHYMING_LETTER_WEIGHT = 0.5
_TENS = {"twenty": 2, "eighty": 8}
# Two-digit numbers that ASR writes for a spoken square: "e4" -> "84" ("ee-four" as eighty-four),
# "to e4" -> "24" ("twen-tee four"), so the tens digit carries a guess at the file.
_NUMBER_FILES = {8: {4: 0.8, 0: 0.6}, 2: {4: 0.6, **{f: 0.5 for f in (0, 1, 2, 3, 5, 6, 7)}}}
# Files whose spoken letters rhyme (bee, see, dee, ee, gee): the likeliest ASR swaps.
RHYMING_FILES = (1, 2, 3, 4, 6)
_RHYME_WEIGHT = 0.3
# "ay" and "ee", long front vowels, are the other swap: "bishop to a7" written for e7.
_VOWEL_FILES = {0: (4,), 4: (0,)}
# "takes d4" is often heard "take c4" or "takes c4": the s of "takes" and the letter after it run
# together as "see". After a spoken capture word, a c-file square may be any rhyming file.
_ABSORBED_WEIGHT = 0.6
# Any file of a heard rank, for a caller that weighs guesses by a prior: below MIN_SCORE alone.
_LOOSE_WEIGHT = 0.1
# "plays knight" heard as one word ("playsite", "playite"): a verb with the knight glued on.
_GLUED_KNIGHT = re.compile(r"^(?P<verb>[a-z]+?)(?:s?ite|s?ight|night|nite)$")
# ... or with a word that leads up to a move: "andite, c6" for "and knight c6", "isite to f5"
_GLUE_WORDS = {"and", "then", "is"}
# "the knight takes" heard as "I'd take": a knight only when a capture or "to" follows, and only
# a preference (a real "I'd take on d5" still finds the pawn that takes).
_KNIGHT_SOUNDS = {"i'd", "i"}
_PUSH_WORDS = {"push", "pushes", "pushed", "pushing", "advance", "advances", "advanced"}
# Saying "to" rather than "takes" leans toward a move to an empty square.
_QUIET_BONUS = 0.25

# Words that make a bare square a place, not a move ("the d5 square", "attacks e5").
_DESCRIPTORS = set(
    "the on at of from attacks attack attacking attacked controls control controlling defends defend "
    "defending protects protect protecting supports support supporting eyes eyeing targets target "
    "targeting toward towards against over into around via through behind near weak strong key "
    "preparing prepares prepare threatening threatens threaten intending planning allowing allows "
    "preventing prevents stopping stops "
    "pressure hits hitting pins pin pinning covers cover covering guards guard guarding occupies "
    "occupy blockade blockades in".split()
)
_NOUNS = set(
    "square squares pawn pawns file files diagonal diagonals outpost break breaks push idea plan hole "
    "weakness point complex rank lever".split()
)

# A piece referred back to: "the knight on d5 is hit, so it drops back to b6".
_PRONOUNS = {"it"}

# Words between a move and what it gives: "Nd6 is checkmate", "bishop to b5 gives check".
_LINKS = {"is", "gives", "giving"}
_ARTICLES = set("the a an this that his her its their my our your".split())
_PREFIX_KINDS = {"piece", "file", "digit", "sq", "capture", "to", "on", "from", "verb", "filler", "color", "wing"}
_CUE_KINDS = {"capture", "to", "verb"}
_PREFIX_LIMIT = 8
_RECAPTURE_REACH = 4  # words that may stand between "recaptures" and "with the pawn"
MIN_SCORE = 3.0
"""The least score (`Mention.scored`) with which a mention names a move."""
_EPS = 1e-9


@dataclass
class _Tok:
    kind: str
    start: int
    end: int
    text: str
    value: Any = None  # by kind: an int (piece, square, digit, file), "K"/"Q", a (number, black) tuple
    weak: bool = False
    written: dict | None = None
    """For a move in notation (SAN, UCI, O-O): what the characters say."""
    rhyme: bool = False
    """A square written with a letter that is no file but rhymes with some ("t3"): any rhyming file."""


def _raw_tokens(text: str) -> list[_Tok]:
    """Split text into tokens and give each word its chess meaning, if it has one."""
    toks: list[_Tok] = []
    for m in _TOKEN.finditer(text):
        kind, s, e, raw = m.lastgroup, m.start(), m.end(), m.group()
        if kind == "unsure":
            continue
        if m.group("castle"):
            toks.append(_Tok("castle", s, e, raw, "Q" if m.group("long") else "K", written={"check": m.group("cchk")}))
        elif m.group("san") and m.group("piece") == "b" and toks and toks[-1].kind == "piece":
            # "knight bd7": after a piece named, a lower-case b is the file it leaves ("knight b d7"
            # run together by speech recognition), not a bishop
            toks.append(_Tok("file", s, s + 1, "b", 1))
            toks.extend(_Tok(t.kind, t.start + s + 1, t.end + s + 1, t.text, t.value, t.weak, t.written, t.rhyme)
                        for t in _raw_tokens(raw[1:]))
        elif m.group("san"):
            piece = m.group("piece")
            toks.append(
                _Tok(
                    "sq",
                    s,
                    e,
                    raw,
                    chess.parse_square(m.group("sq").lower()),
                    written={
                        "piece": _PIECE_LETTERS[piece.lower()] if piece else None,
                        "ff": chess.FILE_NAMES.index(m.group("ff")) if m.group("ff") else None,
                        "fr": int(m.group("fr")) - 1 if m.group("fr") else None,
                        "x": bool(m.group("x")),
                        "promo": _PIECE_LETTERS[m.group("promo").lower()] if m.group("promo") else None,
                        "check": m.group("chk"),
                    },
                )
            )
        elif m.group("movenum"):
            black = raw.endswith(("...", "…"))  # "3..." numbers Black's move
            toks.append(_Tok("movenum", s, e, raw, (int(raw.rstrip(".…")), black)))
        elif kind == "dots":
            toks.append(_Tok("dots", s, e, raw))
        elif kind == "number":
            n = int(raw)
            toks.append(_Tok("digit" if 1 <= n <= 8 and len(raw) == 1 else "num", s, e, raw, n))
        elif kind == "sym":
            toks.append(_Tok({"+": "check", "#": "mate", "=": "promote"}.get(raw, "punct"), s, e, raw))
        else:
            glued = _GLUED_KNIGHT.match(raw.lower())
            verb = glued.group("verb") if glued else ""
            if glued and not _leads_to_move(verb) and raw.lower()[len(verb)] == "s":
                verb += "s"  # "isite": "is" and "ite", not "i" and "site"
            if glued and raw.lower() not in _KIND_OF and _leads_to_move(verb):
                cut = s + len(verb)
                toks.append(_word_token(raw[: cut - s], s, cut))
                toks.append(_Tok("piece", cut, e, raw[cut - s :].lower(), chess.KNIGHT))
            else:
                toks.append(_word_token(raw, s, e))
    return toks


def _leads_to_move(word: str) -> bool:
    """Whether a knight heard glued to ``word`` follows it: a move word, a capture, or "and"/"then"/"is"."""
    return _KIND_OF.get(word) in ("verb", "capture") or word in _GLUE_WORDS


def _word_token(raw: str, s: int, e: int) -> _Tok:
    word = raw.lower().replace("’", "'")
    base = word[:-2] if word.endswith("'s") else word
    if base in _PIECES:
        return _Tok("piece", s, e, word, _PIECES[base])
    if base in _COLORS:
        return _Tok("color", s, e, word, _COLORS[base])
    if word in _NUMBER_WORDS:
        return _Tok("digit", s, e, word, _NUMBER_WORDS[word])
    if word in _TENS:
        return _Tok("tens", s, e, word, _TENS[word])
    if len(word) == 1 and word in chess.FILE_NAMES:
        return _Tok("file", s, e, word, chess.FILE_NAMES.index(word), weak=word == "a")
    if word in _HOMOPHONES:
        return _Tok("homophone", s, e, word, _HOMOPHONES[word], weak=True)
    if len(word) == 1 and word in _RHYMING_LETTERS:
        return _Tok("rhyme", s, e, word, None, weak=True)
    if word in ("for", "fore"):
        return _Tok("for", s, e, word)
    if word == "before":
        return _Tok("sq", s, e, word, chess.B4, weak=True)
    if base in _KIND_OF:
        kind = _KIND_OF[base]
        return _Tok(kind, s, e, word, {"kingside": "K", "queenside": "Q"}.get(word))
    if _CASTLE_FORM.match(base):  # any spelling of a form of "castle" ("castleing", "castlings")
        return _Tok("castle", s, e, word)
    return _Tok("word", s, e, word)


# Castling said without the word: "black tucks the king away", "white brings the king to safety"
_KING_TO_SAFETY = re.compile(
    r"\b(?:tuck|put|bring|get|take|whisk)(?:s|ed|ing|ting|ging)?\s+(?:the|his|her|its|their|our|your|my)\s+king\s+"
    r"(?:away|to\s+safety|into\s+safety|in\s+safety)\b",
    re.IGNORECASE,
)


def _tokens(text: str) -> list[_Tok]:
    """Tokens after joining what speech splits ("e four" -> e4) and resolving words by context."""
    toks = _raw_tokens(text)
    for phrase in _KING_TO_SAFETY.finditer(text):  # one word for castling, as "castles" is
        k = next((n for n, t in enumerate(toks) if t.start >= phrase.start()), len(toks))
        toks[k:] = [_Tok("castle", phrase.start(), phrase.end(), "castles")] + \
            [t for t in toks[k:] if t.start >= phrase.end()]
    out: list[_Tok] = []
    i = 0
    while i < len(toks):
        t = toks[i]
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        nkind = nxt.kind if nxt else None
        if nxt is not None and (joined := _joined(t, nxt)) is not None:
            out.append(joined)
            i += 2
            continue
        if t.kind == "piece" and t.value in (chess.KING, chess.QUEEN) and t.text.endswith("'s") and nkind == "piece":
            # "the queen's knight", "the king's pawn": which of two pieces, by the side it started on
            out.append(_Tok("wing", t.start, t.end, t.text, "K" if t.value == chess.KING else "Q"))
            i += 1
            continue
        if t.kind == "homophone" and out and out[-1].kind == "piece" and nkind in ("capture", "to", "sq"):
            t = _Tok("file", t.start, t.end, t.text, t.value)  # "knight be takes d2": the b-knight
        elif t.kind in ("tens", "homophone", "for", "rhyme"):
            t = _Tok("word", t.start, t.end, t.text)
        out.append(t)
        i += 1
    for i, t in enumerate(out):
        nkind = out[i + 1].kind if i + 1 < len(out) else None
        if t.kind == "word" and t.text == "point" and nkind in ("num", "digit", "to", "sq"):
            t.kind, t.value = "piece", chess.PAWN  # "point 24": whisper's "pawn to e4"
        elif t.text in _KNIGHT_SOUNDS and _knight_sound(out, i):
            t.kind, t.value, t.weak = "piece", chess.KNIGHT, True
        elif t.kind == "file" and t.weak and not _names_a_file(out, i):
            t.kind = "filler"  # the article "a"
        elif t.kind == "movenum" and nkind not in ("sq", "castle", "dots"):
            digits = t.text.rstrip(".…")
            out[i] = _Tok("num", t.start, t.start + len(digits), digits, t.value[0])
        elif t.kind == "digit" and t.value == 2 and nkind == "sq":
            t.kind = "to"  # "pawn 2 e4" is mostly the spoken "to"; "rook 2 e2" a rank: value keeps it
    return out


def _joined(t: _Tok, nxt: _Tok) -> _Tok | None:
    """One token for two that speech splits: "eighty four", "e four", "takes back", "with check",
    "king side"; None when ``t`` and ``nxt`` are two."""
    both = t.text + " " + nxt.text
    if t.kind == "rhyme" and nxt.kind == "digit":  # "t3": the square's rank, its file any rhyming one
        return _Tok("sq", t.start, nxt.end, both, chess.square(RHYMING_FILES[0], nxt.value - 1), weak=True,
                    rhyme=True)
    if t.kind == "tens" and nxt.kind == "digit":
        return _Tok("num", t.start, nxt.end, both, t.value * 10 + nxt.value)
    if t.kind in ("file", "homophone") and nxt.kind == "movenum" and not nxt.value[1] \
            and 1 <= nxt.value[0] <= 8 and nxt.text.endswith("."):
        # "to see 5.": the rank and the full stop after it, not a move number
        return _Tok("sq", t.start, nxt.end - 1, t.text + " " + nxt.text[:-1],
                    chess.square(t.value, nxt.value[0] - 1), weak=t.weak)
    if t.kind in ("file", "homophone") and nxt.kind in ("digit", "for"):
        rank = 4 if nxt.kind == "for" else nxt.value
        return _Tok("sq", t.start, nxt.end, both, chess.square(t.value, rank - 1), weak=t.weak)
    if t.kind == "capture" and nxt.text == "back":
        return _Tok("recapture", t.start, nxt.end, t.text + " back")
    if t.kind == "with" and nxt.kind == "check":
        return _Tok("check", t.start, nxt.end, t.text + " check")
    if t.kind == "piece" and t.value in (chess.KING, chess.QUEEN) and nxt.text == "side":
        return _Tok("side", t.start, nxt.end, t.text + " side", "K" if t.value == chess.KING else "Q")
    return None


def _knight_sound(toks: list[_Tok], i: int) -> bool:
    """ "I'd take c5", "I to take c5": the knight, heard as a pronoun, before a capture."""
    nxt = toks[i + 1] if i + 1 < len(toks) else None
    if nxt is None:
        return False
    if nxt.kind == "capture":
        return True
    after = toks[i + 2] if i + 2 < len(toks) else None
    return nxt.kind == "to" and after is not None and after.kind == "capture"


def _names_a_file(toks: list[_Tok], i: int) -> bool:
    """Whether "a" is the a-file: "a takes b5", "rook a d1", "rook a to d1", "the a pawn"."""
    prev = toks[i - 1] if i else None
    nxt = toks[i + 1] if i + 1 < len(toks) else None
    if (nxt and nxt.kind in ("capture", "sq")) or (prev and prev.kind == "piece"):
        return True
    return bool(prev and prev.text == "the" and nxt and nxt.kind == "piece" and nxt.value == chess.PAWN)


# --- mentions -----------------------------------------------------------------------------------


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
        return [move for s, move in scored if s > scored[0][0] - _EPS]

    def scored(
        self, board: chess.Board, strict: bool = True, sound_alikes: bool = True, loose: bool = False
    ) -> list[tuple[float, chess.Move]]:
        """Every legal move the mention could name, with how well it explains it, best first.

        ``loose`` also lets any file of a heard rank stand in for the heard one, at a weight too low
        to pass on its own: for a caller with a prior (an opening book) to choose from when the
        squares as heard fit nothing ("retreats to e3" heard for "a3").
        """
        if self.side is not None and board.turn != self.side:
            return []
        targets = self._heard_as(strict, loose) if sound_alikes else dict(self.targets)
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
                if (s := self._score(board, move, targets, strict, sound_alikes)) is not None
            ),
            key=lambda sm: -sm[0],
        )

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
            elif self.pawn_implied or (strict and self.bare):
                if piece != chess.PAWN:
                    return None
                score += 1
            elif piece == chess.PAWN:
                score += 1
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


_CASTLED = chess.BB_C1 | chess.BB_G1 | chess.BB_C8 | chess.BB_G8


def sounding_like(file: int) -> tuple[int, ...]:
    """The files a spoken file letter may have been heard as: the rhyming ones, "a" and "e"."""
    rhymes = RHYMING_FILES if file in RHYMING_FILES else ()
    return rhymes + _VOWEL_FILES.get(file, ())


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


def _skip(toks: list[_Tok], i: int, kinds: set[str]) -> int:
    while i < len(toks) and toks[i].kind in kinds:
        i += 1
    return i


def _is_source(toks: list[_Tok], i: int) -> bool:
    """A square that says where a piece comes from: "from b8 to d7", "e4 takes d5", "knight b1 d2"."""
    t = toks[i]
    if t.written and (t.written["piece"] or t.written["ff"] is not None or t.written["x"]):
        return False
    j = _skip(toks, i + 1, {"to", "capture", "on", "verb", "filler"})
    followed = j < len(toks) and toks[j].kind == "sq" and j - i <= 3
    if followed and i > 0 and toks[i - 1].kind == "from":
        return True
    if followed and j > i + 1 and any(toks[k].kind in ("to", "capture", "verb") for k in range(i + 1, j)):
        return True
    return followed and j == i + 1 and i > 0 and toks[i - 1].kind == "piece"


def _number_anchor(toks: list[_Tok], i: int, strict: bool) -> bool:
    """A two-digit number that stands for a square: "pawn to 84", "point 24"."""
    t = toks[i]
    if t.kind != "num" or t.value // 10 not in _NUMBER_FILES or not 1 <= t.value % 10 <= 8:
        return False
    j = i - 1
    while j >= 0 and toks[j].kind == "filler":
        j -= 1
    return (j >= 0 and toks[j].kind in ("piece", "to", "capture", "on")) or not strict


def find_mentions(text: str, strict: bool = True) -> list[Mention]:
    """Every move mention in `text`, in order, before any board is consulted.

    ``strict`` (for running narration) drops what reads as a place or an ordinary word: "the d5
    square", "the knight on f3", "before we start". Without it (for a phrase known to be a
    move) every candidate is kept.
    """
    toks = _tokens(text)
    mentions: list[Mention] = []
    floor = 0  # tokens before this belong to an earlier mention
    listing = False  # the last mention was a place: "pawns on c3, d4 and e3" lists more places
    listed: dict[int, float] = {}  # the squares of the last mention
    place: Mention | None = None  # the last piece named where it stands
    i = 0
    while i < len(toks):
        t = toks[i]
        built: tuple[Mention, int] | None = None
        target = t.kind == "sq" and not _is_source(toks, i) and not (i and toks[i - 1].kind == "from")
        if target or _number_anchor(toks, i, strict):
            built = _target_mention(text, toks, i, floor)
        elif t.kind == "castle":
            built = _castle_mention(text, toks, i, floor)
        elif t.kind == "recapture":
            built = _recapture_mention(text, toks, i, floor)
        elif t.kind == "capture":
            built = _captured_piece_mention(text, toks, i, floor)
        if built is None:
            i += 1
            continue
        mention, end = built
        _number(toks, mention)
        if listing and mention.bare and all(tok.kind == "filler" or tok.text == "," for tok in toks[floor:i]) \
                and mention.targets != listed:  # a list names each place once: "the c4, c4" says it again as the move
            mention.location = True
        listing, listed = mention.location, mention.targets
        if mention.bare and not mention.location and mentions and _shares_piece(mentions[-1], toks[floor:i]):
            # "both sides develop their bishops to d3 and d6": the pieces named go to both squares
            mention.piece, mention.cue, mention.bare = mentions[-1].piece, mentions[-1].cue, False
        if mention.location and mention.piece is not None and len(mention.targets) == 1:
            place = mention  # "the knight on d5": what a later "it" stands for
        elif place is not None and mention.piece is None and any(tok.text in _PRONOUNS for tok in toks[floor:i]):
            # "the knight on d5 is hit, so it drops back to b6": the piece, and where it stands
            mention.piece, mention.from_square = place.piece, next(iter(place.targets))
            mention.bare = False
        elif mention.piece is None and (named := _named_before_it(toks[floor:i])) is not None:
            # "c4, kicking the knight again, and it goes to b6": "it" is the piece named since the last move
            mention.piece, mention.bare = named, False
        if not strict or _plausible(mention):
            mentions.append(mention)
        floor = end
        i = end
    return mentions


def _named_before_it(between: list[_Tok]) -> int | None:
    """The piece an "it" before a move stands for: the last piece named before the "it" (since the
    move said before), where no piece is named after it."""
    at = next((k for k in range(len(between) - 1, -1, -1) if between[k].text in _PRONOUNS), None)
    if at is None or any(tok.kind == "piece" for tok in between[at:]):
        return None
    return next((tok.value for tok in reversed(between[:at]) if tok.kind == "piece"), None)


def _shares_piece(before: Mention, between: list[_Tok]) -> bool:
    """Whether a bare square joined by "and" to a mention of plural pieces ("their bishops to d3")
    is those pieces' second square."""
    plural = any(word.lower() in _PLURAL_PIECES for word in re.findall(r"[A-Za-z]+", before.text))
    joined = any(tok.text == "and" for tok in between)
    listed = all(tok.kind == "filler" or tok.text == "," for tok in between)
    return plural and joined and listed and before.piece is not None


def _prefix(toks: list[_Tok], i: int, floor: int) -> int:
    """Index of the first token of the words that lead up to the anchor at `i`."""
    j = i
    if j - 2 >= floor and toks[j - 1].text == "," and toks[j - 2].kind == "piece":
        j -= 1  # "bishop, d6": speech recognition writes a pause between a piece and its square
    while j > floor and i - j < _PREFIX_LIMIT and toks[j - 1].kind in _PREFIX_KINDS:
        if toks[j - 1].kind == "sq" and not _is_source(toks, j - 1):
            break
        j -= 1
    while j < i and toks[j].kind == "filler":
        j += 1  # the quote starts at the first word that means something
    return j


def _number(toks: list[_Tok], mention: Mention) -> None:
    """Attach a move number written just before the mention ("3. Bb5", "3... a6", "3. ... a6")."""
    j = next((k for k, t in enumerate(toks) if t.start >= mention.start), len(toks)) - 1
    black = False
    if j >= 0 and toks[j].kind == "dots":
        black, j = True, j - 1
    if j >= 0 and toks[j].kind == "movenum":
        mention.move_number = toks[j].value[0]
        mention.black = black or toks[j].value[1]


def _apply_prefix(mention: Mention, toks: list[_Tok]) -> None:
    """Read piece, source hints, capture and side from the words before the target."""
    seen_capture = False
    for n, t in enumerate(toks):
        if t.kind == "color":
            mention.side = t.value
        elif t.kind == "capture":
            seen_capture = mention.capture = mention.cue = mention.acted = True
        elif t.kind in _CUE_KINDS:
            _cue(mention, t)
        elif t.kind == "piece":
            if seen_capture:
                mention.captured = t.value
            else:
                if mention.piece is not None:
                    mention.earlier_piece = mention.piece
                mention.piece, mention.piece_weak = t.value, t.weak
        elif t.kind == "file":
            mention.from_file, mention.file_heard = t.value, True
        elif t.kind == "wing":
            mention.wing = t.value
        elif t.kind == "digit" and any(p.kind in ("piece", "file") for p in toks[:n]):
            mention.from_rank = t.value - 1  # "rook one e1"; with no piece before it, "one e4" numbers the move
        elif t.kind == "sq":
            mention.from_square = t.value
    if any(t.kind == "on" for t in toks) and not mention.cue:
        mention.location = True
    if mention.capture:
        mention.quiet = False


def _cue(mention: Mention, t: _Tok) -> None:
    """A word that says a move is made: "to" (a quiet move, or "2" for "to"), or a verb."""
    mention.cue = True
    mention.acted |= t.kind == "verb"
    mention.pushed |= t.text in _PUSH_WORDS
    if t.kind == "to":
        mention.quiet = True
        if t.value == 2:
            mention.maybe_rank = 1


def _apply_suffix(mention: Mention, toks: list[_Tok], k: int) -> int:
    """Consume check, promotion and "with the knight" after the target; return the next index."""
    while k < len(toks):
        j = _skip(toks, k, {"filler"})  # "... and promotes to a knight"
        if j < len(toks) and toks[j].text in _LINKS and j + 1 < len(toks) and toks[j + 1].kind in ("check", "mate"):
            j += 1  # "knight to d6 is checkmate"
        if j < len(toks) and toks[j].kind in ("check", "mate", "promote"):
            k = j
        t = toks[k]
        if t.kind in ("check", "mate"):
            mention.check |= t.kind == "check"
            mention.mate |= t.kind == "mate"
            k += 1
        elif t.kind == "promote":
            j = _skip(toks, k + 1, {"to", "filler"})
            if j < len(toks) and toks[j].kind == "piece":
                mention.promotion = toks[j].value
                k = j + 1
            else:
                break
        elif t.kind == "with":
            j = _skip(toks, k + 1, {"filler"})
            file = None
            if j < len(toks) and toks[j].kind == "file":
                file, j = toks[j].value, j + 1
            if j < len(toks) and toks[j].kind == "piece":
                mention.piece = mention.piece if mention.piece is not None else toks[j].value
                if file is not None:
                    mention.from_file = file
                k = j + 1
            else:
                break
        else:
            break
    return k


def _target_mention(text: str, toks: list[_Tok], i: int, floor: int) -> tuple[Mention, int]:
    t = toks[i]
    j = _prefix(toks, i, floor)
    m = Mention(toks[j].start, t.end, "")
    _apply_prefix(m, toks[j:i])
    if any(tok.text == "," for tok in toks[j:i]):
        m.piece_weak = True  # a piece across a pause: the square as heard may still be a pawn's
    if t.kind == "num":
        tens, rank = divmod(t.value, 10)
        m.targets = {chess.square(f, rank - 1): w for f, w in _NUMBER_FILES[tens].items()}
        m.weak = True
        if tens == 2:
            m.cue = True  # the "twenty" is the spoken "to"
    else:
        m.targets = _square_targets(t)
        m.weak = t.weak
        written = t.written
        if written:
            m.notation = written["piece"] is not None or written["ff"] is not None or written["x"]
            if written["piece"] is not None:
                m.piece = written["piece"]
                m.cue = True
            if written["ff"] is not None and written["fr"] is not None:
                m.from_square = chess.square(written["ff"], written["fr"])  # UCI, or "Qh4e1"
            elif written["ff"] is not None:
                m.from_file = written["ff"]
            elif written["fr"] is not None:
                m.from_rank = written["fr"]
            if written["x"]:
                m.capture = m.cue = True
            m.promotion = written["promo"] or m.promotion
            m.check = written["check"] == "+"
            m.mate = written["check"] == "#"
        if (
            not (written and (written["piece"] or written["ff"] is not None or written["x"]))
            and chess.square_file(t.value) == 2
            and i > 0
            and toks[i - 1].kind == "capture"
            and toks[i - 1].text.isalpha()
        ):
            m.absorbed = True
    if m.piece is None and (m.from_file is not None or m.from_rank is not None) and m.from_square is None:
        m.pawn_implied = True
    before = toks[i - 1].text if i > 0 else ""
    if _is_bare(m) and before in _DESCRIPTORS and not (t.written and t.written["piece"]):
        # "attacks f7 with the knight": a place; what follows is left for the next move
        m.bare = m.location = True
        m.text = text[m.start : m.end]
        return m, i + 1
    k = _apply_suffix(m, toks, i + 1)
    m.end = toks[k - 1].end
    m.text = text[m.start : m.end]
    m.bare = _is_bare(m)
    after = toks[k].text if k < len(toks) else ""
    if (
        (m.bare or not m.cue)
        and not (t.written and t.written["piece"])
        and (after in _NOUNS or (m.bare and before in _DESCRIPTORS))
    ):
        m.location = True
    return m, k


def _square_targets(t: _Tok) -> dict[int, float]:
    """The squares a square token may name, with how sure: itself, or each rhyming file of its rank."""
    if t.rhyme:
        rank = chess.square_rank(t.value)
        return {chess.square(f, rank): _RHYMING_LETTER_WEIGHT for f in RHYMING_FILES}
    return {t.value: 0.8 if t.weak else 1.0}


def _is_bare(m: Mention) -> bool:
    return m.piece is None and not m.cue and m.from_file is None and m.from_rank is None and m.from_square is None


def _castle_mention(text: str, toks: list[_Tok], i: int, floor: int) -> tuple[Mention, int]:
    t = toks[i]
    j = i
    while (
        j > floor
        and i - j < 3
        and (toks[j - 1].kind in ("filler", "color", "side", "verb") or toks[j - 1].text in ("short", "long"))
    ):
        j -= 1
    subject = j < i  # "white castles", "we castle", "now castle"; not "always castle early"
    while j < i and toks[j].kind == "filler":
        j += 1
    m = Mention(toks[j].start, t.end, "", castle=t.value or "?")
    for p in toks[j:i]:
        if p.kind == "color":
            m.side = p.value
    sides = [p for p in toks[j:i] if p.kind == "side" or p.text in ("short", "long")]
    k = i + 1
    if t.written is not None:  # O-O written out
        m.notation = True
        m.check = t.written["check"] == "+"
        m.mate = t.written["check"] == "#"
        m.cue = True
    else:
        s = _skip(toks, k, {"on", "filler"})
        if s < len(toks) and (toks[s].kind == "side" or toks[s].text in ("short", "long")):
            sides.append(toks[s])
            k = s + 1
        if sides:
            m.castle = sides[-1].value or ("K" if sides[-1].text == "short" else "Q")
        noun = i > 0 and toks[i - 1].text in _ARTICLES  # "the castle", "a castle"
        m.cue = (
            bool(sides)
            or (t.text in ("castles", "castle's") and not noun)
            or (t.text == "castle" and subject and not noun)
        )
    k = _apply_suffix(m, toks, k)
    m.end = toks[k - 1].end
    m.text = text[m.start : m.end]
    return m, k


def _recapture_mention(text: str, toks: list[_Tok], i: int, floor: int) -> tuple[Mention, int] | None:
    if i and toks[i - 1].text in _ARTICLES:
        return None  # "wait with the recapture": the noun, not a move
    j = _prefix(toks, i, floor)
    m = Mention(toks[j].start, toks[i].end, "", recapture=True)
    _apply_prefix(m, toks[j:i])
    m.cue = True
    k = i + 1
    s = _skip(toks, k, {"on", "filler"})
    if s < len(toks) and toks[s].kind == "sq":
        m.targets = _square_targets(toks[s])
        k = s + 1
    w = _skip(toks, k, {"word", "filler", "on"})
    if w < len(toks) and w - k <= _RECAPTURE_REACH and toks[w].kind == "with":
        k = w  # "recaptures toward the centre with the b-pawn": the words between describe it
    k = _apply_suffix(m, toks, k)
    s = _skip(toks, k, {"filler"})
    if not m.targets and s + 1 < len(toks) and toks[s].kind == "on" and toks[s + 1].kind == "sq":
        m.targets = _square_targets(toks[s + 1])  # "... with the knight on d5"
        k = s + 2
    m.end = toks[k - 1].end
    m.text = text[m.start : m.end]
    return m, k


def _captured_piece_mention(text: str, toks: list[_Tok], i: int, floor: int) -> tuple[Mention, int] | None:
    """ "bishop takes knight": a capture named by what it takes, with no square."""
    p = _skip(toks, i + 1, {"filler"})
    if p >= len(toks) or toks[p].kind != "piece":
        return None
    after = _skip(toks, p + 1, {"on", "filler", "to"})
    if after < len(toks) and toks[after].kind == "sq":
        return None  # "takes the knight on c6": the square is the anchor
    j = _prefix(toks, i, floor)
    m = Mention(toks[j].start, toks[p].end, "", capture=True, captured=toks[p].value, cue=True)
    _apply_prefix(m, toks[j:i])
    k = _apply_suffix(m, toks, p + 1)
    m.end = toks[k - 1].end
    m.text = text[m.start : m.end]
    return m, k


def _plausible(m: Mention) -> bool:
    """In running narration, keep only mentions that read as a move being made."""
    if m.location:
        return False
    if m.weak and not (m.cue or m.piece is not None):
        return False
    if m.captured is not None and not m.targets and m.piece is None:
        return False
    if m.castle and not m.cue:
        return False
    return True


# --- public API ---------------------------------------------------------------------------------


def parse_spoken_move(board: chess.Board, phrase: str) -> chess.Move | None:
    """The legal move `phrase` names on `board`, or None when no move or more than one fits.

    The phrase is taken to be a move, so ASR guesses and sound-alike squares count; use
    `find_moves` for running narration.
    """
    found = {move for m in find_mentions(phrase, strict=False) if (move := m.resolve(board, strict=False))}
    return found.pop() if len(found) == 1 else None


def find_moves(board: chess.Board, text: str) -> list[tuple[chess.Move, tuple[int, int]]]:
    """Every move mentioned in `text`, in order, each played on a copy of `board`.

    Returns (move, (start, end)) with character offsets of the words that said it. Mentions that
    are not legal where they occur are skipped, so ordinary words never become moves.
    """
    b = board.copy()
    out = []
    for mention in find_mentions(text):
        move = mention.resolve(b)
        if move is not None:
            out.append((move, (mention.start, mention.end)))
            b.push(move)
    return out
