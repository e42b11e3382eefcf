"""Tables and code listings as the HTML reader's walker (``html_walker.py``) reads them: a data
table's rows and header, the tables that only lay out something else (an admonition's icon
beside its text, a links column beside a page's text), and code listings written without a
``pre`` (one element a line, or a line a table row)."""

from __future__ import annotations

import re

from tutorialbook.acquire.formats.document import ADMONITIONS, spread_rows, squash
from tutorialbook.acquire.formats.html_vocabulary import (_HEADINGS, _INLINE, _ITEM_BLOCKS, _LISTS, MAX_DEPTH,
                                                          _class_words, _in_admonition)

#: class words of an element that holds a code listing as one element a line (Doxygen's
#: ``div.fragment`` of ``div.line``), not as a ``pre``
_CODE_WORDS = frozenset({"fragment", "listing", "programlisting", "sourcecode", "codeblock"})
_PAGE_BLOCKS = frozenset({"p", "ul", "ol", "dl", "div", "table", "blockquote"})


def _table_rows(table, rows: list | None = None) -> list[list[str]]:
    """A table's rows, or those of ``rows`` (``spread_rows``: a cell spanning rows below repeated in each)."""
    return spread_rows([(squash(_blocks_apart(cell)), _span(cell.get("rowspan"), 100), _span(cell.get("colspan"), 20))
                        for cell in row if isinstance(cell.tag, str) and cell.tag in ("td", "th")]
                       for row in (table.iter("tr") if rows is None else rows))


def _blocks_apart(el, depth: int = 0) -> str:
    """An element's text, its blocks' words apart from the next's (Scribble's definition box: a
    label "procedure" in a div above the signature's paragraph had read "procedure(promise? v)")."""
    if depth > MAX_DEPTH or not any(True for _ in el.iter(*_ITEM_BLOCKS)):
        return el.text_content()
    out = [el.text or ""]
    for child in el:
        if isinstance(child.tag, str):
            apart = child.tag.lower() in _ITEM_BLOCKS
            out.append(f" {_blocks_apart(child, depth + 1)} " if apart else _blocks_apart(child, depth + 1))
        out.append(child.tail or "")
    return "".join(out)


def _has_header(table) -> bool:
    """Whether a table's first row with words is a header: in ``<thead>``, or ``<th>`` cells only
    (AsciiDoc's and DocBook's tables without a header row open on a row of data in ``<td>``s)."""
    for row in table.iter("tr"):
        cells = [cell for cell in row if isinstance(cell.tag, str) and cell.tag in ("td", "th")]
        if any(squash(cell.text_content()) for cell in cells):
            parent = row.getparent()
            return parent is not None and parent.tag == "thead" or all(cell.tag == "th" for cell in cells)
    return False


def _span(value: str | None, most: int) -> int:
    """A rowspan's or colspan's count: 1 unless a number, at most ``most`` (a page's "1000000")."""
    return min(int(value), most) if value and value.strip().isdigit() and int(value) > 0 else 1


def _holds_pages(table) -> bool:
    """A table laying out a page (a links column beside the text, as groff's and old sites' pages
    do): one row, a cell of which holds three paragraphs or lists or more (a data table's cell
    may hold three, PostgreSQL's function tables do, but over many rows)."""
    rows = list(table.iter("tr"))
    return len(rows) == 1 and any(
        sum(1 for child in cell if isinstance(child.tag, str) and child.tag in _PAGE_BLOCKS) >= 3
        for cell in rows[0] if isinstance(cell.tag, str) and cell.tag in ("td", "th"))


def _icon_cell(table):
    """The icon cell of a table laying out an admonition as asciidoc-py does (``td.icon`` holding
    the image or title "Note", beside ``td.content``), or None."""
    rows = [row for row in table.iter("tr")]
    cells = [c for c in rows[0] if isinstance(c.tag, str) and c.tag in ("td", "th")] if len(rows) == 1 else []
    if len(cells) != 2 or "icon" not in _class_words(cells[0]):
        return None
    said = squash(cells[0].text_content()) or " ".join(img.get("alt", "") for img in cells[0].iter("img"))
    return cells[0] if said.strip(": ").lower() in ADMONITIONS else None


def _admonition_layout(table) -> bool:
    """A table that lays out an admonition (DocBook's: in a ``div.note``, an icon, "Note", then its
    text), no row of it holding two cells of text: read as its blocks, not as data."""
    return _in_admonition(table) and all(
        sum(bool(squash(cell.text_content())) for cell in row if cell.tag in ("td", "th")) <= 1
        for row in table.iter("tr"))


def _listing_text(el) -> str | None:
    """A code listing's lines, if ``el`` is one written one element a line or laid out a line a row."""
    if _is_listing(el):
        lines = [child for child in el if isinstance(child.tag, str) and child.tag not in _INLINE]
        return "\n".join(line.text_content().rstrip() for line in lines) if lines else el.text_content()
    if (rows := _table_listing(el)) is not None:
        return "\n".join(row.text_content().replace("\xa0", " ").rstrip() for row in rows)
    return None


def _is_listing(el) -> bool:
    """A code listing written one element a line (no ``pre``): its class says so and it holds
    nothing but lines of text."""
    return bool(_class_words(el) & _CODE_WORDS) and not any(
        True for _ in el.iter("pre", "p", "table", *_LISTS, *_HEADINGS))


#: the words of a class written in camel case ("SCodeFlow": s, code, flow)
_CAMEL_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def _table_listing(el) -> list | None:
    """A code listing laid out as a table, a line a row (Racket's Scribble: ``blockquote.SCodeFlow``
    holding a table of one-cell rows, a definition's lines a table nested in its first row, the
    REPL's lines and results the rows below it): its class says code, every row one cell, no text
    outside the tables. Its innermost rows in order, each a line; it had read as a table whose first
    row was the nested table's lines squashed into one, followed by those lines again, unindented (its
    indent is no-break spaces, which become spaces)."""
    words = {w.lower() for w in _CAMEL_WORDS.findall(el.get("class") or "")}
    if "code" not in words and not _class_words(el) & _CODE_WORDS:
        return None
    tables = [child for child in el if isinstance(child.tag, str)]
    if not tables or any(t.tag != "table" for t in tables) or squash(el.text or "") \
            or any(squash(t.tail or "") for t in tables) or any(True for _ in el.iter("pre", *_HEADINGS, *_LISTS)):
        return None
    rows = [row for t in tables for row in t.iter("tr")]
    if any(len([c for c in row if isinstance(c.tag, str) and c.tag in ("td", "th")]) != 1 for row in rows):
        return None
    return [row for row in rows if not any(True for inner in row.iter("tr") if inner is not row)]
