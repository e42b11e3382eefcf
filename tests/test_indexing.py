"""The index policy (memory/indexing.py): a table past the row threshold gets a vector index,
searches through it agree with brute force, and rows written after it was built are found.

A small threshold stands in for the real one (10,000 rows), and a bag-of-words embedder
stands in for MiniLM, so the tables here are a few thousand rows and the test takes seconds.
"""

from __future__ import annotations

import json
import random
import zlib
from statistics import mean

import numpy as np
import pytest

from tutorialbook.library import Library
from tutorialbook.memory import indexing
from tutorialbook.memory.embedder import DIM
from tutorialbook.memory import terms
from tutorialbook.memory.search import FTS_WEIGHT, POOL, search
from tutorialbook.memory.where import quote

BOOK = "idx"
TOPICS = {
    "bread": "dough starter crust crumb oven flour proof loaf knead steam",
    "garden": "seedling soil compost mulch prune water root leaf bloom weed",
    "guitar": "chord fret string strum pick tune scale riff capo rhythm",
    "bike": "chain brake tyre saddle gear pedal spoke wheel climb cadence",
    "paint": "brush canvas glaze palette pigment wash layer easel shadow tone",
    "code": "function test query cache index loop error commit branch deploy",
    "chess": "pawn knight bishop rook castle fork pin endgame opening tempo",
    "swim": "stroke kick breath glide turn lane goggles drill pace pull",
}
VERBS = "check adjust keep add remove warm cool press turn hold watch measure".split()
MANNER = "slowly gently firmly evenly early late twice carefully quickly often".split()


class BagOfWords:
    """Deterministic stand-in embedder: a unit vector per word, summed and normalised."""

    name = "bag-of-words"
    dim = DIM

    def __init__(self) -> None:
        self._words: dict[str, np.ndarray] = {}

    def _word(self, word: str) -> np.ndarray:
        if word not in self._words:
            rng = np.random.default_rng(zlib.crc32(word.encode()))
            self._words[word] = rng.standard_normal(DIM).astype(np.float32)
        return self._words[word]

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().replace(".", " ").replace(",", " ").split():
                out[i] += self._word(word)
        out /= np.clip(np.linalg.norm(out, axis=1, keepdims=True), 1e-9, None)
        return out


def sentence(rng: random.Random, topic: str) -> str:
    words = TOPICS[topic].split()
    a, b = rng.sample(words, 2)
    return f"{rng.choice(VERBS).capitalize()} the {a} {rng.choice(MANNER)} before the {b} {rng.choice(words)}"


def skill_rows(library: Library, sections: list[str], n: int, seed: int, prefix: str = "s") -> list[dict]:
    rng = random.Random(seed)
    rows = []
    names = [sentence(rng, sections[i % len(sections)].split("-")[1]) for i in range(n)]
    vectors = library.embed(names)
    for i, (name, vector) in enumerate(zip(names, vectors)):
        rows.append({
            "id": f"{prefix}{seed}_{i}", "book": BOOK, "node_id": sections[i % len(sections)], "name": name,
            "when_to_use": "", "steps": json.dumps([name]), "evidence": "[]", "sources": 1, "version": 1,
            "author": "test", "text": name, "vector": vector,
        })
    return rows


@pytest.fixture
def library(tmp_path) -> Library:
    library = Library(store=str(tmp_path / "store"))
    library._embedder = BagOfWords()
    library.store.index_policy = indexing.Policy(
        vector_min_rows=1_000, rows_per_partition=50, min_partitions=4, refresh_rows=200
    )
    tree = library.ensure_book(BOOK)
    sections = [f"n-{topic}" for topic in TOPICS]
    library.store.insert("nodes", [
        {"id": s, "book": BOOK, "parent_id": tree.root_id, "position": i, "title": s, "kind": "section",
         "evidence": "[]", "version": 1, "text": s, "vector": library.embed([s])[0]}
        for i, s in enumerate(sections)
    ])
    library.sections = sections
    return library


