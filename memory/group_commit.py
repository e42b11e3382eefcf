"""Group commit: writes that arrive together become one commit.

Every commit to a LanceDB table costs the same few milliseconds of CPU whatever it holds (a
manifest, an undo row, a look at the indexes, the next reader's catch-up), and writes that must
not duplicate an id take turns under the store's lock. Sixteen agents writing lessons at once
therefore queued for seconds behind each other's one-row commits. Here the first writer to arrive
leads: it commits its own item with every item queued by then; writers arriving meanwhile wait,
and when the commit is done the first of them leads the next batch. One writer alone commits
at once, as before; no thread commits more than the batch it is in.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")


@dataclass(eq=False)
class _Ticket(Generic[T, R]):
    item: T
    ready: threading.Event = field(default_factory=threading.Event)
    lead: bool = False
    result: R | None = None
    error: BaseException | None = None


class GroupCommit(Generic[T, R]):
    """``submit(item)`` returns ``commit(batch)``'s result for the item, where ``batch`` holds
    it and the items other threads submitted while an earlier batch was being committed.
    ``commit`` returns one result per item, in order; if it raises, every item of the batch
    gets the exception. A thread must not submit while it holds a lock ``commit`` takes: it would
    wait for a leader that waits for it."""

    def __init__(self, commit: Callable[[list[T]], list[R]]):
        self._commit = commit
        self._guard = threading.Lock()
        self._queue: list[_Ticket[T, R]] = []
        self._leading = False

    @property
    def queued(self) -> int:
        """Items waiting for a commit to begin (those of the commit under way not counted)."""
        with self._guard:
            return len(self._queue)

    def submit(self, item: T) -> R:
        ticket: _Ticket[T, R] = _Ticket(item)
        with self._guard:
            self._queue.append(ticket)
            if not self._leading:
                self._leading = ticket.lead = True
        if not ticket.lead:
            ticket.ready.wait()  # committed by a leader, or made the next leader
        if ticket.lead:
            self._lead()
        if ticket.error is not None:
            raise ticket.error
        return ticket.result  # type: ignore[return-value]  # set by the batch's commit

    def _lead(self) -> None:
        with self._guard:
            batch, self._queue = self._queue, []
        try:
            results = self._commit([t.item for t in batch])
            if len(results) != len(batch):
                raise RuntimeError(f"a group commit returned {len(results)} results for {len(batch)} items")
            for ticket, result in zip(batch, results):
                ticket.result = result
        except BaseException as exc:  # noqa: BLE001 - every waiter must hear of it
            for ticket in batch:
                ticket.error = exc
        finally:
            with self._guard:
                following = self._queue[0] if self._queue else None
                if following is not None:
                    following.lead = True
                else:
                    self._leading = False
            for ticket in batch:
                ticket.lead = False
                ticket.ready.set()
            if following is not None:
                following.ready.set()
