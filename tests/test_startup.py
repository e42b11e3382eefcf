"""A fast start: the MCP server answers `initialize` and `tools/list` without loading LanceDB,
the embedder, the speech model, the chess engine or litellm (bench/startup.py measures it)."""

import json
import os
import subprocess
import sys
import textwrap

HEAVY = ("lancedb", "pyarrow", "onnxruntime", "tokenizers", "faster_whisper", "ctranslate2", "chess.engine",
         "litellm", "numpy", "tutorialbook.library", "tutorialbook.memory.store",
         "yaml")  # yaml: only reading a skill's front matter needs it


def test_tools_are_listed_without_loading_the_store_or_models(tmp_path):
    script = textwrap.dedent(f"""
        import asyncio, json, sys
        from tutorialbook.config import Settings
        from tutorialbook.server.app import create_server
        server = create_server(Settings(store={str(tmp_path / "store")!r}))
        tools = asyncio.run(server.list_tools())
        templates = asyncio.run(server.list_resource_templates())
        print(json.dumps({{"tools": len(tools), "templates": len(templates),
                          "loaded": [m for m in {HEAVY!r} if m in sys.modules]}}))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["tools"] == 5 and report["templates"] >= 7
    assert report["loaded"] == [], report


def test_stdio_handshake_imports_nothing_heavy(tmp_path):
    """`tutorialbook serve` over stdio: the initialize reply comes before any heavy import."""
    env = dict(os.environ, TUTORIALBOOK_STORE=str(tmp_path / "store"))
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
    ]
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "tutorialbook.server", "serve"],
                          input="".join(json.dumps(m) + "\n" for m in messages), capture_output=True, text=True,
                          env=env, timeout=120)
    reply = json.loads(done.stdout.splitlines()[0])
    assert reply["result"]["serverInfo"]["name"] == "tutorialbook"
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert not imported & set(HEAVY), sorted(imported & set(HEAVY))
