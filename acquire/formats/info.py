"""GNU Info manuals (makeinfo's ``.info``, what ``/usr/share/info`` holds): the nodes' text, read
as plain text is, without what only the Info reader program uses.

An Info file is text with control bytes: nodes apart by ``\\x1f``, each under a header line
("File: wget.info,  Node: Overview,  Next: Invoking, …"), menus of links to other nodes ("* Menu:"),
the index's cookies (``\\x00\\x08[index\\x00\\x08]``) and a tag table. Under the headers the text is
plain: titles underlined with ``*``, ``=``, ``-`` and ``.`` by depth, examples indented, which
``plain.py`` reads. Here the headers, menus, index nodes, tag table and footnote rules go, a
cross-reference (``*note Startup File::``) reads as "see Startup File", and the rest is the text.
"""

from __future__ import annotations

import re

from tutorialbook.acquire.formats.document import FOOTNOTE_CHARS, Document, squash
from tutorialbook.acquire.formats.plain import MARKS, read_plain, underlined_exactly
from tutorialbook.errors import TutorialbookError

#: what opens an Info file (makeinfo's first line), and a node's header after its separator
_OPENING = re.compile(rb"\AThis is [^\n]{1,200}, produced by [Mm]akeinfo")
_NODE = re.compile(rb"\x1f\r?\n(?:File|Indirect|Tag Table):")
#: the reader program's markers in the text (an index entry's place, an image): no text
_COOKIE = re.compile(rb"\x00\x08\[[^\x00]{0,4000}\x00\x08\]")
_FIRST_LINE = re.compile(r"^ {3}\S")
_MENU_ENTRY = re.compile(r"^\* [^\n]*")
_INDEX_ENTRY = re.compile(r"\(line\s+\d+\)\s*$")
#: "*note Startup File::" and "*note the manual: Startup File." (a label and the node it names)
_NOTE_NODE = re.compile(r"\*([Nn])ote\s+([^:*]+?)::")
_NOTE_LABEL = re.compile(r"\*([Nn])ote\s+([^:*]+?):\s+(?:\([^()\s]*\))?[^.,:*]+?[.,]")
#: a footnote after the rule: its number in brackets, its text up to the next one
_FOOTNOTE = re.compile(r"^\s*\((\d{1,3})\)\s+(.+?)(?=\n\s*\(\d{1,3}\)\s|\Z)", re.M | re.S)
#: a definition's line ("-- Command: acladd USERNAMES", "-- Function: int png_foo (png_structp p)")
_DEFINITION = re.compile(r"^ -- (?P<category>[^:\n]{1,40}): (?P<signature>\S.*)$")
_MEANING = "     "  # a definition's text is indented five spaces under it (a wrapped signature goes on there too)
_CODING = re.compile(rb"\x1f\r?\nLocal Variables:\r?\ncoding:\s*([\w.-]{1,40})")
#: the most parts of a split manual read (makeinfo splits at 300 KB: 100 parts is 30 MB)
MAX_PARTS = 100
#: the Top node's title over its underline of stars; the manual's entry in Info's directory
_TITLE = re.compile(r"\A\s*(\S[^\n]{0,150})\n\*{3,}\s*(?:\n|\Z)")
_TOP = re.compile(r"\bNode:\s*Top\s*(?:,|$)")
_DIR_ENTRY = re.compile(r"^START-INFO-DIR-ENTRY\s*\n(?:\* )?([^:\n]{1,80}):", re.M)


def looks_like_info(data: bytes) -> bool:
    """makeinfo's opening line, then nodes: an Info file whatever it is named."""
    return bool(_OPENING.match(data)) and _NODE.search(data) is not None


def part_names(data: bytes) -> list[str]:
    """The files a split manual's first file names in its Indirect table ("find.info-1"…), which
    hold its nodes; none for a manual in one file."""
    table = re.search(rb"\x1f\r?\nIndirect:\r?\n(.*?)(?:\x1f|\Z)", data, re.S)
    if table is None:
        return []
    names = (line.split(b":")[0].strip().decode("utf-8", "replace") for line in table.group(1).splitlines())
    return [n for n in names if n and "/" not in n and "\\" not in n and n not in (".", "..")][:MAX_PARTS]


def joined(first: bytes, parts: list[bytes]) -> bytes:
    """A split manual as one: its first file (the Top node, the Indirect table, the coding) and
    each part's nodes, less the opening lines every part repeats."""
    return first + b"".join(part[part.find(b"\x1f"):] for part in parts if b"\x1f" in part)


#: makeinfo's marks of @strong ("*Warning*") and @emph ("_not_") around words (not code's stars)
_STRONG = re.compile(r"(?<![\w*/])\*([^\W\d][\w' -]*[^\W\d]|[^\W\d])\*(?![\w*/])")
_EMPHASIS = re.compile(r"(?<![\w/.-])_([^\W\d_][^\W\d_' -]*[^\W\d_]|[^\W\d_])_(?!\w)")


