"""16 agents on one Tutorialbook server over streamable HTTP: throughput, latency, and reads
while another agent ingests a 30-minute narrated video.

    python bench/http_load.py [--seconds 30] [--clients 16] [--workers 2] [--client-procs 2] [--setup 20]
                              [--video-minutes 30] [--no-ingest] [--think 0] [--keep DIR]

Four phases against one server (``serve --http --workers N``), in one run:

1. one client, mixed load: calls/s (the baseline);
2. ``--clients`` clients, mixed load: calls/s and the ratio to phase 1 (target >= 1.7x on two
   cores), p50/p99 per operation, server CPU per call;
3. the same clients, reads only (browse, retrieve, the books resource): read p50/p99;
4. phase 3 again while one more agent ingests a narrated video over HTTP (espeak-ng reading a
   licence text from /usr/share/common-licenses, under a still frame, ``--video-minutes`` long):
   read p50/p99 beside phase 3's (target: p99 at most 2x), and the ingest's progress
   notifications. The readers start once the ingest reports progress; the ingest is cancelled
   when the phase ends (or reports its result if it finished first).

The clients run in ``--client-procs`` processes (one Python process cannot drive 16 MCP
clients faster than one core allows); each phase's sessions are opened during ``--setup``
seconds, then calls are counted in a window of ``--seconds``.

Builds a store with two books ('baking' from the shipped examples, and 'secret'), writes a
tokens file with one token per client, starts ``tutorialbook serve --http`` on a free port of
127.0.0.1, and runs the clients concurrently for a bounded time, each with its own token and
session (half on protocol 2025-11-25, half on 2026-07-28). The clients' roles:

* writers (half): ``{"baking": "write"}`` — browse, retrieve, record lessons; 'secret' must be
  invisible to them (browse says "no book named 'secret'", the books resource omits it);
* readers (a quarter): ``{"baking": "read", "secret": "read"}`` — browse and retrieve both books;
  their record_lesson must be refused, naming the book and the right needed;
* admins (a quarter): ``{"*": "admin"}`` — everything, both books, and the history resource.

Each client sends its next call as soon as the last one answered (a saturating closed loop:
latency is mostly queueing once the server's two cores are busy); ``--think S`` makes each wait a
random 0..S seconds between calls instead, like an agent thinking.

Every call has an expected outcome; an *error* is any call that did not get it (an exception,
an error result where success was due, a success where a refusal was due, a wrong message).
Prints per operation and overall: calls, errors, p50/p99 latency; then checks that every
acknowledged lesson is in the store under its caller's agent id and no refused one is.
Traffic goes to 127.0.0.1 only; every phase stops by itself after ``--seconds`` (the video's
making and the wait for the ingest's first progress are bounded too).
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import multiprocessing
import os
import random
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.examples import EXAMPLES  # noqa: E402
from tests.support.http_server import free_port, start_server, stop_server, wait_ready  # noqa: E402

QUERIES = ["my loaf came out flat", "how do I know the starter is ready", "score the loaf", "sluggish starter",
           "dense crumb", "when to bake covered", "feeding schedule", "pale crust"]


@dataclass
class Agent:
    name: str
    token: str
    role: str  # writer, reader, admin
    mode: str  # auto (2026-07-28) or legacy (2025-11-25)


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    refused: dict[str, int] = field(default_factory=dict)  # expected refusals seen, per agent
    written: dict[str, set[str]] = field(default_factory=dict)  # acknowledged lesson ids per agent
    calls: int = 0
    seconds: float = 0.0
    started_at: float = 0.0  # wall clock: lessons written since then are this run's
    ended_at: float = 0.0  # wall clock: when the last call answered

    def add(self, op: str, seconds: float) -> None:
        self.latencies.setdefault(op, []).append(seconds)
        self.calls += 1
        self.ended_at = max(self.ended_at, time.time())


def make_agents(n: int = 16) -> list[Agent]:
    roles = ["writer"] * (n // 2) + ["reader"] * (n // 4) + ["admin"] * (n - n // 2 - n // 4)
    return [Agent(f"{role}{i}", f"tb-{role}{i}-{os.urandom(12).hex()}", role, "legacy" if i % 2 else "auto")
            for i, role in enumerate(roles)]


def tokens_json(agents: list[Agent]) -> dict:
    import hashlib

    rights = {"writer": {"baking": "write"}, "reader": {"baking": "read", "secret": "read"}, "admin": {"*": "admin"}}
    out = {}
    for n, a in enumerate(agents):  # every other key is stored as a digest, not the token
        key = "sha256:" + hashlib.sha256(a.token.encode()).hexdigest() if n % 2 else a.token
        out[key] = {"agent": a.name, "rights": rights[a.role]}
    return out


def prepare_store(store: Path) -> None:
    from tutorialbook.library import Library

    library = Library(store=str(store), allowed_roots=(str(EXAMPLES),))
    library.ingest(str(EXAMPLES), book="baking", refine_rounds=0, agent="setup")
    library.ingest(str(EXAMPLES / "sourdough-basics.md"), book="secret", refine_rounds=0, agent="setup")
    library.record_lesson("The secret book's own lesson.", "secret", agent="setup")


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process (Linux /proc), or None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def tree_cpu_seconds(pid: int) -> float | None:
    """CPU time of a process and its live descendants (a server's worker processes), or None."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    total, todo = None, [pid]
    while todo:
        current = todo.pop()
        used = cpu_seconds(current)
        if used is not None:
            total = (total or 0.0) + used
        todo += children.get(current, [])
    return total


def missing_text(book: str) -> str:
    """The start of the error a missing book gets (what an invisible book must get too)."""
    return f"book: no book named {book!r}"


MIXED = ["browse", "browse", "retrieve", "retrieve", "lesson", "lesson", "books", "secret"]
READS = ["browse", "browse", "retrieve", "retrieve", "books"]


async def client_loop(  # noqa: C901 - every operation beside its expected outcome, in one loop
        url: str, agent: Agent, deadline: float, stats: Stats, seed: int, think: float = 0.0,
                      ops: list[str] = MIXED, start_at: float = 0.0) -> None:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    rng = random.Random(seed)
    written = stats.written.setdefault(agent.name, set())
    stats.refused.setdefault(agent.name, 0)

    def fail(op: str, why: str) -> None:
        stats.errors.append(f"{agent.name} {op}: {why}"[:400])

    headers = {"Authorization": f"Bearer {agent.token}"}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60, read=120)) as http:
        async with Client(streamable_http_client(url, http_client=http), mode=agent.mode) as client:
            n = 0
            if start_at > time.time():  # sessions are set up before the measured window opens
                await asyncio.sleep(start_at - time.time())
            while time.time() < deadline:
                if think and n:
                    await asyncio.sleep(rng.uniform(0, think))
                    if time.time() >= deadline:
                        break
                n += 1
                op = rng.choice(ops)
                started = time.perf_counter()
                try:
                    if op == "browse":
                        r = await client.call_tool("browse_toc", {"book": "baking", "depth": rng.choice([1, 2])})
                        ok = not r.is_error and r.structured_content["node"]["kind"] == "book"
                        ok or fail(op, r.content[0].text if r.content else "no content")
                    elif op == "retrieve":
                        r = await client.call_tool("retrieve_skill", {
                            "book": "baking", "query": rng.choice(QUERIES), "k": 3,
                            "mode": rng.choice(["hybrid", "toc", "keyword"])})
                        ok = not r.is_error and r.structured_content["skills"]
                        ok or fail(op, r.content[0].text if r.content else "no skills")
                    elif op == "lesson":
                        text = (f"{agent.name} lesson {n} of run {stats.started_at:.3f}: proof "
                                f"{rng.randint(1, 10**9)} minutes at {n % 30} C")  # new each run: never merged
                        r = await client.call_tool("record_lesson", {"book": "baking", "lesson": text,
                                                                     "outcome": "note"})
                        if agent.role == "reader":
                            want = (f"agent {agent.name!r} holds only the 'read' right on book 'baking'; "
                                    "record_lesson needs the 'write' right")
                            if r.is_error and want in r.content[0].text:
                                stats.refused[agent.name] += 1
                            else:
                                fail(op, "a read-only token's write was not refused as it should be: "
                                         + (r.content[0].text if r.content else ""))
                        elif r.is_error:
                            fail(op, r.content[0].text)
                        else:
                            written.add(r.structured_content["lesson_id"])
                    elif op == "books":
                        r = await client.read_resource("tutorialbook://books")
                        names = {b["name"] for b in json.loads(r.contents[0].text)}
                        want = {"baking"} if agent.role == "writer" else {"baking", "secret"}
                        names == want or fail(op, f"books resource listed {sorted(names)}, expected {sorted(want)}")
                    elif op == "secret":
                        r = await client.call_tool("browse_toc", {"book": "secret"})
                        if agent.role == "writer":  # invisible: exactly like a missing book
                            text = r.content[0].text if r.content else ""
                            if (
                                r.is_error
                                and missing_text("secret") in text
                                and "secret" not in text.split("known books")[1]
                            ):
                                stats.refused[agent.name] += 1
                            else:
                                fail(op, f"an invisible book showed: {text[:200]}")
                        else:
                            r.is_error and fail(op, r.content[0].text)
                except Exception as exc:  # noqa: BLE001 - every failure counts
                    fail(op, f"{type(exc).__name__}: {exc}")
                stats.add(op, time.perf_counter() - started)


