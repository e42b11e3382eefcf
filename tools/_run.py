"""What every tool shares: the library from the server's lifespan, blocking work off the
event loop, and errors an agent can read."""

from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar

import anyio
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

from tutorialbook.errors import TutorialbookError
from tutorialbook.library import Library

T = TypeVar("T")


def library_of(ctx: Context) -> Library:
    return ctx.request_context.lifespan_context.library


async def run(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run a blocking library call in a worker thread; bad input becomes a tool error
    that names the field."""
    try:
        return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))
    except TutorialbookError as exc:
        raise ToolError(str(exc)) from exc
