"""ECO classification by position: named lines, transpositions, and the family/variation split."""

import csv
import io
from importlib import resources

import chess
import pytest

from tutorialbook.skills.chess.openings import (Opening, by_occupancy, classify, family, lookup, named_in,
                                                path_to, variation)
from tests.support.chess_lessons import epd_after

NAJDORF = "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6"


def play(sans: str) -> chess.Board:
    board = chess.Board()
    for san in sans.split():
        board.push_san(san)
    return board


def test_najdorf_english_attack():
    opening = classify(play(NAJDORF + " Be3"))
    assert opening == Opening(
        "B90",
        "Sicilian Defense: Najdorf Variation, English Attack",
        "1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 6. Be3",
    )
    assert (opening.family, opening.variation) == ("Sicilian Defense", "Najdorf Variation")


def test_unnamed_continuation_keeps_the_last_name():
    opening = classify(play(NAJDORF + " Be3 e5 Nb3"))  # 7. Nb3 has no row of its own
    assert opening.pgn.endswith("6. Be3")


def test_longest_named_line_wins():
    assert classify(play(NAJDORF + " Be3 e5 Nb3 Be6 f3")).pgn.endswith("7. Nb3 Be6 8. f3")


@pytest.mark.parametrize(
    ("order", "eco", "name"),
    [
        ("e4 c5 Nf3 Nf6 Nc3 d6 d4 cxd4 Nxd4 a6", "B90", "Sicilian Defense: Najdorf Variation"),
        ("Nf3 d5 d4", "D02", "Queen's Pawn Game: Zukertort Variation"),
        ("c4 e6 Nc3 d5 d4 Nf6", "D35", "Queen's Gambit Declined: Normal Defense"),
        ("e4 e5 Bc4 Bc5 Nf3 Nc6", "C50", "Italian Game: Giuoco Piano"),
        ("Nf3 Nf6 c4 e6 Nc3 d5 d4", "D37", "Queen's Gambit Declined: Three Knights Variation"),
    ],
)
def test_transpositions_are_named_by_position(order, eco, name):
    opening = classify(play(order))
    assert (opening.eco, opening.name) == (eco, name)
    assert play(" ".join(t for t in opening.pgn.split() if not t[0].isdigit())).epd() == play(order).epd()


def test_board_from_fen_names_only_its_own_position():
    najdorf = play(NAJDORF)
    assert classify(chess.Board(najdorf.fen())).name == "Sicilian Defense: Najdorf Variation"
    assert classify(chess.Board(play(NAJDORF + " Be3 e5 Nb3").fen())) is None


def test_initial_position_and_first_moves():
    assert classify(chess.Board()) is None
    assert classify(play("e4")) == Opening("B00", "King's Pawn Game", "1. e4")
    assert classify(play("d4")).eco == "A40"


def test_classify_leaves_the_board_alone():
    board = play(NAJDORF + " Be3 e5 Nb3")
    before = (board.fen(), list(board.move_stack))
    classify(board)
    assert (board.fen(), list(board.move_stack)) == before


def test_lookup_takes_fen_or_epd():
    board = play(NAJDORF)
    assert lookup(board.fen()).eco == "B90"
    assert lookup(board.epd()).eco == "B90"
    assert lookup(play("a3 a6 b3").fen()) is None


@pytest.mark.parametrize(
    ("name", "fam", "var"),
    [
        ("Sicilian Defense: Najdorf Variation, English Attack", "Sicilian Defense", "Najdorf Variation"),
        ("Sicilian Defense: Najdorf Variation", "Sicilian Defense", "Najdorf Variation"),
        (
            "Queen's Gambit Declined: Exchange Variation, Positional Variation",
            "Queen's Gambit Declined",
            "Exchange Variation",
        ),
        ("Barnes Defense", "Barnes Defense", None),
        ("King's Pawn Game", "King's Pawn Game", None),
    ],
)
def test_family_and_variation(name, fam, var):
    assert family(name) == fam
    assert variation(name) == var


def _rows():
    data = resources.files("tutorialbook.skills.chess").joinpath("data")
    for letter in "abcde":
        yield from csv.DictReader(
            io.StringIO(data.joinpath(f"{letter}.tsv").read_text(encoding="utf-8")), delimiter="\t"
        )


def test_every_row_is_indexed_under_its_own_position():
    rows = list(_rows())
    assert len(rows) > 3000
    for row in rows:
        board = play(" ".join(t for t in row["pgn"].split() if not t[0].isdigit()))
        assert lookup(board.epd()) == Opening(row["eco"], row["name"], row["pgn"])