async def run_load(url: str, agents: list[Agent], seconds: float, think: float = 0.0, ops: list[str] = MIXED,
                   seed: int = 0, start_at: float | None = None) -> Stats:
    """The agents' loops; calls are made from ``start_at`` (wall clock; default now) for ``seconds``,
    each agent's session being set up before then."""
    stats = Stats(started_at=time.time())
    start_at = time.time() if start_at is None else start_at
    deadline = start_at + seconds
    results = await asyncio.gather(*(client_loop(url, a, deadline, stats, seed + n, think, ops, start_at)
                                     for n, a in enumerate(agents)), return_exceptions=True)
    for agent, result in zip(agents, results):
        if isinstance(result, BaseException):
            stats.errors.append(f"{agent.name} session: {type(result).__name__}: {result}"[:400])
    stats.seconds = max(stats.ended_at - start_at, seconds) if stats.calls else seconds  # the window's length
    return stats


def _load_in_process(url: str, agents: list[Agent], seconds: float, think: float, ops: list[str], seed: int,
                     start_at: float) -> Stats:
    return asyncio.run(run_load(url, agents, seconds, think, ops, seed, start_at))


def run_load_procs(url: str, agents: list[Agent], seconds: float, think: float = 0.0, ops: list[str] = MIXED,
                   procs: int = 1, setup: float = 0.0) -> Stats:
    """:func:`run_load` with the agents spread over ``procs`` client processes, calls counted in one
    window of ``seconds`` that opens ``setup`` seconds from now (for the processes to start and the
    sessions to be set up); the stats merged."""
    procs = max(1, min(procs, len(agents)))
    start_at = time.time() + setup
    if procs == 1:
        return asyncio.run(run_load(url, agents, seconds, think, ops, 0, start_at))
    shares = [agents[i::procs] for i in range(procs)]
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(procs, mp_context=context) as pool:
        parts = list(pool.map(_load_in_process, [url] * procs, shares, [seconds] * procs, [think] * procs,
                              [ops] * procs, [100 * i for i in range(procs)], [start_at] * procs))
    return merge(parts)


