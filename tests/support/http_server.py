"""A Tutorialbook HTTP server in a subprocess of its own session, for tests and bench/http_load.py."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(store: Path, tokens_file: Path, port: int, log: Path, workers: int = 1,
                 allow_root: Path | None = None) -> subprocess.Popen:
    env = dict(os.environ)
    env.pop("TUTORIALBOOK_TOKENS", None)
    extra = ((["--workers", str(workers)] if workers > 1 else [])
             + (["--allow-root", str(allow_root)] if allow_root else []))
    with open(log, "ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "tutorialbook.server", "--store", str(store), "serve", "--http",
             "--host", "127.0.0.1", "--port", str(port), "--tokens", str(tokens_file), *extra],
            stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)


def wait_ready(url: str, server: subprocess.Popen, log: Path, timeout: float = 120) -> None:
    import httpx2

    deadline = time.time() + timeout
    while time.time() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"server exited {server.returncode}:\n{log.read_text()[-3000:]}")
        try:
            if httpx2.post(url, json={}, timeout=2).status_code == 401:
                return
        except httpx2.TransportError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"server not ready after {timeout} s:\n{log.read_text()[-3000:]}")


def stop_server(server: subprocess.Popen) -> None:
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)  # its own session: the server and nothing else
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
