"""Ingest, the part of :class:`~tutorialbook.library.Library` that turns a source into a book:
read or transcribe, consolidate, commit in an order a crash can undo, then refine."""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import time
from pathlib import Path
from typing import Callable

from tutorialbook.common import Progress, check_book_name, check_rounds
from tutorialbook.errors import Cancelled, TutorialbookError
from tutorialbook.memory import history as hist
from tutorialbook.memory.store import dumps, quote
from tutorialbook.models import IngestReport, TutorialReport
from tutorialbook.skills import builder as build
from tutorialbook.skills.domains import DOMAINS, DomainPack, get_pack, recognise
from tutorialbook.acquire.roots import SourcePolicy, default_roots
from tutorialbook.acquire.sources import content_hash, expand, media_extensions, read_source

#: tables whose rows belong to one tutorial and go when it is undone
TUTORIAL_TABLES = ("segments", "questions", "positions")


class Ingest:
    """Library methods of the ingest pipeline and its crash recovery."""

    # -- ingest ----------------------------------------------------------------
    def ingest(self, source: str, book: str = "default", title: str | None = None, domain: str = "auto",
               progress: Progress | None = None, cancel: Callable[[], bool] | None = None,
               refine_rounds: int = 1, agent: str | None = None, llm=None) -> IngestReport:
        """Read, consolidate and commit every tutorial a source names, then refine the memory
        with questions harvested from each (``refine_rounds`` repair rounds; 0 skips it).
        ``agent`` (who asked; default settings.agent) goes into the book's history. ``llm``
        (llm/client.py; default: the configured model, settings.llm) consolidates and refines
        when set; each tutorial's report carries its warnings and usage."""
        llm = self.llm() if llm is None else llm
        if domain not in DOMAINS:
            raise TutorialbookError("domain", f"{domain!r} is not one of {', '.join(DOMAINS)}")
        check_rounds(refine_rounds, "refine_rounds", minimum=0)
        check_book_name(book)
        files = expand(source, self.source_policy())
        if title and len(files) > 1:
            raise TutorialbookError("title", "a title applies to one file; a folder's tutorials are titled by file name")
        reports = []
        for n, path in enumerate(files):
            def file_progress(done: float, total: float, message: str, n=n) -> None:
                if progress:
                    progress(n + (done / total if total else 0), len(files), f"{path.name}: {message}")
            limited = _TimeLimit(self.settings.max_ingest_seconds, cancel)
            try:
                report = self._ingest_file(path, book, title or _title_from(path), domain, file_progress, limited,
                                           refine_rounds, agent=agent, llm=llm)
            except Cancelled as exc:
                if limited.expired:
                    raise TutorialbookError("source", f"the ingest of {path.name} was stopped at its time limit of "
                                                      f"{limited.seconds:g} s (TUTORIALBOOK_MAX_INGEST_SECONDS); "
                                                      "nothing of it was committed") from exc
                raise
            if limited.expired:  # past the commit: refinement stopped early, the tutorial is whole
                report.warnings.append(f"refinement stopped at the ingest time limit of {limited.seconds:g} s")
            reports.append(report)
        return IngestReport(book=book, tutorials=reports)

    def source_policy(self) -> SourcePolicy:
        """What an ingest may read (settings.allowed_roots; never the store or the tokens file)."""
        s = self.settings
        roots = default_roots() if s.allowed_roots is None else tuple(s.allowed_roots)
        private = tuple(p for p in (s.store, s.tokens_file) if p and "://" not in p)
        return SourcePolicy(roots, private, s.max_text_bytes, media_extensions())

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
        transcript = read_source(path, self.settings.max_text_bytes, max_seconds=self.settings.max_media_seconds,
                                 model=self.settings.whisper_model, progress=heard, cancel=cancel,
                                 initial_prompt=pack.initial_prompt if pack else None)
        if pack is None and transcript.moves is not None:  # a source that states chess moves (PGN)
            pack = get_pack("chess")
        if pack is None:  # auto, and the name did not tell: the transcript decides
            pack = recognise(" ".join(s.text for s in transcript.segments)) or DomainPack()
            if pack.initial_prompt and transcript.timed:
                transcript = read_source(path, self.settings.max_text_bytes, max_seconds=self.settings.max_media_seconds,
                                 model=self.settings.whisper_model, progress=heard,
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
            from tutorialbook.llm.consolidate import llm_outline

            outline = llm_outline(run, context, outline)
        dropped = build.cap_drafts(outline, self.settings.max_tutorial_skills)
        if dropped:
            transcript.warnings.append(f"{dropped} instructive passages past the first "
                                       f"{self.settings.max_tutorial_skills} were not made skills "
                                       "(TUTORIALBOOK_MAX_TUTORIAL_SKILLS)")
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
            positions_indexed=len(extra.get("positions", [])), warnings=transcript.warnings,
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

    def _recover_abandoned(self) -> None:
        """Undo tutorials whose ingesting process died mid-commit, so no partial tutorial
        survives a crash."""
        for row in self.store.rows("tutorials", "status = 'committing'"):
            host, _, pid = row["owner"].partition(":")
            if host == socket.gethostname() and pid.isdigit() and not _alive(int(pid)):
                self._recover(row)

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


class _TimeLimit:
    """A cancel check that also fires once ``seconds`` have passed (0: never)."""

    def __init__(self, seconds: float, cancel: Callable[[], bool] | None):
        self.seconds, self._cancel = seconds, cancel
        self._deadline = time.monotonic() + seconds if seconds else None
        self.expired = False

    def __call__(self) -> bool:
        if self._deadline is not None and time.monotonic() > self._deadline:
            self.expired = True
        return self.expired or bool(self._cancel and self._cancel())


def _note_llm(report: TutorialReport, run) -> None:
    """A tutorial's model usage and warnings into its report."""
    if run is not None:
        report.warnings = list(dict.fromkeys([*report.warnings, *run.warnings]))
        report.llm = run.usage.model_copy()


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
