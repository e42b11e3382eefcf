"""Ingest cost as a book grows: one book of real documents, ingested file by file.

    python bench/scale.py [--tutorials 400] [--docs DIR] [--state DIR] [--until N] [--fresh] [--profile]
                          [--process-per N]
    python bench/scale.py --compare SMALL_STORE BIG_STORE [--runs 6]

The documents are the PostgreSQL 15 manual as Debian ships it (``apt-get install
postgresql-doc-15``: 1,173 HTML pages of one manual written by its own authors — chapters,
tutorials and reference pages; not one of the packages other benches or held-out checks
use). Its pages are ingested one per ``Library.ingest`` call, in file-name order (the
generated ``bookindex.html`` and the table of contents ``index.html`` are not tutorials),
with default settings (refinement on, one round), into one book.

Printed, for the windows of the first 25 tutorials, the 25 before each later checkpoint (50, 100,
150, 200, 300, 400): the ingest's
own stage time (``TutorialReport.stage_seconds`` summed) per 100 segments, with each stage's
share; the process's RSS high-water mark when the window closed; and, at each checkpoint,
disk use of the store beside the live table size LanceDB reports (``Table.stats()``). Since
each window holds different pages (the manual's short pages cost more per segment), each
checkpoint also ingests the same five held-out pages (the manual's last) into a throwaway copy
of the store: that probe's time per 100 segments, at each book size, is the like-for-like figure
(the fastest of three runs, each on a fresh copy: the machine's noise only ever adds time).
Probes minutes apart on a shared machine differ by up to 30% (the ratio at 400 read 1.0x to 1.4x
from one pair to the next), so at the end the bench also runs the *paired probe*: the same pages
ingested page by page, alternately, into copies of the book at 25 tutorials (kept as
``STATE/store-25``) and at the end, in one process, six times; the median of the runs' ratios is
the figure to read (``--compare SMALL BIG`` runs only that, on any two stores).
After the last tutorial the bench also sleeps through the table-version window and runs upkeep,
twice (``settled``): disk as an idle store kept up holds it, beside the figure right after the writes.
Targets (issue 19): at 400, time and memory within 1.2x of the first 25; disk <= 1.5x live.

It runs in parts: every tutorial's figures are appended to ``STATE/log.jsonl`` and the
store lives in ``STATE/store``, so a run stopped anywhere goes on from the next file when
started again (``--until N`` stops after N tutorials). The RSS high-water is per process: a
window's figure is the one of the process that closed it, which is said beside it (a
resumed process has not carried the earlier ones' allocations, but it opens the same store).
``--process-per N`` makes that the design: a fresh process every N tutorials, as a batch's
workers are replaced (``TUTORIALBOOK_WORKER_FILES``). With N larger than the window (25), the
first window's process is younger than the later ones' (25 pages against N), so the bench also
prints the peak of the first window closed by a process as old as the last one's, beside the last.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DOCS = Path("/usr/share/doc/postgresql-doc-15/html")
NOT_TUTORIALS = {"bookindex.html", "index.html"}
WINDOW = 25
BOOK = "postgres"
CHECKPOINTS = (WINDOW, 50, 100, 150, 200, 300, 400)
HISTORY_TABLES = ("events", "undo")
CHILD = "TUTORIALBOOK_BENCH_SCALE_PART"  # set in the processes of a --process-per run
PROBE_RUNS = 3  # each probe's pages are ingested this many times (fresh copies): the fastest is shown
PAIRED_RUNS = 6  # runs of the paired probe (two books, pages interleaved)
SMALL_BOOK = f"store-{WINDOW}"  # the book after the first window, kept for the paired probe
PROBES = 5  # held-out pages (the manual's last in name order) ingested into a copy of the store at each checkpoint


def documents(folder: Path, n: int) -> tuple[list[Path], list[Path]]:
    """The book's first ``n`` pages, and the held-out probe pages."""
    files = sorted(p for p in folder.glob("*.html") if p.name not in NOT_TUTORIALS)
    if len(files) < n + PROBES:
        raise SystemExit(f"{folder} has {len(files)} pages, fewer than {n + PROBES}: apt-get install postgresql-doc-15")
    return files[:n], files[-PROBES:]


