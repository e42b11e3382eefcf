"""Skills over MCP: the ``io.modelcontextprotocol/skills`` extension (SEP-2640, stable).

Every skill of every book the caller may read is an Agent Skills directory of resources::

    skill://<book>/<name>/SKILL.md                  the SKILL.md that export-skills writes
    skill://<book>/<name>/references/evidence.md    every evidence span (and its JSON copy)

``<name>`` is the SKILL.md front-matter ``name`` (the folder export-skills writes), the book is
the organizational prefix. ``skills/list`` (paginated) and ``skills/get`` return each skill's
entry: its front matter as JSON and the manifest of its files with SHA-256 digests and sizes.
Access is the same as everywhere: a book a token cannot read has no skills here, and its
skill:// URIs read as unknown (``-32602``). A tool call that changed a book (ingest, a lesson)
announces ``notifications/resources/list_changed`` to every session of this server (2025-era
sessions directly, 2026-07-28 ones on their ``subscriptions/listen`` streams) so hosts re-list.

``tutorialbook://skills/{skill_id}`` stays, serving the same SKILL.md.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import logging
import re
import weakref
from collections.abc import Callable
from typing import Any
from dataclasses import dataclass

import anyio
from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver import MCPServer
from mcp.server.subscriptions import ResourcesListChanged
from mcp.shared.exceptions import MCPError
from mcp_types import PaginatedRequestParams, RequestParams
from mcp_types.jsonrpc import INVALID_PARAMS
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from tutorialbook.errors import NotFound, TutorialbookError
from tutorialbook.tools.access import Access, readable_books
from tutorialbook.skills.skill_md import EVIDENCE_FILE, render_skill_md, skill_slug

log = logging.getLogger(__name__)

IDENTIFIER = "io.modelcontextprotocol/skills"
SCHEME = "skill://"
SKILL_FILE = "SKILL.md"
PAGE = 50
TTL_MS = 30_000
#: tools whose success changes a book's skills (their SKILL.md text, or which exist)
WRITING_TOOLS = frozenset({"ingest_tutorial", "record_lesson"})
_URI = re.compile(r"^skill://(?P<book>[a-z0-9._-]{1,64})/(?P<name>[a-z0-9-]{1,64})/(?P<file>.+)$")


class GetSkillParams(RequestParams):
    uri: str


@dataclass(frozen=True)
class SkillFiles:
    """One skill as the files of its directory (path within the skill -> text)."""

    book: str
    name: str
    files: dict[str, str]

    def uri(self, path: str = SKILL_FILE) -> str:
        return f"{SCHEME}{self.book}/{self.name}/{path}"

    def entry(self) -> dict:
        manifest = []
        for path, text in self.files.items():
            data = text.encode("utf-8")
            manifest.append({"uri": self.uri(path), "digest": "sha256:" + hashlib.sha256(data).hexdigest(),
                             "size": len(data)})
        return {"uri": self.uri(), "frontmatter": front_matter(self.files[SKILL_FILE]), "resources": manifest}


def front_matter(skill_md: str) -> dict:
    """The SKILL.md front matter as the JSON object the entry carries (YAML's safe loader)."""
    import yaml  # lazy: a skill read needs it, a server's start does not

    head = skill_md.split("\n---\n", 1)[0]
    return yaml.safe_load(head.removeprefix("---\n")) or {}


class SkillCatalog:
    """The skills a caller may read, addressed by skill:// URI (blocking: call off the event loop)."""

    def __init__(self, library, access: Access):
        self.library = library
        self.access = access

    def _readable_books(self) -> list[str]:
        return readable_books(self.library, self.access)

    def _index(self, book: str) -> list[tuple[str, str]]:
        """(name, skill id) of every skill of a book, by name."""
        return sorted((skill_slug(r["name"], r["id"]), r["id"]) for r in self.library.skill_names(book))

    def listing(self) -> list[tuple[str, str, str]]:
        """(book, name, skill id) of every readable skill, in URI order."""
        return [(book, name, sid) for book in self._readable_books() for name, sid in self._index(book)]

    def files(self, book: str, skill_id: str) -> SkillFiles:
        from tutorialbook.skills.agent_skills import render_evidence_md

        view = self.library.skill(skill_id)
        return SkillFiles(book, skill_slug(view.name, view.id),
                          {SKILL_FILE: render_skill_md(view), EVIDENCE_FILE: render_evidence_md(view)})

    def find(self, book: str, name: str) -> SkillFiles:
        """The skill at skill://book/name; NotFound (the same for a hidden book) otherwise."""
        if self.access.can(book):
            for slug, sid in self._index(book) if self.library.has_book(book) else []:
                if slug == name:
                    return self.files(book, sid)
        raise NotFound("uri", f"no skill is served at {SCHEME}{book}/{name}/{SKILL_FILE}")

    def read(self, uri: str) -> str:
        match = _URI.match(uri)
        if not match:
            raise NotFound("uri", f"{uri} is not a skill file (skill://<book>/<name>/SKILL.md)")
        skill = self.find(match["book"], match["name"])
        if match["file"] not in skill.files:
            raise NotFound("uri", f"skill {skill.uri()} has no file {match['file']!r} "
                                  f"(files: {', '.join(skill.files)})")
        return skill.files[match["file"]]


def _cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(json.dumps({"offset": offset}).encode()).decode()


def _offset(cursor: str | None) -> int:
    if not cursor:
        return 0
    try:
        offset = json.loads(base64.urlsafe_b64decode(cursor.encode()))["offset"]
        if isinstance(offset, int) and offset >= 0:
            return offset
    except (binascii.Error, ValueError, KeyError, TypeError):
        pass
    raise MCPError(code=INVALID_PARAMS, message=f"cursor: {cursor!r} is not a cursor this server gave out")


class SkillsExtension(Extension):
    """skills/list and skills/get, and list-changed announcements after a writing tool."""

    identifier = IDENTIFIER

    def __init__(self, catalog: Callable[[], SkillCatalog], server: MCPServer):
        self._catalog = catalog
        self._server = server

    def methods(self):
        return (MethodBinding("skills/list", PaginatedRequestParams, self.list_skills),
                MethodBinding("skills/get", GetSkillParams, self.get_skill))

    async def list_skills(self, ctx, params: PaginatedRequestParams) -> dict:
        start = _offset(params.cursor)

        def page() -> tuple[list[dict], bool, bool]:
            catalog = self._catalog()
            listing = catalog.listing()
            chosen = listing[start:start + PAGE]
            return ([catalog.files(book, sid).entry() for book, _, sid in chosen], start + PAGE < len(listing),
                    catalog.access.unrestricted)

        skills, more, public = await anyio.to_thread.run_sync(page)
        result = {"resultType": "complete", "skills": skills, "ttlMs": TTL_MS,
                  "cacheScope": "public" if public else "private"}
        if more:
            result["nextCursor"] = _cursor(start + PAGE)
        return result

    async def get_skill(self, ctx, params: GetSkillParams) -> dict:
        def entry() -> tuple[dict, bool]:
            catalog = self._catalog()
            match = _URI.match(params.uri)
            if not match or match["file"] != SKILL_FILE:
                raise NotFound("uri", f"{params.uri} is not the URI of a skill's SKILL.md")
            return catalog.find(match["book"], match["name"]).entry(), catalog.access.unrestricted

        try:
            skill, public = await anyio.to_thread.run_sync(entry)
        except TutorialbookError as exc:
            raise MCPError(code=INVALID_PARAMS, message=exc.reason, data={"uri": params.uri}) from None
        return {"resultType": "complete", "skill": skill, "ttlMs": TTL_MS,
                "cacheScope": "public" if public else "private"}

    async def intercept_tool_call(self, params, ctx, call_next):
        result = await call_next(ctx)
        if params.name in WRITING_TOOLS and not getattr(result, "is_error", False):
            await announce_change(self._server, ctx)
        return result


#: 2025-era connections seen (connection -> a session of it, for standalone notifications)
_legacy_sessions: "weakref.WeakKeyDictionary[Any, Any]" = weakref.WeakKeyDictionary()


async def remember_legacy_sessions(ctx, call_next):
    """Server middleware: note each 2025-era connection, so a change reaches all of them."""
    if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS and getattr(ctx, "session", None) is not None:
        _legacy_sessions[getattr(ctx.session, "_connection", ctx.session)] = ctx.session
    return await call_next(ctx)


async def announce_change(server: MCPServer, ctx) -> None:
    """Resources (skill files among them) changed: tell subscribed 2026 streams and every 2025 session."""
    try:
        await server._subscriptions.publish(ResourcesListChanged())
    except Exception as exc:  # noqa: BLE001 - a closed stream must not fail the tool
        log.debug("could not publish a change: %s", exc)
    for session in list(_legacy_sessions.values()):
        try:
            await session.send_resource_list_changed()
        except Exception as exc:  # noqa: BLE001 - that client has gone
            log.debug("could not announce a change to a session: %s", exc)


def register(server: MCPServer, library: Callable, who: Callable[[], Access]) -> None:
    """The extension, its skill:// resource templates, and resources.listChanged for 2025 sessions."""
    catalog = lambda: SkillCatalog(library(), who())  # noqa: E731 - the caller is per request
    server._apply_extension(SkillsExtension(catalog, server))
    server._install_extension_interceptor()
    server.middleware.append(remember_legacy_sessions)

    @server.resource(SCHEME + "{book}/{name}/SKILL.md", mime_type="text/markdown", title="Skill (Skills over MCP)")
    def skill_md(book: str, name: str) -> str:
        """A learned skill's SKILL.md (Agent Skills), under its book."""
        return catalog().read(f"{SCHEME}{book}/{name}/{SKILL_FILE}")

    @server.resource(SCHEME + "{book}/{name}/references/evidence.md", mime_type="text/markdown",
                     title="Skill evidence")
    def evidence_md(book: str, name: str) -> str:
        """Every evidence span of a skill: tutorial, times, link, quote (quoted material)."""
        return catalog().read(f"{SCHEME}{book}/{name}/{EVIDENCE_FILE}")

    lowlevel = server._lowlevel_server
    plain = lowlevel.create_initialization_options

    def with_list_changed(notification_options=None, *args, **kwargs):
        from mcp.server.lowlevel import NotificationOptions

        options = notification_options or NotificationOptions(resources_changed=True)
        return plain(options, *args, **kwargs)

    # the server announces resources listChanged: its bound method is wrapped on this one instance on purpose
    lowlevel.create_initialization_options = with_list_changed  # type: ignore[method-assign]
