"""Issue 17 items 1 and 11: a write token over HTTP makes the server read only regular files
under the allowed roots (after symlinks), never the store or the tokens file; a path outside
gets the same error whether it exists or not; a FIFO or /dev/zero is refused at once."""

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx2
import pytest

from tutorialbook.config import Settings
from tutorialbook.errors import TutorialbookError
from tutorialbook.library import Library

from tests.support import http_server

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

WRITER = "writer-token-" + "w" * 24  # writes 'mine', nothing else
READER = "reader-token-" + "r" * 24  # reads every book
TOKENS = {WRITER: {"agent": "writer", "rights": {"mine": "write"}},
          READER: {"agent": "reader", "rights": {"*": "read"}}}
GOOD = "# Proofing\n\nA warm spot near 26 C keeps a sourdough starter lively between feeds.\n"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    work = tmp_path_factory.mktemp("roots")
    allowed = work / "allowed"
    allowed.mkdir()
    store = allowed / "store"  # the store and the tokens file sit inside the root: still private
    library = Library(store=str(store))
    library.ingest(str(EXAMPLES / "sourdough-basics.md"), book="other", refine_rounds=0)  # a source outside
    tokens = allowed / "tokens.txt"
    tokens.write_text(json.dumps(TOKENS))
    (allowed / "good.md").write_text(GOOD)
    (allowed / "passwd.md").symlink_to("/etc/passwd")
    (allowed / "dangling.md").symlink_to("/etc/no-such-file-here")
    (allowed / "zero.txt").symlink_to("/dev/zero")
    (allowed / "tokens-link.md").symlink_to(tokens)
    data = next(p for p in store.rglob("*") if p.is_file())
    (allowed / "store-link.txt").symlink_to(data)
    os.mkfifo(allowed / "pipe.md")
    folder = allowed / "folder"
    folder.mkdir()
    (folder / "a.md").write_text(GOOD.replace("26 C", "25 C"))
    (folder / "b.txt").symlink_to("/etc/passwd")
    os.mkfifo(folder / "c.md")
    env = {k: v for k, v in os.environ.items() if k not in ("TUTORIALBOOK_TOKENS", "TUTORIALBOOK_ALLOWED_ROOTS")}
    port = http_server.free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    log = work / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "tutorialbook.server", "--store", str(store), "serve", "--http", "--port",
             str(port), "--tokens", str(tokens), "--allow-root", str(allowed)],
            stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        http_server.wait_ready(url, proc, log)
        yield {"url": url, "store": store, "allowed": allowed, "folder": folder}
    finally:
        http_server.stop_server(proc)


async def _calls(url, token, calls):
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            return [await client.call_tool(name, args) for name, args in calls]


def ingest(server, *sources, token=WRITER):
    calls = [("ingest_tutorial", {"source": str(s), "book": "mine", "refine_rounds": 0}) for s in sources]
    return asyncio.run(_calls(server["url"], token, calls))


def text(result):
    return result.content[0].text


def test_paths_outside_the_roots_get_one_error_whether_they_exist_or_not(server):
    other = Library(store=str(server["store"])).store.rows("tutorials", "book = 'other'")[0]["source"]
    results = ingest(server, "/etc/passwd", "/etc/no-such-file-here", other, "/dev/zero", "/proc/self/environ")
    for result, given in zip(results, ["/etc/passwd", "/etc/no-such-file-here", other, "/dev/zero",
                                       "/proc/self/environ"]):
        assert result.is_error
        assert text(result).replace(repr(given), "P") == text(results[1]).replace(repr("/etc/no-such-file-here"), "P")
        assert "not under the allowed roots" in text(result) and "--allow-root" in text(result)


def test_symlinks_are_resolved_before_the_check(server):
    allowed = server["allowed"]
    passwd, dangling, zero = ingest(server, allowed / "passwd.md", allowed / "dangling.md", allowed / "zero.txt")
    for result, name in ((passwd, "passwd.md"), (zero, "zero.txt")):
        assert result.is_error
        assert text(result).replace(name, "X") == text(dangling).replace("dangling.md", "X")
    assert "root:" not in text(passwd)


