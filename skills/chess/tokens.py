"""Spoken or written move text as tokens, each word with its chess meaning.

Speech splits what notation writes as one ("e four", "eighty four", "king side") and glues what
it should split ("playsite" for "plays knight"); `_tokens` gives a sentence back as one token per
chess meaning, for `moves.find_mentions` to read mentions from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import chess

from tutorialbook.acquire.transcript import UNSURE
from .spoken_words import (_CASTLE_FORM, _COLORS, _GLUE_WORDS, _GLUED_KNIGHT, _HOMOPHONES, _KIND_OF, _KNIGHT_SOUNDS,
                           _NUMBER_WORDS, _PIECE_LETTERS, _PIECES, _RHYMING_LETTERS, _TENS, RHYMING_FILES)

#: words a move number said aloud may follow ("a second try for White is three d4"; "is" heard as "in")
_BEFORE_NUMBER = ("is", "in", "play", "plays", "played", "playing")

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
    shade: str | None = None
    """For a bishop: "light" or "dark", the colour of the squares it was named by ("the dark-squared bishop")."""
    five_f: bool = False
    """A square after a knight heard as "i5" ("i5, c6"): the 5 may have been its "ef", the square f on its rank."""


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
        elif m.group("san") and not (m.group("piece") or m.group("ff") or m.group("x")) \
                and m.group("fr") and _numbers_a_move(toks):
            # "3d3": speech recognition's "three e3", a move number run into its square (no notation
            # writes a rank before a square without a piece); the number said, as "three d4" is
            toks.append(_Tok("movenum", s, s + 1, raw[0], (int(raw[0]), None), weak=True))
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


def _numbers_a_move(before: list[_Tok]) -> bool:
    """Whether a number said next stands where a move number does: a sentence's or clause's start, or
    after "is"/"play" ("a second try for White is three d4", its "is" heard as "in")."""
    if not before:
        return True
    last = before[-1]
    return (last.kind == "punct" and last.text in ",;:.") or last.text.lower() in _BEFORE_NUMBER


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


# Castling said without the word: "black tucks the king away", "white brings the king to safety"; "the
# king" may be heard as one word that ends like it ("tucks knocking away", "tucks looking away")
_KING_TO_SAFETY = re.compile(
    r"\b(?:tuck|put|bring|get|take|whisk)(?:s|ed|ing|ting|ging)?\s+"
    r"(?:(?:the|his|her|its|their|our|your|my)\s+king|[a-z]+king)\s+"
    r"(?:away|to\s+safety|into\s+safety|in\s+safety)\b",
    re.IGNORECASE,
)


# "king's knight" run together by speech recognition: "king'site", "queen'snight"
_WING_KNIGHT = re.compile(r"^(?P<wing>king|queen)'(?:s?ite|s?ight|s?night|s?nite)$")


def _wing_knights(toks: list[_Tok]) -> list[_Tok]:
    """ "the king's knight" heard as one word, "king'site": the wing and the knight, where a square follows
    (elsewhere it is "kingside" heard so: "attack on the king'site with f5")."""
    out: list[_Tok] = []
    for i, t in enumerate(toks):
        wing = _WING_KNIGHT.match(t.text)
        if wing is None or not _before_square(toks, i):
            out.append(t)
            continue
        cut = t.start + len(wing.group("wing"))
        out.append(_Tok("wing", t.start, cut, wing.group("wing"), "K" if wing.group("wing") == "king" else "Q"))
        out.append(_Tok("piece", cut, t.end, t.text[cut - t.start:], chess.KNIGHT, weak=True))
    return out


def _tokens(text: str) -> list[_Tok]:
    """Tokens after joining what speech splits ("e four" -> e4) and resolving words by context."""
    toks = _wing_knights(_raw_tokens(text))
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
    _shades(out)
    out = _eye_knight(out)
    _e_file_in_three(out)
    for i, t in enumerate(out):
        nkind = out[i + 1].kind if i + 1 < len(out) else None
        if t.kind == "word" and t.text == "in" and i and _ing_split(out[i - 1]) and nkind in ("filler", "piece"):
            t.kind = "filler"  # "put in the bishop on e2": speech recognition's "putting" split in two
        elif t.kind == "word" and t.text == "point" and nkind in ("num", "digit", "to", "sq"):
            t.kind, t.value = "piece", chess.PAWN  # "point 24": whisper's "pawn to e4"
        elif t.text in _KNIGHT_SOUNDS and _knight_sound(out, i):
            t.kind, t.value, t.weak = "piece", chess.KNIGHT, True
        elif _knight_rhyme(out, i):
            t.kind, t.value, t.weak = "piece", chess.KNIGHT, True
        elif t.kind == "file" and t.weak and not _names_a_file(out, i):
            t.kind = "filler"  # the article "a"
        elif t.kind == "movenum" and nkind not in ("sq", "castle", "dots"):
            digits = t.text.rstrip(".…")
            out[i] = _Tok("num", t.start, t.start + len(digits), digits, t.value[0])
        elif t.kind == "digit" and t.value == 2 and nkind == "sq":
            t.kind = "to"  # "pawn 2 e4" is mostly the spoken "to"; "rook 2 e2" a rank: value keeps it
    return out


def _ing_split(t: _Tok) -> bool:
    """Whether ``t`` is a move word's stem whose "-ing" form speech recognition may write as the stem and
    "in" ("put in the bishop" for "putting the bishop", "support in", "set in a trap"): the stem of a move
    word ("put", "play", "take") whose -ing form is one too."""
    word = t.text
    forms = (word + "ing", word + word[-1:] + "ing", word[:-1] + "ing")
    return t.kind in ("verb", "capture") and any(_KIND_OF.get(form) == t.kind for form in forms)


def _e_file_in_three(toks: list[_Tok]) -> None:
    """ "Three e3" heard "3, 3": the letter e is the very vowel "three" ends on, so speech recognition
    runs it into the number and leaves the rank alone. A lone rank right after a move number three,
    ending its clause, is read as that rank's e-file square (rehearing may still hear it on a rhyming
    file)."""
    for i in range(1, len(toks)):
        t, before = toks[i], toks[i - 1]
        number = toks[i - 2] if before.text == "," and i >= 2 else before
        at = i - 2 if number is not before else i - 1
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        if (t.kind == "digit" and number.kind == "digit" and number.value == 3 and _numbers_a_move(toks[:at])
                and (nxt is None or nxt.kind in ("punct", "filler"))):
            toks[i] = _Tok("sq", t.start, t.end, t.text, chess.square(4, t.value - 1))


# "the light-squared bishop" heard with its first sound lost or changed ("right squared", "white squared",
# "knight squared"; "nark-squared" for dark): the rhyme of "light" or "dark" before "squared" says which bishop
_LIGHT_RHYME = re.compile(r"(?:ight|ite)$")
_DARK_RHYME = re.compile(r"ark$")


def _shades(toks: list[_Tok]) -> None:
    """Mark a bishop named by the colour of its squares ("the dark-squared bishop", "the light square
    bishop"), the colour word read by its rhyme; that word is then no piece ("knight squared bishop")."""
    for i in range(1, len(toks) - 1):
        said, word, bishop = toks[i - 1], toks[i], toks[i + 1]
        if bishop.text == "," and i + 2 < len(toks):
            bishop = toks[i + 2]  # "the dark square, bishop to e7": a pause heard inside the name
        if word.text not in ("squared", "square") or bishop.kind != "piece" or bishop.value != chess.BISHOP:
            continue
        shade = "light" if _LIGHT_RHYME.search(said.text) else "dark" if _DARK_RHYME.search(said.text) else None
        if shade is not None and said.kind in ("word", "filler", "piece", "color"):
            bishop.shade = shade
            said.kind, said.value = "filler", None


# "dif3" for "knight f3": the knight's "i" and the square's "f" run into its rank, a letter before them
_KNIGHT_IF = re.compile(r"[a-z]?if")


def _eye_knight(toks: list[_Tok]) -> list[_Tok]:
    """ "with i5 6", "with i56", "i5, c6": speech recognition writes "knight" as "i" run into a digit,
    and the "ef" of an f-file square as "five" ("knight f6" as "i5 6"). The "i" is the knight; a 5 run
    into it and followed by a lone rank is that rank's f-file square; any other digit run into it is
    the rest of the word ("i3 treats to f3": "knight retreats to f3"). "dif3": `_KNIGHT_IF`."""
    out: list[_Tok] = []
    i = 0
    while i < len(toks):
        t, nxt = toks[i], toks[i + 1] if i + 1 < len(toks) else None
        if _KNIGHT_IF.fullmatch(t.text) and nxt is not None and nxt.start == t.end and nxt.kind == "digit":
            # "dif3": the knight's "i" and the square's "f" run together, a letter before them
            out.append(_Tok("piece", t.start, t.end - 1, t.text[:-1], chess.KNIGHT, weak=True))
            out.append(_Tok("sq", t.end - 1, nxt.end, "f" + nxt.text, chess.square(5, nxt.value - 1), weak=True))
            i += 2
            continue
        if t.text != "i" or nxt is None or nxt.start != t.end or nxt.kind not in ("digit", "num"):
            out.append(t)
            i += 1
            continue
        out.append(_Tok("piece", t.start, t.end, t.text, chess.KNIGHT, weak=True))
        j = i + 3 if i + 2 < len(toks) and toks[i + 2].text == "," else i + 2
        rank = toks[j] if j < len(toks) else None
        if nxt.text[:1] == "5" and len(nxt.text) == 2 and nxt.text[1] in "12345678":  # "i56"
            out.append(_Tok("sq", nxt.start, nxt.end, nxt.text, chess.square(5, int(nxt.text[1]) - 1), weak=True))
            i += 2
        elif nxt.text == "5" and rank is not None and rank.kind in ("digit", "num", "movenum") \
                and len(digits := rank.text.rstrip(".")) == 1 and digits in "12345678":  # "i5 6", "i5, 6."
            out.append(_Tok("sq", nxt.start, rank.start + 1, nxt.text + " " + digits,
                            chess.square(5, int(digits) - 1), weak=True))
            i = j + 1
        elif len(nxt.text) == 1 and nxt.text in "12345678" and _ends_sentence(toks, i + 2):
            # "white simply develops, i3.": the "ef" of the knight's f-file square lost between the "i" and
            # the rank ("i5 6" keeps it as a five); with nothing after it, the digit is no word's rest
            out.append(_Tok("sq", nxt.start, nxt.end, "f" + nxt.text, chess.square(5, nxt.value - 1), weak=True))
            i += 2
        else:
            if nxt.text == "5" and rank is not None and rank.kind == "sq" and chess.square_file(rank.value) != 5:
                # "i5, c6": the 5 is the knight's, or the "ef" of "knight f6" with its rank heard as a
                # square of its own; which one, only the lesson's moves can tell (rehearing.py)
                rank.five_f = True
            i += 2  # "i5, c6", "i3 treats": the digit is the knight's
    return out


def _ends_sentence(toks: list[_Tok], i: int) -> bool:
    """Whether the sentence ends at token ``i`` (a full stop or the text's end)."""
    return i >= len(toks) or toks[i].text in ".!?"


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
    """ "I'd take c5", "I to take c5": the knight, heard as a pronoun, before a capture. And "black answers
    I, f6": "knight" with its "n" and "t" lost is the vowel "I", and the pronoun is never followed by a
    square (a verb comes between: "I play f6"), so an "I" right before a square, a pause between or not,
    is the knight."""
    nxt = toks[i + 1] if i + 1 < len(toks) else None
    if nxt is None:
        return False
    if nxt.kind == "capture":
        return True
    after = toks[i + 2] if i + 2 < len(toks) else None
    if toks[i].text == "i" and (nxt.kind == "sq" or (nxt.text == "," and after is not None and after.kind == "sq")):
        return True
    return nxt.kind == "to" and after is not None and after.kind == "capture"


#: "knight" heard with its first sound changed and its last voiced ("black develops side c6", "white answers
#: some side to f3"): read so only right before a square, as "both sides develop" and "king side" are no piece
_KNIGHT_SIDE = ("side", "sides")


#: "knight" heard as the word it rhymes with that narrators use for bishops ("kicking the light again, and it goes
#: to b6"; the other way round, "the knight squared bishop"): a knight where no "square(d)" follows
_KNIGHT_LIGHT = ("light", "lite")


def _knight_rhyme(toks: list[_Tok], i: int) -> bool:
    """Whether the word at ``i`` is "knight" heard as a word it rhymes with: "side" before a square,
    "light" where no "square(d)" follows."""
    word = toks[i].text
    if word in _KNIGHT_LIGHT:
        return not (i + 1 < len(toks) and toks[i + 1].text.startswith("square"))
    return word in _KNIGHT_SIDE and _before_square(toks, i)


def _before_square(toks: list[_Tok], i: int) -> bool:
    """Whether the word at ``i`` comes right before a square, or "to" and a square: where a piece is named."""
    nxt = toks[i + 1] if i + 1 < len(toks) else None
    after = toks[i + 2] if i + 2 < len(toks) else None
    return nxt is not None and (nxt.kind == "sq" or (nxt.kind == "to" and after is not None and after.kind == "sq"))


def _names_a_file(toks: list[_Tok], i: int) -> bool:
    """Whether "a" is the a-file: "a takes b5", "rook a d1", "rook a to d1", "the a pawn"."""
    prev = toks[i - 1] if i else None
    nxt = toks[i + 1] if i + 1 < len(toks) else None
    if (nxt and nxt.kind in ("capture", "sq")) or (prev and prev.kind == "piece"):
        return True
    return bool(prev and prev.text == "the" and nxt and nxt.kind == "piece" and nxt.value == chess.PAWN)
