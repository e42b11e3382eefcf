"""When the store indexes its tables, and how searches use those indexes.

The policy, table by table:

* **At creation** every table gets a BTree on ``id``; the text tables a native BM25 index on
  ``text``; columns that hot paths filter on get scalar indexes (``node_id`` of skills and
  lessons, which browsing reads; ``book``, which every search filters on).
* **After writes** (:func:`after_write`, called by the store): rows written after an index was
  built are still found — LanceDB scans them flat — but a flat full-text scan costs microseconds
  a row, so once ``refresh_rows`` rows are unindexed the table is optimized, which folds them in.
  Every commit also adds a fragment (a lesson, an event, a helpful count: one row each), and
  every read of the table opens each of them: at 200 one-row fragments a lesson, a browse and
  a retrieve cost four times what they cost on one. So a table of at most ``compact_max_rows``
  rows is also compacted once it holds ``compact_fragments`` fragments (~0.1-0.15 s of CPU for
  a few hundred rows, every 16 commits; not ``events``, which the hot paths never read); a bigger
  one is rewritten only by the refresh and by retention's upkeep (compacting renumbers its rows,
  which makes every process re-read its snapshots whole). This compaction prunes no version
  (that is retention's, memory/retention.py).
* **A vector index** is built once a table with a vector column holds ``vector_min_rows`` rows
  (below that an exact scan is both fast and exact), and rebuilt (retrained) when the table has
  grown by half. It is IVF_SQ (8-bit scalar codes) with cosine distance, about 4,096 rows a
  partition: that is the size LanceDB's incremental upkeep (``optimize``, which folds new rows
  into the index) aims at — it splits partitions four times larger and joins smaller ones, and
  joining 1,000-row partitions collapsed a 100-partition index into a few of 20,000-30,000 rows,
  which made each probe scan a fifth of the table. The kind and number of partitions are recorded
  in the index name (``vector_ivf_sq_p<partitions>``) so that query-time tuning and the growth
  check need no other bookkeeping.
* **At query time** (:func:`tune`): with a vector index, a search probes a fixed number of
  partitions (``nprobes``); only when those hold fewer than k rows that pass the filter (a small
  book in a big table) is it run again letting LanceDB probe as far as it takes
  (``maximum_nprobes(0)``). A vector search re-ranks a pool of 5 x k candidates with the exact
  vectors (``refine_factor``), so its order and distances are exact; the vector half of a hybrid
  search skips that, since RRF reads only its ranks. Without an index, queries run unchanged (an
  exact scan).

Several processes may share a store: two of them may decide to optimize or index at once; the
loser's error is logged and ignored, since the winner did the work.
"""

from __future__ import annotations

import logging
import math
import re
import threading
import time
from dataclasses import dataclass
from datetime import timedelta

from lancedb.index import FTS, Bitmap, BTree, IvfFlat, IvfPq, IvfSq

from tutorialbook.memory.schemas import FTS_TABLES, SCHEMAS

log = logging.getLogger(__name__)

#: Scalar indexes each table gets at creation, beyond ``id`` (BTree) and ``text`` (FTS).
SCALAR_INDEXES: dict[str, dict[str, type]] = {
    "nodes": {"book": Bitmap},
    "skills": {"book": Bitmap, "node_id": BTree},
    "lessons": {"book": Bitmap, "node_id": BTree, "skill_id": BTree},
    "segments": {"book": Bitmap, "tutorial_id": BTree},
    "positions": {"epd": BTree, "tutorial_id": BTree},
    "screen": {"book": Bitmap, "tutorial_id": BTree},
}

VECTOR_INDEX = re.compile(r"^vector_([a-z_]+)_p(\d+)$")
#: an optimize that prunes nothing (LanceDB's default prunes versions older than 7 days)
KEEP_ALL = timedelta(days=36500)
TUNING_TTL = 2.0  # seconds a query-time tuning is reused without looking at the table
VECTOR_KINDS = {"ivf_sq": IvfSq, "ivf_pq": IvfPq, "ivf_flat": IvfFlat}


