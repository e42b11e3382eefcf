"""What the Library's parts share: the progress callback type and the checks every surface's
input goes through."""

from __future__ import annotations

import re
from typing import Callable, Iterable

from tutorialbook.errors import NotFound, TutorialbookError
from tutorialbook.models import LessonView

Progress = Callable[[float, float, str], None]
BOOK_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")


def check_rounds(rounds, field: str, minimum: int) -> None:
    from tutorialbook.skills.refine import MAX_ROUNDS

    if isinstance(rounds, bool) or not isinstance(rounds, int) or not minimum <= rounds <= MAX_ROUNDS:
        raise TutorialbookError(field, f"must be a whole number from {minimum} to {MAX_ROUNDS}, got {rounds!r}")


def pack_of(tutorial: dict):
    """The domain pack a stored tutorial was ingested with (the general pack if unknown)."""
    from tutorialbook.skills.domains import DomainPack, get_pack  # lazy: the builder loads LanceDB

    try:
        return get_pack(tutorial["domain"])
    except Exception:  # a pack that is gone or fails to load: general questions still apply
        return DomainPack()


def check_book_name(book: str) -> None:
    if not isinstance(book, str) or not BOOK_NAME.match(book):
        raise TutorialbookError("book", f"{book!r} is not a valid book name (lowercase letters, digits, '.', '_', '-'; up to 64)")


def no_book(book: str, known: Iterable[str]) -> NotFound:
    """The error for a missing book; ``known`` are the books the caller may be told of."""
    names = ", ".join(sorted(known)) or "none yet"
    return NotFound("book", f"no book named {book!r} (known books: {names})")


def lesson_view(row: dict, score: float | None = None) -> LessonView:
    return LessonView(id=row["id"], text=row["text"], outcome=row["outcome"], context=row["context"],
                      skill_id=row["skill_id"], node_id=row["node_id"], agent=row["agent"],
                      merged_count=row["merged_count"], score=None if score is None else round(float(score), 6))
