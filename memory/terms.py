"""Code-like terms for full-text search: ``--force-with-lease``, ``HEAD~3``, ``refs/heads/main``.

LanceDB's full-text tokenizer (``simple``) splits on punctuation, so ``--force-with-lease``
is indexed as *force*, *with*, *lease* — words that many texts hold — and a keyword search
for the option ranks any text about force and leases alike. No tokenizer setting keeps such
tokens and still splits prose at its commas and full stops, so both sides get an alias
instead: a term with punctuation inside also stands as its parts glued together
(*forcewithlease*, *head3*), a word no prose holds. The search text of skills and
nodes carries the aliases (the store adds them on write, see ``ALIASED``), and a query's
code-like terms gain theirs, so the exact term ranks first.
"""

from __future__ import annotations

import re

#: tables whose ``text`` column is only searched (never shown), so it may carry aliases
ALIASED = frozenset({"skills", "nodes", "screen"})

_TERM = re.compile(r"\S+")
_PART = re.compile(r"[A-Za-z]+|\d+")


def aliases(text: str) -> list[str]:
    """The glued forms of the text's code-like terms, in order, each once."""
    out: dict[str, None] = {}
    for term in _TERM.findall(text):
        term = term.strip(".,;:!?\"'()[]{}<>`")
        parts = _PART.findall(term)
        if len(parts) < 2:
            continue
        inner = term[term.find(parts[0]):]  # punctuation inside the term, not just around it
        glued = "".join(parts).lower()
        if re.search(r"[^A-Za-z0-9'’]", inner) and not glued.isdigit():  # not "don't", "0:42"
            out[glued] = None
    return list(out)


def searchable(text: str) -> str:
    """The text with the aliases it lacks appended (idempotent)."""
    have = set(re.findall(r"[a-z0-9]+", text.lower()))
    missing = [a for a in aliases(text) if a not in have]
    return f"{text} {' '.join(missing)}" if missing else text


#: how many times a code-like term's alias stands in a query: a query that spells out an exact
#: option or identifier wants it, more than the common words its parts are (force, with, lease)
ALIAS_WEIGHT = 3


def query(text: str) -> str:
    """A full-text query with its code-like terms' aliases added, each ``ALIAS_WEIGHT`` times."""
    found = aliases(text)
    return " ".join([text, *[a for a in found for _ in range(ALIAS_WEIGHT)]]) if found else text
