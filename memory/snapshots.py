"""A book's rows of a table kept in memory, one version at a time, and moved to a newer
version by reading only the rows that changed.

Reads of a big book (retrieval, the TOC tree) work on a ``BookRows``: the table pinned to one
version and the book's columns read from it. Re-reading 100,000 rows after every write cost
~0.6 s; instead, when the table's version moves, :meth:`BookRows.advance` asks the new version
for the row ids (``_rowid``) of the book's rows only — ids come from the fragments' metadata,
no column is read — and compares them with the ones it holds. Lance never changes a row in
place: an update or upsert deletes the old row and writes the new one into a new fragment, a
delete marks the row deleted, an append adds fragments; so a row id that is gone is a row that
was deleted or replaced, and a new row id is a row inserted or rewritten, whoever wrote it (this
process or another). Only the new rows are read. Compaction renumbers every row; then (as when
most rows are new) the book is read whole again.

A ``BookRows`` never changes once built: readers holding one keep a consistent version while
another thread advances. The latest one per (store, table, book, columns) is shared by every
``Library`` of the process (:func:`latest`), so a second library on the same store starts warm.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from lancedb.background_loop import LOOP

from tutorialbook.memory.store import Store, collect, quote

#: when more of the book's rows than this fraction are new, reading it whole is as cheap
REREAD_FRACTION = 0.25
#: rows appended after the base before both are merged into one base again
MERGE_EXTRA = 4_096
#: BookRows the process keeps (the latest version of each key)
KEEP = 24


@dataclass(frozen=True)
class Change:
    """What moved between two versions of a book's rows: the rows gone (as they were) and
    the rows new (as they are); a replaced row is in both, under the same ``id``."""

    removed: list[dict]
    added: list[dict]
    whole: bool = False
    """True when the book was read whole again (the lists are then empty: rebuild from the rows)"""


class BookRows:
    """One book's ``columns`` of a table as of ``version``, with each row's ``_rowid``.

    The rows live in a base table and a small table of rows appended since; a row replaced or
    deleted stays in them, unreachable, until the next merge. ``table`` is the AsyncTable pinned
    to ``version``, so searches on it return row ids that are this object's."""

    def __init__(self, table, book: str, columns: list[str], version: int, base: pa.Table,
                 extra: pa.Table | None, at_rowid: dict[int, int], at_id: dict[str, int], whole_table: bool):
        self.table = table
        self.book = book
        self.columns = columns
        self.version = version
        self.whole_table = whole_table
        """the book holds every row of the table (its searches skip the book filter)"""
        self._base = base
        self._extra = extra
        self._at_rowid = at_rowid
        self._at = at_id

    # -- building ------------------------------------------------------------------------
    @classmethod
    def read(cls, store: Store, table: str, book: str, columns: list[str], version: int) -> BookRows:
        """The book's rows read whole from ``version``."""
        pinned = store.open_at(table, version)._table
        query = pinned.query().where(_scope(book)).select(columns).with_row_id()
        rows = LOOP.run(collect(query)).combine_chunks()  # a take across chunks costs ms
        row_ids = rows["_rowid"].to_pylist()
        base = rows.drop_columns(["_rowid"])
        whole = len(rows) == LOOP.run(pinned.count_rows())
        return cls(pinned, book, list(columns), version, base, None, {r: n for n, r in enumerate(row_ids)},
                   {i: n for n, i in enumerate(base["id"].to_pylist())}, whole)

    def advance(self, store: Store, table: str, version: int) -> tuple[BookRows, Change]:
        """These rows as of a newer ``version`` (this object is left as it is), and what changed."""
        if version == self.version:
            return self, Change([], [])
        pinned = store.open_at(table, version)._table
        total = LOOP.run(pinned.count_rows())
        query = pinned.query().where(_scope(self.book)).select([]).with_row_id()
        now = LOOP.run(collect(query))["_rowid"].to_numpy()
        held = np.fromiter(self._at_rowid.keys(), dtype=np.uint64, count=len(self._at_rowid))
        new_ids = now[~np.isin(now, held, assume_unique=True)]
        if len(new_ids) > max(64, REREAD_FRACTION * len(now)):  # compacted, or mostly new
            return BookRows.read(store, table, self.book, self.columns, version), Change([], [], whole=True)
        gone = held[~np.isin(held, now, assume_unique=True)]
        removed = self._take([self._at_rowid[int(r)] for r in gone])
        added = LOOP.run(collect(pinned.take_row_ids([int(r) for r in new_ids]).select(self.columns)
                                 .with_row_id())) if len(new_ids) else None
        at_rowid = dict(self._at_rowid)
        at_id = dict(self._at)
        for r, row in zip(gone, removed):
            position = at_rowid.pop(int(r))
            if at_id.get(row["id"]) == position:
                del at_id[row["id"]]
        base, extra = self._base, self._extra
        added_rows: list[dict] = []
        if len(new_ids):
            start = len(base) + (len(extra) if extra is not None else 0)
            for n, r in enumerate(added["_rowid"].to_pylist()):
                at_rowid[r] = start + n
            fresh = added.drop_columns(["_rowid"]).select(self.columns)
            added_rows = fresh.to_pylist()
            for n, row in enumerate(added_rows):
                at_id[row["id"]] = start + n
            extra = fresh if extra is None else pa.concat_tables([extra, fresh.cast(extra.schema)])
            extra = extra.combine_chunks()
        whole = len(at_rowid) == total
        moved = BookRows(pinned, self.book, self.columns, version, base, extra, at_rowid, at_id, whole)
        if extra is not None and len(extra) > MERGE_EXTRA:
            moved = moved._merged()
        return moved, Change(removed, added_rows)

    def _merged(self) -> BookRows:
        """The same rows with the live ones in one base (dead rows dropped)."""
        order = sorted(self._at_rowid.items(), key=lambda item: item[1])
        base = self._all().take([p for _, p in order]).combine_chunks()
        at_rowid = {r: n for n, (r, _) in enumerate(order)}
        return BookRows(self.table, self.book, self.columns, self.version, base, None, at_rowid,
                        {i: n for n, i in enumerate(base["id"].to_pylist())}, self.whole_table)

    def _all(self) -> pa.Table:
        return self._base if self._extra is None else pa.concat_tables([self._base, self._extra.cast(self._base.schema)])

    # -- reading -------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._at)

    def ids(self) -> list[str]:
        return list(self._at)

    def all_rows(self) -> list[dict]:
        """Every live row, in the order the table holds them."""
        return self._take(sorted(self._at_rowid.values()))

    def rows(self, ids: list[str]) -> dict[str, dict]:
        """The rows of those ids it has, by id."""
        return {r["id"]: r for r in self._take([self._at[i] for i in ids if i in self._at])}

    def found(self, found: list[dict], score: str) -> list[dict]:
        """A search's ``_rowid``/``score`` results as the kept rows, each with its score."""
        at = [(self._at_rowid[r["_rowid"]], r[score]) for r in found if r["_rowid"] in self._at_rowid]
        return [{**row, score: value} for row, (_, value) in zip(self._take([n for n, _ in at]), at)]

    def mentioning(self, columns: tuple[str, ...], texts: list[str]) -> list[dict]:
        """The live rows where one of ``columns`` contains one of ``texts``."""
        table = self._all()
        mask = None
        for column in columns:
            for text in texts:
                hit = pc.match_substring(table[column], text)
                mask = hit if mask is None else pc.or_(mask, hit)
        if mask is None:
            return []
        live = set(self._at_rowid.values())
        return self._take([int(p) for p in np.flatnonzero(pc.fill_null(mask, False).to_numpy(zero_copy_only=False)) if int(p) in live])

    def _take(self, at: list[int]) -> list[dict]:
        if not at:
            return []
        size = len(self._base)
        if self._extra is None or all(p < size for p in at):
            return self._base.take(at).to_pylist()
        if all(p >= size for p in at):
            return self._extra.take([p - size for p in at]).to_pylist()
        base = iter(self._base.take([p for p in at if p < size]).to_pylist())
        extra = iter(self._extra.take([p - size for p in at if p >= size]).to_pylist())
        return [next(base) if p < size else next(extra) for p in at]


