"""The one door to LanceDB's internals.

Reads are the hot path of every tool, and LanceDB's public API pays several trips into its
event loop for one query (schema, plan, each batch). So a few of its internals are used, all
of them here and nowhere else: the background event loop its sync API runs on
(``lancedb.background_loop.LOOP``), the ``AsyncTable`` behind a local ``LanceTable``
(``LanceTable._table``) and the query engine behind an async query (``AsyncQuery._inner.execute``).
They are not a stable API, so this module checks at import that the installed LanceDB is the
version they were written against and that each one is there, and says which broke
(tests/test_lance_door.py exercises each on a real table)."""

from __future__ import annotations

import asyncio
import threading
import warnings
from concurrent.futures import Future
from typing import Any, Coroutine

import lancedb
import numpy as np
import pyarrow as pa

#: the LanceDB versions these internals were written and tested against
TESTED = ("0.40.0",)


#: default bounds of LanceDB's caches (README "Memory that does not grow with the store"): room
#: for a 100,000-skill book's vector and full-text indexes (~40 + ~20 MB) and the latest versions'
#: manifests; what is beyond them is superseded versions', which only grow
INDEX_CACHE_BYTES = 128 * 2**20
METADATA_CACHE_BYTES = 32 * 2**20


class LanceInternalsChanged(RuntimeError):
    """An upgrade of LanceDB removed or changed an internal this module relies on."""


def _loop():
    try:
        from lancedb.background_loop import LOOP
    except ImportError as exc:
        raise LanceInternalsChanged(f"lancedb {lancedb.__version__} has no lancedb.background_loop.LOOP "
                                    "(memory/lance.py runs queries on it)") from exc
    if not (hasattr(LOOP, "run") and hasattr(LOOP, "loop")):
        raise LanceInternalsChanged(f"lancedb {lancedb.__version__}: lancedb.background_loop.LOOP has no "
                                    "run()/loop (memory/lance.py)")
    return LOOP


LOOP = _loop()
if lancedb.__version__ not in TESTED:
    warnings.warn(f"lancedb {lancedb.__version__} is not a version memory/lance.py was tested with "
                  f"({', '.join(TESTED)}); run tests/test_lance_door.py", stacklevel=2)


_sessions: dict[tuple[int, int], lancedb.Session] = {}
_sessions_guard = threading.Lock()


def session(index_bytes: int = INDEX_CACHE_BYTES, metadata_bytes: int = METADATA_CACHE_BYTES) -> lancedb.Session:
    """The LanceDB session (its index and metadata caches) every connection of the process with
    these bounds shares. Without one, each connection gets caches of 6 GiB (indexes) and 1 GiB
    (metadata) keyed by table version and index id: every commit is a new version, every fold of
    new rows into an index a new index, so a store taking commit after commit kept filling them."""
    key = (int(index_bytes), int(metadata_bytes))
    with _sessions_guard:
        if key not in _sessions:
            _sessions[key] = lancedb.Session(index_cache_size_bytes=key[0], metadata_cache_size_bytes=key[1])
        return _sessions[key]


def run(coroutine: Coroutine) -> Any:
    """Run a coroutine on LanceDB's loop and wait for it (one trip, however many queries it awaits)."""
    return LOOP.run(coroutine)


def submit(coroutine: Coroutine) -> Future:
    """Start a coroutine on LanceDB's loop; the caller does other work and waits on the future."""
    return asyncio.run_coroutine_threadsafe(coroutine, LOOP.loop)


def async_table(table) -> Any | None:
    """The ``AsyncTable`` behind a local ``LanceTable`` (``LanceTable._table``), or None (a
    remote table), in which case callers use the public sync API."""
    inner = getattr(table, "_table", None)
    return inner if inner is not None and hasattr(inner, "query") else None


def require_async_table(table) -> Any:
    inner = async_table(table)
    if inner is None:
        raise LanceInternalsChanged(f"lancedb {lancedb.__version__}: LanceTable._table is not an AsyncTable")
    return inner


async def collect(query) -> pa.Table:
    """What an async query returns, read straight from its engine (``AsyncQuery._inner.execute``):
    ``to_arrow`` first looks up the table's schema (one more trip, ~0.5 ms) for blob columns,
    which these tables do not have."""
    try:
        execute = query._inner.execute
    except AttributeError as exc:
        raise LanceInternalsChanged(f"lancedb {lancedb.__version__}: an async query has no _inner.execute "
                                    "(memory/lance.py collect)") from exc
    stream = await execute(None, None)
    return pa.Table.from_batches([batch async for batch in stream], schema=stream.schema)


def matrix(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """A vector column (fixed-size lists of float32) as a (rows, dimension) array, without a
    copy where the column is one chunk (``combine_chunks`` copies even one: 9 MB for 6,000
    vectors); thousands of vectors read as Python lists cost ~8x their size."""
    if isinstance(column, pa.ChunkedArray):
        vectors = column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()
    else:
        vectors = column
    if not pa.types.is_fixed_size_list(vectors.type):
        return np.array(vectors.to_pylist(), dtype=np.float32)
    return vectors.flatten().to_numpy().reshape(len(vectors), vectors.type.list_size)


async def scan_arrow(inner, where: str | None = None, columns: list[str] | None = None,
                     limit: int | None = None) -> pa.Table:
    """Rows of an AsyncTable as Arrow, read on LanceDB's loop."""
    query = inner.query()
    if where:
        query = query.where(where)
    if columns:
        query = query.select(columns)
    if limit:
        query = query.limit(limit)
    return await collect(query)


async def scan(inner, where: str | None = None, columns: list[str] | None = None,
               limit: int | None = None) -> list[dict]:
    """Rows of an AsyncTable, read on LanceDB's loop."""
    return (await scan_arrow(inner, where, columns, limit)).to_pylist()


async def rows_of(table, where: str | None, columns: list[str] | None, fallback) -> list[dict]:
    """:func:`scan` of a table handle when it is local; else ``fallback()`` in a thread."""
    inner = async_table(table)
    if inner is None:
        return await asyncio.to_thread(fallback)
    return await scan(inner, where, columns)


def versions(tables: list) -> tuple[int, ...]:
    """The current versions of several tables, looked up in one trip."""
    inners = [async_table(t) for t in tables]
    if any(i is None or not hasattr(i, "version") for i in inners):
        return tuple(t.version for t in tables)

    async def look():
        return await asyncio.gather(*(i.version() for i in inners))

    return tuple(run(look()))


def count_rows(inner) -> int:
    return run(inner.count_rows())


def scan_all(table) -> int:
    """Read every row of a table handle, batch by batch (nothing kept); returns the row count."""
    inner = require_async_table(table)

    async def drain() -> int:
        stream = await inner.query()._inner.execute(None, None)
        return sum([batch.num_rows async for batch in stream])

    return run(drain())
