"""Positions in, evaluations out: input validation, a reused UCI engine, and a labelled fallback.

Agents give positions as FEN or as moves; both are validated here so a bad call names the token
at fault. Evaluation goes to one engine process (Stockfish by default) that is started on first
use and reused, because starting one costs far more than a shallow search. A UCI engine runs one
search at a time and a new command cancels the running one, so calls are serialised by a lock.
Without an engine a small heuristic search answers instead and says so.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import threading
from dataclasses import dataclass, field
from typing import cast

import chess
import chess.engine

from ...config import Settings
from ...errors import TutorialbookError

__all__ = ["Analysis", "Engine", "EnginePool", "PositionSummary", "PvLine", "describe", "parse_position"]

ENV_VAR = "TUTORIALBOOK_ENGINE"
HEURISTIC_NOTE = (
    "Heuristic estimate, not an engine: material, mobility and piece-square tables with a "
    "{depth}-ply search. No chess engine was found ({why}); install Stockfish or set {env}."
)
_MAX_DEPTH = 30  # what evaluate_position documents (1-30)
_MAX_MULTIPV = 10
_MATE = 100_000


# --- input --------------------------------------------------------------------------------------

_STATUS_REASONS = [
    (chess.STATUS_EMPTY, "the board is empty"),
    (chess.STATUS_NO_WHITE_KING, "no white king"),
    (chess.STATUS_NO_BLACK_KING, "no black king"),
    (chess.STATUS_TOO_MANY_WHITE_PAWNS, "more than 8 white pawns"),
    (chess.STATUS_TOO_MANY_BLACK_PAWNS, "more than 8 black pawns"),
    (chess.STATUS_TOO_MANY_WHITE_PIECES, "more than 16 white pieces"),
    (chess.STATUS_TOO_MANY_BLACK_PIECES, "more than 16 black pieces"),
    (chess.STATUS_PAWNS_ON_BACKRANK, "pawns on the first or eighth rank"),
    (chess.STATUS_BAD_CASTLING_RIGHTS, "castling rights do not match the kings and rooks"),
    (chess.STATUS_INVALID_EP_SQUARE, "the en passant square is impossible"),
    (chess.STATUS_OPPOSITE_CHECK, "the side not to move is in check"),
    (chess.STATUS_TOO_MANY_CHECKERS, "more than two pieces give check"),
    (chess.STATUS_IMPOSSIBLE_CHECK, "the check could not have arisen from a legal move"),
]
_COUNT_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine"}
_MOVE_NUMBER = re.compile(r"^\d+\.*")
_RESULT = {"1-0", "0-1", "1/2-1/2", "½-½", "*"}
_UCI = re.compile(r"^[a-h][1-8][a-h][1-8][qrbn]?$")


def _status_reasons(board: chess.Board) -> list[str]:
    status = board.status()
    reasons = []
    if status & chess.STATUS_TOO_MANY_KINGS:
        for color, name in ((chess.WHITE, "white"), (chess.BLACK, "black")):
            n = len(board.pieces(chess.KING, color))
            if n > 1:
                reasons.append(f"{_COUNT_WORDS.get(n, n)} {name} kings")
    reasons += [reason for flag, reason in _STATUS_REASONS if status & flag]
    return reasons


def parse_position(fen: str | None = None, moves: str | None = None) -> chess.Board:
    """A legal board from exactly one of a FEN or moves from the initial position.

    Moves may be SAN or UCI, with or without move numbers ("e4 e5 Nf3", "1. e4 e5 2. Nf3",
    "1...e5", "e2e4 e7e5"); a trailing result ("1-0") is ignored. Errors name the bad token,
    its place and why, e.g. ``moves: move 3 'Nf6x': illegal in position after 1. e4 e5``.
    """
    if (fen is None) == (moves is None):
        raise TutorialbookError("fen", "give exactly one of fen or moves" + (", not both" if fen is not None else ""))
    if fen is not None:
        try:
            board = chess.Board(fen.strip())
        except ValueError as err:
            raise TutorialbookError("fen", f"not a FEN: {err}") from None
        reasons = _status_reasons(board)
        if reasons:
            raise TutorialbookError("fen", "illegal position: " + "; ".join(reasons))
        return board
    board = chess.Board()
    moves = cast(str, moves)  # the check above: fen is None, so moves is not
    tokens = [
        t for t in (_MOVE_NUMBER.sub("", tok) for tok in moves.replace(",", " ").split() if tok not in _RESULT) if t
    ]
    for n, token in enumerate(tokens, 1):
        try:
            move = _parse_token(board, token)
        except ValueError as err:
            played = chess.Board().variation_san(board.move_stack) if board.move_stack else ""
            where = f"in position after {played}" if played else "in the initial position"
            raise TutorialbookError("moves", f"move {n} '{token}': {_why(err)} {where}") from None
        board.push(move)
    return board


def _parse_token(board: chess.Board, token: str) -> chess.Move:
    san = token.rstrip("!?")
    if _UCI.match(san):
        move = chess.Move.from_uci(san)
        if not board.is_legal(move):
            raise chess.IllegalMoveError(f"illegal uci: {san!r}")
        return move
    return board.parse_san(san)


def _why(err: ValueError) -> str:
    if isinstance(err, chess.AmbiguousMoveError):
        return "ambiguous (add the file or rank it comes from)"
    if isinstance(err, chess.IllegalMoveError):
        return "illegal"
    return "not a move in SAN or UCI"


@dataclass(frozen=True)
class PositionSummary:
    """What the rules say about a position, with no evaluation."""

    fen: str
    turn: str
    check: bool
    checkmate: bool
    stalemate: bool
    insufficient_material: bool
    legal_moves: int
    material: dict[str, dict[str, int]]
    """Piece counts per side: {"white": {"P": 8, "N": 2, ...}, "black": {...}}."""
    points: dict[str, int]
    """Material in pawns (P=1, N=B=3, R=5, Q=9) per side."""


_POINTS = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 0}


def describe(board: chess.Board) -> PositionSummary:
    """Side to move, check and game-end states, material and the number of legal moves."""
    material, points = {}, {}
    for color, name in ((chess.WHITE, "white"), (chess.BLACK, "black")):
        counts = {chess.piece_symbol(p).upper(): len(board.pieces(p, color)) for p in chess.PIECE_TYPES}
        material[name] = counts
        points[name] = sum(len(board.pieces(p, color)) * v for p, v in _POINTS.items())
    return PositionSummary(
        fen=board.fen(),
        turn="white" if board.turn == chess.WHITE else "black",
        check=board.is_check(),
        checkmate=board.is_checkmate(),
        stalemate=board.is_stalemate(),
        insufficient_material=board.is_insufficient_material(),
        legal_moves=board.legal_moves.count(),
        material=material,
        points=points,
    )


# --- analysis -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PvLine:
    """One candidate line: its moves and its score from White's point of view."""

    san: list[str]
    uci: list[str]
    cp: int | None
    """Centipawns for White; None when a mate is found."""
    mate: int | None
    """Moves to mate: positive when White mates, negative when Black does."""


