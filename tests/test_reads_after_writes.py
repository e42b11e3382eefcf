"""Reads after writes (memory/snapshots.py, memory/changelog.py): a book's tree and search
snapshot move on by the rows a write changed — this process's writes through the change log,
another process's by comparing row ids — and always equal what reading the book whole gives.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading

import pytest

from tests.support.examples import EXAMPLES, reteaching_tutorial
from test_indexing import BOOK, TOPICS, BagOfWords, library as indexed_library, skill_rows  # noqa: F401
from tutorialbook.errors import NotFound
from tutorialbook.library import Library
from tutorialbook.memory import indexing, snapshots, tree as tree_module
from tutorialbook.memory.search import VECTOR_COLUMNS, nearest_rows
from tutorialbook.memory.snapshots import BookRows
from tutorialbook.memory.where import of_book, quote

library = indexed_library  # the index tests' library: a book of 8 sections, a bag-of-words embedder


def forget_everything() -> None:
    """Empty the process's shared rows and trees, so the next read reads the book whole."""
    with snapshots._guard:
        snapshots._latest.clear()
    with tree_module._guard:
        tree_module._trees.clear()


def view(tree) -> dict:
    """What a tree and its snapshot say, in a form two reads can be compared by."""
    return {
        "skills_at": {n: sorted(json.dumps(b, sort_keys=True) for b in briefs) for n, briefs in tree.skills_at.items()},
        "counts": dict(+tree.skill_counts), "lessons": dict(+tree.lesson_counts), "hidden": tree.hidden_skills,
        "nodes": sorted(tree.nodes), "children": tree.children,
        "rows": sorted(json.dumps(r, sort_keys=True) for r in tree.skill_rows.all_rows()),
        "lesson_rows": sorted(json.dumps(r, sort_keys=True) for r in tree.lesson_rows.all_rows()),
    }


def read_whole(path: str, book: str) -> dict:
    forget_everything()
    fresh = Library(store=path)
    fresh._embedder = BagOfWords()
    return view(fresh.tree(book))


@pytest.fixture
def filled(library):
    library.store.insert("skills", skill_rows(library, library.sections, 400, seed=1))
    library.retrieve("warm", BOOK, k=1)  # the tree, and the vectors a search of a small book holds in memory
    return library


@pytest.fixture
def reads(monkeypatch):
    """Counts the times a book's skills are read whole."""
    counted = []
    whole = BookRows.read.__func__

    def read(cls, store, table, book, columns, version):
        counted.append(table)
        return whole(cls, store, table, book, columns, version)

    monkeypatch.setattr(BookRows, "read", classmethod(read))
    return counted


def helpful(library, skill_id: str, query: str) -> int:
    found = {s.id: s for s in library.retrieve(query, BOOK, k=50, mode="hybrid").skills}
    return found[skill_id].helpful


def test_own_writes_are_read_back_by_the_rows_they_changed(filled, reads):
    library, store = filled, filled.store
    target = store.rows("skills", "id = 's1_7'")[0]
    store.update_sql("skills", "id = 's1_7'", {"helpful": "helpful + 1"})  # a helpful count
    assert helpful(library, "s1_7", target["name"]) == 1
    fresh = skill_rows(library, library.sections, 3, seed=7, prefix="new")
    fresh[0]["name"] = fresh[0]["text"] = "Whistle at the quokka before the zebra"
    fresh[0]["vector"] = library.embed([fresh[0]["name"]])[0]
    store.upsert("skills", fresh)  # a small ingest's new skills
    assert library.retrieve("whistle at the quokka before the zebra", BOOK, k=1).skills[0].id == "new7_0"
    store.delete("skills", "id = 's1_8'")
    store.update("skills", "id = 's1_9'", {"node_id": library.sections[3]})  # moved to another section
    section = library.browse(BOOK, library.sections[3])
    assert "s1_9" in {s.id for s in section.skills} and section.node.skills == len(section.skills)
    assert "s1_8" not in {s.id for s in library.retrieve(store.rows("skills", "id = 's1_10'")[0]["name"], BOOK,
                                                          k=50).skills}
    assert library.browse(BOOK).node.subtree_skills == 400 + 3 - 1
    assert reads == []  # none of these writes made the book be read whole
    incremental = view(library.tree(BOOK))
    assert incremental == read_whole(library.settings.store, BOOK)


