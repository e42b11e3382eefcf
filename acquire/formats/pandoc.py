"""Documents pandoc reads — Org, Word (``.docx``), OpenDocument text (``.odt``), LaTeX, DocBook,
MediaWiki, Textile: pandoc turns each into HTML and that is read as any HTML page is
(``html.py``), so its headings, lists, code blocks and tables keep their structure.

pandoc is these formats' reference converter (a reader of its own for each, maintained as one
project); it is a program, so it runs as a child process, fenced in: ``--sandbox`` (no file an
Org ``#+INCLUDE:``, a LaTeX ``\\input`` or a Word document's linked image names is read, nothing
fetched), a heap of at most ``HEAP_MB`` (``+RTS -M``) and a time limit. The program is the one the
``pypandoc-binary`` wheel ships (a dependency), else ``pandoc`` on ``PATH``. What pandoc cannot read
(a Word document that is no zip, LaTeX it cannot parse) is refused, naming the file and pandoc's
reason — or, for light markup (Org, MediaWiki, Textile), read as plain text with a warning
saying why: pandoc's Org reader takes time exponential in a table's "~" signs (zutty's KEYS.org,
14 KB, ran past a minute), and the text is still worth reading."""

from __future__ import annotations

import importlib.util
import io
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

from tutorialbook.acquire.formats.document import Document
from tutorialbook.errors import TutorialbookError

#: file suffix -> pandoc's name of its input format
PANDOC_FORMATS = {
    ".org": "org",
    ".docx": "docx",
    ".odt": "odt",
    ".tex": "latex",
    ".latex": "latex",
    ".dbk": "docbook",
    ".mediawiki": "mediawiki",
    ".textile": "textile",
}
#: formats that are zip archives, passed to pandoc as bytes
ARCHIVES = frozenset({".docx", ".odt"})
#: light markup whose words read as plain text when pandoc cannot convert it (LaTeX's would read
#: as its commands; an archive has no text to fall back on)
PLAIN_FALLBACK = frozenset({"org", "mediawiki", "textile"})
#: what each format is called in an error
_NAMES = {"org": "Org", "docx": "Word", "odt": "OpenDocument", "latex": "LaTeX",
          "docbook": "DocBook", "mediawiki": "MediaWiki", "textile": "Textile"}
#: the time pandoc is given: this, plus a second per CHARS_A_SECOND bytes (here it converts ~220 KB of
#: Org and ~470 KB of LaTeX a second: 2 MB of zutty's and with-editor's guides in 9.6 s)
SECONDS = 10.0
CHARS_A_SECOND = 100_000
#: pandoc's heap limit: a document that needs more is refused (R's 100-page manual as a Word file,
#: 1.7 MB of XML, converts within 128 MB; 170 MB of XML zipped into 0.7 MB ran into 2 GB)
HEAP_MB = 1024
#: the page pandoc writes: the document's title (Org's #+TITLE, LaTeX's \title, a Word file's core
#: properties) in <title> when it has one, its body below; no title block, which would repeat it
_PAGE = Path(__file__).with_name("data") / "pandoc_page.html"
#: a warning of pandoc's that a file the document names was not read (the sandbox)
_NOT_READ = re.compile(r"Could not (?:load include file|fetch resource)|not allowed in sandbox|PandocSandboxError")


def program() -> str | None:
    """The pandoc to run: the wheel's, else one on PATH."""
    spec = importlib.util.find_spec("pypandoc")
    if spec is not None and spec.origin:
        bundled = Path(spec.origin).parent / "files" / "pandoc"
        if bundled.is_file():
            return str(bundled)
    return shutil.which("pandoc")


def read_with_pandoc(data: str | bytes, name: str, suffix: str, title: str | None = None) -> Document:
    """The document ``data`` (text, or an archive's bytes) of format ``suffix`` (a key of
    ``PANDOC_FORMATS``), through pandoc and the HTML reader. ``title``: one pandoc's reader does not
    take (OpenDocument's), which then opens no passage of its own."""
    from tutorialbook.acquire.formats.html import read_page  # lxml, loaded when a page is read

    fmt = PANDOC_FORMATS[suffix]
    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:
        page, warnings = _convert(raw, fmt, name, title)
    except _Unconverted as exc:
        if fmt not in PLAIN_FALLBACK or not isinstance(data, str):
            raise TutorialbookError("source", str(exc)) from exc
        from tutorialbook.acquire.formats.plain import read_plain

        doc = read_plain(data, name)
        doc.warnings.append(f"{exc}; read as plain text")
        return doc
    doc = Document(name)
    doc.title = read_page(doc, page, name, prepare=lambda root: _prepared(root, title))
    skipped = [w for w in warnings if _NOT_READ.search(w)]
    if skipped:
        doc.warnings.append(f"{name}: {len(skipped)} file(s) it names were not read (pandoc reads no other file: "
                            f"{_first_line(skipped[0])})")
    return doc


