"""What every tool shares: the library from the server's lifespan, who is calling and what
they may do (per-call scoping), blocking work off the event loop, and errors an agent can read."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, TypeVar

import anyio
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

from tutorialbook.errors import TutorialbookError
from tutorialbook.memory.faults import damaged
from tutorialbook.tools.access import Access, Hidden, caller
from tutorialbook.tools.access import check as access_check

if TYPE_CHECKING:
    from tutorialbook.library import Library

T = TypeVar("T")


def library_of(ctx: Context[Any, Any]) -> "Library":  # lifespan_context: server/state.py AppState
    return ctx.request_context.lifespan_context.library


@dataclass(frozen=True)
class Scope:
    """A caller cleared for one book: pass ``agent`` to writes, and the scope to :func:`run`."""

    access: Access
    library: "Library"
    book: str

    @property
    def agent(self) -> str | None:
        return self.access.agent

    def hide(self, exc: TutorialbookError) -> TutorialbookError:
        """A 'no book' error that lists only the books this caller may see."""
        return self.access.hide(self.library, self.book, exc)


def check(state: Any, book: str, need: str, tool: str) -> Scope:
    """The per-call check (tools/access.py) for a tool: the caller's scope, or :class:`Hidden`."""
    access = caller(state)
    access_check(access, book, need, tool)
    return Scope(access, state.library, book)


async def scope(ctx: Context[Any, Any], book: str, need: str, tool: str) -> Scope:
    """:func:`check` for the calling tool; a hidden book gets the missing-book error, which
    lists only the books the caller may see (that reads the store, so off the event loop)."""
    state = ctx.request_context.lifespan_context
    if not getattr(state, "opened", True):  # the first request opens the store: not on the event loop
        await anyio.to_thread.run_sync(lambda: state.library)
    try:
        return check(state, book, need, tool)
    except Hidden:
        access = caller(state)
        error = await anyio.to_thread.run_sync(access.missing_book, state.library, book)
        raise ToolError(str(error)) from None


async def run(fn: Callable[..., T], *args: Any, scope: Scope | None = None, **kwargs: Any) -> T:
    """Run a blocking library call in a worker thread; bad input becomes a tool error
    that names the field (and, for a scoped caller, never names a book it may not see)."""
    try:
        return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))
    except TutorialbookError as exc:
        raise ToolError(str(scope.hide(exc) if scope else exc)) from exc
    except Exception as exc:  # a damaged table: name it and the fix, not only "Error executing tool"
        fault = damaged(exc, store=scope.library.store if scope else None)
        if fault is None:
            raise
        raise ToolError(str(fault)) from exc
