"""HTML (saved pages, generated documentation) through lxml's libxml2 parser: the main
content without navigation chrome, as headings h1-h6 and one block per paragraph, list,
preformatted code block, table or quote.

Chrome is recognised by what it is, not by site: navigation/page-furniture elements (nav,
header and footer outside the content, aside, forms), ARIA landmark roles, class or id
words that name navigation (nav, menu, sidebar, breadcrumb, skip...; "header" when it holds
no heading; navheader, navfooter, navbar...), "skip to" links,
permalink anchors (a lone ¶), blocks that are mostly links (next/previous panels,
link-only tables of contents and indexes, texi2html's "[ << ] [ >> ] [Top]" bars), counted in
words (brackets and bars are none; a link showing a URL is a reference, not navigation), and a
block saying only the site's name from the ``<title>``. An id that only repeats words of the
element's own heading ("cookies" of "Cookies", "pager-mode" of "1.1. Pager Mode") never makes it
chrome; links that run script, "Expand …"-like widget labels and a page control standing alone
("source", "Edit on GitHub") are controls, not text, and so is a short "Click here for …"
paragraph that only points at its link. Lines a ``<br>`` breaks stay lines when three or more
are short (a program's statements, an address); three or more that are each a link are a
contents list, dropped; longer lines with blank lines among them are a text laid out in lines
(DocBook's literallayout holding a README), read as a plain text is (``plain.py``), its headings
below the page's last one. A ``<br>`` in a ``<pre>`` breaks its line.
A code listing written one element a line (Doxygen's ``div.fragment``) is one code block.
A reference entry (Sphinx's ``dl.py.function``, texinfo's ``dl.def``) is a section one level
down, titled by the name it describes, its signatures as code (``entries``).
An admonition's label (Sphinx's "Note" paragraph, DocBook's "Note" title or icon-and-label
table in a ``div.note``; any heading atop a note or example box, as Apache's "Deprecation
Notice") heads its text ("Note: …"): no block, no section of its own.
The title is the page's own: the h1 when the ``<title>`` holds it, else the part of a "Page —
Site" title that a title element of the page shows or the h1 opens with."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

from lxml import etree
from lxml import html as lxml_html

from tutorialbook.acquire.formats.document import (ADMONITIONS, FOOTNOTE_CHARS, POINTER_WORDS, SEE_ONLY, Document,
                                                   prose_words, spread_rows, squash, table_text)
from tutorialbook.acquire.formats.plain import read_plain
from tutorialbook.errors import NothingToLearn, TutorialbookError

_DROP_TAGS = frozenset({"script", "style", "noscript", "template", "nav", "aside", "form", "button", "input",
                        "select", "textarea", "svg", "iframe", "object", "embed", "canvas", "head", "link",
                        "meta", "dialog", "menu"})
_PAGE_FURNITURE = frozenset({"header", "footer"})
_CHROME_ROLES = frozenset({"navigation", "banner", "contentinfo", "complementary", "search", "menu",
                           "menubar", "toolbar", "dialog", "alert"})
_CHROME_WORDS = frozenset({"nav", "navbar", "navigation", "menu", "sidebar", "sphinxsidebar", "related",
                           "breadcrumb", "breadcrumbs", "skip", "skiplink", "footer", "masthead", "cookie",
                           "cookies", "headerlink", "permalink", "toc", "sidenav", "topbar", "pager",
                           "byline", "docinfo", "tagline", "tooltip"})
# docinfo: docutils' Author / Version / Copyright fields; tagline: a site's slogan (SQLite's "Small. Fast.
# Reliable. Choose any three." atop every page); tooltip: a hover widget (rustdoc's "ⓘ" over an example
# that fails to compile: 536 steps of its error index)
#: ids of AsciiDoc's document header fields (as a class, "email" marks an address in prose: kept), and
#: of a site's banner (Publican's ``div#banner``, "Download the ebook" atop every page of the Debian
#: Administrator's Handbook; a word of a longer id, "Beat.banner", names a thing documented)
_CHROME_IDS = frozenset({"author", "email", "revnumber", "revdate", "revremark", "banner"})
#: what follows "nav" in a compound class word that names page furniture (DocBook's navheader and
#: navfooter: the Prev / Up / Next tables atop and below every page of a generated manual)
_NAV_PARTS = frozenset({"header", "footer", "bar", "links", "panel", "box", "menu", "list", "tabs"})
#: a listing's line numbers (Pygments' gutter, as Sphinx's ``:linenos:`` writes it): no part of the code;
#: Sphinx's "[source]" links beside a signature (viewcode) likewise
_GUTTER = frozenset({"linenos", "lineno", "linenodiv", "viewcode"})
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_INLINE = frozenset({"a", "abbr", "acronym", "b", "bdi", "bdo", "big", "br", "cite", "code", "data", "del", "dfn", "em",
                     "font", "i", "img", "ins", "kbd", "mark", "q", "s", "samp", "small", "span", "strike",
                     "strong", "sub", "sup", "time", "tt", "u", "var", "wbr", "label", "nobr"})
_LISTS = frozenset({"ul", "ol", "dl"})
#: blocks inside a list item whose words stand apart from the next block's ("pattern." "The first")
_ITEM_BLOCKS = frozenset({"p", "div", "pre", "blockquote", "table", "h1", "h2", "h3", "h4", "h5", "h6", "figure"})
_BLOCKY = ("pre", "table", "h1", "h2", "h3", "h4", "h5", "h6")
#: DocBook's title-page headings that credit or subtitle the book (h2.subtitle, h3.author): text, no section
_CREDITS = frozenset({"subtitle", "author", "corpauthor", "editor", "othercredit", "collab"})
MAX_DEPTH = 200
"""Deeper nesting than this (hostile or broken pages) is read as plain text, not walked."""
PARSER_DEPTH = 256
"""libxml2 stops at this depth unless told otherwise (huge_tree): a bound kept on purpose."""
_WORD_SPLIT = re.compile(r"[\s_\-]+")
_URL = re.compile(r"://|^\s*www\.")
#: a line this long or shorter is one of a block's lines when ``<br>`` breaks it into three or more
#: (a program's statements, an address); hard-wrapped prose runs longer
SHORT_LINE = 40
#: lines ``<br>`` breaks, with a blank line among them, that make a text laid out in lines (read as
#: plain text: its paragraphs, underlined headings, indented code)
LAID_OUT_LINES = 4
PROSE_WORDS = 10
"""A paragraph this long that is mostly not links is content, not navigation."""
_ALNUM = re.compile(r"[^\W_]")
_FRAME = re.compile(r"[\s\[\]|()·•]+")
_SEPARATORS = re.compile(r"[\s·•|/\-–—,;:]+")
#: class words of an element that holds a code listing as one element a line (Doxygen's
#: ``div.fragment`` of ``div.line``), not as a ``pre``
_CODE_WORDS = frozenset({"fragment", "listing", "programlisting", "sourcecode", "codeblock"})
#: what separates a page's own title from its site's in a ``<title>``
_TITLE_PARTS = re.compile(r"\s+[-|—–·:]{1,2}\s+|:\s+")
#: what Sphinx writes as the title of a page that has none ("<no title> — cmd2 2.4.1 documentation")
_NO_TITLE = re.compile(r"^<no title>.*$", re.I)
#: a page's title with its manual's name in parentheses after it, as texinfo writes it (the name
#: with its own parenthesis: "Advanced Indexing (GNU Octave (version 7.3.0))")
_MANUAL_SUFFIX = re.compile(r"^(.*?\S)\s+\(((?:[^()]|\([^()]*\)){3,})\)$")
#: the classes texinfo gives a sectioning heading, and the level each stands for: texinfo 7 sets
#: a subsubsection in h4 like a subsection (bash's "3.2.5.1 Looping Constructs" beside "3.2.5")
_TEXINFO_DEPTHS = {"top": 1, "chapter": 2, "unnumbered": 2, "appendix": 2, "section": 3, "unnumberedsec": 3,
                   "appendixsec": 3, "subsection": 4, "unnumberedsubsec": 4, "appendixsubsec": 4,
                   "subsubsection": 5, "unnumberedsubsubsec": 5, "appendixsubsubsec": 5}
_TEXINFO_LEVELS = frozenset(_TEXINFO_DEPTHS)
#: a page forwarding the browser elsewhere with at most this many words says nothing of its own
REDIRECT_WORDS = 40
#: the classes of an admonition's, topic's or sidebar's own title (Sphinx's "admonition-title"
#: "Scoping Behavior", "topic-title"): it heads the box's text, as "Note" does, no block of its own
_BOX_TITLES = frozenset({"admonition-title", "topic-title", "sidebar-title"})
#: boxes of examples set apart in the text (Apache's ``div.example``), whose heading is their label
_EXAMPLES = frozenset({"example"})
#: a heading's section number ("5.2 ", "A.1. ")
_NUMBERED = re.compile(r"^(?:[\dA-Z]+\.)*\d+\.?\s+")


def read_html(data: bytes, name: str) -> Document:
    doc = Document(name)
    doc.title = read_page(doc, data, name)
    return doc


def read_page(doc: Document, data: bytes, name: str, prepare: Callable[[Any], None] | None = None) -> str | None:
    """Read one page's content into ``doc``, after what it holds (an EPUB's chapters go into one
    Document); the page's own title, which ``doc`` does not take. ``prepare``: a change to the
    parsed page before its content is read (an EPUB sets its headings' levels as the book's table
    of contents gives them)."""
    data, matter = _front_matter(data)
    root, cut_short = _parse(data, name)
    _forget_page_classes(root, name)
    if cut_short:
        doc.warnings.append(
            f"{name} nests elements deeper than {PARSER_DEPTH} levels; what follows that point was not read"
        )
    title = matter if matter and root.find(".//title") is None else _title(root)
    if prepare is not None:
        prepare(root)
    content = _content_root(root)
    target = _redirect(root)
    if target and len(content.text_content().split()) <= REDIRECT_WORDS:
        raise NothingToLearn("source", f"{name} only sends the reader on to {target}")
    if _GENERATED.match(name) and _generated(content):
        raise NothingToLearn("source", f"{name} is a page the documentation's generator writes (an index, a "
                                       "search form or a 'not found' page), no text of the manual")
    _strip_chrome(content)
    _drop_other_versions(content, name)
    _inline_footnotes(content)
    _drop_signed_footer(content)
    _classifiers_apart(content)
    _Walker(doc, _site_names(root, title)).container(content, 0)
    return title


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


def _drop_signed_footer(content) -> None:
    """A page that ends on an ``<address>`` (its maker's contact or release line) ends on its footer:
    the address, with what stands after the page's last rule above it. Halibut ends each page of
    PuTTY's manual so: a rule, "If you want to provide feedback on this manual … see the Feedback
    page.", then "[Debian PuTTY release 0.78-2+deb12u2]", which had closed every chapter's last
    passage. A footer longer than a note (FOOTER_WORDS) or holding a heading keeps all but its address."""
    children = [c for c in content if isinstance(c.tag, str)]
    if not children or children[-1].tag != "address":
        return
    rules = [n for n, c in enumerate(children) if c.tag == "hr"]
    footer = children[rules[-1]:] if rules else children[-1:]
    if sum(len(c.text_content().split()) for c in footer) > FOOTER_WORDS or any(
            True for c in footer for _ in c.iter(*_HEADINGS)):
        footer = children[-1:]
    for el in footer:
        el.drop_tree()


#: the most words a page's signed footer says (a feedback note and a release line)
FOOTER_WORDS = 60


def _classifiers_apart(content) -> None:
    """A term's classifier (docutils' ``<dt>encoding<span class="classifier">for lexers</span>``,
    the reStructuredText ``term : classifier``) set after " : ", as the stylesheet shows it: the
    term had run into it ("encodingfor lexers and formatters", pygments' quickstart). docutils'
    older writer spells the colon out in a ``classifier-delimiter`` of its own."""
    for span in content.iter("span"):
        before = span.getprevious()
        if "classifier" in (span.get("class") or "").split() and not (
                before is not None and "classifier-delimiter" in (before.get("class") or "").split()):
            span.text = " : " + (span.text or "")


def _drop_other_versions(content, name: str) -> None:
    """A block above the page's first heading that links to this very page on another site is a
    version banner: celery's pages (python-celery-doc) open on "This document describes the current
    stable version of Celery (5.2). For development docs, go here.", linking to the page of the
    development docs; it had been every page's first skill and summary."""
    page = re.sub(r"\.gz$", "", name.replace("\\", "/").rsplit("/", 1)[-1].lower())  # Debian's changelog.html.gz
    first = next(content.iter(*_HEADINGS), None)
    if not page or first is None:
        return
    above = set(first.itersiblings(preceding=True))
    above.update(e for a in first.iterancestors() for e in a.itersiblings(preceding=True))
    for a in list(content.iter("a")):
        href = (a.get("href") or "").split("#", 1)[0].lower()
        if not re.match(r"https?://", href) or not href.endswith("/" + page):
            continue
        block = a
        while block.getparent() is not None and block.getparent() is not content and block.tag in _INLINE:
            block = block.getparent()
        if block.getparent() is not None and (block in above or any(e in above for e in block.iterancestors())):
            block.drop_tree()


#: the class words of a page's footnotes (docutils' aside/table/dl.footnote, DocBook's div.footnote(s),
#: pandoc's section.footnotes)
_FOOTNOTE_CLASSES = frozenset({"footnote", "footnotes", "footnote-list"})
#: a footnote's own mark before its text ("[2] ", "1", "*"), and pandoc's way back ("↩︎")
_FOOTNOTE_MARK = re.compile(r"^\s*[\[(]?\s*(?:\d{1,3}|[*†‡§¶])\s*[\])]?\.?\s*")
_FOOTNOTE_BACK = re.compile(r"\s*[↩\ufe0e]+\s*$")


def _forget_page_classes(root, name: str) -> None:
    """Drop the class words that only name the page: zzzeeksphinx marks each page's body with its
    path ("tutorial-orm_related_objects"), whose words are no furniture's (SQLAlchemy's page on
    related objects lost its heading as Sphinx's "related" navigation bar). A class that is the
    page's name alone ("related" on ``related.html``) still says what the element is, and so does
    one ending in a name of furniture only ("site-toc" on ``toc.html``)."""
    stem = re.sub(r"(?:\.x?html?)?(?:\.gz)?$", "", name.replace("\\", "/").rsplit("/", 1)[-1].lower())
    if len(stem) < 3 or {w for w in _WORD_SPLIT.split(stem) if w} <= _CHROME_WORDS:
        return
    slug = re.compile(rf"(?<![a-z0-9]){re.escape(stem)}$")
    for el in root.xpath("//*[@class]"):
        tokens = el.get("class").split()
        kept = [t for t in tokens if t.lower() == stem or not slug.search(t.lower())]
        if len(kept) < len(tokens):
            el.set("class", " ".join(kept))


def _footnote_body(el) -> list:
    """The elements a footnote's id names: itself, or with the text that follows its mark (docutils'
    dl.footnote: the id on the term, the text in the dd; texinfo: the id on a link in a heading
    "(1)", the text in the blocks after it, up to the next such heading)."""
    if el.tag == "dt":
        nxt = el.getnext()
        return [el, nxt] if nxt is not None and nxt.tag == "dd" else [el]
    block = el
    while block.tag in _INLINE and block.getparent() is not None:
        block = block.getparent()
    if block is el or block.tag not in _HEADINGS:
        return [block]
    found = [block]
    while (nxt := found[-1].getnext()) is not None and nxt.tag not in _HEADINGS:
        found.append(nxt)
    return found


def _inline_footnotes(content) -> None:
    """A footnote's text goes where the text refers to it, in brackets ("exit statuses (or “stati”
    if you prefer) of processes"), not at the page's end: there it had become a skill of its own
    under the page's last section ("[16] In old Debian releases…"), or steps "[1]" and "or
    “stati”…" beside the text they explain. A footnote nothing refers to, or a long one, stays."""
    boxes = [el for el in content.iter() if isinstance(el.tag, str) and el.tag not in _INLINE
             and _class_words(el) & _FOOTNOTE_CLASSES]  # not the marks (a.footnote-reference, sup.footnote)
    bodies: dict[str, list] = {}
    for box in boxes:
        for el in box.iter():
            if isinstance(el.tag, str) and el.get("id") and el.get("id") not in bodies:
                bodies[el.get("id")] = _footnote_body(el)
    inside = {el for box in boxes for el in box.iter()}  # the elements themselves: lxml's proxies stay alive
    refs = [a for a in content.iter("a") if a not in inside and (a.get("href") or "")[1:] in bodies
            and (a.get("href") or "").startswith("#")]
    done: set[str] = set()
    for a in refs:
        key = a.get("href")[1:]
        text = squash(" ".join(el.text_content() for el in bodies[key]))
        text = _FOOTNOTE_BACK.sub("", _FOOTNOTE_MARK.sub("", text, count=1))
        if not text or len(text) > FOOTNOTE_CHARS or a.getparent() is None:
            continue
        words = a.makeelement("span", {})
        words.text, words.tail = f" ({text})", a.tail
        a.getparent().replace(a, words)
        done.add(key)
    for key in done:
        for el in bodies[key]:
            if el.getparent() is not None:
                el.getparent().remove(el)


#: the pages a documentation generator adds to every build (Sphinx's genindex.html, genindex-A.html,
#: search.html, py-modindex.html; a "not found" 404.html)
_GENERATED = re.compile(r"(?:genindex(?:-\w+)?|search|[\w-]*modindex|404)\.x?html?$", re.I)
GENERATED_WORDS = 300


def _generated(content) -> bool:
    """Whether a page named as a generated one reads as one: short, or mostly links."""
    words = len(content.text_content().split())
    linked = sum(len(a.text_content().split()) for a in content.iter("a"))
    return words <= GENERATED_WORDS or linked >= 0.5 * words


def _redirect(root) -> str:
    """Where a page that forwards the browser (``<meta http-equiv="refresh" content="0; url=…">``:
    texi2any's stubs for every node of a chapter) sends it, else ''."""
    for meta in root.iter("meta"):
        if (meta.get("http-equiv") or "").lower() == "refresh":
            found = re.search(r"url\s*=\s*['\"]?([^'\";]+)", meta.get("content") or "", re.I)
            return found.group(1).strip() if found else "another page"
    return ""


def _site_names(root, title: str | None) -> frozenset[str]:
    """The parts of the ``<title>`` that are not the page's own title ("Doxygen" of "Doxygen:
    Getting started"): a block saying only that is the site's banner."""
    node = root.find(".//title")
    parts = _TITLE_PARTS.split(squash(node.text_content())) if node is not None else []
    own = (title or "").lower()
    # a part that is a word of the title, not a piece of one ("SDL" of "SDL: SDL_audio.h File Reference")
    return frozenset(p.lower() for p in map(squash, parts) if len(parts) >= 2 and p
                     and not re.search(rf"(?<![\w.]){re.escape(p.lower())}(?![\w.])", own))


def fragment_parts(markup: str) -> list[tuple[int, str]]:
    """An HTML fragment as its headings and the words between them, in order: (level 1-6, title)
    for a heading, (0, words) for the rest. A GitHub README opens on ``<h1 align="center">Yargs
    </h1>`` inside raw HTML: read as one paragraph, its title was lost and the README was titled
    by its first Markdown heading ("Description")."""
    try:
        root = lxml_html.fragment_fromstring(markup, create_parent="div")
    except (etree.ParserError, ValueError):
        return []
    parts: list[tuple[int, str]] = []
    words: list[str] = []

    def flush() -> None:
        text = squash("".join(words))
        if text:
            parts.append((0, text))
        words.clear()

    def walk(element) -> None:
        words.append(element.text or "")
        for child in element:
            tag = child.tag if isinstance(child.tag, str) else ""
            if tag in _HEADINGS:
                flush()
                title = squash(child.text_content())
                if title:
                    parts.append((_HEADINGS[tag], title))
            elif child.xpath("boolean(.//h1|.//h2|.//h3|.//h4|.//h5|.//h6)"):
                walk(child)  # a centring div or p around the heading: look inside
            elif tag:
                gap = "" if tag in _INLINE and tag != "br" else " "  # a block's words stand apart
                words.append(gap + child.text_content() + gap)
            words.append(child.tail or "")

    walk(root)
    flush()
    return parts


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
_PAGE_BLOCKS = frozenset({"p", "ul", "ol", "dl", "div", "table", "blockquote"})
_FILE_NAME = re.compile(r"^[\w./-]*\.(?:png|jpe?g|gif|svg|webp|bmp|tiff?)$", re.I)
_UI_LABEL = re.compile(r"^(?:expand|collapse|show|hide|toggle|click)\b", re.I)
#: how a sentence that only points at a link opens
_POINTER = re.compile(r"(?:click (?:here|this link)|(?:go|return|back|jump) to (?:the )?"
                      r"(?:next|previous|top|index|contents|home|start)\b)", re.I)
#: the words a link's label may say when the link only leads on through the pages ("Previous: … |
#: Next: …", "Next Tutorial Section: …"), one of the first set among them
_LEADS_ON = frozenset({"next", "previous", "prev", "up"})
_LEAD_LABEL = _LEADS_ON | {"back", "the", "tutorial", "section", "chapter", "page", "topic", "part", "step", "lesson",
                           "contents", "index", "home", "top"}  # Halibut's "Previous | Contents | Index | Next"
#: a link that is a control of the page's own ("source" beside rustdoc's item, Sphinx's "View page
#: source", "Edit on GitHub"), whole
_PAGE_CONTROL = re.compile(r"\[?(?:src|source|(?:view|show) (?:page )?source|page source|"
                           r"(?:go|jump) to (?:the )?source(?: code)?(?: of this \w+)?\.?|"  # Doxygen's
                           r"edit(?: (?:on \w+|this page))?|run)\]?", re.I)
#: a link on to the rest of what a summary began ("More...", "Read more …", "more »")
_READ_MORE = re.compile(r"\(?(?:read )?more\s*(?:\.\.\.|…|»|›)\)?", re.I)
#: the class words of a link set as a button (Bootstrap's ``a.btn``): a control, as ``<button>`` is
_BUTTON_WORDS = frozenset({"btn", "button"})
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


def _title(root) -> str | None:
    title = root.find(".//title")
    title_text = squash(title.text_content()) if title is not None else ""
    title_text = _NO_TITLE.sub("", title_text)  # Sphinx's placeholder for a page without one: none
    h1 = _page_h1(root)
    h1_text = squash(_visible_text(h1)) if h1 is not None else ""
    if h1_text and (not title_text or h1_text.lower() in title_text.lower()):
        return h1_text  # the page's own words, without a " — Site name" suffix
    parts = [p for p in (squash(p) for p in _TITLE_PARTS.split(title_text)) if len(p) >= 3]
    if len(parts) < 2 and (manual := _MANUAL_SUFFIX.match(title_text)):
        parts = [manual.group(1), manual.group(2)]  # texinfo's "Arguments (GNU M4 1.4.19 macro processor)"
        heading = next(iter(root.iter("h1", "h2", "h3", "h4")), None)  # texinfo sets a page's title as h2-h4
        shown = squash(_visible_text(heading)) if heading is not None else ""
        classes = set((heading.get("class") or "").split()) if heading is not None else set()
        if shown and (classes & _TEXINFO_LEVELS or _NUMBERED.sub("", shown).lower().startswith(parts[0].lower())):
            return shown  # "5.1 Defining a macro" of the node "Define": the heading the page opens with
    if len(parts) >= 2:  # "Getting Started - MkDocs", "Doxygen: Getting started": which part is the page's?
        heading = next((h for h in root.iter("h2", "h3", "h4") if not _in_chrome(h)), None)
        shown = squash(_visible_text(heading)).lower() if heading is not None else ""
        mine = [p for p in parts if p.lower() == shown]  # mdBook heads a page with h2: "Installation - The Rust…"
        if len(mine) == 1:
            return mine[0]
        named = {squash(e.text_content()).lower() for e in root.xpath("//*[contains(@class, 'title')]")}
        mine = [p for p in parts if p.lower() in named]  # the part a title element of the page shows
        if len(mine) == 1:
            return mine[0]
        if h1_text and any(h1_text.lower().startswith(p.lower()) for p in parts):  # the heading says it longer
            return h1_text
        if h1_text and re.search(rf"(?<![\w.:]){re.escape(parts[0])}(?![\w.:])", h1_text, re.I):
            return h1_text  # it names the page's kind too: javadoc's "Class BitField" of "BitField (… API)"
    og_title = root.xpath("string(//meta[@property='og:title']/@content)")  # a page's title for sharing, no suffix
    return squash(og_title) or title_text or h1_text or None


def _page_h1(root):
    """The page's first h1 that is not the site's: none in page furniture (mdBook's menu bar
    "The Rust Programming Language") nor one that is only a link to another page (Django's
    "Django 3.2.25 documentation" heading every page); else the first not in furniture."""
    h1s = list(root.iter("h1"))
    for h1 in h1s:
        links = [a for a in h1.iter("a") if not a.get("href", "#").startswith("#")]
        site = bool(links) and squash(h1.text_content()) == squash(" ".join(a.text_content() for a in links))
        if not site and not _in_chrome(h1):
            return h1
    return next((h1 for h1 in h1s if not _in_chrome(h1)), None)


def _in_chrome(el) -> bool:
    """Whether an element or one around it is page furniture (``_is_chrome``; the page itself
    never is: mdBook's ``<html class="sidebar-visible">`` says the sidebar is open; nor is an element
    holding the page's main content: the Read the Docs theme wraps it in ``section.wy-nav-content-wrap``,
    and its pages had been titled "Installation — Cryptography 38.0.4 documentation")."""
    return any(_is_chrome(e, None) and not e.xpath("boolean(.//main|.//*[@role='main'])")
               for e in (el, *el.iterancestors()) if isinstance(e.tag, str) and e.tag not in ("html", "body"))


def _visible_text(el) -> str:
    clone = lxml_html.fromstring(etree.tostring(el))
    _strip_chrome(clone)
    return clone.text_content()


def _content_root(root):
    for path in ("//main", "//*[@role='main']", "//article"):
        found = root.xpath(path)
        if len(found) == 1 or (found and path != "//article"):
            return found[0]
    body = root.find("body")
    return body if body is not None else root


def _strip_chrome(content) -> None:
    doomed = []
    for el in content.iter():
        if not isinstance(el.tag, str):
            doomed.append(el)
        elif el is not content and _is_chrome(el, content):
            doomed.append(el)
    for el in doomed:
        if el.getparent() is not None:
            _empty_brackets(el)
            el.drop_tree()  # keeps the tail text


def _empty_brackets(el) -> None:
    """The brackets around an element that goes, left with nothing between them: sqlite's
    "(<a>More...</a>)" had left "()" at its paragraph's end."""
    prev, parent, tail = el.getprevious(), el.getparent(), el.tail or ""
    before = (prev.tail if prev is not None else parent.text) or ""
    pair = before.rstrip()[-1:] + tail.lstrip()[:1]
    if pair in ("()", "[]"):
        before, el.tail = before.rstrip()[:-1], tail.lstrip()[1:]
        if prev is not None:
            prev.tail = before
        else:
            parent.text = before


def _class_words(el) -> set[str]:
    """The words of an element's class attribute ("navheader", "admonition", "note", …)."""
    return {w for w in _WORD_SPLIT.split(el.get("class", "").lower()) if w}


def _is_chrome(el, content) -> bool:
    tag = el.tag.lower()
    if _is_box(el):
        return False
    if tag in _DROP_TAGS or _class_words(el) & _GUTTER or tag == "td" and _line_numbers(el):
        return True
    if "indexdiv" in _class_words(el):  # DocBook's back-of-book index: terms and the pages they are on
        return True
    if tag in _PAGE_FURNITURE and not any(a.tag in ("article", "main", "section") for a in el.iterancestors()):
        return True
    if el.get("role", "").lower() in _CHROME_ROLES or el.get("aria-hidden") == "true" or el.get("hidden") is not None:
        return True
    if "display:none" in el.get("style", "").replace(" ", "").lower() or _hidden_toggle(el):
        return True
    if tag == "a" and _control_link(el):
        return True
    if tag == "a" and _in_heading(el):  # the heading's own words (mdBook's <a class="header">)
        return False
    chrome, words = _chrome_words(el)
    if chrome:
        return True
    if words & {"header", "topnav", "banner"} and not any(True for _ in el.iter(*_HEADINGS)):
        return True  # a page header or a site's banner (lxml's "Your donation helps!"), not a title block
    if tag == "summary":  # a disclosure widget's own label ("Expand description"), not its content's title
        return bool(_UI_LABEL.match(squash(el.text_content())))
    return False


def _hidden_toggle(el) -> bool:
    """A control that shows what the page hides: a block run by a click whose next block with
    anything in it is hidden (Doxygen's "+ Include dependency graph for SDL_audio.h:" over its
    graph, shown by script), its label no text once the hidden block is gone."""
    if el.get("onclick") is None or el.tag in _INLINE:
        return False
    for after in el.itersiblings():
        if not isinstance(after.tag, str):
            continue
        if squash(after.text_content()) or after.find(".//img") is not None:
            return "display:none" in after.get("style", "").replace(" ", "").lower() or after.get("hidden") is not None
    return False


def _line_numbers(cell) -> bool:
    """A table cell of counted lines beside a listing's cell (gtk-doc's td.listing_lines: "1 2 3 …"
    had been code, one skill nothing but the numbers 1 to 64)."""
    nxt = cell.getnext()
    if nxt is None or nxt.tag != "td" or nxt.find(".//pre") is None:
        return False
    numbers = cell.text_content().split()
    return bool(numbers) and all(n.isdigit() for n in numbers) and \
        [int(n) for n in numbers] == list(range(int(numbers[0]), int(numbers[0]) + len(numbers)))


def _is_box(el) -> bool:
    """Content set apart in the text, not the page's furniture: a footnote (docutils writes
    ``<aside class="footnote">``: Sphinx's footnotes were all lost), or a sidebar with a title of
    its own (DocBook's ``div.sidebar`` "TIP Incremental updates", Sphinx's sidebar directive)."""
    classes = set((el.get("class") or "").lower().split())
    if classes & {"footnote", "footnotes", "footnote-list", "citation", "citation-list"}:
        return True
    return "sidebar" in classes and any(
        True for t in el.iter() if isinstance(t.tag, str) and set((t.get("class") or "").split()) & {
            "sidebar-title", "title"})


def _control_link(a) -> bool:
    """A link that works the page rather than says something: a permalink mark, DocBook's "[D]"
    (an image's long description), "Skip to …", a page control standing alone ("source", "Edit
    on GitHub", rustdoc's "Run" under an example), a link set as a button (pandas' "To raw data"),
    a link that runs script ("[−]"), a "More..." after a summary (Doxygen's, to the details below),
    unless that one is words of a sentence
    (Erlang's manuals link every function so: "If a process calls link(Other_Pid) it …")."""
    text = squash(a.text_content())
    return (text in ("¶", "#", "§", "🔗", "[D]") or text.lower().startswith("skip to")
            or bool(_READ_MORE.fullmatch(text))
            or bool(_PAGE_CONTROL.fullmatch(text) or _class_words(a) & _BUTTON_WORDS) and _stands_alone(a, text)
            or a.get("href", "").strip().lower().startswith("javascript:")
            and (not _ALNUM.search(text) or _stands_alone(a, text))
            or text.isdigit() and _numbers_its_block(a))


def _numbers_its_block(a) -> bool:
    """A number linking to the block it stands beside or in: that block's number in the margin
    (SiSU's "object citation numbers", ``<label><a href="#o5">5</a></label><p id="o5">``, before
    every paragraph and heading of the Live Systems Manual), a permalink, no word of it."""
    target = a.get("href", "").strip()
    if not target.startswith("#") or len(target) < 2:
        return False
    for el in (a, *a.iterancestors()):
        if not isinstance(el.tag, str) or el.tag in ("body", "html"):
            return False
        beside = el.getnext()
        if el.get("id") == target[1:] or beside is not None and beside.get("id") == target[1:]:
            return True
    return False


def _in_heading(el) -> bool:
    """Whether an element stands inside a heading (mdBook's ``<h2><a class="header">``: the
    heading's own words, whatever its class says)."""
    return any(a.tag in _HEADINGS for a in el.iterancestors() if isinstance(a.tag, str))


def _chrome_words(el) -> tuple[bool, set[str]]:
    """Whether an element's class or id words name page furniture, and those words."""
    words = _class_words(el)
    id_words = [w for w in _WORD_SPLIT.split(el.get("id", "").lower()) if w]
    # "site-nav" is chrome; "Related-software-and-documentation" is a section, and so is a heading
    # or section whose id is a slug of its title ("pager-mode" of "1.1. Pager Mode", "cookies")
    slug = _slug_of_title(el, id_words)
    if len(id_words) <= 2 and not slug:
        words.update(id_words)
    if el.get("id", "").lower() in _CHROME_IDS and not slug:  # zsh's section id="Author" is "2.1 Author"
        return True, words
    return bool(words & _CHROME_WORDS) or any(
        w.startswith("nav") and w[3:] in _NAV_PARTS or len(w) > 3 and w.endswith("nav")  # "docnav": a Prev/Next bar
        # lxml's "sidemenu", "submenu"; not DocBook's "guimenu" (a program's menu named in the text)
        or len(w) > 4 and w.endswith("menu") and not w.startswith("gui")
        for w in words), words


def _stands_alone(el, text: str) -> bool:
    """Whether a link is all the words of the block it stands in (not one word of a sentence), the
    blocks beside it apart (rustdoc's "Run" after the ``pre`` it runs, in one ``div``)."""
    parent = el.getparent()
    while parent is not None and parent.tag in _INLINE and parent.getparent() is not None:
        parent = parent.getparent()  # javadoc's span.element-name around a method's name ("run")
    if parent is None:
        return True
    said = (parent.text or "") + "".join(
        (child.text_content() if isinstance(child.tag, str) and child.tag in _INLINE else "") + (child.tail or "")
        for child in parent)
    return not _ALNUM.search(squash(said).replace(text, "", 1))


def _slug_of_title(el, id_words: list[str]) -> bool:
    """Whether an element's id only repeats words of its heading (itself, or the first it holds);
    a heading's own id may shorten them (tig's manual: "4.4. Cursor Navigation" is ``cursor-nav``,
    and was dropped as a navigation bar)."""
    heading = next(el.iter(*_HEADINGS), None)
    if heading is None or not id_words:
        return False
    said = set(re.findall(r"\w+", heading.text_content().lower()))
    return all(w in said or heading is el and len(w) >= 3 and any(s.startswith(w) for s in said) for w in id_words)


def _mostly_links(el) -> bool:
    """Next/previous panels, link-only tables of contents and indexes."""
    listing = el.tag in _LISTS or el.tag == "table"
    places = {name for x in el.iter() if isinstance(x.tag, str) for name in (x.get("id"), x.get("name")) if name}
    # an anchor naming a place is no link, nor a link to a place inside the block itself (Scribble links a
    # definition's name to its own anchor: "(promise? v) → boolean?" had gone as navigation)
    links = [a for a in el.iter("a") if a.get("href") is not None
             and not (a.get("href", "").startswith("#") and unquote(a.get("href", "")[1:]) in places)]
    if len(links) < (1 if listing else 2) or any(True for _ in el.iter(*_HEADINGS)):  # a section is never navigation
        return False
    if not listing and any(_is_prose(p) for p in el.iter("p", "pre")):  # prose above a contents list: walked,
        return False                                                     # the list alone is judged
    text = _weight(_words_of(el))
    linked = sum(_weight(_words_of(a)) for a in links if not _URL.search(a.text_content()))  # a URL shown
    # is a reference; a paragraph is a sentence, which Sphinx links word by word ("Recall from Kinds
    # of filters that the value can be a string, a regular expression, a list…"): nearly all links
    return text > 0 and linked >= (0.8 if listing or el.tag == "p" else 0.5) * text


#: a ``<pre>`` of this many lines or more may be a text set in it, not a listing
PROSE_PRE_LINES = 6


def _written_prose(text: str) -> bool:
    """A ``<pre>`` holding a text written in sentences and wrapped by hand (haproxy's manuals set
    every section so): half its lines or more words (six or more, four in five of their tokens),
    three sentence ends or more, no prompt and few comment marks. Read as a plain text, not one
    listing: a section had been one 6 KB code step, named by its first 80-column line."""
    lines = [line.split() for line in text.splitlines() if line.strip()]
    if len(lines) < PROSE_PRE_LINES or any(tokens[0] in ("$", ">>>", "%", "#") for tokens in lines) \
            or sum(tokens[0].startswith(("#", "//", ";", "--")) for tokens in lines) >= 0.2 * len(lines):
        return False  # a session at a prompt, a commented configuration
    worded = sum(len(tokens) >= 6 and prose_words(tokens) >= 0.8 * len(tokens) for tokens in lines)
    return worded >= 0.5 * len(lines) and len(re.findall(r"[^\W\d_][.!?](?:\s|$)", text)) >= 3


def _says_nothing(el, tag: str) -> bool:
    """A block that is no text: navigation, a pointer, an image alone, a "See also" box of links,
    a bare version note."""
    return (_mostly_links(el) or _is_pointer(el) or tag in ("p", "div", "figure") and _image_only(el)
            or tag == "div" and (_links_box(el) or _bare_version(el)))


def _links_box(el) -> bool:
    """A "See also" box (Sphinx's ``div.seealso``) of links only, each maybe under a term naming
    it: a pointer, no text (greenlet's "See also: Details And Examples / Creating And Executing
    Greenlets" had been a skill reading like the answer to a question, and ranked first)."""
    if "seealso" not in _class_words(el):
        return False
    said = [p for p in el.iter("p", "dd", "li") if not _is_box_title(p)
            and not any(True for _ in p.iter("p", "dd", "li") if _ is not p)]
    return bool(said) and all(p.find(".//a") is not None and _weight(_words_of(p)) <= sum(
        _weight(_words_of(a)) for a in p.iter("a")) for p in said)


#: Sphinx's version notes: "New in version 1.0.0." and what changed, if it says
_VERSION_NOTES = frozenset({"versionadded", "versionchanged", "deprecated"})


def _bare_version(el) -> bool:
    """A version note that says only its version ("New in version 1.0.0."): no skill of its own
    (greenlet's context variables page had opened with one)."""
    if not _class_words(el) & _VERSION_NOTES:
        return False
    badge = "".join(s.text_content() for s in el.iter("span") if "versionmodified" in _class_words(s))
    return bool(badge) and not squash(el.text_content()).replace(squash(badge), "", 1).strip(" .:")


def _is_pointer(el) -> bool:
    """A short paragraph that only sends the reader elsewhere through its link ("Click here for
    the corresponding HTML documentation", "Go to the next section or return to the index"),
    or says nothing but "see" beside its links ("For more, see Wildcards.": fish's tutorial had
    four such skills)."""
    text = squash(el.text_content())
    if el.tag != "p" or el.find(".//a") is None or len(text.split()) > POINTER_WORDS:
        return False
    if _POINTER.match(text):
        return True
    outside = el.text or ""
    for child in el:
        outside += ("" if child.tag == "a" or child.find(".//a") is not None else child.text_content()) \
            + (child.tail or "")
    words = re.findall(r"[a-z]+", outside.lower())
    said = set(words)
    return bool(SEE_ONLY.fullmatch(" ".join(words))) or bool(said & _LEADS_ON) and said <= _LEAD_LABEL


def _is_prose(el) -> bool:
    """A paragraph of its own words: some length, mostly not link text."""
    text = _weight(_words_of(el))
    return text >= PROSE_WORDS and sum(_weight(_words_of(a)) for a in el.iter("a")) < 0.8 * text


def _words_of(el) -> str:
    """An element's text with its pieces apart ("Page 0" "Page 1" across a <br>, not "Page 0Page 1")."""
    return " ".join(el.itertext())


def _weight(text: str) -> int:
    """Words, not the brackets and bars that set links apart ("[ << ] | [ >> ] | [Top] |
    [Contents]": texi2html's navigation bar): "You can download Flask-SQLAlchemy from PyPI"
    is four words of its own to two linked, however long the linked names are."""
    return sum(1 for token in _FRAME.split(text) if _ALNUM.search(token))  # ":" or "<<" alone is no word


#: a version number after a name ("SDL 2.0", "Foo v1.2.3")
_VERSIONED = re.compile(r"\s+v?\d+(?:\.\d+)+$|\s+v?\d+$", re.I)
#: a run of this many lines or more, nearly all of them a term over the links to where it is, is an index
INDEX_LINES = 5


def _index_entry(line: list[tuple[str, str]]) -> bool:
    """Whether a line is an index's entry: words, a colon, then links only ("account name: Section
    2.3, Section 3.11.3.4"), as a back-of-book index sets them."""
    after: list[tuple[str, str]] | None = None
    for kind, text in line:
        if after is not None:
            after.append((kind, text))
        elif kind != "link" and ":" in text:
            after = [("text", text.split(":", 1)[1])]
    return after is not None and any(kind == "link" and _ALNUM.search(t) for kind, t in after) \
        and all(kind == "link" or not _ALNUM.search(t) for kind, t in after)


class _Walker:
    def __init__(self, doc: Document, site: frozenset[str] = frozenset()):
        self.doc = doc
        self.site = site
        self.level = 0  # the level of the last heading: a text laid out in lines nests below it
        self.titles: dict[int, str] = {}  # the last heading's title at each level
        self.owners: list[str] = []  # the reference entries the walk is inside ("JSONEncoder")
        self.resume: int | None = None  # a section whose text goes on after the entries it holds
        self.section = 0  # the level of texinfo's last sectioning heading (a chapter's 2, a section's 3)

    def heading(self, level: int, title: str) -> None:
        self.resume = None
        self.level = level
        self.titles[level] = squash(title)
        self.doc.heading(level, title)

    def heading_of(self, el, tag: str) -> None:
        """A heading element at its level: texinfo's by its sectioning class; a node with no sectioning
        command (``node-heading``) one below the last section ("Creating Internationalized Scripts"
        in bash's 3.1.2.5, set in h4 as 3.1.3 is, had become 3.1.3's sibling above it)."""
        classes = (el.get("class") or "").split()
        texinfo = [_TEXINFO_DEPTHS[c] for c in classes if c in _TEXINFO_DEPTHS]
        if texinfo and tag != "h1":
            self.section = texinfo[0]
        if "node-heading" in classes and self.section:
            self.heading(min(self.section + 1, 6), el.text_content())
        else:
            self.heading(texinfo[0] if texinfo and tag != "h1" else _HEADINGS[tag], el.text_content())

    def emit(self, kind: str, text: str, header: bool = True) -> None:
        said = squash(text)
        if not said or said.lower() in self.site or _VERSIONED.sub("", said).lower() in self.site \
                or (kind == "paragraph" and _SEPARATORS.fullmatch(said)):
            return  # nothing, the site's name (with its version: Doxygen's "SDL 2.0"), or what separated
            # links that were dropped ("·")
        if self.resume is not None:  # the section's own text after its entries: under its title again
            level, self.resume = self.resume, None
            if level in self.titles:
                self.doc.heading(level, self.titles[level])
        if kind == "paragraph" and said.strip("[]: ").lower() in ADMONITIONS:  # "Note" over its text
            self.doc.label(said.strip("[]: "))
            return
        self.doc.block(kind, text, header=header)

    def container(self, el, depth: int) -> None:
        """Inline runs become paragraphs; block children are read in order. A box's title heads
        its own text, never the block after the box."""
        run: list[tuple[str, str]] = [("text", el.text or "")]
        titled = False
        for child in el:
            tag = child.tag.lower() if isinstance(child.tag, str) else ""
            if tag in _INLINE and not any(True for _ in child.iter(*_HEADINGS)):
                run += _pieces(child, tag)
            elif tag == "hr":  # a thematic break: what follows is another matter
                self._flush(run)
                self.doc.rule()
            else:
                if tag in _LISTS and _labels(run) and _mostly_links(child):
                    run.clear()  # a contents list's own label ("Subsections" over LaTeX2HTML's child links)
                self._flush(run)
                after = child.getnext()
                if tag == "p" and after is not None and after.tag in _LISTS and not (child.tail or "").strip() \
                        and _labels(_inside(child)) and _mostly_links(after):
                    run.append(("text", child.tail or ""))
                    continue  # the same label set as a paragraph of its own
                titled = titled or _is_box_title(child) or tag == "summary"  # a disclosure's label likewise
                self.block(child, tag, depth + 1)
            run.append(("text", child.tail or ""))
        self._flush(run)
        if titled:
            self.doc.unlabel()

    def _flush(self, run: list[tuple[str, str]]) -> None:
        """A run of inline text: a paragraph; its lines apart when ``<br>`` breaks it into three
        or more short ones (a program, an address); read as a plain text when longer lines have
        blank lines among them (a text laid out in lines); nothing when every line of three or
        more is a link (a contents list), or when it is images alone."""
        lines: list[list[tuple[str, str]]] = [[]]
        for kind, text in run:
            if kind == "br":
                lines.append([])
            else:
                lines[-1].append((kind, text))
        run.clear()
        texts = [squash("".join(text for _, text in line)) for line in lines]
        said = [(text, line) for text, line in zip(texts, lines) if text]
        if all(kind == "image" for _, line in said for kind, text in line if text.strip()):
            return  # an image standing alone between blocks: its alt text ("The Fish-Footman began by
            # producing…", Beautiful Soup's epigraph) had been a skill named "The"
        linked = [_weight(" ".join(t for kind, t in line if kind == "link")) for _, line in said]
        total = [_weight(text) for text, _ in said]
        if len(said) >= 3 and all(0 < a == b for a, b in zip(linked, total)):
            return
        if len(said) >= INDEX_LINES and sum(_index_entry(line) for _, line in said) >= 0.8 * len(said):
            return  # a back-of-book index, a line a term ("accessibility: Section 4.9.4"): Halibut's IndexPage
        if len(said) >= 3 and sorted(len(text) for text, _ in said)[len(said) // 2] <= SHORT_LINE:
            self.emit("list", "\n".join(text for text, _ in said))
        elif len(said) >= LAID_OUT_LINES and any(not t for t in texts[1:-1]):  # lines and blank lines:
            self.laid_out("\n".join("".join(text for _, text in line).removeprefix("\n") for line in lines))
        else:
            self.emit("paragraph", " ".join(texts))

    def laid_out(self, text: str) -> None:
        """Text a page lays out in lines with ``<br>`` (DocBook's literallayout: a README inside
        the manual), read as a plain text is, its headings below the page's last one."""
        try:
            transcript = read_plain(text, self.doc.name).transcript()
        except TutorialbookError:  # nothing but headings
            return
        if transcript.title and transcript.title not in {t for _, _, t in transcript.headings}:
            self.doc.heading(self.level + 1, transcript.title)  # its opening lines: its title
        heads: dict[int, list[tuple[int, str]]] = defaultdict(list)
        for at, level, title in transcript.headings:
            heads[at].append((level, title))
        for n, segment in enumerate(transcript.segments):
            for level, title in heads[n]:
                self.doc.heading(self.level + level, title)
            self.doc.block(segment.kind, segment.text)

    def block(self, el, tag: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            self.emit("paragraph", el.text_content())
        elif tag in _HEADINGS and _in_admonition(el, _EXAMPLES):
            # DocBook's "Note" title of a div.note, Apache's "Deprecation Notice" atop a div.warning: the
            # box's label, no section (one had taken in everything after the box)
            self.doc.label(squash(el.text_content()).strip(": "))
        elif tag in _HEADINGS and _CREDITS & set(el.get("class", "").split()):
            self.emit("paragraph", el.text_content())  # a title page's subtitle or author: no section
        elif tag in _HEADINGS:
            self.heading_of(el, tag)
        elif tag == "pre":
            text = _with_breaks(el)
            self.laid_out(text) if _written_prose(text) else self.emit("code", text)
        elif (listing := _listing_text(el)) is not None:
            self.emit("code", listing)
        elif _says_nothing(el, tag):
            return
        elif tag == "dl" and _is_entry(el):
            self.entries(el, depth)
        elif tag in _LISTS:
            self.list_block(el, depth)
        elif tag == "table":
            self.table(el, depth)
        elif tag == "blockquote" and not any(True for _ in el.iter(*_BLOCKY, *_LISTS)):
            self.emit("quote", el.text_content())
        elif _is_box_title(el) or tag == "p" and "rubric" in _class_words(el):
            # a box's own title ("Scoping Behavior"), Sphinx's rubric (a heading that makes no section)
            self.doc.label(squash(el.text_content()).strip(": "))
        elif tag == "summary":  # a disclosure's label heads what it discloses, less the widget's own words
            self.doc.label(": ".join(part for part in re.split(r"\s*:\s+", squash(el.text_content()))
                                     if part and not _UI_LABEL.match(part)))
        elif tag in ("p", "dt", "figcaption", "caption", "address"):
            self._flush(_inside(el))
        else:
            self.container(el, depth)


    def table(self, el, depth: int) -> None:
        """A data table, a row a line; a table laying out an admonition (asciidoc-py's icon cell,
        "Note", beside its text: the label heads the text) or a page (DocBook's admonitions, a
        links column beside the text) is read as its blocks."""
        parent = el.getparent()
        if el.get("summary", "").strip().lower() == "callout list" \
                or parent is not None and "colist" in (parent.get("class") or "").split():
            # DocBook's and AsciiDoc's callouts: each mark's number beside what it explains ("1. Declare the
            # pointer…"), not a two-column table of "| …" rows whose first row headed every piece of it
            rows = [[cell for cell in row if isinstance(cell.tag, str) and cell.tag == "td"] for row in el.iter("tr")]
            self.emit("list", "\n".join(
                f"{squash(cells[0].text_content()) or next((_alt(i) for i in cells[0].iter('img')), '')}. "
                f"{squash(' '.join(c.text_content() for c in cells[1:]))}" for cells in rows if len(cells) >= 2))
        elif "variablelist" in _class_words(el) | _class_words(parent if parent is not None else el):
            # DocBook's variable list set as a table (xsltproc's variablelist.as.table): each term
            # heads its meaning, as a definition list's does; a term had ended one skill, its meaning
            # opened the next (cockpit-ws's "--for-tls-proxy")
            for row in el.iter("tr"):
                cells = [cell for cell in row if isinstance(cell.tag, str) and cell.tag in ("td", "th")]
                if len(cells) == 2 and squash(cells[0].text_content()):
                    self.doc.label(squash(cells[0].text_content()), join=True)
                    self.container(cells[1], depth)
                else:
                    for cell in cells:
                        self.container(cell, depth)
        elif (icon := _icon_cell(el)) is not None:
            label = squash(icon.text_content()) or next((squash(i.get("alt", "")) for i in icon.iter("img")), "")
            for cell in el.iter("td", "th"):
                if cell is not icon:
                    self.doc.label(label)
                    self.container(cell, depth)
        elif not any(True for _ in el.iter("pre", *_HEADINGS)) and not _admonition_layout(el) and not _holds_pages(el):
            caption = el.find("caption")  # its title ("Table 4. Available identifiers for articlelist-format"),
            if caption is not None:  # which heads it as a caption above it does; none of its rows says what
                self.emit("paragraph", caption.text_content())  # the table lists ("a | Article author")
            self.emit("table", table_text(_table_rows(el)), header=_has_header(el))
        elif not any(True for _ in el.iter("pre")) and not _admonition_layout(el) and not _holds_pages(el):
            self.rows_between_headings(el, depth)
        else:
            self.container(el, depth)

    def rows_between_headings(self, el, depth: int) -> None:
        """A table holding headings in rows of their own (Doxygen's member summaries: "Macros" over
        "#define | SDL_AUDIO_BITSIZE(x) (x & SDL_AUDIO_MASK_BITSIZE)"): its runs of rows of words,
        each run a table under the heading above it, unless nearly all links (navigation); a row of
        blocks is read as its blocks. Read cell by cell, "#define" and "struct" had been paragraphs,
        the names beside them dropped as links."""
        run: list = []

        def flush() -> None:
            rows = [row for row in run if squash(row.text_content())]
            run.clear()
            words = _weight(" ".join(_words_of(row) for row in rows))
            linked = sum(_weight(_words_of(a)) for row in rows for a in row.iter("a")
                         if a.get("href") is not None and not _URL.search(a.text_content()))
            if rows and linked < 0.8 * words:
                self.emit("table", table_text(_table_rows(el, rows)), header=False)

        for row in el.xpath("./tr|./*/tr"):
            if all(d.tag in _INLINE or d.tag in ("td", "th") for d in row.iterdescendants() if isinstance(d.tag, str)):
                run.append(row)
            else:
                flush()
                self.container(row, depth)
        flush()

    def entries(self, el, depth: int) -> None:
        """A reference entry (Sphinx's ``dl.py.function``, texinfo's ``dl.def``): a section one level
        below the text around it, titled by the name it describes (a member by its owner's:
        "JSONEncoder.encode"), its signatures heading its description's first block, then the
        rest of it (an entry inside it one level further down). Its description's last paragraph
        ("See also: …") had opened the next entry's skill; the section's own text after its
        entries goes under the section's title again."""
        base = self.resume if self.resume is not None else self.level
        signatures: list = []
        for item in el:
            if not isinstance(item.tag, str):
                continue
            if item.tag == "dt":
                signatures.append(item)
                continue
            if signatures:
                name = _entry_name(signatures[0], self.owners[-1] if self.owners else "")
                self.heading(base + 1, name)
                self.doc.label("; ".join(_signature(dt) for dt in signatures), join=True)
                signatures = []
                self.owners.append(name.rsplit(".", 1)[-1])
                self.container(item, depth)
                self.owners.pop()
            self.level = base
        if signatures:  # a term with no description
            self.emit("code", "\n".join(_signature(dt) for dt in signatures))
        self.resume = base

    def list_block(self, el, depth: int) -> None:
        """A list as one block; one holding code or tables, as its items' blocks, a definition's
        term heading its meaning's first block (bash's "bg:" over ``bg [jobspec …]``)."""
        if not any(True for _ in el.iter(*_BLOCKY)):
            self.emit("list", "\n".join(_list_lines(el, 0)))
            return
        number = _span(el.get("start"), 1 << 30) if el.tag == "ol" and el.get("start") else 1
        for item in el:
            if el.tag == "ol" and isinstance(item.tag, str) and item.tag == "li":
                number = _span(item.get("value"), 1 << 30) if item.get("value") else number
                _number_item(item, number)
                number += 1
            if isinstance(item.tag, str) and item.tag == "dt":
                self.doc.label(", ".join(_term_lines(item)), join=True)
            elif isinstance(item.tag, str) and not any(True for _ in item.iter(*_BLOCKY)) \
                    and len(lines := _item_lines(item)) > 1:
                # a meaning of prose and lists only is one block, set under its term: its paragraph after
                # a nested list ("In the first case, …" after calcurse's "-d: Two formats are supported:")
                # had parted from its term and started a skill of its own; its paragraphs stand as one
                # meaning, not as terms of their own ("name_phonet.dat., If name is…")
                self.emit("list", "\n".join("  " + line for line in lines))
            elif isinstance(item.tag, str):
                self.container(item, depth)


#: the class words of a definition list that describes a program's objects: Sphinx's domains
#: (``dl.py.function``, ``dl.c.macro``, ``dl.std.option``, ``dl.describe``) and texinfo's ``dl.def``
_ENTRY_CLASSES = frozenset({"def", "py", "c", "cpp", "js", "rst", "std", "describe"})
#: where an entry's signature names its object: Sphinx's prefix and name, texinfo's name
_ENTRY_NAMES = frozenset({"sig-prename", "descclassname", "sig-name", "descname", "def-name"})


def _is_entry(dl) -> bool:
    """Whether a ``dl`` describes a program's objects (each ``dt`` a signature)."""
    words = _class_words(dl)
    return bool(words & _ENTRY_CLASSES) or any(w.startswith("first-def") for w in words)


def _entry_name(dt, owner: str = "") -> str:
    """What an entry's signature names: Sphinx's ``json.`` + ``dumps``, texinfo's ``mat2str``, a
    member with its ``owner``'s name ("JSONEncoder.encode") unless it says its own prefix; else
    the signature itself."""
    named = [e for e in dt.iter() if isinstance(e.tag, str) and _class_words(e) & _ENTRY_NAMES]
    named = [e for e in named if not any(a in named for a in e.iterancestors())]
    prefixed = any(_class_words(e) & {"sig-prename", "descclassname"} for e in named)
    if not named:
        named = [e for e in dt.iter("strong")][:1]
    name = "".join(squash(e.text_content()) for e in named)
    if name and owner and not prefixed:
        name = f"{owner}.{name}"
    return name or _signature(dt)


def _signature(dt) -> str:
    """An entry's signature as written, without texinfo's category ("Function: ", span.category in
    texinfo 7; a mark ": " before): mpfr's 131 skills had been named "Function: int mpfr_cosh";
    nor Sphinx's annotation before the name (``em.property``: "class", "async", "static"): mako's
    classes had been skills named "Class"."""
    text = squash(dt.text_content())
    marks = [squash(e.text_content()) for e in dt.iter() if isinstance(e.tag, str)
             and _class_words(e) & {"category", "property"} and not _class_words(e) & _ENTRY_NAMES]
    for mark in marks:
        if mark and text.startswith(mark):
            text = text.removeprefix(mark).lstrip(": ").strip()
    return text.lstrip(": ").strip()


def _with_breaks(el, depth: int = 0) -> str:
    """An element's text with a line break where a ``<br>`` stands (a ``<pre>`` that breaks its
    lines with them: libxml's API pages), comments left out."""
    out = [el.text or ""]
    for child in el:
        if isinstance(child.tag, str):
            out.append("\n" if child.tag.lower() == "br" else
                       _with_breaks(child, depth + 1) if depth < MAX_DEPTH else child.text_content())
        out.append(child.tail or "")
    return "".join(out)


def _pieces(el, tag: str, depth: int = 0) -> list[tuple[str, str]]:
    """An inline element as pieces of a run: line breaks, links' words and other text (the
    breaks inside ``<small>``, ``<span>``… too)."""
    if tag == "br":
        return [("br", "")]
    if tag == "sup" and el.find(".//a") is None and (el.text or "").strip():  # 2<sup>51</sup>: 2^51, not 251
        return [("text", "^" + el.text_content().strip())]
    if tag == "a" or tag == "img" or tag not in _INLINE or depth > MAX_DEPTH:
        return [("link" if tag == "a" else "image" if tag == "img" else "text",
                 _alt(el) if tag == "img" else el.text_content())]
    return _inside(el, depth)


def _inside(el, depth: int = 0) -> list[tuple[str, str]]:
    """An element's inline content as pieces of a run (see ``_pieces``)."""
    pieces = [("text", el.text or "")]
    for child in el:
        pieces += _pieces(child, child.tag.lower() if isinstance(child.tag, str) else "", depth + 1)
        pieces.append(("text", child.tail or ""))
    return pieces


def _labels(run: list[tuple[str, str]]) -> bool:
    """Whether a run of inline text is a label alone: three words at most, no sentence (a contents
    list's "Subsections", "Contents:"; "Run:" ends no sentence either, but the list it labels stays)."""
    said = squash("".join(text for kind, text in run if kind != "br"))
    return bool(said) and len(said.split()) <= 3 and not re.search(r"[.!?;,]", said)


def _number_item(item, number: int) -> None:
    """An ordered list's item read as its blocks keeps its number before its first words ("2. now
    create the (self-signed) CA certificate itself:"): a how-to's steps, each with its command
    (rsyslog's TLS tutorial, the notebook's "Here are the steps:"), had lost their order. An item
    opening with code is left as it is."""
    for el in item.iter():
        if not isinstance(el.tag, str):
            continue
        if el.tag == "pre" or el.tag in _HEADINGS:
            return
        if (el.text or "").strip():
            el.text = f"{number}. {el.text.lstrip()}"
            return


def _is_box_title(el) -> bool:
    """An admonition's, topic's or sidebar's own title, by its class (not one too long to be one);
    DocBook's sidebar holds its title in a ``div.titlepage`` (the Debian Administrator's Handbook's
    "TIP Incremental updates" had been a paragraph apart from its text, a skill of its own)."""
    classes = set((el.get("class") or "").split())
    box = el.getparent()
    docbook = "titlepage" in classes and box is not None and "sidebar" in _class_words(box)
    titles = bool(classes & _BOX_TITLES) or docbook
    return titles and len(squash(el.text_content())) <= 150


def _in_admonition(el, also: frozenset[str] = frozenset()) -> bool:
    """Whether an element sits directly in a box whose class names an admonition (``div.note``,
    ``div.alert-warning``), or one of ``also``: a class naming it, or ending on its name; one that
    only opens with the name is something else (rustdoc's ``div.error-described`` holds an error
    code's section: the error index's 484 headings "E0004" had been labels of one flat page)."""
    box = el.getparent()
    kinds = {re.split(r"[-_]", token)[-1] for token in (box.get("class") or "").lower().split()} \
        if box is not None else set()
    return bool(kinds & (ADMONITIONS | also))


def _alt(img) -> str:
    """An image's words: its alt text, unless that is only a file's name or path (nbsphinx writes
    "_images/code-cells_20_0.png", texinfo "figures/plotting4" for figures/plotting4.png)."""
    alt = img.get("alt", "").strip()
    src = img.get("src", "")
    if any(word.startswith("formula") for word in _class_words(img)):
        alt = re.sub(r"[{}$]", "", re.sub(r"\\([A-Za-z]+)", r"\1", alt))  # Doxygen's "{\LaTeX}": LaTeX
    named = src.rsplit(".", 1)[0] if "." in src.rsplit("/", 1)[-1] else src
    return "" if _FILE_NAME.match(alt) or alt in (src, named) else alt


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


def _image_only(el) -> bool:
    """A block that shows an image and says nothing but its caption (Asciidoctor's div.imageblock
    "Figure 25. Save database backup" over a screenshot, a figure, a paragraph of an image): no
    text to learn; its alt text and caption had made steps and skills of their own."""
    if el.find(".//img") is None and el.find(".//svg") is None:
        return False
    stack = [el]
    while stack:  # any words outside its captions: the first found ends the walk
        node = stack.pop()
        if node is not el and (node.tag in ("figcaption", "caption") or _class_words(node) & {"title", "caption"}):
            continue
        if (node.text or "").strip():
            return False
        for child in node:
            if (child.tail or "").strip():
                return False
            if isinstance(child.tag, str):
                stack.append(child)
    return True


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


def _item_lines(item) -> list[str]:
    """A list item's blocks of prose, a line each, its nested lists' items indented below them."""
    lines: list[str] = []
    run = [item.text or ""]

    def flush() -> None:
        if text := squash("".join(run)):
            lines.append(text)
        run.clear()

    def walk(el) -> None:
        for child in el:
            tag = child.tag.lower() if isinstance(child.tag, str) else ""
            if tag in _LISTS:
                flush()
                lines.extend(_list_lines(child, 1))
            elif tag in _INLINE or not tag:
                run.append(child.text_content() if tag else "")
            else:
                flush()
                run.append(child.text or "")
                walk(child)
                flush()
            run.append(child.tail or "")

    walk(item)
    flush()
    return lines


def _wrapped_list(el):
    """The one list a div holds and nothing else (Asciidoctor's ``div.ulist``), else None."""
    if el.tag != "div" or squash(el.text or ""):
        return None
    lists = [child for child in el if isinstance(child.tag, str) and child.tag in _LISTS]
    rest = [child for child in el if child not in lists]
    return lists[0] if len(lists) == 1 and not any(squash(child.text_content()) for child in rest) else None


def _term_lines(dt) -> list[str]:
    """A definition's terms, the parts its ``<br>`` breaks apart (DocBook's two commands over one
    meaning: "# apt-get install build-essential<br># apt-get build-dep linux" had run together)."""

    def text(el) -> str:
        parts = [el.text or "" if isinstance(el.tag, str) else ""]
        for child in el:
            parts += ["\0" if child.tag == "br" else text(child), child.tail or ""]
        return "".join(parts)

    return [line for line in (squash(part) for part in text(dt).split("\0")) if line]


def _item_term(item):
    """An item's first paragraph when it is a lone term over the paragraphs that say what it
    means (DocBook's "<li><p><code>Recommends</code></p><p>Use this for packages …</p>", which
    read "Recommends Use this for …"), else None."""
    if squash(item.text or ""):
        return None
    # its blocks, a list a div wraps aside (Asciidoctor's "Basic Features" over its sub-items is no term)
    blocks = [sub for sub in item
              if isinstance(sub.tag, str) and sub.tag in _ITEM_BLOCKS and _wrapped_list(sub) is None]
    if len(blocks) < 2 or blocks[0] is not next((sub for sub in item if isinstance(sub.tag, str)), None):
        return None
    term = squash(blocks[0].text_content())
    return blocks[0] if (0 < len(term.split()) <= MAX_ITEM_TERM_WORDS and not re.search(r"[.!?:;,]$", term)
                         and squash(blocks[1].text_content())) else None


def _written_mark(ul) -> str:
    """The mark every item of a list writes before its words ("- ", as makeinfo writes texinfo's
    ``@itemize @minus`` in a ``ul.no-bullet``): the list's own bullet, no word of its items (autoconf's
    manual read "- - one or more Makefile files"); "" when the items write none, or not all alike."""
    items = [squash(li.text_content()) for li in ul if isinstance(li.tag, str) and li.tag == "li"]
    marks = {m.group(0) if (m := _ITEM_MARK.match(text)) else "" for text in items}
    return marks.pop() if len(items) >= 2 and len(marks) == 1 else ""


#: a bullet written as an item's first character (a hyphen, a dash, a bullet, an asterisk)
_ITEM_MARK = re.compile(r"[-–—•·*‣◦▪]\s")


def _lead_term(item) -> bool:
    """Whether an item's words before its first block are a lone term over that block's meaning
    (Halibut's "<li>IGNORE message<p>Should have no effect.</p></li>", PuTTY's special commands,
    which read "IGNORE message Should have no effect.")."""
    words = [item.text or ""]
    for sub in item:
        if not isinstance(sub.tag, str):
            words.append(sub.tail or "")
        elif sub.tag in _ITEM_BLOCKS:
            term = squash("".join(words))
            return 0 < len(term.split()) <= MAX_ITEM_TERM_WORDS and not re.search(r"[.!?:;,]$", term) \
                and bool(squash(sub.text_content()))
        elif sub.tag in _INLINE:
            words += [sub.text_content(), sub.tail or ""]
        else:
            return False
    return False


#: a list item's first paragraph of this many words or fewer, no sentence, is a term
MAX_ITEM_TERM_WORDS = 4


def _list_lines(el, depth: int) -> list[str]:
    lines: list[str] = []
    number = int(el.get("start", "1")) if el.get("start", "1").isdigit() else 1
    marked = el.tag == "ul" and _written_mark(el)
    for item in el:
        if not isinstance(item.tag, str) or item.tag not in ("li", "dt", "dd"):
            continue
        # a nested list, or one a div wraps (Asciidoctor's div.ulist): its items had run into the item's words
        wrapped = {sub: inner for sub in item if isinstance(sub.tag, str) and (inner := _wrapped_list(sub)) is not None}
        nested = [wrapped.get(sub, sub) for sub in item
                  if isinstance(sub.tag, str) and (sub.tag in _LISTS or sub in wrapped)]
        words = [item.text or ""]
        term = _item_term(item)
        lead = term is None and _lead_term(item)
        for sub in item:
            if sub in wrapped:
                words.append(sub.tail or "")
                continue
            if sub is term:
                words.append(f"{squash(sub.text_content())}: ")
            elif lead and sub.tag in _ITEM_BLOCKS:  # the words before it were its term
                words, lead = [squash("".join(words)) + ": ", sub.text_content()], False
            elif sub not in nested:  # a break or a block (an item's second <p>) parts words
                words.append(" " if sub.tag == "br" else
                             f" {sub.text_content()} " if sub.tag in _ITEM_BLOCKS else sub.text_content())
            words.append(sub.tail or "")
        marker = {"ol": f"{number}. ", "ul": "- "}.get(el.tag, "" if item.tag == "dt" else "  ")
        number += el.tag == "ol"
        text = ", ".join(_term_lines(item)) if item.tag == "dt" and not nested else squash("".join(words))
        if marked:
            text = text[len(marked):].lstrip()
        if text:
            lines.append("  " * depth + marker + text)
        for sub in nested:
            lines.extend(_list_lines(sub, depth + 1))
    return lines
