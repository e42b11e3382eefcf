"""evaluate_position: judge a chess position and ground it in the tutorials."""

from typing import Annotated

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from tutorialbook.models import PositionReport
from tutorialbook.tools._run import caller, library_of, run, scope


async def evaluate_position(
    fen: Annotated[str, Field(description="position as FEN; give this or moves")] = "",
    moves: Annotated[str, Field(description="moves from the initial position, SAN or UCI, move numbers "
                                            "optional: 'e4 e5 Nf3', '1. e4 e5 2. Nf3', 'e2e4 e7e5'")] = "",
    book: Annotated[str, Field(description="book whose tutorials to consult; empty for every book")] = "",
    depth: Annotated[int, Field(description="engine search depth in plies (1-30)")] = 12,
    multipv: Annotated[int, Field(description="how many best lines (1-5)")] = 1,
    ctx: Context = None,  # type: ignore[assignment]  # the SDK injects it; a default, as it follows defaulted ones
) -> PositionReport:
    """Judge a chess position: legality, side to move, check/mate/stalemate, material, the
    opening's ECO code and name, the engine's evaluation and best lines (or a heuristic,
    labelled as such, when no engine is installed), and — kept apart from the engine —
    what the tutorials recommend at this position or the nearest earlier one of the line,
    with timestamps and quotes, plus related skills."""
    if book:
        s = await scope(ctx, book, "read", "evaluate_position")
        return await run(s.library.evaluate_position, fen, moves, book, depth, multipv, scope=s)
    if not caller(ctx.request_context.lifespan_context).sees_every_book:  # every book would include hidden ones
        raise ToolError("book: name a book; your token does not cover every book")
    return await run(
        lambda: library_of(ctx).evaluate_position(fen, moves, book, depth, multipv)
    )  # opens the store off the loop
