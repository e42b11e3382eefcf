"""Speech recognition's guesses weighed by opening theory (found by bench/chess_moves.py on tiny.en)."""

import chess
import pytest

from tutorialbook.skills.chess.lines import track_lines
from tutorialbook.skills.chess.moves import find_mentions
from tutorialbook.skills.chess.openings import in_book, lookup
from tutorialbook.acquire.transcript import Segment

KINGS_INDIAN = "1. d4 Nf6 2. c4 g6 3. Nc3 Bg7 4. e4 d6 5. Nf3 O-O."
POISONED_PAWN = "1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 6. Bg5 e6 7. f4 Qb6 8. Qd2 Qxb2."
TWO_KNIGHTS = "1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 4. Ng5 d5 5. exd5 Nxd5."
FRENCH_ADVANCE = "1. e4 e6 2. d4 d5 3. e5 c5 4. c3 Nc6 5. Nf3"
MILNER_BARRY = FRENCH_ADVANCE + " Qb6 6. Bd3 cxd4 7. cxd4."


def play(sans: str) -> chess.Board:
    board = chess.Board()
    for san in sans.split():
        board.push_san(san)
    return board


def sans_after(setup: str, said: str) -> list[str]:
    """The moves `said` adds to the line `setup` plays."""
    played = len([t for t in setup.split() if not t[0].isdigit()])
    events = track_lines([Segment(0.0, 9.0, setup), Segment(10.0, 19.0, said)])
    return [e.san for e in events[played:]]


@pytest.mark.parametrize(
    ("sans", "known"),
    [
        ("", True),
        ("e4 e6 d4 d5 e5 c5 c3 Nc6 Nf3 Qb6", True),  # unnamed, on the way to 6. a3 and 6. Bd3
        ("e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6 Bg5 e6 f4 Qb6 Qd2 Qxb2 Rb1 Qa3", True),
        ("d4 Nf6 c4 g6 Nc3 Bg7 e4 d6 Nf3 O-O Bd2", False),
        ("e4 e5 Ke2 Ke7", False),
    ],
)
def test_in_book_covers_every_position_of_the_listed_lines(sans, known):
    board = play(sans)
    assert in_book(board.epd()) is known
    assert in_book(board.fen()) is known  # a FEN's counters are ignored, like lookup's


def test_in_book_is_wider_than_the_named_positions():
    board = play("e4 e6 d4 d5 e5 c5 c3 Nc6 Nf3 Qb6")
    assert lookup(board.epd()) is None and in_book(board.epd())


@pytest.mark.parametrize(
    ("setup", "said", "expected"),
    [
        # a sound-alike that stays in theory, with the next move in theory too, beats the move as heard
        (KINGS_INDIAN, "White plays bishop to d2, and black strikes with pawn to e5.", ["Be2", "e5"]),
        (KINGS_INDIAN, "White plays bishop to e2, and black strikes with pawn to e5.", ["Be2", "e5"]),
        # both moves misheard: the second may be a sound-alike in theory too (d5 for e5)
        (KINGS_INDIAN, "White plays bishop to d2, and black strikes with pawn to d5.", ["Bd2", "d5"]),
        # one book move alone does not outweigh what was heard
        (KINGS_INDIAN, "White plays bishop to d2.", ["Bd2"]),
        # nor does it when the next move leaves theory anyway
        (KINGS_INDIAN, "White plays bishop to d2, and black plays pawn to a5.", ["Bd2", "a5"]),
        # notation is typed, not heard: it stands
        (KINGS_INDIAN, "White plays Bd2, and black strikes with e5.", ["Bd2", "e5"]),
        # a tie of sound-alikes (b6 and d6 for the impossible e6) goes to the one in theory
        (FRENCH_ADVANCE + ".", "The queen comes to e6, pressing on d4.", ["Qb6"]),
    ],
)
def test_sound_alikes_weighed_by_theory(setup, said, expected):
    assert sans_after(setup, said) == expected


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        # the next sentence's first move confirms the guesses: 6. Be2 e5 7. O-O
        (("White plays bishop to d2, and black strikes with pawn to d5.", "White castles too."), ["Be2", "e5", "O-O"]),
        # without it the moves stand as heard
        (("White plays bishop to d2, and black strikes with pawn to d5.",), ["Bd2", "d5"]),
        # a sentence that goes back first confirms nothing
        (
            ("White plays bishop to d2, and black strikes with pawn to d5.", "We start again with pawn to d4."),
            ["Bd2", "d5", "d4"],
        ),
    ],
)
def test_the_next_sentence_confirms_a_guess(said, expected):
    segments = [Segment(0.0, 9.0, KINGS_INDIAN)] + [Segment(10.0 * i, 10.0 * i + 9, t) for i, t in enumerate(said, 1)]
    assert [e.san for e in track_lines(segments)[10:]] == expected


