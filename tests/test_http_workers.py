"""A team server under load, as real processes on 127.0.0.1: several stateless server processes
on one store serve one client whose calls land on either; an ingest over HTTP runs in a child
process at lower priority and a concurrent browse answers before it finishes; token rights hold
under ``--workers``."""

import asyncio
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx2
import pytest

from tests import media

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("http_load", ROOT / "bench" / "http_load.py")
load = importlib.util.module_from_spec(spec)
sys.modules["http_load"] = load  # dataclasses look their module up
spec.loader.exec_module(load)

WRITER = "writer-token-" + "w" * 24  # writes baking
READER = "reader-token-" + "r" * 24  # reads baking only
TOKENS = {WRITER: {"agent": "wanda", "rights": {"baking": "write", "talk": "write"}},
          READER: {"agent": "rita", "rights": {"baking": "read"}}}


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """A store with the example books, and its tokens file."""
    work = tmp_path_factory.mktemp("workers")
    load.prepare_store(work / "store")
    tokens = work / "tokens.json"
    tokens.write_text(json.dumps(TOKENS))
    return work


def start(work: Path, *extra: str, allow_root: Path | None = None):
    port = load.free_port()
    log = work / f"server-{port}.log"
    env = dict(os.environ)
    env.pop("TUTORIALBOOK_TOKENS", None)
    argv = [sys.executable, "-m", "tutorialbook.server", "--store", str(work / "store"), "serve", "--http",
            "--port", str(port), "--tokens", str(work / "tokens.json"), *extra]
    if allow_root:
        argv += ["--allow-root", str(allow_root)]
    with open(log, "ab") as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        load.wait_ready(url, proc, log, timeout=600)
    except BaseException:
        load.stop_server(proc)
        raise
    return proc, port, url


class RoundRobin(httpx2.AsyncBaseTransport):
    """A load balancer in miniature: each request goes to the next server's port."""

    def __init__(self, ports: list[int]):
        self.ports = ports
        self.sent = {p: 0 for p in ports}
        self.inner = httpx2.AsyncHTTPTransport()
        self.n = 0

    async def handle_async_request(self, request):
        port = self.ports[self.n % len(self.ports)]
        self.n += 1
        self.sent[port] += 1
        request.url = request.url.copy_with(port=port)
        return await self.inner.handle_async_request(request)

    async def aclose(self):
        await self.inner.aclose()


async def _session(url: str, token: str, steps, mode: str, transport=None):
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=300,
                                  transport=transport) as http:
        async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
            return [await step(client) for step in steps]


def tool(name, **arguments):
    return lambda client: client.call_tool(name, arguments)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_two_servers_on_one_store_serve_one_client(shared, mode):
    """Calls alternate between two server processes; a lesson written through one is read through the other."""
    a, port_a, url = start(shared, "--stateless")
    b, port_b, _ = start(shared, "--stateless")
    try:
        balancer = RoundRobin([port_a, port_b])
        text = f"Two servers, one store ({mode}): cover the loaf in its first twenty minutes."

        async def steps(client):
            results = [await client.call_tool("browse_toc", {"book": "baking"}) for _ in range(3)]
            root = results[0].structured_content["node"]["id"]
            results.append(await client.call_tool("record_lesson", {"book": "baking", "lesson": text,
                                                                    "outcome": "note", "node_id": root}))
            results += [await client.call_tool("browse_toc", {"book": "baking"}) for _ in range(2)]
            results.append(await client.call_tool("retrieve_skill", {"book": "baking", "query": "covered bake",
                                                                     "k": 3, "mode": "keyword"}))
            return results

        results = asyncio.run(_session(url, WRITER, [steps], mode, balancer))[0]
        assert all(not r.is_error for r in results), [r.content[0].text for r in results if r.is_error]
        assert balancer.sent[port_a] >= 3 and balancer.sent[port_b] >= 3, balancer.sent
        lesson_id = results[3].structured_content["lesson_id"]
        seen = [[lesson["id"] for lesson in r.structured_content["lessons"]] for r in results[4:6]]
        assert all(lesson_id in ids for ids in seen), seen  # both servers read it, whichever wrote it
    finally:
        load.stop_server(a)
        load.stop_server(b)


