"""Settings are the only reader of the environment, immutable, and refuse unknown overrides
(issue 18, item 5)."""

from __future__ import annotations

import ast
import dataclasses

import pytest

from tests.support.examples import ROOT
from tests.support.sources import source_modules
from tutorialbook.config import Settings
from tutorialbook.errors import TutorialbookError
from tutorialbook.library import Library

#: file -> why it may touch the environment
ALLOWED = {
    "tutorialbook/config.py": "Settings itself",
    "memory/offline_litellm.py": "sets litellm's own variable before importing it (a write, read by litellm)",
    "tutorialbook/batch.py": "sets Ray's own RAY_USAGE_STATS_ENABLED before starting Ray (a write, read by Ray)",
    "server/http.py": "hands the checked setup to uvicorn's --workers processes, which get only an import string "
                      "(its own internal variable, written by the parent, read by each worker)",
}


def environment_uses(source: str) -> list[int]:
    """Lines that touch the process environment: os.environ, os.getenv, os.putenv, or those
    names imported from os."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in ("environ", "environb", "getenv", "getenvb", "putenv"):
            lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.module == "os" and any(
                a.name in ("environ", "environb", "getenv", "getenvb", "putenv") for a in node.names):
            lines.append(node.lineno)
    return sorted(lines)


def test_only_settings_read_the_environment():
    found = [f"{path.relative_to(ROOT)}:{line}" for path in source_modules().values()
             if str(path.relative_to(ROOT)) not in ALLOWED for line in environment_uses(path.read_text())]
    assert not found, "reads the environment outside tutorialbook/config.py:\n" + "\n".join(found)


def test_the_check_sees_each_way_of_reading_it():
    source = ("import os\nfrom os import getenv\nos.environ.get('A')\nos.getenv('B')\n"
              "def f():\n    return os.environ['C']\nos.path.join('a')\n")
    assert environment_uses(source) == [2, 3, 4, 6]


def test_settings_are_read_from_the_environment_when_made(monkeypatch):
    monkeypatch.setenv("TUTORIALBOOK_MAX_LESSON_CHARS", "123")
    monkeypatch.setenv("TUTORIALBOOK_OAUTH_ISSUER", "https://id.example")
    monkeypatch.setenv("TESSDATA_PREFIX", "/opt/tess")
    settings = Settings()
    assert (settings.max_lesson_chars, settings.oauth_issuer, settings.tessdata_prefix) == (
        123, "https://id.example", "/opt/tess")
    assert Settings(max_lesson_chars=7).max_lesson_chars == 7  # an argument wins
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value")
    assert "sk-secret-value" not in repr(Settings())  # a key never shows in logs or errors


def test_settings_are_immutable():
    settings = Settings(store="/tmp/somewhere")
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.store = "/elsewhere"  # type: ignore[misc]
    changed = settings.override(store="/elsewhere", llm=None)  # None: not given
    assert (settings.store, changed.store, changed.llm) == ("/tmp/somewhere", "/elsewhere", settings.llm)


def test_an_unknown_setting_is_refused():
    with pytest.raises(TutorialbookError) as error:
        Settings().override(max_lesson_char=100)
    assert error.value.field == "settings" and "'max_lesson_char'" in str(error.value)
    assert "max_lesson_chars" in str(error.value)  # the message lists the real names


def test_library_overrides_copy_the_settings(tmp_path):
    settings = Settings(store=str(tmp_path / "store"))
    library = Library(settings, max_lesson_chars=100, agent=None)
    assert library.settings.max_lesson_chars == 100 and library.settings.agent == settings.agent
    assert settings.max_lesson_chars == 4000  # the caller's settings are as they were
    with pytest.raises(TutorialbookError) as error:
        Library(settings, max_lesson_char=100)  # misspelled: refused, not ignored
    assert "'max_lesson_char'" in str(error.value)
