"""The server over streamable HTTP with bearer tokens, as a real process on 127.0.0.1:
401 without a token, identity from the token, per-book rights (read-only writes refused,
books without a right invisible), DNS-rebinding protection, both protocol eras, and 16
concurrent clients with different tokens mixing reads and writes (bench/http_load.py)."""

import asyncio
import hashlib
import json
import os
from pathlib import Path

import httpx2
import pytest

from tutorialbook.library import Library
from tutorialbook.server.auth import Access, TokenTable
from tutorialbook.errors import TutorialbookError

from bench import http_load as load
from tests.support import http_server

ROOT = Path(__file__).resolve().parent.parent

ALICE = "alice-token-" + "a" * 24  # writes baking, reads nothing else
BOB = "bob-token-" + "b" * 24  # reads baking only (stored as a sha256 digest)
CAROL = "carol-token-" + "c" * 24  # reads every book
ROOT_TOKEN = "root-token-" + "r" * 24  # admin everywhere
TOKENS = {
    ALICE: {"agent": "alice", "rights": {"baking": "write"}},
    "sha256:" + hashlib.sha256(BOB.encode()).hexdigest(): {"agent": "bob", "rights": {"baking": "read"}},
    CAROL: {"agent": "carol", "rights": {"*": "read"}},
    ROOT_TOKEN: {"agent": "root", "rights": {"*": "admin"}},
}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    work = tmp_path_factory.mktemp("http")
    store = work / "store"
    load.prepare_store(store)  # 'baking' (both examples) and 'secret'
    agents = load.make_agents(16)
    tokens = dict(TOKENS, **load.tokens_json(agents))
    tokens_file = work / "tokens.json"
    tokens_file.write_text(json.dumps(tokens))
    port = http_server.free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    log = work / "server.log"
    proc = http_server.start_server(store, tokens_file, port, log)
    try:
        http_server.wait_ready(url, proc, log)
        yield {"url": url, "store": store, "agents": agents, "port": port, "log": log}
    finally:
        http_server.stop_server(proc)


async def call(url, token, steps, mode="auto"):
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120) as http:
        async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
            return [await step(client) for step in steps], client.protocol_version


def run(url, token, *steps, mode="auto"):
    return asyncio.run(call(url, token, steps, mode))


def tool(name, **arguments):
    return lambda client: client.call_tool(name, arguments)


def resource(uri):
    return lambda client: client.read_resource(uri)


def text(result):
    return result.content[0].text


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def test_no_token_or_a_bad_token_gets_401(server):
    for headers in ({}, {"Authorization": "Bearer not-a-token-at-all-000000"}, {"Authorization": f"Basic {ALICE}"},
                    {"Authorization": "Bearer sha256:" + hashlib.sha256(BOB.encode()).hexdigest()}):
        reply = httpx2.post(server["url"], json=INIT, headers=dict(HEADERS, **headers), timeout=30)
        assert reply.status_code == 401, headers
        assert reply.headers["www-authenticate"].startswith("Bearer ")
    assert httpx2.post(server["url"], json=INIT, headers=dict(HEADERS, Authorization=f"Bearer {ALICE}"),
                       timeout=30).status_code == 200


def test_dns_rebinding_protection_is_on(server):
    auth = {"Authorization": f"Bearer {ROOT_TOKEN}"}
    foreign_host = httpx2.post(server["url"], json=INIT, timeout=30,
                               headers=dict(HEADERS, Host="evil.example.com", **auth))
    assert foreign_host.status_code == 421
    foreign_origin = httpx2.post(server["url"], json=INIT, timeout=30,
                                 headers=dict(HEADERS, Origin="http://evil.example.com", **auth))
    assert foreign_origin.status_code == 403


@pytest.mark.parametrize("mode, era", [("auto", "2026-07-28"), ("legacy", "2025-11-25")])
def test_identity_comes_from_the_token_in_both_protocol_eras(server, mode, era):
    lesson = f"Alice over {era}: a cold proof makes scoring easier."
    (recorded,), version = run(server["url"], ALICE, tool("record_lesson", book="baking", lesson=lesson), mode=mode)
    assert version == era and not recorded.is_error
    row = Library(store=str(server["store"])).store.get("lessons", recorded.structured_content["lesson_id"])
    assert row["agent"] == "alice"
    event = Library(store=str(server["store"])).history("baking", target=row["id"])[0]
    assert event.agent == "alice"


