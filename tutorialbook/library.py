"""The core object: a library opened on a store. The MCP tools, the CLI and Python callers
all call these methods; nothing lives only in a surface."""

from __future__ import annotations

import functools
import hashlib
import json
import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

import numpy as np

from tutorialbook.common import Progress, check_book_name, lesson_view
from tutorialbook import quoting
from tutorialbook.config import Settings
from tutorialbook.ingest import Ingest
from tutorialbook.lessons import Lessons
from tutorialbook.refinement import Refinement
from tutorialbook.errors import NotFound, TutorialbookError
from tutorialbook.memory import history as hist
from tutorialbook.memory.embedder import DIM, get_embedder
from tutorialbook.memory.search import MODES, Snapshot, search, toc_descent, unfinished_filter
from tutorialbook.memory.store import Store, in_list, quote
from tutorialbook.memory.tree import Tree, TreeCache, without_hidden
from tutorialbook.models import (
    BookInfo, EngineLine, EngineView, Evidence, LessonView, NodeBrief, NodeView, OpeningName, PositionReport,
    PositionStatus, RetrieveResult, SkillBrief, SkillView, TutorialInfo,
)

MAX_K = 50
MAX_DEPTH = 5
#: embeds a retrieval's query while its book is looked up and its full-text half runs
_BACKGROUND = ThreadPoolExecutor(max_workers=4, thread_name_prefix="tutorialbook-retrieve")
#: books whose snapshot a library keeps (each holds its skills' view columns: ~40 MB at 100,000)
SNAPSHOTS = 8
#: what a SkillView is made of (a book's ``Snapshot`` keeps these columns of its skills)
VIEW_COLUMNS = ["id", "name", "when_to_use", "steps", "node_id", "evidence", "sources", "helpful", "harmful",
                "version", "author"]


