"""The one facade: a library opened on a store. The MCP tools, the CLI and Python callers all
call its methods; nothing lives only in a surface.

Its work is done by services that each receive what they use (the store, the embedder,
settings, and each other) and never the Library: reading (tutorialbook/reading.py), retrieval
(retrieval.py), ingest (ingest.py), refinement (refinement.py), lessons (lessons.py). The
Library builds them once and hands each call to the one that owns it."""

from __future__ import annotations

import functools
import threading
from typing import Callable, Iterable

import numpy as np

from tutorialbook import documents
from tutorialbook.common import Progress, check_book_name
from tutorialbook.config import Settings
from tutorialbook.errors import TutorialbookError
from tutorialbook.ingest import Ingestion
from tutorialbook.lessons import Lessons
from tutorialbook.memory import allocator
from tutorialbook.memory import history as hist
from tutorialbook.memory import where
from tutorialbook.memory.embedder import DIM, get_embedder
from tutorialbook.memory.retention import Retention, TableUpkeep, upkeep
from tutorialbook.memory.store import Store
from tutorialbook.models import EngineLine, EngineView, IngestReport, OpeningName, PositionReport, PositionStatus
from tutorialbook.reading import Reading
from tutorialbook.refinement import Refinement
from tutorialbook.retrieval import Retrieval


def _to(service: str, method: Callable) -> Callable:
    """A Library method that hands the call to ``self.<service>`` (keeping the service
    method's signature and docstring, for help() and IDEs)."""
    name = method.__name__

    @functools.wraps(method)
    def call(self, *args, **kwargs):
        return getattr(getattr(self, service), name)(*args, **kwargs)

    return call