WRITER = """
import sys
from tutorialbook.memory.store import Store
store = Store(sys.argv[1])
store.update_sql("skills", "id = 's1_3'", {"helpful": "helpful + 5"})
row = store.rows("skills", "id = 's1_4'")[0]
store.upsert("skills", [{**row, "id": "other_1", "name": "Written by another process"}])
store.delete("skills", "id = 's1_5'")
"""


def test_another_process_write_is_seen_by_comparing_row_ids(filled, reads):
    library = filled
    before = library.tree(BOOK)
    subprocess.run([sys.executable, "-c", WRITER, library.settings.store], check=True, capture_output=True, text=True)
    after = library.tree(BOOK)
    assert after.skill_rows is not before.skill_rows and reads == []  # moved on, not read whole
    rows = after.skill_rows.rows(["s1_3", "other_1", "s1_5"])
    assert rows["s1_3"]["helpful"] == 5 and rows["other_1"]["name"] == "Written by another process"
    assert "s1_5" not in rows and "s1_5" not in {b["id"] for bs in after.skills_at.values() for b in bs}
    assert helpful(library, "s1_3", rows["s1_3"]["name"]) == 5
    assert view(after) == read_whole(library.settings.store, BOOK)


def test_a_second_library_of_the_process_shares_the_rows(filled, reads):
    other = Library(store=filled.settings.store)
    other._embedder = BagOfWords()
    assert other.tree(BOOK) is filled.tree(BOOK) and reads == []
    filled.store.update_sql("skills", "id = 's1_1'", {"harmful": "harmful + 1"})
    assert other.tree(BOOK).skill_rows.rows(["s1_1"])["s1_1"]["harmful"] == 1  # its write, seen here


def test_a_store_made_again_at_the_same_path_is_another_store(tmp_path):
    path = tmp_path / "store"
    first = Library(store=str(path))
    first.ensure_book("again")
    assert first.tree("again").skill_counts.total() == 0
    shutil.rmtree(path)
    second = Library(store=str(path))
    assert not second.has_book("again")
    with pytest.raises(NotFound):  # not the tree the first store kept
        second.tree("again")


def test_a_backup_copied_into_place_is_read_as_it_is(tmp_path):
    """Its table versions are older than the ones this process read: its rows are read, not
    the newer rows the caches hold under the same versions-to-come."""
    path, backup = tmp_path / "store", tmp_path / "backup"
    first = Library(store=str(path))
    first.ingest(str(EXAMPLES / "sourdough-basics.md"), book="baking")
    shutil.copytree(path, backup)
    first.ingest(str(EXAMPLES / "sourdough-troubleshooting.srt"), book="baking")
    newer = view(first.tree("baking"))
    shutil.rmtree(path)
    shutil.copytree(backup, path)
    second = Library(store=str(path))
    seen = view(second.tree("baking"))
    assert seen != newer and seen == read_whole(str(path), "baking")
    again = second.ingest(str(EXAMPLES / "sourdough-troubleshooting.srt"), book="baking")
    assert [t.status for t in again.tutorials] == ["added"]
    assert view(second.tree("baking")) == newer == read_whole(str(path), "baking")


