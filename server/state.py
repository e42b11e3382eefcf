"""What the server's lifespan holds: the Library, opened on first use rather than at start.

Opening the Library imports LanceDB (seconds) and the embedder; a stdio server is spawned by
every client session, and some clients give up on a server that does not answer ``initialize``
quickly. So the handshake and ``tools/list`` never touch it: it opens in a background thread as
soon as the client sends its first request after the handshake, or when a request needs it.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

from tutorialbook.config import Settings

if TYPE_CHECKING:
    from tutorialbook.library import Library

log = logging.getLogger(__name__)

#: requests that never need the Library (the handshake, discovery, listings, pings)
HANDSHAKE = frozenset({"initialize", "server/discover", "notifications/initialized", "ping"})


class AppState:
    def __init__(self, settings: Settings, auth_required: bool = False, ingest_process: bool = False):
        self.settings = settings
        self.auth_required = auth_required  # HTTP with tokens: every call must carry one (tools/access.py)
        self.ingest_process = ingest_process  # a shared server ingests in a child process (tools/ingest_process.py)
        self._library: Library | None = None
        self._lock = threading.Lock()
        self._warming = False

    @property
    def library(self) -> Library:
        """The Library, opened now if nobody opened it yet (blocking: call off the event loop)."""
        if self._library is None:
            with self._lock:
                if self._library is None:
                    from tutorialbook.library import Library

                    self._library = Library(self.settings)
        return self._library

    @property
    def opened(self) -> bool:
        return self._library is not None

    def warm_in_background(self) -> None:
        """Open the Library in a daemon thread (once); a failure shows again on first real use."""
        if self._warming or self._library is not None:
            return
        self._warming = True

        def open_it() -> None:
            try:
                self.library
            except Exception as exc:  # noqa: BLE001 - the request that needs it reports it
                log.warning("opening the store in the background failed: %s", exc)

        threading.Thread(target=open_it, name="tutorialbook-open", daemon=True).start()

    def close(self) -> None:
        if self._library is not None:
            self._library.close()  # the chess engine process, if one was started


def warm_after_handshake(state: list[AppState]):
    """Server middleware: once the client sends anything past the handshake, open the store."""

    async def middleware(ctx, call_next):
        result = await call_next(ctx)
        if state and ctx.method not in HANDSHAKE:
            state[0].warm_in_background()
        return result

    return middleware