@dataclass(frozen=True)
class Analysis:
    """An evaluation and where it came from, so an agent never mistakes a guess for an engine."""

    source: str
    """"engine" or "heuristic"."""
    engine: str
    depth: int
    cp: int | None
    """Centipawns for White (positive = White is better); None when a mate is found."""
    cp_to_move: int | None
    """The same from the side to move."""
    mate: int | None
    """Moves to mate for White (negative: Black mates); 0 when the side to move is mated."""
    mate_to_move: int | None
    lines: list[PvLine] = field(default_factory=list)
    note: str = ""


def _score_fields(pov: chess.engine.PovScore, turn: chess.Color) -> dict:
    """An engine score as the Analysis fields: from White and from the side to move."""
    white = pov.white()
    to_move = pov.pov(turn)
    return {"cp": white.score(), "cp_to_move": to_move.score(), "mate": white.mate(), "mate_to_move": to_move.mate()}


def find_executable(name: str) -> str | None:
    """``name`` on PATH, else in /usr/games (where Debian installs Stockfish)."""
    return shutil.which(name) or shutil.which(name, path="/usr/games")


class Engine:
    """One UCI engine process, started on first use, reused, and restarted if it dies.

    ``path`` (a file, or a name looked up on PATH and in /usr/games, where Debian installs
    Stockfish) defaults to $TUTORIALBOOK_ENGINE, then ``stockfish``. With no engine at all,
    `analyse` answers from a heuristic and says so.
    """

    def __init__(self, path: str | None = None, *, threads: int = 1, hash_mb: int = 16):
        self.name = path or Settings().engine_path or "stockfish"
        # the binary, or None when a bare name is found neither on PATH nor in /usr/games
        self.path = self.name if os.sep in self.name else find_executable(self.name)
        self.options = {"Threads": threads, "Hash": hash_mb}
        self._lock = threading.Lock()
        self._engine: chess.engine.SimpleEngine | None = None

    @property
    def available(self) -> bool:
        """Whether an engine binary exists (it may still fail to start)."""
        return bool(self.path and os.access(self.path, os.X_OK) and not os.path.isdir(self.path))

    def _start(self) -> chess.engine.SimpleEngine:
        engine = _popen_daemonic(cast(str, self.path))  # started only when `available`
        try:
            engine.configure({k: v for k, v in self.options.items() if k in engine.options})
        except chess.engine.EngineError:
            engine.quit()
            raise
        return engine

    def analyse(
        self, board: chess.Board, depth: int = 12, multipv: int = 1, time_limit: float | None = 5.0
    ) -> Analysis:
        """Evaluate `board` to `depth` plies (or until `time_limit` seconds), with `multipv` best lines."""
        if not 1 <= depth <= _MAX_DEPTH:
            raise TutorialbookError("depth", f"must be between 1 and {_MAX_DEPTH}, got {depth}")
        if not 1 <= multipv <= _MAX_MULTIPV:
            raise TutorialbookError("multipv", f"must be between 1 and {_MAX_MULTIPV}, got {multipv}")
        if time_limit is not None and time_limit <= 0:
            raise TutorialbookError("time_limit", f"must be positive, got {time_limit}")
        reasons = _status_reasons(board)
        if reasons:
            raise TutorialbookError("fen", "illegal position: " + "; ".join(reasons))
        if not self.available:
            why = f"no executable at {self.path}" if self.path else f"{self.name!r} is not on PATH or in /usr/games"
            return _heuristic(board, depth, multipv, why)
        limit = chess.engine.Limit(depth=depth, time=time_limit)
        with self._lock:
            for attempt in (1, 2):
                try:
                    if self._engine is None:
                        self._engine = self._start()
                    infos = self._engine.analyse(board, limit, multipv=multipv)
                    name = self._engine.id.get("name", os.path.basename(cast(str, self.path)))  # `available`
                    break
                except (chess.engine.EngineTerminatedError, chess.engine.EngineError, OSError) as err:
                    self._discard()
                    if attempt == 2:
                        return _heuristic(board, depth, multipv, f"the engine at {self.path} failed: {err}")
        return _from_infos(board, infos, name)

    def _discard(self) -> None:
        """Forget the process, closing what is left of it (a dead one may fail to close in any way)."""
        if self._engine is not None:
            with contextlib.suppress(Exception):
                self._engine.close()
            self._engine = None

    def close(self) -> None:
        """Stop the engine process; a later `analyse` starts a new one."""
        with self._lock:
            if self._engine is not None:
                with contextlib.suppress(chess.engine.EngineTerminatedError, chess.engine.EngineError):
                    self._engine.quit()
                self._discard()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class EnginePool:
    """Up to ``size`` engine processes for concurrent callers (one search each), started as
    needed; at most ``max_waiting`` more callers wait for one, and a call beyond that is a
    clear "busy" error instead of an ever longer queue."""

    def __init__(self, path: str | None = None, size: int = 2, max_waiting: int = 8):
        self.size = max(1, size)
        self.max_waiting = max_waiting
        self._path = path
        self._free: list[Engine] = []
        self._started = 0
        self._waiting = 0
        self._closed = False
        self._cond = threading.Condition()

    @property
    def options(self) -> dict:
        """The UCI options every engine of the pool is configured with."""
        return Engine(self._path).options

    def idle(self) -> list[Engine]:
        """The started engines no caller is using now."""
        with self._cond:
            return list(self._free)

    def analyse(self, board: chess.Board, depth: int = 12, multipv: int = 1,
                time_limit: float | None = 5.0) -> Analysis:
        if not 1 <= depth <= _MAX_DEPTH:  # before queueing for an engine
            raise TutorialbookError("depth", f"must be between 1 and {_MAX_DEPTH}, got {depth}")
        engine = self._acquire()
        try:
            return engine.analyse(board, depth=depth, multipv=multipv, time_limit=time_limit)
        finally:
            self._release(engine)

    def _acquire(self) -> Engine:
        with self._cond:
            if not self._free and self._started >= self.size and self._waiting >= self.max_waiting:
                raise TutorialbookError("depth", f"the chess engines are busy ({self.size} searching, "
                                                 f"{self._waiting} waiting); try again shortly or ask a lower depth")
            self._waiting += 1
            try:
                while not self._free and self._started >= self.size:
                    self._cond.wait()
            finally:
                self._waiting -= 1
            if self._free:
                return self._free.pop()
            self._started += 1
        return Engine(self._path)

    def _release(self, engine: Engine) -> None:
        with self._cond:
            if self._closed:
                engine.close()
                return
            self._free.append(engine)
            self._cond.notify()

    @property
    def busy(self) -> int:
        with self._cond:
            return self._started - len(self._free)

    def close(self) -> None:
        with self._cond:
            free, self._free = self._free, []
            self._started -= len(free)
        for engine in free:
            engine.close()


