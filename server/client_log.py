"""``logging/setLevel`` for 2025-era sessions (2026-07-28 removed it, SEP-2577): serving it
declares the ``logging`` capability; the level chosen filters what tools send (tools/_log.py)."""

from __future__ import annotations

import logging

from mcp.server.mcpserver import MCPServer
from mcp_types import SetLevelRequestParams

from tutorialbook.tools import _log

log = logging.getLogger(__name__)


def offer_set_level(server: MCPServer) -> None:
    async def set_level(ctx, params: SetLevelRequestParams) -> dict:
        _log.choose(ctx.session, params.level)
        log.info("client log level set to %s", params.level)
        return {}

    server._lowlevel_server.add_request_handler("logging/setLevel", SetLevelRequestParams, set_level)
