"""Position input, rule summaries, Stockfish analysis through one reused process, and the heuristic."""

import os
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import chess
import pytest

from tutorialbook.errors import TutorialbookError
from tutorialbook.skills.chess.engine import ENV_VAR, Engine, describe, parse_position

STOCKFISH = "/usr/games/stockfish"
# Only a developer machine without Debian stockfish skips these; in CI (CI=true) a missing engine fails.
needs_stockfish = pytest.mark.skipif(
    not os.environ.get("CI") and not os.access(STOCKFISH, os.X_OK), reason="Debian stockfish not installed"
)

MATE_IN_ONE = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"  # Ra8#
FOOLS_MATE = "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2"  # ...Qh4#
BLACK_UP_A_QUEEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR b KQkq - 0 1"
MATED = "R5k1/5ppp/8/8/8/8/8/6K1 b - - 1 1"
STALEMATE = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"


@pytest.fixture(scope="module")
def engine():
    with Engine(STOCKFISH) as e:
        yield e


def replay(fen: str, sans: list[str]) -> chess.Board:
    board = chess.Board(fen)
    for san in sans:
        board.push_san(san)
    return board


# --- parse_position -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("moves", "fen"),
    [
        ("", chess.STARTING_FEN),
        ("e4 e5 Nf3", "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"),
        ("1. e4 e5 2. Nf3", "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"),
        ("1.e4 e5 2.Nf3", "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"),
        ("1. e4 1...e5 2. Nf3", "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"),
        ("e2e4 e7e5 g1f3", "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"),
        ("e4, e5, Nf3!?", "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"),
        ("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0", "r1bqkbnr/1ppp1ppp/p1n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 4"),
        ("e4 e5 Nf3 Nc6 Bc4 Bc5 e1g1", "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 b kq - 5 4"),
        ("e4 e5 Nf3 Nc6 Bc4 Bc5 O-O", "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 b kq - 5 4"),
    ],
)
def test_parse_moves(moves, fen):
    assert parse_position(moves=moves).fen() == fen


def test_parse_fen():
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    board = parse_position(fen=fen)
    assert board.fen() == fen and not board.move_stack


@pytest.mark.parametrize(
    ("kwargs", "field", "reason"),
    [
        ({}, "fen", "give exactly one of fen or moves"),
        ({"fen": chess.STARTING_FEN, "moves": "e4"}, "fen", "not both"),
        ({"fen": "garbage"}, "fen", "not a FEN"),
        ({"fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w KQkq - 0 1"}, "fen", "two white kings"),
        ({"fen": "k7/8/8/8/8/8/8/K6r b - - 0 1"}, "fen", "the side not to move is in check"),
        ({"fen": "8/8/8/8/8/8/8/8 w - - 0 1"}, "fen", "the board is empty"),
        ({"fen": "4k3/8/8/8/8/8/8/P3K3 w - - 0 1"}, "fen", "pawns on the first or eighth rank"),
        ({"fen": "4k3/8/8/8/8/8/8/4K3 w K - 0 1"}, "fen", "castling rights do not match"),
        ({"fen": "4k3/8/8/8/8/8/8/4K3 w - e3 0 1"}, "fen", "en passant square is impossible"),
        ({"fen": "4k3/8/8/8/8/8/8/8 w - - 0 1"}, "fen", "no white king"),
        (
            {"moves": "e4 e5 Nf3 Nf6x"},
            "moves",
            "move 4 'Nf6x': not a move in SAN or UCI in position after 1. e4 e5 2. Nf3",
        ),
        ({"moves": "1. e4 e5 2. Ke3"}, "moves", "move 3 'Ke3': illegal in position after 1. e4 e5"),
        ({"moves": "e5"}, "moves", "move 1 'e5': illegal in the initial position"),
        ({"moves": "e2e5"}, "moves", "move 1 'e2e5': illegal in the initial position"),
        ({"moves": "e4 e5 Nf3 Nc6 Nc3 Nf6 d4 d6 Nd2 Nd7 Nb1"}, "moves", "move 11 'Nb1': ambiguous"),
    ],
)
def test_parse_position_errors(kwargs, field, reason):
    with pytest.raises(TutorialbookError) as info:
        parse_position(**kwargs)
    assert info.value.field == field
    assert reason in info.value.reason


# --- describe -----------------------------------------------------------------------------------


