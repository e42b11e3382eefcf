"""Log messages from a tool to its MCP client (``notifications/message``), per protocol era.

2025-era sessions choose a level with ``logging/setLevel`` (served by server/client_log.py,
remembered here per connection; ``info`` until they choose). On 2026-07-28 a client opts in per
request with the ``io.modelcontextprotocol/logLevel`` ``_meta`` key and the SDK drops the rest.
"""

from __future__ import annotations

import logging
import warnings
import weakref
from typing import Any

from mcp.server.mcpserver import Context
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types import LoggingLevel
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

log = logging.getLogger(__name__)

LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
DEFAULT_LEVEL = "info"

_chosen: "weakref.WeakKeyDictionary[Any, str]" = weakref.WeakKeyDictionary()


def connection_of(session: Any) -> Any:
    """The connection behind a per-request ServerSession (one per client connection)."""
    return getattr(session, "_connection", session)


def choose(session: Any, level: str) -> None:
    _chosen[connection_of(session)] = level


def wanted(ctx: Context, level: str) -> bool:
    """Whether a 2025-era session asked for messages at ``level`` (2026: the SDK decides)."""
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return True
    chosen = _chosen.get(connection_of(ctx.session), DEFAULT_LEVEL)
    return LEVELS.index(level) >= LEVELS.index(chosen)


async def send(ctx: Context | None, level: LoggingLevel, message: str, logger: str = "tutorialbook") -> None:
    """One log message to the calling client, if it wants it; a failure to send is not the caller's."""
    if ctx is None or not wanted(ctx, level):
        return
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await ctx.log(level, message, logger_name=logger)
    except Exception as exc:  # noqa: BLE001 - a closed stream must not fail the tool
        log.debug("could not send a log message: %s", exc)