def brute_force(library: Library, query: str, k: int = 10, scores: bool = False) -> list:
    """The hybrid ranking computed from LanceDB's own exact queries: the nearest ``POOL`` by
    cosine (no index), the best ``POOL`` by BM25, fused by score as memory/search.py says
    (cosine + FTS_WEIGHT x BM25 / the best BM25; a row only one half found counts the lowest
    cosine returned, or no BM25)."""
    vector = library.embed([query])[0]
    table, book = library.store.table("skills"), f"book = {quote(BOOK)}"
    near = (table.search(vector.tolist()).distance_type("cosine").where(book, prefilter=True)
            .bypass_vector_index().limit(POOL).to_list())
    text = table.search(terms.query(query), query_type="fts").where(book, prefilter=True).limit(POOL).to_list()
    cosine = {r["id"]: 1.0 - r["_distance"] for r in near}
    floor = min(cosine.values())
    best = max((r["_score"] for r in text), default=0.0)
    bm25 = {r["id"]: r["_score"] / best for r in text} if best else {}
    fused = sorted(((i, round(float(np.float32(cosine.get(i, floor) + FTS_WEIGHT * bm25.get(i, 0.0))), 6))
                    for i in set(cosine) | set(bm25)), key=lambda x: (-x[1], x[0]))[:k]
    return fused if scores else [i for i, _ in fused]


def assert_same_ranking(got: list[tuple[str, float]], expected: list[tuple[str, float]],
                        tolerance: float = 2e-6) -> None:
    """The same scores in the same order, and each id with its score, to ``tolerance`` (a small
    book's vector half is summed by numpy, LanceDB's scan sums in another order: float32 digits
    differ); equal scores are ordered by id in ours, and the last group of equal scores may be cut
    at k differently."""
    assert len(got) == len(expected)
    assert all(abs(a - b) <= tolerance for (_, a), (_, b) in zip(got, expected))
    assert got == sorted(got, key=lambda g: (-g[1], g[0]))
    last = got[-1][1] if got else None
    theirs = dict(expected)
    for i, score in got:
        if score != last:
            assert i in theirs and abs(theirs[i] - score) <= tolerance


def exact_knn(library: Library, query: str, k: int = 10) -> list[str]:
    vector = library.embed([query])[0]
    rows = (library.store.table("skills").search(vector.tolist()).distance_type("cosine")
            .where(f"book = {quote(BOOK)}", prefilter=True).bypass_vector_index().limit(k).to_list())
    return [r["id"] for r in rows]


def recall(library: Library, queries: list[str], mode: str = "hybrid") -> float:
    truth = brute_force if mode == "hybrid" else exact_knn
    scores = []
    for q in queries:
        expected = set(truth(library, q))
        got = {s.id for s in library.retrieve(q, BOOK, k=10, mode=mode).skills}
        scores.append(len(expected & got) / len(expected))
    return mean(scores)


def queries(n: int, seed: int = 99) -> list[str]:
    rng = random.Random(seed)
    return [sentence(rng, rng.choice(sorted(TOPICS))).lower() for _ in range(n)]


def test_small_table_has_no_vector_index_and_searches_exactly(library):
    library.store.insert("skills", skill_rows(library, library.sections, 400, seed=1))
    assert indexing.vector_index(library.store, "skills") is None
    assert indexing.tuning(library.store, "skills") is None
    for q in queries(10):
        got = [(s.id, s.score) for s in library.retrieve(q, BOOK, k=10, mode="hybrid").skills]
        assert_same_ranking(got, brute_force(library, q, scores=True))