@dataclass
class Policy:
    """Thresholds of the index policy; a store holds one (tests use small ones)."""

    #: a table with a vector column gets an ANN index at this many rows (an exact scan of 10,000
    #: 384-d vectors already costs more than a whole indexed hybrid query)
    vector_min_rows: int = 10_000
    #: which index: "ivf_sq" (8-bit scalar codes), "ivf_pq" or "ivf_flat"
    vector_kind: str = "ivf_sq"
    #: IVF partitions: one per this many rows (LanceDB's target partition size), at least
    #: ``min_partitions``
    rows_per_partition: int = 4_096
    min_partitions: int = 1
    #: rebuild the vector index once the table would get this many times its partitions (rows
    #: on topics its centroids never saw pile into a few partitions until LanceDB splits them)
    regrow_factor: float = 1.5
    #: optimize a table (fold new rows into its indexes) once this many rows are unindexed
    refresh_rows: int = 500
    #: compact a table of at most ``compact_max_rows`` rows once it has this many fragments
    #: (the cost of a read grows with them, a compaction costs ~0.1 s; on http_load's mixed calls
    #: in-process, 8 to 64 gave 18.5-23 ms of CPU a call, within the noise of a busy machine,
    #: against 41 ms with compaction only every 500 rows)
    compact_fragments: int = 16
    compact_max_rows: int = 10_000
    #: tables left out of that: ``events`` and ``undo`` are append-only and read only by history,
    #: revert and restore, and an append costs the same at 30 fragments as at 290 (4.5 / 4.6 ms of CPU)
    compact_skip: tuple[str, ...] = ("events", "undo")
    #: query time: IVF partitions probed: a fraction of them, at least ``min_nprobes``, and at
    #: least enough to hold ``min_probed_rows`` rows (scanning 12,000 8-bit codes costs about a
    #: millisecond, so a small index is scanned whole). Letting LanceDB probe on until the top k
    #: settles doubled a query's time at 100,000 rows for 1-2% recall (bench/retrieval.py).
    probe_fraction: float = 0.12
    min_nprobes: int = 2
    min_probed_rows: int = 12_000
    #: query time: candidates re-ranked with exact vectors, as a multiple of k
    refine_factor: int = 5

    def partitions(self, rows: int) -> int:
        return int(min(4096, max(self.min_partitions, round(rows / self.rows_per_partition))))

    def nprobes(self, partitions: int) -> int:
        wanted = max(self.min_nprobes, math.ceil(self.probe_fraction * partitions),
                     math.ceil(self.min_probed_rows / self.rows_per_partition))
        return int(min(partitions, wanted))


@dataclass(frozen=True)
class VectorIndex:
    name: str
    partitions: int


def has_vector(name: str) -> bool:
    return "vector" in SCHEMAS[name].names


def vector_config(rows: int, policy: Policy):
    """The vector index for a table of ``rows`` rows, and its name (which records the kind
    and the number of partitions, for query-time tuning and the growth check)."""
    partitions = policy.partitions(rows)
    kind = VECTOR_KINDS[policy.vector_kind]
    if kind is IvfPq:
        # 48 sub-vectors of 8 dims, 8-bit codes; refine_factor re-ranks with exact vectors
        config = IvfPq(distance_type="cosine", num_partitions=partitions, num_sub_vectors=48)
    else:
        config = kind(distance_type="cosine", num_partitions=partitions)
    return config, f"vector_{policy.vector_kind}_p{partitions}"


# -- creation ----------------------------------------------------------------------

def ensure_base_indexes(name: str, table) -> None:
    """The scalar and full-text indexes a table should have; builds the missing ones."""
    existing = {i.name for i in table.list_indices()}
    wanted: list[tuple[str, FTS | BTree]] = []
    if name in FTS_TABLES and "text_idx" not in existing:
        wanted.append(("text", FTS()))
    if "id_idx" not in existing:
        wanted.append(("id", BTree()))
    for column, kind in SCALAR_INDEXES.get(name, {}).items():
        if f"{column}_idx" not in existing:
            wanted.append((column, kind()))
    for column, config in wanted:
        try:
            table.create_index(column, config=config, replace=False)
        except Exception as exc:  # a concurrent process built it first
            log.debug("index %s.%s not built here: %s", name, column, exc)


# -- after writes --------------------------------------------------------------------

#: a process looks at a table again after at most this many of its own writes, even when its
#: estimate says nothing is due (writes of other processes are not in the estimate)
RECHECK_WRITES = 8


@dataclass
class _Seen:
    """What this process's last look at a table found, and what it has written since."""
    rows: int
    fragments: int
    stale: int
    index: VectorIndex | None
    writes: int = 0
    written: int = 0


_seen: dict[tuple[str, str], _Seen] = {}
_seen_guard = threading.Lock()


