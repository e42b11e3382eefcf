"""16 agents on one Tutorialbook server over streamable HTTP: latency under a mixed load.

    python bench/http_load.py [--seconds 30] [--clients 16] [--think 0] [--keep DIR]

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
Traffic goes to 127.0.0.1 only; the run stops by itself after ``--seconds``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
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

    def add(self, op: str, seconds: float) -> None:
        self.latencies.setdefault(op, []).append(seconds)
        self.calls += 1


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


def missing_text(book: str) -> str:
    """The start of the error a missing book gets (what an invisible book must get too)."""
    return f"book: no book named {book!r}"


async def client_loop(  # noqa: C901 - every operation beside its expected outcome, in one loop
        url: str, agent: Agent, deadline: float, stats: Stats, seed: int, think: float = 0.0) -> None:
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
            while time.time() < deadline:
                if think and n:
                    await asyncio.sleep(rng.uniform(0, think))
                    if time.time() >= deadline:
                        break
                n += 1
                op = rng.choice(["browse", "browse", "retrieve", "retrieve", "lesson", "lesson", "books", "secret"])
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


async def run_load(url: str, agents: list[Agent], seconds: float, think: float = 0.0) -> Stats:
    stats = Stats(started_at=time.time())
    deadline = time.time() + seconds
    started = time.perf_counter()
    results = await asyncio.gather(*(client_loop(url, a, deadline, stats, n, think) for n, a in enumerate(agents)),
                                   return_exceptions=True)
    for agent, result in zip(agents, results):
        if isinstance(result, BaseException):
            stats.errors.append(f"{agent.name} session: {type(result).__name__}: {result}"[:400])
    stats.seconds = time.perf_counter() - started
    return stats


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
                 f"{1000 * percentile(everything, .99):>8.1f} {1000 * max(everything):>8.1f}")
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--think", type=float, default=0.0, help="each client waits 0..THINK s between calls")
    parser.add_argument("--keep", help="use (and keep) this folder for the store, tokens and server log")
    args = parser.parse_args()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="tb-http-load-"))
    work.mkdir(parents=True, exist_ok=True)
    store, tokens_file, log = work / "store", work / "tokens.json", work / "server.log"
    agents = make_agents(args.clients)
    tokens_file.write_text(json.dumps(tokens_json(agents), indent=2))
    tokens_file.chmod(0o600)
    if not (store / "books.lance").exists():
        print("preparing the store ...", file=sys.stderr)
        prepare_store(store)
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    server = start_server(store, tokens_file, port, log)
    try:
        wait_ready(url, server, log)
        cpu_before = cpu_seconds(server.pid)
        stats = asyncio.run(run_load(url, agents, args.seconds, args.think))
        cpu_after = cpu_seconds(server.pid)
    finally:
        stop_server(server)
    print(report(stats, len(agents)))
    if cpu_before is not None and cpu_after is not None:
        used = cpu_after - cpu_before
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(
            f"server CPU: {used:.1f} s in {stats.seconds:.1f} s "
            f"({used / stats.seconds:.2f} of {os.cpu_count()} cores), "
            f"{1000 * used / max(1, stats.calls):.0f} ms per call; machine load average {load:.1f}"
        )
    problems = check_store(store, stats, agents)
    print("store check: " + ("every acknowledged lesson stored under its agent, no refused write stored"
                             if not problems else "; ".join(problems)))
    refused = sum(stats.refused.values())
    print(f"rights: {refused} expected refusals (read-only writes, invisible-book reads) all refused")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if stats.errors or problems else 0


if __name__ == "__main__":
    sys.exit(main())
