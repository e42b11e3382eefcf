"""The LanceDB store: opening tables, reading rows, and writes that survive other writers.

Every write is one LanceDB commit (a new version). Many processes may share one store:
reads see other processes' commits (strong read consistency) and a write that loses a
commit race is retried.
"""

from __future__ import annotations

import fcntl
import logging
import os
import random
import threading
import time
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import lancedb
import pyarrow as pa

from tutorialbook.errors import Cancelled, TutorialbookError
from tutorialbook.memory import changelog, faults, indexing, lance, terms, undo
from tutorialbook.memory.schemas import SCHEMAS, with_dim
from tutorialbook.memory.where import by_id, in_list, named_ids

log = logging.getLogger(__name__)

WRITE_ATTEMPTS = 8


class Store:
    """One LanceDB database holding every book; tables are created on first use."""

    def __init__(self, uri: str, storage_options: dict[str, str] | None = None, dim: int = 384,
                 cache_bytes: tuple[int, int] = (lance.INDEX_CACHE_BYTES, lance.METADATA_CACHE_BYTES)):
        """``cache_bytes``: the bounds of LanceDB's index and metadata caches (shared by the
        process's stores with the same bounds)."""
        self.uri = uri
        self.dim = dim
        self._local: Path | None = None
        created = False
        # flock is per open file, not per thread: a name's thread lock is taken first, and only
        # its outermost holder takes the file lock (so a holder may take the same name again)
        self._name_locks: dict[str, threading.RLock] = {}
        self._name_depth: dict[str, int] = {}
        self._locks_guard = threading.Lock()
        # per thread: the check-then-write locks it holds, and the index upkeep its writes left
        # for when it holds none (a compaction under a lock made every writer of the table wait)
        self._held_here = threading.local()
        if "://" not in uri:
            path = Path(uri).expanduser()
            if not path.is_dir():  # a new store: the folder is the only thing opening writes
                try:
                    path.mkdir(parents=True, exist_ok=True)
                    created = True
                except OSError as exc:
                    raise TutorialbookError(
                        "store", f"{path} is not writable: it cannot be created ({exc.strerror})"
                    ) from exc
            elif not os.access(path, os.R_OK | os.X_OK):
                raise TutorialbookError("store", f"{path} is not readable")
            uri = str(path)
            self._local = path
        self._db = lancedb.connect(
            uri, read_consistency_interval=timedelta(0), storage_options=storage_options,
            session=lance.session(*cache_bytes),
        )
        self._tables: dict[str, Any] = {}
        self._indexes_checked: set[str] = set()  # tables whose indexes this store has checked
        self._made = changelog.store_key(uri, created)
        self.index_policy = indexing.Policy()  # when tables get (and refresh) their indexes
        # per table: (when, query tuning), shared by the stores of the process on the same store
        self.index_cache: dict[str, tuple[float, Any]] = indexing.tuning_cache(self.key)

    @property
    def key(self) -> tuple:
        """What names this store in the process's caches: its URI, how many times this process
        made a store there, and for a local store its folder's inode and change time. A folder
        put in its place (a backup copied back) is another store, whose table versions start
        over: caches keyed by version would take its rows for the old ones'. (The change time
        also moves when a table is created: the caches then start cold once.)"""
        if self._local is None:
            return self._made
        try:
            folder = os.stat(self._local)
        except OSError:  # removed: nothing cached can be of what comes next
            return (*self._made, None)
        return (*self._made, folder.st_ino, folder.st_ctime_ns)

    def table(self, name: str):
        if name not in self._tables:
            self._tables[name] = self._open_or_create(name)
        return self._tables[name]

    def _open_or_create(self, name: str):
        """An existing table is only opened (opening a store never writes: a full disk or a
        read-only mount still reads; its indexes are checked at its first write here); a
        missing one is created with its indexes."""
        try:
            return self._db.open_table(name)
        except Exception as exc:  # noqa: BLE001 - not there yet (or unreadable: create says which)
            log.debug("open %s: %s; creating it", name, exc)
        schema = with_dim(SCHEMAS[name], self.dim)
        with self.writing_files(name):
            for attempt in range(WRITE_ATTEMPTS):
                try:
                    table = self._db.create_table(name, schema=schema, exist_ok=True)
                    break
                except Exception as exc:  # another process created it at the same moment
                    if attempt == WRITE_ATTEMPTS - 1:
                        raise
                    log.debug("create %s raced (%s); retrying", name, exc)
                    _backoff(attempt)
            self._ensure_indexes(name, table)
        return table

    def _ensure_indexes(self, name: str, table) -> None:
        """The table's missing base indexes built, once per store and table (a missing index
        is slower, never wrong: a failure is a warning)."""
        if name in self._indexes_checked:
            return
        try:
            indexing.ensure_base_indexes(name, table)
        except Exception as exc:  # noqa: BLE001
            log.warning("indexes of %s not checked: %s", name, exc)
        else:
            self._indexes_checked.add(name)

    # -- reads -----------------------------------------------------------------
    def rows(self, name: str, where: str | None = None, columns: list[str] | None = None,
             limit: int | None = None) -> list[dict]:
        with self._reading(name):
            return self._arrow(name, where, columns, limit).to_pylist()

    def columns(self, name: str, where: str | None, columns: list[str]) -> pa.Table:
        """The matching rows' ``columns`` as one Arrow table, in the table's order: for reads
        of thousands of rows that are filtered or summed in bulk, not walked as dicts."""
        with self._reading(name):
            return self._arrow(name, where, columns, None)

    def _arrow(self, name: str, where: str | None, columns: list[str] | None, limit: int | None) -> pa.Table:
        table = self.table(name)
        inner = lance.async_table(table)
        if inner is not None:
            # one trip to LanceDB's event loop instead of ~5 (schema, plan, each batch): a
            # keyed read (browsing a node) takes ~1.5 ms instead of ~3
            return lance.run(lance.scan_arrow(inner, where, columns, limit))
        query = table.search()
        if where:
            query = query.where(where)
        if columns:
            query = query.select(columns)
        query = query.limit(limit) if limit else query.limit(None)
        return query.to_arrow()

    @contextmanager
    def _reading(self, name: str) -> Iterator[None]:
        """A read of ``name``: an error that says its files are damaged becomes that fault."""
        try:
            yield
        except Exception as exc:
            fault = faults.damaged(exc, name)
            if fault is None:
                raise
            raise fault from exc

    def get(self, name: str, row_id: str) -> dict | None:
        found = self.rows(name, by_id(row_id), limit=1)
        return found[0] if found else None

    def count(self, name: str, where: str | None = None) -> int:
        with self._reading(name):
            return self.table(name).count_rows(where)

    def version(self, name: str) -> int:
        return self.table(name).version

    def versions(self, names: Iterable[str]) -> tuple[int, ...]:
        """The current versions of several tables, looked up together (one trip to LanceDB's
        event loop instead of one per table)."""
        return lance.versions([self.table(n) for n in names])

    def version_history(self, name: str) -> list[tuple[int, float]]:
        """The table's retained versions as (version, commit time in epoch seconds), oldest first."""
        out = [(v["version"], v["timestamp"].timestamp()) for v in self.table(name).list_versions()]
        return sorted(out)

    def open_at(self, name: str, version: int):
        """A separate handle on the table pinned to ``version`` (the shared handle keeps
        following the latest version)."""
        return self._db.open_table(name, version=version)

    def rows_at(self, name: str, version: int, where: str | None = None) -> list[dict]:
        """Rows as they were at a past version."""
        query = self.open_at(name, version).search()
        if where:
            query = query.where(where)
        return query.limit(None).to_list()

    def replace(self, name: str, where: str, rows: list[dict]) -> Any:
        """Make the rows matching ``where`` exactly ``rows`` (insert, update, delete the
        rest), as one commit."""
        if not rows:
            return self.delete(name, where)
        rows = [_complete(name, r) for r in rows]
        return self._retry(
            name,
            lambda t: t.merge_insert("id").when_matched_update_all().when_not_matched_insert_all()
            .when_not_matched_by_source_delete(where).execute(rows),
            ids=[r["id"] for r in rows], where=where, rows=rows,
        )

    # -- writes ----------------------------------------------------------------
    def upsert(self, name: str, rows: list[dict]) -> Any:
        """Insert or replace rows by id, as one commit."""
        if not rows:
            return None
        rows = [_complete(name, r) for r in rows]
        return self._retry(
            name,
            lambda t: t.merge_insert("id").when_matched_update_all()
            .when_not_matched_insert_all().execute(rows),
            ids=[r["id"] for r in rows], rows=rows,
        )

    def insert(self, name: str, rows: list[dict]) -> Any:
        """Append new rows (ids must be new), as one commit."""
        if rows:
            rows = [_complete(name, r) for r in rows]
            return self._retry(name, lambda t: t.add(rows), ids=[r["id"] for r in rows], rows=rows, fresh=True)

    @contextmanager
    def lock(self, name: str, cancel: Callable[[], bool] | None = None) -> Iterator[None]:
        """Mutual exclusion across processes (and threads) for a check-then-write on a local store.

        LanceDB detects conflicting *changes* to rows, but two concurrent inserts of one
        new id both succeed; writes that must not duplicate an id hold this lock. While
        waiting, ``cancel`` is polled: when it returns True, :class:`Cancelled` is raised.
        Object stores have no such lock: there the race stays possible (see README)."""
        with self._held(name, wait=True, cancel=cancel):
            yield

    @contextmanager
    def try_lock(self, name: str) -> Iterator[bool]:
        """The lock if nobody holds it now (yields True), else yields False at once."""
        with self._held(name, wait=False) as got:
            yield got

    @contextmanager
    def _held(self, name: str, wait: bool, cancel: Callable[[], bool] | None = None) -> Iterator[bool]:
        if self._local is None:
            yield True
            return
        with self._locks_guard:
            thread_lock = self._name_locks.setdefault(name, threading.RLock())
        while not thread_lock.acquire(timeout=0.1 if wait else 0):
            if not wait:
                yield False
                return
            _check(cancel, name)
        try:
            if self._name_depth.get(name, 0):  # this thread holds it already
                self._name_depth[name] += 1
                try:
                    yield True
                finally:
                    self._name_depth[name] -= 1
                return
            with open(self._lock_file(name), "a+") as handle:
                if wait and cancel is None:  # a blocked waiter is woken when the lock is free: a
                    fcntl.flock(handle, fcntl.LOCK_EX)  # poller every 50 ms lost it for seconds
                while True:
                    try:
                        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        break
                    except BlockingIOError:
                        if not wait:
                            yield False
                            return
                        _check(cancel, name)
                        time.sleep(0.05)
                self._name_depth[name] = 1
                self._held_here.count = getattr(self._held_here, "count", 0) + 1
                try:
                    yield True
                finally:
                    self._name_depth[name] = 0
                    fcntl.flock(handle, fcntl.LOCK_UN)
                    self._held_here.count -= 1
        finally:
            thread_lock.release()
            if not getattr(self._held_here, "count", 0):
                self._upkeep_left()

    @contextmanager
    def writing_files(self, name: str) -> Iterator[None]:
        """A shared hold on the table's files for an operation that may write some (a commit,
        an index build, a compaction): while any is held, :meth:`sweep_hold` is refused, so
        the files of a commit still under way are never taken for leftovers. Local stores only."""
        if self._local is None:
            yield
            return
        with open(self._lock_file(f"{name}.files"), "a+") as handle:
            fcntl.flock(handle, fcntl.LOCK_SH)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    @contextmanager
    def sweep_hold(self, name: str) -> Iterator[bool]:
        """The table's files to oneself, if no operation holds them now (yields True; False at
        once otherwise, and always on an object store, where no lock reaches other machines):
        the one moment files no version references can be deleted whatever their age."""
        if self._local is None:
            yield False
            return
        with open(self._lock_file(f"{name}.files"), "a+") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _lock_file(self, name: str) -> Path:
        assert self._local is not None
        lock_dir = self._local / ".locks"
        lock_dir.mkdir(exist_ok=True)
        return lock_dir / name

    def insert_if_absent(self, name: str, rows: list[dict]) -> int:
        """Insert the rows whose id is new; returns how many were inserted."""
        with self.lock(name):
            present = {r["id"] for r in self.rows(name, in_list("id", [r["id"] for r in rows]), ["id"])}
            fresh = [r for r in rows if r["id"] not in present]
            self.insert(name, fresh)
        return len(fresh)

    def update(self, name: str, where: str, values: dict[str, Any]) -> Any:
        """Set columns of the matching rows; the result tells ``rows_updated``."""
        return self._retry(name, lambda t: t.update(where=where, values=values), where=where)

    def update_sql(self, name: str, where: str, values_sql: dict[str, str]) -> Any:
        """Update with SQL expressions (``helpful + 1``), so a retry re-reads the row."""
        return self._retry(name, lambda t: t.update(where=where, values_sql=values_sql), where=where)

    def delete(self, name: str, where: str) -> Any:
        return self._retry(name, lambda t: t.delete(where), where=where)

    def _retry(self, name: str, write, ids: list[str] | None = None, where: str | None = None,
               rows: list[dict] | None = None, fresh: bool = False) -> Any:
        """Run one write (one commit) of the rows ``ids`` (``rows``, when it writes them; ``fresh``:
        new ids) and/or those matching ``where``, its undo row logged first (memory/undo.py); a
        write that lost a commit race is tried again. Returns LanceDB's result of the write
        (its ``version``, counts)."""
        table = self.table(name)
        if undo.logged(name):
            undo.log(self, name, ids, where, (r.get("book") or "" for r in rows or ()), fresh=fresh)
        with self.writing_files(name):
            result = self._write(name, table, write)
            named = named_ids(where) if ids is None else None
            if named is not None:  # "id = 'x'": the rows are known without reading the filter's matches
                ids, where = named, None
            changelog.record(self.key, name, getattr(result, "version", None), ids, where)
        # fold new rows into indexes; a vector index when due (rows written: known for ids alone)
        self._upkeep(name, len(ids) if ids is not None and where is None else None)
        return result

    def _upkeep(self, name: str, written: int | None) -> None:
        """Index upkeep after a write to ``name`` (``indexing.after_write``): now, or, while this
        thread holds a check-then-write lock, once it holds none."""
        if getattr(self._held_here, "count", 0):
            self._held_here.left = [*(getattr(self._held_here, "left", None) or []), (name, written)]
        else:
            indexing.after_write(self, name, written)

    def _upkeep_left(self) -> None:
        left, self._held_here.left = getattr(self._held_here, "left", None) or [], None
        for name, written in left:
            indexing.after_write(self, name, written)

    def _write(self, name: str, table, write) -> Any:
        self._ensure_indexes(name, table)
        result = None
        for attempt in range(WRITE_ATTEMPTS):
            try:
                result = write(table)
                break
            except (OSError, RuntimeError, ValueError) as exc:
                if faults.is_disk_full(exc):
                    raise faults.disk_full(self.uri, name) from exc
                if attempt == WRITE_ATTEMPTS - 1 or not _is_conflict(exc):
                    raise
                log.info("write to %s conflicted (%s); retry %d", name, exc, attempt + 1)
                _backoff(attempt)
        return result

    def optimize(self) -> None:
        """Compact every table and fold new rows into its indexes (building a vector index
        where a table has grown past the policy's threshold)."""
        for name in SCHEMAS:
            indexing.maintain(self, name, force=True)


