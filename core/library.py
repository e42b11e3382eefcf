"""The core object: a library opened on a store. The MCP tools, the CLI and Python callers
all call these methods; nothing lives only in a surface."""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import time
from pathlib import Path
from typing import Callable

import numpy as np

from tutorialbook.config import Settings
from tutorialbook.errors import Cancelled, NotFound, TutorialbookError
from tutorialbook.memory import lessons as lesson_store
from tutorialbook.memory.embedder import DIM, get_embedder
from tutorialbook.memory.search import MODES, search, toc_descent
from tutorialbook.memory.store import Store, dumps, in_list, quote
from tutorialbook.memory.tree import Tree, TreeCache
from tutorialbook.models import (
    BookInfo, Evidence, FeedbackCount, IngestReport, LessonResult, LessonView, NodeBrief, NodeView,
    RetrieveResult, SkillBrief, SkillFeedback, SkillView, TutorialInfo, TutorialReport,
)
from tutorialbook.skills import builder as build
from tutorialbook.skills.sources import content_hash, expand, read_source

Progress = Callable[[float, float, str], None]
BOOK_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
MAX_K = 50
MAX_DEPTH = 5
DOMAINS = ("auto", "general")


class Library:
    """Tutorialbooks in one store."""

    def __init__(self, settings: Settings | None = None, **overrides):
        self.settings = settings or Settings()
        for key, value in overrides.items():
            if value is not None:
                setattr(self.settings, key, value)
        self._embedder = None
        self.store = Store(self.settings.store, dim=self._embedder_dim())
        self._trees = TreeCache(self.store)
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
            known = ", ".join(b["id"] for b in self.store.rows("books", columns=["id"])) or "none yet"
            raise NotFound("book", f"no book named {book!r} (known books: {known})")
        return tree

    # -- ingest ----------------------------------------------------------------
    def ingest(self, source: str, book: str = "default", title: str | None = None, domain: str = "auto",
               progress: Progress | None = None, cancel: Callable[[], bool] | None = None) -> IngestReport:
        """Read, consolidate and commit every tutorial a source names."""
        if domain not in DOMAINS:
            raise TutorialbookError("domain", f"{domain!r} is not one of {', '.join(DOMAINS)}")
        _check_book_name(book)
        files = expand(source)
        if title and len(files) > 1:
            raise TutorialbookError("title", "a title applies to one file; a folder's tutorials are titled by file name")
        reports = []
        for n, path in enumerate(files):
            def file_progress(done: float, total: float, message: str, n=n) -> None:
                if progress:
                    progress(n + (done / total if total else 0), len(files), f"{path.name}: {message}")
            reports.append(self._ingest_file(path, book, title or _title_from(path), file_progress, cancel))
        return IngestReport(book=book, tutorials=reports)

    def _ingest_file(self, path: Path, book: str, title: str, progress: Progress,
                     cancel: Callable[[], bool] | None) -> TutorialReport:
        timings: dict[str, float] = {}
        clock = time.perf_counter()
        digest = content_hash(path)
        tutorial_id = "t_" + hashlib.sha256(f"{book}\n{digest}".encode()).hexdigest()[:16]
        existing = self.store.get("tutorials", tutorial_id)
        if existing and existing["status"] == "ready":
            return TutorialReport(tutorial_id=tutorial_id, title=existing["title"], source=str(path),
                                  status="unchanged", domain=existing["domain"], duration=existing["duration"],
                                  segments=self.store.count("segments", f"tutorial_id = {quote(tutorial_id)}"))
        if existing:
            self._recover(existing)

        def check_cancel() -> None:
            if cancel and cancel():
                raise Cancelled(f"ingest of {path.name} cancelled; nothing was written")

        progress(0, 4, "reading")

        def heard(done: float, total: float) -> None:
            progress(done / total if total else 0, 4, f"transcribing {done:.0f}/{total:.0f} s of audio")

        transcript = read_source(path, model=self.settings.whisper_model, progress=heard, cancel=cancel)
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
        plan = build.Builder(self.store, self.embed, book, tree).build(context, build.outline(context))
        timings["consolidate"] = _lap(clock)
        check_cancel()
        progress(3, 4, "committing")
        clock = time.perf_counter()
        report = TutorialReport(
            tutorial_id=tutorial_id, title=title, source=str(path), status="added", domain="general",
            duration=transcript.duration, segments=len(transcript.segments),
            nodes_added=plan.nodes_added, nodes_updated=plan.nodes_updated,
            skills_added=plan.skills_added, skills_updated=plan.skills_updated,
            warnings=transcript.warnings,
        )
        self._commit(book, tutorial_id, title, path, digest, transcript, vectors, plan, report)
        timings["commit"] = _lap(clock)
        report.stage_seconds = timings
        progress(4, 4, "done")
        return report

    def _commit(self, book, tutorial_id, title, path, digest, transcript, vectors, plan, report) -> None:
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
        self.store.upsert("nodes", [build.clean_row(n) for n in plan.nodes])
        self.store.upsert("skills", [build.clean_row(s) for s in plan.skills])
        self.store.update("tutorials", f"id = {quote(tutorial_id)}",
                          {"status": "ready", "report": report.model_dump_json()})

    def _recover(self, tutorial: dict) -> None:
        """Undo a tutorial whose commit never finished (its process died)."""
        host, _, pid = tutorial["owner"].partition(":")
        if host == socket.gethostname() and pid.isdigit() and _alive(int(pid)) and int(pid) != os.getpid():
            raise TutorialbookError("source", f"{tutorial['title']!r} is being ingested by process {pid}; try again when it ends")
        tid = tutorial["id"]
        self.store.delete("segments", f"tutorial_id = {quote(tid)}")
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
        skills = self.store.rows("skills", f"node_id = {quote(node_id)}",
                                 ["id", "name", "when_to_use", "sources", "helpful", "harmful"])
        lessons = self.store.rows("lessons", f"node_id = {quote(node_id)} AND skill_id = ''")
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

    def retrieve(self, query: str, book: str, k: int = 5, mode: str = "hybrid") -> RetrieveResult:
        if not query or not query.strip():
            raise TutorialbookError("query", "is empty; describe the task you need skills for")
        if not 1 <= k <= MAX_K:
            raise TutorialbookError("k", f"must be between 1 and {MAX_K}, got {k}")
        if mode not in MODES:
            raise TutorialbookError("mode", f"{mode!r} is not one of {', '.join(MODES)}")
        tree = self.tree(book)
        vector = self.embed([query])[0]
        route = []
        if mode == "toc":
            hits, route = toc_descent(self.store, tree, query, vector, k)
        else:
            hits = search(self.store, "skills", book, query, vector, mode, k)
        lessons = [h for h in search(self.store, "lessons", book, query, vector, "hybrid", 3)]
        return RetrieveResult(
            query=query, book=book, mode=mode,
            skills=self._skill_views([(h.row, h.score) for h in hits], tree),
            lessons=[_lesson_view(h.row, h.score) for h in lessons], route=route,
        )

    def _skill_views(self, rows: list[tuple[dict, float | None]], tree: Tree) -> list[SkillView]:
        ids = [r["id"] for r, _ in rows]
        attached: dict[str, list[LessonView]] = {}
        for lesson in self.store.rows("lessons", in_list("skill_id", ids)) if ids else []:
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
                      context: str = "", feedback: list[SkillFeedback] | None = None) -> LessonResult:
        text = (lesson or "").strip()
        if not text:
            raise TutorialbookError("lesson", "is empty; say what worked or what did not")
        if len(text) > lesson_store.MAX_LESSON_CHARS:
            raise TutorialbookError("lesson", f"is {len(text)} characters; the limit is {lesson_store.MAX_LESSON_CHARS}")
        if outcome not in lesson_store.OUTCOMES:
            raise TutorialbookError("outcome", f"{outcome!r} is not one of {', '.join(lesson_store.OUTCOMES)}")
        if len(context) > lesson_store.MAX_LESSON_CHARS:
            raise TutorialbookError("context", f"is over {lesson_store.MAX_LESSON_CHARS} characters")
        tree = self.tree(book)
        feedback = feedback or []
        for item in feedback:
            self._skill_in_book(item.skill_id, book, "feedback")
        vector = self.embed([text])[0]
        if skill_id:
            node_id = self._skill_in_book(skill_id, book, "skill_id")["node_id"]
            attached = f"skill:{skill_id}"
        elif node_id:
            if node_id not in tree.nodes:
                raise NotFound("node_id", f"no node {node_id!r} in book {book!r}")
            attached = f"node:{node_id}"
        else:
            node_id = self._best_node(tree, text, vector)
            attached = f"root:{node_id}" if node_id == tree.root_id else f"node:{node_id}"
        row, merged, similar = lesson_store.record(
            self.store, book=book, text=text, outcome=outcome, context=context, skill_id=skill_id,
            node_id=node_id, agent=self.agent, vector=vector,
        )
        verdicts = [(f.skill_id, f.verdict) for f in feedback]
        if skill_id and outcome in ("success", "failure") and skill_id not in {s for s, _ in verdicts}:
            verdicts.append((skill_id, "helpful" if outcome == "success" else "harmful"))
        for sid, verdict in verdicts:
            lesson_store.give_feedback(self.store, sid, verdict)
        counts = [self.store.get("skills", sid) for sid in dict.fromkeys(s for s, _ in verdicts)]
        return LessonResult(
            lesson_id=row["id"], merged=merged, merged_count=row["merged_count"], attached_to=attached,
            similar=[_lesson_view(r, 1 - r["_distance"]) for r in similar],
            feedback=[FeedbackCount(skill_id=c["id"], helpful=c["helpful"], harmful=c["harmful"]) for c in counts],
        )

    def _skill_in_book(self, skill_id: str, book: str, field: str) -> dict:
        row = self.store.get("skills", skill_id)
        if row is None or row["book"] != book:
            raise NotFound(field, f"no skill {skill_id!r} in book {book!r}")
        return row

    def _best_node(self, tree: Tree, text: str, vector: np.ndarray) -> str:
        hits = search(self.store, "nodes", tree.book, text, vector, "vector", 1, "kind != 'book'")
        return hits[0].row["id"] if hits and hits[0].score >= 0.35 else tree.root_id

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
