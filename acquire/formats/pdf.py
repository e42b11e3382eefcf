"""PDF: pypdf for what the file says about itself (encryption, metadata title, outline),
pdfminer.six for the text laid out in blocks with their font sizes and fonts. Headings
come from the outline (bookmarks) where the PDF has one, else from text set larger than
the body; monospaced blocks are code; terms each on a line with their meanings indented
below (a manual's options) are a definition list; running headers, footers and page numbers
(text repeated on most pages) are dropped."""

from __future__ import annotations

import io
import itertools
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterable, Protocol, TypeVar

from tutorialbook.acquire.formats.document import Document, squash
from tutorialbook.acquire.formats.wrapping import WANTS_MORE, Spelling, joined, unwrapped
from tutorialbook.errors import TutorialbookError

_MONO = re.compile(r"mono|courier|code|typewriter|consol|menlo|inconsolata|\btt|cmtt|nimbusmon", re.I)
_LEADERS = re.compile(r"(?:\.\s?){4,}\s*\d+\s*$")
_BULLET = re.compile(r"^\s*(?:[•◦▪‣·\-–*]|\d{1,3}[.)])\s")
_NUMBER = re.compile(r"^\s*(?:chapter\s+|appendix\s+)?(?:\d+|[A-Z])(?:\.\d+)*[.:]?\s+", re.I)
_DOTS = re.compile(r"(?:\.\s?){4,}")
_CID = re.compile(r"\(cid:\d+\)")
_LIGATURES = str.maketrans({"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
                            "\ufb05": "st", "\ufb06": "st"})
#: TeX sets a typewriter font's ' and ` as curly quotes: in code they are what was typed
#: (bash's "local IFS=$’ \t\n’" is "$' \t\n'", gnuplot's "set decimalsign ’,’")
_CODE_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "`", "\u201c": '"', "\u201d": '"'})
#: TeX's accents drawn as a spacing mark before their letter ("Br¨oker", "J´erˆome"): the letter's own
_ACCENTS = {"\u00a8": "\u0308", "\u00b4": "\u0301", "\u02c6": "\u0302", "\u02dc": "\u0303", "\u00b8": "\u0327",
            "\u02c7": "\u030c", "\u02d8": "\u0306", "\u02da": "\u030a", "\u02dd": "\u030b", "\u02cb": "\u0300"}
_SPACING_ACCENT = re.compile(f"([{''.join(_ACCENTS)}])([A-Za-z\u0131])")
MAX_HEADING_CHARS = 150
_CONTENTS_TITLE = re.compile(r"(?:table of )?contents", re.I)
#: the longest line read as an entry of a table of contents whose page numbers stand apart
CONTENTS_ENTRY_WORDS = 10
#: an entry of a printed contents: a section's number first ("4.5 Step 1: Get the upstream source . . 12",
#: "4.9.1 4.9.2 4.9.3"; dblatex runs a long number into its title: "11.10How can I …"), or only numbers
#: and leader dots
_ENTRY = re.compile(r"(?:[.\s]*)(?:(?:[A-Z]|\d{1,2})(?:\.\d{1,2})+\.?(?:\s|$|(?=[A-Z]))|\d{1,2}\s+[A-Z])|[\d.\s]+$")
#: leader dots between entries run together (". . " or "....")
_DOTTED = re.compile(r"(?:\.\s){2,}|\.{4,}")
#: a short sentence of prose after a contents (its words end on a full stop, no leader dots): the
#: Debian FAQ's abstract, "This document answers questions frequently asked about Debian GNU/Linux."
_SENTENCE = re.compile(r"^(?:\S+\s+){4,}\S*[^\W\d_]{2}[.!]$")
#: a table of contents stands on a document's first pages
FRONT_PAGES = 12
#: so many entries before a document's first heading make a contents with no title
MIN_CONTENTS_ENTRIES = 5
#: the longest line read as a definition list's term ("-c --stdout", "--files-from=FILE")
MAX_TERM_CHARS = 80
#: how deep a page is cut into bands and columns (real pages need a handful: bands, columns, cells)
MAX_CUTS = 32
#: a bold face's name (Times' "NimbusRomNo9L-Medi", Computer Modern's "CMBX12", "DejaVuSans-Bold")
_BOLD = re.compile(r"bold|medi|semibold|demi|heavy|black|cmbx|-b$|,b$", re.I)
#: how far two boxes may overlap and still be apart (points): a line's descenders reach into the next
_TOUCH = 1.0
#: how far apart two boxes' tops may be and still be on one line (points): type of another size or face
_LEVEL = 2.0


