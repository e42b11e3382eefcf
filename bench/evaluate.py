"""evaluate_position beside raw python-chess analysis at the same depth and multipv.

    python bench/evaluate.py [--repeats N] [--ingests N] [--depth D] [--multipv M] [--engine PATH]

A Library on a temporary store gets a small chess book (two of the bench lesson scripts ingested
as text with ``domain="chess"``), so the taught-moves lookup and related-skills retrieval run for
real. Then, for several positions (discussed in the book, a few plies past a discussed one, an
opening the book never mentions, a FEN with no move history), ``Library.evaluate_position`` and
a raw ``SimpleEngine.analyse`` on a second Stockfish process (same options: 1 thread, 16 MB hash)
are timed in interleaved repetitions after a warm-up round. Both engines keep their hash between
searches, and both see the same positions in the same order, so what differs is the work around
the search: parsing and validating the input, the status, the opening name, the position index
and related skills, the report. Target: median overhead <= 10 ms, warm and after an ingest.

Two searches of one position still differ by themselves (more so on a loaded machine), so beside
the paired difference the python-chess analyse inside evaluate_position is timed too, and
"around search" (evaluate_position minus that analyse) is the time the library adds, without the
engine's noise. What the tutorials teach is read on a worker thread while the engine searches
(``positions.ground``), so its own time ("grounding") is shown too: it adds to the call only
where it outlasts the search. Warm figures are repeated questions (answers are cached per table
version). After an ingest, every table the lookup reads has a new version: there another lesson
is ingested into the book before each round, and each position's first call after it is timed
(and the very first call of the round, which also reads the book's facts, on its own row). A
breakdown times the non-engine parts alone, warm and with the caches cleared. Figures only;
nothing is asserted.
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
# ingested one per round for the after-ingest figures: openings none of POSITIONS reaches
LATER_LESSONS = ("caro_kann", "french_defense", "kings_indian", "queens_gambit_declined")

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
        ingest_lesson(library, workdir, name)


def ingest_lesson(library: Library, workdir: Path, name: str, variant: int = 0) -> None:
    """One lesson script ingested as text; a variant drops trailing sentences, so the same
    lesson can be ingested again as a new tutorial."""
    data = json.loads((LESSONS / f"{name}.json").read_text(encoding="utf-8"))
    path = workdir / f"{name}-{variant}.txt"
    path.write_text("\n\n".join(data["sentences"][: len(data["sentences"]) - variant]) + "\n", encoding="utf-8")
    library.ingest(str(path), book=BOOK, title=data["opening"], domain="chess", refine_rounds=0)


def board_of(moves: str, fen: str) -> chess.Board:
    return chess_engine.parse_position(fen or None, moves or None)


def ms(seconds: list[float]) -> float:
    return 1000 * statistics.median(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--ingests", type=int, default=8, help="rounds of ingest-then-first-calls")
    parser.add_argument("--depth", type=int, default=12)
    parser.add_argument("--multipv", type=int, default=2)
    parser.add_argument("--engine", default="/usr/games/stockfish")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        library = Library(store=str(workdir / "store"), engine_path=args.engine, allowed_roots=(str(workdir),))
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
        grounding: list[float] = []  # positions.ground, on its worker thread

        def time_inner_parts() -> None:
            idle = library.engine().idle()  # the pool's engine the warm-up started
            engine = idle[0]._engine if idle else None  # the SimpleEngine our Engine wraps
            if engine is not None:  # else a heuristic answered: there is no search to take out
                engine.analyse = timed(engine.analyse, inner)
            positions.ground = timed(positions.ground, grounding)  # ground_async looks it up per call

        def ours(n: int) -> tuple[float, float, float]:
            """evaluate_position's time, its time around the search, and its grounding's time."""
            label, moves, fen = POSITIONS[n]
            inner.clear()
            grounding.clear()
            start = time.perf_counter()
            library.evaluate_position(fen=fen, moves=moves, book=BOOK, depth=args.depth, multipv=args.multipv)
            total = time.perf_counter() - start
            return total, total - sum(inner), sum(grounding)

        def theirs(n: int) -> float:
            start = time.perf_counter()
            raw.analyse(boards[n], limit, multipv=args.multipv)
            return time.perf_counter() - start

        def paired(n: int, rep: int) -> tuple[float, float, float, float]:
            """(evaluate, around search, grounding, raw), the two searches in alternating order."""
            if rep % 2 == 0:
                mine, other = ours(n), theirs(n)
            else:
                other, mine = theirs(n), ours(n)
            return (*mine, other)

        try:
            for n in range(len(POSITIONS)):  # warm-up: engine processes, opening index, LanceDB handles
                ours(n), theirs(n)
            time_inner_parts()
            warm = {n: [] for n in range(len(POSITIONS))}
            for rep in range(args.repeats):
                for n in range(len(POSITIONS)):
                    warm[n].append(paired(n, rep))
            report = library.evaluate_position(
                fen=POSITIONS[0][2], moves=POSITIONS[0][1], book=BOOK, depth=args.depth, multipv=args.multipv
            )
            print(f"depth {args.depth}, multipv {args.multipv}, {args.repeats} interleaved repetitions,"
                  f" engine {report.engine.engine} ({report.engine.source})")
            print(f"check: at {POSITIONS[0][0]!r} the book teaches "
                  f"{[(m.move_san, m.kind) for m in report.taught.moves]} ({report.taught.at}),"
                  f" related skills {len(report.related_skills)}\n")
            print("evaluate_position and a raw analyse on a second Stockfish, medians; 'difference' is the median")
            print("of paired differences (the two searches vary by themselves); 'around' is evaluate_position minus")
            print("the python-chess analyse it makes: all the time the library adds; 'grounding' is the tutorials'")
            print("lookup on its worker thread, which overlaps the search.\n")
            print("warm (repeated questions):")
            header()
            for n, (label, moves, fen) in enumerate(POSITIONS):
                at = library.evaluate_position(fen=fen, moves=moves, book=BOOK, depth=1).taught
                row(label, warm[n], f"{at.at}" + (f" ({at.plies_back} back)" if at.plies_back else ""))
            warm_all = [t for n in warm for t in warm[n]]
            row("all positions", warm_all)

            first, each = [], []  # the round's very first call; every position's first call after the ingest
            for rnd in range(args.ingests):
                ingest_lesson(library, workdir, LATER_LESSONS[rnd % len(LATER_LESSONS)], rnd // len(LATER_LESSONS))
                order = [(rnd + i) % len(POSITIONS) for i in range(len(POSITIONS))]  # each position leads a round
                for i, n in enumerate(order):
                    sample = paired(n, rnd + i)
                    (first if i == 0 else each).append(sample)
            print(f"\nfirst call after an ingest ({args.ingests} rounds, a lesson ingested into the book before each):")
            header()
            row("the round's first call", first)
            row("each other position's first call", each)
            row("all first calls after an ingest", first + each)
            for name, samples in (("warm", warm_all), ("first call after an ingest", first + each)):
                diffs = [o - r for o, _, _, r in samples]
                around = [a for _, a, _, _ in samples]
                print(f"{name}: evaluate_position over raw analysis median {ms(diffs):.1f} ms"
                      f" (x{ratio(samples):.2f}), around the search median {ms(around):.1f} ms,"
                      f" max {1000 * max(around):.1f} ms; target <= 10 ms")
            breakdown(library, boards)
        finally:
            raw.quit()
            library.close()


def timed(fn, samples: list[float]):
    """`fn`, appending each call's duration to `samples`."""
    def wrapper(*a, **kw):
        start = time.perf_counter()
        try:
            return fn(*a, **kw)
        finally:
            samples.append(time.perf_counter() - start)

    return wrapper


