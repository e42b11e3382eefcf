"""Acquire: turn a source file into a Transcript (plain text and subtitles here; documents
through acquire/formats/; media through transcription). A folder is expanded into its
supported files in reading order (acquire/reading_order.py)."""

from __future__ import annotations

import hashlib
import os
import re
import stat
import zlib
from pathlib import Path
from typing import Callable, Mapping

from tutorialbook.errors import Cancelled, TutorialbookError
from tutorialbook.acquire.formats import BINARY_FORMATS, DOCUMENT_EXTENSIONS, document_format, read_document
from tutorialbook.acquire.formats.pandoc import ARCHIVES
from tutorialbook.acquire.reading_order import path_documents, reached
from tutorialbook.acquire.roots import SourcePolicy
from tutorialbook.acquire.transcript import Segment, Transcript

TEXT_EXTENSIONS = frozenset({".txt"})  # plain text; Markdown and the rest are DOCUMENT_EXTENSIONS
SUBTITLE_EXTENSIONS = frozenset({".srt", ".vtt"})
#: text files a domain pack reads (its reader is given to ``read_source``: acquire/ imports no pack)
PGN_EXTENSIONS = frozenset({".pgn"})
MAX_TEXT_BYTES = 20 * 1024 * 1024
#: what an ingest reads, in words, for the CLI's and the MCP tool's help (from the sets above)
SOURCES_HELP = ("a video or audio file, " + "/".join(sorted(SUBTITLE_EXTENSIONS)) + " subtitles, a document ("
                + ", ".join(sorted(TEXT_EXTENSIONS | DOCUMENT_EXTENSIONS))
                + "; Sphinx's .rst.txt, .md.txt, .ipynb.txt sources too; any of these gzipped, as README.md.gz), "
                + "a " + "/".join(sorted(PGN_EXTENSIONS)) + " chess game, or a folder of these (with the pages "
                + "in its subfolders that its manual's next links and toctrees lead to)")
TITLE_HELP = "tutorial title (empty: the document's own title or first heading, else the file name)"


def media_extensions() -> frozenset[str]:
    from tutorialbook.acquire.transcribe import MEDIA_EXTENSIONS

    return MEDIA_EXTENSIONS


def supported_extensions() -> frozenset[str]:
    return TEXT_EXTENSIONS | DOCUMENT_EXTENSIONS | SUBTITLE_EXTENSIONS | PGN_EXTENSIONS | media_extensions()


GZIP = ".gz"
"""Debian compresses the documents of /usr/share/doc over 4 KB (README.md.gz): a text source
gzipped is read as the source it holds, its size bounded after decompression."""


def inner(path: Path) -> Path:
    """The file a gzipped source stands for (``README.md.gz`` reads as ``README.md``)."""
    return path.with_name(path.name[:-len(GZIP)]) if path.name.lower().endswith(GZIP) else path


def readable(path: Path) -> bool:
    """Whether an ingest reads this file: a supported type, or a text one gzipped (not media), or
    text named without an extension."""
    if path.suffix.lower() == GZIP:
        named = inner(path)
        return (named.suffix.lower() in supported_extensions() - media_extensions()
                or document_format(named) is not None or _unnamed_text(path))
    return path.suffix.lower() in supported_extensions() or document_format(path) is not None or _unnamed_text(path)


def _unnamed_text(path: Path) -> bool:
    """A text file named without an extension, as /usr/share/doc names its README, FAQ and
    QuickStart (gzipped too): its first 8 KB printable text. Not a hidden file nor a program
    (executable, or opening with "#!")."""
    named = inner(path)
    if named.suffix or named.name.startswith("."):
        return False
    try:  # as _read_bytes opens: a FIFO swapped in must not block
        with os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC), "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_mode & 0o111:
                return False
            head = handle.read(_SNIFF_BYTES)
        if named != path:
            head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head, _SNIFF_BYTES)
    except (OSError, zlib.error):
        return False
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as exc:  # a character cut at the end of the 8 KB is still text
        if exc.start < len(head) - 3:
            return False
        text = head[:exc.start].decode("utf-8")
    printable = sum(ch.isprintable() or ch.isspace() for ch in text)
    return bool(text.strip()) and "\x00" not in text and not text.startswith("#!") and printable >= 0.95 * len(text)


