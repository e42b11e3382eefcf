"""Settings: explicit arguments win, then environment variables, then defaults.

This module is the only reader of the environment (tests/test_settings.py checks the sources
for any other): every variable Tutorialbook heeds is a field here, read when ``Settings()`` is
made. Settings are immutable; :meth:`Settings.override` makes a changed copy and refuses a name
that is not a setting, so a misspelled option fails instead of being ignored.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from tutorialbook.errors import TutorialbookError


def _env(name: str, default: str | None = None) -> str | None:
    return os.environ.get(name, default)


def default_store_path() -> str:
    base = _env("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share")
    return os.path.join(base, "tutorialbook", "store")


def default_cache_path() -> str:
    """Where derived files are kept (the embedder's rewritten model): rebuilt when missing."""
    base = _env("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
    return os.path.join(base, "tutorialbook")


@dataclass(frozen=True)
class Settings:
    store: str = field(default_factory=lambda: _env("TUTORIALBOOK_STORE") or default_store_path())
    embedder: str = field(default_factory=lambda: _env("TUTORIALBOOK_EMBEDDER") or "default")
    embedder_api_base: str | None = field(default_factory=lambda: _env("TUTORIALBOOK_EMBEDDER_API_BASE"))
    whisper_model: str | None = field(
        default_factory=lambda: (_env("TUTORIALBOOK_WHISPER_MODEL") or "").strip() or None
    )
    engine_path: str | None = field(default_factory=lambda: (_env("TUTORIALBOOK_ENGINE") or "").strip() or None)
    agent: str = field(default_factory=lambda: _env("TUTORIALBOOK_AGENT") or "local")
    #: "none", "sampling" (the connected MCP client's model) or a litellm model string (llm/client.py)
    llm: str = field(default_factory=lambda: _env("TUTORIALBOOK_LLM") or "none")
    llm_api_base: str | None = field(default_factory=lambda: _env("TUTORIALBOOK_LLM_API_BASE"))
    llm_timeout: float = field(default_factory=lambda: float(_env("TUTORIALBOOK_LLM_TIMEOUT") or 60))
    #: the OpenAI key, which litellm also reads itself: without one an ``openai/…`` model on a local
    #: ``llm_api_base`` gets a placeholder key (such servers take any; the OpenAI client insists on one)
    openai_api_key: str | None = field(default_factory=lambda: _env("OPENAI_API_KEY"), repr=False)
    #: read the text videos show (acquire/screen.py); TUTORIALBOOK_SCREEN=off: videos are read from speech only
    screen: bool = field(default_factory=lambda: (_env("TUTORIALBOOK_SCREEN") or "on").strip().lower()
                         not in ("off", "0", "false", "no"))
    #: re-order a ranking's first five word by word (tutorialbook/rerank.py); TUTORIALBOOK_LATE_INTERACTION=off:
    #: the search's own order (~30-35 ms less a query of skills not seen lately: bench/retrieval.py)
    late_interaction: bool = field(default_factory=lambda: (_env("TUTORIALBOOK_LATE_INTERACTION") or "on").strip()
                                   .lower() not in ("off", "0", "false", "no"))
    #: Tesseract's own variable: the folder of its language data (acquire/ocr.py), else the usual places
    tessdata_prefix: str | None = field(default_factory=lambda: (_env("TESSDATA_PREFIX") or "").strip() or None)
    #: folders an ingest may read (os.pathsep separated); None: the user's home and the current folder
    #: (stdio, CLI, Python); an HTTP server without any reads no files (server/http.py)
    allowed_roots: tuple[str, ...] | None = field(default_factory=lambda: _paths("TUTORIALBOOK_ALLOWED_ROOTS"))
    #: the HTTP tokens file, never readable as a source (set by server/http.py)
    tokens_file: str | None = field(default_factory=lambda: _env("TUTORIALBOOK_TOKENS") or None)
    #: an OAuth 2.1 issuer whose access tokens an HTTP server accepts (server/oauth.py)
    oauth_issuer: str | None = field(default_factory=lambda: _env("TUTORIALBOOK_OAUTH_ISSUER") or None)
    oauth_jwks: str = field(default_factory=lambda: _env("TUTORIALBOOK_OAUTH_JWKS") or "")
    oauth_agent_claim: str = field(default_factory=lambda: _env("TUTORIALBOOK_OAUTH_AGENT_CLAIM") or "sub")
    # -- bounds (README "Security model"): each has a safe default and an environment variable
    max_text_bytes: int = field(default_factory=lambda: _number("TUTORIALBOOK_MAX_TEXT_BYTES", 20 * 2**20, int))
    max_media_seconds: float = field(default_factory=lambda: _number("TUTORIALBOOK_MAX_MEDIA_SECONDS", 12 * 3600.0))
    #: wall-clock limit of one file's ingest (0: none); past it the ingest stops and writes nothing
    max_ingest_seconds: float = field(default_factory=lambda: _number("TUTORIALBOOK_MAX_INGEST_SECONDS", 4 * 3600.0))
    #: skills one tutorial may add (each costs an embedding: bounds a huge text's work)
    max_tutorial_skills: int = field(default_factory=lambda: _number("TUTORIALBOOK_MAX_TUTORIAL_SKILLS", 5000, int))
    max_query_chars: int = field(default_factory=lambda: _number("TUTORIALBOOK_MAX_QUERY_CHARS", 2000, int))
    max_lesson_chars: int = field(default_factory=lambda: _number("TUTORIALBOOK_MAX_LESSON_CHARS", 4000, int))
    #: what is kept (memory/retention.py): restore reaches this many seconds back (the undo log);
    #: a superseded table version is kept ``table_versions_seconds`` for the readers pinned to it;
    #: upkeep runs after ingests once a table took ``upkeep_every`` commits (0: only `tutorialbook upkeep`)
    keep_versions_seconds: float = field(default_factory=lambda: _number("TUTORIALBOOK_KEEP_VERSIONS_SECONDS",
                                                                         7 * 86400.0))
    table_versions_seconds: float = field(default_factory=lambda: _number("TUTORIALBOOK_TABLE_VERSIONS_SECONDS",
                                                                          120.0))
    upkeep_every: int = field(default_factory=lambda: _number("TUTORIALBOOK_UPKEEP_EVERY", 20, int))
    #: bounds of LanceDB's index and metadata caches, MiB, shared by the process's stores (memory/lance.py)
    index_cache_mb: float = field(default_factory=lambda: _number("TUTORIALBOOK_INDEX_CACHE_MB", 128.0))
    metadata_cache_mb: float = field(default_factory=lambda: _number("TUTORIALBOOK_METADATA_CACHE_MB", 32.0))
    #: glibc's malloc (memory/allocator.py): arenas the process's threads share (0: glibc's own, 8 a
    #: core), and the block size from which memory is mmapped and returned when freed, KiB (0: glibc's
    #: moving threshold, the default: a fixed 256 KiB made faster-whisper map and unmap its buffers on
    #: every call, 1.4x the wall time of a transcription and 3x its system time)
    malloc_arenas: int = field(default_factory=lambda: _number("TUTORIALBOOK_MALLOC_ARENAS", 2, int))
    malloc_mmap_kb: int = field(default_factory=lambda: _number("TUTORIALBOOK_MALLOC_MMAP_KB", 0, int))
    #: Arrow's buffers from the system allocator (as tuned above) instead of its own mimalloc pool
    arrow_system_pool: bool = field(default_factory=lambda: (_env("TUTORIALBOOK_ARROW_POOL") or "system")
                                    .strip().lower() != "default")
    #: files a batch worker process ingests before a fresh one takes its place (0: never replaced):
    #: LanceDB's write path keeps native memory a process does not give back (README "Memory")
    worker_files: int = field(default_factory=lambda: _number("TUTORIALBOOK_WORKER_FILES", 25, int))
    #: chess engine processes a library may run at once (callers beyond them wait their turn)
    engines: int = field(default_factory=lambda: _number("TUTORIALBOOK_ENGINES", 2, int))

    def override(self, **changes) -> Settings:
        """A copy with ``changes``; a value of None leaves that setting as it is (an option not
        given), and a name that is not a setting is refused."""
        known = {f.name for f in fields(self)}
        unknown = sorted(set(changes) - known)
        if unknown:
            raise TutorialbookError("settings", f"no setting named {', '.join(map(repr, unknown))}; "
                                                f"the settings are {', '.join(sorted(known))}")
        given = {k: v for k, v in changes.items() if v is not None}
        return replace(self, **given) if given else self


def _paths(name: str) -> tuple[str, ...] | None:
    value = _env(name)
    if value is None:
        return None
    return tuple(p for p in value.split(os.pathsep) if p.strip())


def _number(name: str, default, kind=float):
    value = (_env(name) or "").strip()
    if not value:
        return default
    try:
        number = kind(value)
    except ValueError:
        raise TutorialbookError(name, f"must be a number, got {value!r}") from None
    if number < 0:
        raise TutorialbookError(name, f"must be 0 or more, got {value!r}")
    return number
