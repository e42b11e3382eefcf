"""PDF: pypdf for what the file says about itself (encryption, metadata title, outline),
pdfminer.six for the text laid out in blocks with their font sizes and fonts. Headings
come from the outline (bookmarks) where the PDF has one, else from text set larger than
the body; monospaced blocks are code; running headers, footers and page numbers (text
repeated on most pages) are dropped."""

from __future__ import annotations

import io
import re
from collections import Counter
from dataclasses import dataclass

from tutorialbook.acquire.formats.document import Document, squash
from tutorialbook.errors import TutorialbookError

_MONO = re.compile(r"mono|courier|code|typewriter|consol|menlo|inconsolata|\btt|cmtt|nimbusmon", re.I)
_LEADERS = re.compile(r"(?:\.\s?){4,}\s*\d+\s*$")
_BULLET = re.compile(r"^\s*(?:[•◦▪‣·\-–*]|\d{1,3}[.)])\s")
_NUMBER = re.compile(r"^\s*(?:chapter\s+|appendix\s+)?(?:\d+|[A-Z])(?:\.\d+)*\.?\s+", re.I)
MAX_HEADING_CHARS = 150


@dataclass
class _Box:
    page: int
    text: str
    lines: list[str]
    size: float
    mono: bool


def read_pdf(data: bytes, name: str) -> Document:
    from pypdf import PdfReader

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise TutorialbookError("source", f"{name} is an encrypted PDF; it needs a password to read, "
                                              "save a decrypted copy and ingest that")
        outline = _outline(reader)
        meta_title = (reader.metadata.title if reader.metadata else None) or None
    except TutorialbookError:
        raise
    except Exception as exc:  # a damaged file makes pypdf raise anything from PdfReadError to AttributeError
        raise _unreadable(name, exc) from exc
    try:
        boxes = _boxes(data)
    except Exception as exc:  # likewise pdfminer: PSEOF, PSSyntaxError, PDFNotImplementedError...
        raise _unreadable(name, exc) from exc
    if not any(b.text for b in boxes):
        raise TutorialbookError("source", f"{name} has no text layer (an image-only or scanned PDF); "
                                          "run OCR on it first")
    doc = Document(name)
    if isinstance(meta_title, str) and meta_title.strip() and not re.search(r"\.(pdf|docx?|tex|dvi)$|^untitled$",
                                                                          meta_title.strip(), re.I):
        doc.title = meta_title.strip()
    doc.title = doc.title or _title_page_title(boxes)  # before furniture: a running head may repeat it
    _lay_out(_merge(_drop_furniture(boxes)), outline, doc)
    return doc


def _title_page_title(boxes: list[_Box]) -> str | None:
    """The largest type on the first page, when it stands above the body text (a title page)."""
    first = [b for b in boxes if b.page == boxes[0].page and len(b.text) <= MAX_HEADING_CHARS] if boxes else []
    if not first:
        return None
    body: Counter[float] = Counter()
    for b in boxes:
        body[b.size] += len(b.text)
    top = max(first, key=lambda b: b.size)
    return top.text if top.size >= 1.3 * body.most_common(1)[0][0] else None


def _unreadable(name: str, exc: Exception) -> TutorialbookError:
    return TutorialbookError("source", f"{name} is not a readable PDF (damaged or truncated: "
                                       f"{type(exc).__name__}: {str(exc)[:200]})")


def _outline(reader) -> list[tuple[int, str, int]]:
    """(level, title, page index) of the bookmarks, in order."""
    found: list[tuple[int, str, int]] = []

    def walk(items, level):
        for item in items:
            if isinstance(item, list):
                walk(item, level + 1)
                continue
            try:
                page = reader.get_destination_page_number(item)
            except Exception:  # a bookmark to nowhere: pypdf raises assorted errors
                continue
            if page is not None and page >= 0 and squash(str(item.title or "")):
                found.append((level, squash(str(item.title)), page))

    try:
        walk(reader.outline, 1)
    except Exception:  # a broken outline tree is no reason to refuse the text
        return []
    return found


def _boxes(data: bytes) -> list[_Box]:
    from pdfminer.high_level import extract_pages
    from pdfminer.layout import LAParams, LTChar, LTTextContainer, LTTextLine

    boxes: list[_Box] = []
    for page_no, page in enumerate(extract_pages(io.BytesIO(data), laparams=LAParams())):
        for element in page:
            if not isinstance(element, LTTextContainer):
                continue
            runs: list[tuple[float, bool, list[str]]] = []  # lines of one size and font kind
            for line in element:
                if not isinstance(line, LTTextLine):
                    continue
                chars = [c for c in line if isinstance(c, LTChar) and c.get_text().strip()]
                if not chars:
                    continue
                size = Counter(round(c.size * 2) / 2 for c in chars).most_common(1)[0][0]
                mono = all(_MONO.search(c.fontname) for c in chars)  # a whole line set in a code font
                if runs and runs[-1][1] == mono and max(size, runs[-1][0]) <= 1.1 * min(size, runs[-1][0]):
                    runs[-1][2].append(line.get_text().rstrip("\n"))
                else:
                    runs.append((size, mono, [line.get_text().rstrip("\n")]))
            for size, mono, texts in runs:
                boxes.append(_Box(page_no, squash(" ".join(texts)), texts, size, mono))
    return boxes


