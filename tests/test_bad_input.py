"""Bad input gets a clear error naming the field, and nothing is written."""

import gzip

import pytest

from tests.support.examples import EXAMPLES
from tests.support.documents import CONTAINER_XML, epub_package, write_epub, write_pdf, xhtml
from tutorialbook.acquire.sources import MAX_TEXT_BYTES
from tutorialbook.errors import NotFound, TutorialbookError
from tutorialbook.library import Library
from tutorialbook.models import SkillFeedback

TABLES = ("books", "tutorials", "segments", "nodes", "skills", "lessons")


def snapshot(library):
    return {t: library.store.count(t) for t in TABLES}


def expect(field, words, fn, *args, **kwargs):
    with pytest.raises(TutorialbookError) as info:
        fn(*args, **kwargs)
    assert info.value.field == field
    for word in words:
        assert word in info.value.reason, info.value.reason
    return info.value


@pytest.mark.parametrize(
    "name, content, words",
    [
        ("empty.md", b"", ["empty"]),
        ("blank.txt", b"  \n\n  \n", ["empty"]),
        ("garbage.md", bytes(range(256)) * 40, ["binary"]),
        ("latin1.md", "caf\xe9 cr\xe8me".encode("latin-1"), ["UTF-8"]),
        ("slides.pptx", b"PK\x03\x04 not really", ["unsupported file type '.pptx'"]),
        ("notes.docx", b"PK\x03\x04 not really", ["notes.docx is not a readable Word document"]),
        ("notes.odt", b"PK\x03\x04 not really", ["notes.odt is not a readable OpenDocument document"]),
        ("broken.tex", b"\\begin{document}\n\\centering{\n", ["broken.tex is not a readable LaTeX document"]),
        ("headings-only.md", b"# Title\n\n## Section\n", ["no paragraphs"]),
        ("nocues.srt", b"1\nhello there\n", ["no subtitle cues"]),
        ("no-text.html", b"<html><head><title></title><script>var a = 1;</script></head>"
                         b"<body><div><span></div></table></p><nav><a href='/'>Home</a></nav></body></html>",
         ["no-text.html holds no text"]),
        ("binary.html", b"<html>\x00\x01\x02" * 50, ["binary.html is binary"]),
        ("broken.ipynb", b'{"cells": [{"cell_type": "markdown", "source": ', ["broken.ipynb is not valid JSON"]),
        ("list.ipynb", b"[1, 2, 3]", ["list.ipynb is not a Jupyter notebook"]),
        ("fake.pdf", b"%PDF-1.4 this is not really a PDF at all", ["fake.pdf is not a readable PDF"]),
        ("notes.md.gz", b"# Notes\n\nnot gzip at all\n", ["notes.md.gz is not a readable gzip file"]),
        ("cut.md.gz", gzip.compress(b"# Notes\n\n" + b" ".join(b"%d" % i for i in range(3000)), mtime=0)[:400],
         ["cut.md.gz is cut short"]),
        ("talk.mp4.gz", gzip.compress(b"not a video", mtime=0), ["unsupported file type '.gz'"]),
    ],
)
def test_bad_sources(library, tmp_path, name, content, words):
    library.ensure_book("b")
    before = snapshot(library)
    path = tmp_path / name
    path.write_bytes(content)
    expect("source", words, library.ingest, str(path), book="b")
    assert snapshot(library) == before


@pytest.mark.parametrize("kind, words", [
    ("encrypted", ["locked.pdf is an encrypted PDF", "password"]),
    ("image-only", ["locked.pdf has no text layer", "OCR"]),
])
def test_unreadable_pdfs(library, tmp_path, kind, words):
    library.ensure_book("b")
    before = snapshot(library)
    path = write_pdf(tmp_path / "locked.pdf", encrypt=kind == "encrypted", text=kind != "image-only")
    expect("source", words, library.ingest, str(path), book="b")
    assert snapshot(library) == before


