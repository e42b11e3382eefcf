"""Refinement and the exam, a service of the :class:`~tutorialbook.library.Library` (the loop
itself is :mod:`tutorialbook.skills.refine`; ingest refines each new tutorial through it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from tutorialbook.common import Progress, check_rounds, pack_of
from tutorialbook.config import Settings
from tutorialbook.memory import where
from tutorialbook.memory.store import Store
from tutorialbook.models import ExamReport, RefineReport, TutorialReport
from tutorialbook.reading import Embed, Reading

if TYPE_CHECKING:
    from tutorialbook.llm.client import LLM


class Refinement:
    """Examines a book and repairs it. Receives the store, the embedder, settings (who writes,
    by default) and the reading service, the skill ranking agents get (``Retrieval.rank_skills``:
    questions are asked through it) and the configured model's factory."""

    def __init__(self, store: Store, embed: Embed, settings: Settings, reading: Reading,
                 rank_skills: Callable, llm: Callable[[], LLM | None]):
        self.store, self._embed, self.settings, self.reading = store, embed, settings, reading
        self._rank_skills, self._llm = rank_skills, llm

    def refiner(self, book: str, agent: str | None = None, llm=None):
        """The refiner of one book for one run (with ``llm``, the model's examiner and drafts)."""
        from tutorialbook.llm.refine import refiner

        return refiner(self.store, self._embed, self.reading.tree, self._rank_skills, book,
                       agent or self.settings.agent, llm)

    def exam_fields(self, report: TutorialReport) -> TutorialReport:
        """A tutorial ingested before: its stored questions' pass rates."""
        rows = self.store.rows("questions", where.of_tutorial(report.tutorial_id),
                               ["passed_before", "passed_after"])
        if rows:
            report.questions_harvested = len(rows)
            report.pass_rate_before = round(sum(bool(r["passed_before"]) for r in rows) / len(rows), 4)
            report.pass_rate_after = round(sum(bool(r["passed_after"]) for r in rows) / len(rows), 4)
        return report

    def refine(self, book: str, rounds: int = 1, progress: Progress | None = None,
               cancel: Callable[[], bool] | None = None, agent: str | None = None) -> RefineReport:
        """Examine a book with questions harvested from each of its tutorials (stored ones
        are asked again) and repair every failure; ``rounds`` repair rounds at most."""
        check_rounds(rounds, "rounds", minimum=1)
        self.reading.tree(book)
        tutorials = sorted(self.store.rows("tutorials", where.ready_tutorials(book)), key=lambda r: r["created_at"])
        run = self._llm()
        refiner = self.refiner(book, agent, run)
        summaries, failures = [], []
        for n, tutorial in enumerate(tutorials):
            if cancel and cancel():
                break

            def say(message: str, n=n, title=tutorial["title"]) -> None:
                if progress:
                    progress(n, len(tutorials), f"{title}: {message}")

            summary, results = refiner.refine_tutorial(tutorial, rounds, pack_of(tutorial), cancel, say)
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

        self.reading.tree(book)
        rows = sorted(self.store.rows("questions", where.of_book(book)),
                      key=lambda r: (r["tutorial_id"], r["created_at"], r["id"]))
        if not rows:
            return ExamReport(
                book=book,
                questions=0,
                passed=0,
                pass_rate=None,
                note="no stored questions: run `tutorialbook refine --book B` (or ingest with refinement)",
            )
        tutorials = {r["id"]: r for r in self.store.rows("tutorials", where.of_book(book))}
        packs = {tid: pack_of(t) for tid, t in tutorials.items()}
        run = self._llm()  # the judge refinement used (a model's verdicts are checked by a model again)
        results = self.refiner(book, None, run).exam(rows, packs)
        return ExamReport(
            book=book, questions=len(results), passed=sum(r.passed for r in results), pass_rate=pass_rate(results),
            by_kind=by_kind(results), regressions=[r for r in results if r.passed_after and not r.passed],
            failures=[r for r in results if not r.passed], note=" ".join(run.warnings) if run else "",
        )
