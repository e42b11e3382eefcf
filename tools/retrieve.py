"""retrieve_skill: the skills (and recorded lessons) for a task."""

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, Resolve
from pydantic import Field

from tutorialbook.models import RetrieveResult
from tutorialbook.tools.sampling import plan_llm, sampling_resolver
from tutorialbook.tools._run import check, run, scope


def _readable(ctx: Context, book: str):
    """The library, when the caller may read the book (resolvers run before the tool body)."""
    try:
        return check(ctx.request_context.lifespan_context, book, "read", "retrieve_skill").library
    except Exception:  # noqa: BLE001 - the tool body raises the caller's error
        return None


#: TUTORIALBOOK_LLM=sampling, mode toc: the client's model navigates the TOC, sampled before the body runs
_SAMPLED_TOC = sampling_resolver(_readable)


async def retrieve_skill(
    query: Annotated[str, Field(description="the task or question, in plain words (at most 2000 characters "
                                            "by default)")],
    book: Annotated[str, Field(description="book to search")],
    k: Annotated[int, Field(description="how many skills to return (1-50)")] = 5,
    mode: Annotated[
        Literal["toc", "hybrid", "keyword", "vector"],
        Field(description="toc: descend the TOC tree and return the route; hybrid: BM25 + vectors "
                          "fused by score; keyword: BM25 only; vector: embeddings only. Except in keyword "
                          "mode, the first five are put in order word by word (late interaction)"),
    ] = "hybrid",
    fen: Annotated[str, Field(description="chess: a position (FEN); skills the tutorials tie to it come first")] = "",
    ctx: Context = None,  # type: ignore[assignment]  # the SDK injects it; a default, as it follows defaulted ones
    sampled: Annotated[Any, Resolve(_SAMPLED_TOC)] = None,
) -> RetrieveResult:
    """Find the skills a book teaches for a task. Each skill has its steps, when to use
    it, its place in the TOC, the evidence (tutorial, start-end seconds, quote, link),
    lessons other agents attached, and helpful/harmful counts. Lessons matching the query
    come back too. After acting on a skill, call record_lesson with what happened."""
    s = await scope(ctx, book, "read", "retrieve_skill")
    return await run(s.library.retrieve, query, book, k, mode, fen, llm=plan_llm(sampled), scope=s)
