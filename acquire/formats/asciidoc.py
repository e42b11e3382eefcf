"""AsciiDoc (``.adoc``, ``.asciidoc``) through asciidoc-py, AsciiDoc's reference implementation:
the document becomes DocBook (the one backend asciidoc-py renders in its safe mode), DocBook
becomes the plain HTML of its structure (sections as h1-h6, paras, lists, listings as ``pre``,
tables, admonitions), and that is read as any HTML page is (``html.py``).

asciidoc-py is an interpreter as much as a parser, so it runs fenced in, in a child process with
a time limit (``asciidoc_run.py``: safe mode, no includes, no filter commands). A document it
cannot convert in time, or refuses (``ifeval``), is read as plain text, with a warning saying so."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from lxml import etree
from lxml import html as lxml_html

from tutorialbook.acquire.formats.document import Document
from tutorialbook.acquire.formats.html import read_html
from tutorialbook.acquire.formats.plain import read_plain

#: the time asciidoc-py is given: this, plus a second per CHARS_A_SECOND characters (it reads
#: ~250,000 characters of a real manual a second here)
SECONDS = 10.0
CHARS_A_SECOND = 50_000
#: DocBook elements that become an HTML element of the same role (the rest are unwrapped)
_AS = {
    "para": "p", "simpara": "p", "formalpara": "div", "programlisting": "pre", "screen": "pre",
    "literallayout": "pre", "synopsis": "pre", "itemizedlist": "ul", "orderedlist": "ol", "simplelist": "ul",
    "member": "li", "variablelist": "dl", "term": "dt", "blockquote": "blockquote",
    "emphasis": "em", "literal": "code", "code": "code", "command": "code", "filename": "code",
    "userinput": "code", "computeroutput": "code", "replaceable": "em", "subscript": "sub",
    "superscript": "sup", "table": "table", "informaltable": "table", "thead": "thead", "tbody": "tbody",
    "tfoot": "tfoot", "row": "tr", "example": "div", "informalexample": "div", "sidebar": "div",
    "figure": "div", "qandaset": "div", "qandaentry": "div", "question": "div", "answer": "div",
    "asciidoc-br": "br",  # a hard line break (" +"), which asciidoc-py writes as <?asciidoc-br?>
}
_SECTIONS = frozenset({"section", "sect1", "sect2", "sect3", "sect4", "sect5", "simplesect", "chapter",
                       "appendix", "preface", "part", "refsect1", "refsect2", "refsect3", "refentry",
                       "glossary", "bibliography", "colophon", "dedication"})
_ADMONITIONS = frozenset({"note", "tip", "warning", "important", "caution"})
#: what shows no text a reader learns from: index terms, images, the document's header fields
_DROPPED = frozenset({"indexterm", "mediaobject", "inlinemediaobject", "anchor", "remark", "colspec",
                      "spanspec", "author", "authorinitials", "revhistory", "date", "corpauthor", "address"})
_DOCTYPE = re.compile(r"<!DOCTYPE[^>\[]*(\[[^\]]*\])?\s*>", re.S)
MAX_DEPTH = 200
#: an inline macro asciidoc-py does not define, left as written: Asciidoctor's UI macros
#: (``kbd:[Ctrl+C]``, ``btn:[Save]``, ``menu:File[Save]``) and a project's own (``man:ls[1]``,
#: ``linkgit:git-add[1]``); its name, target and bracketed text, each bounded (a line of "a:[" a
#: megabyte long is scanned in linear time)
_MACRO = re.compile(
    r"(?<![\w:/.\\])(?P<name>[a-z][a-z0-9_-]{0,30}):(?P<target>[^\s\[\]:]{0,200})\[(?P<text>[^\]\n]{0,200})\]")
#: a section title of Asciidoctor's level 5, one past asciidoc-py's deepest
_DEEP_TITLE = re.compile(r"={6}[ \t]+(\S[^\n]*?)(?:[ \t]+={6})?[ \t]*(?:\n|$)")
#: the macros without a target that show their text: keys and buttons
_LABELS = frozenset({"kbd", "btn"})
#: a macro's text that is a manual page's section ("1", "3p", "8")
_MAN_SECTION = re.compile(r"[1-9][a-z]*")
#: output elements whose text is shown as written (code): macros there are not rendered
_VERBATIM = frozenset({"pre", "code"})


#: a document title "= Title" (or a line underlined by "=" of its length, within 2), a section title
_ONE_LINE_TITLE = re.compile(r"=\s+\S")
_SECTION = re.compile(r"={2,6}\s+\S")
_UNDERLINE = re.compile(r"(=+|-+|~+|\^+|\++)")
#: constructs only AsciiDoc writes: a block's attribute list, an anchor, a block title, a delimiter
_ATTRIBUTES = re.compile(r"\[(?:source|listing|literal|verse|quote|NOTE|TIP|IMPORTANT|WARNING|CAUTION|"
                         r"horizontal|float|discrete|glossary|qanda|(?:options|cols|frame|grid)=)[^\]]*\]")
_ANCHOR = re.compile(r"\[\[[\w:.-]+(?:,[^\]]*)?\]\]")
#: what may stand above the title: attribute entries (":toc: left"), anchors, comments
_PREAMBLE = re.compile(rf":[\w-]+!?:(?:\s.*)?|{_ANCHOR.pattern}|//(?:[^/].*)?")
_BLOCK_TITLE = re.compile(r"\.[A-Za-z][^.]*")
_DELIMITER = re.compile(r"(-{4,}|\.{4,}|={4,}|\*{4,}|_{4,}|\+{4,})")
SNIFF_LINES = 5000


def looks_like_asciidoc(text: str) -> bool:
    """Whether a plain text (``.txt``) is an AsciiDoc source. It opens with a document title and
    writes what only AsciiDoc writes (attribute entries such as ``:toc: left`` may stand above the
    title): block attribute lists (``[source,sh]``, ``[NOTE]``), ``+``
    list continuations, ``[[anchors]]``, block titles (``.Example`` over its block), delimited
    blocks (a line of four or more ``-``, ``.``... after a blank line, closed by the same line
    over more than one line; reStructuredText's overlined titles enclose one), labeled list
    items (``term::`` followed at once by their text). A title ``= Title`` is AsciiDoc's alone,
    and one such construct or section title (``== Section``) confirms it; a title underlined
    with ``=`` is reStructuredText's and plain text's too, so it needs a section title and
    two kinds of construct, or two delimited blocks. A comment block opening the document (a
    licence in ``////``) stands before all that."""
    lines = _without_opening_comment(text.splitlines()[:SNIFF_LINES])
    first = next((n for n, line in enumerate(lines)
                  if line.strip() and not _PREAMBLE.fullmatch(line.rstrip())), None)
    if first is None:
        return False
    head = lines[first].rstrip()
    below = lines[first + 1].rstrip() if first + 1 < len(lines) else ""
    one_line = bool(_ONE_LINE_TITLE.match(head))
    if not (one_line or (set(below) == {"="} and abs(len(below) - len(head)) <= 2)):
        return False
    sections = delimited = 0
    seen: set[str] = set()
    for n in range(first + 2, len(lines)):
        line, before = lines[n].rstrip(), lines[n - 1].rstrip()
        if _SECTION.match(line):
            sections += 1
        elif before and _UNDERLINE.fullmatch(line) and abs(len(line) - len(before)) <= 2 and before[0].isalnum():
            sections += 1
        if _ATTRIBUTES.fullmatch(line):
            seen.add("attributes")
        elif line == "+" and before:
            seen.add("continuation")
        elif _ANCHOR.fullmatch(line):
            seen.add("anchor")
        elif _BLOCK_TITLE.fullmatch(line) and not before and n + 1 < len(lines) and lines[n + 1].strip():
            seen.add("block title")
        elif line.endswith("::") and len(line) > 2 and not line[0].isspace() and n + 1 < len(lines) \
                and lines[n + 1].strip():
            seen.add("labeled")
        elif _DELIMITER.fullmatch(line) and not before:
            close = next((m for m in range(n + 1, min(n + 400, len(lines))) if lines[m].rstrip() == line), None)
            # over more than one line, or a line longer than the delimiter (an overlined title is not)
            if close is not None and (close - n > 2 or close - n == 2 and len(lines[n + 1].rstrip()) > len(line) + 2):
                seen.add("delimited")
                delimited += 1
    if one_line:
        return sections + len(seen) >= 1
    return sections >= 1 and (len(seen) >= 2 or delimited >= 2)


def _without_opening_comment(lines: list[str]) -> list[str]:
    """The lines after a comment block (``////`` … ``////``: a licence) that opens the document."""
    first = next((n for n, line in enumerate(lines) if line.strip()), None)
    if first is None or not re.fullmatch(r"/{4,}", lines[first].rstrip()):
        return lines
    close = next((m for m in range(first + 1, len(lines)) if lines[m].rstrip() == lines[first].rstrip()), None)
    return lines[close + 1:] if close is not None else lines


def read_asciidoc(text: str, name: str) -> Document:
    """The document through asciidoc-py; a paragraph it refuses (one holding an Asciidoctor-only
    ``pass:c[…]``: the whole syntax reference fell back to plain text for it) is left out and the
    rest converted again, up to ``RETRIES`` times, each said in a warning; past that, plain text."""
    left_out: list[str] = []
    source, first_failure = text, None
    try:
        for attempt in range(RETRIES + 1):
            docbook, messages = _docbook(text)
            failed = next((m for m in messages if "FAILED" in m), None)
            first_failure = first_failure or failed  # what a fallback says: the document's own refusal
            line = _FAILED_LINE.search(failed or "")
            if failed and line and attempt < RETRIES:
                lines = text.splitlines()
                number = int(line.group(1))
                if 0 < number <= len(lines) and lines[number - 1].strip():
                    first, last = _block_around(lines, number - 1)  # it names a paragraph's last line
                    left_out.append(f"lines {first + 1}-{last + 1} ({_reason(ValueError(failed))})")
                    lines[first:last + 1] = [""] * (last + 1 - first)
                    text = "\n".join(lines)
                    continue
            if failed or not docbook.strip():
                raise ValueError(first_failure or (messages[-1] if messages else "no output"))
            break
        root = _parse(docbook)
        if root is None:
            raise ValueError("no document")
    except Exception as exc:  # noqa: BLE001 - any failure of the converter: read the words as written
        doc = read_plain(source, name)
        doc.warnings.append(f"{name}: AsciiDoc not converted ({_reason(exc)}); read as plain text")
        return doc
    doc = read_html(html_of(root), name)
    if left_out:
        doc.warnings.append(f"{name}: asciidoc-py refused {', '.join(left_out)}: left out, the rest converted")
    unsafe = [m for m in messages if "unsafe:" in m or "include depth exceeded" in m]
    if unsafe:
        doc.warnings.append(f"{name}: {len(unsafe)} line(s) that include files or run commands were skipped "
                            f"({_reason(ValueError(unsafe[0]))})")
    return doc


#: how many lines asciidoc-py refuses that are left out before the document is read as plain text
RETRIES = 3
_FAILED_LINE = re.compile(r"\bline (\d+):")


def _block_around(lines: list[str], at: int) -> tuple[int, int]:
    """The first and last index of the run of non-blank lines holding line ``at``."""
    first, last = at, at
    while first > 0 and lines[first - 1].strip():
        first -= 1
    while last + 1 < len(lines) and lines[last + 1].strip():
        last += 1
    return first, last


def _docbook(text: str) -> tuple[str, list[str]]:
    """The document as DocBook XML, and asciidoc-py's messages, from a child process
    (``asciidoc_run.py``) given ``SECONDS`` plus one second per ``CHARS_A_SECOND`` characters:
    its regular expressions can take minutes over a few hundred KB of hostile text."""
    limit = SECONDS + len(text) / CHARS_A_SECOND
    try:
        # -P: the current folder is not put on the child's path (a file there could shadow a module)
        done = subprocess.run([sys.executable, "-P", "-m", "tutorialbook.acquire.formats.asciidoc_run"],
                              input=text.encode("utf-8", "replace"), capture_output=True, timeout=limit, check=True)
    except subprocess.TimeoutExpired as exc:
        raise ValueError(f"asciidoc-py took over {limit:.0f} s") from exc
    except subprocess.CalledProcessError as exc:
        lines = exc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ValueError(lines[-1] if lines else f"asciidoc-py exited with {exc.returncode}") from exc
    result = json.loads(done.stdout)
    return result["docbook"], result["messages"]


def _reason(exc: BaseException) -> str:
    return (str(exc) or type(exc).__name__).strip().splitlines()[0][:200]


def _parse(docbook: str):
    """The DocBook's root element. Read as XML when it is well-formed; raw markup a document passes
    through (``<username>`` in a table, a quote in a block's attribute) can break that, and an
    XML parser recovering from it drops what follows, so then libxml2's HTML parser, which keeps
    every element it meets, reads it. Neither loads a DTD, an entity or anything from a network."""
    # a hard line break is a processing instruction, which the parsers drop: an element it stays
    # ("in buffer, window scope +" over "full path of the file" had run together)
    data = _DOCTYPE.sub("", docbook, count=1).replace("<?asciidoc-br?>", "<asciidoc-br/>").encode("utf-8")
    try:
        return etree.fromstring(data, etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                                                      huge_tree=False, remove_comments=True, remove_pis=True))
    except etree.XMLSyntaxError:
        page = lxml_html.document_fromstring(data, parser=lxml_html.HTMLParser(
            remove_comments=True, remove_pis=True, no_network=True, recover=True, encoding="utf-8"))
        article = page.find(".//article")
        return article if article is not None else page.find(".//book")


def html_of(root) -> bytes:
    """DocBook's structure as a plain HTML page: the title as ``<title>`` and h1, each section's
    title one level below its parent's."""
    info = next((c for c in root if isinstance(c.tag, str) and c.tag in ("articleinfo", "bookinfo", "info")), None)
    title = info.findtext("title") if info is not None else None
    title = title if title is not None else root.findtext("title")
    page = etree.Element("html")
    head = etree.SubElement(page, "head")
    body = etree.SubElement(page, "body")
    if title and title.strip():
        etree.SubElement(head, "title").text = title.strip()
        etree.SubElement(body, "h1").text = title.strip()
    for child in root:
        if child is not info and not (isinstance(child.tag, str) and child.tag == "title"):
            _convert(child, body, 1, 0)
    return etree.tostring(page, encoding="utf-8", method="html")


def _convert(node, parent, level: int, depth: int) -> None:
    """Appends the HTML of ``node`` (and its tail) to ``parent``; ``level``: the heading level
    of the section holding it."""
    tail = node.tail
    if not isinstance(node.tag, str) or node.tag in _DROPPED:
        _text(parent, tail)
        return
    if depth > MAX_DEPTH:  # nested past any document: its words, read without recursing
        _text(parent, " ".join(node.itertext()) + (tail or ""))
        return
    tag = node.tag
    if tag in _SECTIONS:
        out = etree.SubElement(parent, "section")
        heading = node.find("title")
        if heading is not None:
            etree.SubElement(out, f"h{min(level + 1, 6)}").text = "".join(heading.itertext())
        _children(node, out, level + 1, depth, skip=heading)
    elif tag in _ADMONITIONS:
        out = etree.SubElement(parent, "div", {"class": f"admonition {tag}"})
        etree.SubElement(out, "p", {"class": "admonition-title"}).text = tag.capitalize()
        _children(node, out, level, depth, skip=node.find("title"))
    elif tag == "listitem":
        out = etree.SubElement(parent, "dd" if node.getparent().tag == "varlistentry" else "li")
        _children(node, out, level, depth)
    elif tag in ("entry", "entrytbl"):
        row = node.getparent()
        head = row is not None and row.getparent() is not None and row.getparent().tag == "thead"
        out = etree.SubElement(parent, "th" if head else "td")
        _children(node, out, level, depth)
    elif tag in ("ulink", "link", "xref", "olink"):
        _link(node, parent, level, depth)
    elif tag in ("para", "simpara") and (deep := _DEEP_TITLE.match(text := (node.text or "").lstrip())):
        _deep_title(deep, text, node, parent, level, depth)
    elif tag == "title":  # a block's title (an example's, a table's): a line of its own
        out = etree.SubElement(parent, "p")
        _children(node, out, level, depth)
    else:
        out = etree.SubElement(parent, _AS[tag]) if tag in _AS else None
        if out is None:  # unwrapped: its text and children go to the parent
            _text(parent, node.text)
            for child in node:
                _convert(child, parent, level, depth + 1)
        else:
            _children(node, out, level, depth)
    _text(parent, tail)


def _link(node, parent, level: int, depth: int) -> None:
    out = etree.SubElement(parent, "a")
    url = node.get("url") or ""
    if url:
        out.set("href", url)
    _children(node, out, level, depth)
    if not "".join(out.itertext()).strip():  # an empty link shows its target
        out.text = url or node.get("linkend") or ""
    elif len(out) == 0 and (out.text or "").endswith("^"):  # Asciidoctor's "[text^]": open in a new window
        out.text = (out.text or "")[:-1]


def _deep_title(deep: re.Match, text: str, node, parent, level: int, depth: int) -> None:
    """Asciidoctor's sixth level ("====== Title", matched as ``deep`` at the start of the paragraph's
    ``text``), which asciidoc-py reads as a paragraph (with the lines under the title, when no
    blank line parts them): a heading, then that paragraph."""
    etree.SubElement(parent, f"h{min(level + 1, 6)}").text = deep.group(1)
    rest = text[deep.end():].lstrip()
    if rest or len(node):
        out = etree.SubElement(parent, "p")
        _text(out, rest)
        for child in node:
            _convert(child, out, level, depth + 1)


def _children(node, out, level: int, depth: int, skip=None) -> None:
    _text(out, node.text)
    for child in node:
        if child is not skip:
            _convert(child, out, level, depth + 1)


def _text(parent, text: str | None) -> None:
    """Appends text to what ``parent`` holds so far (outside code, with the inline macros
    asciidoc-py left as written rendered as a reader sees them)."""
    if not text:
        return
    if "[" in text and not any(el.tag in _VERBATIM for el in (parent, *parent.iterancestors())):
        text = _MACRO.sub(_macro, text)
    if len(parent):
        last = parent[-1]
        last.tail = (last.tail or "") + text
    else:
        parent.text = (parent.text or "") + text


def _macro(m: re.Match) -> str:
    """What an undefined inline macro shows: keys and buttons their label, a menu its path, a
    manual page ``name(section)``, any other its text, or its target when it has none."""
    name, target, text = m.group("name"), m.group("target"), m.group("text").strip()
    if name == "menu":
        return " > ".join(part for part in (target, *(t.strip() for t in text.split(">"))) if part)
    if target and _MAN_SECTION.fullmatch(text):
        return f"{target}({text})"
    if not target and name not in _LABELS:  # "the list:[1, 2]" is prose, not a macro
        return m.group(0)
    return text or target
