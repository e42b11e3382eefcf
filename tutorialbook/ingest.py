"""Ingest, the service of the :class:`~tutorialbook.library.Library` that turns a source into a
book: read or transcribe, consolidate, commit in an order a crash can undo, then refine."""

from __future__ import annotations

import hashlib
import os
import re
import socket
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, cast

from tutorialbook.common import Progress, check_book_name, check_rounds, pack_of
from tutorialbook.config import Settings
from tutorialbook.errors import Cancelled, NothingToLearn, TutorialbookError
from tutorialbook.memory import allocator
from tutorialbook.memory import history as hist
from tutorialbook.memory import retention
from tutorialbook.memory import where
from tutorialbook.memory.rows import clean, dumps, encode, evidence_of, screen_rows, segment_rows
from tutorialbook.memory.store import Store
from tutorialbook.models import FileStatus, IngestReport, TutorialReport
from tutorialbook.reading import Embed, Reading
from tutorialbook.refinement import Refinement
from tutorialbook.skills import builder as build
from tutorialbook.skills.domains import DOMAINS, DomainPack, claimed, get_pack, recognise, see, text_readers, watch
from tutorialbook.acquire.roots import SourcePolicy, default_roots
from tutorialbook.acquire.sources import (content_hash, expand_documents, inner, media_extensions, read_source,
                                          subfolders_with_pages, unsupported_reason)
from tutorialbook.acquire.screen import ScreenJob
from tutorialbook.acquire.screen_attach import for_consolidation
from tutorialbook.acquire.transcript import Transcript

if TYPE_CHECKING:
    import numpy as np

    from tutorialbook.llm.client import LLM

#: tables whose rows belong to one tutorial and go when it is undone
TUTORIAL_TABLES = ("segments", "questions", "positions", "screen")
#: the locks tutorials' ingests are spread over (one lock file each): a lock per tutorial left
#: one empty file per tutorial ever ingested; two tutorials sharing one only take turns
INGEST_LOCKS = 256


def ingest_lock(tutorial_id: str) -> str:
    """The lock held while ``tutorial_id`` is written or undone. Holding it means no other
    writer is writing that tutorial (theirs would need it too), which recovery relies on."""
    return f"ingest-{zlib.crc32(tutorial_id.encode()) % INGEST_LOCKS:03d}"


