"""Retrieval: the skills (and lessons) for a task, in the mode asked, and the ranking
refinement examines the memory through.

A service of the :class:`~tutorialbook.library.Library`. A retrieval searches the book's
snapshot its tree carries (``Tree.skill_rows``: its skills' columns at one version, kept in
memory and shared by the process, see ``memory/snapshots.py``), so it reads rows from memory."""

from __future__ import annotations

import functools
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Callable, cast

from tutorialbook.common import lesson_view
from tutorialbook.config import Settings
from tutorialbook.errors import TutorialbookError
from tutorialbook.memory import where
from tutorialbook.memory.search import MODES, Hit, search, toc_descent, unfinished_filter
from tutorialbook.memory.snapshots import BookRows
from tutorialbook.memory.store import Store
from tutorialbook.memory.tree import Tree
from tutorialbook.models import RetrieveResult
from tutorialbook import rerank
from tutorialbook.reading import Embed, Reading

if TYPE_CHECKING:
    from tutorialbook.llm.client import LLM

MAX_K = 50
#: embeds a retrieval's query while its book is looked up and its full-text half runs
_BACKGROUND = ThreadPoolExecutor(max_workers=4, thread_name_prefix="tutorialbook-retrieve")
#: what a SkillView is made of (a book's snapshot, ``Tree.skill_rows``, keeps these columns of its skills)
VIEW_COLUMNS = ["id", "name", "when_to_use", "steps", "node_id", "evidence", "sources", "helpful", "harmful",
                "version", "author"]


