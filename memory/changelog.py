"""Which rows this process's own writes touched, by table version.

A store records each write it commits: the version it produced, the ids of the rows it wrote
and the filter of rows it changed or deleted by condition. A book's rows kept in memory
(``memory/snapshots.py``) move on to a newer version by re-reading only those rows when every
version in between is recorded here; a version written by another process (or by index
upkeep) is not, and then the rows move on by comparing row ids instead.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

#: versions remembered per table
KEEP = 256
#: a write touching more ids than this is recorded as unknown (moving on compares row ids)
MAX_IDS = 2_000


@dataclass(frozen=True)
class Write:
    ids: frozenset[str] | None
    """ids of the rows written (None: too many to keep, or not known)"""
    where: str | None = None
    """the filter of the rows changed or deleted by condition"""


_log: dict[tuple, OrderedDict[int, Write]] = {}
_guard = threading.Lock()


_generation: dict[str, int] = {}


def store_key(uri: str, created: bool = False) -> tuple:
    """What names one store in this process: its URI, and how many times this process made a
    new store there (a store deleted and made again at the same path is another store)."""
    with _guard:
        if created:
            _generation[uri] = _generation.get(uri, 0) + 1
        return (uri, _generation.get(uri, 0))


def record(store: tuple, table: str, version: int | None, ids=None, where: str | None = None) -> None:
    """Note that this process committed ``version`` of ``table``, writing rows ``ids`` and/or
    the rows matching ``where``."""
    if version is None:
        return
    known = ids is not None and len(ids) <= MAX_IDS or ids is None and where is not None
    write = Write(frozenset(ids) if ids is not None else None, where) if known else Write(None)
    with _guard:
        versions = _log.setdefault((store, table), OrderedDict())
        versions[version] = write
        while len(versions) > KEEP:
            versions.popitem(last=False)


def between(store: tuple, table: str, old: int, new: int) -> list[Write] | None:
    """The writes that made versions ``old + 1`` .. ``new``, or None when one of them is not
    known here (another process, index upkeep) or touched rows it could not list."""
    with _guard:
        versions = _log.get((store, table), {})
        writes = [versions.get(v) for v in range(old + 1, new + 1)]
    if any(w is None or (w.ids is None and w.where is None) for w in writes):
        return None
    return writes
