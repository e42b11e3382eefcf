"""Serving over streamable HTTP: one server process, many agents, one knowledge base.

``tutorialbook serve --http [--host 127.0.0.1] [--port 8765] [--tokens FILE]``

* Loopback by default. The SDK's DNS-rebinding protection (Host and Origin checks) is on for a
  loopback host; for another interface name the Host values to accept with ``--allowed-host``.
* With tokens (``--tokens FILE`` or ``TUTORIALBOOK_TOKENS``) every request needs
  ``Authorization: Bearer TOKEN``; a missing or unknown token gets HTTP 401. The agent id and
  the per-book rights come from the token (server/auth.py; what they allow: tools/access.py).
* With ``--oauth-issuer URL`` it is an OAuth 2.1 resource server instead: access tokens are
  JWTs of that issuer for this server's URL, scopes give the rights (server/oauth.py).
* Without tokens the server only listens on loopback, and every caller may do everything
  as TUTORIALBOOK_AGENT (like stdio).
* ``--stateless``: no session lives in the process (for several servers behind a load balancer);
  ``--workers N`` (N > 1, stateless too) runs N server processes on one listening socket (uvicorn's
  supervisor), each with its own Library on the same store. They serve stateless streamable
  HTTP: no session lives in a process, every request carries its token and stands alone, so
  a client's calls may land on any worker — or on any server behind a load balancer.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import json
import logging
import os
import re
import sys
from dataclasses import replace
from typing import Any

from tutorialbook.config import Settings
from tutorialbook.errors import TutorialbookError
from tutorialbook.server.auth import TokenFile, tokens_path
from tutorialbook.server.oauth import BearerChallenge, OAuthSettings
from tutorialbook.server.protocol_version import ProtocolVersionGuard

log = logging.getLogger(__name__)

LOOPBACK_NAMES = ("localhost",)


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def shared_settings(settings: Settings, tokens_file: str | None) -> Settings:
    """What a shared server runs with: no files readable unless the operator says where, and
    the tokens file (never readable as a source) known to the source policy."""
    roots = () if settings.allowed_roots is None else settings.allowed_roots
    return replace(settings, allowed_roots=roots, tokens_file=tokens_file)


def build_app(settings: Settings, host: str = "127.0.0.1", port: int = 8765, tokens: str | None = None,
              allowed_hosts: list[str] | None = None, oauth: OAuthSettings | None = None, stateless: bool = False):
    """The Starlette app (and the MCP server) for ``host:port``; raises TutorialbookError for a
    setup that would be unsafe or cannot work. ``stateless``: no sessions (several workers)."""
    if oauth is not None and tokens_path(tokens, settings):
        raise TutorialbookError("oauth_issuer", "give either a tokens file or an OAuth issuer, not both "
                                                "(TUTORIALBOOK_TOKENS counts as a tokens file)")
    path = None if oauth is not None else tokens_path(tokens, settings)
    if path is None and oauth is None and not is_loopback(host):
        raise TutorialbookError("host", f"{host} is not a loopback address: serving beyond this machine needs "
                                        "--tokens FILE (or TUTORIALBOOK_TOKENS)")
    token_file = TokenFile(path) if path else None
    settings = shared_settings(settings, path)

    from mcp.server.transport_security import TransportSecuritySettings

    from tutorialbook.server.app import create_server

    if token_file is None and oauth is None:
        print(f"tutorialbook: no tokens; every caller on this machine may read and write every book as "
              f"agent {settings.agent!r}", file=sys.stderr)
    url_host = f"[{host}]" if ":" in host else host
    server = create_server(settings, tokens=token_file, url=f"http://{url_host}:{port}", warm=True, oauth=oauth,
                           ingest_process=True)
    security = None  # the SDK turns DNS-rebinding protection on for a loopback host
    if allowed_hosts:
        names = list(allowed_hosts) + (["127.0.0.1:*", "localhost:*", "[::1]:*"] if is_loopback(host) else [])
        patterns = [h if re.search(r":(\d+|\*)$", h) else f"{h}:*" for h in names]  # IPv6 in [brackets]
        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True, allowed_hosts=patterns,
            allowed_origins=[f"{scheme}://{h}" for h in patterns for scheme in ("http", "https")],
        )
    app = server.streamable_http_app(host=host, transport_security=security, stateless_http=stateless)
    app.add_middleware(ProtocolVersionGuard)  # a clear 400 for an MCP-Protocol-Version we do not speak
    if token_file is not None or oauth is not None:  # a 401 that says what is needed (server/oauth.py)
        metadata = f"http://{url_host}:{port}/.well-known/oauth-protected-resource/mcp" if oauth else None
        app.add_middleware(BearerChallenge, oauth=oauth, metadata_url=metadata)
    return app, server, token_file


#: how ``serve --workers N`` hands its setup to the worker processes (JSON; internal)
WORKER_SETUP = "TUTORIALBOOK_HTTP_WORKER_SETUP"


def serve(settings: Settings, host: str = "127.0.0.1", port: int = 8765, tokens: str | None = None,
          allowed_hosts: list[str] | None = None, access_log: bool = False, oauth: OAuthSettings | None = None,
          workers: int = 1, stateless: bool = False) -> None:
    import uvicorn

    if workers < 1:
        raise TutorialbookError("workers", f"needs at least 1 worker process, not {workers}")
    stateless = stateless or workers > 1
    app, _, token_file = build_app(settings, host, port, tokens, allowed_hosts, oauth, stateless=stateless)
    who = (f"OAuth access tokens from {oauth.issuer}" if oauth else
           f"{len(token_file.table)} token(s) from {token_file.path}" if token_file else "no tokens")
    how = (f"{workers} stateless worker processes" if workers > 1
           else "one stateless process" if stateless else "one process")
    print(f"tutorialbook: serving MCP on http://{host}:{port}/mcp ({who}; {how}; store {settings.store})",
          file=sys.stderr)
    options: dict[str, Any] = dict(host=host, port=port, log_level="warning", access_log=access_log,
                                   timeout_graceful_shutdown=5)
    if workers == 1:
        uvicorn.run(app, **options)
        return
    # the setup was checked above; each worker process builds the same app from it
    os.environ[WORKER_SETUP] = json.dumps({
        "settings": dataclasses.asdict(settings), "host": host, "port": port,
        "tokens": str(token_file.path) if token_file else None,  # --tokens or TUTORIALBOOK_TOKENS, as checked
        "allowed_hosts": allowed_hosts, "oauth": dataclasses.asdict(oauth) if oauth else None})
    # a worker loading LanceDB and the embedder holds the GIL for seconds (more on a busy machine):
    # the supervisor's health check must not take that for a hang and restart it (default 5 s)
    uvicorn.run(f"{__name__}:worker_app", factory=True, workers=workers, timeout_worker_healthcheck=120, **options)


def worker_app():
    """The app of one ``--workers`` process (uvicorn calls it in each): the parent's setup, stateless."""
    setup = json.loads(os.environ[WORKER_SETUP])
    fields = setup["settings"]
    if fields.get("allowed_roots") is not None:
        fields["allowed_roots"] = tuple(fields["allowed_roots"])
    oauth = OAuthSettings(**setup["oauth"]) if setup["oauth"] else None
    app, _, _ = build_app(Settings(**fields), setup["host"], setup["port"], setup["tokens"], setup["allowed_hosts"],
                          oauth, stateless=True)
    return app
