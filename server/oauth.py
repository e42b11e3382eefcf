"""Bearer-token auth for the HTTP server that tells the truth about itself.

Two modes:

* **Tokens file** (server/auth.py): the tokens are ours, there is no authorization server, so
  none is advertised (no protected-resource metadata); a request without a valid token gets
  401 with ``WWW-Authenticate: Bearer realm="tutorialbook"`` and a message saying a bearer
  token from the server's administrator is needed.
* **OAuth 2.1 resource server** (``--oauth-issuer``): access tokens are JWTs from a configured
  issuer, checked for signature (the issuer's JWKS), issuer, audience (this server's resource
  URL, ``…/mcp``) and expiry. A claim (``sub`` by default) is the agent id; scopes give the
  rights per book: ``read:BOOK``, ``write:BOOK``, ``admin:BOOK``, ``BOOK`` ``*`` for every book.
  Protected-resource metadata (RFC 9728) names the issuer, and the 401 points at it.
"""

from __future__ import annotations

import json
import logging
import urllib.request
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp.server.auth.provider import AccessToken, TokenVerifier

from tutorialbook.config import Settings
from tutorialbook.errors import TutorialbookError
from tutorialbook.server.auth import RANK, RIGHTS_CLAIM, BookTokenVerifier

log = logging.getLogger(__name__)

ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]
REALM = "tutorialbook"
TOKEN_NEEDED = ("this server needs a bearer token: send 'Authorization: Bearer TOKEN' with a token from "
                "the server's tokens file (ask its administrator); there is no OAuth sign-in here")


@dataclass(frozen=True)
class OAuthSettings:
    """An OAuth 2.1 issuer whose access tokens this server accepts."""

    issuer: str
    jwks_url: str = ""  # default: the issuer's metadata (RFC 8414, then OpenID discovery) jwks_uri
    agent_claim: str = "sub"
    leeway: int = 30  # seconds of clock skew allowed on exp/nbf/iat
    scopes_supported: list[str] = field(default_factory=list)

    @classmethod
    def configured(cls, settings: Settings) -> OAuthSettings | None:
        """The issuer the settings name (--oauth-issuer, else TUTORIALBOOK_OAUTH_ISSUER), or None."""
        issuer = settings.oauth_issuer or ""
        if not issuer:
            return None
        if not issuer.startswith(("https://", "http://")):
            raise TutorialbookError("oauth_issuer", f"{issuer!r} is not an http(s) URL")
        return cls(issuer=issuer.rstrip("/"), jwks_url=settings.oauth_jwks, agent_claim=settings.oauth_agent_claim)


def rights_from_scopes(scopes: list[str]) -> dict[str, str]:
    """``read:baking write:chess admin:*`` -> {"baking": "read", "chess": "write", "*": "admin"};
    the highest right per book wins; other scopes are ignored."""
    rights: dict[str, str] = {}
    for scope in scopes:
        right, sep, book = scope.partition(":")
        if not sep or right not in RANK or not book:
            continue
        if book not in rights or RANK[right] > RANK[rights[book]]:
            rights[book] = right
    return rights


def _scopes(claims: dict) -> list[str]:
    scope = claims.get("scope", claims.get("scp", ""))
    return scope.split() if isinstance(scope, str) else [s for s in scope if isinstance(s, str)]


def _get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310 - the configured issuer
        return json.load(response)


class JWTVerifier(TokenVerifier):
    """Access tokens from one issuer, for one resource (the audience)."""

    def __init__(self, settings: OAuthSettings, resource: str):
        self.settings = settings
        self.resource = resource
        self._jwks = None

    def _jwks_client(self):
        import jwt

        if self._jwks is None:
            url = self.settings.jwks_url or self._discover_jwks()
            self._jwks = jwt.PyJWKClient(url, cache_keys=True, lifespan=300, timeout=10)
        return self._jwks

    def _discover_jwks(self) -> str:
        for suffix in ("/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"):
            try:
                meta = _get_json(self.settings.issuer + suffix)
            except OSError as exc:
                log.info("no issuer metadata at %s%s: %s", self.settings.issuer, suffix, exc)
                continue
            if isinstance(meta, dict) and meta.get("jwks_uri"):
                return meta["jwks_uri"]
        raise TutorialbookError("oauth_issuer", f"{self.settings.issuer} publishes no jwks_uri; "
                                                "give --oauth-jwks URL")

    def check(self, token: str) -> AccessToken | None:
        """The token's AccessToken if it is valid here; None (and why, at INFO) otherwise."""
        import jwt

        try:
            key = self._jwks_client().get_signing_key_from_jwt(token).key
            claims = jwt.decode(token, key, algorithms=ALGORITHMS, audience=self.resource,
                                issuer=self.settings.issuer, leeway=self.settings.leeway,
                                options={"require": ["exp", "iss", "aud"]})
        except (jwt.PyJWTError, TutorialbookError, OSError) as exc:
            log.info("access token refused: %s", exc)
            return None
        agent = claims.get(self.settings.agent_claim)
        if not isinstance(agent, str) or not agent.strip() or len(agent) > 128 or not agent.isprintable():
            log.info("access token refused: claim %r is not an agent id", self.settings.agent_claim)
            return None
        scopes = _scopes(claims)
        return AccessToken(token=f"jwt:{claims.get('jti', '')}", client_id=agent, scopes=scopes,
                           expires_at=int(claims["exp"]), resource=self.resource, subject=claims.get("sub"),
                           claims={RIGHTS_CLAIM: rights_from_scopes(scopes), "iss": claims["iss"]})

    async def verify_token(self, token: str) -> AccessToken | None:
        return await anyio.to_thread.run_sync(self.check, token)


