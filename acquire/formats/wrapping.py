"""Prose hard-wrapped into lines (a PDF's, a text file's): joined again into running text, a
word the layout hyphenated at a line's end made whole."""

from __future__ import annotations

import re
from collections.abc import Iterable

from tutorialbook.acquire.formats.document import squash

#: a word cut by a hyphen at a line's end (ASCII "-", Unicode's hyphen "‐", a soft hyphen)
_HYPHENS = ("-", "\u2010", "\u00ad")
_CUT = re.compile(r"(-?)([A-Za-z]+)[-\u2010\u00ad]$")


#: words a sentence cannot stop on: a line or block ending in one goes on in the next ("…the first text
#: in an Exim filter file must be" / "# Exim filter"; "If the Text Flag … is set to" | page break | "Special…")
WANTS_MORE = frozenset("""a an and as at by for from in into of on or that the to with
    is are was were be been has have had will would can could should must may might do does""".split())


class Spelling:
    """How a document's prose spells words inside its lines: the words it uses, and those it
    writes with a hyphen ("well-known"); a word cut at a line's end is neither. ``paragraphs``:
    each paragraph's lines."""

    def __init__(self, paragraphs: Iterable[list[str]]):
        self.words: set[str] = set()
        self.hyphenated: set[str] = set()
        for lines in paragraphs:
            cut = False
            for line in lines:
                line = line.strip().lower()
                ends_cut = line[-1:] in _HYPHENS
                words = re.findall(r"[a-z0-9]+(?:-[a-z0-9]+)*", line[:-1] if ends_cut else line)
                whole = words[1:] if cut else words
                cut = ends_cut
                whole = whole[:-1] if cut else whole
                self.hyphenated.update(w for w in whole if "-" in w)
                self.words.update(part for w in whole for part in w.split("-"))


def joined(text: str, line: str, spelling: Spelling) -> str:
    """Prose and the line that follows it. A word cut by a hyphen at the break is joined again
    ("deallo-" "cated") unless the document writes it with the hyphen ("well-known"), or it is
    two words the document uses on their own and never as one ("binary-" "package"), or it
    continues a hyphenated compound ("cell-by-" "cell")."""
    text, line = text.strip(), line.strip()
    kept = _hyphen_kept(text, line, spelling)
    if kept is None:
        return f"{text} {line}" if text else line
    return text[:-1] + ("-" if kept else "") + line


def unwrapped(lines: list[str], spelling: Spelling) -> str:
    """A paragraph's lines as one line of prose (see ``joined``), in time linear in its length
    (a thousand-line paragraph took 11 s when each line was added to the whole text so far)."""
    words: list[str] = []  # runs of the text, each a line or the lines a hyphenated word joins
    run: list[str] = []
    for line in (raw.strip() for raw in lines):
        if not line:
            continue
        kept = _hyphen_kept(run[-1], line, spelling) if run else None
        if kept is None:
            if run:
                words.append("".join(run))
            run = [line]
        else:
            run[-1] = run[-1][:-1] + ("-" if kept else "")
            run.append(line)
    if run:
        words.append("".join(run))
    return squash(" ".join(words))


def _hyphen_kept(text: str, line: str, spelling: Spelling) -> bool | None:
    """None when ``text`` does not end in a word cut by a hyphen that ``line`` finishes; else
    whether the hyphen stays (see ``joined``). Only the end of ``text`` is looked at."""
    head = _CUT.search(text[-80:])
    tail = re.match(r"[a-z]+", line)
    if not head or not tail:
        return None
    left, right = head.group(2).lower(), tail.group(0)
    return f"{left}-{right}" in spelling.hyphenated or bool(head.group(1)) or (
        left + right not in spelling.words and left in spelling.words and right in spelling.words)