def after_write(store, name: str, written: int | None = None) -> list[str]:
    """Called after each write to ``name``: keep its indexes fit for its size. The query tuning
    is looked up again only when the upkeep did something (a write alone leaves the vector index
    as it is; one built by another process is seen within ``TUNING_TTL``).

    ``written``: how many rows the write added or replaced, when known. Looking at a table's
    indexes and fragments costs ~1.5 ms a write, two thirds of a one-row append; so while what
    the last look found plus what this process wrote since leaves every threshold unreached,
    the look is skipped (at most ``RECHECK_WRITES - 1`` times in a row). A write of unknown size
    (an update or delete by filter) always looks."""
    if written is not None and _nothing_due(store, name, written):
        return []
    done: list[str] = []
    try:
        done = maintain(store, name)
    except Exception as exc:  # index upkeep must never fail a write that committed
        log.warning("index upkeep of %s skipped: %s", name, exc)
        store.index_cache.pop(name, None)
    if done:
        store.index_cache.pop(name, None)
    return done


def _nothing_due(store, name: str, written: int) -> bool:
    """Whether, by what this process last saw of ``name`` and has written since, no upkeep is due."""
    policy = store.index_policy
    with _seen_guard:
        seen = _seen.get((store.uri, name))
        if seen is None:
            return False
        seen.writes += 1
        seen.written += written
        if seen.writes >= RECHECK_WRITES:
            return False
        rows, fragments, stale = seen.rows + seen.written, seen.fragments + seen.writes, seen.stale + seen.written
    if stale >= policy.refresh_rows:
        return False
    if name not in policy.compact_skip and fragments >= policy.compact_fragments and rows <= policy.compact_max_rows:
        return False
    if has_vector(name):
        index = seen.index
        if index is None and rows >= policy.vector_min_rows:
            return False
        if index is not None and policy.partitions(rows) >= policy.regrow_factor * index.partitions:
            return False
    return True


def maintain(store, name: str, policy: Policy | None = None, force: bool = False) -> list[str]:
    """Build, rebuild or refresh ``name``'s indexes as the policy says; returns what was done.

    ``force`` optimizes even when few rows are unindexed (compaction, old-version pruning).
    When another thread or process is already indexing the table, this one does nothing."""
    policy = policy or store.index_policy
    lock = _lock(store, name)
    if not lock.acquire(blocking=False):
        return []
    try:  # nor when another process is: two compactions at once, one of them fails (wasted work)
        with store.try_lock(f"{name}.upkeep") as mine:
            if not mine:
                return []
            with store.writing_files(name):
                return _maintain(store, name, policy, force)
    finally:
        lock.release()


def _maintain(store, name: str, policy: Policy, force: bool) -> list[str]:
    table = store.table(name)
    indices = list(table.list_indices())
    stats = table.stats()
    rows, fragments = int(stats["num_rows"]), int(stats["fragment_stats"]["num_fragments"])
    done: list[str] = []
    stale = max((i.num_unindexed_rows or 0 for i in indices), default=0)
    with _seen_guard:  # what was seen; after any upkeep, the next write looks again
        _seen.pop((store.uri, name), None)
    refresh = force or stale >= policy.refresh_rows
    compact = fragments >= policy.compact_fragments and rows <= policy.compact_max_rows
    if refresh or compact and name not in policy.compact_skip:
        start = time.perf_counter()  # first, so a new vector index sees compacted data
        try:
            if refresh:
                table.optimize()
            else:  # compaction alone keeps every version: pruning is retention's
                table.optimize(cleanup_older_than=KEEP_ALL)
        except Exception as exc:  # e.g. another process optimized first
            log.info("optimize %s skipped: %s", name, exc)
        else:
            seconds = time.perf_counter() - start
            log.info("optimized %s (%d unindexed rows, %d fragments) in %.1f s", name, stale, fragments, seconds)
            done.append(f"optimized ({stale} unindexed rows, {fragments} fragments, {seconds:.1f} s)")
    if has_vector(name):
        current, extra = _vector_indexes(indices)
        for index in extra:  # left by a rebuild that stopped before dropping its predecessor
            _drop(table, index.name)
        due = current is None and rows >= policy.vector_min_rows
        grown = current is not None and policy.partitions(rows) >= policy.regrow_factor * current.partitions
        if due or grown:
            done.append(_build(store, table, name, rows, policy))
            if grown and current is not None and _vector_indexes(table.list_indices())[0] != current:
                _drop(table, current.name)
    if not done:
        with _seen_guard:
            _seen[(store.uri, name)] = _Seen(rows, fragments, stale, _vector_indexes(indices)[0])
    return done


