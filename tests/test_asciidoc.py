"""AsciiDoc sources (``.adoc``, and ``.txt`` files that are AsciiDoc) keep their structure, and
asciidoc-py, which would read files and run commands a document names, does neither here.
Every document is written by the test."""

from tutorialbook.acquire.formats import asciidoc
from tutorialbook.acquire.formats.asciidoc import looks_like_asciidoc
from tutorialbook.acquire.sources import read_source

ADOC = """:toc: left
:author: The Tea Club

[[brewing]]
= Brewing with a kettle

A pot of tea needs fresh water, warm china and patience. (((kettle)))

== Heating the water

Fill the kettle with fresh cold water; water boiled twice tastes flat.

.Heat and wait
[source,sh]
----
kettle --fill 1.5
kettle --boil
----

NOTE: Green tea wants water well below the boil, around 80 degrees.

=== Warming the pot

Swirl a splash of hot water in the pot and pour it away.

== Steeping

--strong::
  Steep the leaves for five minutes instead of three.
--cups=<n>::
  Brew for <n> cups.

When the timer rings:

* Strain the leaves.
+
----
kettle --strain
----
* Serve at once.
"""

#: the same kind of document in the other title style, as a manual page's source saved as .txt
ADOC_TXT = """kettle-brew(1)
==============

NAME
----
kettle-brew - brew tea with a kettle and a pot

SYNOPSIS
--------
[verse]
'kettle-brew' [--strong] <leaf>

OPTIONS
-------
--strong::
\tSteep the leaves for five minutes instead of three.

EXAMPLES
--------
Warm the pot first:

------------
$ kettle-brew --warm
$ kettle-brew --strong assam
------------
"""

RST_TXT = """=================
Brewing with rst
=================

Heating the water
-----------------

Fill the kettle with fresh water. Then run::

    kettle --boil

----

Steeping
--------

Steep three minutes.

.. note:: Green tea is steeped cooler.
"""

PLAIN_TXT = """Brewing notes
=============

Heating the water
-----------------
Fill the kettle.

--------------------------------
Steeping
--------------------------------
Three minutes.
"""


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return read_source(path)


def test_adoc_mirrors_its_sections_and_keeps_listings_lists_and_admonitions(tmp_path):
    transcript = write(tmp_path, "kettle_v2_final.adoc", ADOC)
    assert transcript.title == "Brewing with a kettle"
    assert [(level, title) for _, level, title in transcript.headings] == [
        (1, "Brewing with a kettle"), (2, "Heating the water"), (3, "Warming the pot"), (2, "Steeping")]
    assert [s.text for s in transcript.segments if s.kind == "code"] == [
        "kettle --fill 1.5\nkettle --boil", "kettle --strain"]
    texts = [s.text for s in transcript.segments]
    assert "A pot of tea needs fresh water, warm china and patience." in texts  # no index term
    assert "Note: Green tea wants water well below the boil, around 80 degrees." in texts
    assert "Heat and wait" in texts  # a block's title stays with its block
    options = next(t for t in texts if t.startswith("--strong"))
    assert "Steep the leaves for five minutes" in options and "--cups=<n>" in options
    for t in texts:
        for markup in ("----", "[source", "::", ":toc:", "[[", "(((", "NOTE:"):
            assert markup not in t, (markup, t)


MACROS = """= Keyboard tea

== Shortcuts

Press kbd:[Ctrl+K] to start the kettle, click btn:[Brew] and choose menu:Tea[Green > Sencha].
The timer is described in man:kettle-timer[1] and linkgit:kettle-brew[1]; see xref:pots[the pot guide].
A list:[1, 2] in prose stays as written.

----
kettle-bind kbd:[Ctrl+K] man:kettle-timer[1]
----

Typed as code: `kbd:[Ctrl+K]`.

====== Deep notes

The kettle hums when full.

====== Deeper still
Its text starts on the next line.
"""