def ratio(samples) -> float:
    return statistics.median(o for o, _, _, _ in samples) / statistics.median(r for _, _, _, r in samples)


def header() -> None:
    print(f"  {'position':<38} {'evaluate':>9} {'raw':>9} {'difference':>11} {'ratio':>6} {'around':>9}"
          f" {'grounding':>10}  taught at")


def row(label: str, samples: list[tuple[float, float, float, float]], note: str = "") -> None:
    o, around, ground, r = zip(*samples)
    print(f"  {label:<38} {ms(o):>6.1f} ms {ms(r):>6.1f} ms {ms([a - b for a, b in zip(o, r)]):>8.1f} ms"
          f" {ratio(samples):>6.2f} {ms(around):>6.1f} ms {ms(ground):>7.1f} ms  {note}")


def breakdown(library: Library, boards: list[chess.Board], repeats: int = 15) -> None:
    """The non-engine parts of evaluate_position, each timed alone over the same positions,
    warm (cached) and cold (caches cleared before each call)."""
    parts = {
        "parse_position (moves/FEN)": lambda n: board_of(POSITIONS[n][1], POSITIONS[n][2]),
        "describe (status, material)": lambda n: chess_engine.describe(boards[n]),
        "openings.classify": lambda n: openings.classify(boards[n]),
        "positions.taught_at": lambda n: positions.taught_at(library.store, boards[n], BOOK),
        "positions.ground (+ related)": lambda n: positions.ground(library.store, library.rank_skills, library.missing_book, boards[n], openings.classify(boards[n]), BOOK),
    }
    print("\nwhere the overhead goes (median per call over all positions; cold: position caches cleared,")
    print("the book's facts read again; ground runs beside the search in evaluate_position):")
    print(f"  {'':<30} {'warm':>10} {'cold':>10}")
    for name, fn in parts.items():
        warm, cold = [], []
        for _ in range(repeats):
            for n in range(len(boards)):
                for samples, clear in ((cold, True), (warm, False)):
                    if clear:
                        positions.clear_cache(library.store)
                    start = time.perf_counter()
                    fn(n)
                    samples.append(time.perf_counter() - start)
        print(f"  {name:<30} {ms(warm):7.2f} ms {ms(cold):7.2f} ms")


if __name__ == "__main__":
    main()