def test_data_ships_with_its_licence_and_attribution():
    data = resources.files("tutorialbook.skills.chess").joinpath("data")
    assert "CC0 1.0 Universal" in data.joinpath("COPYING.txt").read_text(encoding="utf-8")
    readme = data.joinpath("README.txt").read_text(encoding="utf-8")
    assert "ATTRIBUTION" in readme and "lichess-org/chess-openings" in readme


def test_a_title_names_the_opening_a_lesson_walks_through():
    najdorf = named_in("Sicilian Najdorf: the English Attack explained")  # not the list's own wording
    assert epd_after("e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6") in najdorf
    assert epd_after("e4 e5") not in najdorf
    # the most words named win: the King's Indian, not every "Indian Defense"
    kings = named_in("Kings Indian Defense for club players")
    assert epd_after("d4 Nf6 c4 g6") in kings and epd_after("d4 Nf6 c4 e6 Nc3 Bb4") not in kings
    assert named_in("caro kann") == named_in("The Caro-Kann Defense")
    assert named_in("Grunfeld Defense") == named_in("Grünfeld Defense") != frozenset()  # accents or none
    assert epd_after("d4 Nf6 c4 g6 Nc3 d5") in named_in("The Grunfeld")
    assert epd_after("e4 c6 d4 d5") in named_in("caro kann")


def test_a_title_that_names_no_opening_names_no_line():
    for title in ("Chess for beginners", "How to bake bread", "Defense and attack", "My main line", ""):
        assert named_in(title) == frozenset(), title


def test_a_remembered_epd_is_the_boards_own():
    """openings.epd keys a position by its pieces, side, castling rights and en passant square;
    what it returns must be Board.epd() whatever the history (en passant shown only when legal)."""
    from tests.support.chess_lessons import random_positions
    from tutorialbook.skills.chess import openings

    for board in random_positions(11, games=100, plies=60):
        assert openings.epd(board) == board.epd()
        assert openings.board_in_book(board) == openings.in_book(board.epd())
    after_e4 = chess.Board()
    after_e4.push_san("e4")  # an en passant square no capture can use: not in the EPD
    assert openings.epd(after_e4) == after_e4.epd() and openings.epd(after_e4).endswith(" -")
    board = chess.Board("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3")
    assert openings.epd(board).endswith(" f6") and openings.epd(board) == board.epd()


def test_where_pieces_stand_names_the_positions_of_theory_that_put_them_there():
    """What a board reader sees before it knows a piece set: the occupied squares. The Ruy Lopez
    after 3...a6 is the one position of the list with its pieces there; squares no line reaches
    name none; the start is one of them. A few sets of squares are two positions' (11 of 7,838):
    both are named, so a reader can tell it cannot choose."""
    board = chess.Board()
    for san in "e4 e5 Nf3 Nc6 Bb5 a6".split():
        board.push_san(san)
    assert [b.board_fen() for b in by_occupancy(board.occupied)] == [board.board_fen()]
    start = chess.BB_RANK_1 | chess.BB_RANK_2 | chess.BB_RANK_7 | chess.BB_RANK_8
    assert [b.board_fen() for b in by_occupancy(start)] == [chess.STARTING_BOARD_FEN]
    off_book = chess.Board()
    for san in "a4 h5 Ra3 Rh6".split():
        off_book.push_san(san)
    assert by_occupancy(off_book.occupied) == ()
    assert by_occupancy(board.occupied ^ chess.BB_E4) == ()  # one square missing is another set
    scotch = chess.BaseBoard("r1bqkb1r/pppp1ppp/2n2n2/8/3NP3/2N5/PPP2PPP/R1BQKB1R")  # a knight or a pawn on d4
    assert sorted(b.board_fen() for b in by_occupancy(scotch.occupied)) == \
        ["r1bqkb1r/pppp1ppp/2n2n2/8/3NP3/2N5/PPP2PPP/R1BQKB1R", "r1bqkb1r/pppp1ppp/2n2n2/8/3PP3/2N5/PPP2PPP/R1BQKB1R"]


def test_a_position_of_theory_is_reached_by_the_moves_of_the_first_line_through_it():
    """What a board tracker replays to follow a lesson that opens on a position: the SAN moves of
    a line of the list that reaches its pieces (so its side to move and castling rights are
    theory's); none for pieces no line puts there."""
    board = chess.Board()
    for san in "e4 e5 Nf3 Nc6 Bb5 a6".split():
        board.push_san(san)
    path = path_to(board.board_fen())
    replay = chess.Board()
    for san in path:
        replay.push_san(san)
    assert replay.board_fen() == board.board_fen() and replay.turn == chess.WHITE and replay.has_castling_rights(
        chess.WHITE)
    assert path_to(chess.STARTING_BOARD_FEN) == ()
    off_book = chess.Board()
    for san in "a4 h5 Ra3 Rh6".split():
        off_book.push_san(san)
    assert path_to(off_book.board_fen()) is None
