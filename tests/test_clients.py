"""What README.md tells people to run, run as written: each client configuration's command line
(launched, handshaken, tools listed), the Python example, and another agent framework (the
OpenAI Agents SDK) using the server through its MCP adapter."""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest
from mcp import Client, StdioServerParameters

from tests.support.examples import EXAMPLES, ROOT
from tutorialbook.library import Library

README = (ROOT / "README.md").read_text()
CLIENTS = ("Claude Desktop", "Claude Code", "VS Code", "Cursor")
CORE_TOOLS = {"ingest_tutorial", "browse_toc", "retrieve_skill", "record_lesson"}


def documented_clients() -> dict[str, tuple[str, list[str], dict[str, str]]]:
    """client → (command, args, env) exactly as README.md's snippet for it says."""
    found = {}
    for label, lang, body in re.findall(r"^\*\*([^*]+)\*\*[^\n]*\n\n```(json|bash)\n(.*?)\n```", README, re.M | re.S):
        if label not in CLIENTS:
            continue
        if lang == "json":
            config = json.loads(body)
            entry = (config.get("mcpServers") or config["servers"])["tutorialbook"]
            assert entry.get("type", "stdio") == "stdio"
            found[label] = (entry["command"], entry.get("args", []), entry.get("env", {}))
        else:
            tokens = shlex.split(body)
            assert tokens[:4] == ["claude", "mcp", "add", "tutorialbook"] and "--" in tokens, body
            options, command = tokens[4:tokens.index("--")], tokens[tokens.index("--") + 1:]
            env = {}
            for flag, value in zip(options[::2], options[1::2]):
                assert flag in ("--env", "-e"), f"unexpected option {flag} in {body!r}"
                key, _, val = value.partition("=")
                env[key] = val
            found[label] = (command[0], command[1:], env)
    return found


#: README's clone, /home/me/tutorialbook (or $HOME/…, ${userHome}/…): here, this checkout's environment
VENV_COMMAND = re.compile(r"^(/home/me|\$HOME|\$\{userHome\})/tutorialbook/\.venv/bin/tutorialbook$")


def local_command(command: str) -> str | None:
    """The documented command as it exists here: the venv's tutorialbook beside this Python."""
    if VENV_COMMAND.match(command):
        return shutil.which("tutorialbook", path=os.path.dirname(sys.executable))
    return shutil.which(command)


def test_readme_documents_every_client():
    clients = documented_clients()
    assert set(clients) == set(CLIENTS)
    for command, args, env in clients.values():
        assert VENV_COMMAND.match(command) and args == ["serve"] and set(env) == {"TUTORIALBOOK_STORE"}, command


@pytest.mark.asyncio
@pytest.mark.parametrize("client", CLIENTS)
async def test_documented_command_line_serves_the_tools(client, tmp_path):
    command, args, env = documented_clients()[client]
    executable = local_command(command)
    assert executable, f"{command!r}: no tutorialbook beside {sys.executable}; pip install -e . puts it there"
    env = dict(env, TUTORIALBOOK_STORE=str(tmp_path / "store"))  # the only change: a scratch store
    # like a desktop client: only the documented env over a minimal inherited one (HOME, PATH, …)
    params = StdioServerParameters(command=executable, args=args, env=env)
    async with Client(params, mode="legacy") as session:  # these clients speak 2025-11-25
        assert session.protocol_version == "2025-11-25"
        assert session.server_info.name == "tutorialbook"
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert CORE_TOOLS <= set(tools)
        assert all(t.title and t.annotations is not None for t in tools.values())
        assert tools["browse_toc"].annotations.read_only_hint and not tools["record_lesson"].annotations.idempotent_hint
        assert "browse_toc" in session.instructions
        books = await session.read_resource("tutorialbook://books")  # the store opens on first use
        assert books.contents[0].text.strip() == "[]"
    assert (tmp_path / "store").is_dir()  # the server used the store the env named


@pytest.mark.slow
def test_readme_python_example_runs(tmp_path):
    code = re.search(r"^## Python\n.*?```python\n(.*?)\n```", README, re.M | re.S).group(1)
    shutil.copytree(EXAMPLES, tmp_path / "examples", ignore=shutil.ignore_patterns("*.py"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("TUTORIALBOOK_")}
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "('Sourdough bread basics', 'added'" in out and "Sourdough bread basics →" in out
    assert "route: Sourdough bread basics" in out and "helpful: 1" in out
    assert re.search(r"^\d+ skills already in the book$", out, re.M)
    library = Library(store=str(tmp_path / "store"))
    assert library.books()[0].lessons == 1 and (tmp_path / "skills").is_dir()


@pytest.mark.slow
def test_openai_agents_sdk_calls_the_server_through_its_mcp_adapter(tmp_path):
    import agents  # noqa: F401 - in the test extra: a missing install fails here, it is not skipped

    env = dict(os.environ, TUTORIALBOOK_STORE=str(tmp_path / "store"))
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "openai_agents_adapter.py"), "my starter is sluggish",
         "--book", "baking", "--source", str(EXAMPLES), "--json"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stderr
    outcome = json.loads(result.stdout)
    assert CORE_TOOLS <= set(outcome["tools"])
    assert outcome["calls"] == ["ingest_tutorial", "browse_toc", "retrieve_skill", "record_lesson"]
    assert outcome["answer"].startswith("Use the skill '") and "lesson l_" in outcome["answer"]
    library = Library(store=str(tmp_path / "store"))
    lessons = library.store.rows("lessons")
    assert len(lessons) == 1 and lessons[0]["skill_id"] and "my starter is sluggish" in lessons[0]["text"]
