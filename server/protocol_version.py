"""A clear answer to an ``MCP-Protocol-Version`` header this server does not speak.

The SDK rejects such a request inside a session with a message about ``params._meta`` envelope
keys, which misleads a client that only sent a version we lack. This ASGI guard answers first:
HTTP 400 with JSON-RPC error ``-32022`` (unsupported protocol version), the version asked for
and the ones served, as the 2025-11-25 transport ("MUST respond with 400 Bad Request") and the
2026-07-28 error code both ask. ``initialize`` carries no header and negotiates as before.
"""

from __future__ import annotations

import json

from mcp_types.jsonrpc import UNSUPPORTED_PROTOCOL_VERSION
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

SERVED = (*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS)
HEADER = b"mcp-protocol-version"


def rejection(requested: str, request_id=None) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "error": {
        "code": UNSUPPORTED_PROTOCOL_VERSION,
        "message": f"Unsupported protocol version {requested!r}: this server speaks "
                   f"{', '.join(SERVED)} (send one of them in MCP-Protocol-Version, or initialize again)",
        "data": {"requested": requested, "supported": list(SERVED)}}}


class ProtocolVersionGuard:
    """Wraps the streamable-HTTP app; everything with a served (or no) version passes through."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        requested = next((v.decode("latin-1") for k, v in scope.get("headers", []) if k.lower() == HEADER), None)
        if requested is None or requested.strip() in SERVED:
            return await self.app(scope, receive, send)
        request_id = None
        if scope.get("method") == "POST":  # answer with the request's id when the body is one request
            body, more = b"", True
            while more:
                message = await receive()
                body += message.get("body", b"")
                more = message.get("more_body", False)
            try:
                parsed = json.loads(body or b"null")
                request_id = parsed.get("id") if isinstance(parsed, dict) else None
            except ValueError:
                pass
        payload = json.dumps(rejection(requested, request_id)).encode()
        await send({"type": "http.response.start", "status": 400,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(payload)).encode())]})
        await send({"type": "http.response.body", "body": payload})
