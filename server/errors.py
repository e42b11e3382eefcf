"""Protocol errors as the MCP specification defines them, with our message kept.

The SDK answers a caller's mistakes in ways the specification does not: an unknown prompt or a
missing prompt argument is JSON-RPC code 0 with a logged traceback, a resource template whose
function raises our ``NotFound`` is ``-32603 "Error creating resource from template"`` (our
message, which names the field, is dropped), and an unknown tool is a tool result. Here:

* ``prompts/get``: unknown prompt, missing or unknown argument -> ``-32602`` (invalid params).
* ``tools/call``: unknown tool -> ``-32602``; arguments that fail the input schema stay a tool
  execution error (``isError``, as SEP-1303 asks, so the model can correct itself) whose text
  names each field and why, without pydantic's links.
* ``resources/read`` of a missing book/node/skill/tutorial -> resource not found: ``-32602`` on
  2026-07-28 sessions (SEP-2164), ``-32002`` on 2025-era sessions (that revision's code);
  other bad input -> ``-32602``. The message is ours (``"skill_id: no skill 's_…'"``) and
  ``data`` carries the URI and the field.

None of these is logged with a traceback: they are the caller's mistakes, logged at INFO.
"""

from __future__ import annotations

import logging
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import INVALID_PARAMS
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from tutorialbook.errors import NotFound, TutorialbookError

log = logging.getLogger(__name__)

#: "Resource not found" of the 2025-era revisions (retired, never reused, by 2026-07-28)
RESOURCE_NOT_FOUND_2025 = -32002


def resource_not_found_code(protocol_version: str | None) -> int:
    return INVALID_PARAMS if protocol_version in MODERN_PROTOCOL_VERSIONS else RESOURCE_NOT_FOUND_2025


def validation_message(exc: ValidationError) -> str:
    """``field: why`` for each failed argument (no input echo, no documentation links)."""
    parts = []
    for err in exc.errors(include_url=False, include_input=False):
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)


class ProtocolServer(MCPServer):
    """MCPServer whose errors for a caller's mistakes follow the specification."""

    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None, context=None):
        prompt = self._prompt_manager.get_prompt(name)
        if prompt is None:
            known = ", ".join(sorted(p.name for p in self._prompt_manager.list_prompts()))
            raise MCPError(code=INVALID_PARAMS, message=f"name: no prompt named {name!r} (prompts: {known})")
        given = set(arguments or {})
        declared = {a.name for a in prompt.arguments or []}
        missing = sorted(a.name for a in prompt.arguments or [] if a.required and a.name not in given)
        if missing:
            raise MCPError(code=INVALID_PARAMS, message=f"arguments: prompt {name!r} needs "
                                                        f"{', '.join(map(repr, missing))}, which was not given")
        unknown = sorted(given - declared)
        if unknown:
            raise MCPError(code=INVALID_PARAMS, message=f"arguments: prompt {name!r} takes "
                                                        f"{', '.join(map(repr, sorted(declared)))}, not "
                                                        f"{', '.join(map(repr, unknown))}")
        return await super().get_prompt(name, arguments, context)

    async def _handle_call_tool(self, ctx, params):
        if self._tool_manager.get_tool(params.name) is None:
            known = ", ".join(sorted(t.name for t in self._tool_manager.list_tools()))
            log.info("unknown tool %r", params.name)
            raise MCPError(code=INVALID_PARAMS, message=f"name: no tool named {params.name!r} (tools: {known})")
        return await super()._handle_call_tool(ctx, params)

    async def call_tool(self, name, arguments, context=None):
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(validation_message(exc.__cause__)) from exc.__cause__
            raise

    async def _handle_read_resource(self, ctx, params):
        try:
            return await super()._handle_read_resource(ctx, params)
        except MCPError as err:
            if _caused_by(err, ResourceNotFoundError):  # no resource or template matches the URI
                raise MCPError(code=resource_not_found_code(ctx.protocol_version), message=err.error.message,
                               data={"uri": str(params.uri)}) from None
            cause = _tutorialbook_cause(err)
            if cause is None:
                raise
            code = resource_not_found_code(ctx.protocol_version) if isinstance(cause, NotFound) else INVALID_PARAMS
            raise MCPError(code=code, message=str(cause),
                           data={"uri": str(params.uri), "field": cause.field}) from None

    async def read_resource(self, uri, context=None):
        """A TutorialbookError from a resource function is the caller's mistake: no traceback."""
        try:
            return await super().read_resource(uri, context)
        except ResourceError as err:
            cause = err.__cause__
            if isinstance(cause, TutorialbookError):
                raise _CallerResourceError(str(cause), cause) from None
            raise


class _CallerResourceError(ResourceError):
    """A resource read refused for the caller's input (logged at INFO by the SDK)."""

    def __init__(self, message: str, cause: TutorialbookError):
        super().__init__(message)
        self.tutorialbook_error = cause


def _caused_by(err: BaseException, kind: type) -> bool:
    seen = err.__cause__ or err.__context__
    return isinstance(seen, kind)


def _tutorialbook_cause(err: MCPError) -> TutorialbookError | None:
    seen = err.__cause__ or err.__context__
    while seen is not None:
        if isinstance(seen, _CallerResourceError):
            return seen.tutorialbook_error
        seen = seen.__cause__ or seen.__context__
    return None