def merge(parts: list[Stats]) -> Stats:
    out = Stats(started_at=min(p.started_at for p in parts), seconds=max(p.seconds for p in parts),
                ended_at=max(p.ended_at for p in parts))
    for p in parts:
        for op, values in p.latencies.items():
            out.latencies.setdefault(op, []).extend(values)
        out.errors += p.errors
        out.calls += p.calls
        for name, n in p.refused.items():
            out.refused[name] = out.refused.get(name, 0) + n
        for name, ids in p.written.items():
            out.written.setdefault(name, set()).update(ids)
    return out


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def report(stats: Stats, clients: int) -> str:
    lines = [f"{clients} clients, {stats.seconds:.1f} s: {stats.calls} calls ({stats.calls / stats.seconds:.1f}/s), "
             f"{len(stats.errors)} errors",
             f"{'operation':10} {'calls':>6} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}"]
    everything = []
    for op in sorted(stats.latencies):
        values = stats.latencies[op]
        everything += values
        lines.append(f"{op:10} {len(values):>6} {1000 * percentile(values, .5):>8.1f} "
                     f"{1000 * percentile(values, .99):>8.1f} {1000 * max(values):>8.1f}")
    lines.append(f"{'all':10} {len(everything):>6} {1000 * percentile(everything, .5):>8.1f} "
                 f"{1000 * percentile(everything, .99):>8.1f} {1000 * max(everything, default=float('nan')):>8.1f}")
    lines += [f"error: {e}" for e in stats.errors[:20]]
    return "\n".join(lines)