class Ingestion:
    """The ingest pipeline and its crash recovery. Receives the store, the embedder, settings
    (limits, models, what may be read), the reading service (a book's tree) and the refinement
    service (each new tutorial is refined), and the configured model's factory."""

    def __init__(self, store: Store, embed: Embed, settings: Settings, reading: Reading, refinement: Refinement,
                 llm: Callable[[], LLM | None]):
        self.store, self.embed, self.settings = store, embed, settings
        self.reading, self.refinement, self._llm = reading, refinement, llm
        self._menus: dict[tuple[str, int, int], list[str]] = {}  # _menu_of's pages read
        self.retention = retention.Retention(settings.keep_versions_seconds, settings.upkeep_every,
                                             settings.table_versions_seconds)

    # -- ingest ----------------------------------------------------------------
    def ingest(self, source: str, book: str = "default", title: str | None = None, domain: str = "auto",
               progress: Progress | None = None, cancel: Callable[[], bool] | None = None,
               refine_rounds: int = 1, agent: str | None = None, llm=None) -> IngestReport:
        """Read, consolidate and commit every tutorial a source names, then refine the memory
        with questions harvested from each (``refine_rounds`` repair rounds; 0 skips it).
        ``agent`` (who asked; default settings.agent) goes into the book's history. ``llm``
        (llm/client.py; default: the configured model, settings.llm) consolidates and refines
        when set; each tutorial's report carries its warnings and usage."""
        llm = self._llm() if llm is None else llm
        files, folder, documents = self.ingest_files(source, book, title, domain, refine_rounds)
        warnings = self._recover_abandoned()  # the first write: undo commits whose writer died
        reports: list[TutorialReport] = []
        statuses: list[FileStatus] = []
        for n, path in enumerate(files):
            def file_progress(done: float, total: float, message: str, n=n) -> None:
                if progress:
                    progress(n + (done / total if total else 0), len(files), f"{path.name}: {message}")
            try:
                report, status = self.ingest_one(path, book, title, domain, file_progress, cancel, refine_rounds,
                                                 agent, llm, folder, document=documents[path])
            except (Cancelled, KeyboardInterrupt) as exc:
                raise type(exc)(_with_earlier(str(exc), reports)) from exc
            reports += [report] if report is not None else []
            statuses.append(status)
        return folder_report(book, source, folder, files, reports, statuses, warnings)

    def ingest_files(self, source: str, book: str, title: str | None, domain: str,
                     refine_rounds: int) -> tuple[list[Path], bool, dict[Path, Place]]:
        """The files an ingest of ``source`` reads, whether it names a folder, and each file's place
        in its manual: the pages linked with it (acquire/reading_order.py) and those it is a
        section of (the arguments checked)."""
        if domain not in DOMAINS:
            raise TutorialbookError("domain", f"{domain!r} is not one of {', '.join(DOMAINS)}")
        check_rounds(refine_rounds, "refine_rounds", minimum=0)
        check_book_name(book)
        parents: dict[Path, Path] = {}
        grouped = expand_documents(source, self.source_policy(), parents)
        files = [path for document in grouped for path in document]
        if title and len(files) > 1:
            raise TutorialbookError("title", "a title applies to one file; a folder's tutorials are titled "
                                             "by their own titles (else file names)")
        documents = {path: Place(frozenset(str(page) for page in document), _above(path, parents))
                     for document in grouped for path in document}
        return files, Path(source.removeprefix("file://")).expanduser().is_dir(), documents

    def ingest_one(self, path: Path, book: str, title: str | None, domain: str, progress: Progress,
                   cancel: Callable[[], bool] | None, refine_rounds: int, agent: str | None, llm, folder: bool,
                   turn: Callable[[], None] | None = None,
                   document: Place | None = None) -> tuple[TutorialReport | None, FileStatus]:
        """One file of an ingest: its report (None when it failed) and its status. A folder's
        failure is reported, a lone file's raised. ``turn`` (a batch's, tutorialbook/batch.py) is
        called once the file is read and embedded, before anything of it is written; it returns
        when this file may write."""
        limited = _TimeLimit(self.settings.max_ingest_seconds, cancel)
        try:
            report = self._ingest_file(path, book, title, domain, progress, limited, refine_rounds, agent=agent,
                                       llm=llm, turn=turn, document=document)
        except Cancelled as exc:
            if not limited.expired:
                raise
            failure = TutorialbookError(
                "source", f"the ingest of {path.name} was stopped at its time limit of {limited.seconds:g} s "
                          "(TUTORIALBOOK_MAX_INGEST_SECONDS); nothing of it was committed")
            if not folder:
                raise failure from exc
            return None, FileStatus(source=str(path), status="failed", title=_title_from(path), reason=str(failure))
        except NothingToLearn as exc:  # a folder's page of links only: nothing wrong with it, nothing to learn
            if not folder:
                raise
            return None, FileStatus(source=str(path), status="skipped", title=_title_from(path), reason=str(exc))
        except Exception as exc:  # noqa: BLE001 - a folder reports each file's failure and goes on
            if not folder:
                raise
            return None, FileStatus(source=str(path), status="failed", title=_title_from(path),
                                    reason=str(exc) if isinstance(exc, TutorialbookError)
                                    else f"{type(exc).__name__}: {exc}")
        if limited.expired:  # past the commit: refinement stopped early, the tutorial is whole
            report.warnings.append(f"refinement stopped at the ingest time limit of {limited.seconds:g} s")
        if self.retention.every_versions and report.status != "unchanged":
            retention.after_writes(self.store, self.retention)  # versions kept on purpose, not forever
        allocator.trim()  # what this file's ingest freed goes back to the system
        return report, FileStatus(source=str(path), status=report.status, title=report.title,
                                  tutorial_id=report.tutorial_id)

    def _pages_stored(self, book: str, sources: frozenset[str]) -> frozenset[str]:
        """The ids of the book's tutorials read from ``sources`` (the other pages of a manual)."""
        if not sources:
            return frozenset()
        clause = where.both(where.ready_tutorials(book), where.in_list("source", sorted(sources)))
        rows = self.store.rows("tutorials", clause, columns=["id"])
        return frozenset(r["id"] for r in rows)

    def _section_of(self, book: str, tree, above: tuple[str, ...]) -> tuple[str | None, list[str]]:
        """The node a section page goes under: the highest node of the nearest page above it that
        the book holds (a page that taught nothing, a contents page, is passed over), or None; and
        the headings of the pages of headings only passed over on the way (nearest first), the
        chapters it goes in there: texinfo's chapter page is a menu of its section pages."""
        menus: list[str] = []
        for k, source in enumerate(above):
            stored = self._pages_stored(book, frozenset([source]))
            if not stored:
                menus += self._menu_of(Path(source))
                continue
            tutorial = next(iter(stored))
            rows = self.store.rows("nodes", where.both(where.of_book(book), where.cites_tutorial(tutorial)),
                                   columns=["id", "title", "evidence"])
            theirs = set(self._menus_over(book, above[k + 1:]))  # the chapters that page went in cite it too
            held = [r["id"] for r in rows if r["id"] in tree.nodes and r["title"] not in theirs
                    and any(e["tutorial_id"] == tutorial for e in evidence_of(r))]
            if held:
                return min(held, key=lambda node_id: len(tree.path(node_id))), menus
        return None, menus

    def _menus_over(self, book: str, above: tuple[str, ...]) -> list[str]:
        """The headings of the menu pages above a page, up to the nearest page the book holds."""
        menus: list[str] = []
        for source in above:
            if self._pages_stored(book, frozenset([source])):
                break
            menus += self._menu_of(Path(source))
        return menus

    def _menu_of(self, page: Path) -> list[str]:
        """The top heading of a manual's page that holds headings only, else nothing; read once
        per version of the page (each of its section pages asks)."""
        try:
            info = page.stat()
        except OSError:
            return []
        key = (str(page), info.st_mtime_ns, info.st_size)
        if key not in self._menus:
            try:
                read_source(page, self.settings.max_text_bytes, text_readers(), self.source_policy())
                self._menus[key] = []  # read now: a page that failed before, not a menu
            except NothingToLearn as exc:
                self._menus[key] = [exc.heading] if exc.heading else []
            except (TutorialbookError, OSError):
                self._menus[key] = []
        return self._menus[key]

    def source_policy(self) -> SourcePolicy:
        """What an ingest may read (settings.allowed_roots; never the store or the tokens file)."""
        s = self.settings
        roots = default_roots() if s.allowed_roots is None else tuple(s.allowed_roots)
        private = tuple(p for p in (s.store, s.tokens_file) if p and "://" not in p)
        return SourcePolicy(roots, private, s.max_text_bytes, media_extensions())

    def _ingest_file(self, path: Path, book: str, title: str | None, domain: str, progress: Progress,
                     cancel: Callable[[], bool] | None, refine_rounds: int = 1,
                     agent: str | None = None, llm=None, turn: Callable[[], None] | None = None,
                     document: Place | None = None) -> TutorialReport:
        digest = content_hash(path)
        tutorial_id = tutorial_id_of(book, digest)
        heard = None
        if turn is not None:  # a batch: read ahead of this file's turn, write in it
            existing = self.store.get("tutorials", tutorial_id)
            if not (existing and existing["status"] == "ready"):
                heard = self._acquire(path, title, domain, progress, cancel)
            clock = time.perf_counter()
            turn()
            waited = _lap(clock)
            if isinstance(cancel, _TimeLimit):
                cancel.extend(waited)  # the time limit is the file's own work, not the wait for its turn
            if heard is not None:
                heard.timings["turn_wait"] = waited
        # one ingest of this content into this book at a time: the others wait, then find it stored
        with self.store.lock(ingest_lock(tutorial_id), cancel):
            existing = self.store.get("tutorials", tutorial_id)
            if existing and existing["status"] == "ready":
                return self._stored(existing, path, refine_rounds, progress, cancel, agent, llm)
            if existing:  # we hold its lock, so its writer is gone: undo what it left
                self._recover(existing, agent)
            report = self._ingest_new(path, book, progress, cancel, refine_rounds, agent, llm, digest, tutorial_id,
                                      heard or self._acquire(path, title, domain, progress, cancel), document)
            if existing:
                report.warnings.append("an earlier attempt at this file left an unfinished commit; it was rolled back")
            return report

    def _stored(self, existing: dict, path: Path, refine_rounds: int, progress: Progress, cancel,
                agent: str | None, llm) -> TutorialReport:
        """A tutorial already in the book: unchanged, or its interrupted refinement resumed."""
        tutorial_id = existing["id"]
        report = TutorialReport(
            tutorial_id=tutorial_id, title=existing["title"], source=str(path), status="unchanged",
            domain=existing["domain"], duration=existing["duration"],
            segments=self.store.count("segments", where.of_tutorial(tutorial_id)))
        stored = _stored_report(existing)
        if stored is not None and stored.refinement == "pending" and refine_rounds:
            stored.source, stored.status, stored.warnings = str(path), "refined", []
            pack = pack_of(existing)
            run = llm.fork() if llm is not None else None
            clock = time.perf_counter()
            self._refine_new(existing["book"], tutorial_id, pack, refine_rounds, stored, progress, cancel, agent, run)
            stored.stage_seconds = {"refine": _lap(clock)}
            return stored
        if stored is not None:
            report.refinement = stored.refinement
        return self.refinement.exam_fields(report)

    def _acquire(self, path: Path, title: str | None, domain: str, progress: Progress, cancel) -> "_Acquired":
        """Read (or transcribe) a file, read its screen and embed what consolidation reads: the
        work of an ingest that writes nothing, so a batch runs it in parallel."""
        timings: dict[str, float] = {}
        clock = time.perf_counter()

        def check_cancel() -> None:
            if cancel and cancel():
                raise Cancelled(f"ingest of {path.name} cancelled; nothing was written")

        progress(0, 4, "reading")

        def heard(done: float, total: float) -> None:
            progress(done / total if total else 0, 4, f"transcribing {done:.0f}/{total:.0f} s of audio")

        pack = get_pack(domain) if domain != "auto" else recognise(f"{title or _title_from(path)} {path.name}")
        watching = watch(path, domain if pack is None else pack.name, cancel)  # frames, beside transcription
        screen_job = ScreenJob(path, cancel, lambda: claimed(watching)) if self.settings.screen else None
        transcript = read_source(path, self.settings.max_text_bytes, text_readers(), self.source_policy(),
                                 max_seconds=self.settings.max_media_seconds,
                                 model=self.settings.whisper_model, progress=heard, cancel=cancel,
                                 initial_prompt=_prompt(title or _title_from(path), pack),
                                 decoding=pack.decoding if pack else None)
        title = title or transcript.title or _title_from(path)  # the caller's, the document's own, the name's
        if pack is None and transcript.moves is not None:  # a source that states chess moves (PGN)
            pack = get_pack("chess")
        pack = see(pack, watching)
        if pack is None:  # auto, and the name did not tell: the transcript decides
            pack = see(recognise(" ".join(s.text for s in transcript.segments)), watching) or DomainPack()
            if pack.initial_prompt and transcript.timed:
                transcript = read_source(path, self.settings.max_text_bytes, text_readers(), self.source_policy(),
                                         max_seconds=self.settings.max_media_seconds,
                                         model=self.settings.whisper_model, progress=heard,
                                         cancel=cancel, initial_prompt=_prompt(title, pack),
                                         decoding=pack.decoding)
        timings["acquire"] = _lap(clock)
        check_cancel()
        clock = time.perf_counter()
        progress(0.9, 4, "reading the screen")
        screen_note = screen_job.into(transcript) if screen_job else ""  # what the frames show, with times
        timings["screen_wait"] = _lap(clock)
        check_cancel()
        told = for_consolidation(transcript)  # what consolidation reads: the speech and the screen
        progress(1, 4, "embedding")
        clock = time.perf_counter()
        vectors = self.embed([s.text for s in told.segments])
        timings["embed"] = _lap(clock)
        check_cancel()
        return _Acquired(title, pack, transcript, told, vectors, screen_note, timings)

    def _ingest_new(self, path: Path, book: str, progress: Progress, cancel, refine_rounds: int, agent: str | None,
                    llm, digest: str, tutorial_id: str, heard: "_Acquired",
                    document: Place | None = None) -> TutorialReport:
        title, pack, transcript, told, vectors, screen_note = (heard.title, heard.pack, heard.transcript, heard.told,
                                                               heard.vectors, heard.screen_note)
        timings = dict(heard.timings)

        def check_cancel() -> None:
            if cancel and cancel():
                raise Cancelled(f"ingest of {path.name} cancelled; nothing was written")

        progress(2, 4, "consolidating")
        clock = time.perf_counter()
        tree = self.reading.ensure_book(book)
        context = build.TutorialContext(tutorial_id, title, path.resolve().as_uri(), told, vectors)
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
        document = document or Place()
        kin = self._pages_stored(book, document.pages - {str(path.resolve())})
        under, menus = self._section_of(book, tree, document.above)
        outline = build.within_chapters(outline, menus)
        plan = build.Builder(self.store, self.embed, book, tree, kin=kin, under=under).build(context, outline)
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
            screen_texts=len(transcript.screen), screen=screen_note, speech_redecoded=transcript.redecoded_seconds,
        )
        pack.note(tutorial_id, report)
        _note_llm(report, run)
        report.refinement = "pending" if refine_rounds else "skipped"
        try:
            self._commit(book, tutorial_id, title, path, digest, transcript, vectors, plan, extra, report, agent)
        except BaseException as exc:  # a failed or interrupted commit is undone (or stays hidden)
            outcome = self._undo(tutorial_id, agent)
            if isinstance(exc, (Cancelled, KeyboardInterrupt)):
                raise type(exc)(f"ingest of {path.name} interrupted while committing; {outcome}") from exc
            if isinstance(exc, TutorialbookError):
                raise type(exc)(exc.field, f"{exc.reason}; {outcome}") from exc
            raise
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
        tutorial = cast(dict, self.store.get("tutorials", tutorial_id))  # committed just before: it is there
        what = (f"{tutorial['title']!r} is committed with its events; refinement stopped, each repair it wrote "
                "is stored with its event and the questions with their results so far; ingesting it again "
                "resumes the refinement")
        try:
            summary, _ = self.refinement.refiner(book, agent, llm).refine_tutorial(
                tutorial, rounds, pack, cancel, lambda message: progress(3.5, 4, f"refining: {message}"))
        except KeyboardInterrupt as exc:
            raise KeyboardInterrupt(f"interrupted during refinement: {what}") from exc
        report.questions_harvested = summary.questions
        report.pass_rate_before, report.pass_rate_after = summary.pass_rate_before, summary.pass_rate_after
        report.repairs = summary.skills_added + summary.skills_extended + summary.skills_moved
        _note_llm(report, llm)
        if cancel and cancel():  # the refiner stops early when cancelled: the report stays 'pending'
            raise Cancelled(f"ingest cancelled during refinement: {what}")
        report.refinement = "done"
        self.store.update("tutorials", where.by_id(tutorial_id), {"report": report.model_dump_json()})

    def _recover_abandoned(self) -> list[str]:
        """Undo tutorials whose ingesting process died mid-commit (called before a write, never
        at open). A commit whose writer still holds its lock is left alone; one that cannot be
        undone now (a full or read-only disk) stays hidden from reads and is retried next time.
        Returns warnings, never raises: recovery must not stop the write that asked for it."""
        warnings = []
        try:
            abandoned = self.store.rows("tutorials", "status = 'committing'")
        except Exception as exc:  # noqa: BLE001
            return [f"abandoned commits not checked: {exc}"]
        for row in abandoned:
            with self.store.try_lock(ingest_lock(row["id"])) as free:
                if not free:
                    continue  # being committed right now
                host, _, pid = row["owner"].partition(":")
                if host != socket.gethostname():
                    continue  # another machine's process: its liveness is unknown here
                if pid.isdigit() and _alive(int(pid)) and int(pid) != os.getpid() and not _lock_aware(row):
                    continue
                try:
                    self._recover(row)
                except Exception as exc:  # noqa: BLE001 - e.g. the disk is still full
                    warnings.append(f"the abandoned commit of {row['title']!r} could not be undone yet ({exc}); "
                                    "it stays hidden from reads")
        return warnings

    def _undo(self, tutorial_id: str, agent: str | None = None) -> str:
        """Undo this process's own failed commit; says what became of it."""
        try:
            row = self.store.get("tutorials", tutorial_id)
            if row is not None:
                self._recover(row, agent, why="its commit failed or was interrupted")
            return "nothing of it was committed (the partial commit was rolled back)"
        except BaseException as exc:  # noqa: BLE001 - a full disk refuses the undo too
            return (f"the partial commit could not be rolled back ({exc}); it stays hidden from reads and the "
                    "next ingest undoes it")

    def _commit(self, book, tutorial_id, title, path, digest, transcript, vectors, plan, extra, report,
                agent: str | None = None) -> None:
        """Write a tutorial in an order recovery can undo: the tutorial row says
        'committing' until every table is written, then 'ready'."""
        row = {
            "id": tutorial_id, "book": book, "title": title, "source": str(path.resolve()),
            "content_hash": digest, "duration": transcript.duration, "timed": transcript.timed,
            "language": transcript.language, "domain": report.domain, "models": dumps(transcript.models),
            "status": "committing", "owner": _owner(), "report": report.model_dump_json(), "created_at": time.time(),
        }
        started = self.store.upsert("tutorials", [row])
        self.store.insert("segments", cast(list[dict], segment_rows(book, tutorial_id, transcript.segments, vectors)))
        if transcript.screen:
            self.store.insert("screen", screen_rows(book, tutorial_id, transcript.screen))
        nodes = self.store.upsert("nodes", [clean(n) for n in plan.nodes])
        before = hist.skills_before(self.store, [s["id"] for s in plan.skills if s.get("_status") == "updated"])
        skills = self.store.upsert("skills", [clean(s) for s in plan.skills])
        for table, rows in extra.items():
            self.store.insert(table, rows)
        versions = {"tutorials": hist.version_of(started), "nodes": hist.version_of(nodes),
                    "skills": hist.version_of(skills)}
        added = [s["id"] for s in plan.skills if s.get("_status") == "added"]
        # the event first, the 'ready' marker last: a tutorial reads as committed only with its event
        hist.record(
            self.store, [hist.ingest_event(book, agent or self.settings.agent, report, before, versions, added)]
        )
        self.store.update("tutorials", where.by_id(tutorial_id),
                          {"status": "ready", "report": report.model_dump_json()})

    def _recover(self, tutorial: dict, agent: str | None = None, why: str = "its writer died mid-commit") -> None:
        """Undo a tutorial whose commit never finished, and say so in the book's history."""
        tid = tutorial["id"]
        for table in TUTORIAL_TABLES:
            self.store.delete(table, where.of_tutorial(tid))
        for table in ("skills", "nodes"):
            for row in self.store.rows(table, where.touched_by(tid)):
                kept = [e for e in evidence_of(row) if e["tutorial_id"] != tid]
                if row["origin"] == tid and not kept:
                    self.store.delete(table, where.by_id(row["id"]))
                    continue
                row = clean(row)
                row["evidence"] = encode(kept)
                if table == "skills":
                    row["sources"] = len({e["tutorial_id"] for e in kept})
                self.store.upsert(table, [row])
        self.store.delete("tutorials", where.by_id(tid))
        hist.record(self.store, [hist.event(
            book=tutorial["book"], agent=agent or self.settings.agent, action="rollback", target=tid,
            summary=f"rolled back the unfinished commit of {tutorial['title']!r} ({why})",
            detail={"source": tutorial["source"], "owner": tutorial["owner"]})])