def test_table_past_threshold_gets_vector_index_that_agrees_with_brute_force(library):
    store = library.store
    store.insert("skills", skill_rows(library, library.sections, 600, seed=1))
    assert indexing.vector_index(store, "skills") is None  # 600 < 1,000
    store.insert("skills", skill_rows(library, library.sections, 600, seed=2))
    index = indexing.vector_index(store, "skills")
    assert index is not None and index.name.startswith("vector_ivf_sq_p")
    assert index.partitions == store.index_policy.partitions(1_200)
    tuned = indexing.tuning(store, "skills")
    assert tuned is not None and tuned.nprobes == index.partitions  # a small index is scanned whole
    assert store.index_policy.nprobes(1_000) < 1_000  # a large one is not
    # the index really is used by retrieve (and brute force really bypasses it)
    vector = library.embed(["chord"])[0].tolist()
    plan = indexing.tune(store.table("skills").search(vector), store, "skills").explain_plan(True)
    assert "ANNSubIndex" in plan and index.name in plan
    assert recall(library, queries(40), "hybrid") >= 0.95
    assert recall(library, queries(40), "vector") >= 0.95


def test_ensure_vector_index_threshold_is_a_parameter(library):
    store = library.store
    store.index_policy.vector_min_rows = 10**9  # writes alone never index
    store.insert("skills", skill_rows(library, library.sections, 500, seed=3))
    assert not indexing.ensure_vector_index(store, "skills", min_rows=501)
    assert indexing.ensure_vector_index(store, "skills", min_rows=500)
    assert indexing.vector_index(store, "skills") is not None
    assert indexing.tuning(store, "skills") is not None
    assert recall(library, queries(20)) >= 0.95


def test_rows_written_after_the_index_are_found(library):
    store = library.store
    store.insert("skills", skill_rows(library, library.sections, 1_200, seed=1))
    built = indexing.vector_index(store, "skills")
    assert built is not None
    # a few new rows stay unindexed (below refresh_rows) yet are searched
    fresh = skill_rows(library, library.sections, 30, seed=7, prefix="new")
    fresh[0]["name"] = fresh[0]["text"] = "Whistle at the quokka before the zebra"
    fresh[0]["vector"] = library.embed([fresh[0]["name"]])[0]
    store.insert("skills", fresh)
    vector_idx = {i.name: i for i in store.table("skills").list_indices()}[built.name]
    assert vector_idx.num_unindexed_rows == 30
    for mode in ("hybrid", "vector", "keyword"):
        top = library.retrieve("whistle at the quokka before the zebra", BOOK, k=10, mode=mode).skills
        assert top[0].id == fresh[0]["id"], mode
    assert recall(library, queries(30)) >= 0.95

    # an update moves a row out of the index; it is found once, with its new values
    store.update_sql("skills", f"id = {quote(fresh[0]['id'])}", {"helpful": "helpful + 1"})
    top = library.retrieve("whistle at the quokka before the zebra", BOOK, k=10, mode="hybrid").skills
    assert [s.id for s in top].count(fresh[0]["id"]) == 1 and top[0].helpful == 1

    # enough new rows: the store folds them into the indexes, and everything is still found
    store.insert("skills", skill_rows(library, library.sections, 250, seed=8, prefix="more"))
    indices = {i.name: i for i in store.table("skills").list_indices()}
    assert indices[built.name].num_unindexed_rows == 0
    assert indices["text_idx"].num_unindexed_rows == 0
    top = library.retrieve("whistle at the quokka before the zebra", BOOK, k=10, mode="hybrid").skills
    assert top[0].id == fresh[0]["id"]
    assert recall(library, queries(30)) >= 0.95


def test_vector_index_is_rebuilt_when_the_table_outgrows_it(library):
    store = library.store
    store.index_policy.regrow_factor = 2.0
    store.insert("skills", skill_rows(library, library.sections, 1_000, seed=1))
    first = indexing.vector_index(store, "skills")
    assert first is not None and first.partitions == 20
    store.insert("skills", skill_rows(library, library.sections, 1_000, seed=2))
    second = indexing.vector_index(store, "skills")
    assert second.partitions == 40
    names = [i.name for i in store.table("skills").list_indices() if list(i.columns) == ["vector"]]
    assert names == [second.name]
    assert recall(library, queries(20)) >= 0.95