def probe(state: Path, pages: list[Path], docs: Path, keep: float | None, profile: Path | None = None,
          runs: int = PROBE_RUNS) -> dict:
    """The same held-out pages ingested into a copy of the store as it is now: a like-for-like
    cost at each book size (the book's own pages differ from window to window). Done ``runs``
    times, each on a fresh copy: the stages of the fastest run are kept (as ``timeit`` keeps
    the best: the rest is the machine's noise), with every run's total. With ``profile``, the
    first run's ingest is profiled (cProfile) and the stats are written there."""
    import cProfile

    from tutorialbook.library import Library

    found = []
    for run in range(runs):
        copy = state / "probe-store"  # made again each run: another store to the process's caches (Store.key)
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(state / "store", copy)
        library = Library(store=str(copy), allowed_roots=(str(docs),), keep_versions_seconds=keep)
        stages: dict[str, float] = {}
        segments = 0
        profiler = cProfile.Profile() if profile and run == 0 else None
        cpu = time.process_time()
        for page in pages:
            if profiler:
                profiler.enable()
            report = library.ingest(str(page), book=BOOK).tutorials[0]
            if profiler:
                profiler.disable()
            segments += report.segments
            for k, v in (report.stage_seconds or {}).items():
                stages[k] = stages.get(k, 0.0) + v
        if profiler:
            profiler.dump_stats(str(profile))
        library.close()
        shutil.rmtree(copy, ignore_errors=True)
        found.append({"segments": segments, "stages": stages, "cpu": time.process_time() - cpu})
    best = min(found, key=lambda f: sum(f["stages"].values()))
    return {**best, "runs": [round(sum(f["stages"].values()), 3) for f in found],
            "cpu_runs": [round(f["cpu"], 3) for f in found]}


def paired_probe(small: Path, big: Path, pages: list[Path], docs: Path, runs: int = PAIRED_RUNS) -> dict:
    """The probe pages ingested into copies of two stores (a small book and a big one) in one
    process, page by page, alternating which store goes first: whatever else the machine is
    doing in a minute falls on both books alike, so the ratio holds still where probes a few
    minutes apart differed by 30%. ``runs`` times, each on fresh copies; per run and store the
    stage seconds and the process CPU (all threads) spent in its ingests, per 100 segments."""
    import statistics

    from tutorialbook.library import Library

    found: list[dict] = []
    work = big.parent / "paired-probe"
    for run in range(runs):
        shutil.rmtree(work, ignore_errors=True)
        libraries = {}
        for name, src in (("small", small), ("big", big)):
            shutil.copytree(src, work / name)
            libraries[name] = Library(store=str(work / name), allowed_roots=(str(docs),))
        spent = {name: {"seconds": 0.0, "cpu": 0.0, "segments": 0} for name in libraries}
        order = ["small", "big"] if run % 2 == 0 else ["big", "small"]
        for page in pages:
            for name in order:
                cpu = time.process_time()
                report = libraries[name].ingest(str(page), book=BOOK).tutorials[0]
                spent[name]["cpu"] += time.process_time() - cpu
                spent[name]["seconds"] += sum((report.stage_seconds or {}).values())
                spent[name]["segments"] += report.segments
            order.reverse()
        for library in libraries.values():
            library.close()
        found.append({name: {"per": 100 * f["seconds"] / max(f["segments"], 1),
                             "cpu": 100 * f["cpu"] / max(f["segments"], 1)} for name, f in spent.items()})
    shutil.rmtree(work, ignore_errors=True)
    ratios = [f["big"]["per"] / f["small"]["per"] for f in found]
    cpu_ratios = [f["big"]["cpu"] / f["small"]["cpu"] for f in found]
    return {"runs": found, "ratio_median": statistics.median(ratios), "ratios": ratios,
            "cpu_ratio_median": statistics.median(cpu_ratios)}