@pytest.mark.parametrize("name", ["huge.md", "huge.html", "huge.pdf", "huge.rst.txt", "huge.ipynb", "huge.txt",
                                  "huge.epub", "huge.docx", "huge.org"])
def test_documents_over_the_size_limit(library, tmp_path, name):
    library.ensure_book("b")
    before = snapshot(library)
    path = tmp_path / name
    with open(path, "wb") as handle:  # sparse: the size is checked before anything is read
        handle.write(b"# Big\n\nwords\n")
        handle.truncate(MAX_TEXT_BYTES + 1)
    expect("source", [f"{name} is over 20 MiB"], library.ingest, str(path), book="b")
    assert snapshot(library) == before


def test_a_gzipped_document_is_read_and_its_inflated_size_bounded(library, tmp_path):
    """Debian gzips the documents of /usr/share/doc (README.md.gz): one is read as the Markdown it
    holds; one that inflates past the text limit (a 20 KB file of zeros) is refused without
    being inflated whole, and nothing is written."""
    library.ensure_book("b")
    (tmp_path / "README.md.gz").write_bytes(gzip.compress(b"# Proofing bread\n\nLet the dough rise until "
                                                          b"it has doubled, about an hour.\n"))
    report = library.ingest(str(tmp_path / "README.md.gz"), book="b", refine_rounds=0).tutorials[0]
    assert report.title == "Proofing bread" and report.status == "added"
    assert any("doubled" in " ".join(s.steps) for s in library.skills("b"))
    before = snapshot(library)
    bomb = tmp_path / "bomb.md.gz"
    bomb.write_bytes(gzip.compress(b"#" + b"\0" * (MAX_TEXT_BYTES + 10)))
    assert bomb.stat().st_size < 100_000
    expect("source", ["bomb.md.gz is over 20 MiB", "decompressed"], library.ingest, str(bomb), book="b")
    assert snapshot(library) == before


XHTML = "application/xhtml+xml"
CHAPTER = xhtml("Knots", "<h1>Knots</h1><p>Tie a bowline to make a loop that does not slip.</p>")
#: a package of one chapter (OEBPS/ch1.xhtml), and that package with the chapter written
ONE_CHAPTER = epub_package("Knots", [("c1", "ch1.xhtml", XHTML, "")], ["c1"])
BOOK = {"OEBPS/content.opf": ONE_CHAPTER, "OEBPS/ch1.xhtml": CHAPTER}
ENCRYPTION = """<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container"
    xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData>
  <enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/>
  <enc:CipherData><enc:CipherReference URI="OEBPS/ch1.xhtml"/></enc:CipherData></enc:EncryptedData></encryption>"""


@pytest.mark.parametrize("name, members, container, words", [
    ("nocontainer.epub", BOOK, None, ["nocontainer.epub is not an EPUB", "no META-INF/container.xml"]),
    ("noopf.epub", {"OEBPS/ch1.xhtml": CHAPTER}, CONTAINER_XML,
     ["noopf.epub: its META-INF/container.xml names the package file OEBPS/content.opf", "does not hold"]),
    ("badopf.epub", {**BOOK, "OEBPS/content.opf": "<package><manifest>"}, CONTAINER_XML,
     ["badopf.epub: its package file OEBPS/content.opf is not readable XML"]),
    ("locked.epub", {**BOOK, "META-INF/encryption.xml": ENCRYPTION, "OEBPS/ch1.xhtml": bytes(range(256))},
     CONTAINER_XML, ["locked.epub is encrypted (DRM)", "encrypts 1 of its 1 content documents"]),
    ("empty.epub", {**BOOK, "OEBPS/ch1.xhtml": xhtml("Cover", '<div><img src="cover.png" alt=""/></div>')},
     CONTAINER_XML, ["empty.epub holds no text"]),
    ("bomb.epub", {**BOOK, "OEBPS/ch1.xhtml": b"<p>" + b" " * MAX_TEXT_BYTES}, CONTAINER_XML,
     ["bomb.epub is over 20 MiB decompressed"]),
    ("escape.epub", {"OEBPS/content.opf": epub_package("Escape", [("c1", "../../../../../../etc/passwd", XHTML, "")],
                                                       ["c1"])}, CONTAINER_XML,
     ["escape.epub holds no text", "its spine names ../../../../../../etc/passwd, which the book does not hold"]),
])
def test_bad_epubs(library, tmp_path, name, members, container, words):
    """An EPUB that is no book, an encrypted (DRM) one, one of no text, a zip bomb (a 20 KB member
    inflating past the text limit: refused once past it, never inflated whole) or one whose
    package points out of the zip: a clear error naming it, nothing written."""
    library.ensure_book("b")
    before = snapshot(library)
    path = write_epub(tmp_path / name, members, container)
    assert path.stat().st_size < 100_000
    expect("source", words, library.ingest, str(path), book="b")
    assert snapshot(library) == before