_SNIFF_BYTES = 8192


#: file names a folder's reading passes over, what each such file is: a licence or copyright
#: notice (Debian's ``copyright``, ``COPYING``, ``LICENSE.md``, ``NOTICE``: each of /usr/share/doc's
#: folders holds ``copyright``, which had become a chapter of "Files: … Copyright: …" sections) and
#: a change log (mako's Sphinx ``changelog.html``, 31% of its book: release after release of "[bug]
#: Fixed …", dates and credits outranking the manual). Neither teaches how to do anything.
_EXTRAS = r"(?:[._-](?:lib|lesser|gpl|lgpl|mit|bsd|apache|\d[\w.]*|txt|md|rst|markdown|html?|xhtml))*"
_UNTAUGHT = ((re.compile(r"(?:copying|copyright|notice|(?:un)?licen[cs]e)" + _EXTRAS, re.I),
              "a licence or copyright notice"),
             (re.compile(r"(?:change[-_]?log|changes|release[-_]?notes|whats[-_]?new)" + _EXTRAS, re.I),
              "a change log"))


def untaught(path: Path) -> str:
    """What a file is by its name (gzipped too) when a folder's reading passes it over, else ''."""
    name = inner(path).name
    return next((what for pattern, what in _UNTAUGHT if pattern.fullmatch(name)), "")


def unsupported_reason(path: Path) -> str:
    """Why an ingest does not read this file, and what it reads."""
    if (what := untaught(path)) and readable(path):
        return f"{path.name} is {what}, which teaches nothing (name the file alone to read it)"
    return (f"unsupported file type {path.suffix or '(none)'!r} for {path.name}; "
            f"supported: {', '.join(sorted(supported_extensions()))} (the text ones also gzipped, as README.md.gz; "
            "a text file without an extension, as README, is read as text)")


def expand(source: str, policy: SourcePolicy) -> list[Path]:
    """The files a source names: itself, or a folder's supported files and the pages of its
    subfolders its manual's reading order leads to (not the others: a documentation tree often
    holds each page twice, as HTML and as its source) in the order its pages' next/up links and
    toctrees give (acquire/reading_order.py), else by name; each resolved (symlinks followed) and
    allowed by ``policy`` (acquire/roots.py)."""
    return [path for document in expand_documents(source, policy) for path in document]


