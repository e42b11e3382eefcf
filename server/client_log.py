"""Logging to the MCP client (``notifications/message``), per each protocol era.

2025-era sessions: the server offers ``logging/setLevel`` (so the ``logging`` capability is
declared) and sends a message only at or above the level the session chose (``info`` until it
chooses). 2026-07-28 removed ``logging/setLevel`` (SEP-2577): a client opts in per request with
the ``io.modelcontextprotocol/logLevel`` ``_meta`` key, and the SDK drops what it did not ask for.

Long tools (ingest) send their progress and warnings here, besides progress notifications.
"""

from __future__ import annotations

import logging
import warnings
import weakref
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types import SetLevelRequestParams
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

log = logging.getLogger(__name__)

LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
DEFAULT_LEVEL = "info"

_chosen: "weakref.WeakKeyDictionary[Any, str]" = weakref.WeakKeyDictionary()


def offer_set_level(server: MCPServer) -> None:
    """Serve ``logging/setLevel`` (2025-era sessions): remember the level per connection."""

    async def set_level(ctx, params: SetLevelRequestParams) -> dict:
        _chosen[ctx.session._connection] = params.level
        log.info("client log level set to %s", params.level)
        return {}

    server._lowlevel_server.add_request_handler("logging/setLevel", SetLevelRequestParams, set_level)


def wanted(ctx: Context, level: str) -> bool:
    """Whether a 2025-era session asked for messages at ``level`` (2026: the SDK decides)."""
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return True
    chosen = _chosen.get(ctx.session._connection, DEFAULT_LEVEL)
    return LEVELS.index(level) >= LEVELS.index(chosen)


async def send(ctx: Context | None, level: str, message: str, logger: str = "tutorialbook") -> None:
    """One log message to the calling client, if it wants it; a failure to send is not the caller's."""
    if ctx is None or not wanted(ctx, level):
        return
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await ctx.log(level, message, logger_name=logger)
    except Exception as exc:  # noqa: BLE001 - a closed stream must not fail the tool
        log.debug("could not send a log message: %s", exc)