def check_store(store: Path, stats: Stats, agents: list[Agent]) -> list[str]:
    """Every acknowledged lesson is stored under its caller's agent; no refused write is."""
    from tutorialbook.library import Library

    rows = Library(store=str(store)).store.rows("lessons", f"book = 'baking' AND created_at >= {stats.started_at - 1}",
                                                ["id", "agent"])
    by_agent: dict[str, set[str]] = {}
    for r in rows:
        by_agent.setdefault(r["agent"], set()).add(r["id"])
    problems = []
    for a in agents:
        stored, acked = by_agent.get(a.name, set()), stats.written.get(a.name, set())
        if stored != acked:
            problems.append(f"{a.name}: {len(acked)} lessons acknowledged, {len(stored)} stored under its name")
    return problems


def make_video(path: Path, minutes: float) -> float:
    """A narrated video of ``minutes``: espeak-ng reading the GPL-3 text (repeated if need be)
    under a black still frame. Returns its duration in seconds."""
    sys.path.insert(0, str(ROOT))
    from tests.support import media

    words = Path("/usr/share/common-licenses/GPL-3").read_text().split()
    need = int(minutes * 175) + 50  # espeak at 150 wpm speaks a little faster than that
    text = " ".join((words * (need // len(words) + 1))[:need])
    wav, cut = path.with_suffix(".full.wav"), path.with_suffix(".wav")
    media.speak(text, wav)
    media._ffmpeg("-i", str(wav), "-t", f"{minutes * 60:.0f}", str(cut))
    wav.unlink()
    media.mux_still(cut, path)
    seconds = media.wav_duration(cut)
    cut.unlink()
    return seconds


async def ingest_while(url: str, token: str, video: Path, read_phase, first_progress_timeout: float = 900):
    """Start ingesting ``video`` over HTTP; once it reports progress, run ``read_phase()`` (blocking,
    in a thread); then cancel the ingest if it is still running. Returns (read stats, ingest summary)."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    events: list[tuple[float, float, str]] = []
    first = asyncio.Event()
    started = time.perf_counter()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        events.append((time.perf_counter() - started, progress, message or ""))
        first.set()

    summary = {"finished": False, "result": None}
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"},
                                  timeout=httpx2.Timeout(60, read=3600)) as http:
        async with Client(streamable_http_client(url, http_client=http), mode="legacy") as client:
            async def ingest() -> None:
                r = await client.call_tool("ingest_tutorial", {"source": str(video), "book": "video"},
                                           read_timeout_seconds=3600, progress_callback=on_progress)
                summary["finished"] = True
                summary["result"] = r.content[0].text[:300] if r.is_error else \
                    f"{r.structured_content['tutorials'][0]['segments']} segments"

            task = asyncio.create_task(ingest())
            waiting = asyncio.create_task(first.wait())
            await asyncio.wait({task, waiting}, timeout=first_progress_timeout, return_when=asyncio.FIRST_COMPLETED)
            waiting.cancel()
            if not first.is_set():
                task.cancel()
                raise RuntimeError(f"the ingest reported no progress in {first_progress_timeout:.0f} s "
                                   f"({summary['result'] or 'it ended'})")
            stats = await asyncio.to_thread(read_phase)
            if not task.done():
                task.cancel()
            try:
                await task
            except (asyncio.CancelledError, Exception) as exc:  # noqa: BLE001 - cancelled on purpose
                summary["result"] = summary["result"] or f"cancelled at the phase's end ({type(exc).__name__})"
    summary["progress"] = events
    return stats, summary


def read_latencies(stats: Stats) -> list[float]:
    return [v for op in ("browse", "retrieve", "books") for v in stats.latencies.get(op, [])]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=30, help="length of each phase")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="server worker processes")
    parser.add_argument("--client-procs", type=int, default=min(4, os.cpu_count() or 1), dest="client_procs",
                        help="processes the clients run in")
    parser.add_argument("--setup", type=float, default=20.0,
                        help="seconds for the client processes to start and open their sessions before each "
                             "phase's measured window")
    parser.add_argument("--video-minutes", type=float, default=30, dest="video_minutes")
    parser.add_argument("--no-ingest", action="store_true", dest="no_ingest", help="skip phase 4")
    parser.add_argument("--think", type=float, default=0.0, help="each client waits 0..THINK s between calls")
    parser.add_argument("--keep", help="use (and keep) this folder for the store, tokens, video and server log")
    args = parser.parse_args()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="tb-http-load-"))
    work.mkdir(parents=True, exist_ok=True)
    store, tokens_file, log, media_dir = work / "store", work / "tokens.json", work / "server.log", work / "media"
    agents = make_agents(args.clients)
    ingester = Agent("ingester", f"tb-ingester-{os.urandom(12).hex()}", "writer", "legacy")
    tokens = tokens_json(agents)
    tokens[ingester.token] = {"agent": ingester.name, "rights": {"video": "write"}}
    tokens_file.write_text(json.dumps(tokens, indent=2))
    tokens_file.chmod(0o600)
    if not (store / "books.lance").exists():
        print("preparing the store ...", file=sys.stderr)
        prepare_store(store)
    video = media_dir / f"narration-{args.video_minutes:g}min.mp4"
    if not args.no_ingest and not video.exists():
        media_dir.mkdir(exist_ok=True)
        made = time.perf_counter()
        seconds = make_video(video, args.video_minutes)
        print(f"video: {seconds / 60:.1f} min of espeak-ng narration made in {time.perf_counter() - made:.0f} s",
              file=sys.stderr)
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    server = start_server(store, tokens_file, port, log, workers=args.workers, allow_root=media_dir)
    phases: dict[str, Stats] = {}
    cpu: dict[str, float] = {}
    ingest_summary = None
    warm_up: Stats | None = None

    def phase(name: str, clients: list[Agent], ops: list[str]) -> Stats:
        before = tree_cpu_seconds(server.pid)
        stats = run_load_procs(url, clients, args.seconds, args.think, ops, args.client_procs, args.setup)
        after = tree_cpu_seconds(server.pid)
        if before is not None and after is not None:
            cpu[name] = after - before
        phases[name] = stats
        return stats

    try:
        wait_ready(url, server, log, timeout=600)
        warm_up = run_load_procs(url, agents, min(10.0, args.seconds), 0.0, MIXED, args.client_procs, args.setup)
        phase("1 client", agents[:1], MIXED)
        phase(f"{len(agents)} clients", agents, MIXED)
        phase(f"{len(agents)} readers", agents, READS)
        if not args.no_ingest:
            stats, ingest_summary = asyncio.run(ingest_while(
                url, ingester.token, video, lambda: run_load_procs(url, agents, args.seconds, args.think, READS,
                                                                   args.client_procs, args.setup)))
            phases[f"{len(agents)} readers + ingest"] = stats
    finally:
        stop_server(server)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"server: {args.workers} worker process(es); clients in {args.client_procs} process(es); "
          f"{args.seconds:g} s per phase; machine load average {load:.1f} on {os.cpu_count()} cores")
    for name, stats in phases.items():
        print(f"\n== {name}")
        print(report(stats, len(agents[:1]) if name == "1 client" else len(agents)))
        if name in cpu:
            print(f"server CPU: {cpu[name]:.1f} s ({cpu[name] / stats.seconds:.2f} cores), "
                  f"{1000 * cpu[name] / max(1, stats.calls):.0f} ms per call")
    one, many = phases["1 client"], phases[f"{len(agents)} clients"]
    rate1, rate16 = one.calls / one.seconds, many.calls / many.seconds
    print(f"\nthroughput: 1 client {rate1:.1f} calls/s, {len(agents)} clients {rate16:.1f} calls/s "
          f"= {rate16 / rate1:.2f}x (target >= 1.7x)")
    quiet = read_latencies(phases[f"{len(agents)} readers"])
    print(f"reads, {len(agents)} clients: p50 {1000 * percentile(quiet, .5):.0f} ms, "
          f"p99 {1000 * percentile(quiet, .99):.0f} ms")
    if ingest_summary is not None:
        busy = read_latencies(phases[f"{len(agents)} readers + ingest"])
        print(f"reads while one client ingests a {args.video_minutes:g}-minute video: p50 "
              f"{1000 * percentile(busy, .5):.0f} ms, p99 {1000 * percentile(busy, .99):.0f} ms "
              f"= {percentile(busy, .99) / percentile(quiet, .99):.2f}x the p99 without (target <= 2x)")
        events = ingest_summary["progress"]
        print(f"ingest: {len(events)} progress notifications, last {events[-1][2]!r} at {events[-1][0]:.0f} s; "
              f"{ingest_summary['result']}")
    # the warm-up's lessons too: its last call may end after its window, inside the first phase's
    every = merge(list(phases.values()) + ([warm_up] if warm_up else []))
    problems = check_store(store, every, agents)
    print("store check: " + ("every acknowledged lesson stored under its agent, no refused write stored"
                             if not problems else "; ".join(problems)))
    print(f"rights: {sum(every.refused.values())} expected refusals (read-only writes, invisible-book reads) "
          "all refused")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if every.errors or problems else 0


if __name__ == "__main__":
    sys.exit(main())
