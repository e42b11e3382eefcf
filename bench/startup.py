"""Start-up time of the stdio server, as a client sees it: spawn -> `initialize` answered ->
`tools/list` answered, beside `python -c pass` (the interpreter's own start) and a bare
`import mcp.server.mcpserver` (the SDK's import, which every server pays), measured in the
same run. Raw JSON-RPC lines on the pipes, so no client library's start is counted.

    python bench/startup.py [--runs 7] [--store DIR]

Prints the median and the spread of each, and the ratio to `python -c pass`; then the CPU
seconds each spent (the server's up to its `tools/list` reply), which a busy machine inflates
far less than the wall-clock times.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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


def _cpu_of(pid: int) -> float:
    """User + system CPU seconds a running process has used (Linux /proc)."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def server_start(store: str) -> tuple[float, float, float]:
    """Seconds from spawn to the initialize reply and to the tools/list reply, and the
    server's CPU seconds by then."""
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
        cpu = _cpu_of(proc.pid)
        assert len(tools["result"]["tools"]) == 5, tools
        return initialized, listed, cpu
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def python_run(code: str) -> tuple[float, float]:
    """Wall-clock and CPU seconds of ``python -c CODE``."""
    cpu, started = _children_cpu(), time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - started, _children_cpu() - cpu


def _summary(values: list[float]) -> str:
    return f"median {statistics.median(values) * 1000:7.0f} ms  (min {min(values) * 1000:.0f}, max {max(values) * 1000:.0f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="spawns of each (default 7)")
    parser.add_argument("--store", help="store folder (default: a new empty one)")
    args = parser.parse_args()
    store = args.store or tempfile.mkdtemp(prefix="tutorialbook-startup-")
    baseline, sdk, init, listed = [], [], [], []
    cpu_base, cpu_sdk, cpu_server = [], [], []
    for _ in range(args.runs):  # interleaved, so machine load affects all alike
        for wall, cpu, code in ((baseline, cpu_base, "pass"), (sdk, cpu_sdk, "import mcp.server.mcpserver")):
            w, c = python_run(code)
            wall.append(w)
            cpu.append(c)
        i, t, c = server_start(store)
        init.append(i)
        listed.append(t)
        cpu_server.append(c)
    base = statistics.median(baseline)
    print(f"python -c pass             {_summary(baseline)}")
    print(f"import the MCP SDK alone   {_summary(sdk)}  {statistics.median(sdk) / base:.1f}x python -c pass")
    print(f"spawn -> initialize        {_summary(init)}  {statistics.median(init) / base:.1f}x python -c pass")
    print(f"spawn -> tools/list        {_summary(listed)}  {statistics.median(listed) / base:.1f}x python -c pass")
    print("CPU time (user + system):")
    print(f"python -c pass             {_summary(cpu_base)}")
    print(f"import the MCP SDK alone   {_summary(cpu_sdk)}")
    print(f"server up to tools/list    {_summary(cpu_server)}")
    if hasattr(os, "getloadavg"):
        print(f"machine load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
