"""A process killed (SIGKILL) in the middle of committing a tutorial leaves no partial
tutorial behind, and the same ingest then succeeds."""

import json
import subprocess
import sys

import pytest

from conftest import EXAMPLES, reteaching_tutorial
from tutorialbook.library import Library

CHILD = r"""
import os, signal, sys
from tutorialbook.library import Library
from tutorialbook.memory.store import Store

table_to_die_after, nth = sys.argv[2], int(sys.argv[3])
seen = {"n": 0}
for name in ("insert", "upsert", "update"):
    original = getattr(Store, name)
    def wrapped(self, table, *args, _original=original, **kwargs):
        result = _original(self, table, *args, **kwargs)
        if table == table_to_die_after:
            seen["n"] += 1
            if seen["n"] == nth:
                os.kill(os.getpid(), signal.SIGKILL)
        return result
    setattr(Store, name, wrapped)
Library(store=sys.argv[1]).ingest(sys.argv[4], book="baking")
"""


def counts(library):
    return {t: library.store.count(t) for t in ("tutorials", "segments", "nodes", "skills")}


@pytest.mark.parametrize("table, nth", [("tutorials", 1), ("segments", 1), ("nodes", 1), ("skills", 1)])
def test_killed_mid_commit_leaves_nothing_partial(store_path, tmp_path, table, nth):
    first = EXAMPLES / "sourdough-basics.md"
    second = reteaching_tutorial(tmp_path)
    library = Library(store=str(store_path))
    library.ingest(str(first), book="baking")
    before = counts(library)
    skills_before = {r["id"]: json.loads(r["evidence"]) for r in library.store.rows("skills")}

    child = subprocess.run([sys.executable, "-c", CHILD, str(store_path), table, str(nth), str(second)])
    assert child.returncode == -9, "the child was killed mid-commit"

    reopened = Library(store=str(store_path))
    assert counts(reopened) == before
    assert {r["id"]: json.loads(r["evidence"]) for r in reopened.store.rows("skills")} == skills_before
    report = reopened.ingest(str(second), book="baking").tutorials[0]
    assert report.status == "added" and report.skills_updated == 1
    assert reopened.store.count("tutorials", "status = 'ready'") == 2
