"""Markdown through markdown-it-py, a CommonMark parser (with GFM tables): headings, and one
block per paragraph, whole list, fenced or indented code block, table or quote. A paragraph of
images only (a README's badges, its logo) and a list of links to the page's own sections (its
contents, which the headings already are) are no text.

MyST, the Markdown of Sphinx projects, through mdit-py-plugins (markdown-it-py's own plugin set):
a role ``{mod}`ensurepip``` reads as its text ("ensurepip"; "title <target>" as the title), a
target ``(label)=``, a comment ``% …`` and a footnote reference ``[^x]`` are no text, a footnote's
definition is a paragraph, and a directive fence reads by what it is: an admonition
``{note}`` as "Note: …", ``{code-block}`` as code, ``{toctree}``-like ones as nothing, any other
as the code it holds."""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode
from mdit_py_plugins.admon import admon_plugin
from mdit_py_plugins.colon_fence import colon_fence_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.myst_blocks import myst_block_plugin
from mdit_py_plugins.myst_role import myst_role_plugin

from tutorialbook.acquire.formats.document import ADMONITIONS, Document, squash, table_text

_PARSER = (MarkdownIt("commonmark").enable(["table", "strikethrough"])
           .use(myst_role_plugin).use(myst_block_plugin).use(footnote_plugin).use(colon_fence_plugin)
           .use(admon_plugin))
_NO_TEXT = frozenset({"myst_target", "myst_line_comment", "myst_block_break", "hr", "admonition_title"})
_CODE_DIRECTIVES = frozenset({"code-block", "code", "sourcecode", "code-cell"})
_NO_TEXT_DIRECTIVES = frozenset({"toctree", "contents", "include", "literalinclude", "image", "figure",
                                 "automodule", "autoclass", "autofunction", "raw", "eval-rst", "tableofcontents"})
_DIRECTIVE = re.compile(r"^\{([\w:-]+)\}\s*(.*)$")
#: directives whose content is not Markdown but a language of its own
_CODE_LIKE_DIRECTIVES = frozenset({"math", "mermaid", "graphviz", "uml", "plantuml", "csv-table", "list-table"})
#: what a version directive says before its argument
_VERSIONED = {"versionadded": "New in version", "versionchanged": "Changed in version",
              "deprecated": "Deprecated since version"}
_OPTION = re.compile(r"^:[\w-]+:.*$")
_LISTS = ("bullet_list", "ordered_list")
_BLOCKY = frozenset({"fence", "code_block", "table", "heading", "blockquote"})


#: what only Markdown writes: a fenced code block, `code` spans, **strong** words, [links](url),
#: "## Titles"; each counted where it must recur to be told from a plain text's own habits
_MARKDOWN_SIGNS = {
    "fence": (re.compile(r"^[ \t]{0,3}```", re.M), 2),  # not "~~~": a heading's underline
    "code": (re.compile(r"(?<![`\w])`[^`\n]+`(?![`\w])"), 3),
    "strong": (re.compile(r"(?<![*\w])\*\*\S[^*\n]*?\*\*(?![*\w])"), 2),
    "link": (re.compile(r"\[[^\[\]\n]+\]\((?:[a-z]+://|[#./\w])[^()\s]*\)", re.I), 1),
    "atx": (re.compile(r"^#{1,6}[ \t]+[A-Z]", re.M), 2),
}
SNIFF_CHARS = 200_000


def looks_like_markdown(text: str) -> bool:
    """Whether a plain text (``.txt``: pandoc's and GitHub's Markdown saved so, Debian's
    autopkgtest.txt) is Markdown: two kinds of what only Markdown writes (``_MARKDOWN_SIGNS``)."""
    head = text[:SNIFF_CHARS]
    return sum(len(sign.findall(head)) >= least for sign, least in _MARKDOWN_SIGNS.values()) >= 2


