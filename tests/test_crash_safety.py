"""Stores that survive faults.

* A process killed (SIGKILL) in the middle of committing a tutorial: a library that stays
  open (a running server) and a newly opened one both read the book as it was before, and
  opening writes nothing; the next ingest undoes the abandoned commit (with a history event)
  and the same ingest then succeeds.
* A full disk (a small tmpfs, or a write failure injected at LanceDB's write call where
  mounting is not possible): the ingest fails with a clear error, the store still opens and
  reads, and once space is freed the same ingest succeeds.
"""

import json
import os
import shutil
import subprocess
import sys

import lancedb.table
import pytest

from tests.support.examples import EXAMPLES, ROOT, reteaching_tutorial
from tutorialbook.library import Library
from tutorialbook.memory.faults import StoreFull

CHILD = r"""
import os, signal, sys
from tutorialbook.library import Library
from tutorialbook.memory.store import Store

table_to_die_after, nth = sys.argv[2], int(sys.argv[3])
seen = {"n": 0, "committing": False}
for name in ("insert", "upsert", "update"):
    original = getattr(Store, name)
    def wrapped(self, table, *args, _original=original, **kwargs):
        result = _original(self, table, *args, **kwargs)
        seen["committing"] = seen["committing"] or table == "tutorials"  # the commit starts with its row
        if table == table_to_die_after and seen["committing"]:
            seen["n"] += 1
            if seen["n"] == nth:
                os.kill(os.getpid(), signal.SIGKILL)
        return result
    setattr(Store, name, wrapped)
Library(store=sys.argv[1]).ingest(sys.argv[4], book="baking")
"""

FIRST = EXAMPLES / "sourdough-basics.md"
TABLES = ("books", "tutorials", "segments", "nodes", "skills", "questions", "events")


def visible(library: Library) -> dict:
    """What a reader of the book gets: tutorials, TOC, skills with their evidence, a search."""
    return {
        "books": [b.model_dump() for b in library.books()],
        "tutorials": [t.id for t in library.tutorials("baking")],
        "toc": library.toc_markdown("baking"),
        "skills": {s.id: ([e.tutorial_id for e in s.evidence], s.sources) for s in library.skills("baking")},
        # as sets: the hidden rows still count in the full-text index's term statistics, which may
        # reorder equal-ish scores, but none of them is returned
        "search": sorted(s.id for s in library.retrieve("starter too slow to rise", "baking", k=10).skills),
        "toc_search": sorted(s.id for s in library.retrieve("starter too slow to rise", "baking", k=10,
                                                              mode="toc").skills),
    }


def versions(library: Library) -> dict:
    return {t: library.store.version(t) for t in TABLES}


# tutorials: only the 'committing' row; segments: + segments; nodes: + nodes (new and extended);
# skills: + skills, where an existing skill was extended with the second tutorial's evidence;
# events: + the ingest event (only the 'ready' marker is missing)
@pytest.mark.slow
@pytest.mark.parametrize("table", ["tutorials", "segments", "nodes", "skills", "events"])
def test_killed_mid_commit_is_hidden_from_a_running_library_then_undone(store_path, tmp_path, table):
    second = reteaching_tutorial(tmp_path)  # extends one skill of the first, adds one of its own
    running = Library(store=str(store_path))
    running.ingest(str(FIRST), book="baking")
    before = visible(running)

    child = subprocess.run([sys.executable, "-c", CHILD, str(store_path), table, "1", str(second)])
    assert child.returncode == -9, "the child was killed mid-commit"
    assert running.store.count("tutorials", "status = 'committing'") == 1  # the abandoned commit is there ...
    assert visible(running) == before  # ... and the running library does not show it

    stored = versions(running)
    reopened = Library(store=str(store_path))
    assert visible(reopened) == before
    assert versions(reopened) == stored, "opening a store (and reading it) writes nothing"

    report = reopened.ingest(str(second), book="baking")
    assert report.tutorials[0].status == "added" and report.tutorials[0].skills_updated == 1
    assert reopened.store.count("tutorials", "status = 'ready'") == 2
    assert reopened.store.count("tutorials") == 2
    rollbacks = reopened.history("baking", action="rollback")
    assert len(rollbacks) == 1 and "unfinished commit" in rollbacks[0].summary
    assert len(running.tutorials("baking")) == 2  # the running library sees the finished commit


def _mount_tmpfs(where, size: str) -> bool:
    if os.geteuid() != 0 or not shutil.which("mount"):
        return False
    where.mkdir()
    return subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                          capture_output=True).returncode == 0


class _InjectedFull:
    """LanceDB's write calls fail as a full disk makes them fail (where no tmpfs can be mounted)."""

    CALLS = ("add", "merge_insert", "update", "delete")

    def __init__(self, monkeypatch):
        self.monkeypatch, self.on = monkeypatch, False
        for name in self.CALLS:
            original = getattr(lancedb.table.LanceTable, name)

            def failing(table, *args, _original=original, **kwargs):
                if self.on:
                    raise RuntimeError("lance error: LanceError(IO): No space left on device (os error 28)")
                return _original(table, *args, **kwargs)

            monkeypatch.setattr(lancedb.table.LanceTable, name, failing)


@pytest.mark.slow
def test_full_disk_is_a_clear_error_and_the_store_still_opens(tmp_path, monkeypatch):
    second = reteaching_tutorial(tmp_path)
    mount = tmp_path / "disk"
    mounted = _mount_tmpfs(mount, "4m")  # the first ingest, its undo log and the second ingest fit
    injected = None if mounted else _InjectedFull(monkeypatch)
    store = (mount if mounted else tmp_path) / "store"
    try:
        library = Library(store=str(store))
        library.ingest(str(FIRST), book="baking")
        before = visible(library)
        filler = (mount if mounted else tmp_path) / "filler"
        if mounted:  # leave ~40 KiB: the next ingest's commit runs out of space part way
            free = shutil.disk_usage(mount).free
            filler.write_bytes(b"\0" * max(free - 40 * 1024, 0))
        else:
            injected.on = True
        with pytest.raises(StoreFull) as failure:
            library.ingest(str(second), book="baking")
        assert failure.value.field == "store" and "no space left" in failure.value.reason
        assert "not committed" in failure.value.reason

        # the store opens and reads; the CLI too
        assert visible(library) == before
        reopened = Library(store=str(store))
        assert visible(reopened) == before
        env = {k: v for k, v in os.environ.items() if not k.startswith("TUTORIALBOOK_")}
        books = subprocess.run([sys.executable, "-m", "tutorialbook.server", "--store", str(store), "--json", "books"],
                               capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
        assert books.returncode == 0, books.stderr
        assert [b["tutorials"] for b in json.loads(books.stdout)] == [1]
        if mounted:  # read-only, even for root: opening and reading still work
            subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)
            try:
                assert visible(Library(store=str(store))) == before
            finally:
                subprocess.run(["mount", "-o", "remount,rw", str(mount)], check=True)

        # space again: the same ingest succeeds (undoing what the failed one left)
        if mounted:
            filler.unlink()
        else:
            injected.on = False
        again = reopened.ingest(str(second), book="baking")
        assert [t.status for t in again.tutorials] == ["added"] and not again.warnings
        assert reopened.store.count("tutorials") == 2 == len(reopened.tutorials("baking"))
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(mount)], check=False)
