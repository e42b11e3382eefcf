"""The position index read back: what the tutorials teach at a position, found by its EPD
(so transpositions meet), walking back through the moves when the exact position was never
discussed.

`evaluate_position` asks this on every call, beside an engine search of a few milliseconds, so
the answers are cached per library and keyed by the versions of the tables they come from: a
position walk is a set lookup per ply, and a repeated question costs one version check. A commit
by any process (another agent ingesting) moves a version and so refreshes what is cached.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import TypeVar

import chess

from tutorialbook.memory.store import in_list, quote
from tutorialbook.models import Evidence, SkillBrief, Taught, TaughtMove

KIND_ORDER = {"recommend": 0, "avoid": 1, "move": 2}
_TAUGHT_TABLES = ("positions", "tutorials")
_SKILL_TABLES = ("skills",)
_LRU_SIZE = 512

T = TypeVar("T")


class _Cache:
    """One library's cached answers; every key carries the table versions it was read at."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.epds: dict[tuple, frozenset[str]] = {}
        self.lru: OrderedDict[tuple, object] = OrderedDict()

    def known(self, key: tuple, load: Callable[[], frozenset[str]]) -> frozenset[str]:
        with self.lock:
            found = self.epds.get(key)
        if found is None:
            found = load()
            with self.lock:
                # an older version of the same book is stale for good
                for old in [k for k in self.epds if k[0] == key[0]]:
                    del self.epds[old]
                self.epds[key] = found
        return found

    def get(self, key: Hashable, compute: Callable[[], T]) -> T:
        with self.lock:
            if key in self.lru:
                self.lru.move_to_end(key)
                return self.lru[key]
        value = compute()
        with self.lock:
            self.lru[key] = value
            while len(self.lru) > _LRU_SIZE:
                self.lru.popitem(last=False)
        return value


_caches: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_caches_lock = threading.Lock()


def _cache(library) -> _Cache:
    with _caches_lock:
        cache = _caches.get(library)
        if cache is None:
            cache = _caches[library] = _Cache()
        return cache


def clear_cache(library=None) -> None:
    """Forget cached answers (of one library, or of all): for benchmarks and tests."""
    with _caches_lock:
        if library is None:
            _caches.clear()
        else:
            _caches.pop(library, None)


def _book_where(book: str) -> str:
    return f"book = {quote(book)}" if book else ""


def rows_at(library, epd: str, book: str = "") -> list[dict]:
    where = f"epd = {quote(epd)}" + (f" AND book = {quote(book)}" if book else "")
    return library.store.rows("positions", where)


def taught_at(library, board: chess.Board, book: str = "") -> Taught:
    """What the tutorials teach at `board`, else at the nearest earlier position of its moves."""
    cache = _cache(library)
    versions = library.store.versions(_TAUGHT_TABLES)
    known = cache.known(
        (book, versions),
        lambda: frozenset(r["epd"] for r in library.store.rows("positions", _book_where(book) or None, ["epd"])),
    )
    board = board.copy()
    for back in range(len(board.move_stack) + 1):
        epd = board.epd()
        if epd in known:
            moves = cache.get(
                ("taught", book, epd, versions), lambda epd=epd: _taught_moves(library, rows_at(library, epd, book))
            )
            if moves:
                return Taught(at="this position" if back == 0 else "earlier position", plies_back=back,
                              fen=board.fen(), moves=list(moves))
        if not board.move_stack:
            break
        board.pop()
    return Taught(at="nothing found")


def _taught_moves(library, rows: list[dict]) -> list[TaughtMove]:
    if not rows:
        return []
    tutorials = {t["id"]: t for t in library.store.rows("tutorials", in_list("id", {r["tutorial_id"] for r in rows}))}
    seen, out = set(), []
    for row in sorted(rows, key=lambda r: (KIND_ORDER.get(r["kind"], 3), r["start"])):
        key = (row["move_san"], row["kind"], row["tutorial_id"])
        tutorial = tutorials.get(row["tutorial_id"])
        if key in seen or tutorial is None or tutorial["status"] != "ready":
            continue
        seen.add(key)
        link = _link(tutorial, row["start"])
        out.append(TaughtMove(
            move_san=row["move_san"], kind=row["kind"], reason=row["reason"], quote=row["quote"],
            node_id=row["node_id"], skill_id=row["skill_id"],
            evidence=Evidence(tutorial_id=row["tutorial_id"], tutorial_title=tutorial["title"], start=row["start"],
                              end=row["end"], quote=row["quote"], timed=tutorial["timed"], link=link),
        ))
    return out


def _link(tutorial: dict, start: float) -> str:
    uri = Path(tutorial["source"]).as_uri() if tutorial["source"].startswith("/") else tutorial["source"]
    return f"{uri}#t={int(start)}" if tutorial["timed"] else uri


def skill_ids(taught: Taught) -> list[str]:
    return list(dict.fromkeys(m.skill_id for m in taught.moves if m.skill_id))


def related_skills(library, taught: Taught, opening, book: str) -> list[SkillBrief]:
    """Skills tied to the taught moves, then (with a book) skills about the opening."""
    ids = skill_ids(taught)
    name = opening.name if (book and opening is not None) else ""
    if not ids and not name:
        return []
    versions = library.store.versions(_SKILL_TABLES)
    return list(_cache(library).get(("related", book, name, tuple(ids), versions),
                                    lambda: _related(library, ids, name, book)))


def _related(library, ids: list[str], name: str, book: str) -> list[SkillBrief]:
    rows = library.store.rows("skills", in_list("id", ids)) if ids else []
    rows.sort(key=lambda r: ids.index(r["id"]))
    if name:
        hits, _ = library.rank_skills(name, book, k=3, mode="hybrid")
        rows += [h.row for h in hits if h.row["id"] not in ids]
    return [SkillBrief(**{k: r[k] for k in SkillBrief.model_fields}) for r in rows if r]