def read_info(data: bytes, name: str) -> Document:
    """The manual's nodes as one plain text (titles, paragraphs, examples as ``plain.py`` reads
    them). A split manual's first file read without its parts (``joined``) holds no text: an
    error names them."""
    text = _decoded(_COOKIE.sub(b"", data), name)
    chunks = text.split("\x1f")
    nodes = [(_TOP.search(_parts(chunk)[0]) is not None, _node_text(chunk)) for chunk in chunks[1:]]
    parts = part_names(data)
    if parts and not any(body.strip() for is_top, body in nodes if not is_top):
        raise TutorialbookError("source", f"{name} is the first file of a split Info manual: its text is in "
                                          f"{', '.join(parts[:5])}{' …' if len(parts) > 5 else ''}, which were "
                                          "not found beside it or not allowed")
    # the Top node's title is the manual's (else the name its entry in Info's directory gives)
    top = next((_TITLE.match(body) for is_top, body in nodes if is_top and body), None)
    bodies = [body[top.end():] if is_top and top else body for is_top, body in nodes]
    bodies = [body for body in bodies if body.strip()]
    if not bodies:
        raise TutorialbookError("source", f"{name} holds no Info node with text (an index at most)")
    doc = read_plain(_with_entries("\n\n".join(bodies)), name, underlined=True)
    entry = _DIR_ENTRY.search(chunks[0])
    doc.title = squash(top.group(1)) if top else entry.group(1).strip() if entry else doc.title
    return doc


