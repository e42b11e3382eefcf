"""Versions kept on purpose: compaction and pruning of old table versions, and of the undo log,
as routine upkeep.

Every write is a LanceDB version, and every version keeps its files: a book of 100 tutorials
held 179 MiB of data files for a 26 MB live table, and while restore read old table versions, a
7-day window kept every file each compaction had replaced (32x the live size at 400 tutorials).
Now restore reads the undo log (memory/undo.py), so what is promised splits in two:

* ``keep_seconds`` (default 7 days): how far back ``restore`` reaches — the undo rows logged
  within it are kept, older ones dropped (the log's horizon moves up first);
* ``version_seconds`` (default 2 minutes): how long a superseded table version outlives its
  successor — only readers pinned to it (a search snapshot, a read under way) need it, and the
  window never goes below ``MIN_KEEP_SECONDS``, longer than any such read takes; the latest
  version is never removed.

Upkeep (:func:`upkeep`) prunes the log, compacts each table's small fragments into larger ones
(deleted rows dropped, new rows folded into the indexes) and removes the files of the versions
past their window — and, on a local store when no commit to the table is under way (the store's
file hold, memory/store.py), the files no version references at all, which LanceDB would keep
for 7 days (after 400 tutorials, half the disk). ``history`` reads the append-only ``events`` table and revert the
before-images stored there or in the log, so neither needs old versions. Upkeep runs after
ingests once a table has taken ``every_versions`` commits since the last upkeep in this process
(:func:`after_writes`), and on demand (``tutorialbook upkeep``). Disk is then the live data, the
log of the restore window, and the files of the last minutes' versions.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from datetime import timedelta

from tutorialbook.memory import indexing, lance, undo
from tutorialbook.memory.schemas import SCHEMAS

log = logging.getLogger(__name__)

#: the shortest window allowed: a reader pinned to a superseded version (a search snapshot)
#: finishes well within it
MIN_KEEP_SECONDS = 60.0


@dataclass
class Retention:
    """What upkeep keeps. ``keep_seconds``: restore reaches this far back (the undo log's
    window); ``every_versions``: commits to a table between upkeeps; ``version_seconds``: how
    long a superseded table version is kept for the readers pinned to it."""

    keep_seconds: float = 7 * 86400.0
    every_versions: int = 20
    version_seconds: float = 120.0
    _since: dict[str, int] = field(default_factory=dict, repr=False)  # table -> version at the last upkeep
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def window(self) -> float:
        """How far back restore reaches, seconds."""
        return max(MIN_KEEP_SECONDS, float(self.keep_seconds))

    def version_window(self) -> float:
        return max(MIN_KEEP_SECONDS, float(self.version_seconds))


@dataclass
class TableUpkeep:
    table: str
    versions_before: int
    versions_after: int
    bytes_removed: int
    fragments_removed: int
    fragments_added: int


def existing_tables(store) -> list[str]:
    """The store's tables that exist (upkeep never creates one)."""
    names, token = set(), None
    while True:  # pages of names
        page = store._db.list_tables(page_token=token)
        names.update(page.tables)
        token = page.page_token
        if not token:
            break
    return [n for n in SCHEMAS if n in names]


def upkeep(store, policy: Retention, tables: list[str] | None = None, now: float | None = None) -> list[TableUpkeep]:
    """Prune the undo log to ``policy``'s window, compact ``tables`` (default: all) and prune
    the table versions ``policy`` no longer keeps."""
    now = time.time() if now is None else now
    names = tables if tables is not None else existing_tables(store)
    if undo.UNDO in names:
        undo.prune(store, now - policy.window())
    return [_upkeep_table(store, name, policy, now) for name in names]


def _upkeep_table(store, name: str, policy: Retention, now: float) -> TableUpkeep:
    table = store.table(name)
    versions = store.version_history(name)
    # LanceDB counts a version's age on the real clock (``now`` may be a later moment, in tests)
    older_than = timedelta(seconds=max(0.001, time.time() - (now - policy.version_window())))
    stats = compacted = None
    inner = lance.require_async_table(table)
    try:
        # compaction first, pruning in a call of its own: pruned in the same call as the
        # compaction, the files of the versions it replaced were left on disk unreferenced
        with store.writing_files(name):
            compacted = lance.run(inner.optimize(cleanup_older_than=indexing.KEEP_ALL))
        with store.sweep_hold(name) as alone:
            # alone: no commit is under way, so files no version references are leftovers (of a
            # commit that lost a race, a writer killed mid-write...): LanceDB deletes such files
            # only once 7 days old, unless told; after 400 tutorials they were half the disk
            stats = lance.run(inner.optimize(cleanup_older_than=older_than, delete_unverified=alone))
    except Exception as exc:  # noqa: BLE001 - another process compacting at once: it did the work
        log.info("upkeep of %s skipped: %s", name, exc)
    store.index_cache.pop(name, None)
    with policy._lock:
        policy._since[name] = table.version
    compaction = getattr(compacted, "compaction", None)
    prune = getattr(stats, "prune", None)
    return TableUpkeep(table=name, versions_before=len(versions), versions_after=len(store.version_history(name)),
                       bytes_removed=int(getattr(prune, "bytes_removed", 0) or 0),
                       fragments_removed=int(getattr(compaction, "fragments_removed", 0) or 0),
                       fragments_added=int(getattr(compaction, "fragments_added", 0) or 0))


#: append-only tables only history, revert and restore read: kept up ``HISTORY_FACTOR`` times less
#: often. The undo log takes a commit for every write to a book's table, and each compaction
#: rewrites a table whole while the versions of the last minutes keep the files it replaced.
HISTORY = ("events", "undo")
HISTORY_FACTOR = 10


def due(store, policy: Retention) -> list[str]:
    """Tables that took ``every_versions`` commits (``HISTORY_FACTOR`` times that for the history
    tables) since this process last kept them up (a table this process has not kept up yet counts
    from its oldest retained version)."""
    names = existing_tables(store)
    current = store.versions(names)
    out = []
    for name, version in zip(names, current):
        with policy._lock:
            since = policy._since.get(name)
        if since is None:
            since = store.version_history(name)[0][0]
            with policy._lock:
                policy._since[name] = since
        if version - since >= policy.every_versions * (HISTORY_FACTOR if name in HISTORY else 1):
            out.append(name)
    return out


def after_writes(store, policy: Retention) -> list[TableUpkeep]:
    """Upkeep of the tables that are due; never fails the write that called it."""
    try:
        return upkeep(store, policy, due(store, policy))
    except Exception as exc:  # noqa: BLE001 - upkeep must never fail a committed ingest
        log.warning("upkeep skipped: %s", exc)
        return []
