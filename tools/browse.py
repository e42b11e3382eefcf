"""browse_toc: walk a book's table of contents."""

from typing import Annotated

from mcp.server.mcpserver import Context
from pydantic import Field

from tutorialbook.models import MAX_DEPTH, NodeView
from tutorialbook.tools._run import run, scope


async def browse_toc(
    book: Annotated[str, Field(description="book name, e.g. 'chess' (see the books resource)")],
    node_id: Annotated[str, Field(description="node to open; empty for the book's root")] = "",
    depth: Annotated[int, Field(description=f"levels of children to include (1-{MAX_DEPTH})")] = 1,
    ctx: Context = None,  # type: ignore[assignment]  # the SDK injects it; a default, as it follows defaulted ones
) -> NodeView:
    """Open one node of a book's Table of Contents: its title, summary, evidence quotes
    with timestamps, its children (id, title, one-line summary, counts), the skills and
    the lessons attached to it (the 10 most confirmed; lessons_total counts them all).
    Start at the root (empty node_id), read the children's summaries, and open the most
    relevant child; retrieve_skill then finds the skills."""
    s = await scope(ctx, book, "read", "browse_toc")
    return await run(s.library.browse, book, node_id, depth, scope=s)
