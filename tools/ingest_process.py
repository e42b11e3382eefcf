"""An ingest off the request path: a child process, at lower CPU priority, on the same store.

A shared HTTP server answers many agents' reads while one of them ingests a long video. In the
server's own process the ingest's Python work would hold the GIL for minutes and take the cores
the readers need; in a child process at ``nice`` +10 the readers keep their latency and the
kernel gives the ingest what is left. The child opens its own Library on the store (writes are
crash-safe across processes, memory/), sends progress back over a pipe, and the parent relays it
as MCP progress notifications. Cancelling the call asks the child to stop between steps (nothing
partial is committed); a child that does not stop within a grace period is killed, and the next
write recovers whatever it left (tutorialbook/ingest.py).
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import time
import traceback
from typing import Any, Callable

from tutorialbook.config import Settings
from tutorialbook.errors import Cancelled, NotFound, TutorialbookError

#: how much lower the child's CPU priority is than the server's (nice increment)
NICENESS = 10
#: seconds a cancelled child gets to stop by itself before it is killed
GRACE_SECONDS = 30.0
_POLL = 0.2  # seconds between checks for cancellation while waiting on the child


def _child(fields: dict, kwargs: dict, conn, stop) -> None:
    """The child's work: ingest, sending ('progress', ...) then one ('done' | 'error' | 'crash', ...)."""
    try:
        os.nice(NICENESS)
    except OSError:
        pass
    try:
        from tutorialbook.library import Library

        if fields.get("allowed_roots") is not None:
            fields["allowed_roots"] = tuple(fields["allowed_roots"])
        library = Library(Settings(**fields))
        try:
            report = library.ingest(progress=lambda d, t, m: conn.send(("progress", d, t, m)),
                                    cancel=stop.is_set, **kwargs)
        finally:
            library.close()
        conn.send(("done", report.model_dump(mode="json")))
    except TutorialbookError as exc:
        conn.send(("error", type(exc).__name__, exc.field, exc.reason))
    except Cancelled as exc:
        conn.send(("cancelled", str(exc)))
    except BaseException as exc:  # noqa: BLE001 - the parent reports it; the child ends anyway
        conn.send(("crash", f"{type(exc).__name__}: {exc}", traceback.format_exc()[-4000:]))
    finally:
        conn.close()


def ingest_in_child(settings: Settings, progress: Callable[[float, float, str], None] | None,
                    cancelled: Callable[[], bool], **kwargs: Any):
    """``Library.ingest(**kwargs)`` in a child process (blocking: call off the event loop).
    Returns its IngestReport; raises what it raised (TutorialbookError, Cancelled)."""
    from tutorialbook.models import IngestReport

    context = multiprocessing.get_context("spawn")  # a fresh interpreter: no threads or locks of the server's
    receive, send = context.Pipe(duplex=False)
    stop = context.Event()
    child = context.Process(target=_child, args=(dataclasses.asdict(settings), kwargs, send, stop),
                            name="tutorialbook-ingest", daemon=True)
    child.start()
    send.close()
    stopping_since: float | None = None
    try:
        while True:
            if receive.poll(_POLL):
                try:
                    message = receive.recv()
                except EOFError:
                    child.join(5)
                    raise RuntimeError(f"the ingest process ended without a report (exit code {child.exitcode})")
                kind = message[0]
                if kind == "progress":
                    if progress:
                        progress(*message[1:])
                    continue
                child.join(30)
                if kind == "done":
                    return IngestReport.model_validate(message[1])
                if kind == "error":
                    error = NotFound if message[1] == "NotFound" else TutorialbookError
                    raise error(message[2], message[3])
                if kind == "cancelled":
                    raise Cancelled(message[1])
                raise RuntimeError(f"the ingest process failed: {message[1]}\n{message[2]}")
            if not child.is_alive() and not receive.poll():
                raise RuntimeError(f"the ingest process ended without a report (exit code {child.exitcode})")
            if cancelled() and stopping_since is None:
                stop.set()
                stopping_since = time.monotonic()
            if stopping_since is not None and time.monotonic() - stopping_since > GRACE_SECONDS:
                raise Cancelled("ingest cancelled; its process did not stop in time and was ended (the next "
                                "write undoes anything it left half-committed)")
    finally:
        receive.close()
        if child.is_alive():
            child.kill()
        child.join(10)

