"""The core object: a library opened on a store. The MCP tools, the CLI and Python callers
all call these methods; nothing lives only in a surface."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable

import numpy as np

from tutorialbook.config import Settings
from tutorialbook.errors import Cancelled, NotFound, TutorialbookError
from tutorialbook.memory import history as hist
from tutorialbook.memory import lessons as lesson_store
from tutorialbook.memory.embedder import DIM, get_embedder
from tutorialbook.memory.search import MODES, BookColumns, search, toc_descent
from tutorialbook.memory.store import Store, dumps, in_list, quote
from tutorialbook.memory.tree import Tree, TreeCache
from tutorialbook.models import (
    BookInfo, EngineLine, EngineView, Evidence, ExamReport, OpeningName, PositionReport, PositionStatus, FeedbackCount, IngestReport, LessonResult, LessonView, NodeBrief, NodeView,
    RefineReport, RetrieveResult, SkillBrief, SkillFeedback, SkillView, TutorialInfo, TutorialReport,
)
from tutorialbook.skills import builder as build
from tutorialbook.skills.domains import DOMAINS, DomainPack, get_pack, recognise
from tutorialbook.skills.sources import content_hash, expand, read_source

Progress = Callable[[float, float, str], None]
BOOK_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
MAX_K = 50
MAX_DEPTH = 5
#: tables whose rows belong to one tutorial and go when it is undone
TUTORIAL_TABLES = ("segments", "questions", "positions")
#: runs a retrieval's book lookup while its query is embedded and searched
_BACKGROUND = ThreadPoolExecutor(max_workers=4, thread_name_prefix="tutorialbook-retrieve")
#: what a SkillView is made of (``Library._view_rows`` keeps these columns of a book's skills)
VIEW_COLUMNS = ["id", "name", "when_to_use", "steps", "node_id", "evidence", "sources", "helpful", "harmful",
                "version", "author"]


class Library:
    """Tutorialbooks in one store."""

    def __init__(self, settings: Settings | None = None, **overrides):
        self.settings = settings or Settings()
        for key, value in overrides.items():
            if value is not None:
                setattr(self.settings, key, value)
        self._embedder = None
        self._chess_engine = None
        self.store = Store(self.settings.store, dim=self._embedder_dim())
        self._trees = TreeCache(self.store)
        self._views: dict[str, tuple[dict, BookColumns]] = {}  # book -> (its tree's skills, their view columns)
        self._recover_abandoned()

    def _recover_abandoned(self) -> None:
        """Undo tutorials whose ingesting process died mid-commit, so no partial tutorial
        survives a crash."""
        for row in self.store.rows("tutorials", "status = 'committing'"):
            host, _, pid = row["owner"].partition(":")
            if host == socket.gethostname() and pid.isdigit() and not _alive(int(pid)):
                self._recover(row)

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
            out.append(BookInfo(
                name=row["id"], title=row["title"],
                tutorials=self.store.count("tutorials", where + " AND status = 'ready'"),
                nodes=self.store.count("nodes", where), skills=self.store.count("skills", where),
                lessons=self.store.count("lessons", where),
            ))
        return out

    def ensure_book(self, book: str, title: str = "") -> Tree:
        _check_book_name(book)
        self.store.insert_if_absent("books", [{"id": book, "book": book, "title": title or book, "created_at": time.time()}])
        root = {"id": _root_id(book), "book": book, "parent_id": "", "position": 0, "title": title or book,
                "summary": f"Everything the tutorials of {book!r} teach.", "kind": "book", "evidence": "[]",
                "version": 1, "text": title or book, "updated_at": time.time(), "vector": self.embed([book])[0]}
        self.store.insert_if_absent("nodes", [root])
        return self._trees.get(book)

    def tree(self, book: str) -> Tree:
        _check_book_name(book)
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

    # -- ingest ----------------------------------------------------------------
    def ingest(self, source: str, book: str = "default", title: str | None = None, domain: str = "auto",
               progress: Progress | None = None, cancel: Callable[[], bool] | None = None,
               refine_rounds: int = 1, agent: str | None = None, llm=None) -> IngestReport:
        """Read, consolidate and commit every tutorial a source names, then refine the memory
        with questions harvested from each (``refine_rounds`` repair rounds; 0 skips it).
        ``agent`` (who asked; default settings.agent) goes into the book's history. ``llm``
        (skills/llm.py; default: the configured model, settings.llm) consolidates and refines
        when set; each tutorial's report carries its warnings and usage."""
        llm = self.llm() if llm is None else llm
        if domain not in DOMAINS:
            raise TutorialbookError("domain", f"{domain!r} is not one of {', '.join(DOMAINS)}")
        _check_rounds(refine_rounds, "refine_rounds", minimum=0)
        _check_book_name(book)
        files = expand(source)
        if title and len(files) > 1:
            raise TutorialbookError("title", "a title applies to one file; a folder's tutorials are titled by file name")
        reports = []
        for n, path in enumerate(files):
            def file_progress(done: float, total: float, message: str, n=n) -> None:
                if progress:
                    progress(n + (done / total if total else 0), len(files), f"{path.name}: {message}")
            reports.append(self._ingest_file(path, book, title or _title_from(path), domain, file_progress, cancel,
                                             refine_rounds, agent=agent, llm=llm))
        return IngestReport(book=book, tutorials=reports)

    def _ingest_file(self, path: Path, book: str, title: str, domain: str, progress: Progress,
                     cancel: Callable[[], bool] | None, refine_rounds: int = 1,
                     agent: str | None = None, llm=None) -> TutorialReport:
        timings: dict[str, float] = {}
        clock = time.perf_counter()
        digest = content_hash(path)
        tutorial_id = "t_" + hashlib.sha256(f"{book}\n{digest}".encode()).hexdigest()[:16]
        existing = self.store.get("tutorials", tutorial_id)
        if existing and existing["status"] == "ready":
            return self._exam_fields(TutorialReport(
                tutorial_id=tutorial_id, title=existing["title"], source=str(path), status="unchanged",
                domain=existing["domain"], duration=existing["duration"],
                segments=self.store.count("segments", f"tutorial_id = {quote(tutorial_id)}")))
        if existing:
            self._recover(existing)

        def check_cancel() -> None:
            if cancel and cancel():
                raise Cancelled(f"ingest of {path.name} cancelled; nothing was written")

        progress(0, 4, "reading")

        def heard(done: float, total: float) -> None:
            progress(done / total if total else 0, 4, f"transcribing {done:.0f}/{total:.0f} s of audio")

        pack = get_pack(domain) if domain != "auto" else recognise(f"{title} {path.name}")
        transcript = read_source(path, model=self.settings.whisper_model, progress=heard, cancel=cancel,
                                 initial_prompt=pack.initial_prompt if pack else None)
        if pack is None:  # auto, and the name did not tell: the transcript decides
            pack = recognise(" ".join(s.text for s in transcript.segments)) or DomainPack()
            if pack.initial_prompt and transcript.timed:
                transcript = read_source(path, model=self.settings.whisper_model, progress=heard,
                                         cancel=cancel, initial_prompt=pack.initial_prompt)
        timings["acquire"] = _lap(clock)
        check_cancel()
        progress(1, 4, "embedding")
        clock = time.perf_counter()
        vectors = self.embed([s.text for s in transcript.segments])
        timings["embed"] = _lap(clock)
        check_cancel()
        progress(2, 4, "consolidating")
        clock = time.perf_counter()
        tree = self.ensure_book(book)
        context = build.TutorialContext(tutorial_id, title, path.resolve().as_uri(), transcript, vectors)
        run = llm.fork() if llm is not None else None  # this tutorial's model calls, warnings and usage
        outline = pack.outline(context)
        if run is not None and type(pack).outline is DomainPack.outline:  # a pack's own structure stays
            from tutorialbook.skills.llm_consolidate import llm_outline

            outline = llm_outline(run, context, outline)
        plan = build.Builder(self.store, self.embed, book, tree).build(context, outline)
        extra = pack.extra_rows(context, plan)
        timings["consolidate"] = _lap(clock)
        check_cancel()
        progress(3, 4, "committing")
        clock = time.perf_counter()
        report = TutorialReport(
            tutorial_id=tutorial_id, title=title, source=str(path), status="added", domain=pack.name,
            duration=transcript.duration, segments=len(transcript.segments),
            nodes_added=plan.nodes_added, nodes_updated=plan.nodes_updated,
            skills_added=plan.skills_added, skills_updated=plan.skills_updated,
            warnings=transcript.warnings,
        )
        _note_llm(report, run)
        self._commit(book, tutorial_id, title, path, digest, transcript, vectors, plan, extra, report, agent)
        timings["commit"] = _lap(clock)
        if refine_rounds:
            clock = time.perf_counter()
            self._refine_new(book, tutorial_id, pack, refine_rounds, report, progress, cancel, agent, run)
            timings["refine"] = _lap(clock)
        report.stage_seconds = timings
        progress(4, 4, "done")
        return report

    def _refine_new(self, book: str, tutorial_id: str, pack, rounds: int, report: TutorialReport,
                    progress: Progress, cancel, agent: str | None = None, llm=None) -> None:
        """Refine the memory with the just-committed tutorial's questions (after the commit:
        a cancel or crash here leaves a complete tutorial, just less refined)."""
        tutorial = self.store.get("tutorials", tutorial_id)
        summary, _ = self._refiner(book, agent, llm).refine_tutorial(
            tutorial, rounds, pack, cancel, lambda message: progress(3.5, 4, f"refining: {message}"))
        report.questions_harvested = summary.questions
        report.pass_rate_before, report.pass_rate_after = summary.pass_rate_before, summary.pass_rate_after
        report.repairs = summary.skills_added + summary.skills_extended + summary.skills_moved
        _note_llm(report, llm)
        self.store.update("tutorials", f"id = {quote(tutorial_id)}", {"report": report.model_dump_json()})

    def llm(self):
        """A fresh run of the configured model (settings.llm: a litellm model string, or
        'sampling', which outside an MCP call only explains itself), or None for 'none'."""
        from tutorialbook.skills.llm import from_settings

        return from_settings(self.settings)

    def _refiner(self, book: str, agent: str | None = None, llm=None):
        from tutorialbook.skills.refine import Refiner

        if llm is None:
            return Refiner(self, book, agent=agent)
        from tutorialbook.skills.llm_refine import LLMRefiner

        return LLMRefiner(self, book, llm, agent=agent)

    def _exam_fields(self, report: TutorialReport) -> TutorialReport:
        """A tutorial ingested before: its stored questions' pass rates."""
        rows = self.store.rows("questions", f"tutorial_id = {quote(report.tutorial_id)}",
                               ["passed_before", "passed_after"])
        if rows:
            report.questions_harvested = len(rows)
            report.pass_rate_before = round(sum(bool(r["passed_before"]) for r in rows) / len(rows), 4)
            report.pass_rate_after = round(sum(bool(r["passed_after"]) for r in rows) / len(rows), 4)
        return report

    # -- refinement ------------------------------------------------------------------
    def refine(self, book: str, rounds: int = 1, progress: Progress | None = None,
               cancel: Callable[[], bool] | None = None, agent: str | None = None) -> RefineReport:
        """Examine a book with questions harvested from each of its tutorials (stored ones
        are asked again) and repair every failure; ``rounds`` repair rounds at most."""
        _check_rounds(rounds, "rounds", minimum=1)
        self.tree(book)
        tutorials = sorted(self.store.rows("tutorials", f"book = {quote(book)} AND status = 'ready'"),
                           key=lambda r: r["created_at"])
        run = self.llm()
        refiner = self._refiner(book, agent, run)
        summaries, failures = [], []
        for n, tutorial in enumerate(tutorials):
            if cancel and cancel():
                break

            def say(message: str, n=n, title=tutorial["title"]) -> None:
                if progress:
                    progress(n, len(tutorials), f"{title}: {message}")

            summary, results = refiner.refine_tutorial(tutorial, rounds, _pack_of(tutorial), cancel, say)
            summaries.append(summary)
            failures += [r for r in results if not r.passed]
        if progress:
            progress(len(tutorials), len(tutorials), "done")
        total = sum(s.questions for s in summaries)

        def overall(field: str) -> float | None:
            weighted = [(getattr(s, field), s.questions) for s in summaries if getattr(s, field) is not None]
            return round(sum(r * n for r, n in weighted) / total, 4) if total else None

        return RefineReport(book=book, questions=total, pass_rate_before=overall("pass_rate_before"),
                            pass_rate_after=overall("pass_rate_after"), tutorials=summaries, failures=failures,
                            warnings=run.warnings if run else [], llm=run.usage if run else None)

    def exam(self, book: str, progress: Progress | None = None) -> ExamReport:
        """Ask a book's stored questions again, from the memory alone; nothing is written.
        Regressions are questions that passed after refinement and fail now."""
        from tutorialbook.skills.refine import by_kind, pass_rate

        self.tree(book)
        rows = sorted(self.store.rows("questions", f"book = {quote(book)}"),
                      key=lambda r: (r["tutorial_id"], r["created_at"], r["id"]))
        if not rows:
            return ExamReport(book=book, questions=0, passed=0, pass_rate=None,
                              note="no stored questions: run `tutorialbook refine --book B` (or ingest with refinement)")
        tutorials = {r["id"]: r for r in self.store.rows("tutorials", f"book = {quote(book)}")}
        packs = {tid: _pack_of(t) for tid, t in tutorials.items()}
        run = self.llm()  # the judge refinement used (a model's verdicts are checked by a model again)
        results = self._refiner(book, None, run).exam(rows, packs)
        return ExamReport(
            book=book, questions=len(results), passed=sum(r.passed for r in results), pass_rate=pass_rate(results),
            by_kind=by_kind(results), regressions=[r for r in results if r.passed_after and not r.passed],
            failures=[r for r in results if not r.passed], note=" ".join(run.warnings) if run else "",
        )

    def _commit(self, book, tutorial_id, title, path, digest, transcript, vectors, plan, extra, report,
                agent: str | None = None) -> None:
        """Write a tutorial in an order recovery can undo: the tutorial row says
        'committing' until every table is written, then 'ready'."""
        row = {
            "id": tutorial_id, "book": book, "title": title, "source": str(path.resolve()),
            "content_hash": digest, "duration": transcript.duration, "timed": transcript.timed,
            "language": transcript.language, "domain": report.domain, "models": dumps(transcript.models),
            "status": "committing", "owner": _owner(), "report": "", "created_at": time.time(),
        }
        self.store.upsert("tutorials", [row])
        self.store.insert("segments", [
            {"id": f"{tutorial_id}:{i}", "book": book, "tutorial_id": tutorial_id, "idx": i,
             "start": s.start, "end": s.end, "text": s.text, "vector": vectors[i]}
            for i, s in enumerate(transcript.segments)
        ])
        nodes = self.store.upsert("nodes", [build.clean_row(n) for n in plan.nodes])
        before = hist.skills_before(self.store, [s["id"] for s in plan.skills if s.get("_status") == "updated"])
        skills = self.store.upsert("skills", [build.clean_row(s) for s in plan.skills])
        for table, rows in extra.items():
            self.store.insert(table, rows)
        done = self.store.update("tutorials", f"id = {quote(tutorial_id)}",
                                 {"status": "ready", "report": report.model_dump_json()})
        versions = {"tutorials": hist.version_of(done), "nodes": hist.version_of(nodes),
                    "skills": hist.version_of(skills)}
        added = [s["id"] for s in plan.skills if s.get("_status") == "added"]
        hist.record(self.store, [hist.ingest_event(book, agent or self.agent, report, before, versions, added)])

    def _recover(self, tutorial: dict) -> None:
        """Undo a tutorial whose commit never finished (its process died)."""
        host, _, pid = tutorial["owner"].partition(":")
        if host == socket.gethostname() and pid.isdigit() and _alive(int(pid)) and int(pid) != os.getpid():
            raise TutorialbookError("source", f"{tutorial['title']!r} is being ingested by process {pid}; try again when it ends")
        tid = tutorial["id"]
        for table in TUTORIAL_TABLES:
            self.store.delete(table, f"tutorial_id = {quote(tid)}")
        for table in ("skills", "nodes"):
            for row in self.store.rows(table, f"evidence LIKE {quote('%' + tid + '%')} OR origin = {quote(tid)}"):
                kept = [e for e in json.loads(row["evidence"] or "[]") if e["tutorial_id"] != tid]
                if row["origin"] == tid and not kept:
                    self.store.delete(table, f"id = {quote(row['id'])}")
                    continue
                row = {k: v for k, v in row.items() if not k.startswith("_")}
                row["evidence"] = json.dumps(kept)
                if table == "skills":
                    row["sources"] = len({e["tutorial_id"] for e in kept})
                self.store.upsert(table, [row])
        self.store.delete("tutorials", f"id = {quote(tid)}")

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
            lessons=[_lesson_view(r) for r in lessons],
        )

    def skill(self, skill_id: str) -> SkillView:
        row = self.store.get("skills", skill_id)
        if row is None:
            raise NotFound("skill_id", f"no skill {skill_id!r}")
        return self._skill_views([(row, None)], self.tree(row["book"]))[0]

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

    def import_skills(self, book: str, directory: str, progress: Progress | None = None):
        """Read Agent Skills folders into a book; importing the same folders again changes nothing."""
        from tutorialbook.skills.agent_skills import import_skills

        return import_skills(self, book, directory, progress)

    def retrieve(self, query: str, book: str, k: int = 5, mode: str = "hybrid", fen: str = "",
                 llm=None) -> RetrieveResult:
        """Skills for a task. In ``toc`` mode a model (``llm``, default the configured one)
        navigates the TOC level by level when there is one; else, or when it fails, the beam."""
        if not query or not query.strip():
            raise TutorialbookError("query", "is empty; describe the task you need skills for")
        if not 1 <= k <= MAX_K:
            raise TutorialbookError("k", f"must be between 1 and {MAX_K}, got {k}")
        if mode not in MODES:
            raise TutorialbookError("mode", f"{mode!r} is not one of {', '.join(MODES)}")
        pending = _BACKGROUND.submit(self.tree, book)  # looked up while the query is embedded and searched
        vector = functools.cache(lambda: self.embed([query])[0])  # a hybrid search embeds meanwhile
        run = (self.llm() if llm is None else llm) if mode == "toc" else None
        if run is not None:
            from tutorialbook.skills.llm_toc import retrieve_toc

            hits, route = retrieve_toc(self.store, pending.result(), query, vector(), k, run)
        else:
            hits, route = self.rank_skills(query, book, k, mode, vector, tree=pending.result() if mode == "toc" else None,
                                           columns=["id"])
        tree = pending.result()
        if fen:
            hits = self._position_first(fen, book, hits, k)
        lessons = search(self.store, "lessons", book, query, vector, "hybrid", 3) if tree.lesson_counts else []
        return RetrieveResult(
            query=query, book=book, mode=mode,
            skills=self._skill_views(self._view_rows(book, tree, hits), tree),
            lessons=[_lesson_view(h.row, h.score) for h in lessons], route=route,
            warnings=list(run.warnings) if run else [], llm=run.usage if run and run.usage.calls else None,
        )

    def rank_skills(self, query: str, book: str, k: int = 5, mode: str = "hybrid", vector=None, *,
                    tree: Tree | None = None, columns: list[str] | None = None):
        """The skill ranking ``retrieve`` returns — (hits, TOC route) — without lessons or views;
        refinement asks its questions through it. ``vector`` may be a function computing it
        (see ``search``); ``columns`` limits what the hits' rows carry; ``tree`` is the book's
        (only the ``toc`` mode reads it). A query that spells out chess moves from the start
        ranks the skills that continue those moves first."""
        from tutorialbook.skills.chess import query as chess_query

        if vector is None:
            vector = functools.cache(lambda: self.embed([query])[0])
        moves = chess_query.moves_in(query)  # "after 1. e4 e5 2. Nf3 …" names a position
        pool = max(k, chess_query.POOL) if moves else k
        if moves and columns:
            columns = [*columns, "name", "steps"]
        if mode == "toc":
            hits, route = toc_descent(self.store, tree or self.tree(book), query, vector, pool, columns)
        else:
            hits, route = search(self.store, "skills", book, query, vector, mode, pool, columns=columns), []
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

    def _view_rows(self, book: str, tree: Tree, hits: list) -> list[tuple[dict, float]]:
        """The hits' rows as ``_skill_views`` reads them: from the book's copy of those columns,
        kept while its tree is current (so retrieval's queries read only ids), else the store."""
        cached = self._views.get(book)
        if cached is None or cached[0] is not tree.skills_at:
            cached = (tree.skills_at, BookColumns(self.store, "skills", book, VIEW_COLUMNS))
            self._views[book] = cached
        ids = [h.row["id"] for h in hits]
        rows = cached[1].rows(ids)
        missing = [i for i in ids if i not in rows]
        if missing:  # written since the copy was read
            rows.update((r["id"], r) for r in self.store.rows("skills", in_list("id", missing), VIEW_COLUMNS))
        return [(rows[h.row["id"]], h.score) for h in hits if h.row["id"] in rows]

    def _skill_views(self, rows: list[tuple[dict, float | None]], tree: Tree) -> list[SkillView]:
        ids = [r["id"] for r, _ in rows]
        attached: dict[str, list[LessonView]] = {}
        for lesson in self.store.rows("lessons", in_list("skill_id", ids)) if ids and tree.lesson_counts else []:
            attached.setdefault(lesson["skill_id"], []).append(_lesson_view(lesson))
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

    # -- lessons -----------------------------------------------------------------
    def record_lesson(self, lesson: str, book: str, outcome: str = "note", skill_id: str = "", node_id: str = "",
                      context: str = "", feedback: list[SkillFeedback] | None = None,
                      agent: str | None = None) -> LessonResult:
        """Store (or count again) one lesson. ``agent`` is who learned it (over HTTP: the
        caller's token); by default settings.agent."""
        item = {"lesson": lesson, "outcome": outcome, "skill_id": skill_id, "node_id": node_id,
                "context": context, "feedback": feedback}
        return self._record_lessons([item], book, agent, single=True)[0]

    def record_lessons(self, lessons: list[dict], book: str, agent: str | None = None) -> list[LessonResult]:
        """Record many lessons of one book at once. Each item takes record_lesson's arguments
        (``lesson``, ``outcome``, ``skill_id``, ``node_id``, ``context``, ``feedback``). All are
        checked before anything is written; then the new lessons are one commit, merges one
        update, feedback one update per skill, and their history one commit."""
        if not isinstance(lessons, list) or not lessons:
            raise TutorialbookError("lessons", "give a non-empty list of lessons")
        return self._record_lessons(lessons, book, agent, single=False)

    def _record_lessons(self, items: list, book: str, agent: str | None, single: bool) -> list[LessonResult]:
        agent = agent or self.agent
        tree = self.tree(book)
        plans = [self._lesson_plan(item, book, tree, "" if single else f"lessons[{n}].")
                 for n, item in enumerate(items)]
        vectors = self.embed([p["text"] for p in plans])
        for plan, vector in zip(plans, vectors):
            plan["vector"] = vector
            if not plan["node_id"]:
                plan["node_id"] = self._best_node(tree, plan["text"], vector)
                plan["attached"] = ("root:" if plan["node_id"] == tree.root_id else "node:") + plan["node_id"]
        now = time.time()
        rows = []
        ids = [lesson_store.lesson_id(book, f"skill:{p['skill_id']}" if p["skill_id"] else f"node:{p['node_id']}",
                                      p["text"]) for p in plans]
        for plan, row_id, similar in zip(plans, ids, self._similar_lessons(book, ids, vectors)):
            target = f"skill:{plan['skill_id']}" if plan["skill_id"] else f"node:{plan['node_id']}"
            plan["similar"] = similar
            rows.append({
                "id": row_id, "book": book, "text": plan["text"], "outcome": plan["outcome"],
                "context": plan["context"], "skill_id": plan["skill_id"], "node_id": plan["node_id"],
                "agent": agent, "key": target, "merged_count": 1, "created_at": now, "updated_at": now,
                "vector": plan["vector"].tolist(),
            })
        # new ids in one commit; an id already stored (or repeated in this batch) is counted
        with self.store.lock("lessons"):
            present = {r["id"] for r in self.store.rows("lessons", in_list("id", [r["id"] for r in rows]), ["id"])}
            fresh: dict[str, dict] = {}
            extra: dict[str, int] = {}
            merged_flags = []
            for row in rows:
                if row["id"] in present or row["id"] in fresh:
                    extra[row["id"]] = extra.get(row["id"], 0) + 1
                    merged_flags.append(True)
                else:
                    fresh[row["id"]] = row
                    merged_flags.append(False)
            written = self.store.insert("lessons", list(fresh.values()))
            by_count: dict[int, list[str]] = {}
            for row_id, n in extra.items():
                by_count.setdefault(n, []).append(row_id)
            for n, ids in by_count.items():
                written = self.store.update_sql("lessons", in_list("id", ids),
                                                {"merged_count": f"merged_count + {n}", "updated_at": repr(now)})
        stored = {r["id"]: r for r in self.store.rows("lessons", in_list("id", [r["id"] for r in rows]))}
        # feedback: one update per skill for the whole batch
        verdicts_of = []
        totals: dict[str, dict[str, int]] = {}
        for plan in plans:
            verdicts = list(plan["verdicts"])
            sid = plan["skill_id"]
            if sid and plan["outcome"] in ("success", "failure") and sid not in {s for s, _ in verdicts}:
                verdicts.append((sid, "helpful" if plan["outcome"] == "success" else "harmful"))
            verdicts_of.append(verdicts)
            for s, verdict in verdicts:
                column = "helpful" if verdict == "helpful" else "harmful"
                totals.setdefault(s, {}).setdefault(column, 0)
                totals[s][column] += 1
        for s, columns in totals.items():
            self.store.update_sql("skills", f"id = {quote(s)}", {c: f"{c} + {n}" for c, n in columns.items()})
        counts = {r["id"]: r for r in self.store.rows("skills", in_list("id", list(totals)))} if totals else {}
        version = hist.version_of(written)
        hist.record(self.store, [
            hist.lesson_event(book, agent, stored.get(row["id"], row), merged, verdicts, version, time.time())
            for row, merged, verdicts in zip(rows, merged_flags, verdicts_of)
        ])
        results = []
        for plan, row, merged, verdicts in zip(plans, rows, merged_flags, verdicts_of):
            now_row = stored.get(row["id"], row)
            results.append(LessonResult(
                lesson_id=row["id"], merged=merged, merged_count=now_row["merged_count"], attached_to=plan["attached"],
                similar=[_lesson_view(r, 1 - r["_distance"]) for r in plan["similar"]],
                feedback=[FeedbackCount(skill_id=c["id"], helpful=c["helpful"], harmful=c["harmful"])
                          for c in (counts[s] for s in dict.fromkeys(s for s, _ in verdicts) if s in counts)],
            ))
        return results

    def _similar_lessons(self, book: str, ids: list[str], vectors: np.ndarray, k: int = 5) -> list[list[dict]]:
        """Stored lessons similar to each new one (itself excluded): one vector query for a whole batch."""
        table = self.store.table("lessons")
        if len(ids) == 1:
            hits = [table.search(vectors[0].tolist()).distance_type("cosine")
                    .where(f"book = {quote(book)} AND id != {quote(ids[0])}", prefilter=True).limit(k).to_list()]
        else:
            hits = [[] for _ in ids]
            for r in (table.search([v.tolist() for v in vectors]).distance_type("cosine")
                      .where(f"book = {quote(book)}", prefilter=True).limit(k + 1).to_list()):
                hits[r.pop("query_index")].append(r)
            hits = [sorted((r for r in found if r["id"] != own), key=lambda r: r["_distance"])[:k]
                    for found, own in zip(hits, ids)]
        return [[r for r in found if 1 - r["_distance"] >= lesson_store.SIMILAR] for found in hits]

    def _lesson_plan(self, item, book: str, tree: Tree, prefix: str) -> dict:
        """One lesson's checked arguments (errors name the field, prefixed in a batch)."""
        get = item.get if isinstance(item, dict) else lambda k, d=None: getattr(item, k, d)
        text = (get("lesson") or "").strip() if isinstance(get("lesson") or "", str) else ""
        outcome, skill_id, node_id = get("outcome") or "note", get("skill_id") or "", get("node_id") or ""
        context = get("context") or ""
        if not text:
            raise TutorialbookError(prefix + "lesson", "is empty; say what worked or what did not")
        if len(text) > lesson_store.MAX_LESSON_CHARS:
            raise TutorialbookError(prefix + "lesson", f"is {len(text)} characters; the limit is {lesson_store.MAX_LESSON_CHARS}")
        if outcome not in lesson_store.OUTCOMES:
            raise TutorialbookError(prefix + "outcome", f"{outcome!r} is not one of {', '.join(lesson_store.OUTCOMES)}")
        if len(context) > lesson_store.MAX_LESSON_CHARS:
            raise TutorialbookError(prefix + "context", f"is over {lesson_store.MAX_LESSON_CHARS} characters")
        verdicts = []
        for f in get("feedback") or []:
            f = f if isinstance(f, SkillFeedback) else SkillFeedback.model_validate(f)
            self._skill_in_book(f.skill_id, book, prefix + "feedback")
            verdicts.append((f.skill_id, f.verdict))
        if skill_id:
            node_id = self._skill_in_book(skill_id, book, prefix + "skill_id")["node_id"]
            attached = f"skill:{skill_id}"
        elif node_id:
            if node_id not in tree.nodes:
                raise NotFound(prefix + "node_id", f"no node {node_id!r} in book {book!r}")
            attached = f"node:{node_id}"
        else:
            attached = ""  # the best-matching node, once the text is embedded
        return {"text": text, "outcome": outcome, "context": context, "skill_id": skill_id, "node_id": node_id,
                "attached": attached, "verdicts": verdicts}

    def _skill_in_book(self, skill_id: str, book: str, field: str) -> dict:
        row = self.store.get("skills", skill_id)
        if row is None or row["book"] != book:
            raise NotFound(field, f"no skill {skill_id!r} in book {book!r}")
        return row

    def _best_node(self, tree: Tree, text: str, vector: np.ndarray) -> str:
        hits = search(self.store, "nodes", tree.book, text, vector, "vector", 1, "kind != 'book'")
        return hits[0].row["id"] if hits and hits[0].score >= 0.35 else tree.root_id

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
            _check_book_name(book)
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
        """One chess engine process per library, started on first use."""
        if self._chess_engine is None:
            from tutorialbook.skills.chess.engine import Engine

            self._chess_engine = Engine(self.settings.engine_path)
        return self._chess_engine

    def close(self) -> None:
        if self._chess_engine is not None:
            self._chess_engine.close()
            self._chess_engine = None

    # -- history (memory/history.py) ----------------------------------------------
    def history(self, book: str, limit: int | None = None, action: str | None = None,
                target: str | None = None) -> list[hist.HistoryEvent]:
        """Who wrote what in a book, when: its events, newest first."""
        _check_book_name(book)
        if not self.has_book(book) and not self.store.count(hist.EVENTS, f"book = {quote(book)}"):
            raise self.missing_book(book)
        if limit is not None and limit < 1:
            raise TutorialbookError("limit", f"must be at least 1, got {limit}")
        return hist.history(self.store, book, limit, action, target)

    def restore(self, book: str, to: str | None = None, at: float | str | None = None,
                agent: str | None = None) -> hist.RestoreReport:
        """Put one book back as it was just after event ``to``, or at time ``at`` (epoch
        seconds or ISO 8601); other books are untouched. A restore is a new version."""
        _check_book_name(book)
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
        rows = self.store.rows("tutorials", f"book = {quote(book)}")
        return [self._tutorial_info(r) for r in sorted(rows, key=lambda r: r["created_at"])]

    def _tutorial_info(self, r: dict) -> TutorialInfo:
        return TutorialInfo(id=r["id"], book=r["book"], title=r["title"], source=r["source"], domain=r["domain"],
                            duration=r["duration"], timed=r["timed"], status=r["status"],
                            segments=self.store.count("segments", f"tutorial_id = {quote(r['id'])}"))

    def transcript_markdown(self, tutorial_id: str) -> str:
        row = self.store.get("tutorials", tutorial_id)
        if row is None:
            raise NotFound("tutorial_id", f"no tutorial {tutorial_id!r}")
        segments = sorted(self.store.rows("segments", f"tutorial_id = {quote(tutorial_id)}",
                                          ["idx", "start", "end", "text"]), key=lambda s: s["idx"])
        lines = [f"# {row['title']}", "", f"Source: {row['source']}", ""]
        for s in segments:
            stamp = f"[{_clock(s['start'])}–{_clock(s['end'])}]" if row["timed"] else f"[chars {int(s['start'])}–{int(s['end'])}]"
            lines.append(f"{stamp} {s['text']}")
        return "\n".join(lines) + "\n"

    def toc_markdown(self, book: str) -> str:
        tree = self.tree(book)
        names: dict[str, list[dict]] = {}
        for s in self.store.rows("skills", f"book = {quote(book)}", ["id", "node_id", "name", "sources"]):
            names.setdefault(s["node_id"], []).append(s)
        lines = [f"# {tree.nodes[tree.root_id]['title']}", ""]

        def walk(node_id: str, level: int) -> None:
            for child in tree.children.get(node_id, []):
                node = tree.nodes[child]
                lines.append(f"{'  ' * level}- **{node['title']}** (`{child}`) — {node['summary']}")
                for s in sorted(names.get(child, []), key=lambda s: s["name"]):
                    lines.append(f"{'  ' * (level + 1)}- skill: {s['name']} (`{s['id']}`, {s['sources']} source(s))")
                walk(child, level + 1)

        walk(tree.root_id, 0)
        return "\n".join(lines) + "\n"

    def node_markdown(self, book: str, node_id: str) -> str:
        view = self.browse(book, node_id)
        lines = [f"# {view.node.title}", "", " › ".join(p.title for p in view.path + [view.node]), "",
                 view.node.summary, ""]
        for e in view.evidence:
            lines.append(f"> {e.quote}  \n> — {e.tutorial_title} {_span(e)}")
        if view.children:
            lines += ["", "## Sections"] + [f"- {c.title} (`{c.id}`): {c.summary}" for c in view.children]
        if view.skills:
            lines += ["", "## Skills"] + [f"- {s.name} (`{s.id}`)" for s in view.skills]
        return "\n".join(lines) + "\n"