def _drop_furniture(boxes: list[_Box]) -> list[_Box]:
    """Running heads, footers and page numbers: the same words (digits aside) on most pages;
    dotted table-of-contents lines."""
    pages = len({b.page for b in boxes})
    key = lambda b: re.sub(r"\d+", "#", b.text.lower())  # noqa: E731
    seen = Counter(key(b) for b in {(b.page, key(b)): b for b in boxes}.values())
    keep = []
    for b in boxes:
        if re.fullmatch(r"[\divxlc\s\-–|/]*", b.text, re.I):
            continue
        if pages >= 3 and seen[key(b)] > max(2, pages // 2):
            continue
        if all(_LEADERS.search(line) for line in b.lines if line.strip()):
            continue
        keep.append(b)
    return keep


def _merge(boxes: list[_Box]) -> list[_Box]:
    """Join what the layout analysis cut apart: consecutive lines of code, and a paragraph
    whose sentence runs on into the next block on the same page."""
    out: list[_Box] = []
    for b in boxes:
        prev = out[-1] if out else None
        same = prev is not None and prev.page == b.page and prev.mono == b.mono and \
            max(prev.size, b.size) <= 1.1 * min(prev.size, b.size)
        if same and prev is not None and (b.mono or (not re.search(r"[.!?:;]$", prev.text) and b.text[:1].islower())):
            out[-1] = _Box(prev.page, f"{prev.text} {b.text}", prev.lines + b.lines, prev.size, prev.mono)
        else:
            out.append(b)
    return out


def _lay_out(boxes: list[_Box], outline: list[tuple[int, str, int]], doc: Document) -> None:
    body: Counter[float] = Counter()
    for b in boxes:
        body[b.size] += len(b.text)
    body_size = body.most_common(1)[0][0] if body else 0
    levels = _size_levels(boxes, body_size) if not outline else {}
    marks = _place_outline(boxes, outline)
    for i, b in enumerate(boxes):
        text = b.text
        for level, title, found in marks.get(i, []):
            doc.heading(level, title)
            if found:
                text = _after(text, title)
        if not text:
            continue
        if not outline and b.size in levels and len(text) <= MAX_HEADING_CHARS and len(b.lines) <= 3:
            doc.heading(levels[b.size], text)
        elif b.mono:
            doc.block("code", "\n".join(b.lines))
        elif sum(bool(_BULLET.match(line)) for line in b.lines) >= 2 and _BULLET.match(b.lines[0]):
            doc.block("list", "\n".join(b.lines))
        else:
            doc.block("paragraph", text)
    for level, title, _ in marks.get(len(boxes), []):
        doc.heading(level, title)


def _place_outline(boxes: list[_Box], outline) -> dict[int, list[tuple[int, str, bool]]]:
    """Box index -> the bookmarks that start there: on the box that begins with the
    bookmark's words, else at the top of its page."""
    marks: dict[int, list[tuple[int, str, bool]]] = {}
    cursor = 0
    for level, title, page in outline:
        at = next(
            (i for i in range(cursor, len(boxes)) if boxes[i].page == page and _starts_with(boxes[i].text, title)), None
        )
        found = at is not None
        if at is None:
            at = next((i for i in range(cursor, len(boxes)) if boxes[i].page >= page), len(boxes))
        marks.setdefault(at, []).append((level, title, found))
        cursor = at + 1 if found else at
    return marks


def _size_levels(boxes: list[_Box], body_size: float) -> dict[float, int]:
    """Font sizes clearly above the body's, largest first, as heading levels 1-3."""
    sizes = sorted({b.size for b in boxes if b.size >= body_size * 1.15 and len(b.text) <= MAX_HEADING_CHARS},
                   reverse=True)
    return {size: min(n + 1, 3) for n, size in enumerate(sizes)}


def _squashed(text: str) -> str:
    """Lowercase letters and digits only: a bookmark's title matched against the line it names."""
    return re.sub(r"[^0-9a-z]+", "", text.lower())


def _unnumbered(text: str, title: str) -> str:
    """The text without a section number ("2.1 ", "A.3. ") the bookmark's title does not have."""
    number = _NUMBER.match(text)
    return text[number.end():] if number and not _NUMBER.match(title) else text


def _starts_with(text: str, title: str) -> bool:
    a, b = _squashed(_unnumbered(text, title)), _squashed(title)
    return bool(b) and a.startswith(b)


def _after(text: str, title: str) -> str:
    """The box's words after its heading (a heading set in the same block as its paragraph)."""
    text = _unnumbered(text, title)
    want, i = len(_squashed(title)), 0
    seen = 0
    while i < len(text) and seen < want:
        seen += bool(re.match(r"[0-9a-z]", text[i].lower()))
        i += 1
    return text[i:].lstrip(" :.-–")
