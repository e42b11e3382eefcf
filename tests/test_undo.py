"""The undo log (memory/undo.py): restore reaches back without old table versions; its horizon;
a write that never committed; disk that follows the live data once the version window passed."""

import time
from pathlib import Path

import pytest

from tests.support.examples import EXAMPLES
from tutorialbook.errors import TutorialbookError
from tutorialbook.library import Library
from tutorialbook.memory import retention, undo

BASICS = EXAMPLES / "sourdough-basics.md"
TROUBLE = EXAMPLES / "sourdough-troubleshooting.srt"


def state(library, book: str) -> dict[str, list[tuple]]:
    """Every book table's rows of ``book``, as comparable tuples (search columns left out)."""
    out = {}
    for name in ("books", "tutorials", "segments", "nodes", "skills", "lessons", "questions"):
        rows = library.store.rows(name, f"book = '{book}'")
        out[name] = sorted(tuple(sorted((k, str(v)) for k, v in r.items() if not k.startswith("_"))) for r in rows)
    return out


def test_restore_after_the_table_versions_are_pruned(store_path):
    library = Library(store=str(store_path))
    library.ingest(str(BASICS), book="baking", refine_rounds=0, agent="a")
    library.record_lesson("Keep the starter at 24 C.", "baking", agent="a")
    point = library.history("baking")[0].id
    then = state(library, "baking")
    library.ingest(str(TROUBLE), book="baking", refine_rounds=0, agent="b")
    library.record_lesson("Feed it twice a day in summer.", "baking", agent="b")
    library.revert_lesson(library.history("baking", action="lesson")[1].target, agent="b")  # a delete
    later = time.time() + 10 * retention.MIN_KEEP_SECONDS  # past the version window, inside the log's
    done = {t.table: t for t in retention.upkeep(library.store, library.retention, now=later)}
    assert done["skills"].versions_after == 1 and done["segments"].versions_after == 1  # only the latest left
    report = library.restore("baking", to=point, agent="admin")
    assert state(library, "baking") == then  # row for row, the book as it was
    assert {t.table: t.writes_undone for t in report.tables}["lessons"] == 2  # the later lesson and the revert
    # the restore was logged too: restoring to just before it brings the later writes back
    library.restore("baking", to=library.history("baking")[1].id)
    assert library.books()[0].tutorials == 2


def test_a_restore_before_the_log_begins_is_refused(store_path):
    library = Library(store=str(store_path))
    library.ingest(str(BASICS), book="baking", refine_rounds=0)
    begins = undo.horizon(library.store)
    assert begins is not None and begins <= library.history("baking")[0].at
    with pytest.raises(TutorialbookError) as refused:
        library.restore("baking", at=begins - 1)
    assert refused.value.field == "at" and "undo log begins" in str(refused.value)


def test_pruning_the_log_moves_its_horizon_first(store_path):
    library = Library(store=str(store_path), keep_versions_seconds=retention.MIN_KEEP_SECONDS)
    library.ingest(str(BASICS), book="baking", refine_rounds=0)
    point = library.history("baking")[0].at
    logged = library.store.count(undo.UNDO)
    later = time.time() + 10 * retention.MIN_KEEP_SECONDS
    retention.upkeep(library.store, library.retention, now=later)
    assert library.store.count(undo.UNDO) == 1 < logged  # only the horizon row is left
    assert undo.horizon(library.store) == pytest.approx(later - retention.MIN_KEEP_SECONDS)
    with pytest.raises(TutorialbookError):
        library.restore("baking", at=point)  # its writes' images are gone: refused, not half done
    assert library.books()[0].tutorials == 1  # and nothing was written


def test_a_write_that_never_committed_leaves_restore_right(store_path, monkeypatch):
    library = Library(store=str(store_path))
    library.ingest(str(BASICS), book="baking", refine_rounds=0)
    point = library.history("baking")[0].id
    then = state(library, "baking")
    table = library.store.table("skills")

    def lost(*args, **kwargs):
        raise OSError("the disk went away")

    monkeypatch.setattr(type(table), "delete", lost)  # logged, then the commit fails
    with pytest.raises(OSError):
        library.store.delete("skills", "book = 'baking'")
    monkeypatch.undo()
    assert state(library, "baking") == then
    library.ingest(str(TROUBLE), book="baking", refine_rounds=0)
    library.restore("baking", to=point)
    assert state(library, "baking") == then


def test_other_books_writes_are_kept(store_path):
    library = Library(store=str(store_path))
    library.ingest(str(BASICS), book="baking", refine_rounds=0)
    point = library.history("baking")[0].id
    library.ingest(str(TROUBLE), book="baking-2", refine_rounds=0)  # a name the LIKE filter also matches
    other = state(library, "baking-2")
    library.ingest(str(TROUBLE), book="baking", refine_rounds=0)
    library.restore("baking", to=point)
    assert state(library, "baking-2") == other
    assert {b.name: b.tutorials for b in library.books()} == {"baking": 1, "baking-2": 1}


def du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def live(library) -> int:
    return sum(library.store.table(n).stats()["total_bytes"] for n in retention.existing_tables(library.store))


def test_disk_follows_the_live_data_once_the_version_window_passed(store_path):
    library = Library(store=str(store_path), upkeep_every=4)
    library.ingest(str(BASICS), book="baking", refine_rounds=0)
    point = library.history("baking")[0].id
    library.ingest(str(TROUBLE), book="baking", refine_rounds=0)
    for _ in range(3):  # churn: each restore rewrites the book's rows in every table
        library.restore("baking", to=point)
        library.restore("baking", to=library.history("baking")[1].id)
    piled = du(store_path)
    retention.upkeep(library.store, library.retention, now=time.time() + 10 * retention.MIN_KEEP_SECONDS)
    kept = du(store_path)
    assert kept < piled / 2
    assert kept <= 1.5 * live(library)  # the target, met even by a small store (1.05x here)


def leftovers(library, name: str) -> int:
    """Data files of ``name`` that its latest version does not reference."""
    table = library.store.table(name)
    referenced = int(table.list_versions()[-1]["metadata"]["total_data_files"])
    return len(list((Path(library.store.uri) / f"{name}.lance" / "data").iterdir())) - referenced


def with_leftovers(library, name: str = "lessons") -> None:
    """A data file no version references, as a writer killed between writing its data and
    committing leaves one (a copy of a real data file under a new name)."""
    import shutil
    import uuid

    library.record_lesson("Keep the starter at 24 C.", "baking", agent="a")
    data = Path(library.store.uri) / f"{name}.lance" / "data"
    real = next(data.iterdir())
    shutil.copy(real, data / f"{uuid.uuid4().hex}.lance")
    assert leftovers(library, name) == 1


def test_upkeep_deletes_files_no_version_references_when_no_commit_is_under_way(store_path):
    library = Library(store=str(store_path))
    library.ingest(str(BASICS), book="baking", refine_rounds=0)
    with_leftovers(library)
    later = time.time() + 10 * retention.MIN_KEEP_SECONDS
    with library.store.writing_files("lessons"):  # a commit under way: its files are not leftovers
        retention.upkeep(library.store, library.retention, ["lessons"], now=later)
        assert leftovers(library, "lessons") > 0
    retention.upkeep(library.store, library.retention, ["lessons"], now=later)
    assert leftovers(library, "lessons") == 0
    assert [r["text"] for r in library.store.rows("lessons")] == ["Keep the starter at 24 C."]  # nothing live lost
