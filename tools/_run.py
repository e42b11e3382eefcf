"""What every tool shares: the library from the server's lifespan, who is calling and what
they may do (per-call scoping), blocking work off the event loop, and errors an agent can read."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, TypeVar

import anyio
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

from tutorialbook.errors import NotFound, TutorialbookError
from tutorialbook.memory.faults import damaged
from tutorialbook.server.auth import EVERYTHING, Access, access_from_token

if TYPE_CHECKING:
    from tutorialbook.library import Library

T = TypeVar("T")


def library_of(ctx: Context) -> "Library":
    return ctx.request_context.lifespan_context.library


def caller(state: Any) -> Access:
    """Who is calling: over HTTP with tokens, the token's agent and rights (identity never
    comes from tool arguments); over stdio, or HTTP without tokens, everything is allowed
    and the agent is the library's (TUTORIALBOOK_AGENT)."""
    token = get_access_token()
    if token is not None:
        return access_from_token(token)
    if getattr(state, "auth_required", False):  # fail closed if a request ever lost its token
        raise ToolError("unauthenticated: this server needs a bearer token")
    return EVERYTHING


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
        if isinstance(exc, NotFound) and exc.field == "book" and not self.access.unrestricted:
            return self.library.missing_book(self.book, self.access.can)
        return exc


class Hidden(Exception):
    """The caller may not see the book: answer as for a missing one."""


def check(state: Any, book: str, need: str, tool: str) -> Scope:
    """The per-call check every tool makes. A book the caller holds no right on reads as
    missing (:class:`Hidden`); a right too low for the tool is a clear error naming the book
    and the right. Reads nothing from the store."""
    access = caller(state)
    scope = Scope(access, state.library, book)
    if access.unrestricted:
        return scope
    if not access.can(book, "read"):
        if tool == "ingest_tutorial":  # creates books: say what is missing, not whether the book exists
            raise ToolError(f"book: agent {access.agent!r} holds no right on book {book!r}; "
                            f"{tool} needs the 'write' right")
        raise Hidden(book)
    if not access.can(book, need):
        raise ToolError(f"book: agent {access.agent!r} holds only the '{access.right(book)}' right on book "
                        f"{book!r}; {tool} needs the '{need}' right")
    return scope


async def scope(ctx: Context, book: str, need: str, tool: str) -> Scope:
    """:func:`check` for the calling tool; a hidden book gets the missing-book error, which
    lists only the books the caller may see (that reads the store, so off the event loop)."""
    state = ctx.request_context.lifespan_context
    if not getattr(state, "opened", True):  # the first request opens the store: not on the event loop
        await anyio.to_thread.run_sync(lambda: state.library)
    try:
        return check(state, book, need, tool)
    except Hidden:
        access = caller(state)
        error = await anyio.to_thread.run_sync(state.library.missing_book, book, access.can)
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
