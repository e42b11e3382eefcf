"""ingest_tutorial: watch or read a tutorial and consolidate it into a book."""

import functools
from typing import Annotated, Literal

import anyio
from mcp.server.mcpserver import Context
from pydantic import Field

from tutorialbook.acquire.sources import SOURCES_HELP, TITLE_HELP
from tutorialbook.models import IngestReport
from tutorialbook.tools.sampling import sampling_llm
from tutorialbook.tools import _log
from tutorialbook.tools._run import run, scope


async def ingest_tutorial(
    source: Annotated[str, Field(description=f"path of {SOURCES_HELP}; only files under the server's allowed "
                                             "roots are read")],
    book: Annotated[str, Field(description="book to add it to (created if new)")] = "default",
    title: Annotated[str, Field(description=TITLE_HELP)] = "",
    domain: Annotated[Literal["auto", "general", "chess"],
                      Field(description="domain pack: auto picks it from the title, file name or transcript")] = "auto",
    refine_rounds: Annotated[int, Field(ge=0, le=10, description=(
        "adversarial refinement after consolidating: questions harvested from the tutorial are "
        "answered from the book alone and every failure repaired, for up to this many rounds "
        "(0 skips it); the report gives the pass rate before and after"))] = 1,
    ctx: Context = None,  # type: ignore[assignment]  # the SDK injects it; a default, as it follows defaulted ones
) -> IngestReport:
    """Turn a tutorial into knowledge: transcribe or read it, build or extend the book's
    TOC (chapters, sections) and skills with evidence spans, and commit it; then examine the
    book with questions harvested from the tutorial and repair what it fails. Re-ingesting
    the same content is a no-op. Reports progress; returns what was added or updated and
    the questions' pass rate before and after refinement."""

    def progress(done: float, total: float, message: str) -> None:
        anyio.from_thread.run(ctx.report_progress, done, total, message)
        anyio.from_thread.run(_log.send, ctx, "info", message, "tutorialbook.ingest")

    s = await scope(ctx, book, "write", "ingest_tutorial")
    cancelled = functools.partial(_cancelled, anyio.get_cancelled_exc_class())  # known here, not in the thread
    llm = sampling_llm(ctx, s.library.settings)  # TUTORIALBOOK_LLM=sampling: the client's model, if it can be asked
    if llm is None and getattr(ctx.request_context.lifespan_context, "ingest_process", False):
        from tutorialbook.tools.ingest_process import ingest_in_child  # a shared server: off the request path

        report = await run(ingest_in_child, s.library.settings, progress, cancelled, source=source, book=book,
                           title=title or None, domain=domain, refine_rounds=refine_rounds, agent=s.agent, scope=s)
    else:
        report = await run(s.library.ingest, source, book, title or None, domain, progress, cancelled,
                           refine_rounds=refine_rounds, agent=s.agent, llm=llm, scope=s)
    for tutorial in report.tutorials:
        for warning in tutorial.warnings:
            await _log.send(ctx, "warning", f"{tutorial.title}: {warning}", "tutorialbook.ingest")
    for warning in report.warnings:
        await _log.send(ctx, "warning", warning, "tutorialbook.ingest")
    return report


def _cancelled(cancelled_exc: type[BaseException]) -> bool:
    """True once the MCP call was cancelled (checked by the ingest between steps, in its worker
    thread, where anyio cannot name the event loop's cancellation exception: it is passed in)."""
    try:
        anyio.from_thread.check_cancelled()
    except cancelled_exc:
        return True
    return False