@pytest.mark.parametrize(
    ("setup", "said", "expected"),
    [
        # nothing fits the heard square: a book move to another file of that rank stands in ...
        (POISONED_PAWN, "White continues with rook to b1, and the queen retreats to h3.", ["Rb1", "Qa3"]),
        (TWO_KNIGHTS, "Now I'd take c7, the Fried Liver.", ["Nxf7"]),
        # ... but only after a move word: "the queen to h3" may be a place misheard
        (POISONED_PAWN, "White continues with rook to b1, and the queen to h3.", ["Rb1"]),
        # "ee" for "ay" is a sound-alike, as a rhyme is: theory picks a3 over the rhyming b3, which
        # leaves it, without a move word
        (POISONED_PAWN, "White continues with rook to b1, and the queen to e3.", ["Rb1", "Qa3"]),
        ("1. e4 e5 2. Nf3 Nc6 3. Bb5.", "Putting pressure on the knight to f5.", []),  # "that defends e5"
        # without a move word, the next move in theory confirms the stand-in: 5. a3 Bxc3+ of the Winawer
        (
            "1. e4 e6 2. d4 d5 3. Nc3 Bb4 4. e5 c5.",
            "Then pawn to e3, bishop takes c3 check, and b takes c3.",
            ["a3", "Bxc3+", "bxc3"],
        ),
        # a legal heard square is never replaced by another file
        (POISONED_PAWN, "White continues with rook to b1, and the queen retreats to b3.", ["Rb1", "Qb3"]),
    ],
)
def test_book_move_stands_in_only_when_nothing_fits_as_heard(setup, said, expected):
    assert sans_after(setup, said) == expected


@pytest.mark.parametrize(
    ("phrase", "acted"),
    [
        ("the queen retreats to e3", True),
        ("I'd take c7", True),
        ("queen to e3", False),
        ("the knight to f5", False),
    ],
)
def test_a_move_word_is_told_from_a_bare_to(phrase, acted):
    mention = find_mentions(phrase)[0]
    assert mention.acted is acted


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        # "Instead of pawn to e5" heard "Now that we're in standard pawn to e5": the move said again,
        # then one that fits nowhere at the cursor but in place of it
        (
            "Now that we're in standard pawn to e5, white can play knight to c3, and black pins it with bishop to b4.",
            [(2, 5, "Nc3", 1), (2, 6, "Bb4", 1)],
        ),
        # a move said again with nothing after it changes nothing
        ("Remember pawn to e5.", []),
        # in another sentence the repeat is no anchor
        ("Pawn to e5 was strong. White can play knight to c3.", []),
    ],
)
def test_a_lost_instead_of_is_recovered_from_the_move_said_again(said, expected):
    events = track_lines([Segment(0.0, 9.0, MILNER_BARRY), Segment(10.0, 19.0, said)])
    assert [(e.line, e.ply, e.san, e.branch_of) for e in events[13:]] == expected
    if expected:
        assert events[13].epd_before == play("e4 e6 d4 d5").epd()


@pytest.mark.parametrize(
    ("setup", "said", "expected"),
    [
        # capture geometry: a pawn on the e-file takes on d or f only, so "c4" after "take" is d4;
        # "castling" heard "canceling"
        (KINGS_INDIAN + " 6. Be2 e5 7. O-O", "Black should not take will e take c4.", ["exd4"]),
        (
            KINGS_INDIAN + " 6. Be2 e5 7. O-O",
            "Instead of canceling, white can play d take c5, and d take c5.",
            ["dxe5", "dxe5"],
        ),
    ],
)
def test_capture_heard_on_a_rhyming_file(setup, said, expected):
    assert sans_after(setup, said) == expected
