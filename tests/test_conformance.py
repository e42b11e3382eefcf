"""The official MCP conformance suite (npm @modelcontextprotocol/conformance, server scenarios)
against `tutorialbook serve --http` on 127.0.0.1. Scenarios that need the suite's reference
fixtures are listed, by name and why, in conformance_not_applicable.yml; any other failure, or
a listed scenario that passes, fails the test."""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support import http_server

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent


def _conformance() -> str | None:
    local = ROOT / ".ci" / "node" / "node_modules" / ".bin" / "conformance"
    return shutil.which("conformance") or (str(local) if local.exists() else None)


def _wait_listening(url: str, server: subprocess.Popen, log: Path, timeout: float = 180) -> None:
    import httpx2

    deadline = time.time() + timeout
    while time.time() < deadline:
        assert server.poll() is None, log.read_text()[-3000:]
        try:
            httpx2.get(url, timeout=2)
            return
        except httpx2.TransportError:
            time.sleep(0.3)
    raise AssertionError(f"server not listening after {timeout} s: {log.read_text()[-3000:]}")


@pytest.mark.slow
def test_official_conformance_server_scenarios(tmp_path):
    suite = _conformance()
    if suite is None:
        if os.environ.get("CI"):
            pytest.fail("the MCP conformance suite is not installed (.ci/run installs it)")
        pytest.skip("the MCP conformance suite is not installed (npm install @modelcontextprotocol/conformance)")
    store = tmp_path / "store"
    port = http_server.free_port()
    log = tmp_path / "server.log"
    env = dict(os.environ, TUTORIALBOOK_STORE=str(store))
    env.pop("TUTORIALBOOK_TOKENS", None)
    with open(log, "wb") as out:
        server = subprocess.Popen([sys.executable, "-m", "tutorialbook.server", "serve", "--http", "--port", str(port)],
                                  stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        _wait_listening(url, server, log)
        done = subprocess.run([suite, "server", "--url", url, "--expected-failures",
                               str(HERE / "conformance_not_applicable.yml"), "-o", str(tmp_path / "results")],
                              capture_output=True, text=True, timeout=900, cwd=tmp_path)
    finally:
        http_server.stop_server(server)
    summary = [line for line in done.stdout.splitlines() if line.startswith(("✓", "✗", "Total"))]
    assert done.returncode == 0, "\n".join(summary) + "\n" + done.stdout[-3000:] + done.stderr[-2000:]
    assert any(line.startswith("✓ server-initialize") for line in summary), summary