def _note_llm(report: TutorialReport, run) -> None:
    """A tutorial's model usage and warnings into its report."""
    if run is not None:
        report.warnings = list(dict.fromkeys([*report.warnings, *run.warnings]))
        report.llm = run.usage.model_copy()


def _brief(tree: Tree, node_id: str, depth: int) -> NodeBrief:
    node = tree.nodes[node_id]
    kids = tree.children.get(node_id, [])
    return NodeBrief(
        id=node_id, title=node["title"], summary=node["summary"], kind=node["kind"], children=len(kids),
        skills=tree.skill_counts[node_id], subtree_skills=tree.subtree_skills(node_id),
        lessons=tree.lesson_counts[node_id],
        subnodes=[_brief(tree, c, depth - 1) for c in kids] if depth > 0 else [],
    )


def _lesson_view(row: dict, score: float | None = None) -> LessonView:
    return LessonView(id=row["id"], text=row["text"], outcome=row["outcome"], context=row["context"],
                      skill_id=row["skill_id"], node_id=row["node_id"], agent=row["agent"],
                      merged_count=row["merged_count"], score=None if score is None else round(float(score), 6))


def _check_rounds(rounds, field: str, minimum: int) -> None:
    from tutorialbook.skills.refine import MAX_ROUNDS

    if isinstance(rounds, bool) or not isinstance(rounds, int) or not minimum <= rounds <= MAX_ROUNDS:
        raise TutorialbookError(field, f"must be a whole number from {minimum} to {MAX_ROUNDS}, got {rounds!r}")


def _pack_of(tutorial: dict):
    """The domain pack a stored tutorial was ingested with (the general pack if unknown)."""
    try:
        return get_pack(tutorial["domain"])
    except Exception:  # a pack that is gone or fails to load: general questions still apply
        return DomainPack()


def _check_book_name(book: str) -> None:
    if not isinstance(book, str) or not BOOK_NAME.match(book):
        raise TutorialbookError("book", f"{book!r} is not a valid book name (lowercase letters, digits, '.', '_', '-'; up to 64)")


def _root_id(book: str) -> str:
    return "n_root_" + hashlib.sha256(book.encode()).hexdigest()[:8]


def _title_from(path: Path) -> str:
    return re.sub(r"[_-]+", " ", path.stem).strip().capitalize() or path.name


def _owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _lap(start: float) -> float:
    return round(time.perf_counter() - start, 4)


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600:02d}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


def _span(e: Evidence) -> str:
    return f"[{_clock(e.start)}–{_clock(e.end)}]" if e.timed else f"[chars {int(e.start)}–{int(e.end)}]"