def _prepared(root, title: str | None) -> None:
    _named_sections(root)
    if title:  # the title's own paragraph, which pandoc's OpenDocument reader leaves in the body
        first = next((el for el in root.iter("p", "h1", "h2", "h3", "h4", "h5", "h6")), None)
        if first is not None and first.tag == "p" and " ".join(first.text_content().split()) == title:
            first.drop_tree()


def _named_sections(root) -> None:
    """Org's link to a section of its own (``[[*Using it]]``), which pandoc writes as a
    "spurious-link" span showing the target as written: the section's name, without Org's ``*``."""
    for span in root.iter("span"):
        if "spurious-link" in (span.get("class") or "").split() and (span.get("target") or "").startswith("*"):
            shown = next((el for el in span.iter() if (el.text or "").startswith("*")), None)
            if shown is not None:
                shown.text = shown.text[1:]


class _Unconverted(Exception):
    """pandoc ran and did not convert the document (the message says why, naming it)."""


def read_archive(data: bytes, name: str, suffix: str, max_bytes: int) -> Document:
    """A Word or OpenDocument file (``ARCHIVES``): its zip's XML, as the members declare it, at most
    ``max_bytes`` inflated (a file of a few hundred KB can inflate to gigabytes of XML, which pandoc
    would hold in memory until its heap or time ran out), then ``read_with_pandoc``. Its images do
    not count: pandoc does not read them into text."""
    try:
        members = zipfile.ZipFile(io.BytesIO(data)).infolist()
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        kind = _NAMES[PANDOC_FORMATS[suffix]]
        raise TutorialbookError("source", f"{name} is not a readable {kind} document: it is not a zip "
                                          f"archive ({exc})") from exc
    inflated = sum(m.file_size for m in members if m.filename.lower().endswith(".xml"))
    if inflated > max_bytes:
        raise TutorialbookError("source", f"{name} inflates to {inflated / 2**20:.0f} MiB of XML, over the "
                                          f"{max_bytes / 2**20:.0f} MiB limit")
    title = _odt_title(data) if suffix == ".odt" else None
    return read_with_pandoc(data, name, suffix, title)


_ODF_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
_ODF_STYLE = "urn:oasis:names:tc:opendocument:xmlns:style:1.0"


def _odt_title(data: bytes) -> str | None:
    """An OpenDocument text's title: its first paragraph in the "Title" style, or in an automatic
    style made from it (LibreOffice's "P1" with "Title" as parent). pandoc's reader keeps that
    paragraph as body text and gives the document no title, so the tutorial was named after its
    first heading. No entity or DTD is loaded; a content.xml that does not parse gives none."""
    from lxml import etree

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zipped:
            root = etree.fromstring(zipped.read("content.xml"),
                                    etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False))
    except (KeyError, zipfile.BadZipFile, etree.XMLSyntaxError, ValueError, OSError, NotImplementedError,
            RuntimeError):  # no content.xml, a bad zip, XML that does not parse, a compression or password
        return None  # zipfile cannot open: no title here; pandoc then reads the file, or refuses it saying why
    styled = {"Title"} | {style.get(f"{{{_ODF_STYLE}}}name") for style in root.iter(f"{{{_ODF_STYLE}}}style")
                          if style.get(f"{{{_ODF_STYLE}}}parent-style-name") == "Title"}
    for para in root.iter(f"{{{_ODF_TEXT}}}p", f"{{{_ODF_TEXT}}}h"):
        if para.get(f"{{{_ODF_TEXT}}}style-name") in styled:
            return " ".join("".join(para.itertext()).split()) or None
    return None


def _convert(raw: bytes, fmt: str, name: str, title: str | None = None) -> tuple[bytes, list[str]]:
    binary = program()
    if binary is None:
        raise TutorialbookError("source", f"{name}: reading {_NAMES[fmt]} needs pandoc, which is not installed "
                                          "(pip install pypandoc-binary, or your system's pandoc package)")
    limit = SECONDS + len(raw) / CHARS_A_SECOND
    command = [binary, "+RTS", f"-M{HEAP_MB}m", "-RTS", "--sandbox", "--from", fmt, "--to", "html5",
               "--template", str(_PAGE), "--wrap=none", "--no-highlight"]
    if title:
        command += ["--metadata", f"title={title}"]
    try:
        done = subprocess.run(command, input=raw, capture_output=True, timeout=limit, check=False)
    except subprocess.TimeoutExpired as exc:
        raise _Unconverted(f"{name}: pandoc took over {limit:.0f} s to read it as {_NAMES[fmt]}") from exc
    messages = done.stderr.decode("utf-8", "replace")
    if done.returncode != 0:
        if "Heap exhausted" in messages or "heap overflow" in messages:
            reason = f"converting it needs more than {HEAP_MB} MB"
        else:
            errors = [m for m in messages.splitlines() if m.strip() and not m.startswith("[WARNING]")]
            reason = " ".join(line.strip() for line in errors[:3])[:300] or f"pandoc exited with {done.returncode}"
        raise _Unconverted(f"{name} is not a readable {_NAMES[fmt]} document: {reason}")
    return done.stdout, [m for m in messages.split("[WARNING]") if m.strip()]


def _first_line(message: str) -> str:
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    return lines[0][:200] if lines else ""
