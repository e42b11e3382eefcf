"""A folder's pages in the order their author wrote them to be read, not in file-name order.

Generated documentation says its order in its pages: an HTML page's ``rel="next"`` link (in
its head or on its "Next" button: Sphinx, DocBook, mdBook, texinfo; a button's accesskey "n" or
texi2html's title "Next chapter" say it too) and ``rel="up"`` link (texinfo's and DocBook's
parent node), a Sphinx source's ``toctree`` (reStructuredText's
directive, MyST's fenced one) listing the pages below it. Only links to pages of the same
folder count. The pages form a forest: a page's children are the chains of pages that name
it as their parent (texinfo's "next" is the next node at the same level, so a chapter's
sections hang from it by "up"), then its toctree's pages, then its next page. It is read
depth first: a chapter, its sections, then the next chapter; a parent's children in the
order its own links show them. A folder with several trees reads the largest first (the
manual before its lone index and search pages), ties and pages that say nothing in name
order. A folder whose pages say no order at all follows its contents page: the list a sidebar
repeats on every page, or a page named index, contents, toc... Pages whose reading fails keep
their place among the rest. Pages that link to each other in any way are one document (one
manual: the builder keeps their chapters and skills apart, skills/builder.py)."""

from __future__ import annotations

import os
import posixpath
import re
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from urllib.parse import unquote, urlsplit

from lxml import etree
from lxml import html as lxml_html

from tutorialbook.acquire.formats import document_format

#: names that copy a source under another suffix (Sphinx's ``_sources``): the page a toctree names
_PAGE_SUFFIXES = (".rst.txt", ".md.txt", ".ipynb.txt", ".rst", ".md", ".ipynb", ".txt", ".html", ".htm", ".xhtml")
_RST_TOCTREE = re.compile(r"^\.\.[ \t]+toctree::[^\n]*\n((?:[ \t]*\n|[ \t]+[^\n]*\n)*)", re.M)
_MYST_TOCTREE = re.compile(r"^(`{3,}|:{3,})[ \t]*\{toctree\}[^\n]*\n(.*?)^\1", re.M | re.S)
_TITLED_ENTRY = re.compile(r"<([^<>]+)>\s*$")
#: the names a contents page goes by, without a suffix
_CONTENTS_NAMES = frozenset({"index", "contents", "toc", "readme", "summary", "start", "overview"})
_MD_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)")


def reading_order(names: Sequence[str], read: Callable[[str], bytes | None]) -> list[str]:
    """``names`` (a folder's files, in name order) in reading order. ``read(name)`` gives a
    page's bytes, or None when it may not or cannot be read; only HTML pages and Sphinx
    sources are read."""
    return [name for document in documents(names, read) for name in document]