def test_adoc_macros_asciidoc_py_leaves_as_written_show_what_a_reader_sees(tmp_path):
    transcript = write(tmp_path, "keys.adoc", MACROS)
    prose = next(s.text for s in transcript.segments if s.text.startswith("Press"))
    assert prose.startswith("Press Ctrl+K to start the kettle, click Brew and choose Tea > Green > Sencha.")
    assert "kettle-timer(1) and kettle-brew(1); see the pot guide." in prose
    assert "A list:[1, 2] in prose stays as written." in prose  # no macro: no target, not a key or button
    codes = [s.text for s in transcript.segments if s.kind == "code"]
    assert codes == ["kettle-bind kbd:[Ctrl+K] man:kettle-timer[1]"]  # code is as written
    assert any("Typed as code: kbd:[Ctrl+K]" in s.text for s in transcript.segments)


def test_adoc_sixth_level_titles_are_headings(tmp_path):
    transcript = write(tmp_path, "keys.adoc", MACROS)
    assert [(level, title) for _, level, title in transcript.headings] == [
        (1, "Keyboard tea"), (2, "Shortcuts"), (3, "Deep notes"), (3, "Deeper still")]
    texts = [s.text for s in transcript.segments]
    assert "The kettle hums when full." in texts and "Its text starts on the next line." in texts
    assert not any("======" in t for t in texts)


def test_a_line_of_unclosed_macros_is_scanned_once():
    """A megabyte line of "a:[" (each could open a macro; none closes) costs a bounded scan from each."""
    hostile = "a:[" * 300_000
    assert asciidoc._MACRO.sub(asciidoc._macro, hostile) == hostile


def test_adoc_ingests_as_one_chapter_of_its_sections(library, tmp_path):
    (tmp_path / "kettle.adoc").write_text(ADOC)
    report = library.ingest(str(tmp_path / "kettle.adoc"), book="tea", refine_rounds=0)
    assert report.tutorials[0].title == "Brewing with a kettle"
    chapter = next(iter(library.browse("tea").children))
    assert chapter.title == "Brewing with a kettle"


def test_txt_that_is_asciidoc_is_read_as_asciidoc_and_rst_or_plain_text_is_not(tmp_path):
    assert looks_like_asciidoc(ADOC) and looks_like_asciidoc(ADOC_TXT)
    assert not looks_like_asciidoc(RST_TXT) and not looks_like_asciidoc(PLAIN_TXT)
    transcript = write(tmp_path, "kettle-brew.txt", ADOC_TXT)
    assert [title for _, _, title in transcript.headings] == [
        "kettle-brew(1)", "NAME", "SYNOPSIS", "OPTIONS", "EXAMPLES"]
    assert [s.text for s in transcript.segments if s.kind == "code"] == [
        "kettle-brew [--strong] <leaf>", "$ kettle-brew --warm\n$ kettle-brew --strong assam"]
    assert not any("[verse]" in s.text or "----" in s.text for s in transcript.segments)
    rst = write(tmp_path, "brewing.txt", RST_TXT)  # read as plain text, as before
    assert "kettle --boil" in rst.text and not rst.warnings