def test_a_tool_argument_cannot_claim_another_identity(server):
    (result,), _ = run(server["url"], ALICE,
                       tool("record_lesson", book="baking", lesson="I claim to be root.", agent="root"))
    if not result.is_error:  # extra arguments may be ignored, never obeyed
        row = Library(store=str(server["store"])).store.get("lessons", result.structured_content["lesson_id"])
        assert row["agent"] == "alice"


def test_read_only_token_cannot_write(server):
    (lesson, ingest, browse), _ = run(
        server["url"], BOB,
        tool("record_lesson", book="baking", lesson="Bob was here."),
        tool("ingest_tutorial", book="baking", source=str(ROOT / "examples")),
        tool("browse_toc", book="baking"), mode="legacy")
    assert lesson.is_error and ("agent 'bob' holds only the 'read' right on book 'baking'; "
                                "record_lesson needs the 'write' right") in text(lesson)
    assert ingest.is_error and "ingest_tutorial needs the 'write' right" in text(ingest)
    assert not browse.is_error
    rows = Library(store=str(server["store"])).store.rows("lessons", "agent = 'bob'")
    assert rows == []


def test_a_book_without_a_right_is_invisible(server):
    library = Library(store=str(server["store"]))
    secret_skill = library.store.rows("skills", "book = 'secret'", ["id"], limit=1)[0]["id"]
    secret_tutorial = library.store.rows("tutorials", "book = 'secret'", ["id"], limit=1)[0]["id"]
    hidden, _ = run(
        server["url"], ALICE,
        tool("browse_toc", book="secret"), tool("retrieve_skill", book="secret", query="starter"),
        tool("record_lesson", book="secret", lesson="Alice writes where she cannot see."),
        tool("ingest_tutorial", book="secret", source=str(ROOT / "examples")),
        resource("tutorialbook://books"))
    missing, _ = run(server["url"], ALICE, tool("browse_toc", book="nosuch"),
                     tool("retrieve_skill", book="nosuch", query="starter"),
                     tool("record_lesson", book="nosuch", lesson="Alice writes where she cannot see."))
    browse, retrieve, lesson, ingest, books = hidden
    for got, want in zip((browse, retrieve, lesson), missing):
        assert got.is_error and text(got).replace("'secret'", "'X'") == text(want).replace("'nosuch'", "'X'")
        assert "known books: baking)" in text(got)
    assert ingest.is_error and "holds no right on book 'secret'" in text(ingest)
    assert [b["name"] for b in json.loads(books.contents[0].text)] == ["baking"]
    assert library.store.count("lessons", "agent = 'alice' AND book = 'secret'") == 0

    async def errors(client):
        out = []
        for uri in (f"tutorialbook://skills/{secret_skill}", "tutorialbook://skills/s_nosuch",
                    f"tutorialbook://tutorials/{secret_tutorial}/transcript", "tutorialbook://tutorials/t_nosuch/transcript",
                    "tutorialbook://books/secret/toc", "tutorialbook://books/nosuch/toc"):
            try:
                await client.read_resource(uri)
                out.append("read")
            except Exception as exc:  # noqa: BLE001
                out.append(str(exc).replace(secret_skill, "ID").replace("s_nosuch", "ID")
                           .replace(secret_tutorial, "ID").replace("t_nosuch", "ID")
                           .replace("secret", "B").replace("nosuch", "B"))
        return out

    (seen,), _ = run(server["url"], ALICE, errors)
    assert "read" not in seen and seen[0] == seen[1] and seen[2] == seen[3] and seen[4] == seen[5]
    (carol,), _ = run(server["url"], CAROL, errors)
    assert carol[0] == "read" and carol[2] == "read" and carol[4] == "read"


def test_history_resource_needs_admin(server):
    (as_carol,), _ = run(server["url"], CAROL, lambda c: _try(c.read_resource("tutorialbook://books/baking/history")))
    assert isinstance(as_carol, Exception)
    (history,), _ = run(server["url"], ROOT_TOKEN, resource("tutorialbook://books/baking/history"))
    events = json.loads(history.contents[0].text)
    assert events and {"agent", "action", "time", "versions"} <= set(events[0])


async def _try(awaitable):
    try:
        return await awaitable
    except Exception as exc:  # noqa: BLE001
        return exc