def documents(names: Sequence[str], read: Callable[[str], bytes | None],
              parents: dict[str, str] | None = None) -> list[list[str]]:
    """``reading_order``, as the documents the folder holds: pages that link to each other in
    any way (one manual), each in reading order; a page linked with no other is a document alone.
    ``parents``, when given, receives each page's parent (its ``rel="up"`` page: DocBook's and
    texinfo's section pages name their chapter's so) unless that is its manual's top page (its
    first, with no parent of its own or named as a contents page), whose chapters they are; a
    chapter copied without its manual is the first page, and its sections' parent."""
    page = _pages(names)
    up: dict[str, str] = {}
    below_another: set[str] = set()  # pages with a parent, in the folder or not
    following: dict[str, str] = {}
    listed: dict[str, list[str]] = {}
    linked: dict[str, list[str]] = {}  # every page a page links to, in the order it shows them
    for name in names:
        kind = _kind(name)
        data = read(name) if kind else None
        if not data:
            continue
        here = posixpath.dirname(name)  # a page of a subfolder (``intro/tutorial.html``) links from there
        if kind == "html":
            links = _html_links(data, here)
            if links.get("up"):
                below_another.add(name)
            for rel, target in (("up", links.get("up")), ("next", links.get("next"))):
                found = page(target) if target else None
                if found and found != name:
                    (up if rel == "up" else following)[name] = found
            targets = links.get("all", [])
        else:
            text = data.decode("utf-8", "replace")
            entries = _toctree_entries(text, kind, here)
            listed[name] = [p for p in map(page, entries) if p and p != name]
            targets = [t if page(t := _within(here, link)) else _file_named(link)  # else by the name it ends on
                       for link in _MD_LINK.findall(text)] if kind == "md" else []
        pages = [page(t) for t in targets if t]
        linked[name] = list(dict.fromkeys(p for p in pages if p))
    if not up and not following and not any(listed.values()):
        listed.update(_contents_page(names, linked))
    followed = set(following.values())
    heads_under: dict[str, list[str]] = {}
    for name in names:  # a chain that starts below a parent is read after that parent
        if name not in followed and up.get(name):
            heads_under.setdefault(up[name], []).append(name)
    children = {n: _as_shown(heads_under.get(n, []) + ([following[n]] if n in following else []), linked.get(n, []))
                + listed.get(n, []) for n in names}
    below = {c for kids in children.values() for c in kids}
    roots = [n for n in names if n not in below]
    reach = _sizes(children)
    place = {n: i for i, n in enumerate(names)}
    trees: list[list[str]] = []
    seen: set[str] = set()
    for root in sorted(roots, key=lambda r: (-reach[r], place[r])) + list(names):  # then pages on cycles
        if root not in seen:
            trees.append(_depth_first([root], children, seen))
            seen.update(trees[-1])
    manuals = _joined(trees, [(a, b) for a, kids in children.items() for b in kids]
                      + [(a, b) for a, pages in linked.items() for b in pages])
    if parents is not None:  # a manual's top page (no parent, or a contents page) holds chapters
        tops = {document[0] for document in manuals
                if document[0] not in below_another or _contents_named(document[0])}
        parents.update((page, above) for page, above in up.items() if above not in tops)
    return manuals


def reached(top: Sequence[str], below: Sequence[str], read: Callable[[str], bytes | None]) -> list[str]:
    """The pages of ``below`` (a folder's subfolders' pages, named by their paths from it) that the
    folder's own pages ``top`` lead to by a manual's reading order, and those lead to in turn: an
    HTML page's ``rel="next"`` link, a Sphinx source's toctree (a Sphinx package's ``html/`` holds
    its manual in ``intro/``, ``topics/``…, each page's next link leading on). Its other links
    (to highlighted source code, indexes, other manuals) lead nowhere here. In the order found."""
    page = _pages(below)
    found: list[str] = []
    queue, seen = deque(top), set(top)
    while queue:
        name = queue.popleft()
        kind = _kind(name)
        data = read(name) if kind else None
        if not data:
            continue
        here = posixpath.dirname(name)
        if kind == "html":
            targets = [t for t in [_html_links(data, here).get("next")] if t]
        else:
            targets = _toctree_entries(data.decode("utf-8", "replace"), kind, here)
        for target in targets:
            if (hit := page(target)) is not None and hit not in seen:
                seen.add(hit)
                found.append(hit)
                queue.append(hit)
    return found


def _sizes(children: dict[str, list[str]]) -> dict[str, int]:
    """How many pages lie below each page, itself counted, in one pass (a page reached twice is
    counted under each: the sizes only order trees, and a pass per tree cost the square of a
    folder's pages when a thousand of them led into one chain)."""
    size: dict[str, int] = {}
    for start in children:
        stack = [(start, False)]
        while stack:
            name, done = stack.pop()
            if done:
                size[name] = 1 + sum(size.get(c, 0) for c in children.get(name, []))
            elif name not in size:
                size[name] = 0  # on the way: a cycle back to it counts nothing
                stack.append((name, True))
                stack.extend((c, False) for c in children.get(name, []) if c not in size)
    return size