def read_markdown(text: str, name: str) -> Document:
    """Segment offsets point into the Markdown file itself: each block's lines."""
    doc = Document(name, source=text)
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    body, doc.title = _front_matter(text)
    _blocks(SyntaxTreeNode(_PARSER.parse(body)), _Spans(doc, text, starts))
    return doc


def _front_matter(text: str) -> tuple[str, str | None]:
    """A leading YAML front matter block (Jekyll, Hugo, MkDocs pages): its ``title:`` is the
    document's title, and its lines are blanked (kept as empty lines, so block line numbers
    still index the file) instead of being read as a rule and a heading."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip() != "---":
        return text, None
    end = next((i for i, line in enumerate(lines[1:200], 1) if line.rstrip() in ("---", "...")), None)
    if end is None:
        return text, None
    title = None
    for line in lines[1:end]:
        key, sep, value = line.partition(":")
        if sep and key.strip().lower() == "title":
            title = value.strip().strip("\"'") or None
    return "\n" * (end + 1) + "".join(lines[end + 1:]), title


def add_markdown(text: str, doc: Document) -> None:
    """Append a Markdown text's blocks to a document (a notebook's markdown cells)."""
    _blocks(SyntaxTreeNode(_PARSER.parse(text)), _Spans(doc))


class _Spans:
    """What the walk writes to: the Document, with each block put at its source lines when
    the text is the document itself (not a notebook's cell)."""

    def __init__(self, doc: Document, text: str = "", starts: list[int] | None = None):
        self.doc, self.text, self.starts = doc, text, starts

    def heading(self, level: int, text: str) -> None:
        self.doc.heading(level, text)

    def block(self, kind: str, text: str, node: SyntaxTreeNode | None = None) -> None:
        span = None
        if self.starts is not None and node is not None and node.map:
            first, last = node.map
            start = self.starts[first]
            raw = self.text[start:self.starts[min(last, len(self.starts) - 1)]]
            span = (start + len(raw) - len(raw.lstrip()), start + len(raw.rstrip()))
        self.doc.block(kind, text, span)


def _blocks(node: SyntaxTreeNode, doc: _Spans) -> None:
    for child in node.children:
        kind = child.type
        if kind == "heading":
            doc.heading(int(child.tag[1]), inline_text(child))
        elif kind == "hr":
            doc.doc.rule()
        elif kind in _NO_TEXT or _shows_nothing(child):
            continue
        elif kind == "paragraph" and _templated(child):
            continue
        elif kind == "paragraph":
            doc.block("paragraph", inline_text(child), child)
        elif kind == "colon_fence" or (kind == "fence" and _DIRECTIVE.match(child.info.strip())):
            _directive(child, doc)
        elif kind == "admonition":
            _admonition(child, doc)
        elif kind in ("fence", "code_block"):
            doc.block("code", child.content, child)
        elif kind in _LISTS or kind == "blockquote":
            _list_or_quote(child, doc)
        elif kind == "table":
            doc.block("table", table_text([inline_text(cell) for cell in row.children] for row in _rows(child)), child)
        elif kind == "html_block":
            _html_block(child, doc)
        elif child.children:
            _blocks(child, doc)


def _list_or_quote(node: SyntaxTreeNode, doc: _Spans) -> None:
    """A list, or a block quote: one block, unless code or tables sit inside (each then a block of its own)."""
    if node.type == "blockquote" and not _holds(node, _BLOCKY | set(_LISTS)):
        doc.block("quote", " ".join(inline_text(p) for p in node.children), node)
    elif node.type == "blockquote":
        _blocks(node, doc)
    elif _holds(node, _BLOCKY):  # code or tables inside items: keep them as their own blocks
        for item in node.children:
            _blocks(item, doc)
    else:
        doc.block("list", "\n".join(_list_lines(node, 0)), node)


def _html_block(node: SyntaxTreeNode, doc: "_Spans") -> None:
    """Raw HTML: its headings are headings (a README's ``<h1 align="center">``), the rest text,
    less the site generator's tags among it (Bootstrap's docs close a Hugo ``{{< example >}}`` on the
    line of its HTML: "Holy guacamole! … × {{< /example >}}" had been a skill's text)."""
    from tutorialbook.acquire.formats.html import fragment_parts

    links = _link_texts(node.content)
    for level, text in fragment_parts(node.content):
        if level:
            doc.heading(level, text)
        elif not _mostly_template(text) and not _links_only(text, links) \
                and (words := squash(_TEMPLATE_TAGS.sub(" ", text))):
            doc.block("paragraph", words, node)


def _link_texts(markup: str) -> list[str]:
    """The words of each link in raw HTML, longest first."""
    if "<a" not in markup.lower():
        return []
    from lxml import etree
    from lxml import html as lxml_html

    try:
        root = lxml_html.fragment_fromstring(markup, create_parent="div")
    except (etree.ParserError, ValueError):
        return []
    return sorted((t for a in root.iter("a") if (t := squash(a.text_content()))), key=len, reverse=True)


def _links_only(text: str, links: list[str]) -> bool:
    """A bar of two links or more and nothing else in words (a README's centred "homepage | manual
    | faq | wiki | forum" under its title, magit's: it had been a skill): navigation, no text."""
    rest, found = text, 0
    for link in links:
        if link in rest:
            rest, found = rest.replace(link, " ", 1), found + 1
    return found >= 2 and not re.search(r"\w", rest)


def _directive(node: SyntaxTreeNode, doc: "_Spans") -> None:
    """A MyST directive fence (```{name} argument): read by what the directive is. A colon fence
    (:::{note} …) holds Markdown, not code: what is no admonition reads as its text."""
    match = _DIRECTIVE.match(node.info.strip())
    if match is None and node.type == "colon_fence":
        return _marked_up(node, doc)
    if match is None:
        return doc.block("code", node.content, node)
    name, argument = match.group(1).lower().split(":")[-1], match.group(2)
    lines = node.content.splitlines()
    popped = 0
    while lines and _OPTION.match(lines[0].strip()):  # ":class: tip", ":caption: …": options, not text
        lines.pop(0)
        popped += 1
    body = "\n".join(lines).strip("\n")
    if name in _NO_TEXT_DIRECTIVES:
        return
    if name in ADMONITIONS or name == "admonition":
        label = argument if name == "admonition" and argument else name.replace("seealso", "see also").capitalize()
        text = squash(" ".join(inline_text(p) for p in SyntaxTreeNode(_PARSER.parse(body)).walk()
                               if p.type == "inline"))
        if text:
            doc.doc.label(label)
            doc.block("paragraph", text, node)
        return
    if body and node.type == "colon_fence":
        _marked_up(node, doc, body)
    elif body and (name in _CODE_DIRECTIVES or name in _CODE_LIKE_DIRECTIVES):
        doc.block("code", body, node)
    elif body:
        # any other directive holds Markdown (pip's ```{tab} Linux, ```{versionchanged} 23.1): its
        # blocks as the page's, headed by what the directive says; they had been one block of code
        label = f"{_VERSIONED[name]} {argument}" if name in _VERSIONED else argument
        if label.strip():
            doc.doc.label(label.strip())
        starts = doc.starts[node.map[0] + 1 + popped:] if doc.starts is not None and node.map else None
        _blocks(SyntaxTreeNode(_PARSER.parse("\n".join(lines))), _Spans(doc.doc, doc.text, starts))


def _admonition(node: SyntaxTreeNode, doc: "_Spans") -> None:
    """Python-Markdown's admonition (MkDocs: ``!!! note "Before you start"``, ``??? tip`` folded),
    its indented blocks headed by its title ("Before you start: …"), else its kind ("Note: …").
    It had read as one paragraph "!!! note "Before you start" Install …"."""
    title = next((inline_text(c) for c in node.children if c.type == "admonition_title"), "")
    doc.doc.label(title or str(node.meta.get("tag", "")).capitalize())
    _blocks(node, doc)  # its title read above: no text of the body
    doc.doc.unlabel()  # a title over nothing heads nothing after the box


def _marked_up(node: SyntaxTreeNode, doc: "_Spans", body: str | None = None) -> None:
    """A fence's Markdown as one paragraph of its words, spanning the fence."""
    parsed = SyntaxTreeNode(_PARSER.parse(node.content if body is None else body))
    text = squash(" ".join(inline_text(p) for p in parsed.walk() if p.type == "inline"))
    if text:
        doc.block("paragraph", text, node)


def _role_text(content: str) -> str:
    """What a role shows: "title <target>" its title, "~a.b" its last part, "!x" its text."""
    titled = re.match(r"^(.*?)\s*<[^<>]+>$", content, re.S)
    text = titled.group(1) if titled and titled.group(1) else content
    if text.startswith("~"):
        text = text[1:].rsplit(".", 1)[-1]
    return text.removeprefix("!")


def inline_text(node: SyntaxTreeNode) -> str:
    """The words of a node's inline content: no emphasis marks, backticks or tags."""
    parts: list[str] = []
    for child in node.children:
        if child.type == "text" and _TEMPLATE_TAGS.fullmatch(child.content.strip()):
            continue  # a site generator's tag on its own line ({% include … %}, {{< callout >}}): no words
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type == "myst_role":
            parts.append(_role_text(child.content))
        elif child.type in ("footnote_ref", "footnote_anchor"):
            continue
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "html_inline":
            continue
        else:
            parts.append(inline_text(child))
    return _SPACED_LINK.sub(r"\1", _TEMPLATED_LINK.sub(r"\1", "".join(parts)))


#: the tags site generators write into their Markdown sources (Jekyll's and Jinja's {% … %} and
#: {{ … }}, Hugo's shortcodes {{< … >}} and {{% … %}}): Bootstrap's docs (libjs-bootstrap4) had a
#: section summed up as "{{< callout info >}} {{< partial … >}} {{< /callout >}} …"
_TEMPLATE_TAGS = re.compile(r"(?:\{%.*?%\}|\{\{.*?\}\}\s*)+")


def _templated(paragraph: SyntaxTreeNode) -> bool:
    """A paragraph that is mostly a site generator's template (Hugo's inline shortcodes: "{{- range
    $.Site.Data.grays }} $gray-{{ .name }} {{ .hex }} {{ end -}}") rather than words."""
    return _mostly_template("".join(c.content for c in paragraph.children if c.type == "inline"))


def _mostly_template(raw: str) -> bool:
    return sum(map(len, _TEMPLATE_TAGS.findall(raw))) * 2 >= len(raw.strip()) > 0


#: a link whose target is such a tag ("[Color utility classes]({{< docsref "/utilities/colors" >}})"):
#: its words are the link's text
_TEMPLATED_LINK = re.compile(r"\[([^\[\]]+)\]\(\{\{[<%].*?[>%]\}\}\)")


#: a link whose target holds a space (a notebook's "[notebook](../Rich Output.ipynb)"): CommonMark
#: reads it as text, the renderers people use show it as a link; its words are the link's text
_SPACED_LINK = re.compile(r"\[([^\[\]]+)\]\((?=[^()]*\s)(?:[a-z]+://|\.{0,2}/|[\w.-]+/)[^()\n]*\)", re.I)


def _list_lines(node: SyntaxTreeNode, depth: int) -> list[str]:
    lines: list[str] = []
    number = int(node.attrs.get("start", 1) or 1)
    for i, item in enumerate(node.children):
        marker = f"{number + i}." if node.type == "ordered_list" else "-"
        words, nested = [], []
        for part in item.children:
            if part.type in _LISTS:
                nested.extend(_list_lines(part, depth + 1))
            else:
                words.append(inline_text(part))
        if _item_term(item):
            words[0] += ":"
        lines.append("  " * depth + f"{marker} {' '.join(words)}")
        lines.extend(nested)
    return lines


def _item_term(item: SyntaxTreeNode) -> bool:
    """Whether an item's first paragraph is a lone term over the paragraphs saying what it means,
    as HTML's items are read: magit's README lists "[Visual Magit walk-through](…)" over its
    description, which read "Visual Magit walk-through If you are completely new …". A term is a
    few words, or one link alone, and no sentence."""
    from tutorialbook.acquire.formats.html import MAX_ITEM_TERM_WORDS

    parts = [part for part in item.children if part.type not in _LISTS]
    if len(parts) < 2 or parts[0].type != "paragraph" or parts[1].type != "paragraph":
        return False
    term = inline_text(parts[0]).strip()
    pieces = [piece for line in parts[0].children for piece in line.children
              if not (piece.type == "text" and not piece.content.strip())]
    linked = len(pieces) == 1 and pieces[0].type == "link"
    return 0 < len(term.split()) <= (ITEM_LINK_WORDS if linked else MAX_ITEM_TERM_WORDS) \
        and not re.search(r"[.!?:;,]$", term)


#: a list item's first paragraph that is one link alone is a term up to this many words (a title)
ITEM_LINK_WORDS = 10


def _shows_nothing(node: SyntaxTreeNode) -> bool:
    """A README's badges and logo, a list of links to the page's own sections: no text to learn."""
    return node.type == "paragraph" and _pictures_only(node) or node.type in _LISTS and _in_page_contents(node)


#: HTML's line break written inline in Markdown
_BREAK = re.compile(r"<br\s*/?>", re.I)


def _pictures_only(paragraph: SyntaxTreeNode) -> bool:
    """Whether a paragraph shows images (linked or not) and says nothing else: badges, a logo. An
    HTML line break between them is no word (Stockfish's README rows its badges with ``<br>``: the
    row "Build License Release Commits …" was its first skill and its summary)."""
    pieces = list(_outside_images(paragraph))
    return any(n.type == "image" for n in pieces) and all(
        n.type in ("image", "softbreak", "hardbreak") or n.type == "text" and not n.content.strip()
        or n.type == "html_inline" and _BREAK.fullmatch(n.content.strip()) for n in pieces)


def _outside_images(node: SyntaxTreeNode):
    """The inline pieces under ``node``, links opened, images whole (their alt text inside them)."""
    for child in node.children:
        if child.type in ("inline", "link"):
            yield from _outside_images(child)
        else:
            yield child


#: the most words of a contents list's label over its nested links ("Command line usage")
_LABEL_WORDS = 6


def _in_page_contents(node: SyntaxTreeNode) -> bool:
    """Whether a list is the page's table of contents, which its headings already are: each item a
    link alone ("[History](#history)") or a short label over a nested list of them, at least half
    of its links to places on the page (eSpeak NG's guide lists its sections with the documents
    it leads on to: "Command line usage" over links to two man pages). A list of links to other
    pages alone is text."""
    links: list[str] = []

    def shaped(lst: SyntaxTreeNode) -> bool:
        for item in lst.children:
            parts = [p for p in item.children if p.type not in _LISTS]
            subs = [p for p in item.children if p.type in _LISTS]
            if len(parts) != 1:
                return False
            found = [n for n in parts[0].walk() if n.type == "link"]
            if found:
                if len(found) > 1 or squash(inline_text(parts[0])) != squash(inline_text(found[0])):
                    return False
                links.append(str(found[0].attrs.get("href", "")))
            elif not subs or len(inline_text(parts[0]).split()) > _LABEL_WORDS:
                return False  # a label heads a nested list of links; a sentence is text
            if not all(shaped(sub) for sub in subs):
                return False
        return True

    return shaped(node) and bool(links) and 2 * sum(href.startswith("#") for href in links) >= len(links)


def _rows(table: SyntaxTreeNode):
    for section in table.children:
        yield from section.children


def _holds(node: SyntaxTreeNode, kinds) -> bool:
    return any(n.type in kinds for n in node.walk(include_self=False))
