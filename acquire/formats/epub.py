"""EPUB (.epub), the e-book format many programming tutorials are saved in: a zip whose
``META-INF/container.xml`` names the package file (OPF), whose spine lists the book's XHTML
content documents in reading order. Each is read by the HTML reader (``html.read_page``) into one
Document, so the chapters' headings make one TOC in spine order; the book is titled by the
package's ``dc:title`` (else, as every document, by its top heading). The navigation document
(EPUB 3's ``properties="nav"`` item, EPUB 2's NCX) and spine items marked ``linear="no"`` are
chrome, not read.

A book is a stranger's archive: nothing outside the zip is looked at (a path of the package that
climbs out with "../" names a file the book does not hold), no XML entity, DTD or network
resource is loaded, and members are inflated by bounded reads, never more than the text limit in
all (a zip bomb is refused once past it, not inflated whole). A book whose
``META-INF/encryption.xml`` encrypts its content documents (DRM) is refused as encrypted; fonts
obfuscated as EPUB allows are no content.

The book's own table of contents (the navigation document, else the NCX) sets how deep the headings
it lists are (``_leveller``): DocBook's EPUB titles a chapter and its sections alike with ``<h1>``."""

from __future__ import annotations

import bisect
import io
import posixpath
import zipfile
import zlib
from collections import defaultdict
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

from lxml import etree
from lxml import html as lxml_html

from tutorialbook.acquire.formats.document import Document, squash
from tutorialbook.acquire.formats.html import read_page
from tutorialbook.errors import NothingToLearn, TutorialbookError

CONTAINER = "META-INF/container.xml"
ENCRYPTION = "META-INF/encryption.xml"
_PAGE_TYPES = frozenset({"application/xhtml+xml", "text/html"})
_PAGE_SUFFIXES = (".xhtml", ".html", ".htm")
_NCX = "application/x-dtbncx+xml"
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")


def read_epub(data: bytes, name: str, max_bytes: int) -> Document:
    """The book's content documents in spine order as one Document; ``max_bytes``: the most its
    members may inflate to in all."""
    book = _Book(data, name, max_bytes)
    package_path = _package_path(book)
    package = book.xml(package_path, "package file")
    if _local(package) != "package":
        raise TutorialbookError("source", f"{name}: its package file {package_path} is no EPUB package "
                                          f"(it holds <{_local(package)}>)")
    doc = Document(name)
    doc.title = _title(package)
    pages = _spine(package, posixpath.dirname(package_path), book, doc)
    encrypted = _encrypted(book)
    locked = [page for page in pages if page in encrypted]
    if locked:
        raise TutorialbookError("source", f"{name} is encrypted (DRM): its {ENCRYPTION} encrypts {len(locked)} of "
                                          f"its {len(pages)} content documents; remove the DRM to read it")
    contents = _contents(package, posixpath.dirname(package_path), book)
    for page in pages:
        content = book.read(page)
        try:
            read_page(doc, content, posixpath.basename(page), _prepared(_leveller(contents.get(page, {}))))
        except NothingToLearn:
            continue  # a generated index (Sphinx's genindex.xhtml) or a page that only sends the reader on
        except TutorialbookError as exc:
            doc.warnings.append(f"{page} was not read: {exc.reason}")
    return doc


class _Book:
    """The zip, its members inflated by bounded reads: ``max_bytes`` in all."""

    def __init__(self, data: bytes, name: str, max_bytes: int):
        self.name, self.max_bytes, self.left = name, max_bytes, max_bytes
        try:
            self.zip = zipfile.ZipFile(io.BytesIO(data))
        except (zipfile.BadZipFile, zlib.error, EOFError, ValueError, OSError) as exc:
            raise TutorialbookError("source", f"{self.name} is not an EPUB: it is not a zip archive ({exc})") from exc
        self.members = frozenset(self.zip.namelist())

    def read(self, member: str) -> bytes:
        try:
            with self.zip.open(member) as handle:
                data = handle.read(self.left + 1)
        except NotImplementedError as exc:  # a RuntimeError too, so first: an unknown compression method
            raise TutorialbookError("source", f"{self.name}: its {member} is compressed in a way that cannot be "
                                              f"read ({exc})") from exc
        except RuntimeError as exc:  # zipfile's "password required"
            raise TutorialbookError("source", f"{self.name} is encrypted: its {member} needs a password") from exc
        except (zipfile.BadZipFile, zlib.error, EOFError, ValueError, OSError) as exc:
            raise TutorialbookError("source", f"{self.name} is a damaged zip archive: its {member} cannot be "
                                              f"inflated ({exc})") from exc
        if len(data) > self.left:
            raise TutorialbookError("source", f"{self.name} is over {self.max_bytes / 2**20:g} MiB decompressed, the "
                                              "limit for text (TUTORIALBOOK_MAX_TEXT_BYTES); split it or ingest its "
                                              "parts")
        self.left -= len(data)
        return data

    def xml(self, member: str, what: str) -> etree._Element:
        data = self.read(member)
        try:
            return _xml(data)
        except (etree.XMLSyntaxError, ValueError) as exc:
            raise TutorialbookError("source", f"{self.name}: its {what} {member} is not readable XML ({exc})") from exc