def _joined(trees: list[list[str]], links: list[tuple[str, str]]) -> list[list[str]]:
    """Trees that link to each other in any way (a manual copied in part: its chain of next links
    broken, its pages still linking its contents page) as one document, where the first stands."""
    owner = {page: n for n, tree in enumerate(trees) for page in tree}
    parent = list(range(len(trees)))

    def find(n: int) -> int:
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    for a, b in links:
        if a in owner and b in owner:
            first, second = sorted((find(owner[a]), find(owner[b])))
            parent[second] = first
    merged: dict[int, list[str]] = {}
    for n, tree in enumerate(trees):
        merged.setdefault(find(n), []).extend(tree)
    return list(merged.values())


def _as_shown(pages: list[str], shown: list[str]) -> list[str]:
    """A page's children in the order its own links show them (a DocBook manual copied in part:
    chapters whose chain of next links breaks hang from the contents page by "up"), those it
    does not link after, as they were."""
    where = {p: i for i, p in reversed(list(enumerate(shown)))}  # each page's first place
    return sorted(pages, key=lambda p: where.get(p, len(shown)))


def _contents_page(names: Sequence[str], linked: dict[str, list[str]]) -> dict[str, list[str]]:
    """A folder whose pages say no order of their own (no next/up link, no toctree): its contents
    page, the one linking to most of the others (at least half), lists them in order, itself
    among them when a sidebar on every page lists them all (Erlang's guides): {the first page it
    lists: the others in order}, or nothing. It is one by its list shown on two pages or more
    (a sidebar) or by its name (index, contents, toc…): a chapter citing the others is none."""
    if len(names) < 3 or not linked:
        return {}
    place = {n: i for i, n in enumerate(names)}
    best = max(names, key=lambda n: (len({p for p in linked.get(n, []) if p != n}), -place[n]))
    order = linked.get(best, [])
    if len({p for p in order if p != best}) < max(2, (len(names) - 1) / 2):
        return {}
    sidebar = sum(linked.get(n) == order for n in names) >= 2  # the same list on two pages or more
    if not sidebar and not _contents_named(best):
        return {}  # a chapter that cites the others (vim's usr_03) says nothing of their order
    order = order if best in order else [best, *order]  # a sidebar on every page lists the page itself
    return {order[0]: order[1:]}


def _depth_first(roots: list[str], children: dict[str, list[str]], seen: set[str]) -> list[str]:
    """Pre-order from ``roots``, each page once (a page named twice is read where first named)."""
    order: list[str] = []
    seen = set(seen)
    stack = list(reversed(roots))
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        order.append(name)
        stack += reversed([c for c in children.get(name, []) if c not in seen])
    return order


def _kind(name: str) -> str:
    """How a page says where it stands: an HTML page by its links, a Sphinx source by its toctree
    (the reader ``formats.document_format`` picks), gzipped (``api.md.gz``) or not."""
    return {".html": "html", ".rst": "rst", ".md": "md"}.get(document_format(Path(_ungzipped(name))) or "", "")


def _ungzipped(name: str) -> str:
    return name[:-3] if name.lower().endswith(".gz") else name


def _pages(names: Sequence[str]) -> Callable[[str], str | None]:
    """The folder's page a link names: spelt as the link spells it, else in any case (a page saved
    on a system that ignores case). Exact first: a texinfo manual holds both ``index.html``, its
    front page, and ``Index.html``, its index, and every link to the index had led to the front."""
    exact = {_page_key(n, fold=False): n for n in names}
    folded: dict[str, str] = {}
    for n in names:
        folded.setdefault(_page_key(n), n)
    return lambda target: exact.get(_page_key(target, fold=False)) or folded.get(_page_key(target))


def _page_key(name: str | None, fold: bool = True) -> str:
    """A page's name without the suffix its format or Sphinx's copy gave it (nor gzip's), in
    lower case unless ``fold`` is false."""
    plain = _ungzipped(name or "")
    lower = plain.lower()
    for suffix in _PAGE_SUFFIXES:
        if lower.endswith(suffix):
            return (lower if fold else plain)[:-len(suffix)]
    return lower if fold else plain