@dataclass(frozen=True)
class Place:
    """Where a file stands in the manual a folder holds (acquire/reading_order.py)."""

    pages: frozenset[str] = frozenset()
    """the sources of the manual's pages, itself included"""
    above: tuple[str, ...] = ()
    """the sources of the pages it is a section of (each one's ``rel="up"``), the nearest first"""


def _above(path: Path, parents: dict[Path, Path]) -> tuple[str, ...]:
    """The chain of ``parents`` from ``path`` up (a cycle ends it)."""
    chain: list[Path] = []
    while path in parents and parents[path] not in chain and parents[path] != path:
        path = parents[path]
        chain.append(path)
    return tuple(str(p) for p in chain)


@dataclass
class _Acquired:
    """A file read, its screen read and embedded: what consolidation starts from."""

    title: str
    pack: DomainPack
    transcript: Transcript
    told: Transcript
    vectors: np.ndarray
    screen_note: str
    timings: dict[str, float]


def tutorial_id_of(book: str, digest: str) -> str:
    """A tutorial's id: its book and content (so ingesting the same file again finds it)."""
    return "t_" + hashlib.sha256(f"{book}\n{digest}".encode()).hexdigest()[:16]


def folder_report(book: str, source: str, folder: bool, files: list[Path], reports: list[TutorialReport],
                  statuses: list[FileStatus], warnings: list[str]) -> IngestReport:
    """An ingest's report: each file's status in order, then a folder's unsupported files."""
    statuses = statuses + [_skipped(path) for path in (_unsupported(source, files) if folder else [])]
    unread = _unread_subfolders(Path(source.removeprefix("file://")).expanduser(), files) if folder else []
    if unread:
        warnings = [*warnings, f"subfolders are not read: {', '.join(unread[:8])}{', ...' if len(unread) > 8 else ''}"
                    " (ingest one on its own to read its pages)"]
    return IngestReport(book=book, tutorials=reports, warnings=warnings, files=statuses,
                        failed=sum(f.status == "failed" for f in statuses),
                        skipped=sum(f.status == "skipped" for f in statuses))