def test_browse_reads_counts_from_the_cached_tree(library):
    store = library.store
    store.insert("skills", skill_rows(library, library.sections, 400, seed=1))
    root = library.browse(BOOK)
    assert root.node.subtree_skills == 400
    assert sum(c.subtree_skills for c in root.children) == 400
    section = library.browse(BOOK, library.sections[0])
    assert section.node.skills == len(section.skills) == 50


def test_a_book_sharing_the_table_is_searched_with_its_filter(library):
    """With another book in the table, retrieval keeps the book filter, agrees with LanceDB's own
    filtered hybrid query, and never returns the other book's skills."""
    store = library.store
    store.insert("skills", skill_rows(library, library.sections, 400, seed=1))
    other = skill_rows(library, library.sections, 300, seed=2, prefix="other")
    library.ensure_book("other")
    store.insert("skills", [{**row, "book": "other"} for row in other])
    tree = library.tree(BOOK)
    assert not library.retrieval.snapshot(tree).whole_table
    other_ids = {row["id"] for row in other}
    for q in queries(10):
        for mode in ("hybrid", "keyword", "vector", "toc"):
            got = library.retrieve(q, BOOK, k=10, mode=mode).skills
            assert len(got) == 10 and not {s.id for s in got} & other_ids, mode
        got = [(s.id, s.score) for s in library.retrieve(q, BOOK, k=10, mode="hybrid").skills]
        assert_same_ranking(got, brute_force(library, q, scores=True))


def test_a_snapshot_searches_the_version_it_was_read_at(library):
    store = library.store
    store.insert("skills", skill_rows(library, library.sections, 400, seed=1))
    snapshot = library.retrieval.snapshot(library.tree(BOOK))
    assert snapshot.whole_table  # one book: its searches skip the book filter
    fresh = skill_rows(library, library.sections, 1, seed=7, prefix="new")[0]
    fresh["name"] = fresh["text"] = "Whistle at the quokka before the zebra"
    fresh["vector"] = library.embed([fresh["name"]])[0]
    store.insert("skills", [fresh])
    query = "whistle at the quokka before the zebra"
    old = search(store, "skills", BOOK, query, library.embed([query])[0], "hybrid", 10, snapshot=snapshot)
    assert fresh["id"] not in {h.row["id"] for h in old}
    assert all(h.row["name"] for h in old)  # rows come whole from the snapshot
    assert library.retrieve(query, BOOK, k=3).skills[0].id == fresh["id"]  # a new version, a new snapshot
    assert library.retrieval.snapshot(library.tree(BOOK)).version > snapshot.version


def test_a_library_keeps_the_snapshots_of_its_most_recent_books(library):
    from tutorialbook.memory.tree import BOOKS

    books = [f"book{i}" for i in range(BOOKS + 1)]
    for book in books:
        root = library.ensure_book(book).root_id
        rows = skill_rows(library, [f"x-{t}" for t in TOPICS], 5, seed=len(book), prefix=book)
        library.store.insert("skills", [{**r, "book": book, "node_id": root} for r in rows])
    for book in books:
        assert library.retrieve("check the chain before the brake", book, k=1).skills[0].id.startswith(book)
    trees = library.reading._trees  # the process keeps the trees (and their rows) of the latest books
    assert trees.books() == books[1:]
    library.retrieve("check the chain before the brake", books[1], k=1)
    assert trees.books()[-1] == books[1]