def _decoded(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        declared = _CODING.search(data)  # Local Variables, at the end of the first file
        if declared:
            try:
                return data.decode(declared.group(1).decode())
            except (LookupError, UnicodeDecodeError):
                pass
        raise TutorialbookError("source", f"{name} is not UTF-8 text (byte {exc.start})") from exc


def _parts(chunk: str) -> tuple[str, str]:
    """What follows a node separator: its header line and the rest."""
    header, _, body = chunk.lstrip("\r\n").partition("\n")
    return header, body


def _node_text(chunk: str) -> str:
    """A node's text without its header, its menu (from "* Menu:" to the node's end or its
    footnotes) and its footnotes' rule; nothing for what is no node (the tag table, Local
    Variables) or for an index (a menu of "(line N)" entries)."""
    header, body = _parts(chunk)
    if not header.startswith("File:"):
        return ""
    lines: list[str] = []
    menu, entries, indexed = False, 0, 0
    notes_at: int | None = None
    for line in body.splitlines():
        if line.startswith("* Menu:"):
            menu = True
            continue
        if line.strip().startswith("---------- Footnotes ----------"):
            menu = False
            notes_at = len(lines)
            continue
        if menu:  # a menu is the node's last part (the Top node's "Detailed Node Listing" its captions)
            if _MENU_ENTRY.match(line):
                entries += 1
                indexed += bool(_INDEX_ENTRY.search(line))
            continue
        lines.append(line)
    if entries and indexed * 2 > entries:
        return ""  # the index: entries that point at lines of other nodes
    if notes_at is not None:
        lines = _with_footnotes(lines[:notes_at], lines[notes_at:])
    for n, line in enumerate(lines):
        # makeinfo indents a paragraph's first line three spaces: prose, not a line set deeper (an example)
        if _FIRST_LINE.match(line) and (n == 0 or not lines[n - 1].strip()) \
                and (n + 1 == len(lines) or not lines[n + 1].strip() or not lines[n + 1][:1].isspace()):
            lines[n] = line[3:]
    text = "\n".join(lines).strip("\n")
    text = _NOTE_NODE.sub(lambda m: _see(m, text), text)
    text = _NOTE_LABEL.sub(lambda m: _see(m, text), text)
    return _EMPHASIS.sub(r"\1", _STRONG.sub(r"\1", text))  # "*_Never_* try": "Never try"


def _see(note: re.Match, text: str) -> str:
    """A cross-reference as words ("*note Pico Compatibility::": "see Pico Compatibility"), its
    line break kept with the next line's indent: a line made long by a reference joined from two
    had the plain-text reader take the wrapped lines around it for a list, one item a line; a line
    put at the margin, a table item's meaning for no table's. After a word it is the name alone:
    makeinfo writes @ref as "*note" too (older versions "*Note"), the author's own word before it
    ("see *note Foo::", "in *Note Foo::" had read "see see Foo", "in See Foo": 68 times in magit's
    manual, 11 in nettle's)."""
    name = _manual_node(squash(note.group(2)))
    if _AFTER_WORD.search(text, max(0, note.start() - 80), note.start()):
        words = name
    else:
        words = f"{'s' if note.group(1) == 'n' else 'S'}ee {name}"
    broken = re.search(r"\n[ \t]*", note.group(0))
    if not broken:
        return words
    return words.replace(" ", broken.group(), 1) if " " in words else broken.group() + words


#: a word right before a reference (its line's end or a space between): the sentence's own
_AFTER_WORD = re.compile(r"[^\W\d_]\s+\Z")
#: a node of another manual: "(transient)Top", "(web2c)vftovp invocation"
_OTHER_MANUAL = re.compile(r"\(([^()\s]{1,40})\)\s*(.*)", re.S)


def _manual_node(name: str) -> str:
    """A node of another manual as words: "the transient manual", "vftovp invocation in the web2c
    manual" (not "(transient)Top")."""
    other = _OTHER_MANUAL.fullmatch(name)
    if not other:
        return name
    manual, node = other.group(1), other.group(2).strip()
    return f"the {manual} manual" if node in ("", "Top") else f"{node} in the {manual} manual"


def _with_footnotes(text: list[str], notes: list[str]) -> list[str]:
    """A node's lines with each footnote read where the text refers to it, in brackets ("a
    default password (If you have a .netrc file, …)."), not after the text; a footnote nothing
    refers to stays after it."""
    found = {m.group(1): m for m in _FOOTNOTE.finditer("\n".join(notes))}
    body = "\n".join(text)
    left = []
    for number, m in found.items():
        note = squash(m.group(2))
        marks = re.compile(rf"(?<=\S)\({number}\)")
        if len(note) <= FOOTNOTE_CHARS and marks.search(body):
            body = marks.sub(lambda _: f" ({note})", body, count=1)
        else:
            left.append(m.group(0))
    return body.split("\n") + ["", *left] if left else body.split("\n")


def _with_entries(text: str) -> str:
    """The text with each definition (texinfo's @deffn: "-- Command: acladd USERNAMES" lines over
    their meaning, indented) as a section one level below the title before it, titled by the
    name it defines ("acladd"), its signatures opening its text ("acladd USERNAMES; addacl
    USERNAMES: Enable users…"): 114 of screen's skills had been named "-- Command: …", and the
    entries ran together three to six a skill."""
    lines, out, level, n, named = text.split("\n"), [], 0, 0, ""
    while n < len(lines):
        line = lines[n]
        if n + 1 < len(lines) and underlined_exactly(lines[n + 1], line):
            level, named = MARKS.index(lines[n + 1].strip()[0]) + 1, line.split()[-1].lower() if line.split() else ""
            out += [line, lines[n + 1]]
            n += 2
            continue
        if not _DEFINITION.match(line):
            out.append(line)
            n += 1
            continue
        signatures: list[str] = []
        meaning = []
        while n < len(lines) and ((found := _DEFINITION.match(lines[n])) or signatures and _open(signatures[-1])
                                  and lines[n].startswith(_MEANING)):
            if found:
                signatures.append(squash(found["signature"]))
            else:  # a signature makeinfo wrapped, its meaning going on after it on the same line
                end = _closing(signatures[-1], lines[n].strip())
                signatures[-1] += " " + lines[n].strip()[:end]
                if lines[n].strip()[end:].strip():
                    meaning.append(lines[n].strip()[end:].strip())
                    n += 1
                    break
            n += 1
        while n < len(lines) and (not lines[n].strip() or lines[n].startswith(_MEANING)):
            meaning.append(lines[n][len(_MEANING):])
            n += 1
        title = _defined(signatures[0])
        mark = MARKS[min(level, len(MARKS) - 1)]
        # under a title that already names it ("8.4.2 Acladd"), no section of its own
        out += ([""] if title.lower() == named else ["", title, mark * len(title), ""])
        out += ["; ".join(signatures) + ":", *meaning]
        named = ""
    return "\n".join(out)


def _defined(signature: str) -> str:
    """The name a definition's signature defines: the word before its arguments' bracket ("int
    png_foo (png_structp p)": png_foo), else its first word ("acladd USERNAMES")."""
    head = signature.split("(", 1)[0].split()
    if "(" in signature and head:
        return head[-1].lstrip("*&")
    return signature.split()[0]


def _open(signature: str) -> bool:
    """Whether a signature leaves a bracket open: its line was wrapped."""
    return signature.count("(") > signature.count(")") or signature.count("[") > signature.count("]")


def _closing(signature: str, line: str) -> int:
    """Where in ``line`` the brackets ``signature`` left open close (all of it if they do not)."""
    depth = (signature.count("(") - signature.count(")")) + (signature.count("[") - signature.count("]"))
    for n, ch in enumerate(line):
        depth += (ch in "([") - (ch in ")]")
        if depth <= 0:
            return n + 1
    return len(line)
