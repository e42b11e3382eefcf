"""The LanceDB store: opening tables, reading rows, and writes that survive other writers.

Every write is one LanceDB commit (a new version). Many processes may share one store:
reads see other processes' commits (strong read consistency) and a write that loses a
commit race is retried.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import random
import threading
import time
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any, Iterable, Iterator

import lancedb
from lancedb.index import FTS, BTree

from tutorialbook.errors import TutorialbookError
from tutorialbook.memory.schemas import FTS_TABLES, SCHEMAS, with_dim

log = logging.getLogger(__name__)

WRITE_ATTEMPTS = 8


def quote(value: str) -> str:
    """A SQL string literal for a LanceDB filter."""
    return "'" + str(value).replace("'", "''") + "'"


def in_list(column: str, values: Iterable[str]) -> str:
    values = list(values)
    if not values:
        return "false"
    return f"{column} IN ({', '.join(quote(v) for v in values)})"


def default_store_path() -> str:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share")
    return os.path.join(base, "tutorialbook", "store")


class Store:
    """One LanceDB database holding every book; tables are created on first use."""

    def __init__(self, uri: str, storage_options: dict[str, str] | None = None, dim: int = 384):
        self.uri = uri
        self.dim = dim
        self._local: Path | None = None
        self._thread_lock = threading.Lock()  # flock is per process, not per thread
        if "://" not in uri:
            path = Path(uri).expanduser()
            try:
                path.mkdir(parents=True, exist_ok=True)
                probe = path / f".write-probe-{os.getpid()}"
                probe.write_bytes(b"")
                probe.unlink()
            except OSError as exc:
                raise TutorialbookError("store", f"{path} is not writable ({exc.strerror})") from exc
            uri = str(path)
            self._local = path
        self._db = lancedb.connect(
            uri, read_consistency_interval=timedelta(0), storage_options=storage_options
        )
        self._tables: dict[str, Any] = {}

    def table(self, name: str):
        if name not in self._tables:
            self._tables[name] = self._open_or_create(name)
        return self._tables[name]

    def _open_or_create(self, name: str):
        schema = with_dim(SCHEMAS[name], self.dim)
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
        existing = {i.name for i in table.list_indices()}
        wanted = []
        if name in FTS_TABLES and "text_idx" not in existing:
            wanted.append(("text", FTS()))
        if "id_idx" not in existing:
            wanted.append(("id", BTree()))
        for column, config in wanted:
            try:
                table.create_index(column, config=config)
            except Exception as exc:  # a concurrent process built it first
                log.debug("index %s.%s not built here: %s", name, column, exc)

    # -- reads -----------------------------------------------------------------
    def rows(self, name: str, where: str | None = None, columns: list[str] | None = None,
             limit: int | None = None) -> list[dict]:
        query = self.table(name).search()
        if where:
            query = query.where(where)
        if columns:
            query = query.select(columns)
        query = query.limit(limit) if limit else query.limit(None)
        return query.to_list()

    def get(self, name: str, row_id: str) -> dict | None:
        found = self.rows(name, f"id = {quote(row_id)}", limit=1)
        return found[0] if found else None

    def count(self, name: str, where: str | None = None) -> int:
        return self.table(name).count_rows(where)

    def version(self, name: str) -> int:
        return self.table(name).version

    # -- writes ----------------------------------------------------------------
    def upsert(self, name: str, rows: list[dict]) -> None:
        """Insert or replace rows by id, as one commit."""
        if not rows:
            return
        rows = [_complete(name, r) for r in rows]
        self._retry(
            name,
            lambda t: t.merge_insert("id").when_matched_update_all()
            .when_not_matched_insert_all().execute(rows),
        )

    def insert(self, name: str, rows: list[dict]) -> None:
        """Append new rows (ids must be new), as one commit."""
        if rows:
            rows = [_complete(name, r) for r in rows]
            self._retry(name, lambda t: t.add(rows))

    @contextmanager
    def lock(self, name: str) -> Iterator[None]:
        """Mutual exclusion across processes for a check-then-write on a local store.

        LanceDB detects conflicting *changes* to rows, but two concurrent inserts of one
        new id both succeed; writes that must not duplicate an id hold this lock. Object
        stores have no such lock: there the race stays possible (see README)."""
        if self._local is None:
            yield
            return
        lock_dir = self._local / ".locks"
        lock_dir.mkdir(exist_ok=True)
        with open(lock_dir / name, "a+") as handle, self._thread_lock:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def insert_if_absent(self, name: str, rows: list[dict]) -> int:
        """Insert the rows whose id is new; returns how many were inserted."""
        with self.lock(name):
            present = {r["id"] for r in self.rows(name, in_list("id", [r["id"] for r in rows]), ["id"])}
            fresh = [r for r in rows if r["id"] not in present]
            self.insert(name, fresh)
        return len(fresh)

    def update(self, name: str, where: str, values: dict[str, Any]) -> None:
        self._retry(name, lambda t: t.update(where=where, values=values))

    def update_sql(self, name: str, where: str, values_sql: dict[str, str]) -> None:
        """Update with SQL expressions (``helpful + 1``), so a retry re-reads the row."""
        self._retry(name, lambda t: t.update(where=where, values_sql=values_sql))

    def delete(self, name: str, where: str) -> None:
        self._retry(name, lambda t: t.delete(where))

    def _retry(self, name: str, write) -> None:
        table = self.table(name)
        for attempt in range(WRITE_ATTEMPTS):
            try:
                write(table)
                return
            except (OSError, RuntimeError, ValueError) as exc:
                if attempt == WRITE_ATTEMPTS - 1 or not _is_conflict(exc):
                    raise
                log.info("write to %s conflicted (%s); retry %d", name, exc, attempt + 1)
                _backoff(attempt)

    def optimize(self) -> None:
        """Fold new rows into the indexes; cheap to call after a batch of writes."""
        for name in SCHEMAS:
            try:
                self.table(name).optimize()
            except Exception as exc:  # concurrent optimizers: the loser just skips
                log.debug("optimize %s skipped: %s", name, exc)


def _complete(name: str, row: dict) -> dict:
    """Fill missing columns with typed empties so partial dicts match the schema."""
    out = {}
    for field in SCHEMAS[name]:
        value = row.get(field.name)
        if value is None and field.name != "vector":
            value = _EMPTY.get(str(field.type), None)
        if field.name == "vector" and value is not None:
            value = [float(x) for x in value]
        out[field.name] = value
    return out


_EMPTY = {"string": "", "int64": 0, "double": 0.0, "bool": None}


def _is_conflict(exc: Exception) -> bool:
    text = str(exc).lower()
    return any(w in text for w in ("conflict", "commit", "retry", "concurrent", "version"))


def _backoff(attempt: int) -> None:
    time.sleep(min(1.0, 0.02 * 2**attempt) * (0.5 + random.random()))


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
