"""The position index read back: what the tutorials teach at a position, found by its EPD
(so transpositions meet), walking back through the moves when the exact position was never
discussed, and the skills related to it.

`evaluate_position` asks this on every call, beside an engine search of a few tens of
milliseconds, so it is kept off the caller's clock twice over. It runs on a worker thread while
the engine searches (`ground_async`). And its answers are cached per store, keyed by the
versions of exactly the tables they come from, all looked up in one trip: a repeated question
costs that trip. A LanceDB query costs milliseconds however small the table (more just after a
commit), so a new question, or any question after another agent's ingest, reads in one go on
LanceDB's loop: the rows at every position of the line in one query beside the book's facts,
then the briefs of the skills those rows name, while this thread asks the keyword (BM25) query
for the opening's skills (its name is in theirs, so no embedding is needed).
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections import OrderedDict
from collections.abc import Hashable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, cast

import chess

from tutorialbook.memory import lance, where
from tutorialbook.models import Evidence, SkillBrief, Taught, TaughtMove

KIND_ORDER = {"recommend": 0, "avoid": 1, "move": 2}
_TABLES = ("books", "positions", "tutorials", "skills")
_ROW_COLUMNS = ["epd", "tutorial_id", "move_san", "kind", "reason", "quote", "node_id", "skill_id", "start", "end"]
_TUTORIAL_COLUMNS = ["id", "title", "source", "timed", "status"]
_BRIEF_COLUMNS = list(SkillBrief.model_fields)
_LRU_SIZE = 2048
_GONE = False  # a brief's cached value when the skill no longer exists

# a few threads: concurrent evaluate_position calls (the HTTP server's) ground in parallel
_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="chess-grounding")


class _Cache:
    """One store's cached answers, in an LRU whose keys carry the table versions they were
    read at (an answer at an older version is never asked for again, and ages out)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.lru: OrderedDict[Hashable, Any] = OrderedDict()  # keys: tuples

    def peek(self, key: Hashable):
        """The cached value, or None."""
        with self.lock:
            if key in self.lru:
                self.lru.move_to_end(key)
                return self.lru[key]
        return None

    def keep(self, key: Hashable, value):
        with self.lock:
            self.lru[key] = value
            while len(self.lru) > _LRU_SIZE:
                self.lru.popitem(last=False)
        return value


_caches: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_caches_lock = threading.Lock()


def _cache(store) -> _Cache:
    with _caches_lock:
        cache = _caches.get(store)
        if cache is None:
            cache = _caches[store] = _Cache()
        return cache


def clear_cache(store=None) -> None:
    """Forget cached answers (of one store, or of all): for benchmarks and tests."""
    with _caches_lock:
        if store is None:
            _caches.clear()
        else:
            _caches.pop(store, None)


def ground(store, rank_skills, missing_book, board: chess.Board, opening,
           book: str = "") -> tuple[Taught, list[SkillBrief]]:
    """What the tutorials teach at `board` (or the nearest earlier position) and the related
    skills: those of the taught moves, then (with a book) the opening's, ranked by
    `rank_skills` (the retrieval's). A `book` that does not exist raises `missing_book(book)`."""
    return _lookup(store, board, opening, book, rank_skills=rank_skills, missing_book=missing_book)


def ground_async(store, rank_skills, missing_book, board: chess.Board, opening, book: str = "") -> Future:
    """`ground` on a worker thread, so it runs while the engine searches."""
    return _pool.submit(ground, store, rank_skills, missing_book, board, opening, book)


def taught_at(store, board: chess.Board, book: str = "") -> Taught:
    """What the tutorials teach at `board`, else at the nearest earlier position of its moves."""
    return _lookup(store, board, None, book, related=False)[0]


def skill_ids(taught: Taught) -> list[str]:
    return list(dict.fromkeys(m.skill_id for m in taught.moves if m.skill_id))


