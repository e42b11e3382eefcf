"""Formats read through pandoc (acquire/formats/pandoc.py) keep their structure — the document's title,
its headings, lists and code — and pandoc reads no file but the one given, in bounded time and memory.

Org and LaTeX documents are written here by hand; the others (Word, OpenDocument, DocBook,
MediaWiki, Textile) are written by pandoc itself from a Markdown tutorial, as an editor or
an export would write them."""

import subprocess

import pytest

from tutorialbook.acquire.formats import pandoc
from tutorialbook.acquire.sources import read_source
from tutorialbook.errors import TutorialbookError

TUTORIAL = """---
title: Baking a sourdough loaf
---

# Feeding the starter

Feed the starter twice a day with equal weights of flour and water.

- Discard half of the starter first.
- Keep it at room temperature.

# Shaping the dough

Fold the dough onto itself, then leave it to rise overnight.

```
oven.preheat(250)
bake(minutes=40)
```
"""
HEADINGS = ["Feeding the starter", "Shaping the dough"]


def written_by_pandoc(tmp_path, suffix: str, writer: str):
    source = tmp_path / "tutorial.md"
    source.write_text(TUTORIAL, encoding="utf-8")
    target = tmp_path / f"saved{suffix}"
    subprocess.run([pandoc.program(), "--standalone", "--from", "markdown", "--to", writer, str(source),
                    "--output", str(target)], check=True, capture_output=True)
    return target


@pytest.mark.parametrize("suffix, writer, titled, coded", [
    (".docx", "docx", True, True), (".odt", "odt", True, False), (".dbk", "docbook5", True, True),
    (".mediawiki", "mediawiki", False, True), (".textile", "textile", False, True),
])
def test_a_document_an_editor_saved_keeps_its_title_headings_list_and_code(tmp_path, suffix, writer, titled, coded):
    transcript = read_source(written_by_pandoc(tmp_path, suffix, writer))
    headings = [title for _, _, title in transcript.headings]
    assert headings[-2:] == HEADINGS
    # a format without a title field (MediaWiki, Textile) is titled by its first heading; OpenDocument's
    # title is a paragraph in the "Title" style, which pandoc reads as body text: read from content.xml
    assert transcript.title == ("Baking a sourdough loaf" if titled else "Feeding the starter")
    kinds = {s.kind: s.text for s in transcript.segments}
    assert kinds["list"] == "- Discard half of the starter first.\n- Keep it at room temperature."
    # pandoc reads OpenDocument's code (paragraphs styled "Source Text") as paragraphs
    assert kinds.get("code") == ("oven.preheat(250)\nbake(minutes=40)" if coded else None)
    assert "Feed the starter twice a day with equal weights of flour and water." in transcript.text
    assert "Baking a sourdough loaf" not in transcript.text  # the title is no passage


ORG = """#+TITLE: Zutty in five minutes
#+AUTHOR: Someone

* Installing
Build it with waf:
#+BEGIN_SRC sh
./waf configure
./waf build
#+END_SRC
** Fonts
Zutty needs a monospace font:
- =DejaVu Sans Mono= works;
- so does /Liberation Mono/.
* Using it
Start it with ~zutty -font DejaVuSansMono~.
"""


def test_an_org_document_becomes_its_outline_with_its_title(tmp_path):
    path = tmp_path / "notes.org"
    path.write_text(ORG, encoding="utf-8")
    transcript = read_source(path)
    assert transcript.title == "Zutty in five minutes"
    assert [(level, title) for _, level, title in transcript.headings] == [
        (1, "Installing"), (2, "Fonts"), (1, "Using it")]
    assert [(s.kind, s.text) for s in transcript.segments] == [
        ("paragraph", "Build it with waf:"),
        ("code", "./waf configure\n./waf build"),
        ("paragraph", "Zutty needs a monospace font:"),
        ("list", "- DejaVu Sans Mono works;\n- so does Liberation Mono."),
        ("paragraph", "Start it with zutty -font DejaVuSansMono."),
    ]
    assert "Someone" not in transcript.text and "#+" not in transcript.text


def test_a_latex_document_keeps_its_sections_and_verbatim_code(tmp_path):
    path = tmp_path / "guide.tex"
    path.write_text(r"""\documentclass{article}
\title{Typesetting tables}
\begin{document}
\maketitle
\section{Columns}
Each column is declared in the \texttt{tabular} preamble.
\subsection{Alignment}
Use \emph{l}, \emph{c} or \emph{r}:
\begin{verbatim}
\begin{tabular}{lcr}
\end{verbatim}
\end{document}
""", encoding="utf-8")
    transcript = read_source(path)
    assert transcript.title == "Typesetting tables"
    assert [(level, title) for _, level, title in transcript.headings] == [(1, "Columns"), (2, "Alignment")]
    assert [(s.kind, s.text) for s in transcript.segments] == [
        ("paragraph", "Each column is declared in the tabular preamble."),
        ("paragraph", "Use l, c or r:"),
        ("code", "\\begin{tabular}{lcr}"),
    ]


@pytest.mark.parametrize("name, text", [
    ("notes.org", '#+TITLE: Notes\n\n* Start\nRead this first.\n#+INCLUDE: "{secret}" src text\n'),
    ("notes.tex", "\\section{{Start}}\nRead this first.\n\\input{{{secret}}}\n"),
])
def test_a_file_the_document_names_is_never_read(tmp_path, name, text):
    """Org's ``#+INCLUDE:`` and LaTeX's ``\\input`` name other files; pandoc's sandbox reads none
    of them, and the ingest says so."""
    secret = tmp_path / "secret.tex"
    secret.write_text("the password is swordfish\n", encoding="utf-8")
    path = tmp_path / name
    path.write_text(text.format(secret=secret), encoding="utf-8")
    transcript = read_source(path)
    assert "swordfish" not in transcript.text
    assert "Read this first." in transcript.text
    assert any("were not read" in w and name in w for w in transcript.warnings), transcript.warnings


