"""Bearer tokens for the HTTP transport, and what a caller may do with each book.

The tokens file (``--tokens FILE`` or ``TUTORIALBOOK_TOKENS``) maps a token to an agent
and its rights per book::

    {"TOKEN": {"agent": "alice", "rights": {"chess": "write", "*": "read"}},
     "sha256:9f86d08...": {"agent": "bob", "rights": {"baking": "admin"}}}

A key is the token itself or ``sha256:<hex digest of the token>``, so the file need not
hold the secret. Rights are ``read`` < ``write`` < ``admin``; ``*`` covers every book not
named. A book the token holds no right on is invisible to it. Tokens are compared as
SHA-256 digests with :func:`hmac.compare_digest`, against every entry, so the time a check
takes does not depend on which (or whether any) token matched. The file is re-read when it
changes, so revoking a token needs no restart.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from mcp.server.auth.provider import AccessToken, TokenVerifier

from tutorialbook.common import BOOK_NAME
from tutorialbook.errors import TutorialbookError
# the policy a token's grant becomes (re-exported: server code and tests name them here)
from tutorialbook.tools.access import (  # noqa: F401
    EVERYTHING, RANK, RIGHTS, RIGHTS_CLAIM, Access, access_from_token,
)

log = logging.getLogger(__name__)

_HEX = re.compile(r"^[0-9a-f]{64}$")
_AGENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@:-]{0,63}$")


def digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


@dataclass(frozen=True)
class Grant:
    agent: str
    rights: Mapping[str, str] = field(default_factory=dict)

    def access(self) -> Access:
        return Access(agent=self.agent, rights=self.rights)


class TokenTable:
    """Token digests and their grants."""

    def __init__(self, grants: list[tuple[bytes, Grant]]):
        self._grants = grants

    def __len__(self) -> int:
        return len(self._grants)

    @classmethod
    def parse(cls, data: Any, where: str = "tokens", allow_empty: bool = False) -> "TokenTable":
        if allow_empty and data == {}:
            return cls([])
        if not isinstance(data, dict) or not data:
            raise TutorialbookError("tokens", f"{where}: expected a JSON object of TOKEN -> {{agent, rights}}")
        grants: list[tuple[bytes, Grant]] = []
        seen: set[bytes] = set()
        for n, (key, entry) in enumerate(data.items(), 1):
            label = f"{where}: entry {n}"  # never echo a token
            if not isinstance(key, str) or not key:
                raise TutorialbookError("tokens", f"{label}: the token is empty")
            if key.startswith("sha256:"):
                hexpart = key[7:].lower()
                if not _HEX.match(hexpart):
                    raise TutorialbookError("tokens", f"{label}: 'sha256:' must be followed by 64 hex digits")
                key_digest = bytes.fromhex(hexpart)
            else:
                if len(key) < 16:
                    raise TutorialbookError("tokens", f"{label}: a token must be at least 16 characters")
                key_digest = digest(key)
            if key_digest in seen:
                raise TutorialbookError("tokens", f"{label}: the same token appears twice")
            seen.add(key_digest)
            if not isinstance(entry, dict):
                raise TutorialbookError("tokens", f"{label}: expected {{\"agent\": ..., \"rights\": {{...}}}}")
            agent = entry.get("agent")
            if not isinstance(agent, str) or not _AGENT.match(agent):
                raise TutorialbookError("tokens", f"{label}: 'agent' must be a name of letters, digits, '._@:-' (up to 64)")
            rights = entry.get("rights", {})
            if not isinstance(rights, dict):
                raise TutorialbookError("tokens", f"{label} ({agent}): 'rights' must map book names (or '*') to a right")
            for book, right in rights.items():
                if book != "*" and not (isinstance(book, str) and BOOK_NAME.match(book)):
                    raise TutorialbookError("tokens", f"{label} ({agent}): {book!r} can never be a book (lowercase "
                                                      "letters, digits, '.', '_', '-'; up to 64) or '*'")
                if right not in RANK:
                    raise TutorialbookError(
                        "tokens", f"{label} ({agent}): right {right!r} for {book!r} is not one of {', '.join(RIGHTS)}")
            unknown = set(entry) - {"agent", "rights"}
            if unknown:
                raise TutorialbookError("tokens", f"{label} ({agent}): unknown key(s) {', '.join(sorted(unknown))}")
            grants.append((key_digest, Grant(agent, MappingProxyType(dict(rights)))))
        return cls(grants)

    @classmethod
    def load(cls, path: str | os.PathLike, allow_empty: bool = False) -> "TokenTable":
        """The file's tokens. ``allow_empty``: an empty file or ``{}`` is a table of no tokens."""
        path = Path(path).expanduser()
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise TutorialbookError("tokens", f"cannot read {path} ({exc.strerror})") from exc
        if allow_empty and not text.strip():
            return cls([])
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise TutorialbookError("tokens", f"{path} is not JSON ({exc.msg}, line {exc.lineno})") from exc
        return cls.parse(data, str(path), allow_empty)

    def verify(self, token: str) -> Grant | None:
        """The grant of ``token``, or None. Constant time over the table."""
        presented = digest(token)
        found = None
        for key_digest, grant in self._grants:
            if hmac.compare_digest(key_digest, presented):
                found = grant
        return found


class TokenFile:
    """A tokens file, re-read when it changes. Emptying or deleting it revokes every token;
    an edit that does not parse keeps the last good table (and logs why)."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path).expanduser()
        self._lock = threading.Lock()
        self._stamp = self._stat()
        self._table = TokenTable.load(self.path)

    def _stat(self) -> tuple[int, int] | None:
        try:
            st = self.path.stat()
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size)

    @property
    def table(self) -> TokenTable:
        stamp = self._stat()
        if stamp != self._stamp:
            with self._lock:
                if stamp != self._stamp:
                    self._stamp = stamp
                    if stamp is None:
                        self._table = TokenTable([])
                        log.warning("%s is gone: every token is revoked", self.path)
                        return self._table
                    try:
                        self._table = TokenTable.load(self.path, allow_empty=True)
                        log.warning("reloaded %d token(s) from %s", len(self._table), self.path)
                    except TutorialbookError as exc:
                        log.error("kept the previous tokens: %s", exc)
        return self._table

    def verify(self, token: str) -> Grant | None:
        return self.table.verify(token)


def tokens_path(explicit: str | None) -> str | None:
    """--tokens wins, then TUTORIALBOOK_TOKENS."""
    return explicit or os.environ.get("TUTORIALBOOK_TOKENS") or None


class BookTokenVerifier(TokenVerifier):
    """The SDK's bearer-token hook: a known token becomes an AccessToken whose client_id
    is the agent and whose claims carry the rights."""

    def __init__(self, tokens: TokenFile | TokenTable):
        self.tokens = tokens

    async def verify_token(self, token: str) -> AccessToken | None:
        grant = self.tokens.verify(token)
        if grant is None:
            return None
        return AccessToken(
            token="sha256:" + digest(token).hex(), client_id=grant.agent, scopes=[],
            claims={RIGHTS_CLAIM: dict(grant.rights)},
        )