def expand_documents(source: str, policy: SourcePolicy,
                     parents: dict[Path, Path] | None = None) -> list[list[Path]]:
    """``expand``'s files as the documents they make: the pages linked into one manual together
    (a file alone, a folder's unlinked files, each one). ``parents``, when given, receives the
    page each section page names as its parent (``reading_order.documents``)."""
    if not source or not source.strip():
        raise TutorialbookError("source", "is empty; give a file or folder path")
    if re.match(r"^[a-z][a-z0-9+.-]*://", source) and not source.startswith("file://"):
        raise TutorialbookError(
            "source", f"{source!r} is a URL; URLs are not supported offline, download it and pass the file"
        )
    given = source.removeprefix("file://")
    path = policy.resolve(given)  # nothing outside the roots is looked at
    try:
        st = path.stat()
        entries = sorted(path.iterdir(), key=lambda p: p.name) if stat.S_ISDIR(st.st_mode) else None
    except FileNotFoundError:
        raise TutorialbookError("source", f"{given} does not exist") from None
    except OSError as exc:
        raise TutorialbookError("source", f"cannot read {given}: {exc.strerror}") from None
    if entries is not None:
        allowed = [real for real in (Path(os.path.realpath(p)) for p in entries) if policy.allows(real)]
        files = [real for real in allowed if not untaught(real) and readable(real)]  # nothing private is read
        if not files:
            folders = subfolders_with_pages(path)
            inside = (f"; subfolders are not read, ingest one of them ({', '.join(folders[:5])}"
                      f"{', ...' if len(folders) > 5 else ''})" if folders else "")
            passed = [p.name for p in entries if untaught(p) and not p.is_dir()]
            inside += (f"; {', '.join(passed[:5])}{', ...' if len(passed) > 5 else ''}: licences and change logs "
                       "are not read in a folder, name one alone to read it" if passed else "")
            raise TutorialbookError(
                "source",
                f"folder {given} holds no supported files ({', '.join(sorted(supported_extensions()))}){inside}")
        files = _without_info_parts(files)
        below = _manual_below(path, policy)
        checked = [policy.check_file(str(f), f) for f in files + [p for p in below if not untaught(p)]]
        # a licence page on the way keeps its place in the order, and is not read (Celery's index leads on by it)
        on_the_way = [real for real in allowed if untaught(real) and readable(real)] + [
            p for p in below if untaught(p)] if below else []
        documents = path_documents(checked + on_the_way, lambda f: _links_of(f, policy.max_text_bytes), parents)
        if on_the_way:
            leaving = set(on_the_way)
            if parents is not None:
                for page in [page for page, above in parents.items() if {page, above} & leaving]:
                    del parents[page]
            documents = [kept for document in documents if (kept := [p for p in document if p not in leaving])]
        return documents
    if not readable(path):
        raise TutorialbookError("source", unsupported_reason(path))
    return [[policy.check_file(given, path, st)]]


#: entries of a subfolder looked at for a page it holds (a folder of 100,000 images costs no more)
SUBFOLDER_LOOK = 200


def subfolders_with_pages(folder: Path) -> list[str]:
    """The names of ``folder``'s subfolders that hold a page an ingest would read, by its name (a
    Sphinx tree's ``intro/``, not its ``_static/``): an ingest of a folder does not read them, and
    says so. Hidden and symlinked folders are not looked into; of each, its first ``SUBFOLDER_LOOK``
    entries only."""
    found = []
    for sub in sorted(folder.iterdir(), key=lambda p: p.name):
        if sub.name.startswith(".") or sub.is_symlink() or not sub.is_dir():
            continue
        try:
            with os.scandir(sub) as entries:
                names = [Path(e.path) for _, e in zip(range(SUBFOLDER_LOOK), entries)
                         if not e.name.startswith(".") and e.is_file(follow_symlinks=False)]
        except OSError:
            continue
        if any(inner(n).suffix and readable(n) and not untaught(n) for n in names):
            found.append(sub.name)
    return found


#: a folder's subfolders looked into for the pages of its manual: how deep, and how many entries at most
TREE_DEPTH = 6
TREE_ENTRIES = 20_000


def _manual_below(folder: Path, policy: SourcePolicy) -> list[Path]:
    """The pages in ``folder``'s subfolders that its own pages lead to by their manual's reading
    order (``reading_order.reached``: a Sphinx package's ``html/`` and its
    ``intro/tutorial.html``), each allowed by ``policy``. Hidden and
    symlinked folders and files are not looked at; ``TREE_DEPTH`` levels and ``TREE_ENTRIES``
    entries at most."""
    root = Path(os.path.realpath(folder))
    top: dict[str, Path] = {}
    below: dict[str, Path] = {}
    looked = 0
    for current, dirs, names in os.walk(root):
        depth = len(Path(current).relative_to(root).parts)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and depth < TREE_DEPTH
                         and not os.path.islink(os.path.join(current, d)))
        looked += len(dirs) + len(names)
        if looked > TREE_ENTRIES:
            break
        for name in sorted(names):
            file = Path(current) / name
            if not name.startswith(".") and not file.is_symlink() and policy.allows(file) \
                    and inner(file).suffix and readable(file):
                (below if depth else top)[file.relative_to(root).as_posix()] = file
    if not below:
        return []
    pages = {**top, **below}  # a licence page leads on too: Celery's index by its copyright page
    found = reached(list(top), list(below), lambda name: _links_of(pages[name], policy.max_text_bytes))
    return [below[name] for name in found]


