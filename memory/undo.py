"""The undo log: what a restore needs to put a book back, kept without old table versions.

Restoring from table versions meant keeping every version of the restore window, and with them
every file a compaction had replaced: a 400-tutorial book took 32x its live size on disk. So
before every write to a book's table the store appends one row to the ``undo`` table
(:func:`log`): the ids the write may touch and the *before-image* of those that exist then
(Arrow IPC: values come back with their types, vectors included). Table versions then need to
outlive only the readers pinned to them (memory/retention.py), and disk follows the live data
plus the writes of the restore window.

* **Written ahead**: the row is committed before the write it describes, so a writer killed at
  any point leaves no write unlogged; a logged write that never committed is harmless, since
  its image is what the rows were anyway. A write counts as made when it was logged (the
  milliseconds until its commit are not told apart).
* **Reading back** (:func:`rows_at`): for each id, the oldest row logged after a moment holds
  that id as it was at the moment — present, with its columns, or absent (its row was new).
  Two processes changing one row at the same moment may log images in the other order; the
  id-named writes that must not race hold the store's lock.
* **The horizon** (:func:`horizon`): the log is complete from the moment it began (the first
  write to a store with this code) or from the last prune (:func:`prune`, which retention's
  upkeep runs with its window); a restore to an earlier moment is refused.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Iterable

import pyarrow as pa

from tutorialbook.errors import TutorialbookError
from tutorialbook.memory import lance
from tutorialbook.memory.rows import image, iso
from tutorialbook.memory.schemas import SCHEMAS
from tutorialbook.memory.where import eq, in_list, quote

UNDO = "undo"
HORIZON = "horizon"  # the id of the row whose ``at`` is the moment the log is complete from
#: tables without undo rows: the append-only history and the log itself
UNLOGGED = frozenset({"events", UNDO})


def logged(name: str) -> bool:
    """Whether writes to ``name`` are logged (the tables whose rows belong to a book)."""
    return name not in UNLOGGED and "book" in SCHEMAS[name].names


def log(store, name: str, ids: Iterable[str] | None, where: str | None, books: Iterable[str],
        fresh: bool = False) -> None:
    """Append the undo row of a write to ``name`` about to touch the rows ``ids`` and those
    matching ``where``; ``books``: the books of the rows it writes. ``fresh``: the ids are new
    (an insert), so there is no image to read."""
    ids = list(ids or ())
    before = None
    if not fresh:
        clauses = [c for c in (in_list("id", ids) if ids else None, where) if c]
        if clauses:
            query = lance.require_async_table(store.table(name)).query().where(
                " OR ".join(f"({c})" for c in clauses))
            before = lance.run(lance.collect(query))
    touched = list(dict.fromkeys(ids + (before["id"].to_pylist() if before is not None else [])))
    if not touched:
        return  # the write matches no row and writes none: nothing to undo
    books = set(books) | (set(before["book"].to_pylist()) if before is not None and len(before) else set())
    _ensure_horizon(store)
    store.insert(UNDO, [{
        "id": f"u_{time.time_ns():x}_{uuid.uuid4().hex[:8]}", "of_table": name, "at": time.time(),
        "books": json.dumps(sorted(b for b in books if b)), "ids": json.dumps(touched),
        "before": _ipc(before) if before is not None and len(before) else b"",
    }])


#: stores (``Store.key``) whose horizon row this process has seen written
_started: set[tuple] = set()


def _ensure_horizon(store) -> None:
    """The horizon row, written once per store (when its log begins)."""
    if store.key in _started:
        return
    store.insert_if_absent(UNDO, [{"id": HORIZON, "of_table": "", "at": time.time(), "books": "[]",
                                   "ids": "[]", "before": b""}])
    _started.add(store.key)


def horizon(store) -> float | None:
    """The moment from which the log is complete (None: nothing logged yet)."""
    rows = store.rows(UNDO, eq("id", HORIZON), ["at"])
    return max(r["at"] for r in rows) if rows else None


def rows_at(store, name: str, book: str, moment: float, now: list[dict]) -> tuple[list[dict], int]:
    """The book's rows of ``name`` as they were at ``moment``, from its rows ``now`` and the
    writes logged since; and how many logged writes that undid."""
    found = _since(store, name, book, moment)
    state: dict[str, dict | None] = {}
    for row in found:  # oldest first: the first image of an id is the id at the moment
        images = {r["id"]: r for r in _rows(row["before"])}
        for row_id in json.loads(row["ids"]):
            if row_id not in state:
                state[row_id] = images.get(row_id)
    kept = [image(r) for r in now if r["id"] not in state]
    back = [image(r) for r in state.values() if r is not None and r.get("book") == book]
    return kept + back, len(found)


def _since(store, name: str, book: str, moment: float) -> list[dict]:
    where = (f"of_table = {quote(name)} AND at > {float(moment)!r} AND "
             f"books LIKE {quote('%' + json.dumps(book) + '%')}")
    return sorted(store.rows(UNDO, where), key=lambda r: (r["at"], r["id"]))


def check_reach(store, moment: float) -> None:
    """Refuse a moment the log does not reach."""
    begins = horizon(store)
    if begins is None or moment < begins:
        raise TutorialbookError("at", f"{iso(moment)} is before this store's undo log begins"
                                      + (f" ({iso(begins)})" if begins is not None else " (nothing written yet)")
                                      + "; restore reaches back to then")


def images_of(store, name: str, row_id: str) -> list[dict]:
    """Every before-image of one row the log holds, oldest first."""
    where = f"of_table = {quote(name)} AND ids LIKE {quote('%' + json.dumps(row_id) + '%')}"
    out = []
    for row in sorted(store.rows(UNDO, where), key=lambda r: (r["at"], r["id"])):
        out += [r for r in _rows(row["before"]) if r["id"] == row_id]
    return out


def prune(store, cutoff: float) -> int:
    """Drop the rows logged before ``cutoff``, moving the horizon to it first (so a restore never
    reads a log with a hole); returns how many rows were dropped."""
    begins = horizon(store)
    old = f"at < {float(cutoff)!r} AND id != {quote(HORIZON)}"
    if begins is None or cutoff <= begins or not store.count(UNDO, old):
        return 0
    store.update(UNDO, eq("id", HORIZON), {"at": float(cutoff)})
    result = store.delete(UNDO, old)
    return int(getattr(result, "num_deleted_rows", 0) or 0)


def _ipc(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def _rows(blob: bytes | None) -> list[dict]:
    if not blob:
        return []
    return pa.ipc.open_stream(pa.py_buffer(blob)).read_all().to_pylist()
