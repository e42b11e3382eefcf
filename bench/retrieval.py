"""Retrieval latency and recall at 1,000 / 10,000 / 100,000 skills.

    python bench/retrieval.py [--sizes 1000,10000,100000] [--queries 200] [--browse 200] [--keep DIR]

For each size: a synthetic book (``bench/synthetic.py``: chapters of crafts, sections of 20-50
instructive skills) is written into a fresh store through ``Store.insert`` in large batches, which
lets the store's index policy (``memory/indexing.py``) build what a table of that size needs.
Then, on that same table and in the same run, it times

* ``Library.retrieve(query, book, k=10, mode="hybrid")`` — the whole call, embedding the query
  included;
* a brute-force hybrid query: the same text and (pre-computed) query vector, FTS and an exhaustive
  vector scan (``bypass_vector_index()``), fused by retrieve's own score fusion, the same book
  filter and k — the ranking an unindexed table would give;
* ``Library.browse(book, node_id, depth=1)`` on the root, chapters and sections;
* the first ``retrieve`` after a write (a helpful count, 13 skills upserted, a lesson) and a second
  ``Library``'s first read, beside warm reads taken in between (``after_writes``); the "with lessons"
  warm reads are those once the book has lessons (the copies and lessons are deleted afterwards);

and reports p50/p99 of each, the ratio retrieve/brute-force (of ``retrieve`` without late
interaction, ``tutorialbook/rerank.py``: the search, whose cost grows with the book; late
interaction's is the same for any book, and the row with it is printed above), and recall@10 of ``retrieve``
against the brute-force result. Both order equal fused scores by id, so
recall below 1 is what the vector index's approximation loses. Vectors of the synthetic skills are
cached under ``bench/.cache/``
by the hash of the generated texts and of the embedder's vector for a probe sentence (embedding
100,000 texts takes minutes).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

import synthetic  # noqa: E402

CACHE = ROOT / ".cache"
BATCH = 10_000  # rows a write
CHUNK = 2_048  # texts embedded between cache saves


def cached_vectors(texts: list[str], embed, label: str = "") -> np.ndarray:
    """Vectors of ``texts``, computed once and kept in bench/.cache/ under the texts' hash.

    Work is saved in chunks as it goes, so an interrupted run resumes where it stopped.
    """
    probe = np.round(embed(["a probe sentence that fingerprints the embedder"]), 3).tobytes()
    digest = hashlib.sha256("\n".join(texts).encode() + probe).hexdigest()[:20]
    path = CACHE / f"vectors-{len(texts)}-{digest}.npy"
    if path.exists():
        vectors = np.load(path)
        if vectors.shape[0] == len(texts):
            return vectors
    parts = CACHE / f"vectors-{len(texts)}-{digest}.parts"
    parts.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    done_here = 0
    chunks = []
    for n, i in enumerate(range(0, len(texts), CHUNK)):
        part = parts / f"{n:05d}.npy"
        if part.exists():
            chunks.append(np.load(part))
            continue
        batch = texts[i : i + CHUNK]
        order = sorted(range(len(batch)), key=lambda j: len(batch[j]))  # less padding per batch
        vectors = embed([batch[j] for j in order])
        out = np.empty_like(vectors)
        out[order] = vectors
        np.save(part, out)
        chunks.append(out)
        done_here += len(batch)
        rate = done_here / (time.perf_counter() - start)
        left = (len(texts) - i - len(batch)) / rate
        print(f"\r  embedding {label}{i + len(batch):,}/{len(texts):,} ({rate:,.0f}/s, ~{left / 60:.0f} min left)",
              end="", file=sys.stderr, flush=True)
    if done_here:
        print(file=sys.stderr)
    vectors = np.concatenate(chunks).astype(np.float32)
    np.save(path, vectors)
    shutil.rmtree(parts, ignore_errors=True)
    return vectors


def write_book(store, book: synthetic.Book, vectors: np.ndarray, batch: int = BATCH) -> float:
    """Write the book's rows straight into the store, as large batches; returns seconds taken."""
    from tutorialbook.memory.rows import node_text, skill_text

    start = time.perf_counter()
    now = time.time()
    store.insert_if_absent("books", [{"id": book.name, "book": book.name, "title": book.root.title,
                                       "created_at": now}])
    tutorial = {"tutorial_id": "t_synthetic", "tutorial_title": "Synthetic tutorial", "timed": True, "link": ""}
    skill_rows = []
    for i, s in enumerate(book.skills):
        skill_rows.append({
            "id": s.id, "book": book.name, "node_id": s.node_id, "name": s.name, "when_to_use": s.when_to_use,
            "steps": json.dumps(s.steps), "sources": 1, "helpful": 0, "harmful": 0, "version": 1,
            "evidence": json.dumps([{**tutorial, "start": float(i), "end": float(i + 5), "quote": s.name}]),
            "author": "bench", "origin": "t_synthetic", "text": skill_text(s.name, s.when_to_use, s.steps),
            "created_at": now, "updated_at": now, "vector": vectors[i],
        })
    by_id = {s.id: i for i, s in enumerate(book.skills)}
    node_rows = []
    for node in book.nodes:
        under = [s for sec in ([node] if node.kind == "section" else []) for s in sec.skills]
        if node.kind == "chapter":
            under = [s for sec in book.sections if sec.parent_id == node.id for s in sec.skills]
        if under:
            centroid = vectors[[by_id[s.id] for s in under]].mean(axis=0)
            centroid = centroid / (np.linalg.norm(centroid) + 1e-9)
        else:
            centroid = np.zeros(vectors.shape[1], dtype=np.float32)
            centroid[0] = 1.0
        node_rows.append({
            "id": node.id, "book": book.name, "parent_id": node.parent_id, "position": node.position,
            "title": node.title, "summary": node.summary, "kind": node.kind, "evidence": "[]",
            "origin": "t_synthetic", "version": 1, "updated_at": now,
            "text": node_text(node.title, node.summary, [s.name for s in node.skills]), "vector": centroid,
        })
    store.insert("nodes", node_rows)
    for i in range(0, len(skill_rows), batch):
        store.insert("skills", skill_rows[i : i + batch])
    return time.perf_counter() - start