class Library:
    """Tutorialbooks in one store."""

    def __init__(self, settings: Settings | None = None, **overrides):
        self.settings = (settings or Settings()).override(**overrides)  # a copy: the caller's stay as they were
        self._embedder = None
        self._chess_engine = None
        self._lazy = threading.Lock()  # concurrent first calls (HTTP clients) make one embedder, one engine pool
        allocator.tune(self.settings.malloc_arenas, self.settings.malloc_mmap_kb * 1024,  # before LanceDB's threads
                       self.settings.arrow_system_pool)
        self.store = Store(self.settings.store, dim=self._embedder_dim(),
                           cache_bytes=(int(self.settings.index_cache_mb * 2**20),
                                        int(self.settings.metadata_cache_mb * 2**20)))
        model = functools.partial(configured_llm, self.settings)
        self.reading = Reading(self.store, self.embed)
        self.retrieval = Retrieval(self.store, self.embed, self.settings, self.reading, model, self._token_vectors)
        self.refinement = Refinement(self.store, self.embed, self.settings, self.reading,
                                     self.retrieval.rank_skills, model)
        self.ingestion = Ingestion(self.store, self.embed, self.settings, self.reading, self.refinement, model)
        self.lessons = Lessons(self.store, self.embed, self.settings, self.reading)

    def _embedder_dim(self) -> int:
        if self.settings.embedder in ("default", ""):
            return DIM  # known without loading the model
        return self._get_embedder().dim

    def _get_embedder(self):
        with self._lazy:
            if self._embedder is None:
                self._embedder = get_embedder(self.settings.embedder, self.settings.embedder_api_base)
            return self._embedder

    @property
    def agent(self) -> str:
        return self.settings.agent

    def embed(self, texts: list[str]) -> np.ndarray:
        return self._get_embedder().embed(texts)

    def _token_vectors(self):
        """The embedder's token vectors (``MiniLM.token_vectors``), what late interaction re-orders
        a ranking with; None when it has none (a remote model) or the setting turns it off."""
        return getattr(self._get_embedder(), "token_vectors", None) if self.settings.late_interaction else None

    def llm(self):
        """A fresh run of the configured model (settings.llm: a litellm model string, or
        'sampling', which outside an MCP call only explains itself), or None for 'none'."""
        return configured_llm(self.settings)

    # -- reading (tutorialbook/reading.py) ------------------------------------------
    books = _to("reading", Reading.books)
    book_names = _to("reading", Reading.book_names)
    ensure_book = _to("reading", Reading.ensure_book)
    tree = _to("reading", Reading.tree)
    has_book = _to("reading", Reading.has_book)
    browse = _to("reading", Reading.browse)
    skill = _to("reading", Reading.skill)
    skills = _to("reading", Reading.skills)
    tutorials = _to("reading", Reading.tutorials)
    book_of = _to("reading", Reading.book_of)
    skill_names = _to("reading", Reading.skill_names)

    def missing_book(self, book: str, among: Iterable[str] | None = None):
        """The error for a book that does not exist (listing ``among``, default every book)."""
        return self.reading.missing_book(book, among)

    def transcript_markdown(self, tutorial_id: str) -> str:
        return documents.transcript_markdown(self.reading, tutorial_id)

    def toc_markdown(self, book: str) -> str:
        return documents.toc_markdown(self.reading, book)

    def node_markdown(self, book: str, node_id: str) -> str:
        return documents.node_markdown(self.reading, book, node_id)

    def complete(self, name: str, prefix: str, chosen: dict[str, str],
                 can: Callable[[str], bool] | None = None) -> list[str]:
        """The ids completing ``prefix`` for an argument ``name`` (book, node_id within the
        ``chosen`` book, skill_id, tutorial_id), among the books ``can`` allows (None: every
        book), at most 101."""
        restricted = can is not None
        can = can or (lambda book: True)
        if name == "book":
            return [b for b in self.reading.book_names() if b.startswith(prefix) and can(b)]
        if name == "node_id" and chosen.get("book") and can(chosen["book"]):
            try:
                tree = self.reading.tree(chosen["book"])
            except TutorialbookError:
                return []
            return sorted(n for n in tree.nodes if n.startswith(prefix))
        table = {"skill_id": "skills", "tutorial_id": "tutorials"}.get(name)
        if table is None:
            return []
        books = [b for b in self.reading.book_names() if can(b)] if restricted else None
        return sorted(r["id"] for r in self.reading.ids_with_prefix(table, prefix, books) if can(r["book"]))

    # -- retrieval (tutorialbook/retrieval.py) ----------------------------------------
    retrieve = _to("retrieval", Retrieval.retrieve)
    rank_skills = _to("retrieval", Retrieval.rank_skills)

    # -- ingest, refinement, lessons ------------------------------------------------------
    ingest = _to("ingestion", Ingestion.ingest)

    def ingest_batch(self, source: str, book: str = "default", title: str | None = None, domain: str = "auto",
                     refine_rounds: int = 1, agent: str | None = None, workers: int = 1, ray: str | None = None,
                     progress: Progress | None = None) -> IngestReport:
        """``ingest`` with a folder's files read by ``workers`` processes, or Ray tasks (``ray``: an
        address, "auto", "local"), each written in the folder's order (tutorialbook/batch.py)."""
        from tutorialbook.batch import ingest_batch

        return ingest_batch(self.ingestion, ingestion_of, source, book, title, domain, refine_rounds, agent,
                            workers, ray, progress)
    source_policy = _to("ingestion", Ingestion.source_policy)
    refine = _to("refinement", Refinement.refine)
    exam = _to("refinement", Refinement.exam)
    record_lesson = _to("lessons", Lessons.record_lesson)
    record_lessons = _to("lessons", Lessons.record_lessons)

    # -- Agent Skills folders (skills/agent_skills.py) ------------------------------------
    def export_skills(self, book: str, directory: str, progress: Progress | None = None):
        """Write a book's skills as Agent Skills folders (SKILL.md + references/evidence.md)."""
        from tutorialbook.skills.agent_skills import export_skills

        return export_skills(self.reading.skills, book, directory, progress)

    def import_skills(self, book: str, directory: str, progress: Progress | None = None, agent: str | None = None):
        """Read Agent Skills folders into a book; importing the same folders again changes nothing.
        The import is an event in the book's history (so it can be restored to before it)."""
        from tutorialbook.skills.agent_skills import import_skills

        return import_skills(self.store, self.embed, self.reading.ensure_book, self.reading.tree, book, directory,
                             progress, agent or self.agent)

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
        grounding = positions.ground_async(self.store, self.retrieval.rank_skills, self.reading.missing_book,
                                           board, opening, book)  # runs while the engine searches
        status = chess_engine.describe(board)
        analysis = self.engine().analyse(board, depth=depth, multipv=multipv)
        taught, related = grounding.result()
        return PositionReport(
            status=PositionStatus(**{k: getattr(status, k) for k in PositionStatus.model_fields}),
            opening=OpeningName(eco=opening.eco, name=opening.name) if opening else None,
            engine=EngineView(
                source=analysis.source, engine=analysis.engine, depth=analysis.depth, cp=analysis.cp,
                cp_to_move=analysis.cp_to_move, mate=analysis.mate, note=analysis.note,
                lines=[EngineLine(san=pv.san, cp=pv.cp, mate=pv.mate) for pv in analysis.lines],
            ),
            taught=taught, related_skills=related,
        )

    def engine(self):
        """The library's chess engines (settings.engines processes at most, started on first use)."""
        with self._lazy:
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
        if not self.has_book(book) and not self.store.count(hist.EVENTS, where.of_book(book)):
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

    @property
    def retention(self) -> Retention:
        return self.ingestion.retention

    def upkeep(self) -> list[TableUpkeep]:
        """Compact every table and prune the versions the retention policy no longer keeps
        (restore still reaches settings.keep_versions_seconds back)."""
        return upkeep(self.store, self.retention)

    def revert_lesson(self, lesson_id: str, agent: str | None = None) -> hist.RevertReport:
        """Remove one lesson (and the helpful/harmful counts it gave); later writes stay."""
        return hist.revert_lesson(self.store, lesson_id, agent or self.agent)

    def revert_skill(self, skill_id: str, version: int | None = None,
                     agent: str | None = None) -> hist.RevertReport:
        """Put one skill's content back to an earlier version of that row (default: the one
        before the current), as a new version; its feedback counts and other rows stay."""
        return hist.revert_skill(self.store, skill_id, version, agent or self.agent)


def ingestion_of(settings: Settings) -> Ingestion:
    """A batch worker's ingestion service on the batch's settings (tutorialbook/batch.py)."""
    return Library(settings).ingestion


def configured_llm(settings: Settings):
    """A fresh run of the model ``settings`` name (what the services are given to call)."""
    from tutorialbook.llm.client import from_settings  # lazy: litellm loads only when a model is used

    return from_settings(settings)