def test_describe_start():
    d = describe(chess.Board())
    assert (d.turn, d.check, d.checkmate, d.stalemate, d.insufficient_material, d.legal_moves) == (
        "white",
        False,
        False,
        False,
        False,
        20,
    )
    assert d.material["white"] == {"P": 8, "N": 2, "B": 2, "R": 2, "Q": 1, "K": 1}
    assert d.points == {"white": 39, "black": 39}
    assert d.fen == chess.STARTING_FEN


def test_describe_end_states():
    mated = describe(replay(FOOLS_MATE, ["Qh4#"]))
    assert (mated.turn, mated.check, mated.checkmate, mated.legal_moves) == ("white", True, True, 0)
    stale = describe(chess.Board(STALEMATE))
    assert (stale.stalemate, stale.check, stale.legal_moves) == (True, False, 0)
    bare = describe(chess.Board("8/8/4k3/8/8/3NK3/8/8 w - - 0 1"))
    assert bare.insufficient_material and bare.points == {"white": 3, "black": 0}
    assert describe(chess.Board(BLACK_UP_A_QUEEN)).material["white"]["Q"] == 0


# --- Stockfish ----------------------------------------------------------------------------------


@needs_stockfish
def test_mate_in_one(engine):
    a = engine.analyse(chess.Board(MATE_IN_ONE), depth=8)
    assert (a.source, a.mate, a.mate_to_move, a.cp) == ("engine", 1, 1, None)
    assert a.lines[0].san == ["Ra8#"] and a.lines[0].uci == ["a1a8"] and a.lines[0].mate == 1
    assert a.engine.startswith("Stockfish") and a.depth >= 1 and a.note == ""


@needs_stockfish
def test_black_mates_is_negative_for_white(engine):
    a = engine.analyse(chess.Board(FOOLS_MATE), depth=8)
    assert (a.mate, a.mate_to_move) == (-1, 1)
    assert a.lines[0].san == ["Qh4#"]


@needs_stockfish
def test_multipv_gives_distinct_legal_lines_in_order(engine):
    a = engine.analyse(chess.Board(), depth=8, multipv=3)
    assert len(a.lines) == 3
    assert len({line.uci[0] for line in a.lines}) == 3
    for line in a.lines:
        replay(chess.STARTING_FEN, line.san)
        assert len(line.san) == len(line.uci) and line.cp is not None
    scores = [line.cp for line in a.lines]
    assert scores == sorted(scores, reverse=True)
    assert a.cp == a.lines[0].cp and a.depth == 8


@needs_stockfish
def test_scores_from_white_and_from_the_side_to_move(engine):
    a = engine.analyse(chess.Board(BLACK_UP_A_QUEEN), depth=8)
    assert a.cp < -500 and a.cp_to_move > 500 and a.cp == -a.cp_to_move


@needs_stockfish
def test_finished_games(engine):
    mated = engine.analyse(chess.Board(MATED), depth=8)
    assert (mated.mate, mated.mate_to_move, mated.lines) == (0, 0, [])
    stale = engine.analyse(chess.Board(STALEMATE), depth=8)
    assert (stale.cp, stale.mate, stale.lines) == (0, None, [])


@needs_stockfish
def test_one_process_is_reused(engine):
    engine.analyse(chess.Board(), depth=2)
    process = engine._engine
    engine.analyse(chess.Board(MATE_IN_ONE), depth=2)
    assert engine._engine is process


@needs_stockfish
def test_concurrent_calls_are_serialised(engine):
    fens = [chess.STARTING_FEN, MATE_IN_ONE, FOOLS_MATE, BLACK_UP_A_QUEEN] * 2
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda fen: (fen, engine.analyse(chess.Board(fen), depth=8, multipv=2)), fens))
    for fen, a in results:
        assert a.source == "engine" and len(a.lines) == 2
        replay(fen, a.lines[0].san)
    by_fen = dict(results)
    assert by_fen[MATE_IN_ONE].lines[0].san == ["Ra8#"]
    assert by_fen[FOOLS_MATE].lines[0].san == ["Qh4#"]


@needs_stockfish
def test_restarts_a_dead_engine():
    with Engine(STOCKFISH) as e:
        e.analyse(chess.Board(), depth=1)
        os.kill(e._engine.protocol.transport.get_pid(), signal.SIGKILL)
        time.sleep(0.1)
        a = e.analyse(chess.Board(MATE_IN_ONE), depth=4)
        assert a.source == "engine" and a.lines[0].san == ["Ra8#"]