def _lookup(store, board: chess.Board, opening, book: str, related: bool = True, rank_skills=None,
            missing_book=None) -> tuple[Taught, list[SkillBrief]]:
    """`ground`, or (not `related`) only what is taught, with no check that the book exists."""
    cache = _cache(store)
    books_v, positions_v, tutorials_v, skills_v = store.versions(_TABLES)
    line = (book, board.fen(), tuple(board.move_stack))
    in_book = where.of_book(book) if book else None
    exists = cache.peek(("exists", book, books_v)) if related and book else True
    taught = cache.peek(("taught", *line, positions_v, tutorials_v))
    tutorials = cache.peek(("tutorials", book, tutorials_v)) if taught is None else None
    reads: dict[str, tuple[str, str | None, list[str]]] = {}
    if exists is None:
        reads["exists"] = ("books", where.by_id(book), ["id"])
    if taught is None:
        reads["rows"] = ("positions", where.both(where.in_list("epd", dict.fromkeys(_epds(board))), in_book),
                         _ROW_COLUMNS)
        if tutorials is None:
            reads["tutorials"] = ("tutorials", in_book, _TUTORIAL_COLUMNS)
    ids = skill_ids(taught) if taught is not None else None  # else: those the rows name, once read
    briefs_due = related and (ids is None or any(cache.peek(("brief", i, skills_v)) is None for i in ids))
    pending = _fetch(store, cache, reads, ids if related else [], skills_v) if reads or briefs_due else None
    name = opening.name if (related and book and opening is not None) else ""
    by_name = _opening_skills(store, rank_skills, name, book, skills_v) if name else []  # while the reads run
    found = pending.result() if pending is not None else {}
    if "exists" in found:
        exists = cache.keep(("exists", book, books_v), bool(found["exists"]))
    if "tutorials" in found:
        tutorials = cache.keep(("tutorials", book, tutorials_v), {t["id"]: t for t in found["tutorials"]})
    if not exists:
        raise missing_book(book)
    if taught is None:
        read_tutorials = cast("dict[str, dict]", tutorials)  # read above when it was not cached
        taught = cache.keep(("taught", *line, positions_v, tutorials_v), _taught(board, found["rows"], read_tutorials))
    taught = taught.model_copy(update={"moves": list(taught.moves)})  # the cached one stays as it is
    if not related:
        return taught, []
    ids, read = skill_ids(taught), found.get("briefs", {})
    briefs = [read[i] if i in read else cache.peek(("brief", i, skills_v)) for i in ids]
    return taught, [b for b in briefs if b] + [b for b in by_name if b.id not in ids]


def _fetch(store, cache: _Cache, reads: dict[str, tuple[str, str | None, list[str]]], ids: list[str] | None,
           skills_v: int) -> Future:
    """The reads (by name), run together on LanceDB's loop, then the briefs of the skills the
    rows name (or of `ids`) that are not cached at `skills_v`: the caller does other work meanwhile."""
    tables = {name: store.table(table) for name, (table, _, _) in reads.items()}
    skills = store.table("skills")

    async def fetch() -> dict:
        names = list(reads)
        found: dict[str, Any] = dict(
            zip(names, await asyncio.gather(*(_query(store, tables[n], *reads[n]) for n in names))))
        wanted = ids if ids is not None else {r["skill_id"] for r in found["rows"] if r["skill_id"]}
        missing = [i for i in wanted if cache.peek(("brief", i, skills_v)) is None]
        if missing:
            briefs = {r["id"]: SkillBrief(**r) for r in
                      await _query(store, skills, "skills", where.in_list("id", missing), _BRIEF_COLUMNS)}
            found["briefs"] = {i: cache.keep(("brief", i, skills_v), briefs.get(i, _GONE)) for i in missing}
        return found

    return lance.submit(fetch())


async def _query(store, table, name: str, scope: str | None, columns: list[str]) -> list[dict]:
    return await lance.rows_of(table, scope, columns, lambda: store.rows(name, scope, columns))


def _epds(board: chess.Board) -> Iterable[str]:
    """The EPD of the position, then of each earlier one of its moves."""
    board = board.copy()
    yield board.epd()
    while board.move_stack:
        board.pop()
        yield board.epd()


def _taught(board: chess.Board, rows: list[dict], tutorials: dict[str, dict]) -> Taught:
    """The taught moves at the nearest position of the line that has any."""
    by_epd: dict[str, list[dict]] = {}
    for row in rows:
        by_epd.setdefault(row["epd"], []).append(row)
    for back, epd in enumerate(_epds(board)):
        moves = _taught_moves(by_epd.get(epd, []), tutorials)
        if moves:
            earlier = board.copy()
            for _ in range(back):
                earlier.pop()
            return Taught(at="this position" if back == 0 else "earlier position", plies_back=back,
                          fen=earlier.fen(), moves=moves)
    return Taught(at="nothing found")


def _taught_moves(rows: list[dict], tutorials: dict[str, dict]) -> list[TaughtMove]:
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


def _opening_skills(store, rank_skills, name: str, book: str, skills_v: int) -> list[SkillBrief]:
    """The book's three skills best matching the opening's name by keywords."""
    key = ("opening", book, name, skills_v)
    found = _cache(store).peek(key)
    if found is None:
        hits, _ = rank_skills(name, book, k=3, mode="keyword", columns=_BRIEF_COLUMNS)
        found = _cache(store).keep(key, [SkillBrief(**{k: h.row[k] for k in _BRIEF_COLUMNS}) for h in hits])
    return found