def _children_niceness(pid: int) -> dict[int, int]:
    """Descendant pid -> nice value, from /proc."""
    out, todo = {}, [pid]
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents.setdefault(int(fields[1]), []).append(int(entry.name))
    while todo:
        for child in parents.get(todo.pop(), []):
            try:
                out[child] = int((Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split())[16])
            except (OSError, IndexError, ValueError):
                continue
            todo.append(child)
    return out


def test_an_ingest_over_http_runs_aside_and_a_browse_answers_before_it_ends(shared, tmp_path):
    """The ingest runs in a child process at lower priority, reports progress, and does not hold up a read."""
    talk = tmp_path / "media"
    talk.mkdir()
    sentences = [s.strip() + "." for s in Path("/usr/share/common-licenses/Apache-2.0").read_text()
                 .replace("\n", " ").split(".")[20:60] if len(s.split()) > 4]
    media.narrated_audio(sentences, talk / "licence-talk.wav", pause_s=0.5)
    proc, _, url = start(shared, allow_root=talk)
    try:
        async def scenario():
            from mcp import Client
            from mcp.client.streamable_http import streamable_http_client

            progress: list[str] = []
            first = asyncio.Event()

            async def on_progress(done, total, message):
                progress.append(message or "")
                first.set()

            async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {WRITER}"}, timeout=900) as http:
                async with Client(streamable_http_client(url, http_client=http), mode="legacy") as client:
                    ingest = asyncio.create_task(client.call_tool(
                        "ingest_tutorial", {"source": str(talk / "licence-talk.wav"), "book": "talk",
                                            "refine_rounds": 0},
                        read_timeout_seconds=900, progress_callback=on_progress))
                    await asyncio.wait_for(first.wait(), 600)
                    niceness = _children_niceness(proc.pid)
                    browse = await _session(url, READER, [tool("browse_toc", book="baking")], "auto")
                    browse_done_first = not ingest.done()
                    report = await asyncio.wait_for(ingest, 900)
            return progress, niceness, browse[0], browse_done_first, report

        progress, niceness, browse, browse_first, report = asyncio.run(scenario())
        assert not browse.is_error and browse.structured_content["node"]["kind"] == "book"
        assert browse_first, "the browse waited until the ingest had finished"
        assert any(n >= 10 for n in niceness.values()), f"no lower-priority ingest process: {niceness}"
        assert not report.is_error, report.content[0].text
        assert report.structured_content["tutorials"][0]["segments"] > 0
        assert len(progress) >= 2 and progress[-1].endswith("done"), progress
        after = asyncio.run(_session(url, WRITER, [tool("browse_toc", book="talk")], "legacy"))[0]
        assert not after.is_error  # the child's write is read by the server
    finally:
        load.stop_server(proc)


def test_token_rights_hold_under_workers(shared):
    proc, port, url = start(shared, "--workers", "2")
    try:
        assert httpx2.post(url, json={}, timeout=30).status_code == 401
        assert httpx2.post(url, json={}, headers={"Authorization": "Bearer " + "x" * 32}, timeout=30).status_code == 401
        for _ in range(3):  # new connections: the kernel spreads them over the two workers
            refused = asyncio.run(_session(url, READER, [
                tool("record_lesson", book="baking", lesson="a reader's note", outcome="note"),
                tool("browse_toc", book="secret")], "auto"))
            assert refused[0].is_error and ("agent 'rita' holds only the 'read' right on book 'baking'; "
                                            "record_lesson needs the 'write' right") in refused[0].content[0].text
            assert refused[1].is_error and "no book named 'secret'" in refused[1].content[0].text
            assert "secret" not in refused[1].content[0].text.split("known books")[1]
        written = asyncio.run(_session(url, WRITER, [
            tool("record_lesson", book="baking", lesson=f"wanda's note {time.time()}", outcome="note")], "legacy"))
        assert not written[0].is_error
        from tutorialbook.library import Library

        lesson = Library(store=str(shared / "store")).store.get("lessons", written[0].structured_content["lesson_id"])
        assert lesson["agent"] == "wanda"
    finally:
        load.stop_server(proc)
