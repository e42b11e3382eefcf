"""evaluate_position beside raw python-chess analysis at the same depth and multipv.

    python bench/evaluate.py [--repeats N] [--depth D] [--multipv M] [--engine PATH]

A Library on a temporary store gets a small chess book (two of the bench lesson scripts ingested
as text with ``domain="chess"``), so the taught-moves lookup and related-skills retrieval run for
real. Then, for several positions (discussed in the book, a few plies past a discussed one, an
opening the book never mentions, a FEN with no move history), ``Library.evaluate_position`` and
a raw ``SimpleEngine.analyse`` on a second Stockfish process (same options: 1 thread, 16 MB hash)
are timed in interleaved repetitions after a warm-up round. Both engines keep their hash between
searches, and both see the same positions in the same order, so what differs is the work around
the search: parsing and validating the input, the status, the opening name, the position index
and related skills, the report. Target: median overhead <= 10 ms.

Two searches of one position still differ by themselves (more so on a loaded machine), so beside
the paired difference the python-chess analyse inside evaluate_position is timed too, and
"around search" (evaluate_position minus that analyse) is the work the library adds, without the
engine's noise. Warm figures are repeated questions (the position index and related skills are
cached per table version); cold ones clear those caches first, as after an ingest. A breakdown
times the non-engine parts on their own. Figures only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import chess
import chess.engine

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tutorialbook.library import Library  # noqa: E402
from tutorialbook.skills.chess import engine as chess_engine  # noqa: E402
from tutorialbook.skills.chess import openings, positions  # noqa: E402

LESSONS = ROOT / "bench" / "data" / "chess_lessons"
BOOK = "chess"
BOOK_LESSONS = ("italian_game", "ruy_lopez")

POSITIONS = [
    # (label, moves or "", fen or "")
    ("discussed: Italian after 3. Bc4", "1. e4 e5 2. Nf3 Nc6 3. Bc4", ""),
    ("discussed: Italian 6. cxd4 Bb4+", "e4 e5 Nf3 Nc6 Bc4 Bc5 c3 Nf6 d4 exd4 cxd4 Bb4+", ""),
    ("6 plies past a discussed one", "e4 e5 Nf3 Nc6 Bc4 Bc5 c3 Nf6 d4 exd4 cxd4 Bb4+ Bd2 Bxd2+ Nbxd2 d5 exd5 Nxd5 Qb3 Nce7 O-O O-O", ""),
    ("not in the book: Najdorf, 19 plies", "e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 a7a6 c1e3 e7e5 d4b3 c8e6 f2f3 f8e7 d1d2 e8g8 e1c1", ""),
    ("FEN, no move history", "", "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP3PPP/R2QKB1R w KQ - 0 9"),
]


def make_book(library: Library, workdir: Path) -> None:
    for name in BOOK_LESSONS:
        data = json.loads((LESSONS / f"{name}.json").read_text(encoding="utf-8"))
        path = workdir / f"{name}.txt"
        path.write_text("\n\n".join(data["sentences"]) + "\n", encoding="utf-8")
        library.ingest(str(path), book=BOOK, title=data["opening"], domain="chess", refine_rounds=0)


def board_of(moves: str, fen: str) -> chess.Board:
    return chess_engine.parse_position(fen or None, moves or None)


def ms(seconds: list[float]) -> float:
    return 1000 * statistics.median(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--depth", type=int, default=12)
    parser.add_argument("--multipv", type=int, default=2)
    parser.add_argument("--engine", default="/usr/games/stockfish")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        library = Library(store=str(workdir / "store"), engine_path=args.engine)
        clock = time.perf_counter()
        make_book(library, workdir)
        rows = library.store.count("positions")
        print(f"book {BOOK!r}: {len(BOOK_LESSONS)} lessons ingested as text in {time.perf_counter() - clock:.1f} s,"
              f" {rows} position rows, {library.store.count('skills')} skills")
        raw = chess.engine.SimpleEngine.popen_uci(args.engine)
        raw.configure({k: v for k, v in library.engine().options.items() if k in raw.options})
        limit = chess.engine.Limit(depth=args.depth)
        boards = [board_of(m, f) for _, m, f in POSITIONS]

        inner: list[float] = []  # the python-chess search inside each evaluate_position call

        def time_inner_search() -> None:
            engine = library.engine()._engine  # the SimpleEngine our Engine wraps (started by the warm-up)
            if engine is None:
                return  # no engine: a heuristic answered, there is no search to take out
            search = engine.analyse

            def timed(*a, **kw):
                start = time.perf_counter()
                try:
                    return search(*a, **kw)
                finally:
                    inner.append(time.perf_counter() - start)

            engine.analyse = timed

        def ours(n: int) -> tuple[float, float]:
            label, moves, fen = POSITIONS[n]
            inner.clear()
            start = time.perf_counter()
            library.evaluate_position(fen=fen, moves=moves, book=BOOK, depth=args.depth, multipv=args.multipv)
            total = time.perf_counter() - start
            return total, total - sum(inner)

        def theirs(n: int) -> float:
            start = time.perf_counter()
            raw.analyse(boards[n], limit, multipv=args.multipv)
            return time.perf_counter() - start

        try:
            for n in range(len(POSITIONS)):  # warm-up: engine processes, opening index, LanceDB handles
                ours(n), theirs(n)
            time_inner_search()
            times = {n: ([], [], []) for n in range(len(POSITIONS))}  # evaluate, raw, evaluate minus its search
            for rep in range(args.repeats):
                for n in range(len(POSITIONS)):
                    if rep % 2 == 0:
                        (t_ours, t_around), t_raw = ours(n), theirs(n)
                    else:
                        t_raw, (t_ours, t_around) = theirs(n), ours(n)
                    times[n][0].append(t_ours)
                    times[n][1].append(t_raw)
                    times[n][2].append(t_around)
            report = library.evaluate_position(
                fen=POSITIONS[0][2], moves=POSITIONS[0][1], book=BOOK, depth=args.depth, multipv=args.multipv
            )
            print(f"depth {args.depth}, multipv {args.multipv}, {args.repeats} interleaved repetitions,"
                  f" engine {report.engine.engine} ({report.engine.source})")
            print(f"check: at {POSITIONS[0][0]!r} the book teaches "
                  f"{[(m.move_san, m.kind) for m in report.taught.moves]} ({report.taught.at}),"
                  f" related skills {len(report.related_skills)}\n")
            print("evaluate_position and a raw analyse on a second Stockfish, medians; 'difference' is the median")
            print("of paired differences (the two searches vary by themselves); 'around search' is evaluate_position")
            print("minus the python-chess analyse it makes: all the work the library adds.\n")
            print(f"{'position':<38} {'evaluate':>9} {'raw':>9} {'difference':>11} {'around search':>14}  taught at")
            diffs_all, ours_all, raw_all, around_all = [], [], [], []
            for n, (label, moves, fen) in enumerate(POSITIONS):
                o, r, around = times[n]
                diffs = [a - b for a, b in zip(o, r)]
                diffs_all += diffs
                ours_all += o
                raw_all += r
                around_all += around
                at = library.evaluate_position(fen=fen, moves=moves, book=BOOK, depth=1).taught
                print(f"{label:<38} {ms(o):>6.1f} ms {ms(r):>6.1f} ms {ms(diffs):>8.1f} ms {ms(around):>11.1f} ms  {at.at}"
                      + (f" ({at.plies_back} back)" if at.plies_back else ""))
            print(f"{'all positions':<38} {ms(ours_all):>6.1f} ms {ms(raw_all):>6.1f} ms {ms(diffs_all):>8.1f} ms"
                  f" {ms(around_all):>11.1f} ms")
            print(f"\nevaluate_position over raw analysis: median difference {ms(diffs_all):.1f} ms, median work around"
                  f" the search {ms(around_all):.1f} ms (max {1000 * max(around_all):.1f} ms); target <= 10 ms")
            cold = []
            for rep in range(max(3, args.repeats // 3)):
                for n in range(len(POSITIONS)):
                    positions.clear_cache(library)  # as after a commit: the position index and skills are read again
                    cold.append(ours(n)[1])
            print(f"cold (position caches cleared before each call, as after an ingest): work around the search"
                  f" median {ms(cold):.1f} ms, max {1000 * max(cold):.1f} ms")
            breakdown(library, boards)
        finally:
            raw.quit()
            library.close()


def breakdown(library: Library, boards: list[chess.Board], repeats: int = 15) -> None:
    """The non-engine parts of evaluate_position, each timed alone over the same positions,
    warm (cached) and cold (caches cleared before each call)."""
    parts = {
        "parse_position (moves/FEN)": lambda n: board_of(POSITIONS[n][1], POSITIONS[n][2]),
        "describe (status, material)": lambda n: chess_engine.describe(boards[n]),
        "openings.classify": lambda n: openings.classify(boards[n]),
        "positions.taught_at": lambda n: positions.taught_at(library, boards[n], BOOK),
        "positions.related_skills": lambda n: positions.related_skills(
            library, positions.taught_at(library, boards[n], BOOK), openings.classify(boards[n]), BOOK
        ),
    }
    print("\nwhere the overhead goes (median per call over all positions; related_skills includes its taught_at):")
    print(f"  {'':<30} {'warm':>10} {'cold':>10}")
    for name, fn in parts.items():
        warm, cold = [], []
        for _ in range(repeats):
            for n in range(len(boards)):
                for samples, clear in ((cold, True), (warm, False)):
                    if clear:
                        positions.clear_cache(library)
                    start = time.perf_counter()
                    fn(n)
                    samples.append(time.perf_counter() - start)
        print(f"  {name:<30} {ms(warm):7.2f} ms {ms(cold):7.2f} ms")


if __name__ == "__main__":
    main()
