"""Plain text as people write it (READMEs, FAQs, manuals dumped to text): blocks separated by
blank lines, with the structure the text shows by layout.

* **Headings**: a line underlined with ``=``, ``-``, ``~``… (setext), a line opening with ``#``
  marks at the margin, a numbered title ("2.1. People around Debian", "Chapter 3. Basics")
  followed by its content, a short line in capitals ("INTRODUCTION"), or a short line standing
  out to the left of indented prose (a manual page's "Description"). Levels go by the order
  styles first appear.
* **Code**: a block indented deeper than the text's prose, when it is indented at least two
  columns more or opens with a shell prompt (``$ ``); its lines are kept as they stand.
* **Lists**: a block whose lines open with bullets or numbers, its items' lines kept.
* **Paragraphs**: everything else, hard-wrapped lines joined.

A single-line block naming an admonition ("Note", "Caution") heads the block after it. A line
of only rule characters is a separator, not text."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from tutorialbook.acquire.formats.document import ADMONITIONS, Document, squash
from tutorialbook.acquire.formats.wrapping import Spelling, unwrapped

_RULE = re.compile(r"^\s*([=\-~^*+#_])\1{2,}\s*$")
_UNDERLINE = re.compile(r"^\s*([=\-~^*+])\1{2,}\s*$")
_ATX = re.compile(r"^(#{1,6})\s+(\S.*?)\s*#*\s*$")
#: "2.1. Title", "2.1 Title", "Chapter 3. Title", "Appendix A Title", "A.2. Title"
_NUMBERED = re.compile(r"^(?:(?i:chapter|part|appendix|section)\s+(?P<named>\d{1,3}|[A-Z])\.?"
                       r"|(?P<number>\d{1,3}(?:\.\d{1,3})*\.?|[A-Z](?:\.\d{1,3})*\.))\s+(?P<title>\S.*)$")
_BULLET = re.compile(r"^\s*(?:[-*+•o]|\d{1,3}[.)]|\(?[a-z]\)|\[\d+\])\s+\S")
_PROMPT = re.compile(r"^\s*[$%#>] \S")
_SENTENCE_END = re.compile(r"[.:;,!]$")
_NOTICE = re.compile(r"©|\bcopyright\b|\(c\) ?\d{4}", re.I)
#: a single line indented this much deeper than the prose is centred text, not code
CENTRED = 12
MAX_HEADING_WORDS = 12
MAX_HEADING_CHARS = 90


@dataclass
class _Block:
    lines: list[str]

    @property
    def indent(self) -> int:
        return min(len(line) - len(line.lstrip()) for line in self.lines)


def read_plain(text: str, name: str) -> Document:
    """The document of a plain text (see the module's docstring)."""
    text = text.replace("\t", "    ")
    blocks = [_Block([line.rstrip() for line in part.splitlines() if line.strip()])
              for part in re.split(r"\n\s*\n", text)]
    blocks = [b for b in blocks if b.lines]
    prose = _prose_indent(blocks)
    spelling = Spelling(b.lines for b in blocks)
    doc = Document(name)
    if blocks and len(blocks[0].lines) == 1 and _title_like(blocks[0].lines[0]):
        doc.title = squash(blocks[0].lines[0])  # a text's first line standing alone is its title
        blocks = blocks[1:]
    events: list[tuple] = []  # ("heading", style, title) | ("block", kind, text) | ("label", text)
    for i, block in enumerate(blocks):
        lines = block.lines
        following = blocks[i + 1] if i + 1 < len(blocks) else None
        if len(lines) >= 2 and _underlines(lines[1], lines[0]) and block.indent <= prose:
            events.append(("heading", ("setext", lines[1].strip()[0]), lines[0]))
            if lines[2:]:
                events.append(("block", *_kind(_Block(lines[2:]), prose, spelling)))
            continue
        lines = [line for line in lines if not _RULE.match(line)]  # rules between blocks
        if not any(re.search(r"\w", line) for line in lines):
            continue  # a rule, or a frame of punctuation
        block = _Block(lines)
        if len(lines) == 1 and block.indent <= prose:  # (a line of code is no heading)
            style = _heading_style(lines[0], block.indent < prose, following)
            if style == ("label",):
                events.append(("label", lines[0].strip(": ")))
                continue
            if style is not None:
                atx = _ATX.match(lines[0])
                events.append(("heading", style, atx.group(2) if style[0] == "atx" and atx else lines[0]))
                continue
        events.append(("block", *_kind(block, prose, spelling)))
    levels = _levels([e[1] for e in events if e[0] == "heading"])
    for event in events:
        if event[0] == "heading":
            doc.heading(levels[event[1]], event[2])
        elif event[0] == "label":
            doc.label(event[1])
        else:
            doc.block(event[1], event[2])
    return doc


def _heading_style(raw: str, outdented: bool, following: _Block | None) -> tuple | None:
    """What kind of heading a line standing alone is, if it is one (("label",): an admonition's)."""
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
    # (and a title has a word: "1. Nf3 d5" is a move)
    if numbered and _title_like(numbered["title"]) and not _same_numbering(numbered, following) \
            and (numbered["title"][:1].isupper() or _depth(numbered) > 1) \
            and any(re.fullmatch(r"[^\W\d_]{2,}", w) for w in numbered["title"].split()):
        return ("number", _depth(numbered))
    if _capitals(line):
        return ("capitals",)
    if outdented and _title_like(line):
        return ("outdented",)
    return None


def _levels(styles: list[tuple]) -> dict[tuple, int]:
    """Heading levels by the order styles first appear; a heading standing out to the left
    ("Preface") is the level of the first numbers at the same margin ("Chapter 1. Overview")."""
    order = list(dict.fromkeys(styles))
    if ("outdented",) in order and ("number", 1) in order:
        order.remove(("outdented",))
    levels = {style: n + 1 for n, style in enumerate(order)}
    if ("outdented",) not in levels and ("outdented",) in styles:
        levels[("outdented",)] = levels[("number", 1)]
    return levels


def _underlines(line: str, title: str) -> bool:
    """Whether ``line`` underlines ``title`` (about as long: "=====" under a heading)."""
    width = len(line.strip())
    return (bool(_UNDERLINE.match(line)) and 0.5 * len(title.strip()) <= width <= 2 * len(title.strip()) + 3
            and _title_like(title) and not _RULE.match(title))


def _kind(block: _Block, prose: int, spelling: Spelling) -> tuple[str, str]:
    """A block's kind and text: a list, code (deeper than the prose), else a paragraph."""
    lines = block.lines
    deeper = block.indent - prose
    if len(lines) == 1 and deeper >= CENTRED:  # a title page's centred line: no code
        deeper = 0
    if sum(bool(_BULLET.match(line)) for line in lines) >= max(1, len(lines) // 3) and _BULLET.match(lines[0]):
        return ("list", _dedent(lines, block.indent))
    if deeper > 0 and (deeper >= 2 or _PROMPT.match(lines[0])):
        return ("code", _dedent(lines, block.indent))
    return ("paragraph", unwrapped(lines, spelling))


def _dedent(lines: list[str], indent: int) -> str:
    return "\n".join(line[indent:] for line in lines)


def _prose_indent(blocks: list[_Block]) -> int:
    """The indentation most of the text's wrapped paragraphs (blocks of two lines or more) stand at."""
    counts: Counter[int] = Counter()
    for block in blocks:
        if len(block.lines) >= 2 and not _BULLET.match(block.lines[0]):
            counts[block.indent] += len(block.lines)
    return counts.most_common(1)[0][0] if counts else 0


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
    return nxt is not None and _depth(nxt) == _depth(numbered)


def _depth(numbered: re.Match) -> int:
    """How deep a section number goes: "2" 1, "2.1." 2; a named one ("Chapter 2") 1."""
    return 1 if numbered["named"] else numbered["number"].rstrip(".").count(".") + 1