class _Placed(Protocol):
    x0: float
    x1: float
    y0: float
    y1: float


B = TypeVar("B", bound=_Placed)


@dataclass
class _Row:
    """One line as laid out: its text, where it starts (x) and its top (y grows upwards)."""
    text: str
    x: float
    top: float
    char_width: float


@dataclass
class _Box:
    page: int
    rows: list[_Row]
    size: float
    mono: bool
    text: str = ""
    bold: bool = False

    @property
    def lines(self) -> list[str]:
        return [r.text for r in self.rows]

    @property
    def top(self) -> float:
        return max(r.top for r in self.rows)

    @property
    def bottom(self) -> float:
        return min(r.top for r in self.rows)


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
    spelling = Spelling(b.lines for b in boxes if not b.mono)  # the whole document's, once
    for b in boxes:  # each box's text: its lines joined, prose as wrapping.unwrapped joins it
        b.text = squash(" ".join(b.lines)) if b.mono else unwrapped(b.lines, spelling)
    if not any(b.text for b in boxes):
        raise TutorialbookError("source", f"{name} has no text layer (an image-only or scanned PDF); "
                                          "run OCR on it first")
    doc = Document(name)
    if isinstance(meta_title, str) and meta_title.strip() and not re.search(r"\.(pdf|docx?|tex|dvi)$|^untitled$",
                                                                          meta_title.strip(), re.I):
        doc.title = meta_title.strip()
    doc.title = doc.title or _title_page_title(boxes)  # before furniture: a running head may repeat it
    _lay_out(_merge(_drop_furniture(boxes, [title for _, title, _ in outline]), spelling), outline, doc)
    return doc