_INFO_PART = re.compile(r"^(?P<manual>.+\.info)-\d{1,3}(?:\.gz)?$", re.I)


def _without_info_parts(files: list[Path]) -> list[Path]:
    """A folder's files less the parts of a split Info manual whose first file is there too:
    that one reads them (``_info_manual``), they are no tutorials of their own."""
    names = {f.name.lower() for f in files}
    return [f for f in files if not ((m := _INFO_PART.match(f.name))
                                     and {m["manual"].lower(), m["manual"].lower() + GZIP} & names)]


def _links_of(path: Path, max_bytes: int) -> bytes | None:
    """A page's bytes for finding its links to the pages beside it; None when unreadable (that
    page keeps its place by name, its ingest reports why)."""
    try:
        return _read_bytes(path, max_bytes)
    except (TutorialbookError, OSError):
        return None


def content_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_source(path: Path, max_text_bytes: int = MAX_TEXT_BYTES,
                readers: Mapping[str, Callable[[str, str], Transcript]] | None = None,
                policy: SourcePolicy | None = None, **media_options) -> Transcript:
    """Read any supported file; media options (model, initial_prompt, progress, cancel,
    max_seconds) go to transcription. A cancelled transcription raises ``Cancelled``.
    ``readers`` (suffix -> reader of the text and file name) are the domain packs' readers
    (skills/domains.py ``text_readers``), for the files only a pack understands (PGN).
    ``policy``: what else the reader may read (a Sphinx page's labels in the pages beside
    it); without one, nothing but ``path``."""
    named = inner(path)  # what a gzipped source holds decides how it is read
    suffix = named.suffix.lower()
    if suffix in media_extensions() and named == path:
        from tutorialbook.acquire.media import container_title
        from tutorialbook.acquire.transcribe import TranscriptionCancelled, transcribe

        try:
            transcript = transcribe(path, **media_options)
        except TranscriptionCancelled as exc:
            raise Cancelled(str(exc)) from exc
        transcript.title = transcript.title or container_title(path)
        return transcript
    fmt = document_format(named)
    if fmt in (".info", ".epub") or fmt in ARCHIVES:
        return _read_manual(fmt, path, policy, max_text_bytes)
    if fmt is not None:
        content = _read_bytes(path, max_text_bytes) if fmt in BINARY_FORMATS else _read_text(path, max_text_bytes)
        labels = None
        if fmt == ".rst" and policy is not None:  # its :ref:s and :doc:s may name pages beside it
            from tutorialbook.acquire.formats.rst import sphinx_labels

            labels = sphinx_labels(path, policy, str(content))
        return read_document(fmt, content, named.name, labels)
    data = _read_bytes(path, max_text_bytes)
    if not suffix:  # README, FAQ: text named without an extension (``_unnamed_text``)
        suffix = ".txt"
    if suffix in TEXT_EXTENSIONS:
        from tutorialbook.acquire.formats.info import looks_like_info

        if looks_like_info(data):  # an Info manual saved as text: its index's cookies are control bytes
            return read_document(".info", data, named.name)
    text = _text(data, path)
    if suffix in SUBTITLE_EXTENSIONS:
        return parse_subtitles(text, named.name)
    if readers is not None and suffix in readers:
        return readers[suffix](text, named.name)
    if suffix in PGN_EXTENSIONS:
        raise TutorialbookError("source", f"{path.name}: a {suffix} file is read by a domain pack's reader, "
                                          "and none was given")
    from tutorialbook.acquire.formats.asciidoc import looks_like_asciidoc

    from tutorialbook.acquire.formats.rst import looks_like_rst

    if suffix in TEXT_EXTENSIONS and looks_like_asciidoc(text):
        return read_document(".adoc", text, named.name)
    if suffix in TEXT_EXTENSIONS and looks_like_rst(text):  # docutils' own documentation is .txt
        return read_document(".rst", text, named.name)
    from tutorialbook.acquire.formats.markdown import looks_like_markdown

    if suffix in TEXT_EXTENSIONS and looks_like_markdown(text):  # Markdown saved as text
        return read_document(".md", text, named.name)
    return parse_plain(text, named.name)


