"""Plain text as people write it (READMEs, FAQs, manuals dumped to text): blocks separated by
blank lines, with the structure the text shows by layout.

* **Title**: the opening block when it is one to three short lines that are no sentences (a
  title over its release line and underline): its first line.
* **Headings**: a line underlined with ``=``, ``-``, ``~``… (setext), a line opening with ``#``
  marks at the margin, a numbered title ("2.1. People around Debian", "Chapter 3. Basics",
  "II. Structures") followed by its content (not one of a run of numbered one-line steps, and with
  a word in it: "1. Nf3 d5" are moves), a short line in capitals ("INTRODUCTION"), a short
  line standing out to the left of indented prose (a manual page's "Description"; not a shell
  command), a short title-cased line at the margin over a paragraph ("Data Types"; not "See") or
  over what it names indented ("General Options:"), or a short line in sentence case over a
  paragraph at its margin (pandoc's plain text: "Forking the project"; no auxiliary verb).
  A numbered title or a question may sit on the line over its answer, with no blank line
  between (FAQs), when the answer's first word would have fit on its line. Levels go by
  the order styles first appear; a left-standing heading ("Preface") takes the level of the
  first chapter numbers at the same margin; a part stands over a chapter or appendix, and these
  over bare numbers ("Chapter 3. Configuration" over its "1. Location of Files").
* **Terms**: a short line in capitals or title case over its meaning in words, indented deeper
  ("Wiki" over "    An (unofficial) wiki can be found at …") heads that meaning ("Wiki: An …"),
  no section; over an indented table, list or command it is a heading.
* **Code**: a block indented deeper than the text's prose that opens with a shell prompt
  (``$ ``), or is at least two columns deeper and does not read as prose; the pieces of a
  listing that blank lines cut apart are one block again, dedented as a whole. Lines indented
  deeper right under a sentence that ends in a colon ("On most systems, you say:") are a block
  of their own, with no blank line between.
* **Lists**: a block whose lines open with bullets or numbers, its items' lines kept; a block of
  three lines or more that the author ended by hand (each line's next word would have fit on it
  within the block's widest line, so no wrapping moved it down) and no sentence runs across.
* **Tables**: a block drawn as a table with box-drawing or ASCII rules ("┌──┬──┐", "+--+--+"):
  its rows, a cell's wrapped lines joined; a framed box of one column is a paragraph.
* **Paragraphs**: everything else, hard-wrapped lines joined (``wrapping.unwrapped``).

A single-line block naming an admonition ("Note", "Caution") heads the block after it. Rule
lines, a trailing pilcrow (Sphinx's text output), a table of contents (short lines under
"Contents"; a "List of Examples", "List of Figures"…) and a paginated text's running heads (a
line with a page number that recurs on three pages or more) are not text. (nroff's overstruck
letters and a terminal's colour codes are taken out when the file is read: ``sources._read_text``.)"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from dataclasses import dataclass, replace

from tutorialbook.acquire.formats.document import ADMONITIONS, Document, prose_words, squash, table_text
from tutorialbook.acquire.formats.wrapping import WANTS_MORE, Spelling, unwrapped

_RULE = re.compile(r"^\s*([=\-~^*+#_])\1{2,}\s*$")
#: a title set between rules on its line ("----- Frequently Asked Questions -----")
_BETWEEN_RULES = re.compile(r"^\s*([=\-~^*+#_])\1{2,}\s+(?P<title>\S(?:.*\S)?)\s+\1{3,}\s*$")
#: a mail or news posting's header field, as FAQs posted to Usenet open
_HEADER_FIELD = re.compile(r"^[A-Z][A-Za-z]*(?:-[A-Za-z]+)*: \S")
_UNDERLINE = re.compile(r"^\s*([=\-~^*+])\1{2,}\s*$")
_ATX = re.compile(r"^(#{1,6})\s+(\S.*?)\s*#*\s*$")
#: "2.1. Title", "2.1 Title", "Chapter 3. Title", "Appendix A Title", "A.2. Title"; a colon for the
#: dot ("Chapter 1: Introducing zsh", "1.1: Sources of information": zsh's FAQ)
_NUMBERED = re.compile(r"^(?:(?i:chapter|part|appendix|section)\s+(?P<named>\d{1,3}|[A-Z])[.:]?"
                       r"|(?P<number>\d{1,3}(?:\.\d{1,3})*[.:]?|[A-Z](?:\.\d{1,3})*\.|[IVXLC]{1,6}\.))\s+(?P<title>\S.*)$")
#: a chess move as a book writes it ("Nf3", "exd5", "O-O"): a numbered line of moves is no title
_SAN = re.compile(r"(?:[KQRBN]?[a-h]?[1-8]?x?[a-h][1-8](?:=[QRBN])?|O-O(?:-O)?)[+#!?]*")
_BULLET = re.compile(r"^\s*(?:[-*+•o]|\d{1,3}[.)]|\(?[a-z]\)|\[\d+\])\s+\S")
_PROMPT = re.compile(r"^\s*[$%#>] \S")
#: a shell command line ("./configure && make", "$ make", "ls | less"), which stands out to the left
#: of indented prose as a title does
_COMMAND = re.compile(r"&&|\|\||(?:^|\s)\./|[;|]\s|^\$\s")
#: what a table's rules are drawn with (box-drawing or ASCII: "├──┼──┤", "+----+----+", "|====|"),
#: and its column bars
_FRAME_CHARS = frozenset("┌┐└┘├┤┬┴┼╔╗╚╝╠╣╦╩╬╒╕╘╛╞╡╤╧╪─━═│║┃+|=-")
_BARS = "│║┃|"
_SENTENCE_END = re.compile(r"[.:;,!]$")
_NOTICE = re.compile(r"©|\bcopyright\b|\(c\) ?\d{4}", re.I)
#: a line that is a copyright notice ("Copyright (C) 2015-2021 Jonas Bernoulli <jonas@…>"): words, not
#: code, however deep (texinfo's @copying sets it in a quotation, indented five spaces in Info)
_COPYRIGHT_LINE = re.compile(r"^\s*(?:copyright\s*(?:\(c\)|©)?|\(c\)|©)\s*\d{4}", re.I)
#: a contents list's title, or a list of the text's tables, figures, examples… (DocBook's text writes them)
_CONTENTS = re.compile(r"(?:table of )?contents:?|list of (?:tables|figures|examples|listings|illustrations|"
                       r"procedures|equations):?", re.I)
_AUXILIARIES = frozenset("is are was were be been has have had will would can could should must may might do does"
                         .split())
_SMALL_WORDS = frozenset("a an and as at by for from in of on or the to with".split())
#: the width a text is taken to be wrapped at when it has no wrapped paragraphs to tell its own
TERMINAL = 80
#: a single line indented this much deeper than the prose is centred text, not code
CENTRED = 12
MAX_HEADING_WORDS = 12
MAX_HEADING_CHARS = 90
MAX_QUESTION_CHARS = 160
"""A numbered question heads its answer up to this long (an FAQ's questions run past a title's length)."""


@dataclass
class _Block:
    lines: list[str]
    term: bool = False  # a term of a list whose meanings are indented under their terms
    meaning: bool = False  # a term's meaning in words under it (prose however short or deep)

    @property
    def indent(self) -> int:
        return min(_indent(line) for line in self.lines)


def read_plain(text: str, name: str, underlined: bool = False) -> Document:
    """The document of a plain text (see the module's docstring). ``underlined``: a text whose
    every title is underlined (an Info manual's): no other line is taken for one."""
    text = text.replace("\t", "    ")
    blocks = [_Block([line.rstrip().removesuffix("¶").rstrip() for line in part.splitlines() if line.strip()])
              for part in re.split(r"\n\s*\n", text)]
    blocks, listed = _without_contents(_without_running_heads([b for b in blocks if b.lines]))
    width, prose = _wrap_width(blocks), _prose_indent(blocks)
    blocks = _terms_over_blank_lines([item for block in blocks for part in _parts(block, width, prose)
                                      for item in _term_items(part)], underlined)
    spelling = Spelling(b.lines for b in blocks)
    doc = Document(name)
    if blocks and len(blocks[0].lines) >= 2 and all(_HEADER_FIELD.match(line) for line in blocks[0].lines):
        blocks = blocks[1:]  # a posting's header fields ("Archive-Name: editor-faq/sed"): no text, no title
    title = _title_block(blocks[0].lines) if blocks and not underlined else None
    if title:
        doc.title = title  # a text's opening lines standing alone, short: its title
        blocks = blocks[1:]
    events: list[tuple] = []  # ("heading", style, title) | ("block", kind, text) | ("code", lines) | ("label", text)
    # | ("term", text): a definition's term over its meaning
    for i, block in enumerate(blocks):
        lines = block.lines
        following = blocks[i + 1] if i + 1 < len(blocks) else None
        if len(lines) >= 2 and block.indent <= prose and (
                underlined_exactly(lines[1], lines[0]) if underlined else _underlines(lines[1], lines[0])):
            events.append(("heading", ("setext", lines[1].strip()[0]), lines[0]))
            if lines[2:]:
                events.append(_block_event(_Block(lines[2:]), prose, spelling))
            continue
        if block.term:
            events.append(("term", ", ".join(line.strip() for line in lines).removesuffix(".")))
            continue
        # rules between blocks; one inside a listing (gprof's call graph: "-----" between its entries) is the listing's
        lines = [line for line in lines if not (_RULE.match(line) and _indent(line) <= prose)]
        if not any(re.search(r"\w", line) for line in lines):
            continue  # a rule, or a frame of punctuation
        block = replace(block, lines=lines)
        meaning = bool(events) and events[-1][0] == "term"
        shown = i > 0 and _shows(blocks[i - 1].lines[-1], block, width or TERMINAL)
        alone = _listed_heading(lines, listed) or _heading_here(
            _standing_alone(block, prose, following), lines, underlined,
            blocks[i - 1].lines[-1] if events and events[-1][0] == "block" else None)
        events.append(alone or (("code", lines) if shown else _block_event(block, prose, spelling, meaning)))
    events = _without_listed_headings(events)
    levels = _levels([e[1] for e in events if e[0] == "heading"])
    if underlined:  # makeinfo's marks name their depth, whichever comes first
        levels.update({style: MARKS.index(style[1]) + 1 for style in levels if style[0] == "setext"
                       and style[1] in MARKS})
    code: list[str] = []  # a listing's pieces, which blank lines cut into blocks, gathered again
    for event in [*events, ("end",)]:
        if event[0] == "code":
            code += ([""] if code else []) + event[1]
            continue
        if code:
            doc.block("code", _dedent(code))
            code = []
        if event[0] == "heading":
            doc.heading(levels[event[1]], event[2])
        elif event[0] in ("label", "term"):
            doc.label(event[1])
        elif event[0] == "block":
            doc.block(event[1], event[2])
    return doc


def _title_block(lines: list[str]) -> str | None:
    """A text's title: its first line, when the opening block is one to three short lines that are
    no sentences (a title, a release line, an underline), else None."""
    lines = [line for line in lines if not _RULE.match(line)]
    if 1 <= len(lines) <= 3 and all(len(line.strip()) <= MAX_HEADING_CHARS and not _SENTENCE_END.search(line)
                                    for line in lines) and _title_like(lines[0]):
        return squash(_unruled(lines[0]))
    return None


def _unruled(line: str) -> str:
    """A line without the rules a title is set between on it."""
    between = _BETWEEN_RULES.match(line)
    return between["title"] if between else line


def _without_contents(blocks: list[_Block]) -> tuple[list[_Block], dict[str, str]]:
    """Without a table of contents: a block that opens with "Contents" or "Table of Contents" and
    lists short lines, or such a line standing alone and the block of short lines after it, or
    the blocks of numbered entries after it (an FAQ's: "1. GENERAL INFORMATION" / "1.1. …", a
    block an entry's number, up to the body's first repeating one; bulleted sub-entries among them).
    Also the numbered entries listed, number to title: the headings the text says it has."""
    def lines(block: _Block) -> list[str]:
        return [line.strip() for line in block.lines if not _RULE.match(line)]

    def titled(block: _Block) -> bool:
        return bool(lines(block)) and bool(_CONTENTS.fullmatch(lines(block)[0]))

    def listing(texts: list[str]) -> bool:
        return bool(texts) and all(len(text) <= MAX_HEADING_CHARS for text in texts)

    doomed: set[int] = set()
    listed: dict[str, str] = {}
    for i, block in enumerate(blocks):
        if titled(block) and len(lines(block)) == 1:
            doomed.add(i)
            if i + 1 < len(blocks) and len(lines(blocks[i + 1])) >= 2 and listing(lines(blocks[i + 1])):
                doomed.add(i + 1)
            doomed |= _numbered_entries(blocks, i + 1, listed)
        elif titled(block) and listing(lines(block)[1:]):  # "Contents:" over its first entries, and more
            doomed.add(i)                                      # blocks of them (zsh's FAQ: a chapter a block)
            rest = [replace(block, lines=block.lines[1:])] + blocks[i + 1:]
            doomed |= {i + n for n in _numbered_entries(rest, 0, listed)}
    return [block for i, block in enumerate(blocks) if i not in doomed], listed


def _numbered_entries(blocks: list[_Block], start: int, listed: dict[str, str]) -> set[int]:
    """The blocks from ``start`` on that list numbered entries (about half their lines or more, the
    rest a group's label or an entry's wrapped words; or bullets under one), up to the first whose
    number was listed already (the text's first section); their entries put in ``listed``."""
    taken: set[int] = set()
    stop = len(blocks)
    for i in range(start, len(blocks)):
        lines = [line for line in blocks[i].lines if not _SUB_ENTRY.match(line)]
        if not lines and taken:  # "- double/triple-space a file?" under "3.2. … How do I . . . ?"
            taken.add(i)
            continue
        matches = [_NUMBERED.match(squash(line)) for line in lines]
        entries = [e for e in matches if e and e["number"]]
        if taken and lines and all(m and m["named"] for m in matches):  # "Chapter 5: Multibyte input" alone
            taken.add(i)
            continue
        # entries, with a group's label ("   CHANGING STRINGS") or an entry's wrapped words among them
        if not entries or len(lines) - len(entries) > len(entries) + 1 \
                or any(len(line.strip()) > MAX_QUESTION_CHARS for line in lines) \
                or any(e["number"].rstrip(".:") in listed for e in entries):
            stop = i
            break
        listed.update((e["number"].rstrip(".:"), e["title"]) for e in entries)
        taken.add(i)
    if len(listed) < MIN_LISTED:
        return set()
    said = {squash(line).lower() for i in taken for line in blocks[i].lines}
    return taken | _unnumbered_tail(blocks, stop, listed, said)


def _unnumbered_tail(blocks: list[_Block], stop: int, listed: dict[str, str], said: set[str]) -> set[int]:
    """The blocks of short lines that end a contents list unnumbered ("Acknowledgments",
    "Copyright"), when the block after them opens the body on an entry listed: zsh's FAQ was
    titled "Acknowledgments". Anything else between the list and the body (a preface's
    paragraph) leaves them text."""
    def opens_body(block: _Block) -> bool:
        first = squash(block.lines[0]).lower() if block.lines else ""
        numbered = _NUMBERED.match(squash(block.lines[0])) if block.lines else None
        return first in said or bool(numbered and numbered["number"] and numbered["number"].rstrip(".:") in listed)

    def short(block: _Block) -> bool:
        lines = [squash(line) for line in block.lines if line.strip()]
        return 0 < len(lines) <= 3 and all(len(line) <= 60 and not _SENTENCE_END.search(line) for line in lines)

    tail = stop
    while tail < len(blocks) and not opens_body(blocks[tail]) and short(blocks[tail]):
        tail += 1
    return set(range(stop, tail)) if tail < len(blocks) and opens_body(blocks[tail]) else set()


_SUB_ENTRY = re.compile(r"^\s*[-*+•]\s+\S")
#: a contents list of fewer numbered entries than this says nothing of the text's headings
MIN_LISTED = 3


def _listed_heading(lines: list[str], listed: dict[str, str]) -> tuple | None:
    """A heading's event when a block of one or two lines opens with an entry of the text's own
    contents list (its number and first words): the sed FAQ's "5.2. I'm using 'p' to print, but
    I have duplicate lines sometimes." ends as a sentence does and had been read as one."""
    if not listed or len(lines) > 2:
        return None
    text = squash(" ".join(lines))
    numbered = _NUMBERED.match(text)
    if numbered is None or not numbered["number"]:
        return None
    entry = listed.get(numbered["number"].rstrip(".:"))
    if entry is None or entry.lower().split()[:3] != numbered["title"].lower().split()[:3]:
        return None
    return ("heading", ("number", _depth(numbered)), text)


def _without_running_heads(blocks: list[_Block]) -> list[_Block]:
    """Without the page headers and footers of a paginated text (nroff's): a one-line block with
    a page number in it ("USING THE MACROS 2", "- 3 -") whose words recur on three pages or more."""
    def key(block: _Block) -> str:
        line = block.lines[0].strip()
        return re.sub(r"\d+", "#", line.lower()) if len(block.lines) == 1 and re.search(r"\d", line) else ""

    seen = Counter(k for k in map(key, blocks) if k)
    return [b for b in blocks if not (key(b) and seen[key(b)] >= 3 and not _NUMBERED.match(b.lines[0].strip()))]


def _heading(raw: str, outdented: bool, following: _Block | None) -> tuple[tuple, str] | None:
    """The kind of heading a line standing alone is, and its title, if it is one (("label",):
    an admonition's label)."""
    style = _heading_style(raw, outdented, following)
    if style is None:
        return None
    atx = _ATX.match(raw)
    title = (atx.group(2) if style[0] == "atx" and atx else raw.strip(": ") if style == ("label",)
             else raw.rstrip(": ") if style == ("title case",) else raw)
    return style, _unruled(title)


def _heading_style(raw: str, outdented: bool, following: _Block | None) -> tuple | None:
    line = raw.strip()
    atx = _ATX.match(raw)  # at the margin: "    # a comment" is a line of code
    if atx:
        return ("atx", len(atx.group(1)))
    if line.strip(": ").lower() in ADMONITIONS:
        return ("label",)
    if following is None or _NOTICE.search(line):
        return None
    numbered = _NUMBERED.match(line)
    # "3.2. mc" names a command; "1. install it" may be a step
    # (and a title has a word: "1. Nf3 d5" are moves)
    title = numbered["title"] if numbered else ""
    if numbered and _title_like(title) and not _same_numbering(numbered, following) \
            and (title[:1].isupper() or _depth(numbered) > 1) and re.search(r"[^\W\d_]{2,}", title) \
            and not all(_SAN.fullmatch(w) for w in title.split()):
        return ("number", _named_depth(numbered))
    if _capitals(line):
        return ("capitals",)
    if outdented and _title_like(line) and not _COMMAND.search(line):
        return ("outdented",)
    if _title_cased(line) and len(following.lines) >= 2:
        return ("title case",)
    if line.endswith(":") and len(line.split()) >= 2 and _title_cased(line[:-1]) and following.indent > _indent(raw):
        return ("title case",)  # "General Options:" over the options it names, indented
    if (_sentence_cased(line) and len(following.lines) >= 2 and following.lines[0].strip()[:1].isupper()
            and following.indent == _indent(raw)):
        return ("title case",)  # a level with title-cased lines: a writer mixes the two
    return None


#: heading styles told by their words alone (not by numbers, marks or underlines)
_WORDED = frozenset({("capitals",), ("title case",)})


def _title_cased(line: str) -> bool:
    """A short line in title case at the prose's margin ("Types", "Request Format", "Getting
    Started"): every word capitalised but the small ones, no sentence, not a word like "See"."""
    words = line.split()
    return (1 <= len(words) <= 5 and _title_like(line) and words[0][:1].isupper() and len(line) >= 4
            and all(w[:1].isupper() or w.lower() in _SMALL_WORDS for w in words)
            and all(re.fullmatch(r"[^\W\d_][\w'’-]*", w) for w in words))


def _sentence_cased(line: str) -> bool:
    """A short line in sentence case at the prose's margin, over a paragraph that opens a sentence
    ("Forking the project", "Related scripts": pandoc's plain text writes a Markdown heading below
    the first level so): two to seven words, the first capitalised, words only (no figure, symbol
    or sentence end) and no auxiliary verb ("The default values are" opens a sentence)."""
    words = line.split()
    return (2 <= len(words) <= 7 and words[0][:1].isupper() and _title_like(line)
            and all(re.fullmatch(r"[^\W\d_][\w'’-]*", w) for w in words)
            and not any(w.lower() in _AUXILIARIES for w in words))


def _without_listed_headings(events: list[tuple]) -> list[tuple]:
    """A numbered title that comes again later is, the first time, an entry of the text's own
    contents list (sed's FAQ lists "2.2.1. Free versions" over its contents' next lines): the
    later one heads the section."""
    last = {squash(e[2]).lower(): n for n, e in enumerate(events) if e[0] == "heading" and e[1][0] == "number"}
    return [e for n, e in enumerate(events)
            if not (e[0] == "heading" and e[1][0] == "number" and last[squash(e[2]).lower()] != n)]


def _levels(styles: list[tuple]) -> dict[tuple, int]:
    """Heading levels by the order styles first appear, numbers by their depth ("2.2.1." under
    "2.2." under "2." whichever comes first); a heading standing out to the left ("Preface") is
    the level of the first numbers at the same margin ("Chapter 1. Overview")."""
    order = list(dict.fromkeys(styles))
    numbers = [n for n, style in enumerate(order) if style[0] == "number"]
    for n, style in zip(numbers, sorted((order[n] for n in numbers), key=lambda style: style[1])):
        order[n] = style
    first = min((style for style in order if style[0] == "number" and style[1] <= 1), default=None,
                key=lambda style: style[1])
    if ("outdented",) in order and first is not None:
        order.remove(("outdented",))
    levels = {style: n + 1 for n, style in enumerate(order)}
    if ("outdented",) not in levels and ("outdented",) in styles and first is not None:
        levels[("outdented",)] = levels[first]
    return levels


#: the underlines of a text whose every title is underlined (makeinfo's), by depth: chapter, section…
MARKS = "*=-.~^"


def underlined_exactly(line: str, title: str) -> bool:
    """An underline as makeinfo draws it: one of its marks, as long as the title ("I get an error
    about undefined yywrap()." over 42 "="s: a question that reads as no title is one there)."""
    mark = line.strip()[:1]
    # not a table's header over its rule ("Directory variable   Default value"): a title is set with single spaces
    return mark in MARKS and bool(mark) and "  " not in title.strip() and line.strip() == mark * len(line.strip()) \
        and len(line.strip()) == len(title.strip()) and len(title.strip()) >= 2


def _underlines(line: str, title: str) -> bool:
    """Whether ``line`` underlines ``title`` (about as long: "=====" under a heading)."""
    width = len(line.strip())
    return (bool(_UNDERLINE.match(line)) and 0.5 * len(title.strip()) <= width <= 2 * len(title.strip()) + 3
            and _title_like(title) and not _RULE.match(title))


def _block_event(block: _Block, prose: int, spelling: Spelling, meaning: bool = False) -> tuple:
    """A block as a list, code (deeper than the prose and not reading as prose), else a paragraph.
    ``meaning``: the block is a term's meaning, indented under it (words opening with a capital
    read as prose there, a link or no full stop in them)."""
    lines = block.lines
    deeper = block.indent - prose
    if len(lines) == 1 and deeper >= CENTRED:  # a title page's centred line: no code
        deeper = 0
    drawn = _drawn_table(lines)
    if drawn:
        return ("block", *drawn)
    if sum(bool(_BULLET.match(line)) for line in lines) >= max(1, len(lines) // 3) and _BULLET.match(lines[0]):
        return ("block", "list", _dedent(_items_unwrapped(lines)))
    if deeper > 0 and not block.meaning and not all(_COPYRIGHT_LINE.match(line) for line in lines) and (
            _PROMPT.match(lines[0]) or deeper >= 2 and not _reads_as_prose(lines) and not (meaning and _says(lines))):
        return ("code", lines)
    widest = _widest(lines)
    if len(lines) >= 3 and len({_indent(line) for line in lines}) == 1 and all(
            _broken(a, b, widest) and not _continues(a, b) for a, b in zip(lines, lines[1:])):
        return ("block", "list", _dedent(lines))  # one item a line (within the block's own width: the
        # text's width would take prose that an author wrapped early by hand for items)
    return ("block", "paragraph", unwrapped(lines, spelling))


def _drawn_table(lines: list[str]) -> tuple[str, str] | None:
    """A table drawn with box-drawing characters or ASCII ("┌──┬──┐", "+--+--+"): ("table", its
    rows of cells joined by " | ", as the other readers give tables), or ("paragraph", the text)
    of a box of one column (a framed note); None when ``lines`` draw none. A row is the lines
    between two rules where rules part every row, else a line (one whose first cell is empty goes
    on with the row above), each cell's lines joined."""
    if not _frame(lines[0]) or not _frame(lines[-1]):
        return None
    groups: list[list[list[str]]] = [[]]
    for line in (raw.strip() for raw in lines):
        if _frame(line):
            groups.append([])
        elif line[:1] in _BARS and line[-1:] in _BARS:
            groups[-1].append([cell.strip() for cell in re.split(f"[{_BARS}]", line.strip(_BARS))])
        else:
            return None
    groups = [group for group in groups if group]
    if len(groups) <= 2:  # a heading row over one body, no rules between rows: a row a line
        groups = [[cells] for group in groups for cells in group]
        for n in range(len(groups) - 1, 0, -1):
            if not groups[n][0][0] and len(groups[n][0]) > 1:
                groups[n - 1] += groups.pop(n)
    rows = [[squash(" ".join(cells[i] for cells in group if i < len(cells)))
             for i in range(max(len(cells) for cells in group))] for group in groups]
    if all(len(row) == 1 for row in rows):
        return ("paragraph", squash(" ".join(row[0] for row in rows)))
    return ("table", table_text(rows))


def _frame(line: str) -> bool:
    """Whether ``line`` is a table's rule: drawing characters only, a run of three dashes in it."""
    line = line.strip()
    return bool(line) and set(line) <= _FRAME_CHARS and any(run in line for run in ("---", "───", "━━━", "═══", "==="))


def _broken(before: str, line: str, width: int) -> bool:
    """Whether the author ended the line ``before`` by hand: the first word of ``line`` would
    have fit on it within ``width`` (the block's widest line, or wider), so wrapping at that width
    did not move it down (a word cut by a hyphen was wrapped)."""
    before, words = before.rstrip(), line.split()
    return bool(words) and not before.endswith("-") and len(before) + 1 + len(words[0]) <= width


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _widest(lines: list[str]) -> int:
    return max(len(line.rstrip()) for line in lines)


def _numbered_title(line: str, after: list[str]) -> bool:
    """Whether ``line`` is a numbered section's title over ``after`` ("2.1. Building"), not a
    numbered sentence ("A. Yes. The release managers asked me")."""
    numbered = _NUMBERED.match(line.strip())
    found = _heading(line, False, _Block(after)) if numbered else None
    return found is not None and found[0][0] == "number" and numbered is not None \
        and not re.search(r"[.,;:]\s", numbered["title"])


def _shows(before: str, block: _Block, width: int) -> bool:
    """Whether a block is lines of code a sentence introduced, at the text's margin ("Reasonable
    values are:" over "set mail_check=90" / "set timeout=15", which read as one sentence): two
    lines or more ended by hand, short, none a sentence's end, with code's punctuation in them,
    under a line ending in a colon or "For example," (not a list's items, nor a drawn table)."""
    lines = block.lines
    return (len(lines) >= 2 and bool(re.search(r"(?::|\bexample,)$", before.strip()))
            and not _BULLET.match(lines[0]) and not _drawn_table(lines)
            and all(len(line) <= 0.75 * width and not re.search(r"[.!?]$", line) for line in lines)
            and all(_broken(a, b, width) for a, b in zip(lines, lines[1:]))
            and sum(ch in "=;{}()$<>|/_-" for ch in "".join(lines)) >= len(lines))


def _heading_here(alone: tuple | None, lines: list[str], underlined: bool,
                  paragraph_before: str | None) -> tuple | None:
    """A block standing alone as it reads where it stands: no heading in a text titled only by
    underlines; code where a paragraph's sentence is left open for it ("…its first line is" /
    "# Sieve filter"), unless numbered."""
    if alone is None or alone[0] != "heading":
        return alone
    if underlined:
        return None
    if alone[1][0] != "number" and paragraph_before is not None and _leads_in(paragraph_before):
        return ("code", lines)
    return alone


def _leads_in(line: str) -> bool:
    """Whether a paragraph's last line leaves its sentence open for what is shown next: it ends in
    a colon, or in a verb or a small word that wants more ("the first text in an Exim filter file
    must be")."""
    words = line.split()
    return len(words) >= 4 and (line.rstrip().endswith(":") or words[-1] in WANTS_MORE)


def _introduces(line: str) -> bool:
    """Whether a line ending in a colon is a sentence that introduces what follows ("On most
    systems, you say:"), not a term its description hangs under ("gcc-textdomain:")."""
    return sum(bool(re.search(r"[^\W\d_]", word)) for word in line.strip().removeprefix("*").split()) >= 3


def _continues(before: str, line: str) -> bool:
    """Whether ``line`` goes on with a sentence ``before`` left open ("issues," / "you can";
    "and" / "the rest")."""
    words, after = before.split(), line.split()
    return bool(re.match(r"\s*[a-z]", line)) and bool(words) and (
        before.endswith(",") or words[-1].lower() in _SMALL_WORDS or after[0] in _SMALL_WORDS)


def _wrap_width(blocks: list[_Block]) -> int:
    """The width the text's prose is wrapped at: the median of its wrapped paragraphs' widest lines."""
    widths = sorted(max(len(line.rstrip()) for line in b.lines) for b in blocks
                    if len(b.lines) >= 3 and _reads_as_prose(b.lines))
    return widths[len(widths) // 2] if widths else 0


def _parts(block: _Block, width: int, prose: int) -> list[_Block]:
    """A block cut where its lines say a new one starts without a blank line: a question or a
    numbered title on its own line over its answer (FAQs: "1.1. How do you pronounce it?"; the
    answer's first word would have fit after it within the prose's ``width``), and the lines
    indented deeper under a prose line that ends in a colon (a command or its output shown)."""
    lines, cuts, start = block.lines, [], 0
    width = max(width, _widest(lines))
    i = 1
    while i < len(lines):
        before, line = lines[i - 1], lines[i]
        indent = _indent(line)
        step = indent - _indent(before)
        if i == start + 1 and step == 0 and _broken(before, line, width) and not _BULLET.match(line) \
                and not _NUMBERED.match(line.strip()) and not _RULE.match(line) and not line.rstrip().endswith("?") \
                and not underlined_exactly(line, before) \
                and (before.rstrip().endswith("?") and _title_like(before) or _numbered_title(before, lines[i:i + 2])):
            cuts.append(i)
        elif step >= 2 and before.rstrip().endswith(":") and indent - step <= prose and _introduces(before):
            end = next((j for j in range(i, len(lines)) if _indent(lines[j]) < indent), len(lines))
            cuts += [i, end]
            i = end
        start = cuts[-1] if cuts else 0
        i += 1
    bounds = [0, *cuts, len(lines)]
    return [_Block(lines[a:b]) for a, b in zip(bounds, bounds[1:]) if b > a]


def _term_items(block: _Block) -> list[_Block]:
    """A block that is a list of terms each over its meaning indented deeper, with no blank line
    between them (texinfo's tables in Info: "'-print0'" / "'-fprint0'" / "     Always print the
    exact file name…"), cut into each term's lines (one to three short ones at the block's margin)
    and its meaning in words; else the block. The items had run together as one paragraph."""
    lines, margin = block.lines, block.indent
    items: list[_Block] = []
    i = 0
    while i < len(lines):
        terms = list(itertools.takewhile(lambda line: _indent(line) == margin, lines[i:]))
        meaning = list(itertools.takewhile(lambda line: _indent(line) >= margin + 3, lines[i + len(terms):]))
        if not (1 <= len(terms) <= 3 and meaning and _worded(meaning[:2]) and not _wrapped(terms[-1], meaning[0])
                and not _BULLET.match(terms[0]) and not _NUMBERED.match(terms[0].strip())
                and all(len(line.strip()) <= MAX_TERM_CHARS and not _CODE_LINE.search(line) for line in terms)):
            return [block]
        if len(terms) > 1 and terms[0].rstrip().endswith(":"):  # "Examples:" over the first term
            items.append(_Block(terms[:1]))
            terms = terms[1:]
        items += [_Block(terms, term=True), _Block(meaning, meaning=True)]
        i += len(terms) + len(meaning)
    return items


def _terms_over_blank_lines(blocks: list[_Block], info: bool) -> list[_Block]:
    """In an Info manual (``info``; another text's blocks are returned as they are), table items
    set apart by blank lines: a short line at the margin over its meaning indented as makeinfo
    indents a table's (5; its prose is at 0 or 3) (sed's "Reporting Bugs": "'N' command on the
    last line" / "" / "     Most versions of 'sed' exit …"). The term had ended the skill before
    as a step, its meaning opened the next without it. The meaning's later paragraphs, at its
    indent, are its too (one was read as code for its quoted escapes)."""
    if not info:
        return blocks
    out = list(blocks)
    for i, (term, meaning) in enumerate(zip(blocks, blocks[1:])):
        if (not term.term and not term.meaning and not meaning.term and term.indent == 0
                and meaning.indent >= INFO_TABLE_INDENT and 1 <= len(term.lines) <= 3
                and _worded(meaning.lines[:2])
                and not _SENTENCE_END.search(term.lines[-1]) and ": " not in term.lines[-1]
                and not _BULLET.match(term.lines[0])
                and all(len(line.strip()) <= MAX_TERM_CHARS and not _CODE_LINE.search(line) and not _RULE.match(line)
                        for line in term.lines)):
            out[i], out[i + 1] = replace(term, term=True), replace(meaning, meaning=True)
    for i in range(1, len(out)):
        if out[i - 1].meaning and not out[i].term and out[i].indent == out[i - 1].indent >= INFO_TABLE_INDENT \
                and len({_indent(line) for line in out[i].lines}) == 1:  # an example is set deeper
            out[i] = replace(out[i], meaning=True)
    return out


#: how deep makeinfo sets a table item's meaning under its term
INFO_TABLE_INDENT = 5
#: a term over its meaning is at most this long (a line of a paragraph is longer)
MAX_TERM_CHARS = 60
#: a line of code, not a term: continued, a substitution, a pipe or arrow, a block opened, a comment
_CODE_LINE = re.compile(r"\\$|\$\(|->|\|\s|[;{]$|^\s*(?:/\*|\*|//)")


def _wrapped(line: str, below: str) -> bool:
    """Whether ``below`` goes on with the sentence ``line`` holds, set with a hanging indent ("C.
    State on the Title page the name of the publisher of the" / "     Modified Version…")."""
    words = line.split()
    return (line.rstrip().endswith(",") or words[-1] in WANTS_MORE
            or bool(re.match(r"\s*[a-z]", below)) and not re.search(r"[.:!?'’\"”]$", line.rstrip()))


def _worded(lines: list[str]) -> bool:
    """Words, as a meaning is: three or more, two in three of its tokens, no line a statement of
    code (not a listing's lines)."""
    tokens = " ".join(lines).split()
    words = prose_words(tokens)
    return (words >= 3 and words >= 2 / 3 * len(tokens) and not re.match(r"\s*(?:/\*|//|#)", lines[0])
            and not any(re.search(r"[;{}]$", line) for line in lines))


def _reads_as_prose(lines: list[str]) -> bool:
    """Words in sentences, not code: some length, nearly all letters and spaces, a sentence's end."""
    text = " ".join(line.strip() for line in lines)
    plain = sum(ch.isalpha() or ch.isspace() for ch in text)
    return len(text.split()) >= 8 and plain >= 0.85 * len(text) and bool(re.search(r"[.!?:]$", text))


def _says(lines: list[str]) -> bool:
    """Words more than code: four or more, opening with a capitalised word, mostly letters."""
    text = " ".join(line.strip() for line in lines)
    plain = sum(ch.isalpha() or ch.isspace() for ch in text)
    return len(text.split()) >= 4 and bool(re.match(r"[A-Z][a-z]+\s", text)) and plain >= 0.7 * len(text)


def _items_unwrapped(lines: list[str]) -> list[str]:
    """A list's lines, an item's wrapped lines joined to it: a line with no mark of its own no
    deeper than the item's text (libpng's "  a) As a small integer … For the color or" over
    "luminance channels…" at the margin) goes on with it; a deeper one is the item's own content."""
    out: list[str] = []
    text_at = 0  # where the last item's words start
    for line in lines:
        mark = _BULLET.match(line)
        if mark:
            text_at = mark.end() - 1
            out.append(line)
        elif out and _indent(line) <= text_at and line.strip():
            out[-1] = out[-1].rstrip() + " " + line.strip()
        else:
            out.append(line)
    return out


def _dedent(lines: list[str]) -> str:
    """Lines without the indentation they share (blank lines kept)."""
    indent = min((_indent(line) for line in lines if line.strip()), default=0)
    return "\n".join(line[indent:] for line in lines)


def _prose_indent(blocks: list[_Block]) -> int:
    """The indentation most of the text's wrapped paragraphs (blocks of two lines or more that
    read as prose, not code) stand at."""
    counts: Counter[int] = Counter()
    for block in blocks:
        if len(block.lines) >= 2 and not _BULLET.match(block.lines[0]) and _reads_as_prose(block.lines):
            counts[block.indent] += len(block.lines)
    return counts.most_common(1)[0][0] if counts else 0


def _standing_alone(block: _Block, prose: int, following: _Block | None) -> tuple | None:
    """A block that heads what follows: a heading's or a label's event, else None. A line of
    code (deeper than the prose) is no heading."""
    if block.indent > prose:
        return None
    question = _numbered_question(block.lines, following)
    if question is not None:
        return ("heading", *question)
    found = _heading(block.lines[0], block.indent < prose, following) if len(block.lines) == 1 else None
    if found is None:
        return None
    style, title = found
    if style in _WORDED and following is not None and following.indent > max(prose, block.indent) \
            and not title.endswith(":") and title == block.lines[0] and not _RULE.match(following.lines[0]) \
            and not _BULLET.match(following.lines[0]) and (_says(following.lines) or _reads_as_prose(following.lines)):
        # a term over its meaning in words, indented ("Wiki" / "    An (unofficial) wiki can be found
        # at …"): a definition list's, no section (a heading over an indented table or command stays)
        return ("term", title.strip())
    return ("label", title) if style == ("label",) else ("heading", style, title)


def _numbered_question(lines: list[str], following: _Block | None) -> tuple[tuple, str] | None:
    """An FAQ's numbered question, on one line or wrapped over two ("5.8. How can I check that I
    am using a Debian system, and what / version it is?"): longer than a title, but a section's
    number and a question mark make it one (a step is not numbered "5.8.")."""
    if len(lines) > 2 or following is None:
        return None
    text = squash(" ".join(lines))
    numbered = _NUMBERED.match(text)
    if (numbered is None or numbered["named"] or _depth(numbered) < 2 or not re.search(r"\?[!]?$", text)
            or len(text) > MAX_QUESTION_CHARS or _same_numbering(numbered, following)):
        return None
    return ("number", _depth(numbered)), text


def _title_like(text: str) -> bool:
    """Short, and not a sentence or a clause running on."""
    text = text.strip()
    return (0 < len(text) <= MAX_HEADING_CHARS and len(text.split()) <= MAX_HEADING_WORDS
            and not _SENTENCE_END.search(text) and bool(re.search(r"[^\W\d_]", text)))


def _capitals(line: str) -> bool:
    """A short line in capitals: "INTRODUCTION", "OPTIONS AND ARGUMENTS"."""
    letters = [ch for ch in line if ch.isalpha()]
    return (len(letters) >= 4 and sum(ch.isupper() for ch in letters) >= 0.9 * len(letters)
            and "_" not in line and _title_like(line))  # not an identifier: GPG_ERR_MAC_ALGO


def _same_numbering(numbered: re.Match, following: _Block | None) -> bool:
    """Whether the next block is another one-line item numbered at the same depth (numbered steps
    separated by blank lines, "1. Download it" then "2. Unpack it": a list, not sections)."""
    if following is None or len(following.lines) != 1:
        return following is None
    nxt = _NUMBERED.match(following.lines[0].strip())
    return nxt is not None and _depth(nxt) == _depth(numbered) and _arabic(nxt) == _arabic(numbered)


def _arabic(numbered: re.Match) -> bool:
    return bool(numbered["number"]) and numbered["number"][0].isdigit()


def _named_depth(numbered: re.Match) -> int:
    """A numbered title's depth among the text's headings: a part (-1) over a chapter or appendix
    (0) over a bare number ("3. Syntax", 1: mutt's manual numbers each chapter's sections from 1
    under "Chapter 3. Configuration"), then deeper numbers."""
    if numbered["named"]:
        word = numbered.group(0).split(None, 1)[0].lower()
        return -1 if word == "part" else 0 if word in ("chapter", "appendix") else 1
    return _depth(numbered)


def _depth(numbered: re.Match) -> int:
    """How deep a section number goes: "2" 1, "2.1." 2; a named one ("Chapter 2") 1."""
    return 1 if numbered["named"] or not numbered["number"][0].isdigit() and "." not in numbered["number"][:-1] \
        else numbered["number"].rstrip(".:").count(".") + 1
