"""Shared fixtures: a library on a fresh on-disk store, and the shipped examples."""

import os
import tempfile
from pathlib import Path

import pytest

from tutorialbook.library import Library

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "store"


@pytest.fixture
def library(store_path: Path) -> Library:
    return Library(store=str(store_path))


@pytest.fixture
def baking(library: Library) -> Library:
    """A library whose 'baking' book holds both shipped sourdough tutorials."""
    library.ingest(str(EXAMPLES), book="baking")
    return library


# Tests write their sources under the temporary folder: allow it besides home and the current
# folder (the default roots), here and in every server process a test starts.
os.environ.setdefault("TUTORIALBOOK_ALLOWED_ROOTS", os.pathsep.join([str(Path.home()), os.getcwd(), tempfile.gettempdir()]))


def reteaching_tutorial(folder: Path) -> Path:
    """A second tutorial that teaches one passage of the sourdough basics again, word for word,
    beside one of its own: ingested after the basics it extends one skill and adds one."""
    basics = (EXAMPLES / "sourdough-basics.md").read_text()
    feeding = basics.split("## Feeding the starter")[1].split("##")[0].strip()
    path = folder / "starter-care.md"
    path.write_text("# Starter care\n\n" + feeding + "\n\n## Storing a starter\n\n"
                    "Keep a spare starter in the fridge in a jar with a loose lid, and feed it once a week.\n")
    return path