def _contents_named(name: str) -> bool:
    """Whether a page is named as a contents page is (index, contents, toc…), in any folder."""
    return _page_key(posixpath.basename(name)) in _CONTENTS_NAMES


def _html_links(data: bytes, here: str = "") -> dict:
    """A page's first ``rel="next"`` and ``rel="up"`` targets and ("all") every page its links
    without a rel name, in order: each a path from the folder read (the page itself in ``here``),
    none outside it."""
    try:
        root = lxml_html.fromstring(data)
    except (etree.ParserError, ValueError):
        return {}
    links: dict[str, list[str] | str] = {}
    shown: list[str] = []
    for element in root.iter("link", "a"):
        rels = (element.get("rel") or "").lower().split()
        rels += {"n": ["next"], "u": ["up"]}.get((element.get("accesskey") or "").lower(), [])  # "Next" buttons
        title = (element.get("title") or "").lower()  # texi2html's: title="Next chapter", "Up section"
        rels += ["next"] if title.startswith("next") else ["up"] if title.split()[:1] == ["up"] else []
        target = _within(here, element.get("href") or "")
        for rel in ("next", "up"):
            if rel in rels and target and rel not in links:
                links[rel] = target
        if target and element.tag == "a" and not rels:  # a page's own links, not its navigation's rel ones
            shown.append(target)
    links["all"] = shown
    return links


def _within(here: str, href: str) -> str:
    """The path from the folder read of the file a relative href names from a page in its
    subfolder ``here`` ('' for the folder itself), else '' (a URL, an absolute path, a path out
    of the folder)."""
    parts = urlsplit(href.strip())
    if parts.scheme or parts.netloc or not parts.path or parts.path.startswith("/"):
        return ""
    path = posixpath.normpath(posixpath.join(here, unquote(parts.path)))
    return "" if path in (".", "..") or path.startswith("../") else path


def _file_named(href: str) -> str:
    """The file name a relative or repository-absolute link ends on (a README's ``/docs/api.md``,
    ``docs/api.md``: Markdown folders are copied out of their repositories), else ''."""
    parts = urlsplit(href.strip())
    if parts.scheme or parts.netloc or not parts.path:
        return ""
    return posixpath.basename(unquote(parts.path))


def _toctree_entries(text: str, kind: str, here: str = "") -> list[str]:
    """The pages a Sphinx source's toctrees list, in order: ``page`` or ``Title <page>`` lines
    (options, ``self``, URLs and glob patterns are none), each a path from the folder read (the
    source in its subfolder ``here``; ``/page`` from the folder read itself)."""
    blocks = [m.group(1) for m in _RST_TOCTREE.finditer(text)] if kind == "rst" else \
        [m.group(2) for m in _MYST_TOCTREE.finditer(text)]
    entries: list[str] = []
    for block in blocks:
        for line in block.splitlines():
            entry = line.strip()
            titled = _TITLED_ENTRY.search(entry)
            entry = titled.group(1).strip() if titled else entry
            if not entry or entry.startswith(":") or entry == "self" or "*" in entry or "://" in entry:
                continue
            entries.append(entry[1:] if entry.startswith("/") else _within(here, entry))
    return [e for e in entries if e]


def path_documents(paths: Sequence[Path], read: Callable[[Path], bytes | None],
                   parents: dict[Path, Path] | None = None) -> list[list[Path]]:
    """``documents`` of a folder's files given as paths, each named by its path from the folder
    holding them all (each a document alone, as given, when two resolve to one name: links
    cannot tell them apart)."""
    top = Path(os.path.commonpath([p.parent for p in paths])) if paths else Path()
    by_name = {p.relative_to(top).as_posix(): p for p in paths}
    if len(by_name) < len(paths):
        return [[p] for p in paths]
    named: dict[str, str] = {}
    found = documents(list(by_name), lambda n: read(by_name[n]), named)
    if parents is not None:
        parents.update((by_name[page], by_name[above]) for page, above in named.items())
    return [[by_name[n] for n in document] for document in found]
