"""Skills over MCP (io.modelcontextprotocol/skills, SEP-2640): the extension is declared,
skills/list pages through every learned skill, skills/get and resources/read agree with each
entry's front matter and digests, unknown skills are -32602, a book a caller cannot read has no
skills, and a write announces resources list-changed."""

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from mcp import Client, types
from mcp.shared.exceptions import MCPError

from tests.support.examples import EXAMPLES
from tests.support.mcp import GetSkill, ListSkills, request
from tutorialbook.config import Settings
from tutorialbook.errors import NotFound
from tutorialbook.library import Library
from tutorialbook.server import skills_ext
from tutorialbook.server.app import create_server
from tutorialbook.server.auth import Access

ROOT = Path(__file__).resolve().parent.parent


def front_matter(text: str) -> dict:
    assert text.startswith("---\n")
    return yaml.safe_load(text[4:].split("\n---\n", 1)[0])


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_skills_list_get_and_read_agree(tmp_path, mode, monkeypatch):
    monkeypatch.setattr(skills_ext, "PAGE", 2)  # several pages from one small book
    changed = []

    async def on_message(message):
        if isinstance(message, types.ResourceListChangedNotification):
            changed.append(message)

    server = create_server(Settings(store=str(tmp_path / "store")))
    async with Client(server, mode=mode, message_handler=on_message) as client:
        if mode == "auto":  # the extension is specified against 2026-07-28; 2025-era capabilities carry no extensions
            assert skills_ext.IDENTIFIER in client.server_capabilities.extensions
        assert client.server_capabilities.resources.list_changed
        await client.call_tool("ingest_tutorial", {"source": str(EXAMPLES / "sourdough-basics.md"),
                                                   "book": "baking", "refine_rounds": 0})
        entries, cursor, pages = [], None, 0
        while True:
            page = await request(client, ListSkills(params={"cursor": cursor} if cursor else {}))
            assert (
                page["resultType"] == "complete" and page["ttlMs"] >= 0 and page["cacheScope"] in ("public", "private")
            )
            entries += page["skills"]
            pages += 1
            cursor = page.get("nextCursor")
            if not cursor:
                break
        library = Library(Settings(store=str(tmp_path / "store")))
        expected = library.skills("baking")
        assert pages > 1 and len(entries) == len(expected) > 2
        assert len({e["uri"] for e in entries}) == len(entries)
        for entry in entries:
            name = entry["frontmatter"]["name"]
            assert entry["uri"] == f"skill://baking/{name}/SKILL.md"
            assert entry["frontmatter"]["description"]
            uris = [r["uri"] for r in entry["resources"]]
            assert uris == [entry["uri"], f"skill://baking/{name}/references/evidence.md"]
            for file in entry["resources"]:
                text = (await client.read_resource(file["uri"])).contents[0].text
                data = text.encode("utf-8")
                assert file["size"] == len(data)
                assert file["digest"] == "sha256:" + hashlib.sha256(data).hexdigest()
                if file["uri"] == entry["uri"]:
                    assert front_matter(text) == entry["frontmatter"]
            got = await request(client, GetSkill(params={"uri": entry["uri"]}))
            assert got["skill"] == entry and got["resultType"] == "complete"
        # the classic resource serves the same SKILL.md
        first = entries[0]
        skill_id = first["frontmatter"]["metadata"]["tutorialbook-skill-id"]
        classic = (await client.read_resource(f"tutorialbook://skills/{skill_id}")).contents[0].text
        assert classic == (await client.read_resource(first["uri"])).contents[0].text

        with pytest.raises(MCPError) as unknown:
            await request(client, GetSkill(params={"uri": "skill://baking/no-such-skill/SKILL.md"}))
        assert unknown.value.error.code == -32602
        assert unknown.value.error.message == "no skill is served at skill://baking/no-such-skill/SKILL.md"
        with pytest.raises(MCPError) as not_skill_md:
            await request(client, GetSkill(params={"uri": first["resources"][1]["uri"]}))
        assert not_skill_md.value.error.code == -32602
        with pytest.raises(MCPError) as bad_cursor:
            await request(client, ListSkills(params={"cursor": "not-a-cursor"}))
        assert bad_cursor.value.error.code == -32602 and bad_cursor.value.error.message.startswith("cursor:")
        with pytest.raises(MCPError) as missing_file:
            await client.read_resource(first["uri"].replace("SKILL.md", "scripts/run.sh"))
        assert (
            missing_file.value.error.code == (-32602 if mode == "auto" else -32002)
            and "scripts/run.sh" in missing_file.value.error.message
        )

        if mode == "legacy":  # 2026 sessions hear it on a subscriptions/listen stream instead
            heard = []

            async def on_other(message):
                if isinstance(message, types.ResourceListChangedNotification):
                    heard.append(message)

            async with Client(server, mode="legacy", message_handler=on_other) as other:
                await other.list_tools()
                changed.clear()
                await client.call_tool("record_lesson", {"lesson": "Warm water woke the starter.",
                                                         "book": "baking", "outcome": "success", "skill_id": skill_id})
                await other.list_tools()  # a round trip: what the server sent before it has been read
            assert changed, "a lesson changes the skill's SKILL.md: resources list-changed is announced"
            assert heard, "another session of the same server hears it too"
        after = await request(client, GetSkill(params={"uri": first["uri"]}))
        assert after["skill"]["resources"][0]["digest"] != first["resources"][0]["digest"] or mode == "auto"


