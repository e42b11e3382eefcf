"""Settings: explicit arguments win, then environment variables, then defaults."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path


def default_store_path() -> str:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share")
    return os.path.join(base, "tutorialbook", "store")


@dataclass
class Settings:
    store: str = field(default_factory=lambda: os.environ.get("TUTORIALBOOK_STORE") or default_store_path())
    embedder: str = field(default_factory=lambda: os.environ.get("TUTORIALBOOK_EMBEDDER", "default"))
    embedder_api_base: str | None = field(default_factory=lambda: os.environ.get("TUTORIALBOOK_EMBEDDER_API_BASE"))
    whisper_model: str | None = field(default_factory=lambda: os.environ.get("TUTORIALBOOK_WHISPER_MODEL"))
    engine_path: str | None = field(default_factory=lambda: os.environ.get("TUTORIALBOOK_ENGINE"))
    agent: str = field(default_factory=lambda: os.environ.get("TUTORIALBOOK_AGENT", "local"))
    #: "none", "sampling" (the connected MCP client's model) or a litellm model string (llm/client.py)
    llm: str = field(default_factory=lambda: os.environ.get("TUTORIALBOOK_LLM", "none"))
    llm_api_base: str | None = field(default_factory=lambda: os.environ.get("TUTORIALBOOK_LLM_API_BASE"))
    llm_timeout: float = field(default_factory=lambda: float(os.environ.get("TUTORIALBOOK_LLM_TIMEOUT") or 60))
    #: read the text videos show (acquire/screen.py); TUTORIALBOOK_SCREEN=off: videos are read from speech only
    screen: bool = field(default_factory=lambda: os.environ.get("TUTORIALBOOK_SCREEN", "on").strip().lower()
                         not in ("off", "0", "false", "no"))
