"""Prose hard-wrapped into lines (a PDF's, a text file's): joined again into running text, a
word the layout hyphenated at a line's end made whole."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from tutorialbook.acquire.formats.document import squash


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
                words = re.findall(r"[a-z0-9]+(?:-[a-z0-9]+)*", line[:-1] if line.endswith("-") else line)
                whole = words[1:] if cut else words
                cut = line.endswith("-")
                whole = whole[:-1] if cut else whole
                self.hyphenated.update(w for w in whole if "-" in w)
                self.words.update(part for w in whole for part in w.split("-"))


def joined(text: str, line: str, spelling: Spelling) -> str:
    """Prose and the line that follows it. A word cut by a hyphen at the break is joined again
    ("deallo-" "cated") unless the document writes it with the hyphen ("well-known"), or it is
    two words the document uses on their own and never as one ("binary-" "package"), or it
    continues a hyphenated compound ("cell-by-" "cell")."""
    text, line = text.strip(), line.strip()
    head = re.search(r"(-?)([A-Za-z]+)-$", text)
    tail = re.match(r"[a-z]+", line)
    if head and tail:
        left, right = head.group(2).lower(), tail.group(0)
        kept = f"{left}-{right}" in spelling.hyphenated or bool(head.group(1)) or (
            left + right not in spelling.words and left in spelling.words and right in spelling.words)
        return text + line if kept else text[:-1] + line
    return f"{text} {line}" if text else line


def unwrapped(lines: list[str], spelling: Spelling) -> str:
    """A paragraph's lines as one line of prose (see ``joined``)."""
    return squash(functools.reduce(lambda text, line: joined(text, line, spelling), lines, ""))
