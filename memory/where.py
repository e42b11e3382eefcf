"""The filter strings of LanceDB queries, written in one place.

Filters are SQL; a value spliced into one must be quoted, and a forgotten quote is an injection
(a book named ``x' OR 'a'='a``). So no module above ``memory/`` builds a filter: they ask for
one by what it means (``of_book``, ``ready_tutorials``...)."""

from __future__ import annotations

import re
from typing import Iterable


def quote(value: str) -> str:
    """A SQL string literal for a LanceDB filter."""
    return "'" + str(value).replace("'", "''") + "'"


def in_list(column: str, values: Iterable[str]) -> str:
    """``column IN (...)``; ``false`` for no values (LanceDB rejects an empty list)."""
    values = list(values)
    if not values:
        return "false"
    return f"{column} IN ({', '.join(quote(v) for v in values)})"


_LITERAL = r"'(?:[^']|'')*'"
_ID_FILTER = re.compile(rf"id = ({_LITERAL})|id IN \(({_LITERAL}(?:, {_LITERAL})*)\)")


def named_ids(clause: str | None) -> list[str] | None:
    """The ids a filter written by :func:`by_id` or ``in_list("id", ...)`` names, or None for any
    other filter: a write by such a filter changed only rows of those ids."""
    found = _ID_FILTER.fullmatch(clause or "")
    if found is None:
        return None
    literals = re.findall(_LITERAL, found.group(1) or found.group(2))
    return [v[1:-1].replace("''", "'") for v in literals]


def eq(column: str, value: str) -> str:
    return f"{column} = {quote(value)}"


def both(*clauses: str | None) -> str | None:
    """The clauses joined with AND (the empty ones left out); None when none is left."""
    kept = [c for c in clauses if c]
    if not kept:
        return None
    return " AND ".join(kept if len(kept) == 1 else [f"({c})" if " OR " in c else c for c in kept])


def of_book(book: str) -> str:
    return eq("book", book)


def by_id(row_id: str) -> str:
    return eq("id", row_id)


def of_tutorial(tutorial_id: str) -> str:
    return eq("tutorial_id", tutorial_id)


def ready_tutorials(book: str) -> str:
    """A book's tutorials whose commit finished."""
    return f"{of_book(book)} AND status = 'ready'"


def cites_tutorial(tutorial_id: str) -> str:
    """Skills or nodes whose evidence names the tutorial (a JSON column, matched as text)."""
    return f"evidence LIKE {quote('%' + tutorial_id + '%')}"


def touched_by(tutorial_id: str) -> str:
    """Skills or nodes a tutorial made or gave evidence to (what undoing it must revisit)."""
    return f"{cites_tutorial(tutorial_id)} OR origin = {quote(tutorial_id)}"


def not_from(origins: Iterable[str]) -> str | None:
    """Rows not added by these origins (the book's unfinished commits); None when there are none."""
    origins = list(origins)
    return f"NOT ({in_list('origin', origins)})" if origins else None


def id_prefix(prefix: str) -> str:
    """Ids starting with ``prefix`` (its ``%`` dropped; ``_`` matches itself and any character)."""
    return f"id LIKE {quote(prefix.replace('%', '') + '%')}"


#: how far past a span's ends a row may reach and still lie within it (rounding of stored times)
SPAN_SLACK = 0.01


def lies_within(row: dict, tutorial_id: str, start: float, end: float, slack: float = SPAN_SLACK) -> bool:
    """A tutorial's row (a segment, already read) lies within a time or character span."""
    return row["tutorial_id"] == tutorial_id and row["start"] >= start - slack and row["end"] <= end + slack


def except_id(book: str, row_id: str) -> str:
    return f"{of_book(book)} AND id != {quote(row_id)}"
