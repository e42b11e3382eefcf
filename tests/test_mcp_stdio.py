"""The real server as a subprocess, driven by the official MCP client over stdio."""


import pytest
from mcp import Client

from tests.support.examples import EXAMPLES
from tests.support.mcp import server_params


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_ingest_browse_retrieve_over_stdio(tmp_path, mode):
    async with Client(server_params(tmp_path / "store"), mode=mode) as client:
        expected = "2026-07-28" if mode == "auto" else "2025-11-25"
        assert client.protocol_version == expected
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == {"ingest_tutorial", "browse_toc", "retrieve_skill", "record_lesson", "evaluate_position"}
        for tool in tools.values():
            assert tool.input_schema["properties"] and tool.output_schema["properties"]
        assert "source" in tools["ingest_tutorial"].input_schema["properties"]
        assert tools["browse_toc"].annotations.read_only_hint is True

        progress = []

        async def on_progress(done, total, message):
            progress.append((done, total, message))

        result = await client.call_tool(
            "ingest_tutorial", {"source": str(EXAMPLES / "sourdough-basics.md"), "book": "baking"},
            progress_callback=on_progress,
        )
        assert not result.is_error, result.content
        report = result.structured_content["tutorials"][0]
        assert report["status"] == "added" and report["skills_added"] >= 4
        assert progress and progress[-1][0] == progress[-1][1]

        # walk the TOC from the root down to a leaf
        node_id, titles = "", []
        while True:
            view = (await client.call_tool("browse_toc", {"book": "baking", "node_id": node_id})).structured_content
            titles.append(view["node"]["title"])
            if not view["children"]:
                break
            node_id = view["children"][0]["id"]
        assert titles[:2] == ["baking", "Sourdough bread basics"]
        assert view["skills"], "a leaf section carries skills"

        found = (await client.call_tool(
            "retrieve_skill", {"query": "how often should I feed my starter", "book": "baking", "k": 3}
        )).structured_content
        top = found["skills"][0]
        assert "feed" in top["name"].lower()
        assert top["evidence"][0]["quote"] and top["evidence"][0]["tutorial_title"] == "Sourdough bread basics"
        assert "Quoted tutorial material" in found["note"]


@pytest.mark.asyncio
async def test_lesson_written_by_one_process_is_seen_by_another(tmp_path):
    store = tmp_path / "store"
    async with Client(server_params(store)) as writer, Client(server_params(store)) as reader:
        await writer.call_tool("ingest_tutorial", {"source": str(EXAMPLES), "book": "baking"})
        # the reader process opened the store before the book existed
        lesson = "Feeding the starter twice a day in a warm kitchen fixed my sluggish starter."
        recorded = await writer.call_tool(
            "record_lesson", {"lesson": lesson, "book": "baking", "outcome": "success"}
        )
        assert not recorded.is_error, recorded.content
        found = (await reader.call_tool(
            "retrieve_skill", {"query": "sluggish starter", "book": "baking"}
        )).structured_content
        assert lesson in [row["text"] for row in found["lessons"]]


@pytest.mark.asyncio
async def test_bad_input_is_a_tool_error_naming_the_field(tmp_path):
    async with Client(server_params(tmp_path / "store")) as client:
        missing = await client.call_tool("ingest_tutorial", {"source": str(tmp_path / "nope.md")})
        assert missing.is_error and "source:" in missing.content[0].text and "does not exist" in missing.content[0].text
        unknown = await client.call_tool("browse_toc", {"book": "nosuchbook"})
        assert unknown.is_error and "book:" in unknown.content[0].text
        await client.call_tool("ingest_tutorial", {"source": str(EXAMPLES), "book": "baking"})
        bad_k = await client.call_tool("retrieve_skill", {"query": "x", "book": "baking", "k": 500})
        assert bad_k.is_error and "k:" in bad_k.content[0].text
        bad_mode = await client.call_tool("retrieve_skill", {"query": "x", "book": "baking", "mode": "psychic"})
        assert bad_mode.is_error


@pytest.mark.asyncio
async def test_resources_and_prompts(tmp_path):
    async with Client(server_params(tmp_path / "store")) as client:
        report = (
            await client.call_tool("ingest_tutorial", {"source": str(EXAMPLES), "book": "baking"})
        ).structured_content
        books = await client.read_resource("tutorialbook://books")
        assert '"name": "baking"' in books.contents[0].text
        templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
        assert "tutorialbook://books/{book}/toc" in templates
        toc = (await client.read_resource("tutorialbook://books/baking/toc")).contents[0].text
        assert "Feeding the starter" in toc
        srt = next(t for t in report["tutorials"] if t["title"] == "Sourdough troubleshooting")
        transcript = (await client.read_resource(f"tutorialbook://tutorials/{srt['tutorial_id']}/transcript")).contents[0].text
        assert "[00:00:09–00:00:15] The key idea is that a starter is ready" in transcript
        skill_id = toc.split("skill: ")[1].split("(`")[1].split("`")[0]
        skill_md = (await client.read_resource(f"tutorialbook://skills/{skill_id}")).contents[0].text
        assert skill_md.startswith("---\nname: ")
        prompts = {p.name for p in (await client.list_prompts()).prompts}
        assert prompts == {"study", "solve"}
