"""What placing one lesson remembers while it lasts.

`track_lines` places a lesson's sentences again and again: once, then for each rehearing and bridge
it tries, from a checkpoint on. Each placing weighs the same mentions on the same positions and
rebuilds the same boards; what they come to is remembered here, for that one lesson (`lesson`), and
forgotten with it: nothing grows over a server's life, and no lesson reads another's. A memo's key
holds all an answer depends on that may change while the lesson is placed (mentions by id, a
position with what of its move stack is read); the rest (the opening the lesson is titled after,
the book) stays as it is until the lesson is placed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

__all__ = ["kept", "lesson", "recall"]

T = TypeVar("T")

_KEPT: ContextVar[dict[str, dict] | None] = ContextVar("kept", default=None)


@contextmanager
def lesson() -> Iterator[None]:
    """Remember for the block (one lesson's placing): `kept` gives its memos."""
    token = _KEPT.set({})
    try:
        yield
    finally:
        _KEPT.reset(token)


def kept(name: str) -> dict | None:
    """The memo ``name`` of the lesson being placed; None outside `lesson` (nothing is remembered)."""
    memos = _KEPT.get()
    return None if memos is None else memos.setdefault(name, {})


def recall(name: str, key: tuple, keep: object, work: Callable[[], T]) -> T:
    """What ``work()`` came to for ``key`` in memo ``name`` while a lesson is placed (worked out each
    time outside one). ``keep``: the objects whose ids ``key`` holds, kept with the answer, so that
    no other object takes one of their ids while it is remembered."""
    memo = kept(name)
    if memo is None:
        return work()
    found = memo.get(key)
    if found is None:
        found = memo[key] = (keep, work())
    return found[1]