def _popen_daemonic(path: str) -> chess.engine.SimpleEngine:
    """Start the engine from a daemon thread: python-chess runs each engine's event loop on
    a thread that inherits its starter's daemon flag, and a non-daemon one would keep a
    program that forgot ``close()`` from ever exiting."""
    result: dict = {}

    def start() -> None:
        try:
            result["engine"] = chess.engine.SimpleEngine.popen_uci(path)
        except BaseException as exc:  # handed to the caller's thread
            result["error"] = exc

    starter = threading.Thread(target=start, name="engine-start", daemon=True)
    starter.start()
    starter.join()
    if "error" in result:
        raise result["error"]
    return result["engine"]


def _from_infos(board: chess.Board, infos: list[chess.engine.InfoDict], name: str) -> Analysis:
    lines = []
    for info in infos:
        pv = info.get("pv", [])
        score = info.get("score")
        white = score.white() if score else None
        if pv:
            lines.append(
                PvLine(
                    _sans(board, pv),
                    [m.uci() for m in pv],
                    white.score() if white else None,
                    white.mate() if white else None,
                )
            )
    top = infos[0]
    scores = _score_fields(top["score"], board.turn) if "score" in top and lines else _terminal_scores(board)
    return Analysis(source="engine", engine=name, depth=int(top.get("depth", 0)), lines=lines, **scores)