def test_readers_during_writes_see_one_version(filled):
    """Trees read while another thread writes are each whole: their counts, briefs and
    snapshot rows agree with one another."""
    library, store = filled, filled.store
    stop = threading.Event()
    problems: list[str] = []

    def reader() -> None:
        while not stop.is_set():
            tree = library.tree(BOOK)
            briefs = {b["id"]: b for bs in tree.skills_at.values() for b in bs}
            rows = tree.skill_rows.rows(list(briefs))
            if len(rows) != len(briefs) or len(tree.skill_rows) != len(briefs) + len(tree.hidden_skills):
                problems.append(f"{len(rows)} rows for {len(briefs)} briefs")
            if any(rows[i]["helpful"] != b["helpful"] for i, b in briefs.items() if i in rows):
                problems.append("a brief and its row disagree")
            if sum(tree.skill_counts.values()) != len(briefs):
                problems.append("counts disagree with briefs")

    threads = [threading.Thread(target=reader) for _ in range(3)]
    for t in threads:
        t.start()
    try:
        for i in range(12):
            store.update_sql("skills", f"id = 's1_{i}'", {"helpful": "helpful + 1"})
            store.upsert("skills", skill_rows(library, library.sections, 2, seed=100 + i, prefix="c"))
            store.delete("skills", f"id = 's1_{200 + i}'")
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert problems == []
    assert view(library.tree(BOOK)) == read_whole(library.settings.store, BOOK)


def test_lessons_restores_and_unfinished_commits_are_seen(tmp_path, reads):
    """Real ingests, a lesson with a helpful count, its revert, a restore to before the second
    ingest: after each the tree equals reading the book whole, and the skills are not re-read."""
    path = str(tmp_path / "store")
    library = Library(store=path)
    library.ingest(str(EXAMPLES / "sourdough-basics.md"), book="baking", refine_rounds=0)
    first = library.history("baking", action="ingest")[0].id
    skill = library.retrieve("score the loaf", "baking", k=1).skills[0]
    reads.clear()
    library.ingest(str(reteaching_tutorial(tmp_path)), book="baking", refine_rounds=0)
    lesson = library.record_lesson("A curved blade gives a bigger ear.", "baking", "success", skill_id=skill.id)
    got = library.retrieve("score the loaf", "baking", k=1).skills[0]
    assert got.helpful == skill.helpful + 1 and [x.text for x in got.lessons] == ["A curved blade gives a bigger ear."]
    assert "skills" not in reads
    assert view(library.tree("baking")) == read_whole(path, "baking")
    library.revert_lesson(lesson.lesson_id)
    got = library.retrieve("score the loaf", "baking", k=1).skills[0]
    assert got.helpful == skill.helpful and got.lessons == []
    library.restore("baking", to=first)
    tree = library.tree("baking")
    assert len(tree.skill_rows) == library.store.count("skills", f"book = {quote('baking')}")
    assert view(tree) == read_whole(path, "baking")


def lance_scan(store, vector, k: int) -> list[tuple[str, float]]:
    """LanceDB's own exact scan of the book's skills (the table has no vector index)."""
    hits = nearest_rows(store, "skills", [vector], of_book(BOOK), k, ["id"])[0]
    return [(h["id"], h["_distance"]) for h in hits]


def test_a_small_book_is_searched_in_memory_as_lancedb_scans_it(filled, monkeypatch):
    library, store = filled, filled.store
    assert indexing.tuning(store, "skills") is None  # 400 rows: under the index threshold
    store.delete("skills", "id = 's1_8'")  # rows gone, replaced and added since the first read
    store.update("skills", "id = 's1_9'", {"node_id": library.sections[3]})
    store.upsert("skills", skill_rows(library, library.sections, 5, seed=9, prefix="late"))
    tree = library.tree(BOOK)
    held, _ = snapshots.latest(store, "skills", BOOK, VECTOR_COLUMNS, tree.skill_rows.version)
    assert held.version == tree.skill_rows.version
    for query in ["knead the dough gently", "tune the capo", "whistle at the quokka", "late check"]:
        vector = library.embed([query])[0]
        mine = [(r["id"], r["_distance"]) for r in tree.skill_rows.found(held.nearest(vector, 12), "_distance")]
        theirs = lance_scan(store, vector, 12)
        assert [i for i, _ in mine] == [i for i, _ in theirs]
        assert all(abs(a - b) < 1e-5 for (_, a), (_, b) in zip(mine, theirs))
        assert "s1_8" not in dict(mine) and len(held.nearest(vector, 10_000)) == 400 - 1 + 5
    calls = []
    real = BookRows.nearest
    monkeypatch.setattr(BookRows, "nearest", lambda self, *a: calls.append(1) or real(self, *a))
    ranked = [h.row["id"] for h in library.rank_skills("knead the dough", BOOK, 8, "hybrid", tree=tree,
                                                          snapshot=tree.skill_rows)[0]]
    assert calls  # the vector half ran in memory...
    indexing.ensure_vector_index(store, "skills", min_rows=1)
    store.index_cache.clear()
    calls.clear()
    tree = library.tree(BOOK)
    again = [h.row["id"] for h in library.rank_skills("knead the dough", BOOK, 8, "hybrid", tree=tree,
                                                         snapshot=tree.skill_rows)[0]]
    assert calls == [] and again[:3] == ranked[:3]  # ...and on LanceDB's index once the table has one


