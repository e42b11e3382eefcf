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
Site" title that a title element of the page shows or the h1 opens with.

This module reads a page (its title, whether it is one to read at all), and an HTML fragment's
headings for Markdown (``fragment_parts``); a page's content goes to the parts beside it:
``html_parse`` (bytes to tree), ``html_tidy`` (changes before the walk), ``html_chrome``
(navigation), ``html_walker`` (the walk, with ``html_tables`` and ``html_lists``), all on the
words of ``html_vocabulary``."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from lxml import etree
from lxml import html as lxml_html

from tutorialbook.acquire.formats.document import Document, squash
from tutorialbook.acquire.formats.html_chrome import _in_chrome, _strip_chrome, _visible_text
from tutorialbook.acquire.formats.html_lists import MAX_ITEM_TERM_WORDS
from tutorialbook.acquire.formats.html_parse import PARSER_DEPTH, _front_matter, _parse
from tutorialbook.acquire.formats.html_tidy import (_classifiers_apart, _drop_other_versions, _drop_signed_footer,
                                                    _forget_page_classes, _inline_footnotes)
from tutorialbook.acquire.formats.html_vocabulary import _HEADINGS, _INLINE, _TEXINFO_LEVELS
from tutorialbook.acquire.formats.html_walker import _Walker
from tutorialbook.errors import NothingToLearn

__all__ = ["MAX_ITEM_TERM_WORDS", "fragment_parts", "read_html", "read_page"]

#: what separates a page's own title from its site's in a ``<title>``
_TITLE_PARTS = re.compile(r"\s+[-|—–·:]{1,2}\s+|:\s+")
#: what Sphinx writes as the title of a page that has none ("<no title> — cmd2 2.4.1 documentation")
_NO_TITLE = re.compile(r"^<no title>.*$", re.I)
#: a page's title with its manual's name in parentheses after it, as texinfo writes it (the name
#: with its own parenthesis: "Advanced Indexing (GNU Octave (version 7.3.0))")
_MANUAL_SUFFIX = re.compile(r"^(.*?\S)\s+\(((?:[^()]|\([^()]*\)){3,})\)$")
#: a page forwarding the browser elsewhere with at most this many words says nothing of its own
REDIRECT_WORDS = 40
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


def _content_root(root):
    for path in ("//main", "//*[@role='main']", "//article"):
        found = root.xpath(path)
        if len(found) == 1 or (found and path != "//article"):
            return found[0]
    body = root.find("body")
    return body if body is not None else root