def _sans(board: chess.Board, moves: list[chess.Move]) -> list[str]:
    b = board.copy(stack=False)
    out = []
    for move in moves:
        out.append(b.san(move))
        b.push(move)
    return out


def _terminal_scores(board: chess.Board) -> dict:
    """A finished game needs no search: mated (mate 0) or drawn (0 cp)."""
    if board.is_checkmate():
        return {"cp": None, "cp_to_move": None, "mate": 0, "mate_to_move": 0}
    return {"cp": 0, "cp_to_move": 0, "mate": None, "mate_to_move": None}


# --- heuristic ----------------------------------------------------------------------------------

_VALUES = {chess.PAWN: 100, chess.KNIGHT: 320, chess.BISHOP: 330, chess.ROOK: 500, chess.QUEEN: 900, chess.KING: 0}
# Piece-square ideas, from White's side: pawns advance and hold the centre, knights and bishops
# centralise, rooks like the seventh rank, the king stays sheltered until the endgame. Each row
# is a rank (8 first) on files a-d; files e-h mirror them.
_PST_TABLE = """
      pawn              knight            bishop            rook              queen             king
      0   0   0   0   -50 -40 -30 -30   -20 -10 -10 -10     0   0   0   0   -20 -10 -10  -5   -30 -40 -40 -50
     50  50  50  50   -40 -20   0   0   -10   0   0   0     5  10  10  10   -10   0   0   0   -30 -40 -40 -50
     10  10  20  30   -30   0  10  15   -10   0   5  10    -5   0   0   0   -10   0   5   5   -30 -40 -40 -50
      5   5  10  25   -30   5  15  20   -10   5   5  10    -5   0   0   0   -10   0   5   5   -30 -40 -40 -50
      0   0   0  20   -30   0  15  20   -10   0  10  10    -5   0   0   0   -10   0   5   5   -20 -30 -30 -40
      5  -5 -10   0   -30   5  10  15   -10  10  10  10    -5   0   0   0   -10   0   5   5   -10 -20 -20 -20
      5  10  10 -20   -40 -20   0   5   -10   5   0   0    -5   0   0   0   -10   0   0   0    20  20   0   0
      0   0   0   0   -50 -40 -30 -30   -20 -10 -10 -10     0   0   0   5   -20 -10 -10  -5    20  30  10   0
"""