def test_a_document_needing_more_than_its_time_or_memory_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "big.tex"
    path.write_text("\\section{Part}\n" + "A line of the manual, with \\emph{some} \\texttt{markup}.\n" * 40_000,
                    encoding="utf-8")
    monkeypatch.setattr(pandoc, "HEAP_MB", 16)
    with pytest.raises(TutorialbookError, match="big.tex is not a readable LaTeX document: converting it needs "
                                                "more than 16 MB"):
        read_source(path)
    monkeypatch.setattr(pandoc, "HEAP_MB", 2048)
    monkeypatch.setattr(pandoc, "SECONDS", 0.0)
    monkeypatch.setattr(pandoc, "CHARS_A_SECOND", 10**12)
    with pytest.raises(TutorialbookError, match=r"big.tex: pandoc took over 0 s to read it as LaTeX"):
        read_source(path)


def test_org_that_pandoc_cannot_convert_in_time_is_read_as_plain_text(tmp_path, monkeypatch):
    """pandoc's Org reader can take time exponential in a document's "~" signs (a table of
    terminal escape sequences); the words are still worth reading, so the text is read as it
    stands, and the warning says why."""
    path = tmp_path / "notes.org"
    path.write_text(ORG, encoding="utf-8")
    monkeypatch.setattr(pandoc, "SECONDS", 0.0)
    monkeypatch.setattr(pandoc, "CHARS_A_SECOND", 10**12)
    transcript = read_source(path)
    assert "Zutty needs a monospace font:" in transcript.text
    assert transcript.warnings == ["notes.org: pandoc took over 0 s to read it as Org; read as plain text"]


def test_without_pandoc_the_error_says_how_to_get_it(tmp_path, monkeypatch):
    path = tmp_path / "notes.org"
    path.write_text(ORG, encoding="utf-8")
    monkeypatch.setattr(pandoc, "program", lambda: None)
    with pytest.raises(TutorialbookError, match="notes.org: reading Org needs pandoc, which is not installed "
                                                r"\(pip install pypandoc-binary"):
        read_source(path)


def test_a_word_file_that_inflates_past_the_text_limit_is_refused_before_pandoc_runs(tmp_path, monkeypatch):
    """A few hundred KB of zip can hold gigabytes of XML, which pandoc would hold in memory: the
    members' XML is counted first, against the same limit as any text."""
    import zipfile

    saved = written_by_pandoc(tmp_path, ".docx", "docx")
    bomb = tmp_path / "bomb.docx"
    paragraph = "<w:p><w:r><w:t>" + "all work and no play " * 50 + "</w:t></w:r></w:p>"
    with zipfile.ZipFile(saved) as source, zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename == "word/document.xml":
                head, _, tail = data.decode("utf-8").partition("<w:body>")
                data = (head + "<w:body>" + paragraph * 25_000 + tail).encode("utf-8")
            target.writestr(info.filename, data)
    assert bomb.stat().st_size < 200_000
    ran = []
    monkeypatch.setattr(pandoc.subprocess, "run", lambda *a, **k: ran.append(a))
    with pytest.raises(TutorialbookError, match=r"bomb.docx inflates to 2\d MiB of XML, over the 20 MiB limit"):
        read_source(bomb)
    assert ran == []


def test_an_xml_entity_naming_a_file_reads_nothing(tmp_path):
    """DocBook is XML, and so is a Word file's document.xml: an external entity naming a file on
    the server (XXE) is refused by pandoc's parser, and nothing of the file shows anywhere."""
    import re
    import zipfile

    secret = tmp_path / "secret.txt"
    secret.write_text("swordfish\n", encoding="utf-8")
    entity = f'<!DOCTYPE article [<!ENTITY xxe SYSTEM "file://{secret}">]>'
    docbook = tmp_path / "guide.dbk"
    docbook.write_text(f'<?xml version="1.0"?>\n{entity}\n<article xmlns="http://docbook.org/ns/docbook" '
                       'version="5.0"><title>Guide</title><section><title>Start</title>'
                       '<para>Read this first. &xxe;</para></section></article>\n', encoding="utf-8")
    saved = written_by_pandoc(tmp_path, ".docx", "docx")
    word = tmp_path / "guide.docx"
    with zipfile.ZipFile(saved) as source, zipfile.ZipFile(word, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename == "word/document.xml":
                head, mark, rest = data.decode("utf-8").partition("?>")
                body, found = re.subn(r"(<w:t[^>]*>)", r"\1&xxe; ", rest, count=1)
                assert found == 1
                data = (head + mark + entity.replace("article", "w:document") + body).encode("utf-8")
            target.writestr(info.filename, data)
    for path, kind in ((docbook, "DocBook"), (word, "Word")):
        with pytest.raises(TutorialbookError, match=f"{path.name} is not a readable {kind} document") as info:
            read_source(path)
        assert "swordfish" not in str(info.value)


def test_an_org_link_to_a_section_reads_as_the_sections_name(tmp_path):
    """``[[*Using it]]`` links to the section "Using it" (pandoc keeps the ``*`` Org writes)."""
    path = tmp_path / "links.org"
    path.write_text("* Using it\nSee [[*Using it]] and [[*Using it][the usage]] for the rest of the steps.\n",
                    encoding="utf-8")
    assert [s.text for s in read_source(path).segments] == [
        "See Using it and the usage for the rest of the steps."]