def _read_manual(fmt: str, path: Path, policy: SourcePolicy | None, max_bytes: int) -> Transcript:
    """A manual made of more than its file's bytes, read whole under the one limit: an Info
    manual with its parts (``_info_manual``), an EPUB's zip with the members it inflates to, a
    Word or OpenDocument file's zip with the XML it inflates to."""
    data = _read_bytes(path, max_bytes)
    if fmt == ".epub":
        from tutorialbook.acquire.formats.epub import read_epub

        return read_epub(data, inner(path).name, max_bytes).transcript()
    if fmt in ARCHIVES:
        from tutorialbook.acquire.formats.pandoc import read_archive

        return read_archive(data, inner(path).name, fmt, max_bytes).transcript()
    return read_document(fmt, _info_manual(path, data, policy, max_bytes), inner(path).name)


def _info_manual(path: Path, data: bytes, policy: SourcePolicy | None, max_bytes: int) -> bytes:
    """An Info manual whole: a split one's first file with the parts its Indirect table names,
    read from beside it (gzipped or not) as ``policy`` allows, at most ``max_bytes`` in all;
    without a policy, or a part missing, only what was given (``read_info`` then says which)."""
    from tutorialbook.acquire.formats.info import joined, part_names

    names = part_names(data)
    if not names or policy is None:
        return data
    parts, total = [], len(data)
    for name in names:
        try:  # resolved inside the roots before anything is looked at
            found = [real for real in (policy.resolve(str(path.parent / (name + end))) for end in ("", GZIP))
                     if real.exists()]
            if not found:
                return data
            part = _read_bytes(policy.check_file(name, found[0]), max_bytes - total)
        except TutorialbookError as exc:
            raise TutorialbookError("source", f"{path.name}: its part {name} cannot be read: {exc.reason}") from exc
        total += len(part)
        parts.append(part)
    return joined(data, parts)


def _read_bytes(path: Path, max_bytes: int = MAX_TEXT_BYTES) -> bytes:
    """A document's bytes, read only if it is a regular file and at most ``max_bytes`` long (the
    size is checked on the open file, and the read is bounded even if the file grows)."""
    try:
        # O_NONBLOCK: a FIFO swapped in after the checks must not block the open
        with os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC), "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise TutorialbookError("source", f"{path.name} is not a regular file")
            if info.st_size > max_bytes:
                raise TutorialbookError("source", _too_big(path, max_bytes))
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise TutorialbookError("source", f"cannot read {path}: {exc.strerror}") from exc
    if len(data) > max_bytes:
        raise TutorialbookError("source", _too_big(path, max_bytes))
    if inner(path) != path:
        data = _gunzip(data, path, max_bytes)
    if not data.strip():
        raise TutorialbookError("source", f"{path.name} is empty")
    return data


def _gunzip(data: bytes, path: Path, max_bytes: int) -> bytes:
    """A gzipped source's content, never more than ``max_bytes`` of it decompressed (a small file
    that inflates to gigabytes is refused after ``max_bytes + 1``, not read whole)."""
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(data, max_bytes + 1)
    except zlib.error as exc:
        raise TutorialbookError("source", f"{path.name} is not a readable gzip file ({exc})") from exc
    if len(out) > max_bytes or inflater.unconsumed_tail:
        raise TutorialbookError("source", _too_big(path, max_bytes) + " (decompressed)")
    if not inflater.eof:
        raise TutorialbookError("source", f"{path.name} is cut short: its gzip stream ends early")
    return out