def _piece_square_tables(text: str) -> dict[int, list[int]]:
    """The table above as 64 values per piece type, a8 first (files e-h mirrored from a-d)."""
    header, *ranks = text.strip().splitlines()
    pieces = [chess.PIECE_NAMES.index(name) for name in header.split()]
    tables: dict[int, list[int]] = {piece: [] for piece in pieces}
    for rank in ranks:
        values = [int(v) for v in rank.split()]
        for i, piece in enumerate(pieces):
            half = values[4 * i:4 * i + 4]
            tables[piece] += half + half[::-1]
    return tables


_PST = _piece_square_tables(_PST_TABLE)
_MOBILITY = 4  # centipawns per attacked square
_HEURISTIC_DEPTH = 2


def _static(board: chess.Board) -> int:
    """Centipawns for the side to move: material, piece-square ideas and mobility (squares attacked)."""
    score = 0
    for square, piece in board.piece_map().items():
        index = chess.square_mirror(square) if piece.color == chess.WHITE else square
        value = _VALUES[piece.piece_type] + _PST[piece.piece_type][index] + _MOBILITY * len(board.attacks(square))
        score += value if piece.color == chess.WHITE else -value
    return score if board.turn == chess.WHITE else -score


def _search(board: chess.Board, depth: int, alpha: int, beta: int) -> tuple[int, list[chess.Move]]:
    """Negamax with alpha-beta: score for the side to move and the principal variation."""
    if depth == 0:
        return _static(board), []
    moves = sorted(board.legal_moves, key=lambda m: not board.is_capture(m))
    if not moves:
        return (-_MATE + board.ply() if board.is_check() else 0), []
    if board.is_insufficient_material():
        return 0, []
    best: list[chess.Move] = []
    for move in moves:
        board.push(move)
        score, line = _search(board, depth - 1, -beta, -alpha)
        board.pop()
        score = -score
        if score > alpha:
            alpha, best = score, [move, *line]
            if alpha >= beta:
                break
    return alpha, best


def _heuristic(board: chess.Board, depth: int, multipv: int, why: str) -> Analysis:
    """Rank every legal move by a shallow search and report the best ones, labelled as a heuristic."""
    depth = min(depth, _HEURISTIC_DEPTH)
    b = board.copy(stack=False)
    root: list[tuple[int, list[chess.Move]]] = []
    for move in b.legal_moves:
        b.push(move)
        score, line = _search(b, depth - 1, -_MATE - 1, _MATE + 1)
        b.pop()
        root.append((-score, [move, *line]))
    root.sort(key=lambda sl: -sl[0])
    note = HEURISTIC_NOTE.format(depth=depth, why=why, env=ENV_VAR)
    if not root:
        return Analysis(source="heuristic", engine="heuristic", depth=0, lines=[], note=note, **_terminal_scores(board))
    sign = 1 if board.turn == chess.WHITE else -1
    lines = []
    for score, moves in root[:multipv]:
        cp, mate = _cp_or_mate(score, board.ply())
        lines.append(
            PvLine(
                _sans(board, moves),
                [m.uci() for m in moves],
                None if cp is None else sign * cp,
                None if mate is None else sign * mate,
            )
        )
    cp, mate = _cp_or_mate(root[0][0], board.ply())
    return Analysis(
        source="heuristic",
        engine="heuristic",
        depth=depth,
        cp=None if cp is None else sign * cp,
        cp_to_move=cp,
        mate=None if mate is None else sign * mate,
        mate_to_move=mate,
        lines=lines,
        note=note,
    )


def _cp_or_mate(score: int, ply: int) -> tuple[int | None, int | None]:
    """Split a search score into centipawns or moves-to-mate, from the side to move."""
    if abs(score) < _MATE - 1000:
        return score, None
    plies = _MATE - abs(score) - ply
    moves = (plies + 1) // 2
    return None, moves if score > 0 else -moves