# -- measuring ---------------------------------------------------------------------------

def brute_force(table, query: str, vector: np.ndarray, book: str, k: int) -> list[dict]:
    """What ``retrieve`` would rank without a vector index: an exhaustive vector scan
    (``bypass_vector_index()``) and the full-text half, ``POOL`` rows each, fused by
    ``retrieve``'s own score fusion (``memory.search.fuse``)."""
    from tutorialbook.memory import terms
    from tutorialbook.memory.search import POOL, fuse
    from tutorialbook.memory.where import quote

    scope = f"book = {quote(book)}"
    near = (table.search(vector.tolist()).distance_type("cosine").where(scope, prefilter=True)
            .bypass_vector_index().limit(POOL).to_list())
    text = table.search(terms.query(query), query_type="fts").where(scope, prefilter=True).limit(POOL).to_list()
    return [hit.row for hit in fuse(near, text, k)]


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    if not values:
        return float("nan")
    rank = q / 100 * (len(values) - 1)
    low = int(rank)
    high = min(low + 1, len(values) - 1)
    return values[low] + (values[high] - values[low]) * (rank - low)


def timed(fn) -> tuple[float, object]:
    start = time.perf_counter()
    out = fn()
    return (time.perf_counter() - start) * 1000, out


class _Collect(logging.Handler):
    """Keeps what the index policy did while the book was written."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def open_store(size: int, book: synthetic.Book, vectors: np.ndarray, workdir: Path):
    """A library on a store holding the book, built (or reused, with --keep) for this size."""
    from tutorialbook.library import Library

    key = f"{vectors.shape}{book.skills[-1].id}{book.skills[0].name}".encode() + vectors[:8].tobytes()
    digest = hashlib.sha256(key).hexdigest()[:10]
    path = workdir / f"store-{size}-{digest}"
    done = path / ".complete"
    built = None
    if not done.exists():
        shutil.rmtree(path, ignore_errors=True)
        library = Library(store=str(path))
        upkeep = _Collect()
        logger = logging.getLogger("tutorialbook.memory.indexing")
        logger.addHandler(upkeep)
        logger.setLevel(logging.INFO)
        try:
            built = write_book(library.store, book, vectors)
        finally:
            logger.removeHandler(upkeep)
        for message in upkeep.messages:
            print(f"    index upkeep: {message}", file=sys.stderr)
        done.write_text("ok")
    library = Library(store=str(path))
    count = library.store.count("skills")
    if count != len(book.skills):
        raise SystemExit(f"{path} holds {count} skills, expected {len(book.skills)}: delete it")
    return library, built


def measure(size: int, n_queries: int, n_browse: int, workdir: Path, k: int = 10) -> dict:
    from tutorialbook.memory import indexing

    book = synthetic.generate(size)
    print(f"\n{size:,} skills: {len(book.chapters)} chapters, {len(book.sections)} sections", file=sys.stderr)
    from tutorialbook.memory.embedder import get_embedder

    vectors = cached_vectors([synthetic.embed_text(s) for s in book.skills], get_embedder().embed, f"{size:,}: ")
    library, built = open_store(size, book, vectors, workdir)
    store = library.store
    table = store.table("skills")
    if built is not None:
        print(f"  wrote {size:,} skills (and their indexes) in {built:.1f} s", file=sys.stderr)
    indices = {i.name: i for i in table.list_indices()}
    vector_index = indexing.vector_index(store, "skills")
    tuning = indexing.tuning(store, "skills")
    fts = indices.get("text_idx")

    queries = synthetic.queries(book, n_queries)
    query_vectors = library.embed(queries)
    from tutorialbook.library import Library

    # the same store without late interaction (tutorialbook/rerank.py): the search alone, which is
    # what grows with the book and what brute force is compared with
    plain = Library(store=library.settings.store, late_interaction=False)
    for q, v in zip(queries[:5], query_vectors[:5]):  # warm caches (index files, tree, model)
        library.retrieve(q, book.name, k=k, mode="hybrid")
        plain.retrieve(q, book.name, k=k, mode="hybrid")
        brute_force(table, q, v, book.name, k)

    retrieve_ms, plain_ms, brute_ms, embed_ms, recalls = [], [], [], [], []
    for i, (q, v) in enumerate(zip(queries, query_vectors)):
        # alternate which runs first, so neither always meets warmer caches or a quieter machine
        first_retrieve = i % 2 == 0
        if first_retrieve:
            r_ms, result = timed(lambda: library.retrieve(q, book.name, k=k, mode="hybrid"))
        b_ms, truth = timed(lambda: brute_force(table, q, v, book.name, k))
        if not first_retrieve:
            r_ms, result = timed(lambda: library.retrieve(q, book.name, k=k, mode="hybrid"))
        e_ms, _ = timed(lambda: library.embed([q]))
        p_ms, _ = timed(lambda: plain.retrieve(q, book.name, k=k, mode="hybrid"))
        plain_ms.append(p_ms)
        retrieve_ms.append(r_ms)
        brute_ms.append(b_ms)
        embed_ms.append(e_ms)
        expected = {r["id"] for r in truth}
        got = {s.id for s in result.skills}
        recalls.append(len(expected & got) / len(expected) if expected else 1.0)

    after = after_writes(library, book, queries, k)
    rng = random.Random(size)
    chapters = [n.id for n in book.chapters]
    sections = [n.id for n in book.sections]
    targets = [""] + rng.sample(chapters, min(len(chapters), 20)) + rng.sample(sections, min(len(sections), 60))
    library.browse(book.name, "", depth=1)  # the first browse after writes loads the tree
    browse_ms = []
    for i in range(n_browse):
        node_id = targets[i % len(targets)]
        ms, view = timed(lambda: library.browse(book.name, node_id, depth=1))
        browse_ms.append(ms)
    return {
        "size": size, "queries": n_queries, "browse_calls": n_browse,
        "retrieve": retrieve_ms, "plain": plain_ms, "brute": brute_ms, "embed": embed_ms, "browse": browse_ms,
        "recall": statistics.mean(recalls), "min_recall": min(recalls), "after": after,
        "vector_index": vector_index.name if vector_index else "none (exact scan)",
        "tuning": f"nprobes {tuning.nprobes} (vector mode also refines x{tuning.refine_factor})" if tuning else "-",
        "fts_unindexed": fts.num_unindexed_rows if fts else None,
    }


def after_writes(library, book: synthetic.Book, queries: list[str], k: int, trials: int = 7) -> dict[str, list[float]]:
    """The first ``retrieve`` after each kind of write, ``trials`` times each, beside warm reads
    taken in between (same queries, same run): after one helpful count on a skill, after 13 skills
    upserted (an ingest's skill commit), after a lesson (``record_lesson``, outcome success: a
    lesson row, a helpful count, an event), and a second ``Library``'s first read. Once the book
    has lessons, warm reads are timed again (``warm, with lessons``)."""
    from tutorialbook.library import Library

    store = library.store
    out: dict[str, list[float]] = {"warm": [], "after a helpful count": [], "after 13 skills upserted": [],
                                   "after a lesson": [], "warm, with lessons": [], "a second Library's first": []}
    rng = random.Random(len(book.skills))
    query = iter(queries * 10)

    def read(label: str) -> None:
        ms, _ = timed(lambda: library.retrieve(next(query), book.name, k=k, mode="hybrid"))
        out[label].append(ms)

    for trial in range(trials):
        for _ in range(3):
            read("warm")
        skill = rng.choice(book.skills).id
        store.update_sql("skills", f"id = '{skill}'", {"helpful": "helpful + 1"})
        read("after a helpful count")
        for _ in range(3):
            read("warm")
        rows = store.rows("skills", f"id IN ({', '.join(repr(s.id) for s in rng.sample(book.skills, 13))})")
        store.upsert("skills", [{**r, "id": f"{r['id']}-copy{trial}", "name": r["name"] + " (again)"} for r in rows])
        read("after 13 skills upserted")
    for trial in range(trials):
        for _ in range(3):
            read("warm, with lessons")
        library.record_lesson(f"Lesson {trial}: the step worked as written.", book.name, "success",
                              skill_id=rng.choice(book.skills).id)
        read("after a lesson")
    for _ in range(3):
        read("warm, with lessons")
    for trial in range(3):
        other = Library(store=library.settings.store)
        ms, _ = timed(lambda: other.retrieve(next(query), book.name, k=k, mode="hybrid"))
        out["a second Library's first"].append(ms)
    store.delete("skills", "id LIKE '%-copy%'")  # the store holds the book alone again (for --keep)
    store.delete("lessons", f"book = '{book.name}'")
    return out


def report(results: list[dict]) -> bool:
    line = "-" * 118
    print(line)
    print(f"{'skills':>8}  {'operation':<34}{'p50 ms':>9}{'p99 ms':>9}   {'brute p50':>9}{'brute p99':>10}"
          f"{'p50 ratio':>11}{'recall@10':>11}")
    print(line)
    ok = True
    for r in results:
        size = r["size"]
        ratio = pct(r["plain"], 50) / pct(r["brute"], 50)
        print(
            f"{size:>8,}  {'retrieve_skill (hybrid, k=10)':<34}"
            f"{pct(r['retrieve'], 50):9.1f}{pct(r['retrieve'], 99):9.1f}"
        )
        print(
            f"{'':>8}  {'  without late interaction':<34}{pct(r['plain'], 50):9.1f}{pct(r['plain'], 99):9.1f}"
            f"   {pct(r['brute'], 50):9.1f}{pct(r['brute'], 99):10.1f}{ratio:10.2f}x{r['recall']:11.3f}"
        )
        print(f"{'':>8}  {'  (embedding one query, alone)':<34}{pct(r['embed'], 50):9.1f}{pct(r['embed'], 99):9.1f}")
        print(f"{'':>8}  {'browse_toc (depth=1)':<34}{pct(r['browse'], 50):9.2f}{pct(r['browse'], 99):9.2f}")
        for label, values in r["after"].items():
            base = r["after"]["warm, with lessons" if "lesson" in label else "warm"]
            print(f"{'':>8}  {'  retrieve ' + label:<34}{pct(values, 50):9.1f}{max(values):9.1f}"
                  f"   {'(max; x warm p50: ' + format(pct(values, 50) / pct(base, 50), '.2f') + ')':>22}")
        print(f"{'':>8}  vector index: {r['vector_index']}; {r['tuning']}; FTS unindexed rows: {r['fts_unindexed']};"
              f" {r['queries']} queries, {r['browse_calls']} browses; worst recall@10 {r['min_recall']:.1f}")
    print(line)
    for r in results:
        checks = [("browse_toc p50 < 5 ms", pct(r["browse"], 50) < 5.0)]
        if r["size"] >= 100_000:
            ratio = pct(r["plain"], 50) / pct(r["brute"], 50)
            after = r["after"]
            for label in ("after a helpful count", "after 13 skills upserted", "after a lesson",
                          "a second Library's first"):
                warm = pct(after["warm, with lessons" if "lesson" in label else "warm"], 50)
                first = pct(after[label], 50) / warm
                checks.append((f"first retrieve {label} <= 2x the warm read ({first:.2f}x)", first <= 2.0))
            checks += [(f"retrieve p50 (the search: no late interaction) <= 0.15x brute force ({ratio:.3f}x)",
                        ratio <= 0.15),
                       (f"recall@10 >= 0.95 ({r['recall']:.3f})", r["recall"] >= 0.95)]
        for label, passed in checks:
            ok &= passed
            print(f"{r['size']:>8,}  {'PASS' if passed else 'FAIL'}  {label}")
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="comma-separated skill counts")
    parser.add_argument("--queries", type=int, default=200, help="retrieve queries per size")
    parser.add_argument("--browse", type=int, default=400, help="browse calls per size")
    parser.add_argument("--keep", metavar="DIR", help="keep the stores here and reuse them on the next run")
    parser.add_argument("--json", metavar="FILE", help="also write the raw timings here")
    args = parser.parse_args(argv)
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]
    workdir = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="tutorialbook-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        results = [measure(size, args.queries, args.browse, workdir) for size in sizes]
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    ok = report(results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