def test_adoc_reads_no_file_and_runs_no_command_it_names(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("the launch code is 4711")
    made = tmp_path / "made"
    hostile = f"""= Hostile

First paragraph.

include::{secret}[]

include::secret.txt[]

include1::{secret}[]

{{include:{secret}}}

sys::[touch {made}-sys]

sys2::[touch {made}-sys2]

eval::[open('{made}-eval', 'w')]

Inline {{sys:touch {made}-inline}} and {{eval:open('{made}-eval2', 'w')}}.

[filter="touch {made}-filter"]
----
hello
----

[source,sh,args="; touch {made}-args"]
----
echo hi
----

Last paragraph.
"""
    path = tmp_path / "hostile.adoc"
    path.write_text(hostile)
    transcript = read_source(path)
    assert "4711" not in transcript.text
    assert "include" not in transcript.text  # a directive's line, not text (nor a skill) of its own
    assert not list(tmp_path.glob("made*"))
    assert "First paragraph." in transcript.text and "Last paragraph." in transcript.text
    assert any("were skipped" in w for w in transcript.warnings)


def test_adoc_asciidoc_py_refuses_is_read_as_plain_text_with_a_warning(tmp_path):
    transcript = write(tmp_path, "unclosed.adoc", "= Unclosed\n\nifdef::x[]\nHidden.\n\nShown text here.\n")
    assert "Shown text here." in transcript.text
    assert transcript.warnings == [
        "unclosed.adoc: AsciiDoc not converted (FAILED: <stdin>: line 6: missing endif::x[]); read as plain text"]


def test_adoc_ifeval_is_read_as_a_condition_that_holds_and_never_evaluated(tmp_path):
    """Safe mode refuses to evaluate an ``ifeval`` and failed the whole document on it:
    asciidoctor's own README (one ``ifeval::[{safe-mode-level} < 20]`` on line 501 of 506) lost
    its 37 headings to the plain-text reading."""
    made = tmp_path / "made-ifeval"
    transcript = write(tmp_path, "evaluated.adoc", f"= Evaluated\n\nifeval::[open('{made}', 'w')]\nGuarded text.\n"
                                                   "endif::[]\n\n== Usage\n\nShown text here.\n")
    assert not made.exists()
    assert transcript.warnings == []
    assert transcript.title == "Evaluated"
    assert [title for _, _, title in transcript.headings] == ["Evaluated", "Usage"]
    assert "Guarded text." in transcript.text and "Shown text here." in transcript.text
    assert "ifeval" not in transcript.text and "endif" not in transcript.text


def test_adoc_that_asciidoc_py_cannot_finish_in_its_time_is_read_as_plain_text(tmp_path, monkeypatch):
    """asciidoc-py's regular expressions take minutes over a few hundred KB of quote marks (279 s
    for 400,000 characters of "*_" here); it is given a bounded time, then the text is read plainly."""
    from tutorialbook.acquire.formats import asciidoc

    monkeypatch.setattr(asciidoc, "SECONDS", 1.0)
    monkeypatch.setattr(asciidoc, "CHARS_A_SECOND", 10**9)
    transcript = write(tmp_path, "quotes.adoc", "= Quotes\n\nA paragraph before.\n\n" + "*_" * 200_000 + "\n")
    assert "A paragraph before." in transcript.text
    assert transcript.warnings == [
        "quotes.adoc: AsciiDoc not converted (asciidoc-py took over 1 s); read as plain text"]


def test_a_module_in_the_current_folder_does_not_replace_asciidoc_py(tmp_path, monkeypatch):
    (tmp_path / "asciidoc").mkdir()
    (tmp_path / "asciidoc" / "__init__.py").write_text(f"open({str(tmp_path / 'made-shadow')!r}, 'w')\n")
    monkeypatch.chdir(tmp_path)
    transcript = write(tmp_path, "kettle.adoc", ADOC)
    assert not (tmp_path / "made-shadow").exists()
    assert not transcript.warnings and "Heating the water" in [t for _, _, t in transcript.headings]


def test_docbook_nested_past_any_document_keeps_its_words_without_recursing():
    from lxml import etree

    from tutorialbook.acquire.formats.asciidoc import MAX_DEPTH, html_of

    root = etree.Element("article")
    etree.SubElement(etree.SubElement(root, "articleinfo"), "title").text = "Deep"
    node = root
    for n in range(5 * MAX_DEPTH):
        node = etree.SubElement(node, "blockquote")
        etree.SubElement(node, "simpara").text = f"level {n}"
    html = html_of(root).decode()
    assert "level 0" in html and f"level {5 * MAX_DEPTH - 1}" in html


def test_adoc_link_text_opening_a_new_window_shows_its_words(tmp_path):
    """Asciidoctor writes a link that opens in a new window as "[text^]" (ruby-asciidoctor-pdf's
    README: "head over to rvm.io^" was what the skill read)."""
    transcript = write(tmp_path, "links.adoc", "= Links\n\n:url-rvm: https://rvm.io\n\nHead over to "
                                              "{url-rvm}[rvm.io^] to install Ruby, or https://example.org[the site].\n")
    assert transcript.segments[0].text == "Head over to rvm.io to install Ruby, or the site."


def test_a_paragraph_asciidoc_py_refuses_is_left_out_and_the_rest_converted(tmp_path):
    """Asciidoctor's syntax reference writes ``pass:c[->]``, which asciidoc-py refuses: the whole
    document fell back to plain text (its headings lost, its title from the file name). The
    paragraph it names is left out, said in a warning, and the rest is converted."""
    source = tmp_path / "syntax.adoc"
    source.write_text("= AsciiDoc Syntax\n\n== Paragraphs\n\nParagraphs don't require special markup.\n\n"
                      "== Passthroughs\n\nThe pass:c[->] operator is often\nreferred to as the stabby lambda.\n\n"
                      "Other text stays where it was.\n\n== Lists\n\n* one item\n* another item\n")
    transcript = read_source(source)
    assert transcript.title == "AsciiDoc Syntax"
    assert [title for _, _, title in transcript.headings] == ["AsciiDoc Syntax", "Paragraphs", "Passthroughs", "Lists"]
    texts = [s.text for s in transcript.segments]
    assert "Other text stays where it was." in texts and not any("stabby" in t for t in texts)
    assert any("refused lines 9-10" in w and "left out" in w for w in transcript.warnings)


def test_a_line_naming_an_attribute_the_document_never_defines_is_kept_as_written(tmp_path):
    """asciidoc-py drops a whole line whose ``{name}`` names nothing defined: a manual written for a
    build that defines its own attributes (a product name, ``{litdd}`` for "--") lost each such line
    of prose, list and title. The reference now reads as written; a defined one is still replaced,
    and a listing (no attribute substitution) is as written."""
    source = tmp_path / "tool.adoc"
    source.write_text("= Frob guide\n:product: Frobnicator\n\n== Setting {product} up\n\n"
                      "Run {product} with the {flag} option.\nThe next line of the paragraph stays.\n\n"
                      "* an item naming {undefined-thing} here\n* a plain item\n\n"
                      ".A title with {nothing}\n----\n$ frob --{flag} file\n----\n\nNOTE: The {flag} note.\n")
    transcript = read_source(source)
    assert [title for _, _, title in transcript.headings] == ["Frob guide", "Setting Frobnicator up"]
    texts = [s.text for s in transcript.segments]
    assert "Run Frobnicator with the {flag} option. The next line of the paragraph stays." in texts
    assert "- an item naming {undefined-thing} here\n- a plain item" in texts
    assert "A title with {nothing}" in texts and "$ frob --{flag} file" in texts
    assert "Note: The {flag} note." in texts


def test_txt_asciidoc_opening_with_a_comment_block_and_one_line_listings_is_asciidoc(tmp_path):
    """calcurse's submitting-patches.txt opens with its licence in a ``////`` comment block, titles
    underlined, listings of one line between ``----``: read as plain text, the licence became a
    skill ("IN NO EVENT SHALL THE COPYRIGHT * OWNER") and the listings prose."""
    text = ("////\n/*\n * Copyright (c) 2004-2020 the Team\n * THIS SOFTWARE IS PROVIDED \"AS IS\"\n */\n////\n\n"
            "Submitting Patches\n==================\n\nA short summary of guidelines to follow.\n\n"
            "Fetching the source\n-------------------\n\nRetrieve a local copy of the tree using:\n\n----\n"
            "$ git clone git://git.example.org/tool.git\n----\n\nTo follow the maintenance branch:\n\n----\n"
            "$ git branch -t maint origin/maint\n----\n")
    assert looks_like_asciidoc(text)
    transcript = write(tmp_path, "submitting-patches.txt", text)
    assert [title for _, _, title in transcript.headings] == ["Submitting Patches", "Fetching the source"]
    assert [s.text for s in transcript.segments if s.kind == "code"] == [
        "$ git clone git://git.example.org/tool.git", "$ git branch -t maint origin/maint"]
    assert not any("SOFTWARE" in s.text for s in transcript.segments)
    assert not looks_like_asciidoc(RST_TXT) and not looks_like_asciidoc(PLAIN_TXT)


def test_adoc_hard_line_breaks_part_lines(tmp_path):
    """asciidoc-py writes " +" as a processing instruction, which the DocBook parser dropped: the
    lines ran together ("Press these in turn: i to insert a to append o to open…"); now they are
    the lines of a paragraph broken by <br> (three or more short ones: lines apart)."""
    path = tmp_path / "keys.adoc"
    path.write_text("Kak\n===\n\nKeys\n----\n\nPress these in turn: +\n`i` to insert +\n`a` to append +\n"
                    "`o` to open a line below\n\nThen save.\n")
    assert [(s.kind, s.text) for s in read_source(path).segments] == [
        ("list", "Press these in turn:\ni to insert\na to append\no to open a line below"),
        ("paragraph", "Then save.")]
