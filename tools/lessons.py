"""record_lesson: write experience back so every agent sharing the store benefits."""

from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from pydantic import Field

from tutorialbook.models import LessonResult, SkillFeedback
from tutorialbook.tools._run import run, scope


async def record_lesson(
    lesson: Annotated[str, Field(description="what you learned, in one or a few sentences (max 4000 chars)")],
    book: Annotated[str, Field(description="book the lesson belongs to")],
    outcome: Annotated[
        Literal["success", "failure", "partial", "note"],
        Field(description="how acting on the knowledge went"),
    ] = "note",
    skill_id: Annotated[
        str, Field(description="skill the lesson is about (success/failure also counts as feedback on it)")
    ] = "",
    node_id: Annotated[str, Field(description="TOC node the lesson is about, when not one skill")] = "",
    context: Annotated[str, Field(description="the situation: task, inputs, environment")] = "",
    feedback: Annotated[
        list[SkillFeedback],
        Field(
            description="per-skill verdicts: [{skill_id, verdict: helpful|harmful}], "
            "at most 50 skills (a repeated item counts once)"
        ),
    ] = [],
    ctx: Context = None,  # type: ignore[assignment]  # the SDK injects it; a default, as it follows defaulted ones
) -> LessonResult:
    """Record a lesson learned while using the book. Name the skill or node it is about;
    with neither it attaches to the best-matching node (or the root). An identical lesson
    is counted again rather than duplicated; similar lessons are returned so you can
    check them."""
    s = await scope(ctx, book, "write", "record_lesson")  # the lesson's agent is the caller's token
    return await run(
        s.library.record_lesson, lesson, book, outcome, skill_id, node_id, context, feedback, agent=s.agent, scope=s
    )
