"""MCP client helpers: the stdio server's parameters, and the Skills over MCP requests (SEP-2640)
the SDK has no types for."""

from __future__ import annotations

import os
import sys
from typing import Any, Literal

from mcp import StdioServerParameters, types
from pydantic import TypeAdapter


def server_params(store) -> StdioServerParameters:
    env = dict(os.environ, TUTORIALBOOK_STORE=str(store))
    return StdioServerParameters(command=sys.executable, args=["-m", "tutorialbook.server", "serve"], env=env)


class ListSkills(types.Request[dict[str, Any] | None, Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"
    params: dict[str, Any] | None = None


class GetSkill(types.Request[dict[str, Any], Literal["skills/get"]]):
    method: Literal["skills/get"] = "skills/get"
    params: dict[str, Any]


async def request(client, message) -> dict:
    return await client.session.send_request(message, TypeAdapter(dict))