def print_paired(label: str, paired: dict) -> None:
    runs = paired["runs"]
    print(f"paired probe {label}: {len(runs)} runs, s/100 seg small/big: "
          + ", ".join(f"{r['small']['per']:.2f}/{r['big']['per']:.2f}" for r in runs))
    print(f"paired probe {label}: ratio per run {' '.join(f'{r:.2f}' for r in paired['ratios'])}; "
          f"median {paired['ratio_median']:.3f} (CPU {paired['cpu_ratio_median']:.3f}; target <= 1.2)")


def rss_peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def disk_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def table_names(library) -> list[str]:
    from tutorialbook.memory.schemas import SCHEMAS

    return [n for n in SCHEMAS if (Path(library.store.uri) / f"{n}.lance").exists()]


def live_bytes(library) -> dict[str, int]:
    """Per table, the bytes LanceDB reports for the live version (``Table.stats().total_bytes``)."""
    out = {}
    for name in table_names(library):
        stats = library.store.table(name).stats()
        out[name] = int(stats["total_bytes"] if isinstance(stats, dict) else stats.total_bytes)
    return out


def settle(library, store: Path) -> dict:
    """Disk once the last writes' table versions have outlived their window (slept through, on
    the real clock) and upkeep ran twice, a window apart, as routine upkeep (`tutorialbook upkeep`
    from cron, or the next writes) does: the first compacts, and the versions its compaction made
    keep the files it replaced until the second. What an idle store holds; ``first``: after one."""
    time.sleep(library.retention.version_window() + 1.0)
    library.upkeep()
    first = disk_bytes(store)
    time.sleep(library.retention.version_window() + 1.0)
    library.upkeep()
    return {"disk": disk_bytes(store), "live": live_bytes(library), "first": first}


def load(log: Path) -> list[dict]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def windows(total: int) -> list[tuple[int, int]]:
    ends = [e for e in CHECKPOINTS if e <= total] or [total]
    if total not in ends and total > WINDOW:
        ends.append(total)
    return [(max(0, e - WINDOW), e) for e in ends]


def age(rows: list[dict], i: int) -> int:
    """How many tutorials the process that ingested ``rows[i]`` had ingested by then (its rows are
    consecutive)."""
    n = 0
    while i - n >= 0 and rows[i - n]["pid"] == rows[i]["pid"]:
        n += 1
    return n


def same_age(rows: list[dict]) -> None:
    """The last window's RSS peak against the first window closed by a process of the same age."""
    spans = windows(len(rows))
    if len(spans) < 2:
        return
    last = spans[-1][1] - 1
    oldest = age(rows, last)
    for start, end in spans:
        if age(rows, end - 1) == oldest:
            a, b = rows[end - 1]["rss_peak_mb"], rows[last]["rss_peak_mb"]
            print(f"RSS peak at the same process age ({oldest} tutorials): {start + 1}-{end} {a:.0f} MB, "
                  f"{spans[-1][0] + 1}-{spans[-1][1]} {b:.0f} MB (ratio {b / a:.2f})")
            return