def ensure_vector_index(store, name: str, min_rows: int | None = None) -> bool:
    """Build ``name``'s vector index if it has none and holds at least ``min_rows`` rows
    (the store policy's threshold by default). Returns whether the table now has one."""
    policy = store.index_policy
    min_rows = policy.vector_min_rows if min_rows is None else min_rows
    table = store.table(name)
    with _lock(store, name), store.writing_files(name):
        if _vector_indexes(table.list_indices())[0] is None:
            rows = table.count_rows()
            if rows < min_rows:
                return False
            _build(store, table, name, rows, policy)
    store.index_cache.pop(name, None)
    return _vector_indexes(table.list_indices())[0] is not None


def _build(store, table, name: str, rows: int, policy: Policy) -> str:
    config, index_name = vector_config(rows, policy)
    start = time.perf_counter()
    try:
        table.create_index("vector", config=config, name=index_name, replace=True)
    except Exception as exc:  # e.g. another process built the same index first
        log.warning("vector index of %s not built: %s", name, exc)
        return "vector index not built"
    seconds = time.perf_counter() - start
    log.info("built %s on %s (%d rows) in %.1f s", index_name, name, rows, seconds)
    return f"built {index_name} ({rows} rows, {seconds:.1f} s)"


# -- query time ----------------------------------------------------------------------

@dataclass(frozen=True)
class Tuning:
    nprobes: int
    refine_factor: int


_tuning_caches: dict[tuple, dict[str, tuple[float, Tuning | None]]] = {}


def tuning_cache(store_key: tuple) -> dict[str, tuple[float, Tuning | None]]:
    """The tuning looked up per table of one store, shared by the process's stores on it (a
    second Library starts warm)."""
    with _locks_guard:
        return _tuning_caches.setdefault(store_key, {})


def tuning(store, name: str) -> Tuning | None:
    """How a vector search on ``name`` should use its index, or None when it has none.

    Looked up at most every ``TUNING_TTL`` seconds, and again after this process writes the
    table: no per-query round trip. A stale answer is harmless — tuning options are ignored by
    an exact scan, and an index built meanwhile by another process is merely searched with
    LanceDB's default options until the next look-up."""
    now = time.monotonic()
    hit = store.index_cache.get(name)
    if hit is not None and now - hit[0] < TUNING_TTL:
        return hit[1]
    index = _vector_indexes(store.table(name).list_indices())[0]
    result = None
    if index is not None:
        policy = store.index_policy
        result = Tuning(nprobes=policy.nprobes(index.partitions), refine_factor=policy.refine_factor)
    store.index_cache[name] = (now, result)
    return result


def tune(query, store, name: str, refine: bool = True, widen: bool = False):
    """Apply the vector-index tuning of ``name`` to a vector query builder: probe ``nprobes``
    partitions (as many as it takes, with ``widen``), and re-rank with exact vectors when
    ``refine`` (when distances matter, not only the order)."""
    t = tuning(store, name)
    if t is None:
        return query
    query = query.maximum_nprobes(0).minimum_nprobes(t.nprobes) if widen else query.nprobes(t.nprobes)
    return query.refine_factor(t.refine_factor) if refine else query


# -- helpers -------------------------------------------------------------------------

def _vector_indexes(indices) -> tuple[VectorIndex | None, list[VectorIndex]]:
    """The vector index searches should use (the finest, i.e. newest by our naming) and any others."""
    found = []
    for index in indices:
        if list(index.columns) == ["vector"]:
            match = VECTOR_INDEX.match(index.name)
            partitions = int(match.group(2)) if match else 256  # built elsewhere: assume many
            found.append(VectorIndex(index.name, partitions))
    if not found:
        return None, []
    found.sort(key=lambda i: i.partitions, reverse=True)
    return found[0], found[1:]


def vector_index(store, name: str) -> VectorIndex | None:
    """The vector index of table ``name``, or None."""
    return _vector_indexes(store.table(name).list_indices())[0]


def _drop(table, index_name: str) -> None:
    try:
        if index_name in {i.name for i in table.list_indices()}:
            table.drop_index(index_name)
    except Exception as exc:
        log.debug("drop %s skipped: %s", index_name, exc)


_locks: dict[tuple[str, str], threading.RLock] = {}
_locks_guard = threading.Lock()


def _lock(store, name: str) -> threading.RLock:
    """One index job per table at a time in this process."""
    with _locks_guard:
        return _locks.setdefault((store.uri, name), threading.RLock())
