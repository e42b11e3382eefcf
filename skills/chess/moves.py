"""Spoken chess moves to legal moves.

Narrators say one move many ways ("knight to f3", "Nf3", "the knight goes to f3") and speech
recognition adds its own errors ("night to F3", "pawn to 84", "before" for b4). A grammar would
break on these, so a phrase is reduced to the features it carries (piece, target square, source
hints, capture, check, castling side, promotion) and, of the legal moves of the board, the one
that explains those features best wins. Nothing plausible, or a tie, is a refusal: a wrong move
would corrupt every position after it.

Here the mentions are found in text (`find_mentions`) and played on a board (`find_moves`,
`parse_spoken_move`); the words are `spoken_words`'s, the tokens `tokens`'s, and the weighing of
a mention against the legal moves `mention`'s.
"""

from __future__ import annotations

import re

import chess

from .mention import Mention
from .spoken_words import (_ARTICLES, _DESCRIPTORS, _LINKS, _NOUNS, _NUMBER_FILES, _PLURAL_PIECES, _PRONOUNS,
                           _PUSH_WORDS, _RHYMING_LETTER_WEIGHT, RHYMING_FILES)
from .tokens import _Tok, _tokens

__all__ = ["find_mentions", "find_moves", "parse_spoken_move"]

_PREFIX_KINDS = {"piece", "file", "digit", "sq", "capture", "to", "on", "from", "verb", "filler", "color", "wing"}
_CUE_KINDS = {"capture", "to", "verb"}
_PREFIX_LIMIT = 8
_CATCH = ("catch", "catches")  # "recaptures" heard "will catch us": its stressed syllable, the "p" lost
_RECAPTURE_REACH = 4  # words that may stand between "recaptures" and "with the pawn"


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
            built = _captured_piece_mention(text, toks, i, floor) or _capture_with_mention(text, toks, i, floor)
        if built is None:
            i += 1
            continue
        mention, end = built
        _number(toks, mention)
        _absorbed_by_three(mention)
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


# how sure an e-file square is where a run-in "three" may have swallowed the letter "e"
_RUN_IN_E_WEIGHT = 0.8


def _absorbed_by_three(mention: Mention) -> None:
    """ "3d3" for "three e3": the letter "e", a bare vowel, runs into the vowel "three" ends on, and speech
    recognition writes another letter for what is left; so after a run-in three, a square on another
    rhyming file may be the e-file's (below the square as heard, which wins where it can be played)."""
    if not (mention.number_glued and mention.move_number == 3 and len(mention.targets) == 1):
        return
    square, weight = next(iter(mention.targets.items()))
    if chess.square_file(square) in RHYMING_FILES and chess.square_file(square) != 4:
        mention.targets[chess.square(4, chess.square_rank(square))] = weight * _RUN_IN_E_WEIGHT


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
    elif j - 3 >= floor and toks[j - 1].kind == "to" and toks[j - 2].text == "," and toks[j - 3].kind == "piece" \
            and any(t.kind == "verb" for t in toks[floor : j - 3]):
        j -= 2  # "black develops the dark-squared bishop, to e7": the pause inside a move a verb leads up to
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
        mention.number_glued = toks[j].weak
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
                mention.shade = t.shade
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
    first_piece = next((n for n, t in enumerate(toks) if t.kind == "piece"), None)
    mention.object_of_on = first_piece is not None and any(t.kind == "on" for t in toks[:first_piece])
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
        m.weak, m.five_f = t.weak, t.five_f
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
    m.played_plain = m.piece is None and not m.capture and i > j and toks[i - 1].kind == "verb"
    before = toks[i - 1].text if i > 0 else ""
    if _is_bare(m) and before in _DESCRIPTORS and not (t.written and t.written["piece"]):
        # "attacks f7 with the knight": a place; what follows is left for the next move
        m.bare = m.location = True
        m.text = text[m.start : m.end]
        return m, i + 1
    k = _apply_suffix(m, toks, i + 1)
    m.check |= _check_with(toks, j, floor)
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


def _check_with(toks: list[_Tok], j: int, floor: int) -> bool:
    """ "Black can check with the bishop on b4", "gives a check with bishop to b4": a check said before
    the move it is given with ("with" right before the move's words) says the move gives check."""
    k = j - 1
    while k >= floor and toks[k].kind == "filler":
        k -= 1  # "with the bishop"
    return k - 1 >= floor and toks[k].kind == "with" and toks[k - 1].kind == "check"


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
    if toks[i].text in _CATCH and m.piece is None:
        return None  # "catch" is "recaptures" misheard only where the piece it is made with is named
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


def _capture_with_mention(text: str, toks: list[_Tok], i: int, floor: int) -> tuple[Mention, int] | None:
    """ "Black takes with the knight on d5": a capture said by the piece that makes it and the square it
    takes on, after the capture word (one word may stand between: "take smack with", speech recognition's
    "takes back with")."""
    w = _skip(toks, i + 1, {"filler"})
    if w < len(toks) and toks[w].kind == "word":
        w = _skip(toks, w + 1, {"filler"})
    if w >= len(toks) or toks[w].kind != "with":
        return None
    p = _skip(toks, w + 1, {"filler"})
    if p + 2 >= len(toks) or toks[p].kind != "piece" or toks[p + 1].kind != "on" or toks[p + 2].kind != "sq":
        return None
    j = _prefix(toks, i, floor)
    m = Mention(toks[j].start, toks[p + 2].end, "", capture=True, cue=True, acted=True)
    _apply_prefix(m, toks[j:i])
    m.piece, m.piece_weak = toks[p].value, toks[p].weak
    m.targets = _square_targets(toks[p + 2])
    m.weak = toks[p + 2].weak
    k = _apply_suffix(m, toks, p + 3)
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
