"""A page's bytes into lxml's tree, for the HTML reader (``html.py``): a static site's front
matter taken off (its title kept), UTF-8 a page does not declare, head text and early end tags
that libxml2 would misplace, and the depth at which libxml2 stops."""

from __future__ import annotations

import json
import re

from lxml import etree
from lxml import html as lxml_html

from tutorialbook.acquire.formats.document import squash
from tutorialbook.errors import TutorialbookError

PARSER_DEPTH = 256
"""libxml2 stops at this depth unless told otherwise (huge_tree): a bound kept on purpose."""


def _front_matter(data: bytes) -> tuple[bytes, str | None]:
    """A static site's source page opens with its metadata: YAML between ``---`` lines (Jekyll,
    Hugo) or a JSON object in a comment (Go's documentation: ``<!--{"Title": "The Go Memory
    Model"}-->``). Its title is the page's when the page has no ``<title>`` (go_mem.html had been
    titled by its first heading, "Introduction"), and the YAML is no text."""
    if match := _YAML_MATTER.match(data):
        found = re.search(rb"^title:[ \t]*(.+?)[ \t]*$", match.group(1), re.M | re.I)
        title = found.group(1).strip(b"\"'") if found else b""
        return data[match.end():], squash(title.decode("utf-8", "replace")) or None
    if match := _JSON_MATTER.match(data):
        try:
            fields = json.loads(match.group(1))
        except ValueError:
            return data, None
        title = next((v for k, v in fields.items() if k.lower() == "title"), None) if isinstance(fields, dict) else None
        return data, squash(title) or None if isinstance(title, str) else None
    return data, None


_YAML_MATTER = re.compile(rb"\A(?:\xef\xbb\xbf)?\s*---[ \t]*\r?\n(.{0,4000}?)\r?\n---[ \t]*\r?\n", re.S)
_JSON_MATTER = re.compile(rb"\A(?:\xef\xbb\xbf)?\s*<!--\s*(\{.{0,4000}?\})\s*-->", re.S)


def _parse(data: bytes, name: str):
    if b"\x00" in data and not data.startswith((b"\xff\xfe", b"\xfe\xff")):  # NULs outside UTF-16
        raise TutorialbookError("source", f"{name} is binary, not HTML")
    parser = lxml_html.HTMLParser(remove_comments=True, remove_pis=True, no_network=True, recover=True,
                                  encoding=_undeclared_utf8(data))
    data = _EARLY_END.sub(b"", data)
    data = _without_head_text(data)
    try:
        root = lxml_html.document_fromstring(data, parser=parser)
    except (etree.ParserError, ValueError) as exc:
        raise TutorialbookError("source", f"{name} is not readable HTML ({exc}); it holds no text") from exc
    if root is None:
        raise TutorialbookError("source", f"{name} is not readable HTML; it holds no text")
    return root, any("Excessive depth" in e.message for e in parser.error_log)


def _without_head_text(data: bytes) -> bytes:
    """The page less text standing bare among its head's elements: a template's placeholder left
    unfilled (Node.js's "__JS_FLAVORED_DYNAMIC_CSS__" after its stylesheets, on every page of its
    API docs), which the parser moves into the body as the page's first words. Reading stops at
    the head's end or at any element the head cannot hold (a page that starts its body unmarked)."""
    end = _HEAD_END.search(data)
    if end is None:
        return data
    pieces = _HEAD_TOKEN.split(data[:end.start()])
    inside = b""  # the raw text element open (title, script, style): its text is its own
    for n, piece in enumerate(pieces):
        tag = _HEAD_TAG.match(piece)
        if n % 2 == 0:
            if not inside and piece.strip():
                pieces[n] = b"\n"
            continue
        if tag is None:  # a comment or a declaration
            continue
        closing, name = tag.group(1), tag.group(2).lower()
        if inside:
            inside = b"" if closing and name == inside else inside
        elif name in _RAW_HEAD:
            inside = b"" if closing or piece.rstrip().endswith(b"/>") else name
        elif name not in _HEAD_TAGS:
            return data
    return b"".join(pieces) + data[end.start():]


#: where a page's head ends: its end tag or its body's start tag
_HEAD_END = re.compile(rb"</head\s*>|<body[\s>]", re.I)
_HEAD_TOKEN = re.compile(rb"(<!--.*?-->|<[^>]*>)", re.S)
_HEAD_TAG = re.compile(rb"<(/?)\s*([a-zA-Z][\w-]*)")
#: the head's elements whose text is their own, and those it may hold
_RAW_HEAD = frozenset({b"title", b"script", b"style", b"noscript", b"template"})
_HEAD_TAGS = _RAW_HEAD | {b"html", b"head", b"meta", b"link", b"base"}

#: the end tags of body and html: groff -Thtml writes "<body></body></html>" and then the whole
#: page, which libxml2 dropped; without them the parser closes both at the end of the file
_EARLY_END = re.compile(rb"</(?:body|html)\s*>", re.I)
_DECLARED = re.compile(rb"<meta[^>]+charset|<\?xml[^>]+encoding", re.I)


def _undeclared_utf8(data: bytes) -> str | None:
    """"utf-8" for a page that declares no charset (no BOM, no meta, no XML declaration) and is
    valid UTF-8: libxml2 would read it as Latin-1 ("runtimeÂ·tlsoffset", "âout of thin airâ");
    else None (the page's declaration, or libxml2's own guess, decides)."""
    if data.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")) or _DECLARED.search(data[:8192]):
        return None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return "utf-8"