def test_a_book_the_caller_cannot_read_has_no_skills(tmp_path):
    library = Library(Settings(store=str(tmp_path / "store")))
    library.ingest(str(EXAMPLES / "sourdough-basics.md"), book="baking", refine_rounds=0)
    library.ingest(str(EXAMPLES / "sourdough-basics.md"), book="secret", refine_rounds=0)
    everyone = skills_ext.SkillCatalog(library, Access())
    bob = skills_ext.SkillCatalog(library, Access(agent="bob", rights={"baking": "read"}))
    assert {b for b, _, _ in everyone.listing()} == {"baking", "secret"}
    assert {b for b, _, _ in bob.listing()} == {"baking"}
    _, name, _ = next(x for x in everyone.listing() if x[0] == "secret")
    assert everyone.find("secret", name).uri() == f"skill://secret/{name}/SKILL.md"
    with pytest.raises(NotFound) as hidden:
        bob.find("secret", name)
    with pytest.raises(NotFound) as absent:
        bob.find("nosuchbook", name)
    assert str(hidden.value).replace("secret", "X") == str(absent.value).replace("nosuchbook", "X")


def _inspector() -> str | None:
    found = shutil.which("mcp-inspector")
    local = (
        Path(os.environ.get("TUTORIALBOOK_NODE_TOOLS", ROOT / ".ci" / "node" / "node_modules"))
        / ".bin"
        / "mcp-inspector"
    )
    return found or (str(local) if local.exists() else None)


def test_mcp_inspector_verifies_and_loads_the_learned_skills(tmp_path):
    """A real third-party client, the MCP Inspector CLI over stdio (2026-07-28): its SEP-2640
    verifier lists every learned skill through skills/list and checks each entry and file
    (conformance, front matter, digests, sizes); then skills/get and resources/read load one."""
    inspector = _inspector()
    if inspector is None:
        if os.environ.get("CI"):
            pytest.fail("the MCP Inspector CLI is not installed (.ci/run installs it)")
        pytest.skip("the MCP Inspector CLI is not installed (npm install @modelcontextprotocol/inspector)")
    store = tmp_path / "store"
    library = Library(Settings(store=str(store)))
    library.ingest(str(EXAMPLES / "sourdough-basics.md"), book="baking", refine_rounds=0)
    count = len(library.skills("baking"))
    library.close()
    base = [inspector, "--cli", "--protocol-era", "modern", "--format", "json", "-e", f"TUTORIALBOOK_STORE={store}",
            sys.executable, "-m", "tutorialbook.server", "serve"]

    def inspect(*args):
        done = subprocess.run(base[:2] + list(args) + base[2:], capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, (done.returncode, done.stdout[-2000:], done.stderr[-2000:])
        return done.stdout

    reports = [json.loads(line) for line in inspect("--method", "skills/list", "--verify").splitlines()
               if line.startswith("{")]
    assert len(reports) == count > 0
    assert all(r["ok"] and r["outcome"] == "verified" and not r["conformance"] for r in reports), reports
    assert all(f["status"] == "verified" for r in reports for f in r["files"])
    uri = reports[0]["uri"]
    got = json.loads(inspect("--method", "skills/get", "--uri", uri))
    assert got["result"]["skill"]["uri"] == uri
    read = inspect("--method", "resources/read", "--uri", uri)
    assert f"name: {reports[0]['name']}" in json.loads(read)["result"]["contents"][0]["text"]
