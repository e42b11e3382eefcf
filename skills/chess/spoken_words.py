"""The words of spoken chess and the sound-alikes speech recognition writes for them.

Piece names (and what ASR hears for them), move words, colours, numbers, the letters and numbers
written for a spoken file or square, and the weights each guess is worth. Only tables and the one
rule every reader of a square shares (`sounding_like`): `tokens` reads words by them, `moves`
finds mentions by them, `mention` and `rehearing` weigh squares by them.
"""

from __future__ import annotations

import re

import chess

_PIECE_WORDS = {
    chess.PAWN: "pawn pawns pon paun porn",
    # and the words that rhyme with it, speech recognition having lost or changed its first sound ("height c6",
    # "black develops sight c6"; "dite f6": the nasal "n" heard as the "d" said at the same place)
    chess.KNIGHT: "knight knights night nights nite knite height heights sight sights site sites dite dites dight",
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
    # and "-capture" heard "catch" ("black will catch us with the queen"), read only with the piece named after it
    "recapture": "recaptures recapture recaptured recapturing retakes retake retook catch catches",
    "check": "check checks czech cheque chek",
    "mate": "checkmate checkmates mate mates",
    "castle": "castles castle castled castling castel castels canceling cancelling",
    "promote": "promotes promote promoted promoting promotion becomes equals underpromotes underpromote",
    "to": "to too into onto do",
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
# ... or with a word that leads up to a move: "andite, c6" for "and knight c6", "isite to f5"; the article and
# a conjunction before a clause's subject too ("theite jumps to e7", "becauseite takes f7")
_GLUE_WORDS = {"and", "then", "is", "the", "because"}
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


def sounding_like(file: int) -> tuple[int, ...]:
    """The files a spoken file letter may have been heard as: the rhyming ones, "a" and "e"."""
    rhymes = RHYMING_FILES if file in RHYMING_FILES else ()
    return rhymes + _VOWEL_FILES.get(file, ())
