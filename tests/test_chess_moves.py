"""Spoken moves to legal moves: phrasing tables, ASR confusions, refusals, and a narrated-game property."""

import chess
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tutorialbook.skills.chess.moves import find_mentions, find_moves, parse_spoken_move
from tutorialbook.skills.chess.vocabulary import INITIAL_PROMPT, looks_like_chess

START = ""
RUY = "e4 e5 Nf3 Nc6 Bb5 a6"
QGD = "d4 Nf6 c4 e6 Nc3 d5 Bg5"  # both black knights can reach d7
CASTLING = "fen:r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"
PROMOTION = "fen:3r4/4P3/8/8/8/8/k7/4K3 w - - 0 1"
ROOKS = "fen:4k3/8/8/8/R7/8/8/R3K3 w - - 0 1"
BACK_RANK = "fen:6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"
QUEEN_CHECK = "fen:8/8/8/8/8/8/7k/3QK3 w - - 0 1"


def board_from(setup: str) -> chess.Board:
    if setup.startswith("fen:"):
        return chess.Board(setup[4:])
    board = chess.Board()
    for san in setup.split():
        board.push_san(san)
    return board


PHRASES = [
    # plain narration
    (START, "pawn to e4", "e4"),
    (START, "e4", "e4"),
    (START, "1. e4", "e4"),
    (START, "knight f3", "Nf3"),
    (START, "Nf3", "Nf3"),
    (START, "the knight goes to f3", "Nf3"),
    (START, "e2e4", "e4"),
    (START, "g1f3", "Nf3"),
    ("e4 d5", "e takes d5", "exd5"),
    ("e4 d5", "exd5", "exd5"),
    ("e4 d5", "pawn takes on d5", "exd5"),
    ("e4 e5 d4", "pawn takes on d4", "exd4"),
    (RUY, "bishop takes c6", "Bxc6"),
    (RUY, "Bxc6", "Bxc6"),
    (RUY, "bishop takes the knight on c6", "Bxc6"),
    (RUY, "bishop takes knight", "Bxc6"),
    (RUY, "bishop a4", "Ba4"),
    (RUY, "the bishop retreats to a4", "Ba4"),
    (RUY, "castles kingside", "O-O"),
    (RUY, "castles short", "O-O"),
    (RUY, "short castles", "O-O"),
    (RUY, "white castles", "O-O"),
    (RUY, "O-O", "O-O"),
    (RUY, "0-0", "O-O"),
    (RUY + " Bxc6", "recaptures with the d pawn", "dxc6"),
    (RUY + " Bxc6", "takes back with the b pawn", "bxc6"),
    (RUY + " Bxc6", "d takes c6", "dxc6"),
    (RUY + " Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Na5 Bc2 c5 d4 Qc7 Nbd2 cxd4 cxd4", "the knight recaptures", None),
    ("e4 e5 Nf3 Nc6 d4 exd4", "the knight recaptures", "Nxd4"),
    ("e4 e5 Nf3 Nc6 d4 exd4", "recaptures with the queen", "Qxd4"),
    ("e4 e5 Nf3 Nc6 d4 exd4 Nxd4 Nf6 Nxc6", "recaptures with the b pawn", "bxc6"),
    (QGD, "knight b d7", "Nbd7"),
    (QGD, "knight f d7", "Nfd7"),
    (QGD, "knight from b8 to d7", "Nbd7"),
    (QGD, "knight b8 d7", "Nbd7"),
    (QGD, "Nbd7", "Nbd7"),
    (QUEEN_CHECK, "queen to d2 check", "Qd2+"),
    (QUEEN_CHECK, "Qd2+", "Qd2+"),
    (CASTLING, "castles long", "O-O-O"),
    (CASTLING, "castles queenside", "O-O-O"),
    (CASTLING, "castles on the queen side", "O-O-O"),
    (CASTLING, "long castles", "O-O-O"),
    (CASTLING, "O-O-O", "O-O-O"),
    (CASTLING, "castles on the king's side", "O-O"),
    (PROMOTION, "e8 promotes to a queen", "e8=Q"),
    (PROMOTION, "e8 equals knight", "e8=N"),
    (PROMOTION, "pawn to e8", "e8=Q"),
    (PROMOTION, "e8=R", "e8=R"),
    (PROMOTION, "e takes d8 and promotes to a knight", "exd8=N"),
    (PROMOTION, "pawn takes the rook", "exd8=Q"),
    (ROOKS, "rook one a2", "R1a2"),
    (ROOKS, "rook 4 a2", "R4a2"),
    (ROOKS, "rook from a4 to a2", "R4a2"),
    (BACK_RANK, "rook a8 checkmate", "Ra8#"),
    (BACK_RANK, "rook to a8 mate", "Ra8#"),
    ("e4 Nf6 e5 d5", "e takes d6 en passant", "exd6"),
    ("e4 Nf6 e5 d5", "pawn takes d6", "exd6"),
    ("e4 e5", "queen h5", "Qh5"),
    ("e4 e5", "king to e2", "Ke2"),
    # speech recognition confusions
    (START, "Pawn to E4", "e4"),
    (START, "pawn to e four", "e4"),
    (START, "pawn to 84", "e4"),
    (START, "point 24", "e4"),
    (START, "pawn 2 e4", "e4"),
    (START, "d-four", "d4"),
    (START, "pawn to d 4", "d4"),
    (START, "pawn to before", "b4"),
    (START, "pawn to sea four", "c4"),
    (START, "pawn to c for", "c4"),
    (START, "night to F3", "Nf3"),
    (START, "nite to f three", "Nf3"),
    (START, "height to c3", "Nc3"),
    (START, "knight to see three", "Nc3"),
    ("e4 e5", "queen to age 5", "Qh5"),
    ("e4 e5 Nf3", "height to c 6", "Nc6"),
    ("e4 e5 d4", "pawn take c4", "exd4"),
    ("e4 d5", "pawn take d5", "exd5"),
    (RUY, "bishup takes c6", "Bxc6"),
    (RUY, "castle's kingside", "O-O"),
    ("fen:4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "rock to a8 check", "Ra8+"),
    ("fen:4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "brook d1", "Rd1"),
    (QUEEN_CHECK, "queen to d2 czech", "Qd2+"),
]


@pytest.mark.parametrize(("setup", "phrase", "expected"), PHRASES)
def test_phrase(setup, phrase, expected):
    board = board_from(setup)
    move = parse_spoken_move(board, phrase)
    assert (board.san(move) if move else None) == expected


REFUSALS = [
    (START, "hello world"),
    (START, "the weather is nice today"),
    (START, "knight"),
    (START, "pawn to e5"),  # Black's move, White to play
    (START, "bishop b5"),  # blocked
    (START, "castles"),
    (START, "knight to d2"),  # no knight reaches d2
    (START, "d2"),
    (QGD, "knight to d7"),  # two knights
    ("e4 e5 Nf3 Nc6 d4 exd4 Nxd4 Nxd4 Qxd4", "recaptures"),
    (CASTLING, "castles"),  # which side?
    (RUY, "rook to h8"),
    (RUY, "takes"),
    ("e4 d5", "pawn takes on d4"),  # d2-d4 is no capture
]


@pytest.mark.parametrize(("setup", "phrase"), REFUSALS)
def test_refusal(setup, phrase):
    assert parse_spoken_move(board_from(setup), phrase) is None


def test_pawn_to_24_prefers_the_e_file_only_as_a_spoken_to():
    board = chess.Board()
    assert parse_spoken_move(board, "point 24") == chess.Move.from_uci("e2e4")
    assert parse_spoken_move(board, "twenty four") is not None


def test_sound_alike_file_only_when_nothing_fits_exactly():
    board = board_from("e4 e5 d4")
    assert board.san(parse_spoken_move(board, "pawn takes d4")) == "exd4"
    board = board_from("e4 e5 d4 d6")
    assert board.san(parse_spoken_move(board, "pawn to c4")) == "c4"


def test_phrase_with_two_moves_is_refused():
    assert parse_spoken_move(chess.Board(), "e4 or d4") is None


def test_board_is_not_changed():
    board = board_from(RUY)
    fen = board.fen()
    parse_spoken_move(board, "rook a8 checkmate")
    parse_spoken_move(board, "bishop takes c6")
    find_moves(board, "bishop takes c6 and d takes c6")
    assert board.fen() == fen


# --- find_moves ---------------------------------------------------------------------------------


def sans(board, found):
    b = board.copy()
    out = []
    for move, _ in found:
        out.append(b.san(move))
        b.push(move)
    return out


@pytest.mark.parametrize(
    ("setup", "text", "expected"),
    [
        (START, "e4 e5 knight f3 knight c6", ["e4", "e5", "Nf3", "Nc6"]),
        (START, "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6", ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]),
        (START, "1.e4 e5 2.Nf3", ["e4", "e5", "Nf3"]),
        ("e4", "1...e5 2. Nf3", ["e5", "Nf3"]),
        ("e4", "1. ... c5", ["c5"]),
        (START, "e2e4 e7e5 g1f3", ["e4", "e5", "Nf3"]),
        (START, "White plays e4 and black answers with c5.", ["e4", "c5"]),
        (
            START,
            "After e4 e5 the knight goes to f3, black defends with knight c6 and the bishop comes to b5.",
            ["e4", "e5", "Nf3", "Nc6", "Bb5"],
        ),
        (START, "Pawn to E4. Pawn to e5. Night to F3, height to c6.", ["e4", "e5", "Nf3", "Nc6"]),
        (RUY, "Bishop takes c6, d takes c6, and white castles.", ["Bxc6", "dxc6", "O-O"]),
        (RUY, "The bishop retreats to a4, knight f6, castles kingside.", ["Ba4", "Nf6", "O-O"]),
        (RUY, "Now you should castle.", ["O-O"]),
        (RUY, "White castles.", ["O-O"]),
        (START, "e4 e4 e5", ["e4", "e5"]),  # a repeat is not legal for Black and is skipped
    ],
)
def test_find_moves(setup, text, expected):
    board = board_from(setup)
    assert sans(board, find_moves(board, text)) == expected


def test_find_moves_spans_quote_the_words():
    text = "First the knight goes to f3, then black plays knight c6."
    found = find_moves(chess.Board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"), text)
    assert [text[s:e] for _, (s, e) in found] == ["knight goes to f3", "black plays knight c6"]


@pytest.mark.parametrize(
    ("setup", "text"),
    [
        ("e4", "The d5 square is weak."),
        ("e4", "The knight on f6 would be strong."),
        ("e4", "Black wants control of e5 and pressure on d5."),
        ("e4", "The e5 pawn, the c5 break and the d5 push are typical ideas."),
        ("e4", "The f6 knight is good."),
        (START, "Before we start, grab a coffee."),
        (START, "It takes a 6 month plan and a 3 hour session."),
        (START, "See 4 examples, be 5 minutes early, age 3 and up."),
        (START, "We will discuss castling rights and the king's safety."),
        (START, "The queen is powerful and the rook loves open files."),
        (START, "He was born in 1984 and won 24 games."),
        (START, "Good night, see you in the next video."),
        (START, "It takes time to learn the rook endgame."),
        (RUY, "Always castle early to keep your king safe."),
        (RUY, "The castle has a tower, the rook."),
    ],
)
def test_ordinary_sentences_make_no_moves(setup, text):
    board = board_from(setup)
    assert find_moves(board, text) == []


def test_the_filtered_squares_are_legal_moves():
    """The refusals above come from reading, not from legality: the squares are playable."""
    board = board_from("e4")
    for uci in ("d7d5", "g8f6", "e7e5", "c7c5", "g8f6"):
        assert chess.Move.from_uci(uci) in board.legal_moves
    assert chess.Move.from_uci("b2b4") in chess.Board().legal_moves


def test_mentions_carry_move_numbers_and_sides():
    first, second, third = find_mentions("3. Bb5 a6 4... Nf6")
    assert (first.move_number, first.black) == (3, False)
    assert (second.move_number, second.black) == (None, None)
    assert (third.move_number, third.black) == (4, True)
    (m,) = find_mentions("black plays knight c6")
    assert m.side == chess.BLACK
    assert parse_spoken_move(chess.Board(), "black plays knight c6") is None


def test_weak_squares_need_a_move_word_in_narration():
    assert find_moves(chess.Board(), "before") == []
    assert sans(chess.Board(), find_moves(chess.Board(), "pawn to before")) == ["b4"]
    assert sans(chess.Board(), find_moves(chess.Board(), "point 24")) == ["e4"]
    assert find_moves(chess.Board(), "84") == []


# --- a narrated game, parsed back ---------------------------------------------------------------

PIECE_SAID = {
    chess.PAWN: ["pawn"],
    chess.KNIGHT: ["knight", "night", "height", "nite", "Knight"],
    chess.BISHOP: ["bishop", "bishup"],
    chess.ROOK: ["rook", "rock", "brook"],
    chess.QUEEN: ["queen"],
    chess.KING: ["king"],
}
NUMBER_WORDS = ["one", "two", "three", "four", "five", "six", "seven", "eight"]


def say_square(draw, square: int, after_to: bool) -> str:
    name = chess.square_name(square)
    forms = [
        name,
        name.upper(),
        f"{name[0]} {name[1]}",
        f"{name[0]} {NUMBER_WORDS[int(name[1]) - 1]}",
        f"{name[0]}-{NUMBER_WORDS[int(name[1]) - 1]}",
    ]
    if name == "b4":
        forms.append("before")
    if name[0] == "e" and after_to:
        forms.append(f"8{name[1]}")
    return draw(st.sampled_from(forms))


def narrate(draw, board: chess.Board, move: chess.Move) -> str:
    """Say a move the way a narrator and then whisper tiny.en might write it."""
    san = board.san(move)
    check = " checkmate" if san.endswith("#") else (" check" if san.endswith("+") else "")
    if board.is_castling(move):
        kingside = board.is_kingside_castling(move)
        side = draw(
            st.sampled_from(["kingside", "short", "king side"] if kingside else ["queenside", "long", "queen side"])
        )
        phrase = draw(
            st.sampled_from([f"castles {side}", f"castle's {side}", f"{side} castles", "O-O" if kingside else "O-O-O"])
        )
        return phrase + check
    if draw(st.integers(0, 4)) == 0:
        return san
    piece = board.piece_type_at(move.from_square)
    capture = board.is_capture(move)
    body = san.rstrip("+#").split("=")[0]
    hint = ""
    if piece == chess.PAWN:
        if capture:
            hint = chess.FILE_NAMES[chess.square_file(move.from_square)]
            who = draw(st.sampled_from([hint, f"the {hint} pawn"]))
        else:
            who = "pawn"
    else:
        word = draw(st.sampled_from(PIECE_SAID[piece]))
        dis = body[1:].replace("x", "")[:-2]  # SAN disambiguation: "", file, rank or square
        if len(dis) == 2:
            hint = draw(st.sampled_from([f" from {dis} to", f" {dis}"]))
        elif dis.isdigit():
            hint = " " + draw(st.sampled_from([dis, NUMBER_WORDS[int(dis) - 1]]))
        elif dis:
            hint = f" {dis}"
        who = word + hint
    if capture:
        verb = draw(st.sampled_from(["takes", "take", "captures", "takes on"]))
        phrase = f"{who} {verb} {say_square(draw, move.to_square, False)}"
    elif piece == chess.PAWN:
        template = draw(st.sampled_from(["{who} to {sq}", "{who} 2 {sq}", "{sq}"]))
        if template == "{sq}":  # a bare spoken square is only a move when written as one
            square = chess.square_name(move.to_square)
            phrase = draw(st.sampled_from([square, square.upper()]))
        else:
            phrase = template.format(who=who, sq=say_square(draw, move.to_square, "to" in template))
    else:
        template = draw(st.sampled_from(["{who} to {sq}", "{who} {sq}", "the {who} goes to {sq}"]))
        if " from " in who and template.startswith("the"):
            template = "{who} {sq}"
        phrase = template.format(who=who, sq=say_square(draw, move.to_square, "to" in template))
    if move.promotion:
        promoted = chess.piece_name(move.promotion)
        phrase += draw(
            st.sampled_from([f" promotes to a {promoted}", f" and promotes to a {promoted}", f" equals {promoted}"])
        )
    return phrase + check


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_narrated_random_games_parse_back(data):
    board = chess.Board()
    phrases = []
    for _ in range(data.draw(st.integers(1, 30), label="plies")):
        moves = sorted(board.legal_moves, key=lambda m: m.uci())
        if not moves:
            break
        move = data.draw(st.sampled_from(moves), label="move")
        phrase = narrate(data.draw, board, move)
        assert parse_spoken_move(board, phrase) == move, (board.fen(), phrase, board.san(move))
        phrases.append(phrase)
        board.push(move)
    game = chess.Board()
    assert [m for m, _ in find_moves(game, ", ".join(phrases))] == board.move_stack


# --- vocabulary ---------------------------------------------------------------------------------


def test_initial_prompt_is_a_short_chess_sentence():
    assert 100 < len(INITIAL_PROMPT) < 700 and len(INITIAL_PROMPT.split()) < 100  # whisper keeps ~224 prompt tokens
    assert "knight to f3" in INITIAL_PROMPT and "castles kingside" in INITIAL_PROMPT
    assert looks_like_chess(INITIAL_PROMPT)


def test_initial_prompt_moves_are_a_legal_game_we_parse():
    """The model imitates the prompt's written forms: they must be the forms the parser reads."""
    board = chess.Board()
    expected = "e4 e5 Nf3 Nc6 Bb5 a6 Bxc6 dxc6 O-O f6 d4 exd4 Nxd4 c5 Nb3 Qxd1 Rxd1".split()
    assert sans(board, find_moves(board, INITIAL_PROMPT)) == expected


@pytest.mark.parametrize(
    "text",
    [
        "In the Sicilian Defense, after e4 c5 the knight goes to f3 and white plays d4.",
        "Pawn to e4, knight to f3, bishop to c4. Black castles kingside and the rook comes to e8.",
        "Today we look at the Queen's Gambit. After d4 d5 c4, black can take on c4.",
        "The Ruy Lopez starts with e4 e5 Nf3 Nc6 Bb5.",
    ],
)
def test_looks_like_chess(text):
    assert looks_like_chess(text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "In this video we bake a sourdough bread with a long fermentation.",
        "The king and queen of England visited the castle, and the knight bowed.",
        "Set the A4 paper size, then check the print preview and open the file.",
        "We open the defense budget debate. The attack on the plan was a gambit by the opposition.",
        "Chess is mentioned once in this long talk about gardening " + "tomatoes need sun and water " * 20,
    ],
)
def test_does_not_look_like_chess(text):
    assert not looks_like_chess(text)


# --- speech recognition confusions in running narration (found by bench/chess_moves.py) -----------

CARO = "e4 c6 d4 d5 Nc3"
QGD_EXCHANGE = "d4 d5 c4 e6 Nc3 Nf6 Bg5 Nbd7 cxd5"
BERLIN = "e4 e5 Nf3 Nc6 Bb5 Nf6 O-O Nxe4 d4 Nd6 Bxc6 dxc6"
ITALIAN_TWO_KNIGHTS = "e4 e5 Nf3 Nc6 Bc4 Nf6"


@pytest.mark.parametrize(
    ("setup", "text", "expected"),
    [
        # "takes d4" heard "take c4" / "takes c5": the s and the letter ran together as "see"
        (CARO, "and d take c4.", ["dxe4"]),
        (BERLIN, "d takes c5, knight to f5.", ["dxe5", "Nf5"]),
        (BERLIN + " dxe5 Nf5", "queen take c8, check, and king takes d8.", ["Qxd8+", "Kxd8"]),
        # ... but a c-file capture that is legal is still what was heard
        ("d4 d5 c4", "d takes c4", ["dxc4"]),
        # the file letter before "takes" rhymes too: "d take c5" for "e takes d5"
        (QGD_EXCHANGE, "and d take c5.", ["exd5"]),
        # "plays knight" heard as one word
        ("e4 e6 d4 d5 e5 c5 c3", "Black playsite to c6, and white answersite to f3.", ["Nc6", "Nf3"]),
        ("e4 c6 d4 d5 Nc3 dxe4 Nxe4 Nd7 Qe2", "Black should playite df6.", ["Ndf6"]),
        # "knight takes" heard "I'd take" / "I to take"
        (QGD_EXCHANGE + " exd5", "A common mistake is I to take c5, because I to take c5.", ["Nxd5", "Nxd5"]),
        ("e4 e6 d4 d5 e5 c5 c3 Nc6 Nf3 Qb6 Bd3 cxd4 cxd4", "now I'd take c4", ["Nxd4"]),
        # ... only a preference: "I'd take on d5" finds the pawn when no knight can
        ("e4 d5", "I'd take on d5", ["exd5"]),
        # "to" leans toward an empty square: "knight to d5" heard for g5, not the capture on e5
        (ITALIAN_TWO_KNIGHTS, "White attacks with knight to d5.", ["Ng5"]),
        # "attacks f7 with the knight" is a place; the knight belongs to the move after it
        (ITALIAN_TWO_KNIGHTS, "White attacks f7 with knight to g5.", ["Ng5"]),
    ],
)
def test_narration_with_speech_recognition_confusions(setup, text, expected):
    board = board_from(setup)
    assert sans(board, find_moves(board, text)) == expected


def test_i_would_without_a_capture_is_no_knight():
    board = board_from("e4 e5")
    assert sans(board, find_moves(board, "I'd play knight to f3 here")) == ["Nf3"]
    assert sans(board, find_moves(board, "I think d4 is best")) == ["d4"]


def test_sound_alikes_can_be_switched_off():
    board = board_from(CARO)
    mention = find_mentions("d take c4")[0]
    assert [board.san(m) for m in mention.candidates(board)] == ["dxe4"]
    assert mention.candidates(board, sound_alikes=False) == []


def test_candidates_lists_ties():
    board = board_from("d4 Nf6 c4 g6 Nc3 Bg7")
    mention = find_mentions("pawn to d4")[0]  # d4 is taken: b4, e4 and g4 sound alike
    assert sorted(board.san(m) for m in mention.candidates(board)) == ["b4", "e4", "g4"]
    assert mention.resolve(board) is None


def test_canceling_is_heard_castling():
    board = board_from(RUY)
    assert parse_spoken_move(board, "canceling") == chess.Move.from_uci("e1g1")


CASTLING_POSITIONS = ["r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
                      "r3k2r/8/8/8/8/8/8/R3K2R w Kq - 0 1", "r3k2r/8/8/8/8/8/6b1/R3K2R w KQkq - 0 1"]


def test_the_moves_to_some_squares_are_the_legal_moves_to_them_in_the_same_order():
    """Weighing a mention walks only the moves to its squares (mention._legal_to); python-chess masks
    castling by the rook's square, so e1g1 must come from a g1 and never from an h1 alone."""
    from tutorialbook.skills.chess.mention import _legal_to

    from tests.support.chess_lessons import random_positions

    boards = random_positions(7, games=150, plies=50) + [chess.Board(fen) for fen in CASTLING_POSITIONS]
    for board in boards:
        for squares in ([chess.G1], [chess.H1], [chess.C8, chess.A8], [chess.E4, chess.D5], list(range(0, 64, 9))):
            want = [m for m in board.legal_moves if m.to_square in squares]
            assert list(_legal_to(board, squares)) == want, (board.fen(), squares)
    board = chess.Board(CASTLING_POSITIONS[0])
    assert [m.uci() for m in _legal_to(board, [chess.G1])] == ["h1g1", "e1g1"]
    assert "e1g1" not in [m.uci() for m in _legal_to(board, [chess.H1])]


def test_castling_said_is_weighed_among_the_castling_moves_only():
    board = chess.Board(CASTLING_POSITIONS[0])
    (short,) = find_mentions("white castles kingside")
    assert [m.uci() for _, m in short.scored(board)] == ["e1g1"]
    board = chess.Board(CASTLING_POSITIONS[3])  # the bishop on g2 covers f1: no short castling
    assert [m.uci() for _, m in short.scored(board)] == []


def test_a_from_square_heard_on_a_rhyming_file_still_names_the_move():
    """ "Black develops the knight from d8 to f6" is speech recognition's "from g8": the file
    letters that rhyme (bee, cee, dee, ee, gee) may be swapped in the square a piece leaves, as in
    the square it goes to, without the bonus a square heard right earns; a file that does not
    rhyme still rules the move out."""
    board = chess.Board()
    for san in ("c4", "e5", "Nc3"):
        board.push_san(san)
    (heard,) = find_mentions("Black develops the knight from d8 to f6.")
    assert heard.from_square == chess.D8
    assert [m.uci() for m in heard.candidates(board)] == ["g8f6"]
    assert heard.candidates(board, sound_alikes=False) == []  # the square as heard: no knight on d8
    (right,) = find_mentions("Black develops the knight from g8 to f6.")
    assert max(s for s, _ in right.scored(board)) > max(s for s, _ in heard.scored(board))
    (far,) = find_mentions("Black develops the knight from a8 to f6.")  # a does not rhyme with g
    assert far.candidates(board) == []


def test_a_piece_and_its_square_parted_by_a_comma_are_one_move():
    """Speech recognition writes a pause as a comma ("black lines up, bishop, d6"): the piece still
    names the move, but only as weakly as a sound-alike piece does, so a pawn to the square as
    heard stays possible when that piece cannot go there. A word between them parts them."""
    (bishop,) = find_mentions("Black lines up, bishop, d6, to challenge our bishop.")
    assert bishop.piece == chess.BISHOP and bishop.piece_weak and not bishop.bare
    board = chess.Board()
    for san in ("d4", "d5", "Bf4", "Nf6", "e3", "e6", "Nf3", "c5", "c3", "Nc6", "Nbd2"):
        board.push_san(san)
    assert [board.san(m) for m in bishop.candidates(board)] == ["Bd6"]
    (pawn,) = find_mentions("Then, bishop, d6.")
    board = chess.Board()
    board.push_san("e4")
    assert [board.san(m) for m in pawn.candidates(board)] == ["d6"]  # the e7 pawn blocks the f8 bishop
    apart = find_mentions("White develops the knight, then c3 and d4.")
    assert [m.piece for m in apart] == [None, None]