def test_a_snapshots_vectors_are_laid_out_once_not_at_every_search(filled, monkeypatch):
    """A held snapshot's vectors are turned into arrays at its first search and kept (rows never
    change in a snapshot); a one-chunk column is read in place, not copied: a copy of 6,000
    vectors a search was 9 MB allocated and freed hundreds of times an ingest."""
    import numpy as np
    import pyarrow as pa

    from tutorialbook.memory import lance

    library, store = filled, filled.store
    store.upsert("skills", skill_rows(library, library.sections, 3, seed=5, prefix="more"))  # base and extra
    tree = library.tree(BOOK)
    held, _ = snapshots.latest(store, "skills", BOOK, VECTOR_COLUMNS, tree.skill_rows.version)
    made = []
    real = lance.matrix
    monkeypatch.setattr(lance, "matrix", lambda column: made.append(1) or real(column))
    vector = library.embed(["knead the dough"])[0]
    first = held.nearest(vector, 5)
    laid = len(made)
    assert laid in (1, 2) and held.nearest(vector, 5) == first and len(made) == laid
    column = pa.chunked_array([pa.FixedSizeListArray.from_arrays(pa.array(np.arange(12, dtype=np.float32)), 4)])
    matrix = real(column)
    assert matrix.shape == (3, 4) and matrix[2, 3] == 11
    assert matrix.ctypes.data == column.chunk(0).values.buffers()[1].address  # the column's own memory


def test_concurrent_first_searches_of_a_snapshot_lay_it_out_once(filled, monkeypatch):
    """Threads searching a snapshot none has searched yet (16 HTTP clients did): one lays out the
    vectors, the others wait for it and all get the same answer. Before, a search could see the
    matrices set and their norms not yet, and failed (found by test_http's mixed load)."""
    import time

    from tutorialbook.memory import lance

    library, store = filled, filled.store
    store.upsert("skills", skill_rows(library, library.sections, 3, seed=6, prefix="racing"))
    tree = library.tree(BOOK)
    held, _ = snapshots.latest(store, "skills", BOOK, VECTOR_COLUMNS, tree.skill_rows.version)
    made = []
    real = lance.matrix
    monkeypatch.setattr(lance, "matrix", lambda column: made.append(1) or time.sleep(0.05) or real(column))
    vector = library.embed(["knead the dough"])[0]
    start, results, failures = threading.Barrier(8), [], []

    def search():
        start.wait()
        try:
            results.append(held.nearest(vector, 5))
        except Exception as exc:  # noqa: BLE001
            failures.append(exc)

    threads = [threading.Thread(target=search) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == [] and len(results) == 8 and all(r == results[0] for r in results)
    assert len(made) == 2  # base and extra, once


def test_a_book_without_skills_is_searched_in_memory_too(library):
    assert len(library.tree(BOOK).skill_rows) == 0
    for mode in ("hybrid", "vector", "toc"):
        assert library.retrieve("knead the dough", BOOK, k=3, mode=mode).skills == []