def _title_page_title(boxes: list[_Box]) -> str | None:
    """The largest type on the first page, when it stands above the body text (a title page)."""
    first = [b for b in boxes if b.page == boxes[0].page and len(b.text) <= MAX_HEADING_CHARS] if boxes else []
    if not first:
        return None
    top = max(first, key=lambda b: b.size)
    return top.text if top.size >= 1.3 * _body_size(boxes) else None


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
    # pdfminer's own reading order (boxes_flow) groups a page's boxes pairwise, in time quadratic
    # in their number: 59 s of doxygen's 336-page manual, 10 s without it; the order is cut here
    for page_no, page in enumerate(extract_pages(io.BytesIO(data), laparams=LAParams(boxes_flow=None))):
        texts = [e for e in page if isinstance(e, LTTextContainer)]
        pieces = _strays(texts)
        labels = _categories(texts)
        texts = [e for e in texts if id(e) not in pieces]
        for element in reading_order(texts, start=lambda e: next(iter(e)).x0 if len(e) else e.x0):
            lines = []  # (text, size, share of the line in a code font, row)
            for line in _by_rows([e for e in element if isinstance(e, LTTextLine)]):
                if id(line) in labels:
                    continue
                parts = [line, *pieces.get(id(line), [])]
                chars = [c for part in parts for c in part if isinstance(c, LTChar) and c.get_text().strip()]
                # a glyph without a character says nothing; a ligature is its letters ("ﬁ": "fi")
                if not chars:
                    continue
                size = Counter(round(c.size * 2) / 2 for c in chars).most_common(1)[0][0]
                said = " ".join(part.get_text().strip("\n") for part in parts)
                text = _CID.sub("", _respaced(said, chars, size)).translate(_LIGATURES)
                if not text.strip():
                    continue
                share = sum(bool(_MONO.search(c.fontname)) for c in chars) / len(chars)
                width = sorted(c.width for c in chars)[len(chars) // 2]
                bold = all(_BOLD.search(c.fontname) for c in chars)
                lines.append((size, share, _Row(text, chars[0].x0, line.y1, width), bold))
            runs: list[_Box] = []  # lines of one size and font kind
            for i, (size, share, row, bold) in enumerate(lines):
                # code: a line set in a code font, or nearly so beside one that is (the letters the
                # font lacks, "β", come from another)
                mono = share == 1 or (share >= 0.85 and any(
                    lines[j][1] == 1 for j in (i - 1, i + 1) if 0 <= j < len(lines)))
                row.text = row.text.translate(_CODE_QUOTES) if mono else _accented(row.text)
                if runs and runs[-1].mono == mono and max(size, runs[-1].size) <= 1.1 * min(size, runs[-1].size) \
                        and (runs[-1].bold == bold or size == runs[-1].size):
                    runs[-1].rows.append(row)
                    runs[-1].bold = runs[-1].bold and bold
                else:
                    runs.append(_Box(page_no, [row], size, mono, bold=bold))
            boxes.extend(runs)
    return boxes


def _strays(texts: list) -> dict[int, list]:
    """Pieces of a line drawn out of order: a one-line box of words level with another box's line,
    in type of its size, as far after that line's end as the line's own word spaces are apart.
    pdfminer joins only characters drawn one after another into a line, so a line's last words
    drawn after the line below it (makeindex's PDF: "Put a \\makeindex command in the preamble" …
    "(between the") were a box of their own, read after the paragraph and run into the next one.
    Returns, by id, each such line's pieces, left to right, and each piece's box (to pass over)."""
    from pdfminer.layout import LTChar, LTTextLine

    found: dict[int, list] = {}
    rows: dict[int, list] = {}  # the page's lines by where they stand, in bands of 4 points
    for box in texts:
        for line in box:
            if isinstance(line, LTTextLine):
                rows.setdefault(int(line.y0 // 4), []).append((line, box))
    for box in sorted(texts, key=lambda b: b.x0):
        lines = [line for line in box if isinstance(line, LTTextLine)]
        chars = [c for c in lines[0] if isinstance(c, LTChar)] if len(lines) == 1 else []
        if not chars or not re.search(r"[^\W_]", lines[0].get_text()) or _LEADER.search(lines[0].get_text()):
            continue  # a contents entry's dots or page number: the contents rules read those pieces
        piece, size = lines[0], _size(chars)
        near = []
        for line, other in (pair for band in (-1, 0, 1) for pair in rows.get(int(piece.y0 // 4) + band, [])):
            if other is box or id(other) in found or not -_TOUCH <= piece.x0 - line.x1 <= STRAY_GAP * size:
                continue
            letters = [c for c in line if isinstance(c, LTChar)]
            if letters and not _LEADER.search(line.get_text()) and _size(letters) == size \
                    and piece.x0 - line.x1 <= _word_space(letters, size) \
                    and min(line.y1, piece.y1) - max(line.y0, piece.y0) >= 0.5 * size:
                near.append(line)
        if near:
            line = max(near, key=lambda line: line.x1)
            found.setdefault(id(line), []).append(piece)
            found[id(box)] = [piece]
    return found


def _categories(texts: list) -> set[int]:
    """texinfo's category of a definition, printed in brackets at the right end of its signature's
    line ("int asn1_parser2tree (const char * file, …   [Function]"): a line saying only
    "[Function]", "[Constant]", "[Context struct]", level with another box's line to its left. As
    in texinfo's HTML, the signature is read without it (nettle's manual: 534 of them, read into
    the signatures' text and as paragraphs "[Constant] [Constant] [Constant]"). By id."""
    from pdfminer.layout import LTTextLine

    lines = [(line, box) for box in texts for line in box if isinstance(line, LTTextLine)]
    labels = [(line, box) for line, box in lines if _CATEGORY.fullmatch(line.get_text().strip())]
    return {id(label) for label, box in labels
            if any(other is not box and line.x1 <= label.x0 + _TOUCH
                   and min(line.y1, label.y1) - max(line.y0, label.y0) >= 0.5 * label.height for line, other in lines)}


#: a definition's category as texinfo prints it: a capitalised word or three in brackets
_CATEGORY = re.compile(r"\[[A-Z][\w-]*(?: [\w-]+){0,2}\]")


def _size(chars: list) -> float:
    return Counter(round(c.size * 2) / 2 for c in chars).most_common(1)[0][0]


def _word_space(chars: list, size: float) -> float:
    """How far apart a line's words stand, at the most (a justified line stretches its spaces
    alike), and a little more: a third of its size where it has one word."""
    gaps = [b.x0 - a.x1 for a, b in zip(chars, chars[1:]) if b.x0 - a.x1 > 0.15 * size]
    return 1.2 * max(gaps) + 0.5 if gaps else size / 3


_LEADER = re.compile(r"(?:\.\s?){4,}|^\W*\.\s*\d+\s*$")
#: a piece of a line stands this share of its size after the line's end at most, however far apart
#: the line's words stand (a column's gutter is wider: LaTeX's is 10 pt at 10 pt type)
STRAY_GAP = 1.0
def _by_rows(lines: list[B]) -> list[B]:
    """A text box's lines, those pdfminer lists one after the other on one baseline put in order
    from the left. pdfminer cuts a justified line at a wide space into two lines of
    its box (bzip2's manual: "For example, compressing a file …" listed before "than a block.", the
    words ending the sentence a page broke, left of it on the page's first line). Lines of one
    baseline that it lists apart (a contents page's numbers, titles and page numbers, column by
    column) keep its order."""
    out: list[B] = []
    run: list[B] = []  # lines listed one after the other, words on one baseline
    for line in [*lines, None]:
        if line is not None and run and abs(run[0].y1 - line.y1) <= _LEVEL and _wordy(line) and _wordy(run[-1]):
            run.append(line)
            continue
        out.extend(sorted(run, key=lambda b: b.x0))
        run = [line] if line is not None else []
    return out


def _wordy(line) -> bool:
    """Whether a line is words: a letter at least, no leader dots (a contents entry's pieces,
    "5.7.1.2", ". . . .", are read by the contents rules as pdfminer lists them)."""
    text = line.get_text()
    return bool(_LETTER.search(text)) and not _LEADER_DOTS.search(text)


_LETTER = re.compile(r"[^\W\d_]")
_LEADER_DOTS = re.compile(r"\.\s*\.")


def _respaced(text: str, chars: list, size: float) -> str:
    """A line pdfminer cut into letters ("r e t u r n p r o d u c t ;", "f o r") read as words
    again. LaTeX's listings set code in a text font with its letters spaced apart, wider than
    pdfminer's word margin (zlib1g-dev's crc-doc: ~1 pt apart at 8 pt, its words 4-7 pt apart).
    Such a line has three single letters or digits in a row standing closer than a word space
    ever shrinks to (LETTER_GAP of the font size; "a b c" in prose stands a space apart); its
    pieces join where one of two is a single character and the gap is under WORD_GAP. A line
    whose characters do not match its text piece for piece (a glyph without a character) stays."""
    words = text.split()
    if len(words) < 3 or sum(map(len, words)) != len(chars):
        return text
    ends = list(itertools.accumulate(len(w) for w in words))
    gaps = [chars[end].x0 - chars[end - 1].x1 for end in ends[:-1]]  # gaps[i]: between words i and i + 1
    single = [len(w) == 1 and w.isalnum() for w in words]
    runs = [list(group) for key, group in itertools.groupby(range(len(words)), key=lambda i: single[i]) if key]
    letters = sorted(gaps[i] for run in runs if len(run) >= 3 for i in run[:-1])
    if not letters or letters[len(letters) // 2] >= LETTER_GAP * size:
        return text
    out = [words[0]]
    for i, word in enumerate(words[1:]):
        if (len(word) == 1 or len(words[i]) == 1) and gaps[i] < WORD_GAP * size:
            out[-1] += word
        else:
            out.append(word)
    return " ".join(out)


#: a letter-spaced line's letters stand closer than this share of the font size (TeX shrinks a word
#: space to 0.22 em at most); under WORD_GAP, two pieces of it one of which is a single character join
LETTER_GAP = 0.2
WORD_GAP = 0.3


#: a combining grave accent with no letter under it, before a word
_LONE_GRAVE = re.compile(r"(?:(?<=\s)|^)\u0300(?=\w)")


def _accented(text: str) -> str:
    """TeX's spacing accents joined to the letter after them, as one character ("Bröker"); a grave
    accent over no letter, opening a word, is TeX's opening quote as dblatex's fonts map it (the
    Debian FAQ's PDF: "the \u0300stable’ distribution", 30 times): "‘stable’"."""
    text = _LONE_GRAVE.sub("\u2018", text)
    if not any(mark in text for mark in _ACCENTS):
        return text

    def join(m: re.Match) -> str:
        letter = "i" if m.group(2) == "\u0131" else m.group(2)  # TeX accents a dotless i: \"\i
        return unicodedata.normalize("NFC", letter + _ACCENTS[m.group(1)])

    return _SPACING_ACCENT.sub(join, text)


def reading_order(boxes: list[B], start: Callable[[B], float] = lambda b: b.x0, depth: int = 0) -> list[B]:
    """A page's text boxes (anything with ``x0``, ``x1``, ``y0``, ``y1``, y growing upwards) in
    reading order, by cutting the page where no box crosses: first into bands from the top down
    (between paragraphs, above and below a table or a figure), then a band into columns from the left
    (two columns of prose, a table's cells), each part cut again. Boxes no gap separates are read
    by their top lines, those level with each other from the left (``start``: where a box's first
    line starts, which a box's ``x0`` may not say: a term's text runs into the box of its
    description). Each cut sorts once, so a page of n boxes costs n log n per level, and cuts go
    ``MAX_CUTS`` deep at most (a page drawn to nest them deeper is read by lines from there)."""
    if len(boxes) <= 1:
        return list(boxes)
    for lo, hi in ((lambda b: -b.y1, lambda b: -b.y0), (lambda b: b.x0, lambda b: b.x1)) if depth < MAX_CUTS else ():
        parts = _apart(boxes, lo, hi)
        if len(parts) > 1:
            return [box for part in parts for box in reading_order(part, start, depth + 1)]
    lines: list[list[B]] = []
    for box in sorted(boxes, key=lambda b: -b.y1):
        if lines and lines[-1][0].y1 - box.y1 <= _LEVEL:
            lines[-1].append(box)
        else:
            lines.append([box])
    return [box for line in lines for box in sorted(line, key=start)]


def _apart(boxes: list[B], lo: Callable[[B], float], hi: Callable[[B], float]) -> list[list[B]]:
    """``boxes`` in the groups that gaps along one axis separate (``lo``/``hi``: a box's extent,
    in reading direction), in reading order; boxes that overlap by a point or less do not join."""
    ordered = sorted(boxes, key=lo)
    parts, reach = [[ordered[0]]], hi(ordered[0])
    for box in ordered[1:]:
        if lo(box) >= reach - _TOUCH:
            parts.append([box])
        else:
            parts[-1].append(box)
        reach = max(reach, hi(box))
    return parts


def _drop_furniture(boxes: list[_Box], bookmarks: Iterable[str] = ()) -> list[_Box]:
    """Running heads, footers and page numbers: the same words (digits aside) on most pages, or
    on the top or bottom line of three pages or more (a chapter's running head), or on a page's
    top or bottom line naming a bookmarked chapter as a running head does ("Chapter 15: Humor and
    GNU" of a one-page chapter), set no larger than the body (a heading at the top of three pages
    stays); dotted table-of-contents lines; prose without a letter or digit."""
    chapters = {_chapter_name(title) for title in bookmarks} - {""}
    pages = len({b.page for b in boxes})
    body = _body_size(boxes)
    key = lambda b: re.sub(r"\d+", "#", b.text.lower())  # noqa: E731
    seen = Counter(key(b) for b in {(b.page, key(b)): b for b in boxes}.values())
    edges = _edges(boxes)
    at_edge = Counter(key(b) for b in {(b.page, key(b)): b for b in edges.values()}.values())
    keep = []
    for b in boxes:
        if re.fullmatch(r"[\divxlc\s\-–|/]*", b.text, re.I) and not (b.mono and len(b.rows) > 1):
            continue
        running = seen[key(b)] > max(2, pages // 2) or (id(b) in edges and (
            at_edge[key(b)] >= 3 or (_RUNNING_HEAD.match(b.text) is not None and _chapter_name(b.text) in chapters)
            or _CUT_HEAD.fullmatch(b.text.strip()) is not None))
        if pages >= 3 and running and b.size <= body * 1.05:
            continue
        if all(_LEADERS.search(line) for line in b.lines if line.strip()) or _contents(b):
            continue
        keep.append(b)
    return keep


#: how a running head names its chapter: "Chapter 15: Humor and GNU", "Appendix B: …", "6.2 Copyright Papers"
_RUNNING_HEAD = re.compile(r"^(?:(?:chapter|appendix|part)\s+[\divxlcA-Z]+\s*[:.]|\d+(?:\.\d+)*\.?\s)\s*\S", re.I)


#: a running head cut short in capitals, as LaTeX's page styles set a section's title over the page
#: ("1.3. OK, NOW I KNOW WHAT DEBIAN IS...", "CHAPTER 7. BASICS OF THE DEBIAN PACKAGE … 7.3. WHY ARE …":
#: the Debian FAQ's PDF, most on one or two pages only): numbered, no small letter, cut short
_CUT_HEAD = re.compile(r"(?:\d+\s+)?(?:(?:CHAPTER|APPENDIX|PART)\s+[\dA-Z]+\.?|\d+(?:\.\d+)*\.?)\s+[^a-z…]+?"
                       r"(?:…|\.\.\.)(?:\s+\S[^a-z…]*?(?:…|\.\.\.))*(?:\s+\d+)?")


def _chapter_name(title: str) -> str:
    """A chapter's title without its numbering, as a bookmark ("15 Humor and GNU") and a running
    head ("Chapter 15: Humor and GNU 63") both give it: letters and digits only."""
    return _squashed(re.sub(r"\s+\d+$", "", _NUMBER.sub("", title.strip())))


def _edges(boxes: list[_Box]) -> dict[int, _Box]:
    """The prose boxes on each page's top line and on its bottom line, by id."""
    top: dict[int, float] = {}
    bottom: dict[int, float] = {}
    for b in boxes:
        top[b.page] = max(top.get(b.page, b.top), b.top)
        bottom[b.page] = min(bottom.get(b.page, b.bottom), b.bottom)
    return {id(b): b for b in boxes if not b.mono and len(b.rows) <= 2 and (
        b.top >= top[b.page] - b.size / 2 or b.bottom <= bottom[b.page] + b.size / 2)}


def _contents(box: _Box) -> bool:
    """Prose that is mostly dot leaders (a table of contents cut into pieces), or no words at all."""
    if box.mono:
        return False
    ink = re.sub(r"\s+", "", box.text)
    dots = sum(len(re.sub(r"\s+", "", m)) for m in _DOTS.findall(box.text))
    return not re.search(r"\w", box.text) or dots >= 0.3 * len(ink)


def _merge(boxes: list[_Box], spelling: Spelling) -> list[_Box]:
    """Join what the layout analysis cut apart: the pieces of a code listing (laid out again
    by their place on the page), and a paragraph whose sentence runs on into the next block,
    on the same page or the next (the next opens in lower case, or this one stops on a word a
    sentence cannot end on)."""
    out: list[_Box] = []
    for b in boxes:
        prev = out[-1] if out else None
        same = prev is not None and b.page - prev.page <= 1 and prev.mono == b.mono and \
            max(prev.size, b.size) <= 1.1 * min(prev.size, b.size)
        if same and prev is not None and b.mono:
            prev.rows.extend(_Row(r.text, r.x, r.top - 10_000 * (b.page - prev.page), r.char_width) for r in b.rows)
            prev.text = f"{prev.text} {b.text}"
        elif same and prev is not None and not re.search(r"[.!?:;]$", prev.text) and (
                b.text[:1].islower() or prev.text.split()[-1].lower() in WANTS_MORE
                and not re.match(r"[•▪◦∗*–-]\s", b.text)):  # a list's first item stays the list's
            out[-1] = _Box(prev.page, prev.rows + b.rows, prev.size, prev.mono, joined(prev.text, b.text, spelling))
        else:
            out.append(b)
    return out


def _listing(box: _Box) -> str:
    """A code box's lines in the order they stand on the page, indented as set: pieces on one
    line (a statement and its side comment) joined at their columns."""
    rows = sorted(box.rows, key=lambda r: (-r.top, r.x))
    width = sorted(r.char_width for r in rows)[len(rows) // 2] or box.size * 0.6
    left = min(r.x for r in rows)
    lines: list[str] = []
    line_top = None
    for r in rows:
        column = max(0, round((r.x - left) / width))
        if line_top is not None and abs(r.top - line_top) < box.size / 2:
            lines[-1] = lines[-1].ljust(column - 1) + " " + r.text.strip()
        else:
            lines.append(" " * column + r.text.strip())
            line_top = r.top
    return "\n".join(line.rstrip() for line in lines)


def _body_size(boxes: list[_Box]) -> float:
    """The type size most of the text is set in."""
    body: Counter[float] = Counter()
    for b in boxes:
        body[b.size] += len(b.text)
    return body.most_common(1)[0][0] if body else 0


def _left(box: _Box) -> float:
    return min(r.x for r in box.rows)


def _definitions(boxes: list[_Box], marks: dict[int, list], body_size: float) -> dict[int, int]:
    """Definition lists (an option, a term, on a line of its own; what it means set indented
    below it, in one block or more): first box index -> the index after the list. Two terms or
    more in a row make a list; a heading is no term and ends one. Their words belong together: read as blocks
    of their own, a term would join the passage before it and its meaning start another."""
    def item_end(i: int) -> int:
        """The index after term ``i``'s indented blocks, or ``i`` when it is not a term."""
        term = boxes[i]
        if i in marks or len(term.rows) != 1 or len(term.text) > MAX_TERM_CHARS or term.size > 1.1 * body_size \
                or sum(ch.isalnum() for ch in term.text) < 2 or term.text.endswith((".", ":", "!", "?")):
            return i  # a heading, a paragraph's last line, an index's letter
        indent = _indent(term)
        j = i + 1
        while j < len(boxes) and j not in marks and boxes[j].page - boxes[j - 1].page <= 1 \
                and _left(boxes[j]) >= indent:
            j += 1
        return j if j > i + 1 else i

    lists: dict[int, int] = {}
    i = 0
    while i < len(boxes):
        start, terms, end = i, 0, item_end(i)
        while end > i:
            terms, i = terms + 1, end
            end = item_end(i) if i < len(boxes) else i
        if terms >= 2:
            lists[start] = i
        i = max(i, start + 1)
    return lists


def _definition_list(boxes: list[_Box]) -> str:
    """Terms at the left, each meaning's blocks indented under its term (one list block)."""
    indent = _indent(boxes[0])
    return "\n".join(("  " if _left(b) >= indent else "") + b.text for b in boxes)


def _indent(term: _Box) -> float:
    """Where a term's meaning starts at the least: two characters right of the term."""
    return _left(term) + 2 * max(term.rows[0].char_width, 1.0)


def _without_contents_pages(boxes: list[_Box], marks: dict[int, list], levels: dict[float, int]) -> set[int]:
    """The boxes of a table of contents in the front matter: from a line "Contents" ("Table of
    Contents") on the first pages, the lines after it (entries whose page numbers stand apart:
    gnuplot's 200, bash's wrapped "Appendix B Major Differences From"; entries run together with
    their leader dots, dblatex's) up to the next heading or sentence of prose. With no such line,
    the entries numbered as sections before the first heading, when there are several."""
    headings = sorted({*marks, *(i for i, b in enumerate(boxes) if b.size in levels and len(b.text) <= MAX_HEADING_CHARS
                                 and not _CONTENTS_TITLE.fullmatch(b.text.strip()))})  # by bookmark or type size
    start = next((i for i, b in enumerate(boxes) if b.page < FRONT_PAGES
                  and _CONTENTS_TITLE.fullmatch(b.text.strip()) and not any(h < i for h in marks)), None)
    if start is None:  # a contents with no title of its own: its entries by their numbers
        first = headings[0] if headings else len(boxes)
        entries = {i for i in range(first) if _ENTRY.match(boxes[i].text.strip())}
        return entries if len(entries) >= MIN_CONTENTS_ENTRIES else set()
    stop = next((h for h in headings if h > start), len(boxes))
    end = start + 1
    while end < stop and (len(re.findall(r"[^\W\d_]{2,}", boxes[end].text)) <= CONTENTS_ENTRY_WORDS
                          and not _SENTENCE.search(boxes[end].text)
                          or _DOTTED.search(boxes[end].text) or _ENTRY.match(boxes[end].text.strip())):
        end += 1  # an entry's words, its leader dots and page numbers none; entries run together
    return set(range(start, end))


def _lay_out(boxes: list[_Box], outline: list[tuple[int, str, int]], doc: Document) -> None:
    body_size = _body_size(boxes)
    levels = _size_levels(boxes, body_size) if not outline else {}
    marks = _place_outline(boxes, outline)
    contents = _without_contents_pages(boxes, marks, levels)
    lists = _definitions(boxes, marks, body_size)
    end = 0
    for i, b in enumerate(boxes):
        if i < end or i in contents:
            continue
        if i in lists:
            for level, title, _ in marks.get(i, []):
                doc.heading(level, title)
            end = lists[i]
            doc.block("list", _definition_list(boxes[i:end]))
            continue
        text = b.text
        for level, title, found in marks.get(i, []):
            doc.heading(level, _as_printed(text, title) if found else title)
            if found:
                text = _after(text, title)
        if not text:
            continue
        if not outline and b.size in levels and len(text) <= MAX_HEADING_CHARS and len(b.lines) <= 3 \
                and (b.bold or b.size >= body_size * 1.15):
            doc.heading(levels[b.size], text)
        elif b.mono:
            doc.block("code", _listing(b))
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
    """Font sizes clearly above the body's, largest first, as heading levels 1-3; and a size a
    little above it that is mostly set in bold (LaTeX's subsections: 12 points bold over 11),
    a box of it a heading only when bold."""
    short = [b for b in boxes if len(b.text) <= MAX_HEADING_CHARS]
    sizes = {b.size for b in short if b.size >= body_size * 1.15}
    for size in {b.size for b in short if body_size * 1.05 <= b.size < body_size * 1.15}:
        at = [b.bold for b in boxes if b.size == size]
        if sum(at) * 2 > len(at):  # most: a title page's author line may share the size
            sizes.add(size)
    return {size: min(n + 1, 3) for n, size in enumerate(sorted(sizes, reverse=True))}


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


def _as_printed(text: str, title: str) -> str:
    """A bookmark's title as the page prints it, when they differ in spaces and punctuation only:
    tig's PDF manual bookmarks "Browsing State and Userdefined Commands" over the heading "…
    User-defined Commands"."""
    unnumbered = _unnumbered(text, title)
    printed = squash(unnumbered[: len(unnumbered) - len(_after(text, title))]).rstrip(" :.-–")
    letters = lambda s: re.sub(r"[\W_]+", "", s)  # noqa: E731
    return printed if printed and letters(printed) == letters(title) else title


def _after(text: str, title: str) -> str:
    """The box's words after its heading (a heading set in the same block as its paragraph). The
    marks printed against the heading's last word are the heading's: fontconfig's PDF bookmarks
    'dir prefix="default" salt=""' over the heading '<dir prefix="default" salt="">', whose '="">'
    had been a paragraph of its own; so is a remainder of marks alone ("/>" after "<reset-dirs")."""
    text = _unnumbered(text, title)
    want, i = len(_squashed(title)), 0
    seen = 0
    while i < len(text) and seen < want:
        seen += bool(re.match(r"[0-9a-z]", text[i].lower()))
        i += 1
    while i < len(text) and not text[i].isspace() and not text[i].isalnum():
        i += 1
    rest = text[i:].lstrip(" :.-–")
    return rest if any(ch.isalnum() for ch in rest) else ""
