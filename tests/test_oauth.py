"""Auth metadata that tells the truth, and the OAuth 2.1 resource-server mode, against real
processes on 127.0.0.1: an issuer made here (RSA keys generated in the test, its metadata and
JWKS served on loopback) and `tutorialbook serve --http --oauth-issuer`."""

import asyncio
import http.server
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx2
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from tests.support.examples import EXAMPLES
from tests.support.mcp import ListSkills, request
from tutorialbook.library import Library
from tutorialbook.server.oauth import TOKEN_NEEDED, rights_from_scopes

from tests.support import http_server

ROOT = Path(__file__).resolve().parent.parent


class Issuer:
    """An OAuth issuer on loopback: RFC 8414 metadata and a JWKS of one RSA key."""

    def __init__(self):
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.port = http_server.free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        public = json.loads(RSAAlgorithm.to_jwk(self.key.public_key()))
        documents = {
            "/.well-known/oauth-authorization-server": {"issuer": self.url, "jwks_uri": self.url + "/jwks",
                                                        "token_endpoint": self.url + "/token"},
            "/jwks": {"keys": [dict(public, kid="k1", use="sig", alg="RS256")]},
        }

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server's name
                body = json.dumps(documents.get(self.path)).encode()
                self.send_response(200 if self.path in documents else 404)
                self.send_header("content-type", "application/json")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def token(self, audience, scope="read:baking", sub="alice", issuer=None, lifetime=300, key=None, **claims):
        now = int(time.time())
        payload = dict({"iss": issuer or self.url, "aud": audience, "sub": sub, "scope": scope,
                        "iat": now, "exp": now + lifetime}, **claims)
        return jwt.encode(payload, key or self.key, algorithm="RS256", headers={"kid": "k1"})


@pytest.fixture(scope="module")
def oauth_server(tmp_path_factory):
    work = tmp_path_factory.mktemp("oauth")
    store = work / "store"
    library = Library(store=str(store))
    library.ingest(str(EXAMPLES / "sourdough-basics.md"), book="baking", refine_rounds=0)
    library.ingest(str(EXAMPLES / "sourdough-basics.md"), book="secret", refine_rounds=0)
    library.close()
    issuer = Issuer()
    port = http_server.free_port()
    env = dict(os.environ)
    env.pop("TUTORIALBOOK_TOKENS", None)
    log = work / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "tutorialbook.server", "--store", str(store), "serve", "--http", "--host",
             "127.0.0.1", "--port", str(port), "--oauth-issuer", issuer.url],
            stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        http_server.wait_ready(url, proc, log)
        yield {"url": url, "issuer": issuer, "base": f"http://127.0.0.1:{port}", "log": log}
    finally:
        http_server.stop_server(proc)
        issuer.httpd.shutdown()


async def _session(url, token, steps):
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            return [await step(client) for step in steps]


def session(url, token, *steps):
    return asyncio.run(_session(url, token, steps))


def test_scopes_give_rights_per_book():
    assert rights_from_scopes(["read:baking", "write:baking", "admin:*", "openid", "read:", "fly:x"]) == {
        "baking": "write", "*": "admin"}


def test_protected_resource_metadata_names_the_real_issuer(oauth_server):
    base, issuer = oauth_server["base"], oauth_server["issuer"]
    refused = httpx2.post(oauth_server["url"], json={})
    assert refused.status_code == 401
    challenge = refused.headers["www-authenticate"]
    metadata_url = f"{base}/.well-known/oauth-protected-resource/mcp"
    assert challenge.startswith('Bearer realm="tutorialbook"') and f'resource_metadata="{metadata_url}"' in challenge
    assert issuer.url in refused.json()["error_description"]
    metadata = httpx2.get(metadata_url).json()
    assert metadata["resource"] == oauth_server["url"]
    assert metadata["authorization_servers"] == [issuer.url]


def test_a_valid_access_token_maps_claim_and_scopes(oauth_server):
    url, issuer = oauth_server["url"], oauth_server["issuer"]
    token = issuer.token(url, scope="read:baking", sub="alice@example.org")
    browse, write, hidden = session(
        url, token,
        lambda c: c.call_tool("browse_toc", {"book": "baking"}),
        lambda c: c.call_tool("record_lesson", {"lesson": "x", "book": "baking"}),
        lambda c: c.call_tool("browse_toc", {"book": "secret"}),
    )
    assert not browse.is_error and browse.structured_content["node"]["title"] == "baking"
    assert write.is_error and "agent 'alice@example.org' holds only the 'read' right" in write.content[0].text
    assert hidden.is_error and "no book named 'secret' (known books: baking)" in hidden.content[0].text
    (listed,) = session(url, token, lambda c: request(c, ListSkills(params={})))
    assert listed["skills"] and {e["uri"].split("/")[2] for e in listed["skills"]} == {"baking"}
    assert listed["cacheScope"] == "private"  # what a token sees is its own
    writer = issuer.token(url, scope="write:*", sub="bob")
    (lesson,) = session(url, writer, lambda c: c.call_tool(
        "record_lesson", {"lesson": "Bob's lesson from an OAuth token.", "book": "secret"}))
    assert not lesson.is_error, lesson.content
    events = Library(store=str(Path(oauth_server["log"]).parent / "store")).history("secret", action="lesson")
    assert events[0].agent == "bob"


@pytest.mark.parametrize("why", ["audience", "issuer", "expired", "signature", "no-agent"])
def test_tokens_that_are_not_for_this_server_get_401(oauth_server, why):
    url, issuer = oauth_server["url"], oauth_server["issuer"]
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    token = {
        "audience": lambda: issuer.token("http://127.0.0.1:1/mcp"),
        "issuer": lambda: issuer.token(url, issuer="http://127.0.0.1:2"),
        "expired": lambda: issuer.token(url, lifetime=-3600),
        "signature": lambda: issuer.token(url, key=stranger),
        "no-agent": lambda: issuer.token(url, sub=""),
    }[why]()
    refused = httpx2.post(url, json={}, headers={"Authorization": f"Bearer {token}"})
    assert refused.status_code == 401, why


def test_with_a_tokens_file_no_authorization_server_is_advertised(tmp_path):
    store = tmp_path / "store"
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps({"a-long-random-token-for-alice": {"agent": "alice", "rights": {"*": "read"}}}))
    port = http_server.free_port()
    log = tmp_path / "server.log"
    proc = http_server.start_server(store, tokens, port, log)
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        http_server.wait_ready(url, proc, log)
        refused = httpx2.post(url, json={})
        assert refused.status_code == 401
        challenge = refused.headers["www-authenticate"]
        assert challenge.startswith('Bearer realm="tutorialbook"') and "resource_metadata" not in challenge
        assert refused.json()["error_description"] == TOKEN_NEEDED
        assert httpx2.get(f"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp").status_code == 404
        assert httpx2.get(f"http://127.0.0.1:{port}/.well-known/oauth-authorization-server").status_code == 404
    finally:
        http_server.stop_server(proc)