class Retrieval:
    """Ranks a book's skills for a query. Receives the store, the embedder, settings (the query
    limit, the configured model for ``toc``), the reading service (trees, skill views) and the
    embedder's token vectors (``tokens``; None for an embedder without them, which leaves
    rankings without late interaction)."""

    def __init__(self, store: Store, embed: Embed, settings: Settings, reading: Reading,
                 llm: Callable[[], LLM | None], tokens: Callable[[], rerank.TokenVectors | None]):
        self.store, self._embed, self.settings, self.reading = store, embed, settings, reading
        self._llm = llm  # the configured model's fresh run (llm/client.py from_settings)
        self._tokens = tokens

    def retrieve(self, query: str, book: str, k: int = 5, mode: str = "hybrid", fen: str = "",
                 llm=None) -> RetrieveResult:
        """Skills for a task. In ``toc`` mode a model (``llm``, default the configured one)
        navigates the TOC level by level when there is one; else, or when it fails, the beam."""
        if not query or not query.strip():
            raise TutorialbookError("query", "is empty; describe the task you need skills for")
        if len(query) > self.settings.max_query_chars:  # bounds its cost, and the echo in the result
            raise TutorialbookError("query", f"is {len(query)} characters; the limit is "
                                             f"{self.settings.max_query_chars} (TUTORIALBOOK_MAX_QUERY_CHARS)")
        if not 1 <= k <= MAX_K:
            raise TutorialbookError("k", f"must be between 1 and {MAX_K}, got {k}")
        if mode not in MODES:
            raise TutorialbookError("mode", f"{mode!r} is not one of {', '.join(MODES)}")
        vector: Callable[[], Any]
        if mode == "keyword":  # embedded only if the book has lessons to search
            vector = functools.cache(lambda: self._embed([query])[0])
        else:  # embedded on another core while the book is looked up and its full-text half runs
            embedding = _BACKGROUND.submit(self._embed, [query])
            vector = lambda: embedding.result()[0]  # noqa: E731
        tree = self.reading.tree(book)
        snapshot = self.snapshot(tree)
        lessons = _BACKGROUND.submit(search, self.store, "lessons", book, query, vector, "hybrid", 3,
                                     snapshot=tree.lesson_rows) if tree.lesson_counts else None  # meanwhile
        run = (self._llm() if llm is None else llm) if mode == "toc" else None
        if run is not None:
            from tutorialbook.llm.toc import retrieve_toc

            hits, route = retrieve_toc(self.store, tree, query, vector(), k, run)
        else:
            hits, route = self.rank_skills(query, book, k, mode, vector, tree=tree, snapshot=snapshot)
        if fen:
            hits = self._position_first(fen, book, hits, k)
        lesson_hits = lessons.result() if lessons else []
        return RetrieveResult(
            query=query, book=book, mode=mode,
            skills=self.reading.skill_views(self._view_rows(snapshot, hits), tree),
            lessons=[lesson_view(h.row, h.score) for h in lesson_hits], route=route,
            warnings=list(run.warnings) if run else [], llm=run.usage if run and run.usage.calls else None,
        )

    def rank_skills(self, query: str, book: str, k: int = 5, mode: str = "hybrid", vector=None, *,
                    tree: Tree | None = None, columns: list[str] | None = None, snapshot: BookRows | None = None,
                    halves: dict | None = None, late: bool = True):
        """The skill ranking ``retrieve`` returns — (hits, TOC route) — without lessons or views;
        refinement asks its questions through it. ``vector`` may be a function computing it
        (see ``search``); ``columns`` limits what the hits' rows carry, unless the search runs on
        a ``snapshot`` of the book's skills; ``tree`` is the book's (only the ``toc`` mode reads
        it); ``halves`` lets searches of one query share their work (see ``search``). A query
        that spells out chess moves from the start ranks the skills that continue
        those moves first; otherwise, except in ``keyword`` mode or with ``late`` False, the first
        ``rerank.TOP`` are put in order by late interaction (``tutorialbook/rerank.py``), each
        skill matched with its section's title."""
        from tutorialbook.skills.chess import query as chess_query

        if vector is None:
            vector = functools.cache(lambda: self._embed([query])[0])
        moves = chess_query.moves_in(query)  # "after 1. e4 e5 2. Nf3 …" names a position
        tokens = self._tokens() if late and mode != "keyword" and not moves else None
        pool = max(k, chess_query.POOL) if moves else max(k, rerank.TOP) if tokens else k
        if moves and columns:
            columns = [*columns, "name", "steps"]
        if tokens and columns:
            columns = list(dict.fromkeys([*columns, *rerank.COLUMNS]))
        tree = tree or self.reading.tree(book)
        if mode == "toc":
            hits, route = toc_descent(self.store, tree, query, vector, pool, columns, snapshot, halves)
        else:
            hits, route = search(self.store, "skills", book, query, vector, mode, pool, where=unfinished_filter(tree),
                                 columns=columns, snapshot=snapshot, halves=halves), []
        if tree.hidden_skills:  # added by a commit that has not finished: not in the book yet
            hits = [h for h in hits if h.row["id"] not in tree.hidden_skills]
        if moves:
            hits = chess_query.moves_first(hits, moves)[:k]
        elif tokens:
            nodes = tree.nodes
            hits = rerank.rerank(query, hits, tokens, lambda node_id: nodes.get(node_id, {}).get("title", ""))[:k]
        return hits, route

    def _position_first(self, fen: str, book: str, hits: list, k: int) -> list:
        """With a chess position, the skills the tutorials tie to it (or to the nearest
        earlier position) come first."""
        from tutorialbook.skills.chess import engine as chess_engine, positions

        board = chess_engine.parse_position(fen, None)
        ids = positions.skill_ids(positions.taught_at(self.store, board, book))
        pinned = [Hit(r, 1.0) for r in self.store.rows("skills", where.in_list("id", ids))] if ids else []
        pinned.sort(key=lambda h: ids.index(h.row["id"]))
        return (pinned + [h for h in hits if h.row["id"] not in ids])[:k]

    def snapshot(self, tree: Tree) -> BookRows:
        """The book's skills as of the version its tree was read at (shared by the process)."""
        # a tree the cache read always carries its snapshot (memory/tree.py)
        return cast(BookRows, tree.skill_rows)

    def _view_rows(self, snapshot: BookRows, hits: list) -> list[tuple[dict, float | None]]:
        """The hits' rows as ``skill_views`` reads them: whole already (a search on the snapshot
        returned them), else from the snapshot, else from the store."""
        rows = {h.row["id"]: h.row for h in hits if all(c in h.row for c in VIEW_COLUMNS)}
        wanted = [h.row["id"] for h in hits if h.row["id"] not in rows]
        rows.update(snapshot.rows(wanted))
        missing = [i for i in wanted if i not in rows]
        if missing:  # written since the snapshot was read
            rows.update((r["id"], r) for r in self.store.rows("skills", where.in_list("id", missing), VIEW_COLUMNS))
        return [(rows[h.row["id"]], h.score) for h in hits if h.row["id"] in rows]