def summary(rows: list[dict], checkpoints: dict[int, dict]) -> None:
    refused = [r["file"] for r in rows if r["status"] == "refused"]
    print(f"\n{BOOK}: {len(rows)} pages, {len(rows) - len(refused)} tutorials ingested, "
          f"{sum(r['segments'] for r in rows)} segments (machine shared with other work: ratios within this run)"
          + (f"; refused, nothing to learn: {', '.join(refused)}" if refused else ""))
    first = None
    print(f"{'tutorials':>10} {'segments':>8} {'s/100 seg':>9} {'ratio':>6}  stages (s/100 seg)    "
          f"{'RSS peak':>9} {'ratio':>6}  process")
    for start, end in windows(len(rows)):
        part = rows[start:end]
        segs = sum(r["segments"] for r in part) or 1
        stages: dict[str, float] = {}
        for r in part:
            for k, v in r["stages"].items():
                stages[k] = stages.get(k, 0.0) + v
        per = 100 * sum(stages.values()) / segs
        rss = part[-1]["rss_peak_mb"]
        first = first or (per, rss)
        shown = " ".join(f"{k}={100 * v / segs:.2f}" for k, v in sorted(stages.items()) if v >= 0.005)
        print(f"{start + 1:>4}-{end:<5} {segs:>8} {per:>9.2f} {per / first[0]:>6.2f}  {shown:<22} "
              f"{rss:>7.0f}MB {rss / first[1]:>6.2f}  pid {part[-1]['pid']}")
    same_age(rows)
    base = cpu_base = None
    for n, c in sorted(checkpoints.items()):
        if "probe" not in c:
            continue
        p = c["probe"]
        per = 100 * sum(p["stages"].values()) / max(p["segments"], 1)
        base = base or per
        shown = " ".join(f"{k}={100 * v / max(p['segments'], 1):.2f}"
                         for k, v in sorted(p["stages"].items()) if v >= 0.005)
        runs = p.get("runs", [])
        every = f"; runs (s): {' '.join(f'{r:.1f}' for r in runs)}" if len(runs) > 1 else ""
        cpu = ""
        if "cpu_runs" in p:  # process CPU (all threads): what other processes' load moves least
            least = 100 * min(p["cpu_runs"]) / max(p["segments"], 1)
            cpu_base = cpu_base or least
            cpu = f"; CPU {least:.2f} s/100 seg (ratio {least / cpu_base:.2f})"
        print(f"probe at {n:>3}: {PROBES} held-out pages, {p['segments']} segments, {per:.2f} s/100 seg "
              f"(ratio {per / base:.2f}){cpu}; {shown}{every}")
    for n, c in sorted(checkpoints.items()):
        if "paired" in c:
            print_paired(f"at {WINDOW} and {n}", c["paired"])
    for n, c in sorted(checkpoints.items()):
        for when, figures in (("", c), (" settled", c.get("settled"))):
            if not figures:
                continue
            live = sum(figures["live"].values())
            history = sum(v for k, v in figures["live"].items() if k in HISTORY_TABLES)
            print(f"disk at {n:>3}{when}: {figures['disk'] / 2**20:7.1f} MiB on disk, live tables "
                  f"{live / 2**20:7.1f} MiB (ratio {figures['disk'] / max(live, 1):.2f}; of the live, history "
                  f"{history / 2**20:.1f} MiB: events and undo log)"
                  + (f"; versions kept: {c.get('versions', {})}" if not when
                     else f" (upkeep twice, a version window apart; after the first: "
                          f"{figures.get('first', 0) / 2**20:.1f} MiB)"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tutorials", type=int, default=400)
    parser.add_argument("--until", type=int, default=0, help="stop after this many tutorials (resume later)")
    parser.add_argument("--docs", type=Path, default=DOCS)
    parser.add_argument("--state", type=Path, default=Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
                        / "tutorialbook-bench" / "scale")
    parser.add_argument("--fresh", action="store_true", help="start again from an empty store")
    parser.add_argument("--keep-seconds", type=float, default=None,
                        help="retention window (restore reaches this far back; default the settings', 7 days)")
    parser.add_argument("--process-per", type=int, default=0,
                        help="a fresh process for every N tutorials (0: one process for the run)")
    parser.add_argument("--profile", action="store_true",
                        help="run each probe under cProfile; stats in STATE/probe-N.prof (slows the probe)")
    parser.add_argument("--compare", type=Path, nargs=2, metavar=("SMALL", "BIG"),
                        help="only the paired probe, on two stores (e.g. STATE/store-25 and STATE/store)")
    parser.add_argument("--runs", type=int, default=PAIRED_RUNS, help="runs of the paired probe")
    args = parser.parse_args(argv)
    if args.compare:
        print_paired("", paired_probe(*args.compare, documents(args.docs, 0)[1], args.docs, args.runs))
        return 0

    from tutorialbook.errors import TutorialbookError
    from tutorialbook.library import Library

    files, probes = documents(args.docs, args.tutorials)
    state = args.state
    if args.fresh and state.exists():
        shutil.rmtree(state)
    state.mkdir(parents=True, exist_ok=True)
    log, marks = state / "log.jsonl", state / "checkpoints.json"
    if args.process_per > 0 and not os.environ.get(CHILD):
        return relay(args, log, marks)
    rows = load(log)
    checkpoints = {int(k): v for k, v in json.loads(marks.read_text()).items()} if marks.exists() else {}
    library = Library(store=str(state / "store"), allowed_roots=(str(args.docs),),
                      keep_versions_seconds=args.keep_seconds)
    kept = getattr(library, "retention", None)  # None: code from before retention (a baseline run)
    print(f"retention: restore reaches {kept.window():g} s back, table versions kept "
          f"{getattr(kept, 'version_window', kept.window)():g} s, upkeep every {kept.every_versions} commits to a table"
          if kept else "retention: none (every version kept; LanceDB prunes only past 7 days when it optimizes)")
    stop = min(args.until or args.tutorials, args.tutorials)
    print(f"{len(rows)} of {len(files)} tutorials done before this run; going on to {stop}")
    with log.open("a") as out:
        for n in range(len(rows), stop):
            path = files[n]
            clock = time.perf_counter()
            try:
                report = library.ingest(str(path), book=BOOK).tutorials[0]
                status, segments, stages = report.status, report.segments, report.stage_seconds or {}
            except TutorialbookError as exc:  # a page with nothing to learn (a heading and links): refused
                print(f"  {n + 1:>4} {path.name:<40} refused: {exc}", flush=True)
                status, segments, stages = "refused", 0, {}
            row = {"n": n + 1, "file": path.name, "status": status, "segments": segments,
                   "stages": stages, "wall": round(time.perf_counter() - clock, 3),
                   "rss_peak_mb": round(rss_peak_mb(), 1), "pid": os.getpid()}
            out.write(json.dumps(row) + "\n")
            out.flush()
            rows.append(row)
            if (n + 1) in CHECKPOINTS or n + 1 == stop:
                checkpoints[n + 1] = {"disk": disk_bytes(state / "store"), "live": live_bytes(library),
                                      "versions": {t: len(library.store.table(t).list_versions())
                                                   for t in table_names(library)}}
                marks.write_text(json.dumps(checkpoints))
                if n + 1 == WINDOW and not (state / SMALL_BOOK).exists():
                    shutil.copytree(state / "store", state / SMALL_BOOK)
                if (n + 1) in CHECKPOINTS and "probe" not in checkpoints[n + 1]:
                    checkpoints[n + 1]["probe"] = probe(
                        state, probes, args.docs, args.keep_seconds,
                        state / f"probe-{n + 1}.prof" if args.profile else None)
                    marks.write_text(json.dumps(checkpoints))
                if n + 1 == args.tutorials and (state / SMALL_BOOK).exists() and "paired" not in checkpoints[n + 1]:
                    checkpoints[n + 1]["paired"] = paired_probe(state / SMALL_BOOK, state / "store", probes, args.docs,
                                                                args.runs)
                    marks.write_text(json.dumps(checkpoints))
                if n + 1 == args.tutorials and kept is not None:
                    checkpoints[n + 1]["settled"] = settle(library, state / "store")
                    marks.write_text(json.dumps(checkpoints))
            if (n + 1) % 5 == 0:
                print(f"  {n + 1:>4} {path.name:<40} {segments:>4} seg {row['wall']:6.2f} s "
                      f"RSS peak {row['rss_peak_mb']:.0f} MB", flush=True)
    if not os.environ.get(CHILD):
        summary(rows, checkpoints)
    return 0


def relay(args, log: Path, marks: Path) -> int:
    """``--process-per N``: the run in parts, each a fresh process of this script going on N
    tutorials from where the last stopped; then the summary of them all."""
    import subprocess

    every = args.process_per
    given = ["--tutorials", str(args.tutorials), "--docs", str(args.docs), "--state", str(args.state)]
    given += ["--keep-seconds", str(args.keep_seconds)] if args.keep_seconds is not None else []
    given += ["--profile"] if args.profile else []
    while (done := len(load(log))) < args.tutorials:
        stop = min((done // every + 1) * every, args.tutorials)
        subprocess.run([sys.executable, __file__, *given, "--until", str(stop)], env={**os.environ, CHILD: "1"},
                       check=True)
    summary(load(log), {int(k): v for k, v in json.loads(marks.read_text()).items()})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