def test_the_store_and_the_tokens_file_are_never_sources(server):
    allowed = server["allowed"]
    results = ingest(server, allowed / "tokens.txt", allowed / "tokens-link.md", allowed / "store-link.txt")
    for result in results:
        assert result.is_error and "not under the allowed roots" in text(result)
        assert WRITER not in text(result)


def test_a_fifo_is_refused_at_once(server):
    started = time.monotonic()
    (fifo,) = ingest(server, server["allowed"] / "pipe.md")
    assert fifo.is_error and "not a regular file" in text(fifo)
    assert time.monotonic() - started < 60  # it did not wait for a writer on the pipe


def test_a_folder_reads_only_its_allowed_regular_files_and_nothing_leaks(server):
    good, folder = ingest(server, server["allowed"] / "good.md", server["folder"])
    assert not good.is_error and good.structured_content["tutorials"][0]["status"] == "added"
    assert not folder.is_error
    assert [t["title"] for t in folder.structured_content["tutorials"]] == ["Proofing"]  # a.md's own heading
    library = Library(store=str(server["store"]))
    sources = sorted(Path(r["source"]).name for r in library.store.rows("tutorials", "book = 'mine'"))
    assert sources == ["a.md", "good.md"]
    (found,) = asyncio.run(_calls(server["url"], READER, [("retrieve_skill", {"query": "root x 0 0 bin bash",
                                                                              "book": "mine", "k": 10})]))
    assert "root:x:" not in json.dumps(found.structured_content)
    texts = " ".join(r["text"] for r in library.store.rows("segments", "book = 'mine'"))
    assert "root:" not in texts and WRITER not in texts


def test_http_reads_no_files_unless_roots_are_configured(tmp_path, monkeypatch):
    from tutorialbook.server.http import build_app, shared_settings

    monkeypatch.delenv("TUTORIALBOOK_ALLOWED_ROOTS", raising=False)
    monkeypatch.delenv("TUTORIALBOOK_TOKENS", raising=False)
    given = Settings(store=str(tmp_path / "store"))
    build_app(given, port=1)
    assert given.allowed_roots is None  # the caller's settings are not changed ...
    settings = shared_settings(given, None)  # ... the server runs with a copy (build_app)
    assert settings.allowed_roots == ()
    (tmp_path / "t.md").write_text(GOOD)
    with pytest.raises(TutorialbookError) as error:
        Library(settings).ingest(str(tmp_path / "t.md"), book="b")
    assert "reads no files" in str(error.value) and "TUTORIALBOOK_ALLOWED_ROOTS" in str(error.value)
    assert not Library(settings).has_book("b")


def test_stdio_and_python_default_to_home_and_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("TUTORIALBOOK_ALLOWED_ROOTS", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "here.md").write_text(GOOD)
    library = Library(store=str(tmp_path / "store"))
    assert set(library.source_policy().roots) == {str(Path.home()), str(tmp_path)}
    assert library.ingest("here.md", book="b", refine_rounds=0).tutorials[0].status == "added"
    with pytest.raises(TutorialbookError) as error:
        library.ingest("/etc/passwd", book="b")
    assert "not under the allowed roots" in str(error.value)


def test_a_text_file_over_the_limit_is_refused_without_being_read(tmp_path):
    big = tmp_path / "big.txt"
    with open(big, "wb") as handle:  # 3 GiB, sparse: nothing to read but holes
        handle.truncate(3 * 2**30)
    library = Library(store=str(tmp_path / "store"))
    before = _bytes_read()
    with pytest.raises(TutorialbookError) as error:
        library.ingest(str(big), book="b")
    assert "is over 20 MiB, the limit for text" in str(error.value) and "3072.0 MiB" in str(error.value)
    assert _bytes_read() - before < 2**20  # neither hashed nor read


def _bytes_read() -> int:
    """Bytes this process has read through read() calls (Linux /proc/self/io ``rchar``)."""
    line = next(row for row in Path("/proc/self/io").read_text().splitlines() if row.startswith("rchar:"))
    return int(line.split()[1])
