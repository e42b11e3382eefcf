"""The access policy of the MCP surface, in one place: who is calling (from the bearer token, or
everything over stdio), what each right allows, and how a book the caller may not see reads
(exactly like a missing one: the same error, listing only the books it may see).

Tools check through :func:`check`; resources through :func:`readable` and :func:`owned`;
completions through :func:`completions`. The token files and verifiers that produce an
:class:`Access` are the server's (server/auth.py, server/oauth.py)."""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Mapping

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.mcpserver.exceptions import ToolError

from tutorialbook.errors import NotFound, TutorialbookError

if TYPE_CHECKING:
    from mcp.server.auth.provider import AccessToken

    from tutorialbook.library import Library

RIGHTS = ("read", "write", "admin")
RANK = {name: n for n, name in enumerate(RIGHTS, 1)}
#: the claim of an AccessToken that carries the rights
RIGHTS_CLAIM = "tutorialbook_rights"


@dataclass(frozen=True)
class Access:
    """Who is calling and what they may do. ``rights`` None means everything (stdio, or
    HTTP without tokens on loopback); ``agent`` None means the library's own agent id."""

    agent: str | None = None
    rights: Mapping[str, str] | None = None

    @property
    def unrestricted(self) -> bool:
        return self.rights is None

    def right(self, book: str) -> str | None:
        if self.rights is None:
            return "admin"
        return self.rights.get(book, self.rights.get("*"))

    def can(self, book: str, need: str = "read") -> bool:
        held = self.right(book)
        return held is not None and RANK[held] >= RANK[need]

    @property
    def sees_every_book(self) -> bool:
        return self.rights is None or "*" in self.rights

    def missing_book(self, library: "Library", book: str) -> NotFound:
        """The error for a book that does not exist, or that this caller may not see: the
        same words either way, listing only the books it may see."""
        if self.unrestricted:
            return library.missing_book(book)
        return library.missing_book(book, [b for b in library.book_names() if self.can(b)])

    def hide(self, library: "Library", book: str, exc: TutorialbookError) -> TutorialbookError:
        """A 'no book' error that lists only the books this caller may see."""
        if isinstance(exc, NotFound) and exc.field == "book" and not self.unrestricted:
            return self.missing_book(library, book)
        return exc


EVERYTHING = Access()


def access_from_token(token: "AccessToken") -> Access:
    rights = (token.claims or {}).get(RIGHTS_CLAIM) or {}
    return Access(agent=token.client_id, rights=MappingProxyType(dict(rights)))


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


class Hidden(Exception):
    """The caller may not see the book: answer as for a missing one."""


def check(access: Access, book: str, need: str, tool: str) -> None:
    """The per-call check every tool makes. A book the caller holds no right on reads as
    missing (:class:`Hidden`); a right too low for the tool is a clear error naming the book
    and the right. Reads nothing from the store."""
    if access.unrestricted:
        return
    if not access.can(book, "read"):
        if tool == "ingest_tutorial":  # creates books: say what is missing, not whether the book exists
            raise ToolError(f"book: agent {access.agent!r} holds no right on book {book!r}; "
                            f"{tool} needs the 'write' right")
        raise Hidden(book)
    if not access.can(book, need):
        raise ToolError(f"book: agent {access.agent!r} holds only the '{access.right(book)}' right on book "
                        f"{book!r}; {tool} needs the '{need}' right")


def readable(library: "Library", access: Access, book: str, need: str = "read") -> None:
    """A resource's check: a book the caller may not read is missing, to it."""
    if not access.can(book, need):
        raise access.missing_book(library, book)


def admin(access: Access, book: str, what: str) -> None:
    """A resource that needs the admin right (a book's history)."""
    if not access.can(book, "admin"):
        raise TutorialbookError("book", f"agent {access.agent!r} holds only the '{access.right(book)}' right on "
                                        f"book {book!r}; {what} needs the 'admin' right")


def owned(library: "Library", access: Access, table: str, row_id: str, what: str) -> None:
    """A resource named by a row id: a row of a book the caller may not read does not exist, to it."""
    book = library.book_of(table, row_id)
    if book is not None and not access.can(book):
        raise NotFound(f"{what}_id", f"no {what} {row_id!r}")


def completions(library: "Library", access: Access, name: str, prefix: str, chosen: dict[str, str]) -> list[str]:
    """The ids completing ``prefix`` for argument ``name`` that ``access`` may see (at most 101)."""
    return library.complete(name, prefix, chosen, None if access.unrestricted else access.can)


def readable_books(library: "Library", access: Access) -> list[str]:
    return [b for b in library.book_names() if access.can(b)]