def test_an_epub_that_is_no_zip_or_locks_a_member_with_a_password_is_refused(library, tmp_path):
    library.ensure_book("b")
    before = snapshot(library)
    (tmp_path / "notzip.epub").write_bytes(b"<html><body><p>A page saved under the wrong name.</p></body></html>")
    expect("source", ["notzip.epub is not an EPUB", "not a zip archive"], library.ingest,
           str(tmp_path / "notzip.epub"), book="b")
    data = bytearray(write_epub(tmp_path / "password.epub", BOOK).read_bytes())
    entry = data.rindex(b"PK\x01\x02")  # the central directory's last entry: the chapter's
    data[entry + 8] |= 1  # its flag "encrypted", as a zip tool with a password writes it
    (tmp_path / "password.epub").write_bytes(bytes(data))
    expect("source", ["password.epub is encrypted", "its OEBPS/ch1.xhtml needs a password"], library.ingest,
           str(tmp_path / "password.epub"), book="b")
    # a member compressed by a method zipfile cannot inflate (99: WinZip's AES), set in the central
    # directory and in the member's own header alike
    data = bytearray(write_epub(tmp_path / "method.epub", BOOK).read_bytes())
    entry = data.rindex(b"PK\x01\x02")
    local = int.from_bytes(data[entry + 42:entry + 46], "little")
    data[entry + 10:entry + 12] = data[local + 8:local + 10] = (99).to_bytes(2, "little")
    (tmp_path / "method.epub").write_bytes(bytes(data))
    expect("source", ["method.epub: its OEBPS/ch1.xhtml is compressed in a way that cannot be read"],
           library.ingest, str(tmp_path / "method.epub"), book="b")
    assert snapshot(library) == before


def test_an_epub_reads_nothing_outside_itself(tmp_path):
    """Its package's external entity and DTD are not loaded; a spine item naming a file outside the
    zip is a warning, the rest of the book read."""
    from tutorialbook.acquire.sources import read_source

    package = ONE_CHAPTER.replace("<package", '<!DOCTYPE package SYSTEM "file:///etc/passwd" [<!ENTITY x SYSTEM '
                                              '"file:///etc/passwd">]>\n<package', 1)
    package = package.replace("<dc:title>Knots", "<dc:title>Knots &x;").replace(
        '<itemref idref="c1"/>', '<itemref idref="out"/><itemref idref="c1"/>').replace(
        "</manifest>", f'<item id="out" href="../../../../etc/passwd" media-type="{XHTML}"/></manifest>')
    transcript = read_source(write_epub(tmp_path / "hostile.epub", {**BOOK, "OEBPS/content.opf": package}))
    assert transcript.title == "Knots" and "root:" not in transcript.text
    assert [s.text for s in transcript.segments] == ["Tie a bowline to make a loop that does not slip."]
    assert transcript.warnings == ["its spine names ../../../../etc/passwd, which the book does not hold"]


def test_damaged_epubs_are_refused_by_name(tmp_path):
    from tutorialbook.acquire.sources import read_source

    good_path = write_epub(tmp_path / "good.epub", BOOK)
    assert [s.text for s in read_source(good_path).segments] == ["Tie a bowline to make a loop that does not slip."]
    # bytes overwritten inside the members and the directory
    _read_damaged(tmp_path, good_path.read_bytes(), ".epub", head=30, tail=10, copies=8, flips=6)