def test_sixteen_concurrent_clients_mixed_load(server):
    stats = asyncio.run(load.run_load(server["url"], server["agents"], seconds=20))
    print("\n" + load.report(stats, len(server["agents"])))
    assert stats.errors == [], server["log"].read_text()[-6000:]  # the server's traceback says why
    readers = [a.name for a in server["agents"] if a.role == "reader"]
    writers = [a.name for a in server["agents"] if a.role == "writer"]
    assert stats.calls >= 16 and all(stats.latencies.values())
    assert sum(len(stats.written[w]) for w in writers) > 0
    assert sum(stats.refused[r] for r in readers) + sum(stats.refused[w] for w in writers) > 0
    assert load.check_store(server["store"], stats, server["agents"]) == []


def test_tokens_file_is_checked_and_compared_by_digest(tmp_path):
    table = TokenTable.parse(TOKENS)
    assert table.verify(ALICE).agent == "alice" and table.verify(BOB).agent == "bob"
    assert table.verify("sha256:" + hashlib.sha256(BOB.encode()).hexdigest()) is None  # the digest is not a token
    assert table.verify(ALICE + "x") is None and table.verify("") is None
    bob = table.verify(BOB).access()
    assert bob.can("baking") and not bob.can("baking", "write") and not bob.can("secret")
    root = table.verify(ROOT_TOKEN).access()
    assert root.can("anything", "admin") and Access().can("x", "admin")
    for bad, why in [({ALICE: {"agent": "alice", "rights": {"baking": "owner"}}}, "not one of read, write, admin"),
                     ({"short": {"agent": "a"}}, "at least 16 characters"),
                     ({"sha256:abc": {"agent": "a"}}, "64 hex digits"),
                     ({ALICE: {"agent": ""}}, "'agent'"), ([], "JSON object")]:
        with pytest.raises(TutorialbookError) as error:
            TokenTable.parse(bad)
        assert why in str(error.value) and ALICE not in str(error.value)


def test_serving_beyond_loopback_needs_tokens(tmp_path, monkeypatch):
    from tutorialbook.config import Settings
    from tutorialbook.server.http import build_app, is_loopback

    monkeypatch.delenv("TUTORIALBOOK_TOKENS", raising=False)
    with pytest.raises(TutorialbookError) as error:
        build_app(Settings(store=str(tmp_path / "s")), host="0.0.0.0", port=1)
    assert "needs --tokens" in str(error.value)
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.0.2.1")


def test_tokens_file_changes_apply_without_a_restart(tmp_path):
    from tutorialbook.server.auth import TokenFile

    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({ALICE: TOKENS[ALICE]}))
    tokens = TokenFile(path)
    assert tokens.verify(ALICE).agent == "alice"
    path.write_text(json.dumps({CAROL: TOKENS[CAROL]}))  # alice revoked, carol added
    os.utime(path, ns=(1, 1))
    assert tokens.verify(ALICE) is None and tokens.verify(CAROL).agent == "carol"
    path.write_text("{ not json")
    os.utime(path, ns=(2, 2))
    assert tokens.verify(CAROL).agent == "carol"  # a broken edit keeps the last good tokens


@pytest.mark.asyncio
async def test_without_tokens_everything_is_allowed_as_the_configured_agent(tmp_path):
    """stdio (and the in-process client): no token, all rights, agent from TUTORIALBOOK_AGENT;
    a server built with tokens refuses a call that somehow carries none (fails closed)."""
    from mcp import Client

    from tutorialbook.config import Settings
    from tutorialbook.server.app import create_server

    Library(store=str(tmp_path / "s")).ensure_book("baking")
    async with Client(create_server(Settings(store=str(tmp_path / "s"), agent="stdio-agent"))) as client:
        result = await client.call_tool("record_lesson", {"book": "baking", "lesson": "Open by default."})
        assert not result.is_error
    row = Library(store=str(tmp_path / "s")).store.get("lessons", result.structured_content["lesson_id"])
    assert row["agent"] == "stdio-agent"
    guarded = create_server(Settings(store=str(tmp_path / "s")), tokens=TokenTable.parse(TOKENS))
    async with Client(guarded) as client:
        refused = await client.call_tool("browse_toc", {"book": "baking"})
    assert refused.is_error and "unauthenticated" in text(refused)