def _complete(name: str, row: dict) -> dict:
    """Fill missing columns with typed empties so partial dicts match the schema."""
    out = {}
    for field in SCHEMAS[name]:
        value = row.get(field.name)
        if value is None and field.name != "vector":
            value = _EMPTY.get(str(field.type), None)
        if field.name == "vector" and value is not None:
            value = [float(x) for x in value]
        if field.name == "text" and name in terms.ALIASED and value:
            value = terms.searchable(value)  # code-like terms findable as written
        out[field.name] = value
    return out


_EMPTY = {"string": "", "int64": 0, "double": 0.0, "bool": None}


#: What Lance says when a commit lost a race it could not rebase past (lance 13, as shipped in
#: lancedb 0.40): "Retryable commit conflict for version N", "Commit conflict for version N",
#: "... transaction was preempted by concurrent transaction ...", "Too many concurrent writers.
#: Attempted 10 retries." (RuntimeError). Other errors (a checked-out version, bad data) are
#: not retried.
CONFLICT_MARKERS = ("commit conflict", "conflict for version", "preempted", "too many concurrent writers",
                    "retryable", "version conflict")


def _is_conflict(exc: Exception) -> bool:
    text = str(exc).lower()
    return any(marker in text for marker in CONFLICT_MARKERS)


def _check(cancel: Callable[[], bool] | None, name: str) -> None:
    if cancel is not None and cancel():
        raise Cancelled(f"cancelled while waiting for the {name!r} lock; nothing was written")


def _backoff(attempt: int) -> None:
    time.sleep(min(1.0, 0.02 * 2**attempt) * (0.5 + random.random()))