def _read_damaged(tmp_path, good: bytes, suffix: str, head: int, tail: int, copies: int, flips: int) -> None:
    """``good`` cut short four ways and with ``flips`` bytes overwritten in ``copies`` copies, each
    read: refused by name (a source error naming the file), or read, never another exception."""
    from tutorialbook.acquire.sources import read_source

    variants = [good[:cut] for cut in (head, len(good) // 3, len(good) // 2, len(good) - tail)]
    for n in range(copies):
        data = bytearray(good)
        for k in range(flips):
            data[(n * 997 + k * 131) % len(data)] = (n * 31 + k * 17) % 256
        variants.append(bytes(data))
    for n, data in enumerate(variants):
        path = tmp_path / f"damaged{n}{suffix}"
        path.write_bytes(data)
        try:
            read_source(path)
        except TutorialbookError as exc:
            assert exc.field == "source" and path.name in exc.reason


def test_missing_source_and_empty_folder_and_url(library, tmp_path):
    expect("source", ["does not exist"], library.ingest, str(tmp_path / "missing.md"))
    (tmp_path / "empty").mkdir()
    expect("source", ["no supported files"], library.ingest, str(tmp_path / "empty"))
    (tmp_path / "docs" / "pages").mkdir(parents=True)  # a documentation tree: its pages one level down
    (tmp_path / "docs" / "pages" / "intro.md").write_text("# Intro\n\nRead me.\n")
    (tmp_path / "docs" / ".git").mkdir()
    expect("source", ["no supported files", "subfolders are not read, ingest one of them (pages)"],
           library.ingest, str(tmp_path / "docs"))
    expect("source", ["URL", "offline"], library.ingest, "https://example.com/video.mp4")
    expect("source", ["empty"], library.ingest, "  ")
    assert snapshot(library) == {t: 0 for t in TABLES}


def test_unreadable_source(library, tmp_path):
    folder = tmp_path / "dir.md"
    folder.mkdir()  # a folder named like a file: no supported files inside
    expect("source", ["no supported files"], library.ingest, str(folder))


def test_bad_book_names_and_ids(baking):
    expect("book", ["not a valid book name"], baking.ingest, str(EXAMPLES), book="Bad Name!")
    expect("book", ["no book named 'nosuch'", "baking"], baking.browse, "nosuch")
    expect("node_id", ["no node 'n_missing'"], baking.browse, "baking", "n_missing")
    expect("depth", ["between 1 and 5"], baking.browse, "baking", "", 9)
    with pytest.raises(NotFound):
        baking.skill("s_missing")
    expect("tutorial_id", ["no tutorial"], baking.transcript_markdown, "t_missing")


def test_bad_retrieve_arguments(baking):
    expect("query", ["empty"], baking.retrieve, "   ", "baking")
    expect("k", ["between 1 and 50, got 0"], baking.retrieve, "starter", "baking", 0)
    expect("k", ["got 51"], baking.retrieve, "starter", "baking", 51)
    expect("mode", ["'psychic' is not one of"], baking.retrieve, "starter", "baking", 5, "psychic")


def test_bad_lessons_write_nothing(baking):
    before = snapshot(baking)
    expect("lesson", ["empty"], baking.record_lesson, "  ", "baking")
    expect("lesson", ["limit is 4000"], baking.record_lesson, "x" * 4001, "baking")
    expect("outcome", ["not one of"], baking.record_lesson, "ok", "baking", outcome="great")
    expect("skill_id", ["no skill 's_nope'"], baking.record_lesson, "ok", "baking", skill_id="s_nope")
    expect("node_id", ["no node 'n_nope'"], baking.record_lesson, "ok", "baking", node_id="n_nope")
    expect("feedback", ["no skill 's_nope'"], baking.record_lesson, "ok", "baking",
           feedback=[SkillFeedback(skill_id="s_nope", verdict="helpful")])
    expect("book", ["no book named"], baking.record_lesson, "ok", "nosuch")
    assert snapshot(baking) == before


def test_store_path_not_writable(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    expect("store", ["not writable"], Library, store=str(blocker / "store"))


def test_bad_domain_and_title_for_folder(library):
    expect("domain", ["'cooking' is not one of"], library.ingest, str(EXAMPLES), domain="cooking")
    expect("title", ["one file"], library.ingest, str(EXAMPLES), title="Both")


ODD_DOCUMENTS = {
    ".md": ["# a\n```\n", "> " * 500 + "x", "<div>\n\n# x", "[x]: /u\n[x]"],
    ".rst": [".. note::", "`a <b>`_ :x:`", "::\n\n  x", ".. include:: /etc/passwd\n\n.. raw:: html\n\n  <b>x</b>",
             ".. csv-table::\n   :file: /etc/passwd\n"],
    ".html": ["<", "<<p>>x", "<table><tr><td><pre>x", "<ul><li>" * 300 + "x", "<p>a&#0;&#xD800;b<pre>c"],
    ".ipynb": ['{"cells": [1, "x", {"cell_type": "code"}]}', '{"cells": [{"cell_type": "markdown", "source": 5}]}',
               '{"worksheets": [{"cells": [{"cell_type": "heading", "level": "x", "source": "T"}]}]}',
               '{"cells": [{"cell_type": "code", "source": "x", "outputs": [{"text": 3}, 5, {"data": []}]}]}'],
}


def test_odd_documents_are_read_or_refused_never_a_crash(tmp_path):
    from tutorialbook.acquire.sources import read_source

    for ext, texts in ODD_DOCUMENTS.items():
        for n, text in enumerate(texts):
            path = tmp_path / f"odd{n}{ext}"
            path.write_text(text)
            try:
                transcript = read_source(path)
            except TutorialbookError as exc:
                assert exc.field == "source" and path.name in exc.reason
            else:
                assert all("/etc/passwd" not in s.text and "root:" not in s.text for s in transcript.segments)


def test_damaged_pdfs_are_refused_by_name(tmp_path):
    # bytes overwritten inside the objects
    _read_damaged(tmp_path, write_pdf(tmp_path / "good.pdf").read_bytes(), ".pdf", head=40, tail=30, copies=6,
                  flips=12)


def test_plain_text_laid_out_to_exhaust_the_reader_is_read_whole(tmp_path):
    """A block of thousands of displays under colons, questions over answers, lines ended by
    hand or drawn table rows, with no blank line, or a line of 100,000 dashes: each read in full
    (cut once per display, not once per level of a recursion that ran out of stack at a thousand;
    a rule told by its characters, not by a pattern that backtracks)."""
    from tutorialbook.acquire.sources import read_source

    texts = {  # each with the words its last line says
        "displays.txt": ("".join(f"Run the command number {i} like this:\n    cmd {i}\n" for i in range(3000)),
                         "cmd 2999"),
        "questions.txt": ("".join(f"{i}.1. Why is it so?\nBecause it is.\n" for i in range(1, 3000)), "2999.1."),
        "lines.txt": ("".join(f"item {i}: value\n" for i in range(20000)), "item 19999"),
        "table.txt": ("+----+----+\n" + "".join(f"| a{i} | b{i} |\n" for i in range(20000)) + "+----+----+\n",
                      "a19999 | b19999"),
        # a rule that turns out not to be one at its very end (a pattern for rules backtracked on it
        # in time quadratic in its length: minutes for this line)
        "rule.txt": ("-" * 100_000 + "x\n| a | b |\n" + "-" * 100_000 + "\nthe end\n", "the end"),
    }
    for name, (text, last) in texts.items():
        path = tmp_path / name
        path.write_text(text)
        transcript = read_source(path)
        assert last in " ".join([s.text for s in transcript.segments] + [h[2] for h in transcript.headings]), name
