"""A document's blocks in reading order, rendered to plain text: every reader (Markdown,
reStructuredText, HTML, notebook, PDF) emits headings and blocks here, and gets back a
Transcript whose segment offsets point into that rendering. A reader that knows where each
block sits in a text source (Markdown) gives those spans instead, so evidence offsets
point into the file itself."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable

from tutorialbook.acquire.transcript import Segment, Transcript
from tutorialbook.errors import NothingToLearn

KINDS = frozenset({"paragraph", "list", "code", "table", "quote", "text", "term"})
"""A "term" is a label standing over code or a table (a definition's term, "bg:" over "bg [jobspec]")."""
MAX_BLOCK_CHARS = 6000
"""A longer block (a huge single line, a runaway table) is cut into pieces at this size so
nothing downstream sees one unbounded segment."""

_SPACE = re.compile(r"\s+")
#: a notebook's execution prompt set as a block of its own (nbsphinx's "[2]:", Jupyter's "In [2]:")
_PROMPT = re.compile(r"(?:In|Out)\s*\[[\s\d*]*\]:?|\[[\s\d*]*\]:")  # not "[1]", a list printed


_PRIVATE_USE = re.compile("[\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd]")


#: characters that take no room and say nothing: zero-width space (Asciidoctor's after an ellipsis,
#: "…&#8203;"), word joiner (Publican's in every anchor before a title), zero-width no-break space
_INVISIBLE = re.compile("[\u200b\u2060\ufeff]")


#: a word as prose writes it: letters, an apostrophe or hyphen inside, quotes, brackets and
#: punctuation about it (not code's "mpfr_init", "$(BIN)", "x2")
_PROSE_WORD = re.compile(r"[(\"'‘“]?[^\W\d_]+(?:['’-][^\W\d_]+)*[.,;:!?)\"'’”]*")


def prose_words(tokens: list[str]) -> int:
    """How many of ``tokens`` (a text split on whitespace) are words as prose writes them: what
    tells a sentence from a listing, a command or a table row."""
    return sum(bool(_PROSE_WORD.fullmatch(token)) for token in tokens)


def squash(text: str) -> str:
    """Inline text as prose: runs of whitespace (line breaks, tabs, nbsp) become one space;
    invisible characters (``_INVISIBLE``) are none."""
    return _SPACE.sub(" ", _INVISIBLE.sub("", text)).strip()


def squash_lines(text: str) -> str:
    """Keep the line structure (lists, tables) and each line's indent (a nested item);
    squash the rest of each line, drop empty lines."""
    lines = (part[: len(part) - len(part.lstrip(" "))] + squash(part) for part in text.splitlines())
    return "\n".join(line for line in lines if line.strip()).strip("\n")


def table_text(rows: Iterable[Iterable[str]]) -> str:
    """A table as the readers give it: a row a line, its cells joined by " | ", less the empty
    cells that end it (a Markdown row with its last cell empty read "--fast | Compress faster |",
    and a name made of it ended on "|"), an empty row none."""
    lines = []
    for row in rows:
        cells = list(row)
        while cells and not cells[-1].strip():
            cells.pop()
        if cells:
            lines.append(" | ".join(cells))
    return "\n".join(lines)


def spread_rows(rows: Iterable[Iterable[tuple[str, int, int]]]) -> list[list[str]]:
    """A table's rows of cells (text, rows it spans, columns it spans) as rows of texts, a cell
    that spans rows below repeated in each (a grid table's "Year | Y | Same as y…": the rows
    under a spanning first cell had lost it, their columns shifted); one spanning columns is
    followed by empty cells."""
    out: list[list[str]] = []
    above: dict[int, tuple[str, int]] = {}  # column -> (text, rows below it still covers)

    def spanned(column: int) -> str:
        text, left = above.pop(column)
        if left > 1:
            above[column] = (text, left - 1)
        return text

    for row in rows:
        cells: list[str] = []
        for text, down, across in row:
            while len(cells) in above:
                cells.append(spanned(len(cells)))
            if down > 1:
                above[len(cells)] = (text, down - 1)
            cells += [text] + [""] * (across - 1)
        while above and len(cells) <= max(above):
            cells.append(spanned(len(cells)) if len(cells) in above else "")
        out.append(cells)
    return out


#: the most words a paragraph that only points at its links says (HTML's and reStructuredText's)
POINTER_WORDS = 20
#: what a paragraph says beside its links when it only points at them ("For more, see … and …")
SEE_ONLY = re.compile(r"(?:(?:for|read) (?:more|details|further|more (?:details|information|info)|further "
                       r"(?:details|information)) )?(?:see|refer to|read)(?: also)?(?: the)?(?: (?:and|or|the))*"
                       r"|this (?:page|section|chapter|document|article) is (?:a )?part of(?: the)?")

#: a footnote longer than this stays where the document puts it, not read in brackets where referred to
FOOTNOTE_CHARS = 1000


#: the labels documentation generators put over a note or warning (docutils' and DocBook's
#: admonition names): read as a prefix of the text they head ("Note: …"), not a block of their own
ADMONITIONS = frozenset({"note", "warning", "tip", "hint", "important", "caution", "attention", "danger",
                         "error", "see also", "seealso", "todo"})


def _opens_with(text: str, label: str) -> bool:
    """The text's first words are the label's, as a whole word ("Note" opens "Note: …", not "Notes")."""
    head = text[:len(label)]
    return head.casefold() == label.casefold() and not text[len(label):len(label) + 1].isalnum()


class Document:
    """Collects headings and blocks; ``transcript()`` lays them out as plain text."""

    def __init__(self, name: str, source: str | None = None):
        self.name = name
        self.source = source
        """Set when blocks come with their spans in this text (then it is the rendering)."""
        self.title: str | None = None
        self.warnings: list[str] = []
        """What the reader could not read (it goes into the ingest report)."""
        self._parts: list[str] = []
        self._length = 0
        self._segments: list[Segment] = []
        self._headings: list[tuple[int, int, str]] = []
        self._label = ""  # an admonition's label waiting for its text
        self._ruled = False  # a thematic break waits for the block after it

    def label(self, text: str, join: bool = False) -> None:
        """An admonition's label ("Note", "Warning") or a definition's term: it heads the next
        block ("Note: …"; before code or a table, a line "Note:" of its own). ``join``: after a
        label still waiting (two terms of one definition), both, as "-v, --verbose". A term its
        author ended with a colon ("``response``:") keeps one: the block's own colon follows."""
        text = squash(text).rstrip(": ")
        if join and self._label:
            text = f"{self._label}, {text}" if text else self._label
        self._label = text

    def unlabel(self) -> None:
        """The label waiting heads nothing: the box it titles ended with no text of its own kept
        (SQLAlchemy's "Tutorial" box of Previous / Next links had labelled the next paragraph)."""
        self._label = ""

    def rule(self) -> None:
        """A thematic break (HTML's ``<hr>``, Markdown's ``---``, reStructuredText's transition):
        the next block opens another matter (a passage never runs across it)."""
        self._ruled = bool(self._segments)

    def heading(self, level: int, text: str) -> None:
        self._label, self._ruled = "", False
        text = squash(_PRIVATE_USE.sub("", text))  # an icon font's glyph (MkDocs' permalink mark, U+F0C1): none
        if any(ch.isalpha() for ch in text):  # not "(19)": a footnote's number is no section
            self._headings.append((len(self._segments), max(1, min(level, 6)), text))
            self._place(text)

    def block(self, kind: str, text: str, span: tuple[int, int] | None = None, header: bool = True) -> None:
        """One paragraph, a whole list, a whole code block...: code keeps its exact lines,
        lists and tables their lines, prose is squashed to one line; ``header``: a table's first
        line is its header row (``Segment.header``). Characters of Unicode's
        private use areas are an icon font's glyphs (Django's tabs, Font Awesome's "\uf17c /
        \uf179"), no text: dropped."""
        if kind not in KINDS:
            raise ValueError(f"unknown block kind {kind!r}")
        if span is None and _PRIVATE_USE.search(text):  # placed by its own text (a span's offsets count)
            text = _PRIVATE_USE.sub("", text)
            if kind != "code" and not any(ch.isalnum() for ch in text):
                return  # what separated the icons ("/"): no words
        if kind == "code":  # its lines as set, less the indent they all share (Lua's manual indents every <pre>)
            text = textwrap.dedent(text.strip("\n")).rstrip()
        elif kind in ("list", "table"):
            text = squash_lines(text)
        else:
            text = squash(text)
        if not text.strip() or _PROMPT.fullmatch(text.strip()):  # a cell's number is not its code
            return
        label, self._label = self._label, ""
        if label and kind != "code" and _opens_with(text, label):  # a caption opening with its disclosure's label
            label = ""  # ("TODO 6" over "TODO 6: CMakeLists.txt"): said once
        if label and kind in ("paragraph", "quote", "text"):
            text = f"{label}: {text}"
        elif label and kind == "list":
            text = f"{label}:\n{text}"
        elif label:  # code or a table: its exact lines, the label a line before them
            self.block("term", f"{label}:")
        done = 0
        for n, piece in enumerate(_pieces(text, kind)):
            if self.source is not None and span is not None:  # a piece's share of the block's span
                start = min(span[0] + done, span[1])
                end = span[1] if done + len(piece) >= len(text) else min(span[0] + done + len(piece), span[1])
            else:
                start = self._place(piece)
                end = start + len(piece)
            done += len(piece) + 1
            # a table cut at MAX_BLOCK_CHARS: only its first piece opens on the header
            self._segments.append(Segment(float(start), float(end), piece, kind, ruled=self._ruled,
                                          header=header and n == 0))
            self._ruled = False

    def _place(self, text: str) -> int:
        if self.source is not None:
            return 0
        if self._parts:
            self._parts.append("\n\n")
            self._length += 2
        start = self._length
        self._parts.append(text)
        self._length += len(text)
        return start

    def transcript(self) -> Transcript:
        top = min((level for _, level, _ in self._headings), default=0)
        heading = next((t for _, level, t in self._headings if level == top), None)
        if not self._segments:
            what = "headings but no paragraphs" if self._headings else "no text"
            why = f" ({'; '.join(self.warnings)})" if self.warnings else ""
            raise NothingToLearn("source", f"{self.name} holds {what} to learn from{why}",
                                 heading=squash(heading) if heading else None)
        title = self.title if self.title is not None else heading
        title = _PRIVATE_USE.sub("", title) if title else title  # MkDocs' permalink glyph in the page's h1
        if title and re.fullmatch(r"\[[^\[\]]+\]", title.strip()):
            title = title.strip()[1:-1]  # a logo's alt text a converter left bracketed: "[YT-DLP]"
        text = self.source if self.source is not None else "".join(self._parts)
        return Transcript(self._segments, duration=float(len(text)), timed=False,
                          headings=_without_empty_sections(self._headings, len(self._segments)),
                          warnings=self.warnings, title=squash(title) if title else None, text=text)


def _without_empty_sections(headings: list[tuple[int, int, str]], n: int) -> list[tuple[int, int, str]]:
    """Drop a heading whose section holds nothing, no text and no subsection (it titled
    navigation that was dropped, like a "Table of Contents" over a list of links)."""
    kept = []
    for i, (at, level, title) in enumerate(headings):
        following = headings[i + 1] if i + 1 < len(headings) else None
        empty = at >= n if following is None else following[0] == at and following[1] <= level
        if not empty:
            kept.append((at, level, title))
    return kept


def _pieces(text: str, kind: str) -> list[str]:
    """Cut an over-long block at line breaks (code, lists) or spaces (prose)."""
    if len(text) <= MAX_BLOCK_CHARS:
        return [text]
    out: list[str] = []
    sep = "\n" if "\n" in text else " "
    while len(text) > MAX_BLOCK_CHARS:
        cut = text.rfind(sep, MAX_BLOCK_CHARS // 2, MAX_BLOCK_CHARS)
        cut = cut if cut > 0 else MAX_BLOCK_CHARS
        out.append(text[:cut].rstrip())
        text = text[cut:].lstrip("\n ") if kind != "code" else text[cut:].lstrip("\n")
    if text.strip():
        out.append(text)
    return [p for p in out if p.strip()]
