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

import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tutorialbook.memory import changelog, lance
from tutorialbook.memory.store import Store
from tutorialbook.memory.where import in_list, of_book

#: when more of the book's rows than this fraction are new, reading it whole is as cheap
REREAD_FRACTION = 0.25
#: rows appended after the base before both are merged into one base again
MERGE_EXTRA = 4_096
#: BookRows the process keeps (the latest version of each key)
KEEP = 24
#: rows per matrix-vector product in :meth:`BookRows.nearest`: numpy's BLAS runs a bigger product
#: on every core, and its threads then spin for a while (6.5 ms of CPU per search of 6,000
#: vectors, against 1.3 ms in products of 512 rows, one thread)
PRODUCT_ROWS = 512


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
    deleted stays there, marked dead, until the next merge. Where rows sit is looked up in
    maps shared with the version the rows were moved on from, plus a small map of what changed
    since (so moving on copies the changes, not 100,000 entries). ``table`` is the AsyncTable
    pinned to ``version``, so searches on it return row ids that are this object's."""

    def __init__(self, table, book: str, columns: list[str], version: int, base: pa.Table, extra: pa.Table | None,
                 live: np.ndarray, dead: np.ndarray, at_rowid: tuple[dict, dict], at_id: tuple[dict, dict],
                 whole_table: bool, rowid_of: list[int]):
        self.table = table
        self.book = book
        self.columns = columns
        self.version = version
        self.whole_table = whole_table
        """the book holds every row of the table (its searches skip the book filter)"""
        self._base = base
        self._extra = extra
        self._live = live  # the live rows' row ids, sorted
        self._dead = dead  # by position: replaced or deleted
        self._at_rowid = at_rowid  # (shared map, changes since): row id -> position (-1: gone)
        self._at_id = at_id  # the same for ids
        self._rowid_of = rowid_of  # position -> row id
        # the vectors of base and extra and their norms by position, laid out at the first search;
        # one attribute set once under a lock, so a concurrent search never sees half of it
        self._vectors: tuple[list[np.ndarray], np.ndarray] | None = None
        self._vectors_lock = threading.Lock()

    # -- building ------------------------------------------------------------------------
    @classmethod
    def read(cls, store: Store, table: str, book: str, columns: list[str], version: int) -> BookRows:
        """The book's rows read whole from ``version``."""
        pinned = lance.require_async_table(store.open_at(table, version))
        query = pinned.query().where(of_book(book)).select(columns).with_row_id()
        rows = lance.run(lance.collect(query)).combine_chunks()  # a take across chunks costs ms
        whole = len(rows) == lance.count_rows(pinned)
        return cls._of(pinned, book, list(columns), version, rows, whole)

    @classmethod
    def _of(cls, pinned, book: str, columns: list[str], version: int, rows: pa.Table, whole: bool) -> BookRows:
        row_ids = rows["_rowid"].to_numpy()
        base = rows.drop_columns(["_rowid"])
        return cls(pinned, book, columns, version, base, None, np.sort(row_ids), np.zeros(len(base), dtype=bool),
                   ({int(r): n for n, r in enumerate(row_ids)}, {}),
                   ({i: n for n, i in enumerate(base["id"].to_pylist())}, {}), whole, row_ids.tolist())

    def advance(self, store: Store, table: str, version: int) -> tuple[BookRows, Change]:
        """These rows as of a newer ``version`` (this object is left as it is), and what changed.

        When this process made every version in between (``memory/changelog.py``), only the
        rows those writes named are read, at both versions; else the new version's row ids
        are compared with the held ones."""
        if version == self.version:
            return self, Change([], [])
        pinned = lance.require_async_table(store.open_at(table, version))
        total = lance.count_rows(pinned)
        writes = changelog.between(store.key, table, self.version, version)
        touched = self._touched(pinned, writes) if writes is not None else None
        if touched is not None:
            query = pinned.query().where(f"{of_book(self.book)} AND {in_list('id', touched)}")
            fresh = lance.run(lance.collect(query.select(self.columns).with_row_id()))
            held = [(n, self._rowid_of[n]) for n in (self._located(i) for i in touched) if n >= 0]
            now_ids = set(fresh["_rowid"].to_pylist())
            gone = np.array(sorted(r for _, r in held if r not in now_ids), dtype=np.uint64)
            keep = set(self._rowid_of[n] for n, _ in held)
            fresh = fresh.filter(pa.array([r not in keep for r in fresh["_rowid"].to_pylist()], type=pa.bool_()))
            live = np.delete(self._live, np.searchsorted(self._live, gone))
            if len(fresh):  # new rows sit in new fragments: their row ids come after the others
                live = np.concatenate([live, np.sort(fresh["_rowid"].to_numpy())])
                if len(live) > len(fresh) and live[len(live) - len(fresh) - 1] > live[len(live) - len(fresh)]:
                    live = np.sort(live)
        else:
            query = pinned.query().where(of_book(self.book)).select([]).with_row_id()
            live = lance.run(lance.collect(query))["_rowid"].to_numpy()
            if len(live) > 1 and not (live[1:] > live[:-1]).all():
                live = np.sort(live)
            new_ids = _missing(live, self._live)
            if len(new_ids) > max(64, REREAD_FRACTION * len(live)):  # compacted, or mostly new
                return BookRows.read(store, table, self.book, self.columns, version), Change([], [], whole=True)
            gone = _missing(self._live, live)
            fresh = lance.run(lance.collect(pinned.take_row_ids([int(r) for r in new_ids]).select(self.columns)
                                     .with_row_id())) if len(new_ids) else None
        return self._moved(pinned, version, live, gone, fresh, total)

    def _touched(self, pinned, writes: list[changelog.Write]) -> set[str] | None:
        """Ids of the rows ``writes`` changed: the ids they wrote and those their filters match
        before (here) and after (``pinned``); None when too many to read one by one."""
        ids: set[str] = set()
        for write in writes:
            ids |= write.ids or set()
            if write.where:
                for table in (self.table, pinned):
                    query = table.query().where(f"{of_book(self.book)} AND ({write.where})").select(["id"])
                    ids.update(lance.run(lance.collect(query.limit(changelog.MAX_IDS + 1)))["id"].to_pylist())
            if len(ids) > changelog.MAX_IDS:
                return None
        return ids

    def _moved(self, pinned, version: int, live: np.ndarray, gone: np.ndarray, fresh: pa.Table | None,
               total: int) -> tuple[BookRows, Change]:
        """A new BookRows: these rows without the row ids ``gone``, with the rows ``fresh``."""
        gone_at = [self._position(int(r)) for r in gone]
        removed = self._take(gone_at)
        size = len(self._dead)
        dead = np.concatenate([self._dead, np.zeros(len(fresh) if fresh is not None else 0, dtype=bool)])
        dead[gone_at] = True
        by_rowid, by_id = dict(self._at_rowid[1]), dict(self._at_id[1])
        for r, n, row in zip(gone, gone_at, removed):
            by_rowid[int(r)] = -1
            if self._located(row["id"]) == n:
                by_id[row["id"]] = -1
        extra, rowid_of, added_rows = self._extra, self._rowid_of, []
        if fresh is not None and len(fresh):
            row_ids = fresh["_rowid"].to_pylist()
            for n, r in enumerate(row_ids):
                by_rowid[r] = size + n
            rows = fresh.drop_columns(["_rowid"]).select(self.columns)
            added_rows = rows.to_pylist()
            for n, row in enumerate(added_rows):
                by_id[row["id"]] = size + n
            rows = rows.cast(self._base.schema)
            extra = (rows if extra is None else pa.concat_tables([extra, rows])).combine_chunks()
            rowid_of = rowid_of + row_ids
        moved = BookRows(pinned, self.book, self.columns, version, self._base, extra, live, dead,
                         (self._at_rowid[0], by_rowid), (self._at_id[0], by_id), len(live) == total, rowid_of)
        if len(by_rowid) > MERGE_EXTRA:
            moved = moved._merged()
        return moved, Change(removed, added_rows)

    def _merged(self) -> BookRows:
        """The same rows with the live ones in one base (dead rows dropped)."""
        live = np.flatnonzero(~self._dead)
        rows = self._all().take(live)
        row_ids = np.empty(len(live), dtype=np.uint64)
        position = {p: n for n, p in enumerate(live.tolist())}
        for r in self._live.tolist():
            row_ids[position[self._position(r)]] = r
        rows = rows.append_column("_rowid", pa.array(row_ids))
        return BookRows._of(self.table, self.book, self.columns, self.version, rows.combine_chunks(),
                            self.whole_table)

    def _all(self) -> pa.Table:
        return self._base if self._extra is None else pa.concat_tables([self._base, self._extra])

    def _position(self, row_id: int) -> int:
        found = self._at_rowid[1].get(row_id)
        return self._at_rowid[0].get(row_id, -1) if found is None else found

    def _located(self, row_id: str) -> int:
        found = self._at_id[1].get(row_id)
        return self._at_id[0].get(row_id, -1) if found is None else found

    # -- reading -------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._live)

    def all_rows(self, columns: list[str] | None = None) -> list[dict]:
        """Every live row (only ``columns``), in the order the table holds them."""
        table = self._all()
        return (table.select(columns) if columns else table).take(np.flatnonzero(~self._dead)).to_pylist()

    def rows(self, ids: list[str]) -> dict[str, dict]:
        """The rows of those ids it has, by id."""
        at = [n for n in (self._located(i) for i in ids) if n >= 0]
        return {r["id"]: r for r in self._take(at)}

    def found(self, found: list[dict], score: str) -> list[dict]:
        """A search's ``_rowid``/``score`` results as the kept rows, each with its score."""
        at = [(n, r[score]) for n, r in ((self._position(r["_rowid"]), r) for r in found) if n >= 0]
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
        hits = pc.fill_null(mask, False).to_numpy(zero_copy_only=False) & ~self._dead
        return self._take(np.flatnonzero(hits).tolist())

    def nearest(self, vector, limit: int) -> list[dict]:
        """The ``limit`` live rows nearest ``vector`` by cosine distance, exactly as an exact scan
        of the table at this version returns them (``_rowid`` and ``_distance``, nearest first,
        equal distances by row id); these rows must hold ``vector``. A scan of a few thousand
        vectors here costs about a millisecond, LanceDB's ~5 ms plus ~1.3 us a row."""
        k = min(limit, len(self._live))
        if k <= 0:
            return []
        query = np.asarray(vector, dtype=np.float32)
        size = float(np.linalg.norm(query))
        matrices, norms = self._vectors or self._lay_out_vectors()
        dots = np.concatenate([m[n:n + PRODUCT_ROWS] @ query for m in matrices for n in range(0, len(m), PRODUCT_ROWS)])
        scale = norms * np.float32(size)
        with np.errstate(divide="ignore", invalid="ignore"):
            distance = np.where(scale > 0, np.float32(1) - dots / scale, np.float32(1)).astype(np.float32)
        distance[self._dead] = np.inf
        best = np.argpartition(distance, k - 1)[:k] if k < len(distance) else np.arange(len(distance))
        row_ids = np.array([self._rowid_of[n] for n in best], dtype=np.uint64)
        order = np.lexsort((row_ids, distance[best]))
        return [{"_rowid": int(row_ids[n]), "_distance": float(distance[best[n]])} for n in order]

    def _lay_out_vectors(self) -> tuple[list[np.ndarray], np.ndarray]:
        """The rows' vectors as matrices and their norms, worked out once (rows never change)."""
        with self._vectors_lock:
            if self._vectors is None:
                parts = [self._base] if self._extra is None else [self._base, self._extra]
                matrices = [lance.matrix(part["vector"]) for part in parts]
                # einsum: no temporary the size of the matrix, as np.linalg.norm's squares are
                norms = np.concatenate([np.sqrt(np.einsum("ij,ij->i", m, m)) for m in matrices])
                self._vectors = (matrices, norms)
            return self._vectors

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


def _missing(values: np.ndarray, sorted_in: np.ndarray) -> np.ndarray:
    """The entries of ``values`` not in the sorted array ``sorted_in``."""
    if not len(sorted_in):
        return values
    at = np.minimum(np.searchsorted(sorted_in, values), len(sorted_in) - 1)
    return values[sorted_in[at] != values]


# -- shared by the libraries of a process ---------------------------------------------------

_latest: OrderedDict[tuple, BookRows] = OrderedDict()
_guard = threading.Lock()


def latest(store: Store, table: str, book: str, columns: list[str], version: int,
           since: BookRows | None = None) -> tuple[BookRows, Change]:
    """The book's rows as of ``version`` (or newer), moved on from the newest this process
    holds for the same store, table, book and columns; and what changed since ``since`` (all
    of it, ``whole``, without one)."""
    key = (store.key, table, book, tuple(columns))
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
    gone, fresh = _missing(old._live, new._live), _missing(new._live, old._live)
    if len(fresh) > max(64, REREAD_FRACTION * len(new)):
        return Change([], [], whole=True)
    return Change(old._take([old._position(int(r)) for r in gone]),
                  new._take([new._position(int(r)) for r in fresh]))
