"""Protocol errors as the MCP specification defines them, in both protocol eras, with our
message (the field and why) kept and no traceback logged for a caller's mistake."""

import logging
import warnings

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

from tests.support.examples import EXAMPLES
from tutorialbook.config import Settings
from tutorialbook.server.app import create_server

ERAS = {"auto": ("2026-07-28", -32602), "legacy": ("2025-11-25", -32002)}


async def protocol_error(call) -> MCPError:
    with pytest.raises(MCPError) as caught:
        await call
    return caught.value


def assert_no_traceback(caplog):
    tracebacks = [r for r in caplog.records if r.exc_info]
    assert not tracebacks, [r.getMessage() for r in tracebacks]


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_prompt_errors_are_invalid_params_naming_what_is_wrong(tmp_path, mode, caplog):
    caplog.set_level(logging.INFO)
    async with Client(create_server(Settings(store=str(tmp_path / "store"))), mode=mode) as client:
        unknown = await protocol_error(client.get_prompt("teach", {}))
        assert unknown.error.code == -32602
        assert unknown.error.message == "name: no prompt named 'teach' (prompts: solve, study)"
        missing = await protocol_error(client.get_prompt("study", {"book": "baking"}))
        assert missing.error.code == -32602
        assert missing.error.message == "arguments: prompt 'study' needs 'source', which was not given"
        extra = await protocol_error(client.get_prompt("solve", {"task": "x", "colour": "red"}))
        assert extra.error.code == -32602 and "'colour'" in extra.error.message
        ok = await client.get_prompt("solve", {"task": "bake a loaf"})
        assert "bake a loaf" in ok.messages[0].content.text
    assert_no_traceback(caplog)


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_missing_resources_are_not_found_with_our_message(tmp_path, mode, caplog):
    caplog.set_level(logging.INFO)
    version, not_found = ERAS[mode]
    async with Client(create_server(Settings(store=str(tmp_path / "store"))), mode=mode) as client:
        assert client.protocol_version == version
        await client.call_tool("ingest_tutorial", {"source": str(EXAMPLES / "sourdough-basics.md"),
                                                   "book": "baking", "refine_rounds": 0})
        cases = {
            "tutorialbook://skills/s_nope": ("skill_id", "skill_id: no skill 's_nope'"),
            "tutorialbook://tutorials/t_nope/transcript": ("tutorial_id", "tutorial_id: no tutorial 't_nope'"),
            "tutorialbook://books/pastry/toc": ("book", "book: no book named 'pastry'"),
            "tutorialbook://books/baking/nodes/n_nope": ("node_id", "node_id:"),
        }
        for uri, (field, message) in cases.items():
            err = await protocol_error(client.read_resource(uri))
            assert err.error.code == not_found, (uri, err.error)
            assert err.error.message.startswith(message), (uri, err.error.message)
            assert err.error.data == {"uri": uri, "field": field}
        nowhere = await protocol_error(client.read_resource("tutorialbook://nowhere"))
        assert nowhere.error.code == not_found and "tutorialbook://nowhere" in nowhere.error.message
    assert_no_traceback(caplog)


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_tool_errors(tmp_path, mode, caplog):
    """An unknown tool is a protocol error; arguments that fail the schema are a tool execution
    error (SEP-1303: the model reads it and corrects the call) naming each field."""
    caplog.set_level(logging.INFO)
    async with Client(create_server(Settings(store=str(tmp_path / "store"))), mode=mode) as client:
        unknown = await protocol_error(client.call_tool("learn_everything", {}))
        assert unknown.error.code == -32602
        assert unknown.error.message.startswith("name: no tool named 'learn_everything' (tools: browse_toc,")
        bad = await client.call_tool("retrieve_skill", {"query": 3})
        assert bad.is_error
        assert bad.content[0].text == "query: Input should be a valid string; book: Field required"
    assert_no_traceback(caplog)


@pytest.mark.asyncio
async def test_logging_set_level_and_ingest_log_notifications(tmp_path):
    """2025-era: logging/setLevel is offered and filters; ingest progress arrives as log messages.
    2026-07-28: no setLevel (removed by the spec); a per-request log level opts in."""
    received = []

    async def on_log(params):
        received.append((params.level, params.logger, params.data))

    server = create_server(Settings(store=str(tmp_path / "store")))
    source = {"source": str(EXAMPLES / "sourdough-basics.md"), "book": "baking", "refine_rounds": 0}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        async with Client(server, mode="legacy", logging_callback=on_log) as client:
            assert client.server_capabilities.logging is not None
            await client.set_logging_level("warning")
            await client.call_tool("ingest_tutorial", source)
            assert not [r for r in received if r[0] == "info"], "info is below the chosen level"
            await client.set_logging_level("info")
            await client.call_tool("ingest_tutorial", dict(source, book="baking2"))
        infos = [r for r in received if r[0] == "info"]
        assert infos and all(r[1] == "tutorialbook.ingest" for r in infos)
        assert any("sourdough" in str(r[2]).lower() for r in infos), infos

        received.clear()
        async with Client(server, logging_callback=on_log, log_level="info") as client:
            assert client.protocol_version == "2026-07-28"
            await client.call_tool("ingest_tutorial", dict(source, book="baking3"))
        assert [r for r in received if r[0] == "info"]


def test_an_unsupported_protocol_version_header_gets_a_clear_400(tmp_path):
    from starlette.testclient import TestClient

    from tutorialbook.server.http import build_app

    app, _, _ = build_app(Settings(store=str(tmp_path / "store")))
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    with TestClient(app, base_url="http://127.0.0.1:8765") as http:
        opened = http.post("/mcp", json=init, headers=headers)
        assert opened.status_code == 200
        session = {"mcp-session-id": opened.headers["mcp-session-id"]}
        good = http.post("/mcp", json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                         headers=dict(headers, **session, **{"mcp-protocol-version": "2025-11-25"}))
        assert good.status_code == 200 and "ingest_tutorial" in good.text
        bad = http.post("/mcp", json={"jsonrpc": "2.0", "id": 3, "method": "tools/list"},
                        headers=dict(headers, **session, **{"mcp-protocol-version": "1999-01-01"}))
        assert bad.status_code == 400
        error = bad.json()
        assert error["id"] == 3 and error["error"]["code"] == -32022
        assert error["error"]["message"].startswith("Unsupported protocol version '1999-01-01': this server speaks ")
        assert (
            "2025-11-25" in error["error"]["data"]["supported"] and "2026-07-28" in error["error"]["data"]["supported"]
        )