def _unread_subfolders(folder: Path, files: list[Path]) -> list[str]:
    """The subfolders holding pages of which an ingest of ``folder`` read none (its manual's
    pages in a subfolder are read, ``sources.expand``), but a builder's own (Sphinx's ``_sources``
    copies the pages, ``_modules`` shows the code)."""
    root = Path(os.path.realpath(folder))
    inside = [f.relative_to(root).parts for f in files if f.is_relative_to(root)]
    read = {parts[0] for parts in inside if len(parts) > 1}
    return [name for name in subfolders_with_pages(folder) if name not in read and not name.startswith("_")]


def _stored_report(row: dict) -> TutorialReport | None:
    try:
        return TutorialReport.model_validate_json(row["report"]) if row["report"] else None
    except ValueError:
        return None


def _lock_aware(row: dict) -> bool:
    """A commit written by this version holds its lock while it runs (so a free lock means an
    abandoned commit, whatever the pid says: pids are reused)."""
    report = _stored_report(row)
    return report is not None and bool(report.refinement)


def _skipped(path: Path) -> FileStatus:
    return FileStatus(source=str(path), status="skipped", title=_title_from(path), reason=unsupported_reason(path))


def _unsupported(source: str, files: list[Path]) -> list[Path]:
    """The files of a folder that its ingest passes over (not a supported type)."""
    folder = Path(source.removeprefix("file://")).expanduser()
    taken = {f.name for f in files}
    return sorted(p for p in folder.iterdir() if p.name not in taken and not p.name.startswith(".") and p.is_file())