def _xml(data: bytes) -> etree._Element:
    """``data`` parsed as XML, loading nothing it refers to (entities, DTDs, the network)."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, remove_comments=True,
                             remove_pis=True)
    return etree.fromstring(data, parser)


def _local(el) -> str:
    """An element's name without its namespace ("rootfile" of ``{urn:…:container}rootfile``)."""
    return el.tag.rsplit("}", 1)[-1] if isinstance(el.tag, str) else ""


def _elements(root, local: str) -> list:
    return [el for el in root.iter() if _local(el) == local]


def _member(folder: str, href: str) -> str | None:
    """The zip member a URL of the book names, relative to ``folder``; None for one that is not
    inside the zip (remote, absolute, or climbing out of it with "../")."""
    path = unquote(href.split("#", 1)[0])
    if not path or "://" in href or path.startswith("/"):
        return None
    joined = posixpath.normpath(posixpath.join(folder, path))
    return None if joined == ".." or joined.startswith("../") else joined


def _package_path(book: _Book) -> str:
    if CONTAINER not in book.members:
        raise TutorialbookError("source", f"{book.name} is not an EPUB: it holds no {CONTAINER}")
    rootfiles = [el for el in _elements(book.xml(CONTAINER, "container"), "rootfile") if el.get("full-path")]
    rootfiles.sort(key=lambda el: el.get("media-type") != "application/oebps-package+xml")  # the package first
    path = _member("", rootfiles[0].get("full-path")) if rootfiles else None
    if path is None:
        raise TutorialbookError("source", f"{book.name} is not an EPUB: its {CONTAINER} names no package file")
    if path not in book.members:
        raise TutorialbookError("source", f"{book.name}: its {CONTAINER} names the package file {path}, which "
                                          "the book does not hold")
    return path


def _title(package) -> str | None:
    """The first ``dc:title``; an external entity in it, never loaded, says nothing."""
    for metadata in _elements(package, "metadata"):
        for el in metadata.iter():
            if _local(el).lower() == "title" and (title := squash(el.xpath("string()"))):
                return title
    return None


def _spine(package, folder: str, book: _Book, doc: Document) -> list[str]:
    """The content documents to read, in spine order, each once: not the navigation document, nor
    the NCX or any other item that is no page, nor one marked non-linear; what the spine names and
    the book does not hold is a warning."""
    items = {el.get("id"): el for el in _elements(package, "item") if el.get("id")}
    pages: dict[str, None] = {}
    missing: dict[str, None] = {}
    for ref in _elements(package, "itemref"):
        item = items.get(ref.get("idref"))
        if item is None or ref.get("linear", "yes").strip() == "no" or "nav" in (item.get("properties") or "").split():
            continue
        href = item.get("href") or ""
        member = _member(folder, href)
        if member is None or member not in book.members:
            missing[href] = None
        elif (item.get("media-type") or "").strip() in _PAGE_TYPES or member.lower().endswith(_PAGE_SUFFIXES):
            pages[member] = None
    if missing:
        more = f" and {len(missing) - 1} more files" if len(missing) > 1 else ""
        doc.warnings.append(f"its spine names {next(iter(missing))}{more}, which the book does not hold")
    return list(pages)


def _encrypted(book: _Book) -> frozenset[str]:
    """The members ``META-INF/encryption.xml`` encrypts (its URIs are relative to the zip's root)."""
    if ENCRYPTION not in book.members:
        return frozenset()
    root = book.xml(ENCRYPTION, "encryption file")
    return frozenset(m for el in _elements(root, "CipherReference") if (m := _member("", el.get("URI") or "")))


