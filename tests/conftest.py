"""Shared fixtures: a library on a fresh on-disk store, and the shipped examples ingested once
per session and copied for each test that asks for them. Helpers live in tests/support/."""

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.support.examples import EXAMPLES
from tutorialbook.library import Library

# Tests write their sources under the temporary folder: allow it besides home and the current
# folder (the default roots), here and in every server process a test starts.
os.environ.setdefault(
    "TUTORIALBOOK_ALLOWED_ROOTS", os.pathsep.join([str(Path.home()), os.getcwd(), tempfile.gettempdir()])
)


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "store"


@pytest.fixture
def library(store_path: Path) -> Library:
    return Library(store=str(store_path))


@pytest.fixture(scope="session")
def example_store(tmp_path_factory) -> Path:
    """A store whose 'baking' book holds both shipped sourdough tutorials, ingested once; tests
    never open it (they get a copy), so it stays as ingested."""
    path = tmp_path_factory.mktemp("examples") / "store"
    Library(store=str(path)).ingest(str(EXAMPLES), book="baking")
    return path


@pytest.fixture
def baking(example_store: Path, store_path: Path) -> Library:
    """A library on a private copy of the example store (at ``store_path``)."""
    shutil.copytree(example_store, store_path)
    return Library(store=str(store_path))