def auth_kwargs(tokens, oauth: OAuthSettings | None, base_url: str) -> dict:
    """MCPServer keyword arguments for the mode in use (none without tokens or an issuer)."""
    from mcp.server.auth.settings import AuthSettings
    from pydantic import AnyHttpUrl

    base = base_url.rstrip("/")
    if oauth is not None:
        resource = base + "/mcp"
        # resource_server_url None: BearerChallenge serves the metadata (the SDK's adds a '/' to the issuer)
        return dict(token_verifier=JWTVerifier(oauth, resource), auth=AuthSettings(
            issuer_url=AnyHttpUrl(oauth.issuer), resource_server_url=None))
    if tokens is not None:  # our own tokens: no authorization server to advertise
        return dict(token_verifier=BookTokenVerifier(tokens), auth=AuthSettings(
            issuer_url=AnyHttpUrl(base), resource_server_url=None))
    return {}


#: where clients look for OAuth when a server gives them no metadata (MCP 2025-03-26 defaults)
NO_OAUTH_PATHS = frozenset({"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration",
                            "/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp",
                            "/register", "/authorize", "/token"})


class BearerChallenge:
    """ASGI wrapper: a 401 from the SDK's auth says what this server needs, in words; in OAuth
    mode it also serves the protected-resource metadata (RFC 9728) naming the issuer exactly."""

    def __init__(self, app, oauth: OAuthSettings | None, metadata_url: str | None):
        self.app = app
        self.oauth = oauth
        self.metadata_url = metadata_url
        self.header, self.body = self._challenge()
        self.metadata = None
        if oauth is not None and metadata_url:
            resource = metadata_url.replace("/.well-known/oauth-protected-resource", "")
            self.metadata = json.dumps({
                "resource": resource, "authorization_servers": [oauth.issuer], "bearer_methods_supported": ["header"],
                "resource_name": "Tutorialbook", "scopes_supported": ["read:*", "write:*", "admin:*"]}).encode()
            self.metadata_paths = {"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"}

    def _challenge(self) -> tuple[bytes, bytes]:
        if self.oauth is None:
            header = f'Bearer realm="{REALM}", error="invalid_token", error_description="{TOKEN_NEEDED}"'
            body = {"error": "invalid_token", "error_description": TOKEN_NEEDED}
        else:
            why = (f"this server needs an OAuth access token from {self.oauth.issuer} for the resource "
                   f"{self.metadata_url and self.metadata_url.replace('/.well-known/oauth-protected-resource', '')}")
            header = (f'Bearer realm="{REALM}", error="invalid_token", error_description="{why}", '
                      f'resource_metadata="{self.metadata_url}"')
            body = {"error": "invalid_token", "error_description": why}
        return header.encode(), json.dumps(body).encode()

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        if self.metadata is not None and scope["path"] in self.metadata_paths and scope["method"] in ("GET", "HEAD"):
            await send({"type": "http.response.start", "status": 200, "headers": [
                (b"content-type", b"application/json"), (b"content-length", str(len(self.metadata)).encode()),
                (b"access-control-allow-origin", b"*")]})
            await send({"type": "http.response.body", "body": self.metadata if scope["method"] == "GET" else b""})
            return
        if self.oauth is None and scope["path"] in NO_OAUTH_PATHS:  # a client trying OAuth: say why it cannot
            await send({"type": "http.response.start", "status": 404, "headers": [
                (b"content-type", b"application/json"), (b"content-length", str(len(self.body)).encode())]})
            await send({"type": "http.response.body", "body": self.body})
            return
        replaced = False

        async def relay(message):
            nonlocal replaced
            if message["type"] == "http.response.start" and message["status"] == 401:
                replaced = True
                await send({"type": "http.response.start", "status": 401, "headers": [
                    (b"content-type", b"application/json"), (b"content-length", str(len(self.body)).encode()),
                    (b"www-authenticate", self.header)]})
                return
            if replaced and message["type"] == "http.response.body":
                if not message.get("more_body"):
                    await send({"type": "http.response.body", "body": self.body})
                return
            await send(message)

        await self.app(scope, receive, relay)