@needs_stockfish
@needs_stockfish
def test_a_program_that_never_closes_its_engine_still_exits(tmp_path):
    """python-chess keeps each engine's event loop on a thread; ours must not hold the
    interpreter open when a caller forgets close()."""
    script = (f"from tutorialbook.skills.chess.engine import Engine\n"
              f"e = Engine({STOCKFISH!r})\n"
              f"print(e.analyse(__import__('chess').Board(), depth=4).engine)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "stockfish" in done.stdout.lower()


def test_close_then_analyse_starts_again():
    e = Engine(STOCKFISH)
    e.analyse(chess.Board(), depth=1)
    e.close()
    assert e._engine is None
    assert e.analyse(chess.Board(), depth=1).source == "engine"
    e.close()


@needs_stockfish
def test_time_limit_stops_a_deep_search(engine):
    started = time.monotonic()
    a = engine.analyse(chess.Board(), depth=30, time_limit=0.3)  # 30: the deepest evaluate_position allows
    assert time.monotonic() - started < 2 and a.depth < 30


def test_engine_path_from_argument_environment_and_debian_location(monkeypatch):
    monkeypatch.setenv(ENV_VAR, "/opt/engines/sf")
    assert Engine().path == "/opt/engines/sf"
    assert Engine("/x/y").path == "/x/y"
    assert Engine("no-such-engine-name").path is None
    monkeypatch.delenv(ENV_VAR)
    monkeypatch.setenv("PATH", "/nonexistent")
    expected = STOCKFISH if os.access(STOCKFISH, os.X_OK) else None
    assert Engine().path == expected
    assert Engine("stockfish").path == expected


def test_no_engine_anywhere_says_so():
    a = Engine("no-such-engine-name").analyse(chess.Board(), depth=2)
    assert a.source == "heuristic" and "not on PATH or in /usr/games" in a.note


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"depth": 0}, "depth"),
        ({"depth": 61}, "depth"),
        ({"multipv": 0}, "multipv"),
        ({"multipv": 11}, "multipv"),
        ({"time_limit": 0}, "time_limit"),
    ],
)
def test_analyse_rejects_bad_limits(kwargs, field):
    with pytest.raises(TutorialbookError) as info:
        Engine("/nonexistent").analyse(chess.Board(), **kwargs)
    assert info.value.field == field


def test_analyse_rejects_illegal_positions():
    with pytest.raises(TutorialbookError, match="side not to move is in check"):
        Engine("/nonexistent").analyse(chess.Board("k7/8/8/8/8/8/8/K6r b - - 0 1"))


# --- heuristic ----------------------------------------------------------------------------------


def test_missing_binary_gives_a_labelled_heuristic():
    a = Engine("/nonexistent/stockfish").analyse(chess.Board(MATE_IN_ONE), depth=8, multipv=3)
    assert (a.source, a.engine) == ("heuristic", "heuristic")
    assert "heuristic" in a.note.lower() and "not an engine" in a.note and "/nonexistent/stockfish" in a.note
    assert a.depth == 2 and (a.mate, a.mate_to_move) == (1, 1)
    assert a.lines[0].san == ["Ra8#"] and len(a.lines) == 3
    for line in a.lines:
        replay(MATE_IN_ONE, line.san)


def test_heuristic_sees_material_and_perspective():
    e = Engine("/nonexistent")
    a = e.analyse(chess.Board(BLACK_UP_A_QUEEN))
    assert a.cp < -500 and a.cp_to_move > 500
    assert e.analyse(chess.Board(FOOLS_MATE)).mate == -1
    free_queen = e.analyse(chess.Board("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1"))
    assert free_queen.lines[0].san[0] == "Rxd5"


def test_heuristic_on_finished_games():
    e = Engine("/nonexistent")
    assert (e.analyse(chess.Board(MATED)).mate, e.analyse(chess.Board(MATED)).lines) == (0, [])
    assert e.analyse(chess.Board(STALEMATE)).cp == 0


def test_a_binary_that_is_not_an_engine_falls_back(tmp_path):
    not_an_engine = shutil.which("true")
    a = Engine(not_an_engine).analyse(chess.Board(MATE_IN_ONE), depth=3)
    assert a.source == "heuristic" and "failed" in a.note
    text_file = tmp_path / "stockfish"
    text_file.write_text("not a program")
    assert Engine(str(text_file)).analyse(chess.Board()).source == "heuristic"