def _contents(package, folder: str, book: _Book) -> dict[str, dict[str, int]]:
    """The book's own table of contents, EPUB 3's navigation document's or else EPUB 2's NCX: the
    depth of each entry by page and fragment ("" for the page itself); none when it has neither
    or they cannot be read."""
    items = _elements(package, "item")
    navs = [el for el in items if "nav" in (el.get("properties") or "").split()]
    ncxs = [el for el in items if (el.get("media-type") or "").strip() == _NCX]
    for item, entries in [(el, _nav_entries) for el in navs[:1]] + [(el, _ncx_entries) for el in ncxs[:1]]:
        member = _member(folder, item.get("href") or "")
        if member not in book.members:
            continue
        depths: dict[str, dict[str, int]] = defaultdict(dict)
        for href, depth in entries(book.read(member)):
            page = _member(posixpath.dirname(member), href)
            fragment = href.split("#", 1)[1] if "#" in href else ""
            if page is not None:
                depths[page].setdefault(unquote(fragment), depth)
        if depths:
            return depths
    return {}


def _nav_entries(data: bytes) -> list[tuple[str, int]]:
    """The links of a navigation document's ``toc`` nav (else its first), each with its depth: the
    lists it is nested in."""
    parser = lxml_html.HTMLParser(no_network=True, recover=True, remove_comments=True, remove_pis=True)
    try:
        root = lxml_html.document_fromstring(data, parser=parser)
    except (etree.ParserError, ValueError):
        return []
    navs = list(root.iter("nav"))
    toc = next((nav for nav in navs if "toc" in (nav.get("epub:type") or "").split()), navs[0] if navs else None)
    if toc is None:
        return []
    entries = []
    for link in toc.iter("a"):
        lists = 0
        for up in link.iterancestors():
            if up is toc:
                break
            lists += up.tag == "ol"
        if link.get("href"):
            entries.append((link.get("href"), max(1, lists)))
    return entries


def _ncx_entries(data: bytes) -> list[tuple[str, int]]:
    """The navigation points of an NCX's map, each with its depth (the points it is nested in)."""
    try:
        root = _xml(data)
    except (etree.XMLSyntaxError, ValueError):
        return []
    entries = []
    for point in _elements(root, "navPoint"):
        content = next((el for el in point if _local(el) == "content" and el.get("src")), None)
        if content is not None:
            entries.append((content.get("src"), 1 + sum(_local(up) == "navPoint" for up in point.iterancestors())))
    return entries


def _prepared(relevel: Callable[[Any], None]) -> Callable[[Any], None]:
    """A page made ready to read: without the addresses Sphinx's EPUB writes after every link
    (``epub_show_urls = 'inline'``, its default: "the autopkgtest docs [https://salsa.debian.org/…]",
    502 times in the Ubuntu Packaging Guide; the HTML build of the same text shows none, and a
    link's address is no word of the text), its headings levelled by the book's contents."""

    def prepare(root) -> None:
        for target in list(root.iter("span")):
            if "link-target" in (target.get("class") or "").split():
                target.drop_tree()  # its tail (the sentence going on) stays
        relevel(root)

    return prepare


def _leveller(targets: dict[str, int]) -> Callable[[Any], None]:
    """What sets a page's headings' levels as the book's table of contents gives them: a heading it
    lists is at least as deep as it lists it, and the headings after it on the page go as much
    deeper (DocBook's EPUB sets a chapter's title and its sections' alike as ``<h1>``: its
    sections had been the chapters' siblings). A heading is never raised: a contents that
    lists its sections flat leaves them as the page nests them."""

    def relevel(root) -> None:
        if not targets:
            return
        headings: list[tuple[int, Any]] = []
        ids: dict[str, tuple[int, Any]] = {}
        for n, el in enumerate(e for e in root.iter() if isinstance(e.tag, str)):
            if el.tag in _HEADINGS:
                headings.append((n, el))
            for key in (el.get("id"), el.get("name")):
                if key:
                    ids.setdefault(key, (n, el))
        listed: dict[Any, int] = {}
        for fragment, depth in targets.items():
            heading = _heading_at(fragment, ids, headings)
            if heading is not None:
                listed[heading] = max(depth, listed.get(heading, 0))
        shift = 0
        for _, heading in headings:
            level = int(heading.tag[1])
            if heading in listed:
                shift = max(0, listed[heading] - level)
            heading.tag = f"h{min(6, level + shift)}"

    return relevel


def _heading_at(fragment: str, ids: dict[str, tuple[int, Any]], headings: list[tuple[int, Any]]):
    """The heading an entry of the contents points at: the page's first for the page itself; the
    heading around the element of that id (DocBook's ``<a id>`` in an ``<h1>``); else the first at
    or after it (a ``<section id>``'s own, an empty anchor's next)."""
    at, el = ids.get(fragment, (None, None)) if fragment else (0, None)
    if at is None:
        return None
    around = next(el.iterancestors(*_HEADINGS), None) if el is not None else None
    if around is not None:
        return around
    n = bisect.bisect_left(headings, at, key=lambda pair: pair[0])
    return headings[n][1] if n < len(headings) else None