def _with_earlier(message: str, reports: list[TutorialReport]) -> str:
    done = [f"{r.title!r} ({r.status})" for r in reports if r.status in ("added", "unchanged", "refined")]
    return message + (f"; committed before it, and kept: {', '.join(done)}" if done else "")


class _TimeLimit:
    """A cancel check that also fires once ``seconds`` have passed (0: never)."""

    def __init__(self, seconds: float, cancel: Callable[[], bool] | None):
        self.seconds, self._cancel = seconds, cancel
        self._deadline = time.monotonic() + seconds if seconds else None
        self.expired = False

    def extend(self, seconds: float) -> None:
        if self._deadline is not None:
            self._deadline += seconds

    def __call__(self) -> bool:
        if self._deadline is not None and time.monotonic() > self._deadline:
            self.expired = True
        return self.expired or bool(self._cancel and self._cancel())


def _note_llm(report: TutorialReport, run) -> None:
    """A tutorial's model usage and warnings into its report."""
    if run is not None:
        report.warnings = list(dict.fromkeys([*report.warnings, *run.warnings]))
        report.llm = run.usage.model_copy()


def _prompt(title: str, pack) -> str | None:
    """What speech recognition is told to expect: the tutorial's title and the domain's vocabulary.
    bench/asr.py measured it on three voices: WER 11.1/5.8/10.8% with no prompt, 8.6/5.1/7.3% with.
    Written as punctuated sentences: Whisper copies a prompt's style, and after an unpunctuated
    title it wrote a whole narration without a full stop (one segment, no sentences to learn from)."""
    parts = [title if len(title) >= 4 else "", pack.initial_prompt if pack else ""]
    sentences = [p.strip().rstrip(".") + "." for p in parts if p and p.strip()]
    return " ".join(sentences) or None


def _title_from(path: Path) -> str:
    """A title from a file name, for sources that carry none: separators read as spaces, the
    first letter raised and the rest kept as written ("SQL_joins" is "SQL joins", not "Sql joins")."""
    words = re.sub(r"[_-]+", " ", re.sub(r"\.(?:rst|md|ipynb)$", "", inner(path).stem)).strip()
    return words[:1].upper() + words[1:] or path.name


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