def _scope(book: str) -> str:
    return f"book = {quote(book)}"


# -- shared by the libraries of a process ---------------------------------------------------

_latest: OrderedDict[tuple, BookRows] = OrderedDict()
_guard = threading.Lock()


def store_key(store: Store) -> tuple:
    """What names one store in this process: its URI and, for a local folder, the folder's
    identity (a store deleted and made again at the same path is another store)."""
    if "://" in store.uri:
        return (store.uri,)
    try:
        stat = os.stat(store.uri)
    except OSError:
        return (store.uri,)
    return (store.uri, stat.st_ino, stat.st_ctime_ns)


def latest(store: Store, table: str, book: str, columns: list[str], version: int,
           since: BookRows | None = None) -> tuple[BookRows, Change]:
    """The book's rows as of ``version`` (or newer), moved on from the newest this process
    holds for the same store, table, book and columns; and what changed since ``since`` (all
    of it, ``whole``, without one)."""
    key = (store_key(store), table, book, tuple(columns))
    with _guard:
        held = _latest.get(key)
    if held is None and since is not None and since.version <= version:
        held = since
    step = None
    if held is not None and held.version >= version:
        rows = held
    elif held is not None:
        rows, step = held.advance(store, table, version)
    else:
        rows = BookRows.read(store, table, book, columns, version)
    with _guard:
        current = _latest.get(key)
        if current is None or current.version <= rows.version:
            _latest[key] = rows
            _latest.move_to_end(key)
            while len(_latest) > KEEP:
                _latest.popitem(last=False)
    if since is None:
        return rows, Change([], [], whole=True)
    if since is rows:
        return rows, Change([], [])
    if since is held and step is not None:
        return rows, step
    return rows, _between(since, rows)


def _between(old: BookRows, new: BookRows) -> Change:
    """What changed from ``old`` to ``new`` (two versions of the same rows), from their row ids."""
    gone = old._at_rowid.keys() - new._at_rowid.keys()
    fresh = new._at_rowid.keys() - old._at_rowid.keys()
    if len(fresh) > max(64, REREAD_FRACTION * len(new)):
        return Change([], [], whole=True)
    return Change(old._take([old._at_rowid[r] for r in gone]), new._take([new._at_rowid[r] for r in sorted(fresh)]))