def _too_big(path: Path, max_bytes: int) -> str:
    return (f"{path.name} is over {max_bytes / 2**20:g} MiB, the limit for text (TUTORIALBOOK_MAX_TEXT_BYTES); "
            "split it or ingest its parts")


_OVERSTRUCK = re.compile(r"[^\n]\x08")
_TERMINAL = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _read_text(path: Path, max_bytes: int = MAX_TEXT_BYTES) -> str:
    """The file's text: its bytes (``_read_bytes``), UTF-8 and printable."""
    return _text(_read_bytes(path, max_bytes), path)


def _text(data: bytes, path: Path) -> str:
    """A file's bytes as text, if they are UTF-8 and printable."""
    if b"\x00" in data:
        raise TutorialbookError("source", f"{path.name} is binary, not text")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise TutorialbookError("source", f"{path.name} is not UTF-8 text (byte {exc.start})") from exc
    # nroff's bold ("B\bB") and underline ("_\bB"): the letter alone; a terminal's colours: nothing
    text = _TERMINAL.sub("", _OVERSTRUCK.sub("", text))
    printable = sum(ch.isprintable() or ch.isspace() for ch in text)
    if printable < 0.95 * len(text):
        raise TutorialbookError("source", f"{path.name} does not look like text")
    return text


def parse_markdown(text: str, name: str = "markdown") -> Transcript:
    """A Markdown text (acquire/formats/markdown.py) as a Transcript."""
    return read_document(".md", text, name)


def parse_plain(text: str, name: str = "text") -> Transcript:
    """Plain text, its headings, code, lists and paragraphs as its layout shows them
    (acquire/formats/plain.py)."""
    from tutorialbook.acquire.formats.plain import read_plain

    return read_plain(text, name).transcript()


_CUE_TIME = re.compile(
    r"(?:(\d+):)?(\d{1,2}):(\d{2})[.,](\d{1,3})\s*-->\s*(?:(\d+):)?(\d{1,2}):(\d{2})[.,](\d{1,3})"
)
_TAG = re.compile(r"<[^>]+>|\{\\[^}]*\}")


def _seconds(h: str | None, m: str, s: str, ms: str) -> float:
    return int(h or 0) * 3600 + int(m) * 60 + int(s) + int(ms.ljust(3, "0")) / 1000


def parse_subtitles(text: str, name: str = "subtitles") -> Transcript:
    """SRT or WebVTT cues, regrouped into sentences that keep the cues' times."""
    cues: list[Segment] = []
    for block in re.split(r"\n\s*\n", text.replace("\r\n", "\n")):
        lines = block.strip().splitlines()
        for i, line in enumerate(lines):
            match = _CUE_TIME.search(line)
            if match:
                start = _seconds(*match.groups()[:4])
                end = _seconds(*match.groups()[4:])
                body = _TAG.sub("", " ".join(lines[i + 1 :])).strip()
                if body:
                    cues.append(Segment(start, max(end, start), body))
                break
    if not cues:
        raise TutorialbookError("source", f"{name} has no subtitle cues (expected 'HH:MM:SS,mmm --> HH:MM:SS,mmm')")
    return Transcript(sentences_from_cues(cues), duration=max(c.end for c in cues), timed=True)


def sentences_from_cues(cues: list[Segment]) -> list[Segment]:
    """Join cue fragments until a sentence ends, so a segment is one whole thought."""
    out: list[Segment] = []
    parts: list[str] = []
    start = 0.0
    for cue in cues:
        if not parts:
            start = cue.start
        parts.append(cue.text)
        if re.search(r"[.!?…][\"')\]]*$", cue.text) or len(parts) >= 6:
            out.append(Segment(start, cue.end, " ".join(parts)))
            parts = []
    if parts:
        out.append(Segment(start, cues[-1].end, " ".join(parts)))
    return out
