"""Claude Code's CLI (npm @anthropic-ai/claude-code) adds the server as README documents and
`claude mcp list` reports it connected: over stdio, and over HTTP with a token. Without a token
it reports the server's own words (a bearer token is needed), not an OAuth failure. `mcp list`
needs no login and no network beyond 127.0.0.1."""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import http_server

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()

TOKEN = "a-long-random-token-for-claude-code"


def _claude() -> str | None:
    local = ROOT / ".ci" / "node" / "node_modules" / ".bin" / "claude"
    return shutil.which("claude") or (str(local) if local.exists() else None)


def test_claude_code_lists_the_server_connected(tmp_path):
    claude = _claude()
    if claude is None:
        if os.environ.get("CI"):
            pytest.fail("Claude Code's CLI is not installed (.ci/run installs it)")
        pytest.skip("Claude Code's CLI is not installed (npm install @anthropic-ai/claude-code)")
    home, project, store = tmp_path / "home", tmp_path / "project", tmp_path / "store"
    home.mkdir()
    project.mkdir()
    env = dict(os.environ, HOME=str(home), DISABLE_AUTOUPDATER="1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
    for key in ("ANTHROPIC_API_KEY", "TUTORIALBOOK_TOKENS"):
        env.pop(key, None)
    tutorialbook = str(Path(sys.executable).parent / "tutorialbook")

    def run(*args):
        done = subprocess.run([claude, *args], cwd=project, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done.stdout

    # stdio, as README's "Claude Code" line says (its paths pointed at this checkout and a scratch store)
    stdio = re.search(r"^claude mcp add tutorialbook --env .*$", README, re.M).group(0)
    stdio = stdio.replace("$HOME/tutorialbook-store", str(store)).replace("$HOME/tutorialbook/.venv/bin/tutorialbook",
                                                                         tutorialbook)
    run(*shlex.split(stdio)[1:])

    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps({TOKEN: {"agent": "claude", "rights": {"*": "read"}}}))
    port = http_server.free_port()
    log = tmp_path / "server.log"
    server = http_server.start_server(tmp_path / "http-store", tokens, port, log)
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        http_server.wait_ready(url, server, log)
        http = re.search(
            r"claude mcp add --transport http tutorialbook (\S+) --header\s+\"Authorization: Bearer \$TOKEN\"",
            " ".join(README.split()),
        )
        assert http, "README documents claude mcp add --transport http with a bearer header"
        run("mcp", "add", "--transport", "http", "tb-http", url, "--header", f"Authorization: Bearer {TOKEN}")
        run("mcp", "add", "--transport", "http", "tb-no-token", url)
        listed = run("mcp", "list")
    finally:
        http_server.stop_server(server)
    lines = {line.split(":", 1)[0]: line for line in listed.splitlines() if ": " in line}
    assert "✔ Connected" in lines["tutorialbook"], listed
    assert "✔ Connected" in lines["tb-http"], listed
    assert "this server needs a bearer token" in lines["tb-no-token"], listed