class Library(Ingest, Refinement, Lessons):
    """Tutorialbooks in one store. Reading, retrieval, chess positions and history are here;
    ingest (tutorialbook/ingest.py), refinement (tutorialbook/refinement.py) and lessons (tutorialbook/lessons.py)
    are parts of the same object, split by concern."""

    def __init__(self, settings: Settings | None = None, **overrides):
        self.settings = (settings or Settings()).override(**overrides)  # a copy: the caller's stay as they were
        self._embedder = None
        self._chess_engine = None
        self.store = Store(self.settings.store, dim=self._embedder_dim())
        self._trees = TreeCache(self.store)
        self._snapshots: OrderedDict[str, Snapshot] = OrderedDict()  # book -> its latest snapshot, least recent first
        self._snapshots_lock = threading.Lock()  # opening writes nothing: recovery waits for the first ingest

    def _embedder_dim(self) -> int:
        if self.settings.embedder in ("default", ""):
            return DIM  # known without loading the model
        return self._get_embedder().dim

    def _get_embedder(self):
        if self._embedder is None:
            self._embedder = get_embedder(self.settings.embedder, self.settings.embedder_api_base)
        return self._embedder

    @property
    def agent(self) -> str:
        return self.settings.agent

    def embed(self, texts: list[str]) -> np.ndarray:
        return self._get_embedder().embed(texts)

    # -- books -----------------------------------------------------------------
    def books(self) -> list[BookInfo]:
        out = []
        for row in sorted(self.store.rows("books"), key=lambda r: r["id"]):
            where = f"book = {quote(row['id'])}"
            hidden = self._trees.hidden(row["id"])  # rows of unfinished commits are not counted
            visible = where + (f" AND NOT ({in_list('origin', hidden)})" if hidden else "")
            out.append(BookInfo(
                name=row["id"], title=row["title"],
                tutorials=self.store.count("tutorials", where + " AND status = 'ready'"),
                nodes=self.store.count("nodes", visible), skills=self.store.count("skills", visible),
                lessons=self.store.count("lessons", where),
            ))
        return out

    def ensure_book(self, book: str, title: str = "") -> Tree:
        check_book_name(book)
        self.store.insert_if_absent("books", [{"id": book, "book": book, "title": title or book, "created_at": time.time()}])
        root = {"id": _root_id(book), "book": book, "parent_id": "", "position": 0, "title": title or book,
                "summary": f"Everything the tutorials of {book!r} teach.", "kind": "book", "evidence": "[]",
                "version": 1, "text": title or book, "updated_at": time.time(), "vector": self.embed([book])[0]}
        self.store.insert_if_absent("nodes", [root])
        return self._trees.get(book)

    def tree(self, book: str) -> Tree:
        check_book_name(book)
        tree = self._trees.get(book)
        if tree is None:
            raise self.missing_book(book)
        return tree

    def has_book(self, book: str) -> bool:
        return self.store.count("books", f"id = {quote(book)}") > 0

    def missing_book(self, book: str, visible: Callable[[str], bool] | None = None) -> NotFound:
        """The error for a book that does not exist. ``visible`` filters the books it lists, so
        for a caller a book it may not see reads exactly like one that does not exist."""
        names = sorted(b["id"] for b in self.store.rows("books", columns=["id"]))
        known = ", ".join(n for n in names if visible is None or visible(n)) or "none yet"
        return NotFound("book", f"no book named {book!r} (known books: {known})")

    def llm(self):
        """A fresh run of the configured model (settings.llm: a litellm model string, or
        'sampling', which outside an MCP call only explains itself), or None for 'none'."""
        from tutorialbook.llm.client import from_settings

        return from_settings(self.settings)

    # -- reading the tree ------------------------------------------------------
    def browse(self, book: str, node_id: str = "", depth: int = 1) -> NodeView:
        if not 1 <= depth <= MAX_DEPTH:
            raise TutorialbookError("depth", f"must be between 1 and {MAX_DEPTH}, got {depth}")
        tree = self.tree(book)
        node_id = node_id or tree.root_id
        if node_id not in tree.nodes:
            raise NotFound("node_id", f"no node {node_id!r} in book {book!r}; browse the root to see valid ids")
        node = tree.nodes[node_id]
        skills = tree.skills_at.get(node_id, [])
        lessons = (self.store.rows("lessons", f"node_id = {quote(node_id)} AND skill_id = ''")
                   if tree.lesson_counts[node_id] else [])
        return NodeView(
            book=book, node=_brief(tree, node_id, 0),
            path=[_brief(tree, n, 0) for n in tree.path(node_id)[:-1]],
            evidence=[Evidence(**e) for e in json.loads(node["evidence"] or "[]")],
            children=[_brief(tree, c, depth - 1) for c in tree.children.get(node_id, [])],
            skills=[SkillBrief(**{k: r[k] for k in SkillBrief.model_fields}) for r in skills],
            lessons=[lesson_view(r) for r in lessons],
        )

    def skill(self, skill_id: str) -> SkillView:
        row = self.store.get("skills", skill_id)
        tree = self.tree(row["book"]) if row is not None else None
        if row is None or row["id"] in tree.hidden_skills:
            raise NotFound("skill_id", f"no skill {skill_id!r}")
        return self._skill_views([(row, None)], tree)[0]

    def skills(self, book: str) -> list[SkillView]:
        """Every skill of a book, in TOC order (then by name)."""
        tree = self.tree(book)
        order: dict[str, int] = {}
        stack = [tree.root_id]
        while stack:  # pre-order: a node, then its children in TOC order
            node_id = stack.pop()
            order[node_id] = len(order)
            stack.extend(reversed(tree.children.get(node_id, [])))
        rows = sorted(self.store.rows("skills", f"book = {quote(book)}"),
                      key=lambda r: (order.get(r["node_id"], len(order)), r["name"], r["id"]))
        return self._skill_views([(r, None) for r in rows], tree)

    def export_skills(self, book: str, directory: str, progress: Progress | None = None):
        """Write a book's skills as Agent Skills folders (SKILL.md + references/evidence.md)."""
        from tutorialbook.skills.agent_skills import export_skills

        return export_skills(self, book, directory, progress)

    def import_skills(self, book: str, directory: str, progress: Progress | None = None, agent: str | None = None):
        """Read Agent Skills folders into a book; importing the same folders again changes nothing.
        The import is an event in the book's history (so it can be restored to before it)."""
        from tutorialbook.skills.agent_skills import import_skills

        return import_skills(self, book, directory, progress, agent)

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
        if mode == "keyword":  # embedded only if the book has lessons to search
            vector = functools.cache(lambda: self.embed([query])[0])
        else:  # embedded on another core while the book is looked up and its full-text half runs
            embedding = _BACKGROUND.submit(self.embed, [query])
            vector = lambda: embedding.result()[0]  # noqa: E731
        tree = self.tree(book)
        snapshot = self._snapshot(tree)
        run = (self.llm() if llm is None else llm) if mode == "toc" else None
        if run is not None:
            from tutorialbook.llm.toc import retrieve_toc

            hits, route = retrieve_toc(self.store, tree, query, vector(), k, run)
        else:
            hits, route = self.rank_skills(query, book, k, mode, vector, tree=tree, snapshot=snapshot)
        if fen:
            hits = self._position_first(fen, book, hits, k)
        lessons = search(self.store, "lessons", book, query, vector, "hybrid", 3) if tree.lesson_counts else []
        return RetrieveResult(
            query=query, book=book, mode=mode,
            skills=self._skill_views(self._view_rows(snapshot, hits), tree),
            lessons=[lesson_view(h.row, h.score) for h in lessons], route=route,
            warnings=list(run.warnings) if run else [], llm=run.usage if run and run.usage.calls else None,
        )

    def rank_skills(self, query: str, book: str, k: int = 5, mode: str = "hybrid", vector=None, *,
                    tree: Tree | None = None, columns: list[str] | None = None, snapshot: Snapshot | None = None):
        """The skill ranking ``retrieve`` returns — (hits, TOC route) — without lessons or views;
        refinement asks its questions through it. ``vector`` may be a function computing it
        (see ``search``); ``columns`` limits what the hits' rows carry, unless the search runs on
        a ``snapshot`` of the book's skills; ``tree`` is the book's (only the ``toc`` mode reads
        it). A query that spells out chess moves from the start ranks the skills that continue
        those moves first."""
        from tutorialbook.skills.chess import query as chess_query

        if vector is None:
            vector = functools.cache(lambda: self.embed([query])[0])
        moves = chess_query.moves_in(query)  # "after 1. e4 e5 2. Nf3 …" names a position
        pool = max(k, chess_query.POOL) if moves else k
        if moves and columns:
            columns = [*columns, "name", "steps"]
        tree = tree or self.tree(book)
        if mode == "toc":
            hits, route = toc_descent(self.store, tree, query, vector, pool, columns, snapshot)
        else:
            hits, route = search(self.store, "skills", book, query, vector, mode, pool, where=unfinished_filter(tree),
                                 columns=columns, snapshot=snapshot), []
        if tree.hidden_skills:  # added by a commit that has not finished: not in the book yet
            hits = [h for h in hits if h.row["id"] not in tree.hidden_skills]
        if moves:
            hits = chess_query.moves_first(hits, moves)[:k]
        return hits, route

    def _position_first(self, fen: str, book: str, hits: list, k: int) -> list:
        """With a chess position, the skills the tutorials tie to it (or to the nearest
        earlier position) come first."""
        from tutorialbook.memory.search import Hit
        from tutorialbook.skills.chess import engine as chess_engine, positions

        board = chess_engine.parse_position(fen, None)
        ids = positions.skill_ids(positions.taught_at(self, board, book))
        pinned = [Hit(r, 1.0) for r in self.store.rows("skills", in_list("id", ids))] if ids else []
        pinned.sort(key=lambda h: ids.index(h.row["id"]))
        return (pinned + [h for h in hits if h.row["id"] not in ids])[:k]

    def _snapshot(self, tree: Tree) -> Snapshot:
        """The book's skills as of the version its tree was read at."""
        with self._snapshots_lock:
            cached = self._snapshots.get(tree.book)
        if cached is None or cached.version != tree.skills_version:
            cached = Snapshot(self.store, "skills", tree.book, VIEW_COLUMNS, tree.skills_version)
        with self._snapshots_lock:
            self._snapshots[tree.book] = cached
            self._snapshots.move_to_end(tree.book)
            while len(self._snapshots) > SNAPSHOTS:
                self._snapshots.popitem(last=False)
        return cached

    def _view_rows(self, snapshot: Snapshot, hits: list) -> list[tuple[dict, float]]:
        """The hits' rows as ``_skill_views`` reads them: whole already (a search on the snapshot
        returned them), else from the snapshot, else from the store."""
        rows = {h.row["id"]: h.row for h in hits if all(c in h.row for c in VIEW_COLUMNS)}
        wanted = [h.row["id"] for h in hits if h.row["id"] not in rows]
        rows.update(snapshot.rows(wanted))
        missing = [i for i in wanted if i not in rows]
        if missing:  # written since the snapshot was read
            rows.update((r["id"], r) for r in self.store.rows("skills", in_list("id", missing), VIEW_COLUMNS))
        return [(rows[h.row["id"]], h.score) for h in hits if h.row["id"] in rows]

    def _skill_views(self, rows: list[tuple[dict, float | None]], tree: Tree) -> list[SkillView]:
        rows = [(without_hidden(r, tree.hidden), score) for r, score in rows if r["id"] not in tree.hidden_skills]
        ids = [r["id"] for r, _ in rows]
        attached: dict[str, list[LessonView]] = {}
        for lesson in self.store.rows("lessons", in_list("skill_id", ids)) if ids and tree.lesson_counts else []:
            attached.setdefault(lesson["skill_id"], []).append(lesson_view(lesson))
        return [
            SkillView(
                id=r["id"], name=r["name"], when_to_use=r["when_to_use"], steps=json.loads(r["steps"] or "[]"),
                node_id=r["node_id"], path=tree.titles(r["node_id"]),
                evidence=[Evidence(**e) for e in json.loads(r["evidence"] or "[]")],
                sources=r["sources"], helpful=r["helpful"], harmful=r["harmful"], version=r["version"],
                author=r["author"], score=None if score is None else round(score, 6),
                lessons=attached.get(r["id"], []),
            )
            for r, score in rows
        ]

    # -- chess -------------------------------------------------------------------
    def evaluate_position(self, fen: str = "", moves: str = "", book: str = "", depth: int = 12,
                          multipv: int = 1) -> PositionReport:
        """Judge a chess position and ground it in the tutorials: rules, opening name, engine
        (or a labelled heuristic) and, kept apart, what the lessons teach there."""
        from tutorialbook.skills.chess import engine as chess_engine, openings
        from tutorialbook.skills.chess import positions

        if not 1 <= multipv <= 5:
            raise TutorialbookError("multipv", f"must be between 1 and 5, got {multipv}")
        if book:
            check_book_name(book)
        board = chess_engine.parse_position(fen or None, moves or None)
        opening = openings.classify(board)
        grounding = positions.ground_async(self, board, opening, book)  # runs while the engine searches
        status = chess_engine.describe(board)
        analysis = self.engine().analyse(board, depth=depth, multipv=multipv)
        taught, related = grounding.result()
        return PositionReport(
            status=PositionStatus(**{k: getattr(status, k) for k in PositionStatus.model_fields}),
            opening=OpeningName(eco=opening.eco, name=opening.name) if opening else None,
            engine=EngineView(
                source=analysis.source, engine=analysis.engine, depth=analysis.depth, cp=analysis.cp,
                cp_to_move=analysis.cp_to_move, mate=analysis.mate, note=analysis.note,
                lines=[EngineLine(san=l.san, cp=l.cp, mate=l.mate) for l in analysis.lines],
            ),
            taught=taught, related_skills=related,
        )

    def engine(self):
        """The library's chess engines (settings.engines processes at most, started on first use)."""
        if self._chess_engine is None:
            from tutorialbook.skills.chess.engine import EnginePool

            self._chess_engine = EnginePool(self.settings.engine_path, self.settings.engines)
        return self._chess_engine

    def close(self) -> None:
        if self._chess_engine is not None:
            self._chess_engine.close()
            self._chess_engine = None

    # -- history (memory/history.py) ----------------------------------------------
    def history(self, book: str, limit: int | None = None, action: str | None = None,
                target: str | None = None) -> list[hist.HistoryEvent]:
        """Who wrote what in a book, when: its events, newest first."""
        check_book_name(book)
        if not self.has_book(book) and not self.store.count(hist.EVENTS, f"book = {quote(book)}"):
            raise self.missing_book(book)
        if limit is not None and limit < 1:
            raise TutorialbookError("limit", f"must be at least 1, got {limit}")
        return hist.history(self.store, book, limit, action, target)

    def restore(self, book: str, to: str | None = None, at: float | str | None = None,
                agent: str | None = None) -> hist.RestoreReport:
        """Put one book back as it was just after event ``to``, or at time ``at`` (epoch
        seconds or ISO 8601); other books are untouched. A restore is a new version."""
        check_book_name(book)
        moment = hist.resolve_time(self.store, book, to, at)
        return hist.restore(self.store, book, moment, agent or self.agent)

    def revert_lesson(self, lesson_id: str, agent: str | None = None) -> hist.RevertReport:
        """Remove one lesson (and the helpful/harmful counts it gave); later writes stay."""
        return hist.revert_lesson(self.store, lesson_id, agent or self.agent)

    def revert_skill(self, skill_id: str, version: int | None = None,
                     agent: str | None = None) -> hist.RevertReport:
        """Put one skill's content back to an earlier version of that row (default: the one
        before the current), as a new version; its feedback counts and other rows stay."""
        return hist.revert_skill(self.store, skill_id, version, agent or self.agent)

    # -- documents (resources) ---------------------------------------------------
    def tutorials(self, book: str) -> list[TutorialInfo]:
        self.tree(book)
        rows = self.store.rows("tutorials", f"book = {quote(book)} AND status = 'ready'")
        return [self._tutorial_info(r) for r in sorted(rows, key=lambda r: r["created_at"])]

    def _tutorial_info(self, r: dict) -> TutorialInfo:
        return TutorialInfo(id=r["id"], book=r["book"], title=r["title"], source=r["source"], domain=r["domain"],
                            duration=r["duration"], timed=r["timed"], status=r["status"],
                            segments=self.store.count("segments", f"tutorial_id = {quote(r['id'])}"))

    def transcript_markdown(self, tutorial_id: str) -> str:
        row = self.store.get("tutorials", tutorial_id)
        if row is None or row["status"] != "ready":
            raise NotFound("tutorial_id", f"no tutorial {tutorial_id!r}" + (
                " (its commit has not finished)" if row is not None else ""))
        segments = sorted(self.store.rows("segments", f"tutorial_id = {quote(tutorial_id)}",
                                          ["idx", "start", "end", "text"]), key=lambda s: s["idx"])
        lines = [f"Title: {row['title']}", ""]
        said = []
        for s in segments:
            stamp = f"[{_clock(s['start'])}–{_clock(s['end'])}]" if row["timed"] else f"[chars {int(s['start'])}–{int(s['end'])}]"
            said.append((s["start"], 0, f"{stamp} {s['text']}"))
        shown = self.store.rows("screen", f"tutorial_id = {quote(tutorial_id)}", ["start", "end", "kind", "shown"])
        said += [(s["start"], 1, f"[{_clock(s['start'])}–{_clock(s['end'])}] on screen ({s['kind']}): "
                  + s["shown"].replace("\n", "\n    ")) for s in shown]  # beside the speech, by time
        lines += [line for _, _, line in sorted(said, key=lambda x: x[:2])]
        head = f"# Transcript of tutorial `{tutorial_id}` (book {row['book']!r})\n\nSource: {row['source']}\n\n"
        return head + quoting.quoted_block("Its title and every line below are", "\n".join(lines))

    def toc_markdown(self, book: str) -> str:
        tree = self.tree(book)
        names: dict[str, list[dict]] = {}
        for node_id, briefs in tree.skills_at.items():
            names[node_id] = [{**b, "node_id": node_id} for b in briefs]
        lines = [f"Book: {tree.nodes[tree.root_id]['title']}", ""]

        def walk(node_id: str, level: int) -> None:
            for child in tree.children.get(node_id, []):
                node = tree.nodes[child]
                lines.append(f"{'  ' * level}- **{node['title']}** (`{child}`) — {node['summary']}")
                for s in sorted(names.get(child, []), key=lambda s: s["name"]):
                    lines.append(f"{'  ' * (level + 1)}- skill: {s['name']} (`{s['id']}`, {s['sources']} source(s))")
                walk(child, level + 1)

        walk(tree.root_id, 0)
        return (f"# Table of contents of book {book!r}\n\n"
                + quoting.quoted_block("Every title, summary and skill name below is", "\n".join(lines)))

    def node_markdown(self, book: str, node_id: str) -> str:
        view = self.browse(book, node_id)
        lines = [f"Title: {view.node.title}", "", "Path: " + " › ".join(p.title for p in view.path + [view.node]), "",
                 view.node.summary, ""]
        for e in view.evidence:
            lines.append(f"> {e.quote}  \n> — {e.tutorial_title} {_span(e)}")
        if view.children:
            lines += ["", "## Sections"] + [f"- {c.title} (`{c.id}`): {c.summary}" for c in view.children]
        if view.skills:
            lines += ["", "## Skills"] + [f"- {s.name} (`{s.id}`)" for s in view.skills]
        return (f"# Node `{node_id or view.node.id}` of book {book!r}\n\n"
                + quoting.quoted_block("Its title, summary, evidence, sections and skills below are", "\n".join(lines)))


def _brief(tree: Tree, node_id: str, depth: int) -> NodeBrief:
    node = tree.nodes[node_id]
    kids = tree.children.get(node_id, [])
    return NodeBrief(
        id=node_id, title=node["title"], summary=node["summary"], kind=node["kind"], children=len(kids),
        skills=tree.skill_counts[node_id], subtree_skills=tree.subtree_skills(node_id),
        lessons=tree.lesson_counts[node_id],
        subnodes=[_brief(tree, c, depth - 1) for c in kids] if depth > 0 else [],
    )


def _root_id(book: str) -> str:
    return "n_root_" + hashlib.sha256(book.encode()).hexdigest()[:8]


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600:02d}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


def _span(e: Evidence) -> str:
    return f"[{_clock(e.start)}–{_clock(e.end)}]" if e.timed else f"[chars {int(e.start)}–{int(e.end)}]"
