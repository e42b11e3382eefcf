"""Document readers, one module per format, each giving a Transcript of headings and blocks
(acquire/formats/document.py) with the document's own title."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tutorialbook.acquire.formats.pandoc import ARCHIVES, PANDOC_FORMATS
from tutorialbook.acquire.transcript import Transcript

if TYPE_CHECKING:
    from tutorialbook.acquire.formats.document import Document

DOCUMENT_EXTENSIONS = frozenset({".md", ".markdown", ".rst", ".html", ".htm", ".xhtml", ".ipynb", ".pdf", ".adoc",
                                 ".asciidoc", ".info", ".epub"}) | frozenset(PANDOC_FORMATS)
BINARY_FORMATS = frozenset({".html", ".pdf", ".info", ".epub"}) | ARCHIVES
"""Read as bytes: the reader decodes (an HTML page's declared charset, an Info file's control
bytes) or parses them itself (a PDF, an EPUB's or a Word document's zip)."""


def document_format(path: Path) -> str | None:
    """The reader a file needs, by name: Sphinx's ``_sources`` copies (``x.rst.txt``, ``x.md.txt``
    of MyST pages, ``x.ipynb.txt`` of notebooks) are read as what they copy."""
    name = path.name.lower()
    for copied in (".rst", ".md", ".ipynb"):
        if name.endswith(copied + ".txt"):
            return copied
    suffix = path.suffix.lower()
    if re.fullmatch(r"\.info-\d{1,3}", suffix):  # a part of a split Info manual ("find.info-1")
        return ".info"
    if suffix in (".htm", ".xhtml"):
        return ".html"
    if suffix == ".markdown":
        return ".md"
    if suffix == ".asciidoc":
        return ".adoc"
    return suffix if suffix in DOCUMENT_EXTENSIONS else None


def read_document(fmt: str, data: str | bytes, name: str, labels: Mapping[str, str] | None = None) -> Transcript:
    """``labels``: for reStructuredText, the section titles of the files beside it by label
    (``rst.sphinx_labels``), which its ``:ref:``s name."""
    read: Callable[[Any, str], Document]  # str, or bytes for BINARY_FORMATS: the caller reads the file so
    if fmt == ".md":
        from tutorialbook.acquire.formats.markdown import read_markdown as read
    elif fmt == ".rst":
        from tutorialbook.acquire.formats.rst import read_rst

        return read_rst(str(data), name, labels).transcript()
    elif fmt == ".html":
        from tutorialbook.acquire.formats.html import read_html as read
    elif fmt == ".ipynb":
        from tutorialbook.acquire.formats.notebook import read_notebook as read
    elif fmt == ".adoc":
        from tutorialbook.acquire.formats.asciidoc import read_asciidoc as read
    elif fmt == ".pdf":
        from tutorialbook.acquire.formats.pdf import read_pdf as read
    elif fmt == ".info":
        from tutorialbook.acquire.formats.info import read_info as read
    elif fmt in PANDOC_FORMATS:
        from tutorialbook.acquire.formats.pandoc import read_with_pandoc

        return read_with_pandoc(data, name, fmt).transcript()
    else:
        raise ValueError(f"no reader for {fmt}")
    return read(data, name).transcript()
