"""Start-up time of the stdio server, as a client sees it: spawn -> `initialize` answered ->
`tools/list` answered, beside `python -c pass` (the interpreter's own start) and a bare
`import mcp.server.mcpserver` (the SDK's import, which every server pays), measured in the
same run. Raw JSON-RPC lines on the pipes, so no client library's start is counted.

    python bench/startup.py [--runs 7] [--store DIR]

Prints the median and the spread of each, and the ratio to `python -c pass`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
TOOLS = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


def _send(proc: subprocess.Popen, message: dict) -> None:
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()


def _reply(proc: subprocess.Popen, request_id: int) -> dict:
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the server closed its output: {proc.stderr.read().decode()[-2000:]}")
        message = json.loads(line)
        if message.get("id") == request_id:
            return message


def server_start(store: str) -> tuple[float, float]:
    """Seconds from spawn to the initialize reply, and to the tools/list reply."""
    env = dict(os.environ, TUTORIALBOOK_STORE=store)
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "tutorialbook.server", "serve"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        _send(proc, INIT)
        _reply(proc, 1)
        initialized = time.perf_counter() - started
        _send(proc, INITIALIZED)
        _send(proc, TOOLS)
        tools = _reply(proc, 2)
        listed = time.perf_counter() - started
        assert len(tools["result"]["tools"]) == 5, tools
        return initialized, listed
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def python_run(code: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - started


def _summary(values: list[float]) -> str:
    median = statistics.median(values) * 1000
    return f"median {median:7.0f} ms  (min {min(values) * 1000:.0f}, max {max(values) * 1000:.0f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="spawns of each (default 7)")
    parser.add_argument("--store", help="store folder (default: a new empty one)")
    args = parser.parse_args()
    store = args.store or tempfile.mkdtemp(prefix="tutorialbook-startup-")
    baseline, sdk, init, listed = [], [], [], []
    for _ in range(args.runs):  # interleaved, so machine load affects all alike
        baseline.append(python_run("pass"))
        sdk.append(python_run("import mcp.server.mcpserver"))
        i, t = server_start(store)
        init.append(i)
        listed.append(t)
    base = statistics.median(baseline)
    print(f"python -c pass             {_summary(baseline)}")
    print(f"import the MCP SDK alone   {_summary(sdk)}  {statistics.median(sdk) / base:.1f}x python -c pass")
    print(f"spawn -> initialize        {_summary(init)}  {statistics.median(init) / base:.1f}x python -c pass")
    print(f"spawn -> tools/list        {_summary(listed)}  {statistics.median(listed) / base:.1f}x python -c pass")


if __name__ == "__main__":
    main()