def test_a_small_table_is_compacted_as_one_row_commits_pile_up(tmp_path):
    """Each lesson is a one-row commit (a fragment); a table of at most compact_max_rows rows is
    compacted once it holds compact_fragments of them, keeping every version (restore reaches
    back as before) and every row; events, append-only, is left as it is; a table over
    compact_max_rows is left to the refresh and upkeep."""
    from tutorialbook.memory.store import Store

    store = Store(str(tmp_path / "store"))
    store.index_policy.compact_fragments = 4

    def fragments(name: str) -> int:
        return store.table(name).stats()["fragment_stats"]["num_fragments"]

    vector = [1.0] + [0.0] * (DIM - 1)
    first = 0
    for n in range(10):
        store.insert("lessons", [{"id": f"l{n}", "book": BOOK, "text": f"lesson {n}", "vector": vector}])
        store.insert("events", [{"id": f"e{n}", "book": BOOK, "summary": f"event {n}"}])
        assert fragments("lessons") < 4
        if n == 0:
            first = store.version("lessons")
    assert sorted(r["id"] for r in store.rows("lessons", columns=["id"])) == [f"l{n}" for n in range(10)]
    assert fragments("events") == 10
    versions = [v for v, _ in store.version_history("lessons")]
    assert versions == list(range(versions[0], store.version("lessons") + 1))  # nothing pruned
    assert [r["id"] for r in store.rows_at("lessons", first)] == ["l0"]  # an early version still reads

    store.index_policy.compact_max_rows = 10  # a bigger table: no compaction between refreshes
    before = fragments("lessons")
    for n in range(10, 14):
        store.insert("lessons", [{"id": f"l{n}", "book": BOOK, "text": f"lesson {n}", "vector": vector}])
    assert fragments("lessons") == before + 4


def test_fragments_another_writer_added_are_compacted_within_recheck_writes(tmp_path):
    """A process skips looking at a table after a write while its own count says nothing is due;
    writes it did not make (another process's, here LanceDB's own add) are seen at the latest
    RECHECK_WRITES writes later, and the table is compacted then."""
    from tutorialbook.memory import indexing
    from tutorialbook.memory.store import Store

    store = Store(str(tmp_path / "store"))
    store.index_policy.compact_fragments = 20

    def fragments() -> int:
        return store.table("lessons").stats()["fragment_stats"]["num_fragments"]

    vector = [1.0] + [0.0] * (DIM - 1)
    row = {"book": BOOK, "text": "a lesson", "vector": vector}
    store.insert("lessons", [{**row, "id": "mine0"}])
    other = Store(str(tmp_path / "store")).table("lessons")  # written past this Store's count
    for n in range(30):
        other.add([{**store.rows("lessons", "id = 'mine0'")[0], "id": f"theirs{n}"}])
    assert fragments() == 31
    counts = []
    for n in range(1, indexing.RECHECK_WRITES + 1):
        store.insert("lessons", [{**row, "id": f"mine{n}"}])
        counts.append(fragments())
    assert counts[:indexing.RECHECK_WRITES - 2] == list(range(32, 32 + indexing.RECHECK_WRITES - 2))  # not looked
    assert counts[-1] < 20  # looked, and compacted
    assert len(store.rows("lessons", columns=["id"])) == 31 + indexing.RECHECK_WRITES


def test_upkeep_waits_for_the_lock_a_write_holds_and_skips_while_another_process_does_it(tmp_path):
    """A compaction (0.1-0.8 s) run under a check-then-write lock kept every writer of the table
    waiting; it runs once the lock is released. And while another process does a table's upkeep
    (here a second Store holding its upkeep lock), this one does not do it twice."""
    from tutorialbook.memory.store import Store

    store = Store(str(tmp_path / "store"))
    store.index_policy.compact_fragments = 4

    def fragments() -> int:
        return store.table("lessons").stats()["fragment_stats"]["num_fragments"]

    def lesson(n: int) -> dict:
        return {"id": f"l{n}", "book": BOOK, "text": f"lesson {n}", "vector": [1.0] + [0.0] * (DIM - 1)}

    with store.lock("lessons"):
        for n in range(6):
            store.insert("lessons", [lesson(n)])
        assert fragments() == 6  # nothing compacted under the lock
    assert fragments() < 4  # compacted once it was released
    other = Store(str(tmp_path / "store"))
    with other.try_lock("lessons.upkeep") as got:
        assert got
        for n in range(6, 12):
            store.insert("lessons", [lesson(n)])
        assert fragments() >= 6  # the other process's upkeep is under way: not done again
    store.insert("lessons", [lesson(12)])
    assert fragments() < 4
    assert len(store.rows("lessons", columns=["id"])) == 13
