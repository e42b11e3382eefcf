"""Real document formats keep their structure: headings, whole blocks, clean text, the
document's own title. Every document here is written by the test."""

import json
import re

import pytest

from tutorialbook.acquire.formats.document import MAX_BLOCK_CHARS
from tutorialbook.acquire.sources import read_source
from tutorialbook.errors import TutorialbookError
from tutorialbook.skills import passages

from tests.support.documents import SECTIONS, epub_package, write_epub, write_pdf, xhtml

MARKUP = re.compile(r"::|`|\*\*|:[a-z]+:|</?[a-z]+[ >/]|&[a-z]+;|^\.\. |¶", re.M)


def children(library, book, node_id=""):
    return {c.title: c for c in library.browse(book, node_id).children}


def prose(transcript):
    return [s for s in transcript.segments if s.kind != "code"]


def read_written(tmp_path, name, text):
    """The transcript of a file of ``text`` written under ``name``."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return read_source(path)


SAVED_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>Brewing green tea &mdash; The Tea Club</title>
<script>var tracking = "Subscribe now";</script><style>body { color: black }</style>
</head><body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="site-header"><a href="/">The Tea Club home</a>
  <nav><ul><li><a href="/shop">Shop</a></li><li><a href="/blog">Blog</a></li><li><a href="/about">About us</a></li></ul></nav>
</header>
<div class="breadcrumbs"><a href="/">Home</a> &rsaquo; <a href="/guides">Guides</a> &rsaquo; Green tea</div>
<aside class="sidebar"><h3>Popular posts</h3><p>Ten teapots we love</p></aside>
<main id="main">
  <h1>Brewing green tea</h1>
  <p>Green tea turns bitter when it is brewed like black tea. This guide shows the
     three things that matter: the leaves, the water &amp; the time.</p>
  <h2>Choosing the leaves<a class="headerlink" href="#leaves">&para;</a></h2>
  <p>Buy loose <em>sencha</em> or <strong>gyokuro</strong> in small bags, and keep them
     away from light.</p>
  <ul><li>Sencha: grassy and bright</li><li>Gyokuro: sweet, shaded before harvest
    <ul><li>Brew it cooler than sencha</li></ul></li></ul>
  <h2>Heating the water</h2>
  <p>Boiling water scalds the leaves, so let it cool before pouring.</p>
  <h3>Measuring the temperature</h3>
  <p>Use a kitchen thermometer and wait until the water reads 75&nbsp;&deg;C.</p>
  <pre>heat(water, to=100)
while thermometer() &gt; 75:
    wait(30)</pre>
  <h2>Steeping</h2>
  <table><tr><th>Tea</th><th>Minutes</th></tr><tr><td>Sencha</td><td>1</td></tr>
    <tr><td>Gyokuro</td><td>2</td></tr></table>
  <blockquote>Pour the last drops too: they hold the most flavour.</blockquote>
</main>
<footer><p>Copyright 2026 The Tea Club. All rights reserved.</p>
  <p><a href="/privacy">Privacy</a> <a href="/terms">Terms</a></p></footer>
</body></html>
"""


def test_saved_html_page_becomes_a_toc_of_its_headings_with_its_title(library, tmp_path):
    path = tmp_path / "tea_guide_final(2).html"
    path.write_text(SAVED_PAGE)
    transcript = read_source(path)
    assert transcript.title == "Brewing green tea"
    assert [(level, title) for _, level, title in transcript.headings] == [
        (1, "Brewing green tea"), (2, "Choosing the leaves"), (2, "Heating the water"),
        (3, "Measuring the temperature"), (2, "Steeping")]
    text = transcript.text
    for chrome in ("Skip to", "Shop", "About us", "Home", "Guides", "Popular posts", "Copyright", "Privacy",
                   "Subscribe", "color: black", "¶"):
        assert chrome not in text, chrome
    kinds = [s.kind for s in transcript.segments]
    assert kinds == ["paragraph", "paragraph", "list", "paragraph", "paragraph", "code", "table", "quote"]
    by_kind = {s.kind: s.text for s in transcript.segments}
    assert by_kind["code"] == "heat(water, to=100)\nwhile thermometer() > 75:\n    wait(30)"
    assert by_kind["list"] == ("- Sencha: grassy and bright\n- Gyokuro: sweet, shaded before harvest\n"
                               "  - Brew it cooler than sencha")
    assert by_kind["table"] == "Tea | Minutes\nSencha | 1\nGyokuro | 2"
    assert "the leaves, the water & the time." in transcript.segments[0].text
    assert "75 °C" in text
    for s in prose(transcript):
        assert not MARKUP.search(s.text), s.text
        assert text[int(s.start):int(s.end)] == s.text

    report = library.ingest(str(path), book="tea", refine_rounds=0)
    assert report.tutorials[0].title == "Brewing green tea"
    chapters = children(library, "tea")
    assert list(chapters) == ["Brewing green tea"]
    sections = children(library, "tea", chapters["Brewing green tea"].id)
    assert list(sections) == ["Choosing the leaves", "Heating the water", "Steeping"]
    assert list(children(library, "tea", sections["Heating the water"].id)) == ["Measuring the temperature"]


GENERATED_PAGES = {
    "sphinx.htm": """<html><head><title>Signals &#8212; Demo 1.0 documentation</title></head><body>
<div class="related" role="navigation" aria-label="related navigation"><h3>Navigation</h3>
  <ul><li><a href="genindex.html">index</a></li><li><a href="py-modindex.html">modules</a> |</li></ul></div>
<div class="document"><div class="documentwrapper"><div class="bodywrapper"><div class="body" role="main">
<section id="signals"><h1>Signals<a class="headerlink" href="#signals" title="Link to this heading">¶</a></h1>
<p>A signal is sent to every connected <code class="docutils literal"><span class="pre">receiver</span></code>.</p>
<section id="connecting"><h2>Connecting<a class="headerlink" href="#connecting">¶</a></h2>
<div class="highlight-python notranslate"><div class="highlight"><pre><span></span><span class="n">ready</span><span class="o">.</span><span class="n">connect</span><span class="p">(</span><span class="n">subscriber</span><span class="p">)</span>
<span class="n">ready</span><span class="o">.</span><span class="n">send</span><span class="p">(</span><span class="s1">'me'</span><span class="p">)</span>
</pre></div></div>
</section></section></div></div></div>
<div class="sphinxsidebar" role="navigation" aria-label="main navigation"><h3>Quick search</h3>
  <form class="search"><input type="text" name="q"></form><h3>This Page</h3><a href="_sources/x.rst.txt">Show Source</a></div>
</div><div class="footer">&#169;2026, Demo authors. Created using Sphinx.</div></body></html>""",
    "texinfo.html": """<html><head><title>Signals</title></head><body>
<div class="header"><p>Next: <a href="#Basics" accesskey="n">Basics</a> &nbsp; [<a href="#SEC_Contents">Contents</a>][<a href="#Index">Index</a>]</p></div>
<h1 class="top">Signals</h1>
<p>A signal is sent to every connected receiver.</p>
<ul class="section-toc"><li><a href="#Connecting">Connecting</a></li><li><a href="#Sending">Sending</a></li></ul>
<hr><div class="section" id="Connecting">
<div class="header"><p>Next: <a href="#Sending">Sending</a>, Previous: <a href="#Top">Top</a>, Up: <a href="#Top">Top</a></p></div>
<h2 class="section">Connecting</h2>
<div class="example"><pre class="example">ready.connect(subscriber)
ready.send('me')
</pre></div></div></body></html>""",
    "docbook.html": """<html><head><title>Signals</title></head><body id="docContent" class="container-fluid col-10">
<div class="navheader"><table width="100%" summary="Navigation header"><tr><th colspan="5" align="center">Signals</th></tr>
<tr><td width="10%" align="left"><a accesskey="p" href="events.html" title="3.1. Events">Prev</a> </td>
<td width="10%" align="left"><a accesskey="u" href="core.html" title="Chapter 3. Core">Up</a></td>
<th width="60%" align="center">Chapter 3. Core</th><td width="10%" align="right"><a accesskey="h" href="index.html">Home</a></td>
<td width="10%" align="right"> <a accesskey="n" href="slots.html" title="3.3. Slots">Next</a></td></tr></table><hr /></div>
<div class="sect1" id="SIGNALS"><div class="titlepage"><div><div><h2 class="title" style="clear: both">Signals</h2></div></div></div>
<p>A signal is sent to every connected receiver.</p>
<div class="sect2" id="SIGNALS-CONNECTING"><div class="titlepage"><div><div><h3 class="title">Connecting</h3></div></div></div>
<pre class="programlisting">ready.connect(subscriber)
ready.send('me')</pre></div></div>
<div class="navfooter"><hr /><table width="100%" summary="Navigation footer"><tr>
<td width="40%" align="left"><a accesskey="p" href="events.html">Prev</a> </td><td width="20%" align="center"><a accesskey="u" href="core.html">Up</a></td>
<td width="40%" align="right"> <a accesskey="n" href="slots.html">Next</a></td></tr>
<tr><td width="40%" align="left" valign="top">3.1. Events </td><td width="20%" align="center"><a accesskey="h" href="index.html">Home</a></td>
<td width="40%" align="right" valign="top"> 3.3. Slots</td></tr></table></div></body></html>""",
    "texi2html.html": """<html><head><title>Demo manual: Signals</title>
<meta name="Generator" content="texi2html 1.78a"></head><body>
<table cellpadding="1" cellspacing="1" border="0"><tr>
<td valign="middle" align="left">[<a href="#SEC1" title="Previous section"> &lt; </a>]</td>
<td valign="middle" align="left">[<a href="demo_3.html#SEC9" title="Next section"> &gt; </a>]</td>
<td valign="middle" align="left"> &nbsp; </td>
<td valign="middle" align="left">[<a href="demo_toc.html#SEC_Top" title="Cover (top) of document">Top</a>]</td>
<td valign="middle" align="left">[<a href="demo_toc.html#SEC_Contents" title="Table of contents">Contents</a>]</td>
<td valign="middle" align="left">[<a href="demo_abt.html#SEC_About" title="About (help)"> ? </a>]</td>
</tr></table>
<hr size="2"><a name="Signals"></a>
<h1 class="chapter"> <a href="demo_toc.html#TOC7">Signals</a> </h1>
<p>A signal is sent to every connected receiver.</p>
<h2 class="section"> <a href="demo_toc.html#TOC8">Connecting</a> </h2>
<table><tr><td>&nbsp;</td><td><pre class="example">ready.connect(subscriber)
ready.send('me')
</pre></td></tr></table>
<hr size="6"><table cellpadding="1" cellspacing="1" border="0"><tr>
<td valign="middle" align="left">[<a href="#SEC7" title="Beginning of this chapter or previous chapter"> &lt;&lt; </a>]</td>
<td valign="middle" align="left">[<a href="demo_3.html#SEC16" title="Next chapter"> &gt;&gt; </a>]</td>
<td valign="middle" align="left">[<a href="demo_toc.html#SEC_Contents" title="Table of contents">Contents</a>]</td>
</tr></table>
<p><font size="-1">This document was generated by <em>Demo</em> on <em>July, 26 2020</em> using
<a href="https://www.nongnu.org/texi2html/"><em>texi2html 1.78a</em></a>.</font></p></body></html>""",
    "doxygen.html": """<html><head><title>Demo: Signals</title></head><body>
<div id="top"><div id="titlearea"><table cellspacing="0" cellpadding="0"><tbody><tr>
<td id="projectalign"><div id="projectname">Demo</div></td></tr></tbody></table></div></div>
<div id="main-nav"><ul><li><a href="index.html">Main Page</a></li><li><a href="pages.html">Related Pages</a></li></ul></div>
<div><div class="header"><div class="headertitle"><div class="title">Signals</div></div></div>
<div class="contents"><div class="textblock"><p>A signal is sent to every connected receiver.</p>
<h1><a class="anchor" id="connecting"></a>Connecting</h1>
<div class="fragment"><div class="line">ready.connect(subscriber)</div>
<div class="line">ready.send(<span class="stringliteral">'me'</span>)</div>
</div><!-- fragment --></div></div></div>
<hr class="footer"/><address class="footer"><small>Generated by <a href="https://www.doxygen.org/index.html">doxygen</a> 1.9.4</small></address>
</body></html>""",
}


@pytest.mark.parametrize("name", sorted(GENERATED_PAGES))
def test_generated_documentation_keeps_content_and_drops_navigation(tmp_path, name):
    path = tmp_path / name
    path.write_text(GENERATED_PAGES[name])
    transcript = read_source(path)
    assert transcript.title == "Signals"
    levels = sorted({level for _, level, _ in transcript.headings})  # DocBook starts a section page at h2
    own = [] if name == "doxygen.html" else [(1, "Signals")]  # Doxygen titles a page in a div, not a heading
    assert [(levels.index(level) + 1, title) for _, level, title in transcript.headings] == [
        *own, (len(own) + 1, "Connecting")]
    # a generator's signature ("This document was generated by … using texi2html") is the reader's
    # text, and no passage: skills/passages.py drops it
    assert [(s.kind, s.text) for s in transcript.segments if not passages.is_boilerplate(s.text)] == [
        ("paragraph", "A signal is sent to every connected receiver."),
        ("code", "ready.connect(subscriber)\nready.send('me')"),
    ]


def test_html_title_is_the_pages_part_of_a_title_that_names_the_site_too(tmp_path):
    """"Getting started - MkDocs" over an h1 "Getting started with MkDocs" is the h1; "Doxygen:
    Getting started" over a title element "Getting started" is that; a block saying only the
    site's name (a banner) is no text of the page."""
    (tmp_path / "a.html").write_text("<html><head><title>Getting started - Demo</title></head><body>"
                                     "<h1>Getting started with Demo</h1><p>Install it first.</p></body></html>")
    (tmp_path / "b.html").write_text("<html><head><title>Demo: Getting started</title></head><body>"
                                     "<table><tr><td>Demo</td></tr></table><div class='title'>Getting started</div>"
                                     "<h1>Step 1: check that Demo runs</h1><p>Install it first.</p></body></html>")
    assert read_source(tmp_path / "a.html").title == "Getting started with Demo"
    b = read_source(tmp_path / "b.html")
    assert b.title == "Getting started"
    assert [s.text for s in b.segments] == ["Getting started", "Install it first."]


def test_sphinxs_no_title_placeholder_is_no_title(tmp_path, library):
    """A Sphinx page without a heading (cmd2's overview/summary.html, included into another page)
    is titled "<no title> — cmd2 2.4.1 documentation" by Sphinx: a tutorial was named so. It has
    no title, so the tutorial is named after its file."""
    (tmp_path / "summary.html").write_text(
        "<html><head><title>&lt;no title&gt; &#8212; cmd2 2.4.1 documentation</title></head><body>"
        "<div class='body' role='main'><p>Building a new REPL application? Start here to find out whether "
        "this library fits your needs.</p></div></body></html>")
    assert read_source(tmp_path / "summary.html").title is None
    report = library.ingest(str(tmp_path / "summary.html"), book="nt", refine_rounds=0)
    assert report.tutorials[0].title == "Summary"


def test_texinfo_page_is_titled_by_its_heading_not_its_node_and_manual(tmp_path):
    """A texinfo manual split into pages titles each "<node> (<manual>)": m4's Define.html is
    "Define (GNU M4 1.4.19 macro processor)", its heading "5.1 Defining a macro" (the title the
    book's TOC showed); a parenthesis that names no manual stays."""
    (tmp_path / "Define.html").write_text(
        "<html><head><title>Define (GNU M4 1.4.19 macro processor)</title></head><body>"
        "<div class='nav-panel'>Next: Arguments, Up: Definitions</div>"
        "<h3 class='section'>5.1 Defining a macro</h3><p>The normal way to define a macro is define.</p></body></html>")
    (tmp_path / "Arguments.html").write_text(
        "<html><head><title>Arguments (GNU M4 1.4.19 macro processor)</title></head><body>"
        "<h3>5.2 Arguments to macros</h3><p>Macros can have arguments.</p></body></html>")
    (tmp_path / "plain.html").write_text(
        "<html><head><title>Print (GNU Awk)</title></head><body><p>No heading on this page.</p></body></html>")
    (tmp_path / "Advanced-Indexing.html").write_text(  # octave-doc: the manual's name has a parenthesis of its own
        "<html><head><title>Advanced Indexing (GNU Octave (version 7.3.0))</title></head><body>"
        "<h4 class='subsection'>8.1.1 Advanced Indexing</h4><p>An array can be indexed by ranges.</p></body></html>")
    assert read_source(tmp_path / "Advanced-Indexing.html").title == "8.1.1 Advanced Indexing"
    assert read_source(tmp_path / "Define.html").title == "5.1 Defining a macro"
    assert read_source(tmp_path / "Arguments.html").title == "5.2 Arguments to macros"
    assert read_source(tmp_path / "plain.html").title == "Print (GNU Awk)"


ASCIIDOC_PAGE = """<html><head><title>The Pager Manual</title></head><body>
<div id="header"><h1>The Pager Manual</h1>
<span id="author">Ann Author</span><br /><span id="email"><code>&lt;<a href="mailto:a@example.org">a@example.org</a>&gt;</code></span></div>
<div id="content"><div id="preamble"><div class="sectionbody">
<div class="paragraph"><p>This is the manual for the pager, a text-mode interface that shows long output one screen at a time.</p></div>
<div class="paragraph"><p><strong>Table of Contents</strong></p></div>
<div class="olist arabic"><ol class="arabic"><li><p><a href="#calling">Calling Conventions</a></p>
<div class="ulist"><ul><li><p><a href="#pager-mode">Pager Mode</a></p></li><li><p><a href="#navigation">Navigation</a></p></li></ul></div></li></ol></div>
</div></div>
<div class="sect1"><h2 id="calling">1. Calling Conventions</h2><div class="sectionbody">
<div class="sect2"><h3 id="pager-mode">1.1. Pager Mode</h3>
<div class="paragraph"><p>If standard input is a pipe, the pager shows what comes through it.</p></div></div>
<div class="sect2" id="navigation"><h3>1.2. Navigation</h3>
<div class="paragraph"><p>Press the space bar to move one screen down.</p></div></div>
<div class="sect2"><h3 id="cursor-nav">1.3. Cursor Navigation</h3>
<div class="paragraph"><p>Press k to move the cursor one line up.</p></div></div>
</div></div></div><div id="site-nav"><h3>Site navigation</h3><p>Home, downloads and the mailing list archive
of this site</p></div></body></html>"""


def test_asciidoc_page_keeps_its_preamble_and_headings_whose_ids_name_chrome_words(tmp_path):
    """A heading or section is content whatever its id says ("pager-mode", "navigation" are
    slugs of their titles, and a heading's own id may shorten its words: tig's "4.4. Cursor
    Navigation" is "cursor-nav", and was dropped as a navigation bar); a box whose id names
    navigation stays chrome whatever its heading; prose above a contents list is not
    navigation; the author line of AsciiDoc's header is no text of the page."""
    path = tmp_path / "manual.html"
    path.write_text(ASCIIDOC_PAGE)
    transcript = read_source(path)
    assert [t for _, _, t in transcript.headings] == ["The Pager Manual", "1. Calling Conventions",
                                                      "1.1. Pager Mode", "1.2. Navigation", "1.3. Cursor Navigation"]
    texts = [s.text for s in transcript.segments if not passages.is_boilerplate(s.text)]
    assert texts == ["This is the manual for the pager, a text-mode interface that shows long output one screen "
                     "at a time.", "If standard input is a pipe, the pager shows what comes through it.",
                     "Press the space bar to move one screen down.", "Press k to move the cursor one line up."]


def test_sphinx_prose_full_of_cross_references_and_sections_named_like_chrome_stay(tmp_path):
    """Sphinx links every API name it mentions, and slugs each section's title into its id: a
    sentence naming two linked functions is prose, and a section "Cookies" (id "cookies") or
    "Menu" (id "menu") is a section, not a cookie banner or a menu bar; a "sidebar" is still one."""
    page = ('<html><head><title>Streaming &#8212; Demo</title></head><body><div class="body" role="main">'
            '<section id="streaming"><h1>Streaming</h1><p>The <a class="reference internal" href="#a">'
            '<code>stream_template()</code></a> and <a class="reference internal" href="#b"><code>'
            'stream_template_string()</code></a> functions push the context.</p>'
            '<p>You can download <a href="https://pypi.org/x">Flask-SQLAlchemy</a> from '
            '<a href="https://pypi.org">PyPI</a>.</p>'
            '<p>Recall from <a class="reference internal" href="#k">Kinds of filters</a> that the value can be '
            '<a class="reference internal" href="#s">a string</a>, <a class="reference internal" href="#r">a regular '
            'expression</a>, <a class="reference internal" href="#l">a list</a> or <a class="reference internal" '
            'href="#t">the value True</a>.</p>'
            '<section id="cookies"><h2>Cookies</h2><p>To read cookies, use the cookies attribute.</p></section>'
            '<section id="menu"><h2>Menu</h2><p>Add a menu with the menu method.</p></section>'
            '</section></div><div id="sidebar"><h3>Related topics</h3><p>Pages that readers of this page '
            'also opened, picked for you by the site every week.</p></div></body></html>')
    (tmp_path / "s.html").write_text(page)
    transcript = read_source(tmp_path / "s.html")
    assert [t for _, _, t in transcript.headings] == ["Streaming", "Cookies", "Menu"]  # no "Related topics"
    assert [s.text for s in transcript.segments] == [
        "The stream_template() and stream_template_string() functions push the context.",
        "You can download Flask-SQLAlchemy from PyPI.",
        "Recall from Kinds of filters that the value can be a string, a regular expression, a list or the value True.",
        "To read cookies, use the cookies attribute.",
        "Add a menu with the menu method."]


def test_admonitions_label_their_text_and_are_no_sections(tmp_path):
    """Sphinx's "Note" paragraph, DocBook's "Note" title of a div.note and its icon-and-label
    table head the note's text ("Note: …"): no section called "Note", no block "| Note". A
    "See Also" section of a reference page is still a section."""
    page = ('<html><head><title>Admonitions</title></head><body><h1>Admonitions</h1><p>Read this first.</p>'
            '<div class="admonition note"><p class="admonition-title">Note</p><p>Sphinx notes are kept.</p></div>'
            '<div class="note"><h3 class="title">Note</h3><p>DocBook notes are kept.</p></div>'
            '<div class="warning"><table border="0" summary="Warning"><tr><td rowspan="2"><img alt="[Warning]" '
            'src="warning.png"></td><th align="left">Warning</th></tr><tr><td><p>Never run it as root.</p></td></tr>'
            '</table></div><div class="admonition seealso"><p class="admonition-title">See also</p><ul>'
            '<li>The manual page</li></ul></div><h2>See Also</h2><p>The other commands of the suite.</p></body></html>')
    (tmp_path / "a.html").write_text(page)
    transcript = read_source(tmp_path / "a.html")
    assert [t for _, _, t in transcript.headings] == ["Admonitions", "See Also"]
    assert [s.text for s in transcript.segments] == [
        "Read this first.", "Note: Sphinx notes are kept.", "Note: DocBook notes are kept.",
        "Warning: Never run it as root.", "See also:\n- The manual page", "The other commands of the suite."]


def test_a_block_above_the_title_heading_does_not_double_the_chapter(library, tmp_path):
    """IPython's tutorial opens on a note box above its h1: the h1 still titles the chapter,
    not a section of the same name under a chapter of the same name."""
    page = ('<html><head><title>Introducing IPython</title></head><body><div class="admonition important">'
            '<p class="admonition-title">Important</p><p>This documentation covers IPython 8 and later.</p></div>'
            '<h1>Introducing IPython</h1><p>IPython is an interactive shell for Python with many extras.</p>'
            '<h2>Tab completion</h2><p>Press the tab key to complete the name of an object.</p></body></html>')
    (tmp_path / "tutorial.html").write_text(page)
    library.ingest(str(tmp_path / "tutorial.html"), book="ipy", refine_rounds=0)
    chapters = children(library, "ipy")
    assert list(chapters) == ["Introducing IPython"]
    assert list(children(library, "ipy", chapters["Introducing IPython"].id)) == ["Tab completion"]


def test_html_after_an_early_end_of_body_is_read(tmp_path):
    """groff -Thtml writes an empty body, closes html, then writes the page: it was refused as
    holding no text."""
    (tmp_path / "groff.html").write_text(
        "<html><head><title>Home of Groff (GNU Troff).</title></head><body>\n</body>\n</html>\n\n"
        "<h1>Home of Groff</h1>\n<p>Groff reads plain text mixed with formatting commands.</p>\n")
    transcript = read_source(tmp_path / "groff.html")
    assert transcript.title == "Home of Groff"
    assert [s.text for s in transcript.segments] == ["Groff reads plain text mixed with formatting commands."]


MYST = """# Installation

Python comes with an {mod}`ensurepip` module[^python], which can install pip; see
{ref}`the virtual environment guide <venv-guide>` and {func}`~pip.main.run`.

(compatibility-requirements)=
% a comment for the authors

```{note}
:class: tip
The zip application is currently experimental.
```

```{code-block} shell
$ python -m ensurepip --upgrade
```

```{toctree}
getting-started
```

[^python]: The ensurepip module was added to Python in 3.4.
"""


def test_myst_markdown_reads_as_its_text(tmp_path):
    """Sphinx's Markdown: roles as the words they show, no targets, comments or footnote marks,
    an admonition fence as "Note: …", a code-block fence as code, a toctree as nothing; a
    Sphinx ``_sources`` copy (``x.md.txt``) is read as Markdown."""
    path = tmp_path / "installation.md.txt"
    path.write_text(MYST)
    transcript = read_source(path)
    assert transcript.title == "Installation"
    assert [(s.kind, s.text) for s in transcript.segments] == [
        ("paragraph", "Python comes with an ensurepip module, which can install pip; see the virtual environment "
                      "guide and run."),
        ("paragraph", "Note: The zip application is currently experimental."),
        ("code", "$ python -m ensurepip --upgrade"),
        ("paragraph", "The ensurepip module was added to Python in 3.4."),
    ]


def test_an_image_is_its_alt_text_unless_that_is_a_file_name(tmp_path):
    (tmp_path / "nb.html").write_text('<html><body><h1>Plots</h1><div>The chart <img alt="_images/plot_3_0.png" '
                                      'src="_images/plot_3_0.png"> shows <img alt="a rising line" src="x.png"> '
                                      'over time.</div></body></html>')
    assert [s.text for s in read_source(tmp_path / "nb.html").segments] == ["The chart shows a rising line over time."]


def test_page_controls_are_no_text(tmp_path):
    """rustdoc's "[−]" (a javascript: link) and "Expand description" (a details widget's label);
    a disclosure's own label heads what it discloses, less the widget's words (CMake's tutorial:
    "TODO 6: Click to show/hide answer" stood apart from its answer, 62 times); a caption opening
    with that label does not say it twice (it had read "TODO 7: TODO 7: CMakeLists.txt"); a label
    whose disclosure kept no text heads nothing after it (Click's "Changelog" over a bare version
    note had led the next paragraph: "Changelog: Click emulates output streams …")."""
    (tmp_path / "r.html").write_text(
        '<html><body><h1>Crate quote</h1><p><a href="javascript:void(0)" title="collapse all docs">[−]</a></p>'
        '<details open><summary>Expand description</summary><p>This crate turns syntax trees into tokens.</p>'
        '</details><details><summary>Solution</summary><p>Use the quote macro.</p></details>'
        '<details><summary>TODO 6: Click to show/hide answer</summary><pre>set(CMAKE_CXX_STANDARD 11)</pre>'
        '</details><details><summary>TODO 7: Click to show/hide answer</summary><div class="literal-block-wrapper">'
        '<div class="code-block-caption"><span class="caption-text">TODO 7: CMakeLists.txt</span></div>'
        '<pre>project(Tutorial VERSION 1.0)</pre></div></details>'
        '<details class="changelog"><summary>Changelog</summary><div class="versionadded"><p><span '
        'class="versionmodified added">New in version 6.0.</span></p></div></details>'
        '<p>Click emulates output streams on Windows.</p></body></html>')
    assert [(s.kind, s.text) for s in read_source(tmp_path / "r.html").segments] == [
        ("paragraph", "This crate turns syntax trees into tokens."), ("paragraph", "Solution: Use the quote macro."),
        ("term", "TODO 6:"), ("code", "set(CMAKE_CXX_STANDARD 11)"),
        ("paragraph", "TODO 7: CMakeLists.txt"), ("code", "project(Tutorial VERSION 1.0)"),  # the label said once
        ("paragraph", "Click emulates output streams on Windows.")]  # a label over nothing kept heads nothing after


def test_a_one_row_table_laying_out_a_page_is_read_as_its_blocks(tmp_path):
    """groff's pages put a column of links beside the text in one table row: the text is read as
    paragraphs, the links column goes; a data table stays one table block."""
    links = "".join(f'<a href="p{i}.html">Page {i}</a><br>' for i in range(8))
    page = (f'<html><body><h1>README</h1><table><tr><td width="30%">{links}</td><td>'
            '<p>This is the groff document formatting system.</p><p>See the file INSTALL for the steps.</p>'
            '<p>The file NEWS describes recent changes.</p></td></tr></table>'
            '<table><tr><th>Key</th><th>Action</th></tr><tr><td>q</td><td>Quit</td></tr></table></body></html>')
    (tmp_path / "g.html").write_text(page)
    assert [(s.kind, s.text) for s in read_source(tmp_path / "g.html").segments] == [
        ("paragraph", "This is the groff document formatting system."),
        ("paragraph", "See the file INSTALL for the steps."), ("paragraph", "The file NEWS describes recent changes."),
        ("table", "Key | Action\nq | Quit")]


def test_html_lines_broken_by_br_keep_their_lines(tmp_path):
    """groff -Thtml writes a program as lines of one paragraph broken by <br>, and a contents
    list as links broken by <br>; DocBook a term's two spellings in one <dt>."""
    page = tmp_path / "pic.html"
    page.write_text("""<html><head><title>pic</title></head><body>
<a href="pic-1.html">1. Introduction</a><br>
<a href="pic-2.html">2. Invoking PIC</a><br>
<a href="pic-3.html">3. Basic Concepts</a><br>
<h2>Basic Concepts</h2>
<p>This picture was produced from the following program:</p>
<p style="margin-left:10%"><small>.PS <br>
ellipse &quot;document&quot;; <br>
arrow; <br>
box width 0.6 &quot;gpic&quot; <br>
.PE</small></p>
<p>A paragraph may break a line once<br>and still be one paragraph of prose.</p>
<dl><dt><code>-a</code><br><code>--all</code></dt><dd><p>Vacuum every database.</p></dd></dl>
</body></html>""")
    transcript = read_source(page)
    assert [(s.kind, s.text) for s in transcript.segments] == [
        ("paragraph", "This picture was produced from the following program:"),
        ("list", '.PS\nellipse "document";\narrow;\nbox width 0.6 "gpic"\n.PE'),
        ("paragraph", "A paragraph may break a line once and still be one paragraph of prose."),
        ("list", "-a, --all\n  Vacuum every database."),
    ]


def test_html_text_laid_out_in_lines_reads_as_plain_text_and_pre_keeps_its_breaks(tmp_path):
    """DocBook's literallayout sets a whole README in one paragraph broken by <br> (valgrind's
    manual carries sixteen): its underlined titles head sections below the page's heading, its
    indented command is code, its paragraphs are joined; a <pre> that breaks its lines with <br>
    (libxslt's API pages) keeps them."""
    page = tmp_path / "readme.html"
    page.write_text("""<html><head><title>README_DEVELOPERS</title></head><body>
<h1>6. README_DEVELOPERS</h1>
<div class="literallayout"><p><br>
Building and installing it<br>
~~~~~~~~~~~~~~~~~~~~~~~~~~<br>
To build and install from the repository, refer to the README file that<br>
comes with the sources, in its section on building.<br>
<br>
Running it in place<br>
~~~~~~~~~~~~~~~~~~~<br>
To run the tool without installing it, set the library path, for example:<br>
<br>
  LIB=~/grind/.in_place ~/grind/coregrind/tool<br>
<br>
This allows you to compile and run with make instead of make install.<br>
</p></div>
<pre class="programlisting">xmlAttrPtr	process	(ctxt, <br />			 xmlNodePtr target)</pre>
</body></html>""")
    transcript = read_source(page)
    assert [(level, title) for _, level, title in transcript.headings] == [
        (1, "6. README_DEVELOPERS"), (2, "Building and installing it"), (2, "Running it in place")]
    assert [(s.kind, s.text) for s in transcript.segments] == [
        ("paragraph", "To build and install from the repository, refer to the README file that comes with the "
                      "sources, in its section on building."),
        ("paragraph", "To run the tool without installing it, set the library path, for example:"),
        ("code", "LIB=~/grind/.in_place ~/grind/coregrind/tool"),
        ("paragraph", "This allows you to compile and run with make instead of make install."),
        ("code", "xmlAttrPtr\tprocess\t(ctxt, \n\t\t\t xmlNodePtr target)"),
    ]


def test_html_list_item_of_two_paragraphs_keeps_their_words_apart(tmp_path):
    page = tmp_path / "elements.html"
    page.write_text("""<html><head><title>Elements</title></head><body><h1>Elements</h1>
<p>Each node may contain:</p>
<ul><li><p>glob elements have a pattern.</p><p>The first glob is the main one.</p></li>
<li><p>A glob-deleteall element of the <acronym>XML</acronym> file.</p></li></ul>
<dl><dt>Function: ffi_prep_cif</dt><dd><p>This initializes cif.</p><p>abi is the ABI to use</p></dd></dl>
</body></html>""")
    assert [s.text for s in read_source(page).segments] == [
        "Each node may contain:",
        "- glob elements have a pattern. The first glob is the main one.\n"
        "- A glob-deleteall element of the XML file.",
        "Function: ffi_prep_cif\n  This initializes cif. abi is the ABI to use"]


def test_html_definition_with_code_keeps_its_term_on_its_meaning(tmp_path):
    """texinfo's builtins (bash's reference: a term, its synopsis as code, then what it does): the
    term was a paragraph of its own and the passage before took it, so the skill that said what
    ``bg`` does never said ``bg``. Now it heads its meaning; two terms of one meaning both."""
    page = tmp_path / "builtins.html"
    page.write_text("""<html><head><title>Job Control Builtins</title></head><body>
<h1>Job Control Builtins</h1>
<p>Job control lets you stop processes and continue them later, in the background or not.</p>
<dl class="table">
<dt><code>bg</code></dt>
<dd><pre class="example">bg [jobspec ...]</pre>
<p>Resume each suspended job jobspec in the background.</p></dd>
<dt><code>-e</code></dt><dt><code>--errexit</code></dt>
<dd><p>Exit immediately if a pipeline returns a non-zero status.</p><pre>set -e</pre></dd>
</dl></body></html>""")
    segments = [(s.kind, s.text) for s in read_source(page).segments]
    assert segments == [
        ("paragraph", "Job control lets you stop processes and continue them later, in the background or not."),
        ("term", "bg:"), ("code", "bg [jobspec ...]"),
        ("paragraph", "Resume each suspended job jobspec in the background."),
        ("paragraph", "-e, --errexit: Exit immediately if a pipeline returns a non-zero status."),
        ("code", "set -e")]
    from tutorialbook.skills.passages import group

    transcript = read_source(page)
    texts = [p.text for p in group(transcript.segments, list(range(len(transcript.segments))))]
    assert any(t.startswith("bg:\nbg [jobspec ...]\nResume each suspended job") for t in texts), texts


def test_html_list_item_whose_first_paragraph_is_a_lone_term_heads_its_meaning(tmp_path):
    """The Debian New Maintainers' Guide lists a control file's fields as "<li><p><code>Recommends
    </code></p><p>Use this for packages that are not strictly necessary …</p></li>": read
    "Recommends Use this for …", the name "Recommends Use this for packages that are not"."""
    page = tmp_path / "dreq.html"
    page.write_text("""<html><head><title>Fields</title></head><body><h1>Fields</h1>
<p>The relationships a package may state:</p>
<ul><li><p><code class="literal">Depends</code></p><p>The package will not be installed unless these are.</p></li>
<li><p>Recommends</p><p>Use this for packages that are not strictly necessary.</p><p>Most users install them.</p></li>
<li><p>Glob elements have a pattern.</p><p>The first glob is the main one.</p></li>
<li><p>Suggests</p></li></ul></body></html>""")
    assert [s.text for s in read_source(page).segments] == [
        "The relationships a package may state:",
        "- Depends: The package will not be installed unless these are.\n"
        "- Recommends: Use this for packages that are not strictly necessary. Most users install them.\n"
        "- Glob elements have a pattern. The first glob is the main one.\n- Suggests"]


def test_html_list_item_holding_code_keeps_its_lone_term_on_its_meaning(tmp_path):
    """An Emacs manual's entries, as pandoc writes Org's "- User Option: name" items: a lone term
    over paragraphs and a code block. A list holding code is read as its items' blocks, and the
    term had been a paragraph of its own, which the passage before took."""
    page = tmp_path / "options.html"
    page.write_text("""<html><head><title>Options</title></head><body><h1>Options</h1>
<p>The package locates its helper program by itself.</p>
<ul><li><p>User Option: frob-helper-program</p><p>The program started for each file.</p>
<pre><code>(setq frob-helper-program "frob")</code></pre><p>Set it to nil to edit files in place.</p></li>
<li><p>Glob elements have a pattern.</p><pre><code>*.txt</code></pre></li>
<li><p>调用 debmake 命令以开始准备打包信息。</p><pre><code>$ debmake</code></pre></li></ul>
<dl><dt>-o</dt><dd><p>Output file</p><pre><code>frob -o out.txt</code></pre></dd></dl></body></html>""")
    assert [(s.kind, s.text) for s in read_source(page).segments] == [
        ("paragraph", "The package locates its helper program by itself."),
        ("paragraph", "User Option: frob-helper-program: The program started for each file."),
        ("code", '(setq frob-helper-program "frob")'), ("paragraph", "Set it to nil to edit files in place."),
        ("paragraph", "Glob elements have a pattern."), ("code", "*.txt"),
        # a sentence written without spaces ends in its full stop: no term
        ("paragraph", "调用 debmake 命令以开始准备打包信息。"), ("code", "$ debmake"),
        ("paragraph", "-o: Output file"), ("code", "frob -o out.txt")]  # a definition's meaning has its term


def test_html_definition_of_prose_and_a_nested_list_is_one_block_and_a_terms_breaks_part_its_lines(tmp_path):
    """calcurse's options (asciidoc-py): "-d: … Two possible formats are supported:", a nested list,
    then "In the first case, …": that last paragraph had parted from its term and become a skill
    of its own ("The appointment list for the specified date will"). DocBook's variablelist puts
    two commands over one meaning with a ``<br>``; they had run together ("build-essential# apt-get")."""
    page = tmp_path / "options.html"
    page.write_text("""<html><head><title>Calc</title></head><body><h1>Calc</h1><h2>Options</h2>
<p>Calc takes these options on its command line.</p>
<div class="dlist"><dl>
<dt class="hdlist1"><code>-d &lt;date|num&gt;</code></dt>
<dd><p>Print the appointments for the given date or number of days. Two formats are supported:</p>
<div class="openblock"><div class="content"><div class="ulist"><ul>
<li><p>a date.</p></li><li><p>a number <code>n</code>.</p></li></ul></div></div></div>
<div class="paragraph"><p>In the first case, the list for that date is printed; in the second, for the
<code>n</code> days to come.</p></div></dd>
<dt class="hdlist1"><code>-x</code></dt>
<dd><p>Export the data:</p><div class="listingblock"><pre>$ calc -x &gt; my_data.dat</pre></div></dd>
</dl></div>
<div class="variablelist"><dl class="variablelist"><dt><span class="term"><code class="prompt">#</code>
<strong class="userinput"><code>apt-get install build-essential</code></strong><br></span><span class="term">
<code class="prompt">#</code> <strong class="userinput"><code>apt-get build-dep linux</code></strong></span></dt>
<dd><p>This will install the packages the build needs.</p></dd></dl></div>
</body></html>""")
    segments = [(s.kind, s.text) for s in read_source(page).segments]
    assert segments == [
        ("paragraph", "Calc takes these options on its command line."),
        ("list", "-d <date|num>:\n  Print the appointments for the given date or number of days. Two formats are "
                 "supported:\n    - a date.\n    - a number n.\n  In the first case, the list for that date is "
                 "printed; in the second, for the n days to come."),
        ("paragraph", "-x: Export the data:"), ("code", "$ calc -x > my_data.dat"),
        ("list", "# apt-get install build-essential, # apt-get build-dep linux\n"
                 "  This will install the packages the build needs.")]
    # the skill holds the term with its whole meaning, its paragraphs one meaning (not "supported:., In the …")
    transcript = read_source(page)
    drafts = [passages.draft(p, "") for p in passages.group(transcript.segments, [1])]
    assert [d.steps for d in drafts] == [[
        "-d <date|num>: Print the appointments for the given date or number of days. Two formats are supported:\n"
        "    - a date.\n    - a number n. In the first case, the list for that date is printed; in the second, "
        "for the n days to come."]]


def test_html_nested_list_a_div_wraps_keeps_its_items_apart(tmp_path):
    """Asciidoctor wraps every list in a div (div.ulist): a nested one's items had run into the
    item above ("Basic Features Create, open, and save databases… Store sensitive…")."""
    page = tmp_path / "start.html"
    page.write_text("""<html><head><title>Start</title></head><body><h1>Start</h1><h2>Features</h2>
<div class="ulist"><ul><li><p>Basic Features</p>
<div class="ulist"><ul><li><p>Create, open, and save databases</p></li><li><p>Store secrets in entries</p></li></ul></div>
</li><li><p>Password generator</p></li></ul></div></body></html>""")
    assert [s.text for s in read_source(page).segments] == [
        "- Basic Features\n  - Create, open, and save databases\n  - Store secrets in entries\n- Password generator"]


def test_footnotes_are_read_where_the_text_refers_to_them(tmp_path):
    """fish's tutorial (docutils' aside.footnote): steps "[1]" and "or “stati” if you prefer"
    beside the text they explain; harden-doc (DocBook's div.footnote at the page's end): 46
    skills "[16] In old Debian releases…" under the page's last section. A footnote goes in
    brackets where it is referred to; one nothing refers to stays; reStructuredText the same."""
    page = tmp_path / "notes.html"
    page.write_text("""<html><head><title>T</title></head><body><h1>Tutorial</h1>
<p>Commands report exit statuses<a class="footnote-reference brackets" href="#f1" id="id1"><span class="fn-bracket">[</span>1<span
 class="fn-bracket">]</span></a> of processes.</p>
<aside class="footnote-list brackets"><aside class="footnote brackets" id="f1" role="doc-footnote"><span class="label"><span
 class="fn-bracket">[</span><a role="doc-backlink" href="#id1">1</a><span class="fn-bracket">]</span></span>
<p>or “stati” if you prefer</p></aside></aside>
<h2>DocBook</h2>
<p>Set a timeout in the profile.<a href="#ftn.id1" class="footnote" id="id11"><sup class="footnote">[16]</sup></a> It logs you off.</p>
<div class="footnotes"><br><hr width="100" align="left"><div id="ftn.id1" class="footnote"><p><a href="#id11" class="para"><sup
 class="para">[16] </sup></a>In old Debian releases it was named differently.</p></div></div>
<h2>Old docutils</h2>
<p>See this<a class="footnote-reference" href="#id4" id="id3">[2]</a> too.</p>
<table class="docutils footnote" frame="void" id="id4" rules="none"><tbody valign="top"><tr><td class="label"><a
 class="fn-backref" href="#id3">[2]</a></td><td>A footnote in a table.</td></tr></tbody></table>
<dl class="footnote brackets"><dt class="label" id="f9"><span class="brackets">9</span></dt><dd><p>Nobody refers to this one.</p></dd></dl>
<h2>Texinfo</h2>
<p>R is like the award-winning<a id="DOCF1" href="#FOOT1"><sup>1</sup></a> S system.</p>
<div class="footnote"><hr><h4 class="footnotes-heading">Footnotes</h4>
<h5><a id="FOOT1" href="#DOCF1">(1)</a></h5><p>ACM Software Systems award,</p><p>1998.</p>
<h5><a id="FOOT2" href="#DOCF2">(2)</a></h5><p>Another one.</p></div>
</body></html>""")
    texts = [s.text for s in read_source(page).segments]
    assert texts[:3] == ["Commands report exit statuses (or “stati” if you prefer) of processes.",
                         "Set a timeout in the profile. (In old Debian releases it was named differently.) It logs you off.",
                         "See this (A footnote in a table.) too."]
    assert any("Nobody refers to this one." in t for t in texts[3:]) and not any("[16]" in t for t in texts)
    assert "R is like the award-winning (ACM Software Systems award, 1998.) S system." in texts
    assert not any("ACM" in t for t in texts if not t.startswith("R is")) and any("Another one." in t for t in texts)
    source = tmp_path / "notes.rst"
    source.write_text("Title\n=====\n\nCommands report exit statuses [#]_ of processes.\n\n"
                      ".. [#] or \"stati\" if you prefer\n\n.. [3] Nobody refers to this.\n")
    assert [s.text for s in read_source(source).segments] == [
        'Commands report exit statuses (or "stati" if you prefer) of processes.', "[3]: Nobody refers to this."]


def test_html_images_standing_alone_and_their_captions_are_no_text(tmp_path):
    """keepassxc's guide (Asciidoctor): 31 captions "Figure N. …" and 11 alt texts ("theme
    comparison") were steps, three skills nothing else; maxima's texinfo: 21 steps
    "figures/plotting4" (an alt text that is the image's path). An image inside a sentence keeps
    its words; a figure with words of its own keeps them. Beautiful Soup's guide sets its epigraph
    picture between the heading and the first paragraph, a bare ``<img>``: its alt text ("The
    Fish-Footman began by producing…") had been a skill named "The"."""
    page = tmp_path / "guide.html"
    page.write_text("""<html><head><title>T</title></head><body><h1>Guide</h1>
<img alt="The Fish-Footman began by producing from under his arm a great letter." src="_images/6.1.jpg" />
<p>Choose a theme in the settings.</p>
<div class="imageblock"><div class="content"><img src="data:image/png;base64,AAAA" alt="theme comparison"></div>
<div class="title">Figure 1. Light and Dark Themes</div></div>
<p><img src="figures/plotting4.png" alt="figures/plotting4"></p>
<p>Click the <img src="icons/gear.png" alt="gear"> button to open the settings, then save.</p>
<figure><img src="a.png" alt="A chart"><figcaption>Figure 2. Sales</figcaption></figure>
<div class="figure"><img src="b.png" alt="b"><p class="caption">A diagram</p><p>Words about the diagram shown.</p></div>
</body></html>""")
    assert [s.text for s in read_source(page).segments] == [
        "Choose a theme in the settings.", "Click the gear button to open the settings, then save.", "A diagram",
        "Words about the diagram shown."]


GRID_TABLE = """Dates
=====

+----------+--------+------------------------------------------+
| Field    | Symbol | Description                              |
+==========+========+==========================================+
| Year     | ``y``  | Replaced by the year.                    |
|          +--------+------------------------------------------+
|          | ``Y``  | Same as ``y`` but the ISO week's year.   |
+----------+--------+------------------------------------------+
| Quarter  | ``Q``  | The quarter, as a number.                |
+----------+--------+------------------------------------------+
"""


def test_a_table_cell_spanning_rows_is_read_in_each_of_them(tmp_path):
    """babel's date fields (a grid table; Sphinx writes it with rowspan): the rows under "Year"
    had lost their first cell, "Y | Same as y…" under "Field | Symbol | Description"."""
    from docutils.core import publish_string

    rows = ["Field | Symbol | Description", "Year | y | Replaced by the year.",
            "Year | Y | Same as y but the ISO week's year.", "Quarter | Q | The quarter, as a number."]
    source = tmp_path / "dates.rst"
    source.write_text(GRID_TABLE)
    page = tmp_path / "dates.html"
    page.write_bytes(publish_string(GRID_TABLE, writer="html5"))
    for path in (source, page):
        assert [s.text for s in read_source(path).segments] == ["\n".join(rows)], path.name
    wide = tmp_path / "wide.html"  # a span past reason is bounded, not a row of a million cells
    wide.write_text('<html><body><h1>W</h1><table><tr><td colspan="1000000" rowspan="999999">a</td><td>b</td></tr>'
                    '<tr><td>c</td></tr></table></body></html>')
    assert [s.text for s in read_source(wide).segments] == ["a" + " |" * 20 + " b\na | c"]


def test_an_html_tables_caption_heads_it(tmp_path, library):
    """Asciidoctor (and docutils) write a table's title as its ``<caption>``: newsboat's sixteen
    tables had lost theirs, and a row ("a | Article author") did not say which format it belongs to."""
    page = tmp_path / "formats.html"
    rows = "".join(f"<tr><td>{a}</td><td>{b}</td></tr>" for a, b in
                   [("a", "Article author"), ("D", "Publication date"), ("t", "Title of the article")])
    page.write_text("<html><body><h1>Format strings</h1><p>Each list is drawn by a format string of its own.</p>"
                    '<table class="tableblock"><caption class="title">Table 4. Identifiers for articlelist-format'
                    f"</caption><thead><tr><th>Identifier</th><th>Meaning</th></tr></thead><tbody>{rows}</tbody></table>"
                    "</body></html>")
    assert [s.text for s in read_source(page).segments][1:] == [
        "Table 4. Identifiers for articlelist-format",
        "Identifier | Meaning\na | Article author\nD | Publication date\nt | Title of the article"]
    library.ingest(str(page), book="b", refine_rounds=0)
    table = next(s for s in library.skills("b") if "a | Article author" in s.steps)
    assert "Table 4. Identifiers for articlelist-format" in table.steps


def test_a_thematic_break_ends_a_passage_in_html_markdown_and_rst(tmp_path, library):
    """newsboat's configuration reference sets each option apart by a rule (``<hr>``): a skill
    had held one option's description and the next one's syntax. A passage never runs across a
    rule (HTML's ``<hr>``, Markdown's ``---``, reStructuredText's transition)."""
    entries = [("reload-threads", "The number of parallel reload threads started when all feeds are reloaded."),
               ("reload-time", "The number of minutes between automatic reloads of every feed."),
               ("show-read-feeds", "If set to yes, feeds without unread articles are listed too.")]
    html = "".join(f"<div id='{o}' class='sidebarblock'><p><strong>Syntax:</strong> {o} NUMBER</p></div>"
                   f"<p>{d}</p><hr>" for o, d in entries)
    markdown = "\n\n---\n\n".join(f"Syntax: {o} NUMBER\n\n{d}" for o, d in entries)
    rst = "\n\n----------\n\n".join(f"Syntax: {o} NUMBER\n\n{d}" for o, d in entries)
    sources = {"options.html": f"<html><body><h1>Options</h1><p>Every option is set in the config file.</p><hr>{html}"
                               "</body></html>",
               "options.md": f"# Options\n\nEvery option is set in the config file.\n\n---\n\n{markdown}\n",
               "options.rst": f"Options\n=======\n\nEvery option is set in the config file.\n\n----------\n\n{rst}\n"}
    for name, text in sources.items():
        path = tmp_path / name
        path.write_text(text)
        ruled = [s.ruled for s in read_source(path).segments]
        assert ruled == [False] + [True, False] * 3, (name, ruled)
        book = name.replace(".", "-")
        library.ingest(str(path), book=book, refine_rounds=0)
        bodies = [" ".join(s.steps) for s in library.skills(book)]
        for option, description in entries:
            body = next((b for b in bodies if f"{option} NUMBER" in b), bodies)
            assert description in body and sum(o in body for o, _ in entries) == 1, (name, body)


def test_html_mdbook_and_site_headings_title_the_page_by_its_own_heading(tmp_path):
    """mdBook wraps each heading's words in ``<a class="header">`` (the "header" class made them
    chrome: the Rust book lost every heading) and shows the book's name as the menu bar's h1;
    Django's pages open with the site's h1, a link home. The page's own heading titles it."""
    book = tmp_path / "ch01-01-installation.html"
    book.write_text("""<html class="sidebar-visible no-js light"><head>
<title>Installation - The Rust Programming Language</title></head><body>
<nav id="sidebar" class="sidebar"><ol class="chapter"><li><a href="ch01-00.html">Getting Started</a></li></ol></nav>
<div id="page-wrapper" class="page-wrapper"><div class="page">
<div id="menu-bar" class="menu-bar sticky bordered"><h1 class="menu-title">The Rust Programming Language</h1></div>
<div id="content" class="content"><main>
<h2 id="installation"><a class="header" href="#installation">Installation</a></h2>
<p>The first step is to download Rust through rustup, a command line tool.</p>
<h3 id="command-line-notation"><a class="header" href="#command-line-notation">Command Line Notation</a></h3>
<p>In this chapter we show some commands used in a terminal.</p>
</main></div></div></div></body></html>""")
    transcript = read_source(book)
    assert transcript.title == "Installation"
    assert [(level, title) for _, level, title in transcript.headings] == [
        (2, "Installation"), (3, "Command Line Notation")]
    site = tmp_path / "tutorial02.html"
    site.write_text("""<html><head><title>Writing your first app, part 2 | Django documentation | Django</title>
</head><body><div id="hd"><h1><a href="../index.html">Django 3.2.25 documentation</a></h1></div>
<div id="bd"><div class="section"><h1>Writing your first app, part 2</h1>
<p>This tutorial begins where the first one left off: we set up the database.</p></div></div></body></html>""")
    assert read_source(site).title == "Writing your first app, part 2"


def test_html_link_that_runs_script_keeps_its_words_in_a_sentence(tmp_path):
    page = tmp_path / "conc_prog.html"
    page.write_text("""<html><head><title>Processes</title></head><body><h1>Processes</h1>
<p>If a process calls <a href="javascript:erlhref('../', 'erts', 'erlang.html#link-1');">link(Other_Pid)</a>
it sets up a bidirectional link between itself and the other process.</p>
<p><a href="javascript:void(0)">Show all</a></p></body></html>""")
    assert [s.text for s in read_source(page).segments] == [
        "If a process calls link(Other_Pid) it sets up a bidirectional link between itself and the other process."]


def test_html_texinfo_7_subsubsections_nest_under_their_subsection(tmp_path):
    """texinfo 7 sets a subsubsection in h4 like a subsection; its class says which it is."""
    page = tmp_path / "bashref.html"
    page.write_text("""<html><head><title>Bash Reference Manual</title></head><body>
<h2 class="chapter">3 Basic Shell Features</h2><p>All of the shell's features are described here.</p>
<h3 class="section">3.2 Shell Commands</h3><p>A simple command is the kind met most often.</p>
<h4 class="subsection">3.2.5 Compound Commands</h4><p>Compound commands are the shell's constructs.</p>
<h4 class="subsubsection">3.2.5.1 Looping Constructs</h4><p>Bash supports these looping constructs.</p>
<h4 class="subsection">3.2.6 Coprocesses</h4><p>A coprocess is a command run in a subshell.</p>
</body></html>""")
    assert [(level, title) for _, level, title in read_source(page).headings] == [
        (2, "3 Basic Shell Features"), (3, "3.2 Shell Commands"), (4, "3.2.5 Compound Commands"),
        (5, "3.2.5.1 Looping Constructs"), (4, "3.2.6 Coprocesses")]


def test_html_docbook_title_page_credits_are_text_not_sections(tmp_path):
    page = tmp_path / "manual.html"
    page.write_text("""<html><head><title>bzip2 manual</title></head><body><div class="book">
<div class="titlepage"><div><h1 class="title">bzip2 and libbzip2</h1></div>
<div><h2 class="subtitle">A program and library for data compression</h2></div>
<div class="authorgroup"><div class="author"><h3 class="author">Julian Seward</h3></div></div></div>
<div class="chapter"><h1 class="title">1. Introduction</h1><p>bzip2 compresses files.</p></div>
</div></body></html>""")
    transcript = read_source(page)
    assert [(level, title) for _, level, title in transcript.headings] == [
        (1, "bzip2 and libbzip2"), (1, "1. Introduction")]
    assert [s.text for s in transcript.segments] == [
        "A program and library for data compression", "Julian Seward", "bzip2 compresses files."]


def test_html_page_controls_are_no_text(tmp_path):
    """rustdoc's "source · [−]" beside an item, "Edit on GitHub": links that work the page, not
    content; a paragraph of operator characters is content, a lone separator is not."""
    page = tmp_path / "quote.html"
    page.write_text("""<html><head><title>quote</title></head><body><main>
<h1>Crate quote</h1><span class="out-of-band"><a class="srclink" href="../src/quote/lib.rs.html">source</a> \u00b7
<a id="toggle-all-docs" href="javascript:void(0)">[<span>&#x2212;</span>]</a></span>
<p><a href="https://example.org/edit/quote.md">Edit on GitHub</a></p>
<p>This crate turns syntax trees into tokens of <a href="../src/quote/lib.rs.html">source</a> code.</p>
<p>+ - * / &lt; &gt; = ~</p>
</main></body></html>""")
    transcript = read_source(page)
    assert [s.text for s in transcript.segments] == [
        "This crate turns syntax trees into tokens of source code.", "+ - * / < > = ~"]


def test_html_sentences_that_only_point_at_a_link_are_no_text(tmp_path):
    page = tmp_path / "blocks.html"
    page.write_text("""<html><head><title>Comment blocks</title></head><body><main><h1>Comment blocks</h1>
<p>A special comment block starts with two stars.</p><pre>/** Brief. */</pre>
<p>Click <a href="ex1.html">here</a> for the corresponding HTML documentation that is generated by doxygen.</p>
<p>Click here to see why the second star matters: without it the block is an ordinary comment.</p>
<p>Go to the <a href="next.html">next section</a> or return to the <a href="index.html">index</a>.</p>
<p>For more, see <a href="a.html"><span>Input and output redirections</span></a> and <a href="b.html">Pipes</a>.</p>
<p>See <a href="c.html">the manual</a> for how to set the colours of the prompt.</p>
</main></body></html>""")
    assert [s.text for s in read_source(page).segments] == [
        "A special comment block starts with two stars.", "/** Brief. */",
        "Click here to see why the second star matters: without it the block is an ordinary comment.",
        "See the manual for how to set the colours of the prompt."]


def test_html_class_naming_the_page_is_no_furniture(tmp_path):
    """zzzeeksphinx (SQLAlchemy's docs) marks a page's body with its path: on the page about related
    objects "tutorial-orm_related_objects" read as Sphinx's "related" bar, and the book was titled
    by the site's banner. A class that only names furniture stays furniture, on any page."""
    body = """<html><head><title>Working with Related Objects &mdash; SQLAlchemy 1.4 Documentation</title></head>
<body><div id="docs-header"><h1><a href="../index.html">SQLAlchemy 1.4 Documentation</a></h1></div>
<div class="related"><a href="index.html">Tutorial</a> | <a href="next.html">Further Reading</a></div>
<div id="docs-body" role="main" class="withsidebar tutorial-{stem}">
<section id="working"><h1>Working with Related Objects</h1>
<p>A relationship links two mapped classes, so that each object reaches the other.</p></section></div>
</body></html>"""
    page = tmp_path / "orm_related_objects.html"
    page.write_text(body.format(stem="orm_related_objects"))
    transcript = read_source(page)
    assert transcript.title == "Working with Related Objects"
    assert [s.text for s in transcript.segments] == [
        "A relationship links two mapped classes, so that each object reaches the other."]
    named = tmp_path / "related.html"  # the class is the page's name alone: the bar is still a bar
    named.write_text(body.format(stem="page"))
    assert "Further Reading" not in " ".join(s.text for s in read_source(named).segments)


def test_html_box_of_links_leading_on_through_the_pages_is_no_text(tmp_path):
    """SQLAlchemy's tutorial opens and closes each page with a box "This page is part of the …
    Tutorial. / Previous: … | Next: …" and "Next Tutorial Section: …": they had been skills, and
    the box's title had labelled the next paragraph. A sentence saying more than where to go stays."""
    page = tmp_path / "engine.html"
    page.write_text("""<html><head><title>The Engine</title></head><body><main>
<div class="topic"><p class="topic-title">SQLAlchemy Tutorial</p>
<p>This page is part of the <a href="index.html"><span class="doc">SQLAlchemy Tutorial</span></a>.</p>
<p>Previous: <a href="index.html">SQLAlchemy Tutorial</a> | Next: <a href="tx.html">Working with Transactions</a></p>
</div>
<h1>The Engine</h1><p>The start of any application is an object called the Engine.</p>
<p>Next, pass <a href="url.html">the URL</a> of the database to create_engine.</p>
<div class="topic"><p class="topic-title">SQLAlchemy Tutorial</p>
<p>Next Tutorial Section: <a href="tx.html"><span class="doc">Working with Transactions</span></a></p></div>
<p>Up: <a href="index.html">Contents</a></p>
</main></body></html>""")
    assert [s.text for s in read_source(page).segments] == [
        "The start of any application is an object called the Engine.",
        "Next, pass the URL of the database to create_engine."]


def test_html_title_without_a_matching_h1(tmp_path):
    page = ('<html><head><title>Green tea | The Tea Club</title>{}</head>'
            '<body><h1>Start here</h1><p>Green tea wants cool water.</p></body></html>')
    (tmp_path / "a.html").write_text(page.format(""))
    (tmp_path / "b.html").write_text(page.format('<meta property="og:title" content="Green tea">'))
    assert read_source(tmp_path / "a.html").title == "Green tea | The Tea Club"
    assert read_source(tmp_path / "b.html").title == "Green tea"


def test_html_declared_charset_is_honoured(tmp_path):
    path = tmp_path / "latin.html"
    path.write_bytes('<html><head><meta charset="iso-8859-1"><title>Caf\xe9</title></head>'
                     '<body><p>Cr\xe8me br\xfbl\xe9e needs a torch.</p></body></html>'.encode("latin-1"))
    transcript = read_source(path)
    assert transcript.title == "Café" and transcript.segments[0].text == "Crème brûlée needs a torch."


def test_html_without_a_charset_is_read_as_utf8_when_it_is(tmp_path):
    """libxml2 reads an undeclared page as Latin-1: a UTF-8 one came out "runtimeÂ·tlsoffset". An
    undeclared page that is not UTF-8 is still read as Latin-1."""
    utf8 = tmp_path / "go.html"
    utf8.write_bytes("<html><body><h1>The assembler</h1><p>Write runtime·tlsoffset, not “out of thin air”."
                     "</p></body></html>".encode("utf-8"))
    latin = tmp_path / "old.html"
    latin.write_bytes("<html><body><h1>Dessert</h1><p>Crème brûlée needs a torch.</p></body></html>".encode("latin-1"))
    assert read_source(utf8).segments[0].text == "Write runtime·tlsoffset, not “out of thin air”."
    assert read_source(latin).segments[0].text == "Crème brûlée needs a torch."


SPHINX_SOURCE = """\
=====================
Errors and Exceptions
=====================

.. index:: single: exceptions

Until now error messages haven't been more than mentioned. There are (at least) two
distinguishable kinds of errors: *syntax errors* and **exceptions** (see `the reference`_ and |nosuch|).

Handling Exceptions
===================

The :keyword:`try` statement works as follows; see :ref:`the tutorial <tut-handling>` and
:func:`~builtins.print` or :class:`ValueError`. Use ``except`` to catch, :pep:`8` for style, and
:meth:`!str.format` for messages::

   >>> while True:
   ...     try:
   ...         x = int(input("Please enter a number: "))
   ...         break
   ...     except ValueError:
   ...         print("Oops!  That was no valid number.  Try again...")

.. code-block:: python
   :emphasize-lines: 2

   raise NameError('HiThere')

.. versionadded:: 3.11
   Exception groups with :keyword:`except* <except_star>`.

.. note::

   An :exc:`Exception` is an ordinary class.

.. seealso::

   :doc:`classes`

.. toctree::
   :maxdepth: 2

   classes

Raising Exceptions
------------------

- :keyword:`raise` forces an exception;
- the argument is an instance.

.. someunknowndirective:: whatever
   This is hidden content.

.. autofunction:: builtins.print
"""


def test_rst_txt_loses_its_markup_and_keeps_headings_and_code(tmp_path):
    path = tmp_path / "errors.rst.txt"
    path.write_text(SPHINX_SOURCE)
    transcript = read_source(path)
    assert transcript.title == "Errors and Exceptions"
    assert [(level, title) for _, level, title in transcript.headings] == [
        (1, "Errors and Exceptions"), (2, "Handling Exceptions"), (3, "Raising Exceptions")]
    codes = [s.text for s in transcript.segments if s.kind == "code"]
    assert codes == [
        '>>> while True:\n...     try:\n...         x = int(input("Please enter a number: "))\n'
        '...         break\n...     except ValueError:\n...         print("Oops!  That was no valid number.  Try again...")',
        "raise NameError('HiThere')",
    ]
    texts = [s.text for s in prose(transcript)]
    for t in texts:
        assert not MARKUP.search(t), t
    assert texts[0] == ("Until now error messages haven't been more than mentioned. There are (at least) two "
                        "distinguishable kinds of errors: syntax errors and exceptions (see the reference and nosuch).")
    assert texts[1] == ("The try statement works as follows; see the tutorial and print() or ValueError. "
                        "Use except to catch, PEP 8 for style, and str.format() for messages:")  # as Sphinx shows them
    assert "New in version 3.11: Exception groups with except*." in texts
    assert "Note: An Exception is an ordinary class." in texts  # an admonition heads its text, as in HTML
    assert "classes" not in texts  # a seealso of one link is a pointer, as in HTML
    assert "- raise forces an exception;\n- the argument is an instance." in texts
    assert all("maxdepth" not in t and "whatever" not in t and "builtins.print" not in t for t in texts)
    headed = {title: at for at, _, title in transcript.headings}
    assert transcript.segments[headed["Raising Exceptions"]].kind == "list"


def test_rst_see_also_of_links_alone_is_no_text_as_in_html():
    """pytest's how-to pages (python-pytest-doc) open with ``.. seealso:: :ref:`about-fixtures```:
    read from the .rst.txt source, "about fixtures" became the tutorial's first skill and its
    summary, where the HTML build's box of links was already a pointer. A seealso saying only
    cross-references (as its argument, its paragraphs or a list) is no text; one that says more stays.
    So is a paragraph that says only "see" beside its references, as the HTML reader judges one."""
    from tutorialbook.acquire.formats import read_document

    text = ("Fixtures\n========\n\n.. seealso:: :ref:`about-fixtures`\n"
            ".. seealso:: :ref:`Fixtures reference <reference-fixtures>`\n\n"
            ".. seealso::\n\n   :doc:`tmp_path`\n\n   * :ref:`capture`\n   * :doc:`monkeypatch`\n\n"
            "Tests request fixtures by naming them as arguments.\n\n"
            ".. seealso::\n\n   :ref:`tmp_path <tmp-path>`, which makes a fresh directory for each test.\n")
    texts = [s.text for s in read_document(".rst", text, "fixtures.rst").segments]
    assert texts == ["Tests request fixtures by naming them as arguments.",
                     "tmp_path, which makes a fresh directory for each test."]
    # a paragraph saying only "see" beside its references likewise (pytest's "(See :ref:`how to change
    # command line options defaults`)"); one that says more stays
    text = ("Skipping\n========\n\nUse -r to see details.\n\n(See :ref:`how to change command line options "
            "defaults`)\n\nFor more details, see :ref:`fixtures` and :doc:`usage`.\n\nSee `the site "
            "<https://x.org>`_.\n\nSee :doc:`tutorial` first, then run it.\n")
    texts = [s.text for s in read_document(".rst", text, "skipping.rst").segments]
    assert texts == ["Use -r to see details.", "See tutorial first, then run it."]


def test_rst_known_role_docutils_cannot_read_shows_its_title(tmp_path):
    """docutils knows :pep: and :rfc: but only with a number; Sphinx writes them with a title
    and an anchor (setuptools' build_meta.rst), which left the markup in the text."""
    transcript = read_written(tmp_path, "build.rst", (
        "Build\n=====\n\nUse an :pep:`in-tree backend <517#in-tree-build-backends>` if needed.\n\n"
        "See :pep:`517` and :rfc:`the JWT spec <7519>`.\n"))
    assert [s.text for s in transcript.segments] == [
        "Use an in-tree backend if needed.", "See PEP 517 and the JWT spec."]


def test_rst_function_roles_show_as_sphinx_shows_them():
    """Sphinx shows a function or method role with parentheses and without the leading dot of a
    relative name (sphinx-doc's ":meth:`.Sphinx.add_source_parser`" is "Sphinx.add_source_parser()"
    in its HTML; the .rst.txt source had read ".Sphinx.add_source_parser"); a title given, or a
    class, shows as written."""
    from tutorialbook.acquire.formats import read_document

    text = ("T\n=\n\nCall :meth:`.Sphinx.add_source_parser` or :func:`~os.path.join`, :py:func:`len`, "
            ":meth:`the f method <a.f>`, :func:`g()` and :class:`Map`.\n")
    assert [s.text for s in read_document(".rst", text, "x.rst").segments] == [
        "Call Sphinx.add_source_parser() or join(), len(), the f method, g() and Map."]


def test_a_folder_reads_rst_txt_sources(tmp_path):
    (tmp_path / "errors.rst.txt").write_text(SPHINX_SOURCE)
    (tmp_path / "notes.rst").write_text("Notes\n=====\n\nA plain :term:`note`.\n")
    from tutorialbook.acquire.roots import SourcePolicy
    from tutorialbook.acquire.sources import expand

    assert [p.name for p in expand(str(tmp_path), SourcePolicy((str(tmp_path),)))] == ["errors.rst.txt", "notes.rst"]
    assert read_source(tmp_path / "notes.rst").segments[0].text == "A plain note."


MARKDOWN = """\
# Git in ten minutes

Commit **early** and `often`; see [the book](https://example.org/book).

## Making a commit

1. Stage the files
2. Write the message
   - short subject
   - blank line

```bash
git add -A
git commit -m "First commit"

git log --oneline
```

    indented code stays code

| Command | Does |
|---------|------|
| `git status` | shows changes |

> A commit is a snapshot,
> not a diff.
"""


def test_markdown_fenced_code_and_blocks(tmp_path):
    path = tmp_path / "git.md"
    path.write_text(MARKDOWN)
    transcript = read_source(path)
    assert transcript.title == "Git in ten minutes"
    assert [(level, title) for _, level, title in transcript.headings] == [
        (1, "Git in ten minutes"), (2, "Making a commit")]
    assert [(s.kind, s.text) for s in transcript.segments] == [
        ("paragraph", "Commit early and often; see the book."),
        ("list", "1. Stage the files\n2. Write the message\n  - short subject\n  - blank line"),
        ("code", 'git add -A\ngit commit -m "First commit"\n\ngit log --oneline'),
        ("code", "indented code stays code"),
        ("table", "Command | Does\ngit status | shows changes"),
        ("quote", "A commit is a snapshot, not a diff."),
    ]
    fence = transcript.segments[2]
    assert MARKDOWN[int(fence.start):int(fence.end)].startswith("```bash\ngit add -A")  # offsets into the file


def test_markdown_badges_and_the_pages_own_contents_list_are_no_text(tmp_path):
    """A README's badges (images, linked; rows broken by ``<br>``, as Stockfish's README sets them)
    and its list of links to its own sections say nothing a learner asks about; a paragraph with
    words beside an image, and a list of links to other pages, are text."""
    transcript = read_written(tmp_path, "README.md", (
        "# eSpeak NG\n\n[![Build Status][badge]][link]\n[![License](https://example.org/l.svg)](https://x.org)\n\n"
        "  [![Release][badge]][link]\n  <br>\n  [![Discord][badge]][link]\n\n"
        "eSpeak NG is a speech synthesizer. ![logo](logo.png)\n\n"
        "## Table of contents\n\n- [Features](#features)\n- [History](#history)\n  - [Early](#early)\n\n"
        "## Features\n\nMany voices.\n\n"
        "## History\n\nSee [the guide](guide.md) and:\n\n- [Building](building.md)\n- [Voices](voices.md)\n\n"
        "[badge]: https://example.org/b.svg\n[link]: https://example.org/\n"))
    assert [title for _, _, title in transcript.headings] == ["eSpeak NG", "Features", "History"]
    assert [s.text for s in transcript.segments] == [
        "eSpeak NG is a speech synthesizer. logo", "Many voices.", "See the guide and:", "- Building\n- Voices"]


def test_markdown_mkdocs_admonitions_head_their_text_and_site_generator_tags_are_no_text(tmp_path):
    """MkDocs' admonitions (Python-Markdown's ``!!! note "Title"``, ``??? tip`` folded) had read as
    one paragraph '!!! note "Before you start" Install …'; a site generator's tags (Jekyll's
    ``{% include %}``, Hugo's ``{{< callout >}}`` and its inline templates, Bootstrap's docs in
    libjs-bootstrap4) stood as text and summed up sections. The admonition's title (else its kind)
    heads its text and nothing after it; a tag alone on its line, a paragraph or HTML block that is
    mostly template, are no text; a link to a tag keeps its words; code keeps its tags."""
    transcript = read_written(tmp_path, "setup.md", (
        "# Setup\n\n!!! note \"Before you start\"\n    Install Python 3.8 or newer first.\n\n"
        "??? tip\n    Use a virtual environment.\n\n!!! warning \"Only a title\"\n\n"
        "{% include \"snippet.md\" %}\n\nRun the server and open the site.\n\n"
        "{{< callout info >}}\nThe server reloads when you save a file.\n{{< /callout >}}\n\n"
        "{{- range $.Site.Data.grays }} $gray-{{ .name }} {{ .hex }} {{ end -}}\n\n"
        "<div class=\"row\">\n  {{< colors.inline >}}\n  {{- range $.Site.Data.colors }}\n"
        "  <strong>${{ .name }}</strong>\n  {{ end -}}\n  {{< /colors.inline >}}\n</div>\n\n"
        "See the [color utilities]({{< docsref \"/utilities/colors\" >}}) for classes.\n\n"
        "```html\n{{ site.title }}\n```\n"))
    assert [(s.kind, s.text) for s in transcript.segments] == [
        ("paragraph", "Before you start: Install Python 3.8 or newer first."),
        ("paragraph", "Tip: Use a virtual environment."), ("paragraph", "Run the server and open the site."),
        ("paragraph", "The server reloads when you save a file."),
        ("paragraph", "See the color utilities for classes."), ("code", "{{ site.title }}")]


def test_site_generator_tags_among_an_html_blocks_words_are_no_text(tmp_path):
    """Bootstrap's docs (libjs-bootstrap4, components/alerts.md.gz) close a Hugo ``{{< example >}}``
    on the last line of the example's HTML, and fill it from templates: the HTML block's text, mostly
    words, kept the tags ("A simple {{ .name }} alert … {{ end -}} {{< /alerts.inline >}} {{< /example
    >}}", "Holy guacamole! … × {{< /example >}}") as a skill's text. Its words stay, its tags go."""
    transcript = read_written(tmp_path, "alerts.md", (
        "# Alerts\n\nUse the close button.\n\n{{< example >}}\n"
        "<div class=\"alert\" role=\"alert\">\n  A simple {{ .name }} alert with an example link. Give it a click if you like, it does no harm.\n"
        "</div>{{ end -}}\n{{< /alerts.inline >}}\n{{< /example >}}\n\n"
        "{{< example >}}\n<div class=\"alert alert-warning\">\n  <strong>Holy guacamole!</strong> Check those fields.\n"
        "</div>\n{{< /example >}}\n"))
    assert [(s.kind, s.text) for s in transcript.segments] == [
        ("paragraph", "Use the close button."),
        ("paragraph", "A simple alert with an example link. Give it a click if you like, it does no harm."),
        ("paragraph", "Holy guacamole! Check those fields.")]


def test_markdown_raw_html_headings_are_headings(tmp_path):
    """A GitHub README opens on raw HTML: a centred logo, ``<h1 align="center"> Yargs </h1>``, a
    tag line. Read as one paragraph, the README was titled by its first Markdown heading
    ("Description") and its first skill was "Yargs Yargs be a node.js library"."""
    transcript = read_written(tmp_path, "README.md", (
        '<p align="center">\n  <img width="250" src="/yargs-logo.png">\n</p>\n<h1 align="center"> Yargs </h1>\n'
        '<p align="center">\n  <b>Yargs be a node.js library fer hearties</b>\n</p>\n\n'
        "## Description\n\nYargs helps you build interactive command line tools.\n\n"
        '<div align="center"><h2>Sponsors</h2>Thanks to <a href="https://x.org">X</a>.</div>\n'))
    assert transcript.title == "Yargs"
    assert [(level, title) for _, level, title in transcript.headings] == [
        (1, "Yargs"), (2, "Description"), (2, "Sponsors")]
    assert [s.text for s in transcript.segments] == [
        "Yargs be a node.js library fer hearties", "Yargs helps you build interactive command line tools.",
        "Thanks to X."]


def test_markdown_item_whose_first_paragraph_is_a_lone_link_or_term_reads_term_colon_meaning(tmp_path):
    """magit's README (elpa-magit) lists two articles, each a link over paragraphs saying what it
    is: the item read "Visual Magit walk-through If you are completely new …", as HTML's items had
    before they were read as a term over its meaning. A sentence opening an item stays one."""
    transcript = read_written(tmp_path, "README.md", (
        "# Start\n\nOne of these articles helps:\n\n"
        "- [Visual Magit walk-through](https://x.org/a)\n\n  If you are completely new to Magit, read it.\n\n"
        "  It explains the keys.\n\n"
        "- [Magit, the magical Git interface](https://x.org/b)\n\n  It discusses Magit's properties.\n\n"
        "- Usage\n\n  Call it with a file.\n\n- Run the tests first.\n\n  They take a minute.\n"))
    assert [s.text for s in transcript.segments][1].splitlines() == [
        "- Visual Magit walk-through: If you are completely new to Magit, read it. It explains the keys.",
        "- Magit, the magical Git interface: It discusses Magit's properties.",
        "- Usage: Call it with a file.", "- Run the tests first. They take a minute."]


def test_markdown_raw_html_bar_of_links_is_no_text(tmp_path):
    """magit's README opens with a centred ``<p>`` of links, "homepage | manual | faq | wiki |
    mailing list | forum | news", under its raw HTML heading: a skill of its own. A bar of links
    and separators alone is navigation; a sentence with a link in it stays."""
    transcript = read_written(tmp_path, "README.md", (
        '<h2 align="center">A Git Porcelain</h2>\n<p align="center">\n  <a href="https://x.org"><b>homepage</b></a> |\n'
        '  <a href="https://x.org/m">manual</a> |\n  <a href="https://x.org/l">mailing list</a>\n</p>\n<hr>\n\n'
        '<p>Magit is an interface to <a href="https://git-scm.com">Git</a>.</p>\n\n'
        '<p><a href="https://x.org/d">Donate</a></p>\n'))
    assert [s.text for s in transcript.segments] == ["Magit is an interface to Git.", "Donate"]


def test_a_table_rows_empty_last_cells_are_no_part_of_it(tmp_path):
    """A Markdown row whose last cell is empty read "--fast | Compress faster |" (and a skill named
    by it ended on "|"); an empty cell between others keeps its place, an empty row is none."""
    transcript = read_written(tmp_path, "opts.md", (
        "# Options\n\n| Option | Meaning | Default |\n|---|---|---|\n| `--fast` | Compress faster | |\n"
        "| `--best` | | off |\n| | | |\n"))
    assert [s.text for s in transcript.segments] == [
        "Option | Meaning | Default\n--fast | Compress faster\n--best | | off"]


def test_markdown_front_matter_gives_the_title_and_is_not_text(tmp_path):
    text = "---\nlayout: post\ntitle: \"Pruning roses\"\ntags: [garden]\n---\n\nCut above an outward bud.\n"
    path = tmp_path / "2026-03-01-roses.md"
    path.write_text(text)
    transcript = read_source(path)
    assert transcript.title == "Pruning roses" and transcript.headings == []
    assert [s.text for s in transcript.segments] == ["Cut above an outward bud."]
    assert text[int(transcript.segments[0].start):int(transcript.segments[0].end)] == "Cut above an outward bud."


def test_notebook_cells_become_markdown_and_code(tmp_path):
    notebook = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {"kernelspec": {"name": "python3"}},
        "cells": [
            {
                "cell_type": "markdown",
                "metadata": {},
                "source": ["# Plotting with *pandas*\n", "\n", "Load the data **first**.\n"],
            },
            {
                "cell_type": "code",
                "metadata": {},
                "execution_count": 1,
                "source": "import pandas as pd\ndf = pd.read_csv('x.csv')",
                "outputs": [
                    {"output_type": "stream", "name": "stdout", "text": [f"row {i}\n" for i in range(30)]},
                    {"output_type": "display_data", "data": {"image/png": "iVBORw0KGgo="}, "metadata": {}},
                ],
            },
            {"cell_type": "markdown", "metadata": {}, "source": "## A line chart\n\nCall `df.plot()`."},
            {
                "cell_type": "code",
                "metadata": {},
                "execution_count": 2,
                "source": ["df.plot()"],
                "outputs": [
                    {
                        "output_type": "execute_result",
                        "data": {"text/plain": ["<Axes: >"]},
                        "metadata": {},
                        "execution_count": 2,
                    }
                ],
            },
        ],
    }
    path = tmp_path / "plotting.ipynb"
    path.write_text(json.dumps(notebook))
    transcript = read_source(path)
    assert transcript.title == "Plotting with pandas"
    assert [(level, title) for _, level, title in transcript.headings] == [
        (1, "Plotting with pandas"),
        (2, "A line chart"),
    ]
    assert [(s.kind, s.text) for s in transcript.segments] == [
        ("paragraph", "Load the data first."),
        ("code", "import pandas as pd\ndf = pd.read_csv('x.csv')"),
        ("code", "\n".join(f"row {i}" for i in range(8)) + "\n..."),
        ("paragraph", "Call df.plot()."),
        ("code", "df.plot()"),
        ("code", "<Axes: >"),
    ]


NOTEBOOK_PAGES = {
    "nbsphinx": """<html><head><title>Lists &mdash; docs</title></head><body><div class="body">
<h1>Lists</h1><p>A list keeps its order:</p>
<div class="nbinput docutils container"><div class="prompt highlight-none notranslate"><pre>[2]:</pre></div>
<div class="input_area highlight-ipython3 notranslate"><pre>xs = [3, 1, 2]
xs.sort()</pre></div></div>
<div class="nboutput docutils container"><div class="prompt highlight-none notranslate"><pre>[2]:</pre></div>
<div class="output_area highlight-none notranslate"><pre>[1]</pre></div></div>
<div class="nbinput docutils container"><div class="prompt highlight-none notranslate"><pre>[ ]:</pre></div>
<div class="input_area highlight-ipython3 notranslate"><pre></pre></div></div>
</div></body></html>""",
    "nbconvert": """<html><head><title>Lists</title></head><body><main>
<div class="jp-Cell jp-MarkdownCell"><h1>Lists</h1><p>A list keeps its order:</p></div>
<div class="jp-Cell jp-CodeCell"><div class="jp-InputArea"><div class="jp-InputPrompt">In&nbsp;[2]:</div>
<div class="jp-CodeMirrorEditor"><pre>xs = [3, 1, 2]
xs.sort()</pre></div></div>
<div class="jp-OutputArea"><div class="jp-OutputPrompt">Out[2]:</div><pre>[1]</pre></div></div>
</main></body></html>""",
}


@pytest.mark.parametrize("style", NOTEBOOK_PAGES)
def test_notebook_rendered_to_html_keeps_cells_without_their_prompts(tmp_path, style):
    path = tmp_path / "lists.html"
    path.write_text(NOTEBOOK_PAGES[style])
    transcript = read_source(path)
    assert [(s.kind, s.text) for s in transcript.segments] == [
        ("paragraph", "A list keeps its order:"),
        ("code", "xs = [3, 1, 2]\nxs.sort()"),
        ("code", "[1]"),  # an output that looks like a prompt without its colon stays
    ]


@pytest.mark.parametrize("outline", [True, False], ids=["bookmarks", "font-sizes"])
def test_pdf_headings_from_bookmarks_or_type_size(tmp_path, outline):
    transcript = read_source(write_pdf(tmp_path / "handbook.pdf", outline=outline))
    assert transcript.title == "The Tool Handbook"
    assert [(level, title) for _, level, title in transcript.headings] == [
        (1, "Getting started"), (1, "Your first project"), (2, "Options")]
    assert [(s.kind, s.text) for s in transcript.segments] == [
        ("paragraph", SECTIONS[0][2]),
        ("paragraph", SECTIONS[1][2]),
        ("code", SECTIONS[1][3]),
        ("paragraph", SECTIONS[2][2]),
    ]


@pytest.mark.parametrize("method", ["RC4", "AES_128", "AES_256"])
def test_pdf_with_only_an_owner_password_is_read(tmp_path, method):
    from fpdf.enums import EncryptionMethod

    path = write_pdf(tmp_path / "restricted.pdf", encrypt=True, user_password=None,
                     method=getattr(EncryptionMethod, method))
    transcript = read_source(path)
    assert [s.text for s in transcript.segments][:2] == [SECTIONS[0][2], SECTIONS[1][2]]


def test_pdf_without_metadata_title_is_titled_by_the_largest_type_on_its_first_page(tmp_path):
    transcript = read_source(write_pdf(tmp_path / "handbook.pdf", title=None))
    assert transcript.title == "Getting started"


XHTML = "application/xhtml+xml"
SHELL_CHAPTERS = {
    "OEBPS/text/ch1.xhtml": xhtml("Getting around", """<section epub:type="chapter"><h1>Getting around</h1>
<p>The shell reads one command a line and runs it in the current folder.</p>
<h2>Listing files</h2><p>List every file, hidden ones too, with their sizes:</p>
<pre><code>ls -la /tmp
ls -la ~</code></pre></section>"""),
    "OEBPS/text/ch2.xhtml": xhtml("Pipes", """<section epub:type="chapter"><h1>Pipes</h1>
<p>A pipe hands one command's output to the next command as its input.</p>
<h2>Counting lines</h2><p>Count the lines of a log that mention an error:</p>
<pre>grep error log.txt | wc -l</pre></section>"""),
}


def test_epub3_book_reads_its_chapters_in_spine_order_without_its_navigation(library, tmp_path):
    """One Document for the whole book: its chapters' headings in spine order (not the manifest's
    nor the zip's), titled by the package's dc:title; the navigation document, and a page the
    spine marks non-linear (a pop-up's notes), are no text of it."""
    nav = xhtml("Contents", """<h1>Contents</h1><p>The chapters of this e-book, each a link.</p>
<nav epub:type="toc"><ol><li><a href="text/ch1.xhtml">Getting around</a></li>
<li><a href="text/ch2.xhtml">Pipes</a></li></ol></nav>""")
    notes = xhtml("Answers", "<h1>Answers</h1><p>The answers to the exercises of every chapter.</p>")
    package = epub_package("The Shell Workshop", [
        ("c2", "text/ch2.xhtml", XHTML, ""), ("nav", "nav.xhtml", XHTML, "nav"), ("c1", "text/ch1.xhtml", XHTML, ""),
        ("notes", "text/notes.xhtml", XHTML, ""), ("css", "style.css", "text/css", "")],
        ["nav", "c1", "c2", "notes linear=no"])
    path = write_epub(tmp_path / "shell-workshop.epub", {"OEBPS/content.opf": package, "OEBPS/nav.xhtml": nav,
                                                        "OEBPS/text/notes.xhtml": notes,
                                                        "OEBPS/style.css": "h1 { color: red }",
                                                        **dict(reversed(SHELL_CHAPTERS.items()))})
    transcript = read_source(path)
    assert transcript.title == "The Shell Workshop"
    assert [(level, title) for _, level, title in transcript.headings] == [
        (1, "Getting around"), (2, "Listing files"), (1, "Pipes"), (2, "Counting lines")]
    assert [(s.kind, s.text) for s in transcript.segments] == [
        ("paragraph", "The shell reads one command a line and runs it in the current folder."),
        ("paragraph", "List every file, hidden ones too, with their sizes:"),
        ("code", "ls -la /tmp\nls -la ~"),
        ("paragraph", "A pipe hands one command's output to the next command as its input."),
        ("paragraph", "Count the lines of a log that mention an error:"),
        ("code", "grep error log.txt | wc -l"),
    ]
    for s in transcript.segments:
        assert transcript.text[int(s.start):int(s.end)] == s.text

    report = library.ingest(str(path), book="shell", refine_rounds=0)
    assert report.tutorials[0].title == "The Shell Workshop"
    book = children(library, "shell")
    assert list(book) == ["The Shell Workshop"]
    chapters = children(library, "shell", book["The Shell Workshop"].id)
    assert list(chapters) == ["Getting around", "Pipes"]
    assert list(children(library, "shell", chapters["Pipes"].id)) == ["Counting lines"]
    steps = [" ".join(skill.steps) for skill in library.skills("shell")]
    assert any("grep error log.txt | wc -l" in text for text in steps)
    assert not [text for text in steps if "each a link" in text or "answers to the exercises" in text]


def test_epub2_book_with_an_ncx_and_no_title_is_titled_by_its_first_heading(tmp_path):
    """EPUB 2: the NCX is the navigation (no page); a book whose package names no title is
    titled by its top heading; an href written as a URL ("ch%201.html") names its file."""
    ncx = """<?xml version="1.0"?><ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1">
<navMap><navPoint id="p1"><navLabel><text>Getting around</text></navLabel><content src="ch%201.html"/></navPoint>
</navMap></ncx>"""
    package = epub_package(None, [("ncx", "toc.ncx", "application/x-dtbncx+xml", ""),
                                  ("c1", "ch%201.html", XHTML, ""), ("c2", "ch2.html", XHTML, "")],
                           ["ncx", "c1", "c2"], version="2.0", toc="ncx")
    path = write_epub(tmp_path / "shell.epub", {"OEBPS/content.opf": package, "OEBPS/toc.ncx": ncx,
                                                "OEBPS/ch 1.html": SHELL_CHAPTERS["OEBPS/text/ch1.xhtml"],
                                                "OEBPS/ch2.html": SHELL_CHAPTERS["OEBPS/text/ch2.xhtml"]})
    transcript = read_source(path)
    assert transcript.title == "Getting around"
    assert [title for _, _, title in transcript.headings] == ["Getting around", "Listing files", "Pipes",
                                                              "Counting lines"]
    assert "navPoint" not in transcript.text and transcript.segments[2].text == "ls -la /tmp\nls -la ~"


def test_sphinx_epub_link_addresses_are_no_text(tmp_path):
    """Sphinx's EPUB builder writes each external link's address after it (``epub_show_urls``
    'inline', its default): ubuntu-packaging-guide-epub's text read "see the autopkgtest docs
    [https://salsa.debian.org/ci-team/autopkgtest/blob/master/doc/README.package-tests.rst] for
    more", 502 times. The HTML build of the same pages shows none; the words stay."""
    page = xhtml("Tests", '<h1>Tests</h1><p>See the <a class="reference external" href="https://x.org/t">autopkgtest '
                          'docs</a><span class="link-target"> [https://x.org/t]</span> for more, or '
                          '<span class="pre">[brackets]</span> as written.</p>')
    package = epub_package("Guide", [("c1", "tests.xhtml", XHTML, "")], ["c1"])
    path = write_epub(tmp_path / "guide.epub", {"OEBPS/content.opf": package, "OEBPS/tests.xhtml": page})
    assert [s.text for s in read_source(path).segments] == ["See the autopkgtest docs for more, or [brackets] as written."]


def test_epub_whose_encryption_only_obfuscates_its_fonts_is_read(tmp_path):
    """EPUB's font obfuscation lists the fonts in META-INF/encryption.xml: no DRM, the text is read."""
    encryption = """<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container"
    xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData>
  <enc:EncryptionMethod Algorithm="http://www.idpf.org/2008/embedding"/>
  <enc:CipherData><enc:CipherReference URI="OEBPS/fonts/serif.otf"/></enc:CipherData></enc:EncryptedData></encryption>"""
    package = epub_package("The Shell Workshop", [("c1", "text/ch1.xhtml", XHTML, ""),
                                                  ("f", "fonts/serif.otf", "font/otf", "")], ["c1"])
    path = write_epub(tmp_path / "fonts.epub", {"OEBPS/content.opf": package, "META-INF/encryption.xml": encryption,
                                                "OEBPS/fonts/serif.otf": bytes(range(256)), **SHELL_CHAPTERS})
    assert read_source(path).segments[0].text.startswith("The shell reads one command a line")


DOCBOOK_CHAPTER = xhtml("Chapter 1. Getting around", """<div class="chapter"><div class="titlepage">
<h1 class="title"><a id="around"></a>Chapter 1. Getting around</h1></div><p>The shell reads one command a line.</p>
<div class="sect1"><div class="titlepage"><h1 class="title"><a id="listing"></a>1.1. Listing files</h1></div>
<p>List every file of a folder with ls.</p><div class="sect2"><h2 class="title"><a id="hidden"></a>1.1.1. Hidden
files</h2><p>Files whose names open with a dot are hidden: ls -a shows them.</p></div></div>
<div class="sect1"><h1 class="title"><a id="moving"></a>1.2. Moving</h1><p>The cd command changes the folder.</p>
</div></div>""")


def _contents_of(kind, nested):
    """DOCBOOK_CHAPTER's entries in an NCX or a navigation document: its sections under it
    (``nested``) or beside it; its sect2 not listed."""
    sections = [("ch1.xhtml#listing", "1.1. Listing files"), ("ch1.xhtml#moving", "1.2. Moving")]
    if kind == "ncx":
        points = "".join(f'<navPoint id="p{n}"><navLabel><text>{label}</text></navLabel><content src="{href}"/>'
                         "</navPoint>" for n, (href, label) in enumerate(sections))
        chapter = '<navPoint id="c"><navLabel><text>1. Getting around</text></navLabel><content src="ch1.xhtml"/>'
        body = chapter + points + "</navPoint>" if nested else chapter + "</navPoint>" + points
        return f'<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1"><navMap>{body}</navMap></ncx>'
    items = "".join(f'<li><a href="{href}">{label}</a></li>' for href, label in sections)
    chapter = '<li><a href="ch1.xhtml">1. Getting around</a>'
    body = f"{chapter}<ol>{items}</ol></li>" if nested else f"{chapter}</li>{items}"
    return xhtml("Contents", f'<nav epub:type="toc"><ol>{body}</ol></nav>')


@pytest.mark.parametrize("kind, nested", [("ncx", True), ("nav", True), ("nav", False)])
def test_epub_headings_are_as_deep_as_the_books_contents_lists_them(tmp_path, kind, nested):
    """DocBook's EPUB titles a chapter and its sections alike with <h1>: its contents (NCX or
    navigation document) nest them, and so does the book's TOC; a heading under a listed one
    goes as much deeper (the unlisted 1.1.1). A contents that lists the sections beside their
    chapter raises no heading: the page's levels stay."""
    toc = ("toc.ncx", "application/x-dtbncx+xml", "") if kind == "ncx" else ("nav.xhtml", XHTML, "nav")
    package = epub_package("The Shell Workshop", [("toc", *toc), ("c1", "ch1.xhtml", XHTML, "")], ["c1"],
                           toc="toc" if kind == "ncx" else None)
    path = write_epub(tmp_path / "shell.epub", {"OEBPS/content.opf": package, f"OEBPS/{toc[0]}": _contents_of(kind, nested),
                                                "OEBPS/ch1.xhtml": DOCBOOK_CHAPTER})
    levels = [level for _, level, _ in read_source(path).headings]
    assert levels == ([1, 2, 3, 2] if nested else [1, 1, 2, 1])


def test_hostile_html_and_huge_lines_stay_bounded(tmp_path):
    nested = "<div>" * 100_000 + "deep words" + "</div>" * 100_000
    deep = tmp_path / "deep.html"
    deep.write_text(f"<html><body><p>Words before the nesting.</p>{nested}<p>after</p></body></html>")
    transcript = read_source(deep)  # the parser stops at its depth bound and says so
    assert transcript.segments[0].text == "Words before the nesting."
    assert any("deeper than 256 levels" in w for w in transcript.warnings)
    (tmp_path / "only-deep.html").write_text(nested)
    with pytest.raises(TutorialbookError, match="only-deep.html holds no text.*deeper than 256 levels"):
        read_source(tmp_path / "only-deep.html")
    line = " ".join(f"word{i}" for i in range(400_000))  # ~3.6 MB on one line
    for name, content in (("line.md", line), ("line.html", f"<p>{line}</p>"), ("line.txt", line)):
        (tmp_path / name).write_text(content)
        transcript = read_source(tmp_path / name)
        assert max(len(s.text) for s in transcript.segments) <= MAX_BLOCK_CHARS
        assert sum(len(s.text) for s in transcript.segments) >= 0.99 * len(line)


def test_media_title_comes_from_the_container(tmp_path):
    import os
    import shutil

    from tests.support.media import _ffmpeg
    from tutorialbook.acquire.media import container_title

    if shutil.which("ffmpeg") is None:
        if os.environ.get("CI"):
            pytest.fail("ffmpeg is missing (CI installs it through .ci/run)")
        pytest.skip("ffmpeg is not installed")
    titled, bare = tmp_path / "k1.m4a", tmp_path / "k2.m4a"
    _ffmpeg("-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-metadata", "title=Knife  skills, part 1",
            "-c:a", "aac", str(titled))
    _ffmpeg("-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:a", "aac", str(bare))
    assert container_title(titled) == "Knife skills, part 1"
    assert container_title(bare) is None


def _laid_out_pdf(path, pages, bookmarks=None):
    """A PDF whose every line is placed by hand: ``pages`` is a list of pages, each a list of
    (x mm, y mm, font, size, text); font "body" is DejaVu Sans (it has the "ﬁ" ligature), a font
    "Helvetica:B" Helvetica bold;
    ``bookmarks``: {page index: a bookmark's title} of level 0."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_font("body", fname="/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
    for n, lines in enumerate(pages):
        pdf.add_page()
        if bookmarks and n in bookmarks:
            pdf.start_section(bookmarks[n], level=0)
        for x, y, font, size, text in lines:
            family, _, style = font.partition(":")  # "Helvetica:B": bold
            pdf.set_font(family, style=style, size=size)
            pdf.text(x, y, text)
    pdf.output(str(path))
    return path


def _running_head(n):
    return [(20, 12, "Helvetica", 9, "Chapter 2: Library Functions"), (185, 12, "Helvetica", 9, str(n))]


def test_pdf_words_cut_from_their_line_at_a_wide_space_read_in_the_lines_order(tmp_path):
    """bzip2's manual (DocBook through FOP) justifies its lines with wide spaces after a sentence,
    and pdfminer cuts such a line into two lines of one box, sometimes the right one first: the
    page's first line "than a block. For example, compressing a file …" read "For example,
    compressing a file … to than a block. allocate around …", the sentence the page broke ending
    inside the next one. A box's lines are read top down, those on one baseline from the left."""
    before = [(20, 30, "body", 11, "The amount of real memory touched is proportional to the size of the file,"),
              (20, 35, "body", 11, "since the file is smaller")]
    page = [(20, 30, "body", 11, "than a block."),  # written first, listed second by pdfminer
            (57, 30, "body", 11, "For example, compressing a file with the flag -9 will cause the"),
            (20, 35, "body", 11, "compressor to allocate around 7600k of memory, but only touch 560 kbytes of it."),
            (20, 40, "body", 11, "Similarly, the decompressor will allocate 3700k but only touch 180 kbytes.")]
    text = " ".join(s.text for s in read_source(_laid_out_pdf(tmp_path / "manual.pdf", [before, page])).segments)
    assert "since the file is smaller than a block. For example, compressing a file with the flag -9 will cause " \
           "the compressor to allocate around 7600k" in text


def test_pdf_heading_reads_as_printed_where_its_bookmark_lost_punctuation(tmp_path):
    """tig's PDF manual bookmarks "2.2. Browsing State and Userdefined Commands" over the heading it
    prints "… User-defined Commands": the section took the bookmark's word. A bookmark that differs
    from its printed heading in spaces and punctuation only now reads as printed; one that says
    other words keeps its own."""
    page = [(20, 30, "Helvetica:B", 16, "2.2. Browsing State and User-defined Commands"),
            (20, 45, "body", 11, "The viewer keeps track of both what head and commit you are viewing.")]
    other = [(20, 30, "Helvetica:B", 16, "3. Environment"),
             (20, 45, "body", 11, "Several options can be configured through environment variables.")]
    path = _laid_out_pdf(tmp_path / "manual.pdf", [page, other],
                         bookmarks={0: "2.2. Browsing State and Userdefined Commands", 1: "3. Environment Variables"})
    assert [title for _, _, title in read_source(path).headings] == [
        "2.2. Browsing State and User-defined Commands", "3. Environment Variables"]


def test_pdf_heading_keeps_the_marks_printed_against_its_last_word(tmp_path):
    """fontconfig's PDF manual bookmarks 'dir prefix="default" salt=""' over the heading it prints
    '<dir prefix="default" salt="">': the heading stopped at "salt" and '="">' became a paragraph,
    '/>' after "<reset-dirs" likewise. Marks set against the heading's last word are the heading's;
    a paragraph in the heading's block after a space stays text."""
    page = [(20, 30, "Helvetica:B", 14, '<dir prefix="default" salt="">'),
            (20, 45, "body", 11, "This element contains a directory name which will be scanned for font files.")]
    other = [(20, 30, "Helvetica:B", 14, "<reset-dirs />"),
             (20, 45, "body", 11, "This element removes all of the font directories added by dir elements.")]
    path = _laid_out_pdf(tmp_path / "fonts.pdf", [page, other],
                         bookmarks={0: 'dir prefix="default" salt=""', 1: "resetdirs /"})
    transcript = read_source(path)
    assert [title for _, _, title in transcript.headings] == ['<dir prefix="default" salt="">', "<reset-dirs />"]
    texts = [s.text for s in transcript.segments]
    assert not [t for t in texts if not any(ch.isalnum() for ch in t)], texts
    assert "This element contains a directory name which will be scanned for font files." in texts


def test_pdf_running_heads_hyphenation_and_ligatures_are_read_as_a_person_reads_them(tmp_path):
    body = [
        ["Library Functions"],
        ["The output buffer must be deallo-", "cated by the caller once the ﬁle is written. A well-",
         "known rule of the library applies here."],
        ["Each function returns a code.", "It is a well-known pattern in C to test it."],
        ["The lookup reads the conﬁguration", "before it starts."],
    ]
    pages = []
    for n, paragraph in enumerate(body):
        lines = _running_head(n + 1) if n else []
        if n == 0:
            lines.append((20, 40, "Helvetica", 22, paragraph[0]))
        else:
            lines += [(20, 30 + 5 * i, "body", 11, text) for i, text in enumerate(paragraph)]
        pages.append(lines)
    transcript = read_source(_laid_out_pdf(tmp_path / "manual.pdf", pages))
    texts = [s.text for s in transcript.segments]
    assert texts == [
        "The output buffer must be deallocated by the caller once the file is written. "
        "A well-known rule of the library applies here.",
        "Each function returns a code. It is a well-known pattern in C to test it.",
        "The lookup reads the configuration before it starts.",
    ]


def test_pdf_running_head_of_a_short_chapter_is_no_text(tmp_path):
    """A texinfo manual heads each page with its chapter ("Chapter 15: Humor and GNU"): a
    chapter of one or two pages shows it too seldom to be seen repeating, and it ran into the
    sentence the page break cut. A page's top line naming a bookmarked chapter is a running head."""
    def heading(text):
        return (20, 20, "Helvetica", 20, text)

    def body(text):
        return (20, 40, "body", 11, text)

    def head(text):
        return (20, 12, "Helvetica", 9, text)

    pages = [[heading("1 Getting Started"), body("All packages should")],
             [head("Chapter 1: Getting Started"), body("run on a free system.")],
             [heading("2 Humor"), body("Jokes are welcome in the manual")],
             [head("Chapter 2: Humor"), body("when they are kind.")],
             [heading("3 Releases"), body("Release often.")]]
    transcript = read_source(_laid_out_pdf(tmp_path / "maintain.pdf", pages,
                                           {0: "1 Getting Started", 2: "2 Humor", 4: "3 Releases"}))
    assert [title for _, _, title in transcript.headings] == ["1 Getting Started", "2 Humor", "3 Releases"]
    assert [s.text for s in transcript.segments] == [
        "All packages should run on a free system.", "Jokes are welcome in the manual when they are kind.",
        "Release often."]


def test_pdf_running_head_cut_short_in_capitals_is_no_text_on_one_page_either(tmp_path):
    """LaTeX sets a section's title over the page in capitals, cut short ("1.3. OK, NOW I KNOW WHAT
    DEBIAN IS...", "CHAPTER 7. BASICS OF THE DEBIAN PACKAGE … 7.3. WHY ARE …"): in the Debian FAQ's
    PDF most stand on one or two pages, too few to recur, and 28 were text, one glued to the
    sentence it cut. A line in capitals that is not cut short stays."""
    pages = [[(20, 12, "body", 9, "1.3. OK, NOW I KNOW WHAT DEBIAN IS..."),
              (20, 30, "body", 10, "Free software means that you have the freedom to distribute copies."),
              (20, 40, "body", 10, "WARNING: BACK UP FIRST"),
              (20, 50, "body", 10, "Make a copy of your files before you upgrade the system.")],
             [(20, 12, "body", 9, "CHAPTER 7. BASICS OF THE DEBIAN PACKAGE \u2026 7.3. WHY ARE DEBIAN \u2026"),
              (20, 30, "body", 10, "Debian packages are named after the program, its version and its revision.")],
             [(20, 30, "body", 10, "The package manager keeps a database of the installed packages.")]]
    texts = [s.text for s in read_source(_laid_out_pdf(tmp_path / "faq.pdf", pages)).segments]
    assert not any("DEBIAN" in t for t in texts), texts
    assert "WARNING: BACK UP FIRST" in " ".join(texts)
    assert any(t.startswith("Debian packages are named") for t in texts)


def test_pdf_heading_on_the_top_line_of_pages_is_no_running_head(tmp_path):
    pages = [[(20, 14, "Helvetica", 18, "Example"), (20, 30, "Helvetica", 11, f"Example number {w} shows a step.")]
             for w in ("one", "two", "three", "four")]
    transcript = read_source(_laid_out_pdf(tmp_path / "examples.pdf", pages))
    assert [title for _, _, title in transcript.headings] == ["Example"] * 4
    assert [s.text for s in transcript.segments] == [f"Example number {w} shows a step."
                                                     for w in ("one", "two", "three", "four")]


def test_pdf_code_listing_keeps_its_indentation_side_comments_and_page_break(tmp_path):
    column = 10 * 0.6 * 25.4 / 72  # Courier 10 pt: a character is 6 pt wide, in mm
    code = [(0, "int"), (0, "main (void)"), (0, "{"), (2, "char *p = get ();"), (2, "if (!p)"),
            (4, "return 1;"), (2, "free (p);")]
    first = [(20, 30, "Helvetica", 11, "The example frees what it got:")]
    first += [(20 + x * column, 40 + 5 * i, "Courier", 10, text) for i, (x, text) in enumerate(code)]
    first.append((20 + 20 * column, 40 + 5 * 6, "Courier", 10, "/* or lib_free() */"))
    second = _running_head(2) + [(20 + 2 * column, 30, "Courier", 10, "return 0;"), (20, 35, "Courier", 10, "}"),
                                 (20, 50, "Helvetica", 11, "That is all it takes.")]
    third = _running_head(3) + [(20, 30, "Helvetica", 11, "Nothing more to say.")]
    fourth = _running_head(4) + [(20, 30, "Helvetica", 11, "The end.")]
    transcript = read_source(_laid_out_pdf(tmp_path / "listing.pdf", [first, second, third, fourth]))
    assert [(s.kind, s.text) for s in transcript.segments][:3] == [
        ("paragraph", "The example frees what it got:"),
        ("code", "int\nmain (void)\n{\n  char *p = get ();\n  if (!p)\n    return 1;\n"
                 "  free (p);         /* or lib_free() */\n  return 0;\n}"),
        ("paragraph", "That is all it takes."),
    ]


def test_pdf_definition_list_keeps_each_term_with_its_indented_meaning(tmp_path):
    """A manual's options (DocBook's variablelist in print): a term on its own line, its meaning
    indented below in one paragraph or more. Read as blocks of their own, a term joined the
    passage before it and its meaning started the next one."""
    def term(y, text):
        return (20, y, "Courier", 10, text)

    def meaning(y, text):
        return (35, y, "Helvetica", 11, text)

    page = [(20, 20, "Helvetica", 11, "Return values: 0 for a normal exit."),
            term(35, "-c --stdout"), meaning(41, "Compress or decompress to standard output."),
            term(52, "-f --force"), meaning(58, "Force overwrite of output files."),
            meaning(70, "It also forces a pass through unmodified."),
            term(81, "-k --keep"), meaning(87, "Keep input files."),
            (20, 100, "Helvetica", 11, "A paragraph after the list."),
            (20, 115, "Helvetica", 11, "One quote follows, but no list:"),
            (35, 121, "Helvetica", 11, "An indented quotation stands alone.")]
    transcript = read_source(_laid_out_pdf(tmp_path / "options.pdf", [page]))
    assert [(s.kind, s.text) for s in transcript.segments] == [
        ("paragraph", "Return values: 0 for a normal exit."),
        ("list", "-c --stdout\n  Compress or decompress to standard output.\n-f --force\n"
                 "  Force overwrite of output files.\n  It also forces a pass through unmodified.\n"
                 "-k --keep\n  Keep input files."),
        ("paragraph", "A paragraph after the list."),
        ("paragraph", "One quote follows, but no list:"),
        ("paragraph", "An indented quotation stands alone.")]


def test_pdf_letter_spaced_listing_reads_as_words_and_single_letter_words_stay_apart(tmp_path):
    """LaTeX's listings set code in a text font with its letters spaced apart (a CRC paper in
    zlib1g-dev, "Everything we know about CRC but afraid to forget"): pdfminer read "r e t u r n
    p r o d u c t ;" and "f o r", letter by letter. Letters that close are joined again, words a
    space apart stay apart; single-letter words of prose ("a b c d") stand a word space apart and
    stay as they are."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_font("body", fname="/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
    pdf.add_page()
    pdf.set_font("body", size=11)
    pdf.text(20, 20, "The loop below multiplies two polynomials, a bit at a time.")
    pdf.set_font("body", size=8)
    pdf.set_char_spacing(1.2)
    pdf.text(20, 30, "for (int k = 0; k < D; ++k) {")
    pdf.text(20, 35, "return product;")
    pdf.set_char_spacing(0)
    pdf.set_font("body", size=11)
    pdf.text(20, 45, "Here x * y is a product and a b c d are its four terms.")
    pdf.output(str(tmp_path / "crc.pdf"))
    assert [s.text for s in read_source(tmp_path / "crc.pdf").segments] == [
        "The loop below multiplies two polynomials, a bit at a time.",
        "for (int k = 0; k < D; ++k) { return product;",
        "Here x * y is a product and a b c d are its four terms."]


def test_pdf_line_whose_last_words_are_drawn_after_the_line_below_reads_whole(tmp_path):
    """makeindex's PDF (texlive-base) draws "(between the" after the line under "Put a \\makeindex
    command in the preamble": pdfminer joins only characters drawn in turn, so those words were a
    box of their own, read after the paragraph and run into the next one ("(between the Put a
    \\printindex command …"). A piece of a line, level with it and a word space after its end, is
    that line's; a column beyond a gutter is not."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.text(20, 20, "Makeindex reads the index file that LaTeX writes and sorts its entries.")
    left = "Put a makeindex command in the preamble"
    pdf.text(25, 36, left)
    pdf.text(25, 41.5, "and the first command.")
    pdf.text(25 + pdf.get_string_width(left + " "), 36, "(between the")  # drawn last
    pdf.text(20, 52, "Run it again after each change of the index entries of the document.")
    pdf.text(20, 70, "A left column line.")
    pdf.text(20 + pdf.get_string_width("A left column line.") + 8, 70, "Right column")
    pdf.output(str(tmp_path / "makeindex.pdf"))
    assert [s.text for s in read_source(tmp_path / "makeindex.pdf").segments] == [
        "Makeindex reads the index file that LaTeX writes and sorts its entries.",
        "Put a makeindex command in the preamble (between the and the first command.",
        "Run it again after each change of the index entries of the document.",
        "A left column line.", "Right column"]


def test_pdf_texinfo_definition_category_at_the_line_end_is_no_text(tmp_path):
    """texinfo prints a definition's category in brackets at the right end of its signature's line
    ("void sha256_init (struct sha256_ctx *ctx)   [Function]"): nettle-dev's PDF manual had 534,
    read into the signatures' text and as paragraphs "[Constant] [Constant] [Constant]". As in its
    HTML, the signature is read without it; brackets in the text's own lines stay."""
    page = [(20, 20, "Helvetica", 11, "Nettle defines SHA256 in its own header file, with these names."),
            (25, 30, "Courier", 10, "void sha256_init (struct sha256_ctx *ctx)"),
            (170, 30, "Helvetica", 11, "[Function]"),
            (35, 36, "Helvetica", 11, "Initialize the SHA256 state before any data is hashed."),
            (25, 46, "Courier", 10, "SHA256_DIGEST_SIZE"), (170, 46, "Helvetica", 11, "[Constant]"),
            (35, 52, "Helvetica", 11, "The size of a SHA256 digest, i.e. 32."),
            (20, 62, "Helvetica", 11, "[Optional]")]
    texts = [s.text for s in read_source(_laid_out_pdf(tmp_path / "nettle.pdf", [page])).segments]
    assert not any("[Function]" in t or "[Constant]" in t for t in texts), texts
    assert "Initialize the SHA256 state before any data is hashed." in " ".join(texts)
    assert texts[-1] == "[Optional]"


def test_pdf_code_quotes_are_as_typed_and_tex_accents_join_their_letters(tmp_path):
    """TeX sets a typewriter font's ' as ’ (bash's "local IFS=$’ \\t\\n’") and draws an accent as a
    mark before its letter ("Br¨oker", "J´erˆome", "na¨ıve"); dblatex's opening quote reads as a
    grave accent over no letter (the Debian FAQ's "the \u0300stable’ distribution")."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_font("mono", fname="/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf")
    pdf.add_font("body", fname="/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
    pdf.add_page()
    pdf.set_font("body", size=11)
    pdf.text(20, 20, "Thanks to Br¨oker, J´erˆome and a na¨ıve reader.")
    pdf.text(20, 26, "Track the \u0300stable’ distribution.")
    pdf.set_font("mono", size=10)
    pdf.text(20, 35, "local IFS=$’ \\t\\n’")
    pdf.text(20, 40, "echo ‘date‘")
    pdf.output(str(tmp_path / "quotes.pdf"))
    assert [(s.kind, s.text) for s in read_source(tmp_path / "quotes.pdf").segments] == [
        ("paragraph", "Thanks to Bröker, Jérôme and a naïve reader."), ("paragraph", "Track the ‘stable’ distribution."),
        ("code", "local IFS=$' \\t\\n'\necho `date`")]


def test_pdf_front_table_of_contents_with_page_numbers_apart_is_no_text(tmp_path):
    """gnuplot's manual opens on a table of contents whose page numbers stand in a column of their
    own, no leader dots: 200 entries became text before its first chapter. A "Contents" line in
    the front matter starts one; the short lines after it are its entries, up to the first
    heading or sentence of prose. After the first heading, a list under "Contents" is text."""
    entries = ["Introduction", "Seeking assistance", "New features", "Plotting styles", "Boxerrorbars"]
    front = [(20, 20, "Helvetica", 11, "Thanks for reading: this manual explains the tool and its many options.")]
    front += [(20, 40, "Helvetica", 11, "Contents")]
    front += [(20, 50 + 6 * i, "Helvetica", 11, entry) for i, entry in enumerate(entries)]
    front += [(180, 50 + 6 * i, "Helvetica", 11, str(3 + i)) for i in range(len(entries))]
    body = [(20, 30, "Helvetica", 11, "The tool draws plots of functions and data from the command line."),
            (20, 50, "Helvetica", 11, "Contents"), (20, 56, "Helvetica", 11, "A short list of what the box holds")]
    transcript = read_source(_laid_out_pdf(tmp_path / "manual.pdf", [front, body], {1: "1 Introduction"}))
    assert [s.text for s in transcript.segments] == [
        "Thanks for reading: this manual explains the tool and its many options.",
        "The tool draws plots of functions and data from the command line.", "Contents",
        "A short list of what the box holds"]


def test_pdf_contents_cut_into_pieces_and_stray_dots_are_no_text(tmp_path):
    contents = [(20, 20, "Helvetica", 16, "Contents")]
    for i, title in enumerate(["Getting started", "Options", "Troubleshooting"]):
        contents += [(20, 30 + 6 * i, "Helvetica", 11, f"{i + 1} {title} " + ". " * 30),
                     (190, 30 + 6 * i, "Helvetica", 11, str(i + 2))]
    body = [[(20, 20, "Helvetica", 16, title), (20, 30, "Helvetica", 11, f"How {title.lower()} works."),
             (120, 60, "Helvetica", 11, ".")] for title in ["Getting started", "Options", "Troubleshooting"]]
    transcript = read_source(_laid_out_pdf(tmp_path / "guide.pdf", [contents, *body]))
    assert [s.text for s in transcript.segments] == [
        "How getting started works.", "How options works.", "How troubleshooting works."]


README_TEXT = """Frobnicator Guide

Frobnicating files
==================

The frob tool rewrites files in place. It keeps a backup unless it
is told otherwise: the backup is written next to the file and deal-
located nothing, and a well-known rule applies.

1. Installing frob

Get it from the archive and run the installer:

    $ sudo apt-get install frob
    $ frob --version

Note

Old versions wrote the backup elsewhere.

1.1. frobrc

The settings live in a file:

  * backup: keep a copy (default yes)
  * level: how hard to frob

OPTIONS AND ARGUMENTS

Options come before the files.

----------------------------------------------------------------------

To frob a tree of files:

1. Check the tree is clean

2. Run frob on its root

3. Look at the backups
"""


def test_plain_text_shows_its_structure_by_layout(tmp_path):
    transcript = read_written(tmp_path, "frob.txt", README_TEXT)
    assert transcript.title == "Frobnicator Guide"
    assert [(level, title) for _, level, title in transcript.headings] == [
        (1, "Frobnicating files"), (2, "1. Installing frob"), (3, "1.1. frobrc"), (4, "OPTIONS AND ARGUMENTS")]
    assert [(s.kind, s.text) for s in transcript.segments] == [
        ("paragraph", "The frob tool rewrites files in place. It keeps a backup unless it is told otherwise: the "
                      "backup is written next to the file and deallocated nothing, and a well-known rule applies."),
        ("paragraph", "Get it from the archive and run the installer:"),
        ("code", "$ sudo apt-get install frob\n$ frob --version"),
        ("paragraph", "Note: Old versions wrote the backup elsewhere."),
        ("paragraph", "The settings live in a file:"),
        ("list", "* backup: keep a copy (default yes)\n* level: how hard to frob"),
        ("paragraph", "Options come before the files."),
        ("paragraph", "To frob a tree of files:"),  # numbered steps one to a block stay steps
        ("list", "1. Check the tree is clean"),
        ("list", "2. Run frob on its root"),
        ("list", "3. Look at the backups"),
    ]


def test_plain_text_list_items_wrapped_to_the_margin_are_whole(tmp_path):
    """libpng's manual wraps an item's lines back to the margin ("  a) As a small integer … For the
    color or" / "luminance channels …"): each line had been a term of its own, the skill read
    "For the color or, luminance channels". A line deeper than the item's words stays its own."""
    path = tmp_path / "channels.txt"
    path.write_text("Channels\n========\n\nThe channels are encoded in one of two ways:\n\n"
                    "  a) As a small integer, value 0..255, contained in a single byte.  For the\n"
                    "alpha channel the value is simply value/255.  For the color or\n"
                    "luminance channels the value is encoded by the sRGB specification.\n"
                    "  b) As a value in the range 0..65535, in a 2-byte integer:\n"
                    "          uint16 value;\n")
    segments = [(s.kind, s.text) for s in read_source(path).segments]
    assert ("list", "a) As a small integer, value 0..255, contained in a single byte. For the alpha channel the "
                    "value is simply value/255. For the color or luminance channels the value is encoded by the "
                    "sRGB specification.\nb) As a value in the range 0..65535, in a 2-byte integer:\n"
                    "        uint16 value;") in segments, segments


def test_plain_text_manual_page_headings_stand_out_to_the_left(tmp_path):
    """A manual page or DocBook manual dumped to text: headings at the margin, prose indented;
    nroff's bold and underline (overstruck letters) read as the letters."""
    page = ("F\bFR\bRO\bOB\bB(1)\n\nName\n\n   frob -- rewrite files in place\n\nDescription\n\n"
            "   frob rewrites each _\bf_\bi_\bl_\be it is given and keeps a\n   backup of it.\n\n"
            "Chapter 2. Files\n\n   The backup is named after the file.\n")
    transcript = read_written(tmp_path, "frob.1.txt", page)
    assert transcript.title == "FROB(1)"
    assert [(level, title) for _, level, title in transcript.headings] == [
        (1, "Name"), (1, "Description"), (1, "Chapter 2. Files")]
    assert [s.text for s in transcript.segments] == [
        "frob -- rewrite files in place", "frob rewrites each file it is given and keeps a backup of it.",
        "The backup is named after the file."]


FAQ_TEXT = """\x1b[1mChecker FAQ\x1b[0m
Release 3.19.0
~~~~~~~~~~~~~~

I. Using the checker

Q:  Why does the checker miss the overrun in this program?

A:  It does not check stack arrays. We would like to, but it is not
    possible in a reasonable way, and the heap is what matters most.

    The program below shows the case the checker cannot see at all,
    because the array lives on the stack of the main function.

    int main(void)
    {
      int stack[5];

      stack[5] = 0;

      return 0;
    }

CHECKER FAQ                                                   Page 2

II. Building¶

1. Nf3 d5

The build needs make and a compiler; the word ap\u2010
pears here cut by Unicode's hyphen.

CHECKER FAQ                                                   Page 3

III. Reporting

Send the report with the program that shows the bug.

CHECKER FAQ                                                   Page 4
"""


def test_plain_text_faq_keeps_listings_whole_and_answers_as_prose(tmp_path):
    """A listing that blank lines cut into blocks is one code block with its indentation; an
    answer indented under "A:" is prose, not code; a title block of several lines gives its first;
    roman chapter numbers, a trailing pilcrow, a paginated text's running heads and a terminal's
    colour codes are read as a person reads them; a numbered line of chess moves is no heading."""
    transcript = read_written(tmp_path, "faq.txt", FAQ_TEXT)
    assert transcript.title == "Checker FAQ"
    assert [(level, title) for _, level, title in transcript.headings] == [
        (1, "I. Using the checker"), (1, "II. Building"), (1, "III. Reporting")]
    assert [(s.kind, s.text) for s in transcript.segments] == [
        ("paragraph", "Q: Why does the checker miss the overrun in this program?"),
        ("paragraph", "A: It does not check stack arrays. We would like to, but it is not possible in a "
                      "reasonable way, and the heap is what matters most."),
        ("paragraph", "The program below shows the case the checker cannot see at all, because the array "
                      "lives on the stack of the main function."),
        ("code", "int main(void)\n{\n  int stack[5];\n\n  stack[5] = 0;\n\n  return 0;\n}"),
        ("list", "1. Nf3 d5"),  # a numbered line, as any: not a heading
        ("paragraph", "The build needs make and a compiler; the word appears here cut by Unicode's hyphen."),
        ("paragraph", "Send the report with the program that shows the bug."),
    ]


def test_plain_text_table_of_contents_is_no_text(tmp_path):
    transcript = read_written(tmp_path, "guide.txt", (
        "Frob Guide\n\nTable of Contents\n1. Installing\n2. Running\n\n1. Installing\n\n"
        "Install frob with the package manager of your system.\n\nCONTENTS\n\n"
        "2. Running\n   2.1. Options\n\n2. Running\n\nRun frob on a folder to rewrite its files.\n"))
    assert [title for _, _, title in transcript.headings] == ["1. Installing", "2. Running"]
    assert [s.text for s in transcript.segments] == [
        "Install frob with the package manager of your system.", "Run frob on a folder to rewrite its files."]


def test_plain_text_faq_numbered_with_colons_and_contents_a_chapter_a_block(tmp_path):
    """zsh's FAQ (zsh-doc) numbers "Chapter 1: Introducing zsh" and "1.1: Sources of information"
    with colons, and lists its contents under "Contents:" a chapter a block, then "Acknowledgments"
    and "Copyright" unnumbered: it was read as one section titled "Acknowledgments" (its first
    heading), the contents as skills. Now the colon numbers as a dot does, every block of the list
    goes, and so do the unnumbered entries ending it, since the body opens on an entry listed (with
    prose between, a line standing alone after the list is the text's own)."""
    transcript = read_written(tmp_path, "FAQ.txt", (
        "Archive-Name: unix-faq/shell/frob\nLast-Modified: 2020/08/08\n\n"
        "This document contains questions often asked about frob.\n\nContents:\n"
        "Chapter 1:  Introducing frob\n1.1. Sources of information\n1.2. What is it?\n\n"
        "Chapter 2:  Using frob\n\n2.1. How do I start it?\n2.2. How do I stop it?\n\n"
        "Acknowledgments\n\nCopyright\n--- End of Contents ---\n\n\n"
        "Chapter 1: Introducing frob\n\n\n1.1: Sources of information\n\n"
        "Information on frob is available on its web site.\n\n1.2: What is it?\n\n"
        "Frob is a tool that rewrites files in place.\n\nChapter 2: Using frob\n\n"
        "2.1: How do I start it?\n\nRun frob with the name of a folder.\n\n2.2: How do I stop it?\n\n"
        "Press control-C and frob stops after the file it is writing.\n"))
    assert [(level, title) for _, level, title in transcript.headings] == [
        (1, "Chapter 1: Introducing frob"), (2, "1.1: Sources of information"), (2, "1.2: What is it?"),
        (1, "Chapter 2: Using frob"), (2, "2.1: How do I start it?"), (2, "2.2: How do I stop it?")]
    assert transcript.title == "Chapter 1: Introducing frob"
    assert [s.text for s in transcript.segments] == [
        "This document contains questions often asked about frob.",
        "Information on frob is available on its web site.", "Frob is a tool that rewrites files in place.",
        "Run frob with the name of a folder.", "Press control-C and frob stops after the file it is writing."]
    guarded = read_written(tmp_path, "FAQ2.txt", (
        "Contents:\n1.1. Sources of information\n1.2. What is it?\n1.3. Who wrote it?\n\nPreface\n\n"
        "This preface says why the frob FAQ exists at all.\n\n1.1: Sources of information\n\n"
        "Information on frob is available on its web site.\n"))
    assert guarded.title == "Preface"  # prose before the body: no contents entry
    assert [title for _, _, title in guarded.headings] == ["1.1: Sources of information"]


def test_plain_text_faq_contents_list_names_its_headings_and_is_no_text(tmp_path):
    """The sed FAQ lists its questions under CONTENTS in blocks of numbered entries (a group's
    label, an entry wrapped, bullets under one among them): 18 of its blocks had been skills. Its
    headings "5.2. I'm using 'p' to print, but I have duplicate lines sometimes." and "5.4. My RE
    isn't matching … (Or, "Greedy vs. / stingy pattern matching")" end as sentences do and had been
    read as text, their answers filed under the question before. A numbered line the contents do
    not list stays text."""
    transcript = read_written(tmp_path, "sedfaq.txt", (
        "THE FROB FAQ\n\nCONTENTS\n\n5. WHY ISN'T THIS WORKING?\n"
        "5.1.  Why don't my variables get expanded in my frob script?\n"
        "5.2.  I'm using 'p' to print, but I have duplicate lines sometimes.\n\n"
        "   WHEN MATCHING\n5.3.  My RE isn't matching/deleting what I want it to. (Or, \"Greedy vs.\n"
        "      stingy pattern matching\")\n\n      - double-space a file?\n      - delete blank lines?\n\n"
        "------------------------------\n\n5. WHY ISN'T THIS WORKING?\n\n"
        "5.1. Why don't my variables get expanded in my frob script?\n\n"
        "   Because the shell does not expand variables inside single quotes, use double quotes.\n\n"
        "5.2. I'm using 'p' to print, but I have duplicate lines sometimes.\n\n"
        "   Use the -n switch, which suppresses the automatic printing of every line.\n\n"
        "5.3. My RE isn't matching/deleting what I want it to. (Or, \"Greedy vs.\n"
        "     stingy pattern matching\")\n\n"
        "   The star is greedy: it matches as many characters as it can on the line.\n\n"
        "5.9. The 'r' command reads a file.\n\n   It inserts the file after the current line.\n"))
    assert [title for _, _, title in transcript.headings] == [
        "5. WHY ISN'T THIS WORKING?", "5.1. Why don't my variables get expanded in my frob script?",
        "5.2. I'm using 'p' to print, but I have duplicate lines sometimes.",
        "5.3. My RE isn't matching/deleting what I want it to. (Or, \"Greedy vs. stingy pattern matching\")"]
    assert [s.text for s in transcript.segments] == [
        "Because the shell does not expand variables inside single quotes, use double quotes.",
        "Use the -n switch, which suppresses the automatic printing of every line.",
        "The star is greedy: it matches as many characters as it can on the line.",
        "5.9. The 'r' command reads a file.", "It inserts the file after the current line."]


def test_plain_text_title_cased_line_at_the_margin_heads_a_section(tmp_path):
    transcript = read_written(tmp_path, "lib.txt", (
        "The Library\n\nI. Structures\n\nThere are two main structures that matter.\nBoth are internal.\n\n"
        "Data Types\n\nThe data types used are defined in the header file.\nSee the comments there.\n\n"
        "See\n\nthe header for the rest of them, which\nare not described here.\n"))
    assert [(level, title) for _, level, title in transcript.headings] == [(1, "I. Structures"), (2, "Data Types")]
    assert [s.text for s in transcript.segments] == [
        "There are two main structures that matter. Both are internal.",
        "The data types used are defined in the header file. See the comments there.",
        "See", "the header for the rest of them, which are not described here."]  # "See" heads nothing


def test_pdf_columns_are_read_one_after_the_other_and_a_table_row_by_row(tmp_path):
    left = ["The left column opens the story", "and carries it down the page", "to its last line here."]
    right = ["The right column goes on after", "the left one has ended, as", "a reader turns to it."]
    page = [(20, 20, "Helvetica", 18, "Two columns")]
    page += [(20, 35 + 5 * i, "Helvetica", 10, text) for i, text in enumerate(left)]
    page += [(110, 35 + 5 * i, "Helvetica", 10, text) for i, text in enumerate(right)]
    page.append((20, 70, "Helvetica", 14, "Options"))
    for i, (name, meaning) in enumerate([("--quiet", "prints nothing."), ("--verbose", "prints every step.")]):
        page += [(20, 82 + 10 * i, "Helvetica", 10, name), (110, 82 + 10 * i, "Helvetica", 10, meaning)]
    texts = [s.text for s in read_source(_laid_out_pdf(tmp_path / "columns.pdf", [page])).segments]
    assert texts[:2] == [" ".join(left), " ".join(right)]
    assert " ".join(texts[2:]).split() == "--quiet prints nothing. --verbose prints every step.".split()


def test_pdf_reading_order_cuts_bands_then_columns():
    from types import SimpleNamespace as Box

    from tutorialbook.acquire.formats.pdf import reading_order

    title = Box(x0=10, x1=200, y0=780, y1=800, name="title")
    left = [Box(x0=10, x1=95, y0=700 - 60 * i, y1=760 - 60 * i, name=f"left{i}") for i in range(3)]
    right = [Box(x0=110, x1=200, y0=690 - 50 * i, y1=770 - 50 * i, name=f"right{i}") for i in range(3)]
    footer = Box(x0=10, x1=200, y0=20, y1=30, name="footer")
    cells = [Box(x0=10 + 100 * c, x1=90 + 100 * c, y0=400 - 20 * r, y1=410 - 20 * r, name=f"cell{r}{c}")
             for r in range(2) for c in range(2)]
    shuffled = [footer, *cells[::-1], *right, title, *left[::-1]]
    page = [b for b in shuffled if b not in cells]
    assert [b.name for b in reading_order(page)] == ["title", "left0", "left1", "left2", "right0", "right1",
                                                     "right2", "footer"]
    assert [b.name for b in reading_order(cells)] == ["cell00", "cell01", "cell10", "cell11"]
    assert reading_order([]) == [] and [b.name for b in reading_order([title])] == ["title"]
    # a term whose words run into its description's box: the tops are level, the first lines say the order
    term = Box(x0=96, x1=253, y0=528, y1=538.8, first=96, name="term")
    rest = Box(x0=260, x1=343, y0=528, y1=538.6, first=260, name="rest of the term")
    described = Box(x0=121, x1=528, y0=468, y1=538.8, first=350, name="description")
    assert [b.name for b in reading_order([described, rest, term], start=lambda b: b.first)] == [
        "term", "rest of the term", "description"]


def test_plain_text_lines_that_start_a_block_without_a_blank_line(tmp_path):
    """A question over its answer is a heading; lines shown deeper under a line ending in a colon
    are code, the prose after them prose again; lines the author ended by hand (each next word would
    have fit) are one item a line, while wrapped prose, whose next word never fits, is joined; a
    shell command standing left of indented prose heads nothing."""
    transcript = read_written(tmp_path, "faq.txt", (
        "Frob FAQ\n\n"
        "1.1. Why does frob stop halfway?\n"
        "It runs out of disk space. Frob writes a backup of every file it rewrites, so\n"
        "it needs as much free space as the files it is given take up on the disk.\n\n"
        "1.2. What does the error look like?\n"
        "Frob prints this when it stops:\n"
        "    frob: write failed\n"
        "    frob: 3 files left\n"
        "and then it exits with status 2.\n\n"
        "The settings it reads:\n\n"
        "backup: yes\n"
        "level: 3\n"
        "colour: auto, or always when the output is piped\n\n"
        "    ./configure && make\n\n"
        "      Build it from the sources when the archive has no package for your\n"
        "      system; the build needs a C compiler and the make tool installed.\n"))
    assert [(level, title) for _, level, title in transcript.headings] == [
        (1, "1.1. Why does frob stop halfway?"), (1, "1.2. What does the error look like?")]
    assert [(s.kind, s.text) for s in transcript.segments] == [
        ("paragraph", "It runs out of disk space. Frob writes a backup of every file it rewrites, so it needs "
                      "as much free space as the files it is given take up on the disk."),
        ("paragraph", "Frob prints this when it stops:"),
        ("code", "frob: write failed\nfrob: 3 files left"),
        ("paragraph", "and then it exits with status 2."),
        ("paragraph", "The settings it reads:"),
        ("list", "backup: yes\nlevel: 3\ncolour: auto, or always when the output is piped"),
        ("code", "./configure && make"),
        ("paragraph", "Build it from the sources when the archive has no package for your system; the build "
                      "needs a C compiler and the make tool installed."),
    ]
    tabbed = read_written(tmp_path, "howto.txt", (
        "Building\n\n\t./configure && make\n\n"
        "\t  If something fails, read the last lines of its output. A missing\n"
        "\t  library is the usual reason, such as libtool or gettext.\n\n"
        "\t  Use SUID_CFLAGS when you want special compiler options for the\n"
        "\t  programs that run as root, for example to build them as PIE.\n"))
    assert "./configure && make" not in [title for _, _, title in tabbed.headings]
    assert "./configure && make" in [s.text for s in tabbed.segments]


def test_plain_text_drawn_tables_are_tables_and_a_framed_note_is_prose(tmp_path):
    transcript = read_written(tmp_path, "types.txt", (
        "Common Types\n\n"
        "┌──────────┬──────────────────────────────┐\n"
        "│Name      │Value                         │\n"
        "├──────────┼──────────────────────────────┤\n"
        "│          │A list of elements; its length│\n"
        "│LISTofFOO │field comes first.            │\n"
        "├──────────┼──────────────────────────────┤\n"
        "│BYTE      │8-bit value                   │\n"
        "└──────────┴──────────────────────────────┘\n\n"
        "    +---------+-----------+\n"
        "    |Language | Directory |\n"
        "    +---------+-----------+\n"
        "    |French   | /usr/fr   |\n"
        "    |         | or /fr    |\n"
        "    |German   | /usr/de   |\n"
        "    +---------+-----------+\n\n"
        "+--------------------------------+\n"
        "|Caution                         |\n"
        "|It takes hours to package well. |\n"
        "+--------------------------------+\n"))
    assert [(s.kind, s.text) for s in transcript.segments] == [
        ("table", "Name | Value\nLISTofFOO | A list of elements; its length field comes first.\nBYTE | 8-bit value"),
        ("table", "Language | Directory\nFrench | /usr/fr or /fr\nGerman | /usr/de"),
        ("paragraph", "Caution It takes hours to package well."),
    ]


def test_pdf_reading_order_of_boxes_nested_past_any_page_stays_bounded():
    """Bands in columns in bands ... a thousand levels deep (a page drawn to exhaust the cutting)
    is read, by lines from MAX_CUTS down, without running out of stack."""
    from types import SimpleNamespace as Box

    from tutorialbook.acquire.formats.pdf import MAX_CUTS, reading_order

    boxes, (x0, x1, y0, y1) = [], (0.0, 10_000.0, 0.0, 10_000.0)
    for n in range(2000):  # a band over the rest, then a column beside the rest: each cut parts one box
        if n % 2:
            boxes.append(Box(x0=x0, x1=x0 + 3, y0=y0, y1=y1, n=n))
            x0 += 5
        else:
            boxes.append(Box(x0=x0, x1=x1, y0=y1 - 3, y1=y1, n=n))
            y1 -= 5
    ordered = reading_order(boxes[::-1])
    assert sorted(b.n for b in ordered) == list(range(2000))
    assert [b.n for b in ordered[:MAX_CUTS]] == list(range(MAX_CUTS))  # as cut, while it cuts


def test_rst_extension_directives_keep_their_content_and_references_name_their_section(tmp_path):
    """click's docs show every example through ``.. click:example::``, a directive of its own
    Sphinx extension: docutils reported it unknown and its code was lost. A ``:ref:`` without a
    title showed its label ("optional-value") where Sphinx shows the section's title."""
    transcript = read_written(tmp_path, "options.rst.txt", (
        "Options\n=======\n\n.. _basic-options:\n\nBasic Options\n-------------\n\n"
        "To count, pass count=True; see :ref:`optional-value` and :ref:`basic-options`.\n\n"
        ".. click:example::\n\n    @click.command()\n    @click.option('-v', count=True)\n"
        "    def log(verbose):\n        click.echo(f'Verbosity: {verbose}')\n\n"
        ".. versionadded:: 4.0\n\n"
        ".. versionchanged:: 6.0\n   Counting starts at zero.\n\n"
        ".. our-aside::\n\n   Counting options are rare in practice.\n   Most tools take a level instead.\n"))
    code = [s.text for s in transcript.segments if s.kind == "code"]
    assert code == ["@click.command()\n@click.option('-v', count=True)\ndef log(verbose):\n"
                    "    click.echo(f'Verbosity: {verbose}')"]
    texts = [s.text for s in prose(transcript)]
    assert texts[0] == "To count, pass count=True; see optional value and Basic Options."
    assert "Changed in version 6.0: Counting starts at zero." in " ".join(texts)
    assert "Counting options are rare in practice. Most tools take a level instead." in texts
    assert not any("New in version 4.0" in t for t in texts)  # a bare stamp teaches nothing alone


def test_myst_directive_fences_hold_markdown_unless_they_hold_code(tmp_path):
    """pip's topic pages (MyST): a ````{tab} Linux```` fence holding a code block and a sentence was
    one block of code with raw fences in it, a ```{versionchanged}``` lost its version; now
    a directive's content is read as Markdown, headed by what it says, at its own lines; a
    code directive stays code."""
    path = tmp_path / "caching.md"
    text = ("# Caching\n\npip caches what it downloads.\n\n````{tab} Linux\n```\n~/.cache/pip\n```\n"
            "pip will also respect `XDG_CACHE_HOME`.\n````\n\n```{versionchanged} 23.1\nThe cache is shared.\n```\n\n"
            "```{code-block} python\nimport pip\n```\n")
    path.write_text(text)
    transcript = read_source(path)
    segments = [(s.kind, s.text) for s in transcript.segments]
    assert segments == [("paragraph", "pip caches what it downloads."), ("term", "Linux:"), ("code", "~/.cache/pip"),
                        ("paragraph", "pip will also respect XDG_CACHE_HOME."),
                        ("paragraph", "Changed in version 23.1: The cache is shared."), ("code", "import pip")]
    spans = {s.text: text[int(s.start):int(s.end)] for s in transcript.segments}
    assert spans["pip will also respect XDG_CACHE_HOME."] == "pip will also respect `XDG_CACHE_HOME`."


def test_myst_colon_fences_read_as_their_text_and_a_link_with_spaces_as_its_words(tmp_path):
    """attrs' examples.md.txt writes its notes as MyST colon fences (:::{note} …), which were
    read as text with their markup ("{note} If you find…" named a skill); nbsphinx's notebook
    links a file whose path holds a space, which CommonMark does not take for a link."""
    transcript = read_written(tmp_path, "examples.md.txt", (
        "# Slots\n\nUse slots.\n\n:::{note}\nIf you use **string** annotations, resolve them.\n:::\n\n"
        "::::{dropdown} More\nHidden *words* here.\n::::\n\n"
        "See [the rich output notebook](https://example.org/IPython Kernel/Rich Output.ipynb) too.\n"))
    assert [s.text for s in transcript.segments] == [
        "Use slots.", "Note: If you use string annotations, resolve them.", "Hidden words here.",
        "See the rich output notebook too."]
    source = (tmp_path / "examples.md.txt").read_text()
    note = transcript.segments[1]
    assert source[int(note.start):int(note.end)].startswith(":::{note}")


POSTED_FAQ = """
Archive-Name: editor-faq/frob
Posting-Frequency: irregular
Maintainer: Ann Author (ann@example.org)

                            THE FROB FAQ

CONTENTS

1. GENERAL INFORMATION
1.1. Introduction
1.2. Latest version

2. BASIC FROB
2.1. What is frob?

2.1.1. Free versions

2.1.1.1. Unix platforms

------------------------------

1. GENERAL INFORMATION

1.1. Introduction

This FAQ answers the questions people ask about frob, one section a topic.

1.2. Latest version

The latest version is posted to the newsgroup every month.

2. BASIC FROB

2.1. What is frob?

Frob rewrites files in place and keeps a backup of each one.

2.1.1. Free versions

2.1.1.1. Unix platforms

Every Unix system ships frob in its base set of tools.

2.2. How can I check that I am using frob, and which version of it
it is?

Run frob --version and read the first line it prints.

2.3. OK, now I know what frob is... what is a backup?!

A copy of a file kept beside it, named after it.
"""


def test_posted_faq_is_titled_by_its_title_and_nested_by_its_numbers(tmp_path):
    """sed's FAQ (a Usenet posting): its header fields were taken for its title's block, so it was
    titled "2.2.1. Free versions"; its contents list gave headings ahead of the text's own; and
    levels went by which numbering came first, so "2.2.1." stood above "1."."""
    transcript = read_written(tmp_path, "frobfaq.txt", POSTED_FAQ)
    assert transcript.title == "THE FROB FAQ"
    assert [(level, title) for _, level, title in sorted(transcript.headings)] == [
        (1, "1. GENERAL INFORMATION"), (2, "1.1. Introduction"), (2, "1.2. Latest version"), (1, "2. BASIC FROB"),
        (2, "2.1. What is frob?"), (3, "2.1.1. Free versions"), (4, "2.1.1.1. Unix platforms"),
        # debian-faq's questions wrap over two lines or run past a title's length (41 of its 149 were lost)
        (2, "2.2. How can I check that I am using frob, and which version of it it is?"),
        (2, "2.3. OK, now I know what frob is... what is a backup?!")]
    assert "Archive-Name" not in transcript.text
    assert "Every Unix system ships frob in its base set of tools." in transcript.text


def test_rst_reference_to_a_page_beside_it_shows_that_sections_title_and_reads_only_what_is_allowed(
        tmp_path, library):
    """Python's tutorial refers across its pages (":ref:`tut-morecontrol`"): the reference showed
    the label's words. The pages beside a page are read for their labels only as an ingest may
    read them: the folder inside the allowed roots, never a private file (the store, tokens)."""
    from tutorialbook.acquire.roots import SourcePolicy

    folder = tmp_path / "tutorial"
    folder.mkdir()
    (folder / "controlflow.rst.txt").write_text(
        ".. _tut-morecontrol:\n\n***********************\nMore Control Flow Tools\n***********************\n\n"
        "Besides the while statement, Python knows the usual control flow statements.\n\n"
        ".. _tut-functions:\n\nDefining Functions\n==================\n\nThe keyword def introduces a function.\n\n"
        ".. _tut-select:\n\n.. rst-class:: core-header, orm-dependency\n   :option: x\n\n"
        "Selecting Rows\n--------------\n\nA directive may stand between a label and its title.\n")
    (folder / "secret.rst").write_text(".. _tut-secret:\n\nThe launch code is 4711\n=======================\n")
    (folder / "intro.rst.txt").write_text(
        "An Informal Introduction\n========================\n\n"
        "Loops come later, see :ref:`tut-morecontrol`; functions in :ref:`tut-functions`; "
        "and :ref:`tut-secret`. Rows: :ref:`tut-select`.\n")
    policy = SourcePolicy((str(folder),), private=(str(folder / "secret.rst"),))
    text = read_source(folder / "intro.rst.txt", policy=policy).segments[0].text
    assert text == ("Loops come later, see More Control Flow Tools; functions in Defining Functions; and tut secret. "
                    "Rows: Selecting Rows.")
    alone = read_source(folder / "intro.rst.txt", policy=SourcePolicy((str(folder / "intro.rst.txt"),)))
    assert "tut morecontrol" in alone.segments[0].text, "a root that is the file itself: nothing beside it is read"
    assert "tut morecontrol" in read_source(folder / "intro.rst.txt").segments[0].text, "no policy, no other file"
    library.ingest(str(folder / "intro.rst.txt"), book="py", refine_rounds=0)  # ingest passes its policy
    steps = " ".join(step for s in library.skills("py") for step in s.steps)
    assert "see More Control Flow Tools" in steps


def test_rst_reference_to_a_page_shows_its_title_from_the_projects_pages_it_may_read(tmp_path):
    """Flask's pages send the reader on by page (":doc:`/templates`", ":doc:`appfactories`"):
    Sphinx shows the page's title, the source showed "/templates". A page is named relative to
    the page's folder, or from "/" the project's source folder (the highest folder above holding
    an index, each between too); its first title shows, its inline markup as text. A page none
    can read shows its name's words; a name leading out of the allowed roots reads nothing."""
    from tutorialbook.acquire.roots import SourcePolicy

    docs = tmp_path / "_sources"
    (docs / "patterns").mkdir(parents=True)
    (tmp_path / "index.rst").write_text("Outside\n=======\n")  # above the roots: not the project's
    (docs / "index.rst.txt").write_text("Welcome\n=======\n\nThe contents.\n")
    (docs / "templates.rst.txt").write_text(":orphan:\n\n.. _templates:\n\n=========\nTemplates\n=========\n\nJinja.\n")
    (docs / "patterns" / "index.rst.txt").write_text("Patterns for Flask\n==================\n")
    (docs / "patterns" / "javascript.rst.txt").write_text("JavaScript, ``fetch``, and JSON\n"
                                                           "===============================\n\nText.\n")
    (tmp_path / "secret.rst").write_text("The launch code is 4711\n=======================\n")
    (docs / "patterns" / "jquery.rst.txt").write_text(
        "AJAX with jQuery\n================\n\nObsolete, see :doc:`/patterns/javascript` instead; "
        "render with :doc:`/templates`, more in :doc:`index`, :doc:`/deploying/proxy-fix`, "
        ":doc:`../../secret` and :doc:`the guide </templates>`.\n")
    text = read_source(docs / "patterns" / "jquery.rst.txt", policy=SourcePolicy((str(docs),))).segments[0].text
    assert text == ("Obsolete, see JavaScript, fetch, and JSON instead; render with Templates, more in Patterns for "
                    "Flask, proxy fix, secret and the guide.")
    alone = read_source(docs / "patterns" / "jquery.rst.txt").segments[0].text
    assert alone.startswith("Obsolete, see javascript instead; render with templates,"), "no policy, no other file"
    from tutorialbook.acquire.formats.rst import sphinx_labels

    named = sphinx_labels(docs / "index.rst.txt", SourcePolicy((str(docs),)), ":doc:`a\x00b`, :doc:`templates`")
    assert {k: v for k, v in named.items() if k.startswith("doc:")} == {"doc:templates": "Templates"}  # no error


def test_rst_reference_by_autosectionlabel_shows_its_sections_title_as_written():
    """cmd2's docs name sections the way Sphinx's autosectionlabel labels them, by page and title
    (":ref:`features/help:Help`"): the reference read "See help:help for more information";
    Sphinx shows the title, as written after the page's name."""
    from tutorialbook.acquire.formats import read_document

    page = read_document(".rst", "Builtin Commands\n================\n\nSee :ref:`features/help:Help` and "
                                 ":ref:`features/shortcuts_aliases_macros:Aliases` for more; or :ref:`tut-intro`.\n",
                         "builtin_commands.rst")
    assert page.segments[0].text == "See Help and Aliases for more; or tut intro."


def test_a_boxes_own_title_heads_its_text_in_rst_and_html():
    """A custom admonition's or topic's title ("Scoping Behavior", "select() from a Table vs. ORM
    class") was a block of its own, a one-step skill, its body in the next skill; now it heads
    its text as "Note" does."""
    from tutorialbook.acquire.formats import read_document

    rst = read_document(".rst", "Guide\n=====\n\n.. topic:: select() from a Table vs. ORM class\n\n   While the "
                                "SQL looks the same, the objects differ.\n\n.. admonition:: Scoping Behavior\n\n"
                                "   Variables set in a block stay in the block.\n\n.. sidebar:: Aside\n\n"
                                "   A remark beside the text.\n", "guide.rst")
    html = read_document(".html", b"""<html><head><title>Guide</title></head><body><h1>Guide</h1>
<div class="admonition-scoping admonition"><p class="admonition-title">Scoping Behavior</p>
<p>Variables set in a block stay in the block.</p></div>
<div class="topic"><p class="topic-title">select() from a Table vs. ORM class</p>
<p>While the SQL looks the same, the objects differ.</p></div></body></html>""", "guide.html")
    assert [s.text for s in rst.segments] == [
        "select() from a Table vs. ORM class: While the SQL looks the same, the objects differ.",
        "Scoping Behavior: Variables set in a block stay in the block.", "Aside: A remark beside the text."]
    assert [s.text for s in html.segments] == [
        "Scoping Behavior: Variables set in a block stay in the block.",
        "select() from a Table vs. ORM class: While the SQL looks the same, the objects differ."]


def test_icon_font_glyphs_are_no_text():
    """Django's console blocks label their tabs with Font Awesome glyphs (private use characters):
    each left a step "/" (34 in its tutorial); glyphs in words go, the words stay."""
    from tutorialbook.acquire.formats import read_document

    page = read_document(".html", """<html><head><title>Run</title></head><body><h1>Run</h1>
<p>Run the server:</p><div class="console-block"><label title="Linux/macOS">&#xf17c;/&#xf179;</label>
<pre>$ python manage.py runserver</pre></div><p>&#xf05a; The server reloads by itself.</p>
<p>+ - * / &lt; &gt;</p></body></html>""".encode(), "run.html")
    assert [(s.kind, s.text) for s in page.segments] == [
        ("paragraph", "Run the server:"), ("code", "$ python manage.py runserver"),
        ("paragraph", "The server reloads by itself."), ("paragraph", "+ - * / < >")]


def test_rst_bold_captions_over_toctrees_are_navigation():
    """Pygments' contents page heads each toctree with a bold line ("**Starting with Pygments**"):
    they made a skill of captions; a bold paragraph over text stays."""
    from tutorialbook.acquire.formats import read_document

    page = read_document(".rst", "Pygments documentation\n======================\n\n**Starting with Pygments**\n\n"
                                 ".. toctree::\n   :maxdepth: 1\n\n   quickstart\n   cmdline\n\n"
                                 "**Builtin components**\n\n.. toctree::\n\n   lexers\n\n**Warning**\n\n"
                                 "Bugs go to the tracker on GitHub, with a small example.\n", "index.rst")
    assert [s.text for s in page.segments] == ["Warning", "Bugs go to the tracker on GitHub, with a small example."]


def test_rst_lists_of_cross_references_alone_are_navigation_as_in_html(tmp_path):
    """Sphinx's quickstart writes "Indices and tables" (``* :ref:`genindex```...) into every
    index.rst; read from the .rst.txt source it made a skill "- genindex - modindex - search",
    where the HTML build's link-only list was already navigation. A list of cross-references and
    nothing else (:ref:, :doc:, links) is a table of contents; a reference inside an item that
    says more stays, and so does a list of API names."""
    from tutorialbook.acquire.formats import read_document

    text = ("behave\n======\n\nBehave runs tests written in a natural language style.\n\n"
            "Guides\n------\n\n* :doc:`tutorial`\n* :doc:`Feature setup <gherkin>`\n"
            "* `behave.example <https://github.com/behave/behave.example>`_\n\n"
            "  * :ref:`api-runner`\n\n"
            "Read the :doc:`tutorial` first, then:\n\n* :doc:`api` for the Python side\n"
            "* :func:`behave.given`\n* :func:`behave.when`\n\nMirrors:\n\n* Plain words\n* https://behave.readthedocs.io\n* :doc:`tutorial`\n\n"
            "Indices and tables\n==================\n\n* :ref:`genindex`\n* :ref:`modindex`\n* :ref:`search`\n")
    page = read_document(".rst", text, "index.rst")
    texts = [s.text for s in page.segments]
    assert texts == ["Behave runs tests written in a natural language style.", "Read the tutorial first, then:",
                     "- api for the Python side\n- behave.given()\n- behave.when()", "Mirrors:",
                     "- Plain words\n- https://behave.readthedocs.io\n- tutorial"]
    html = tmp_path / "index.html"
    html.write_text("<html><head><title>behave</title></head><body><h1>behave</h1><p>Behave runs tests written "
                    "in a natural language style.</p><h2>Indices and tables</h2><ul><li><a href='genindex.html'>"
                    "Index</a></li><li><a href='search.html'>Search Page</a></li></ul></body></html>")
    assert [s.text for s in read_source(html).segments] == ["Behave runs tests written in a natural language style."]


def test_docbook_sidebar_title_heads_its_text_and_the_sites_banner_is_no_text(tmp_path):
    """The Debian Administrator's Handbook (Publican's DocBook HTML): every page opens on a
    ``div#banner`` "Download the ebook" (a skill, and the summary of its chapter), and a sidebar's
    title sits in a ``div.titlepage`` three divs deep: "TIP Incremental updates" stood as a skill
    of its own, apart from the text it titles. The title now heads the sidebar's first block, as a
    Sphinx sidebar's does, and never the block after the sidebar; a section's titlepage is its
    heading still."""
    page = tmp_path / "sect.apt-get.html"
    page.write_text("""<html><head><title>6.2. apt Commands</title></head><body><div id="banner">
<a href="http://debian-handbook.info/get/"><span class="text">Download the ebook</span></a></div>
<div class="section"><div class="titlepage"><div><div><h2 class="title">6.2. apt Commands</h2></div></div></div>
<p>For any work with APT, the list of available packages needs to be updated.</p>
<div class="sidebar"><a id="sidebar.apt-pdiff"></a><div class="titlepage"><div><div><p class="title"><strong>
<span class="emphasis"><em>TIP</em></span> Incremental updates</strong></p></div></div></div>
<div class="para">APT can download diff files holding the changes since the previous update.</div></div>
<div class="sidebar"><div class="titlepage"><div><div><p class="title">TIP A listing</p></div></div></div>
<pre class="screen">$ apt update</pre></div>
<div class="para">The Acquire options control other aspects of the download.</div></div></body></html>""")
    transcript = read_source(page)
    assert [(s.kind, s.text) for s in transcript.segments] == [
        ("paragraph", "For any work with APT, the list of available packages needs to be updated."),
        ("paragraph", "TIP Incremental updates: APT can download diff files holding the changes since the previous update."),
        ("term", "TIP A listing:"), ("code", "$ apt update"),
        ("paragraph", "The Acquire options control other aspects of the download.")]
    assert transcript.title == "6.2. apt Commands"


def test_html_boxes_footnotes_acronyms_superscripts_and_indented_listings_are_read(tmp_path):
    """Sweep C: DocBook's sidebars ("TIP") and docutils' footnotes (<aside class="footnote">) were
    dropped as page furniture, a section id="Author" too; <acronym> stood as a block of its own
    and cut its sentence; 2<sup>51</sup> read 251; a listing indented as a whole kept its indent
    on every line but the first. A page's own sidebar of links still goes."""
    page = tmp_path / "apt.html"
    page.write_text("""<html><head><title>APT</title></head><body>
<aside class="sidebar"><ul><li><a href="a.html">Home</a></li><li><a href="b.html">Docs</a></li></ul></aside>
<div class="body"><ul class="docnav"><li>Download the ebook</li><li><a href="p.html">Prev</a></li></ul><h1>APT</h1>
<p><acronym>APT</acronym> is the abbreviation for Advanced Packaging Tool, numbers up to 2<sup>51</sup>.</p>
<div class="sidebar"><div class="titlepage"><p class="title"><strong>TIP Incremental updates</strong></p></div>
<p>The pdiffs let apt download only the changes to the package lists.</p></div>
<div class="section" id="Author"><h2>2.1 Author</h2><p>Zsh was written by Paul Falstad in 1990.</p></div>
<pre>
     do
       local var = 1
     end</pre>
<p>See the note.<a class="footnote-reference brackets" href="#f1">1</a></p>
<aside class="footnote brackets" id="f1"><span class="label">1</span><p>Call by object reference would be a better name.</p></aside>
</div></body></html>""")
    transcript = read_source(page)
    texts = [s.text for s in transcript.segments]
    assert texts[0] == "APT is the abbreviation for Advanced Packaging Tool, numbers up to 2^51."
    assert "TIP Incremental updates: The pdiffs let apt download only the changes to the package lists." in texts
    assert "Zsh was written by Paul Falstad in 1990." in texts and (2, "2.1 Author") in [
        (level, title) for _, level, title in transcript.headings]
    assert "do\n  local var = 1\nend" in texts
    assert any("Call by object reference would be a better name." in t for t in texts)
    assert not any("Home" in t or "Docs" in t or "ebook" in t for t in texts)  # a "docnav" bar is furniture


def test_sentences_do_not_end_at_an_initial():
    from tutorialbook.skills.extract import split_sentences

    assert split_sentences("This was written by Andrew G. Morgan and others. Then it grew. Use e.g. Vim.") == [
        "This was written by Andrew G. Morgan and others.", "Then it grew.", "Use e.g. Vim."]


def test_rst_term_with_markup_heads_its_definition_and_sectnum_adds_no_numbers():
    """docutils' primer: a definition list holding a literal block split its term
    ("**enumerated** lists (…; quickref__)") into a step per inline node; its FAQ's
    ``.. sectnum::`` put generated numbers into every title ("1.2.23 What's …")."""
    from tutorialbook.acquire.formats import read_document

    primer = read_document(".rst", "Lists\n=====\n\n**enumerated** lists (numbers or letters; quickref__)\n"
                                   "   Start a line with a number followed by a period::\n\n      1. numbers\n\n"
                                   "__ quickref.html#enumerated-lists\n", "primer.rst")
    assert [(s.kind, s.text) for s in primer.segments] == [
        ("paragraph", "enumerated lists (numbers or letters; quickref): Start a line with a number followed by a "
                      "period:"), ("code", "1. numbers")]
    faq = read_document(".rst", "=====\nFAQ\n=====\n\n.. sectnum::\n\nDocutils\n========\n\nWhat is it?\n"
                                "-----------\n\nA toolkit.\n", "faq.rst")
    assert [title for _, _, title in faq.headings] == ["FAQ", "Docutils", "What is it?"]


def test_a_txt_file_that_is_restructuredtext_is_read_as_such(tmp_path):
    """docutils ships its documentation as .txt reStructuredText: read as plain text it kept its
    markup (``**paragraph**``, ``quickref__``, ``Note::``) and its title was ".. include:: …"."""
    primer = tmp_path / "quickstart.txt"
    primer.write_text(".. include:: ../../header2.txt\n\n=====================\nA ReStructuredText Primer\n"
                      "=====================\n\nStructure\n---------\n\nA **paragraph** is text separated by "
                      "blank lines (see quickref__).\nWrite code like this::\n\n    print('hi')\n\n"
                      "__ quickref.html#paragraphs\n\n.. note:: Use ``::`` to start a literal block.\n")
    transcript = read_source(primer)
    assert transcript.title == "A ReStructuredText Primer"
    assert [title for _, _, title in transcript.headings][-1] == "Structure"
    assert [(s.kind, s.text) for s in transcript.segments] == [
        ("paragraph", "A paragraph is text separated by blank lines (see quickref). Write code like this:"),
        ("code", "print('hi')"), ("paragraph", "Note: Use :: to start a literal block.")]
    faq = tmp_path / "faq.txt"
    faq.write_text("FREQUENTLY ASKED QUESTIONS\n\n1. How do I start it?\n\n   Type `frob` and press return:\n\n"
                   "       frob --start\n\n2. Where is the config?\n\n   In ~/.frobrc, see the manual.\n")
    assert any("`frob`" in s.text for s in read_source(faq).segments), "plain text, read as such"


def test_notebook_output_keeps_its_table_and_drops_warnings_and_bare_reprs(tmp_path):
    """pandas' style guide: 61 steps were "<pandas.io.formats.style.Styler at 0x7fc1…>", a
    FutureWarning on stderr named a skill, and a printed table lost its header's indent."""
    import json

    from tutorialbook.skills import passages

    table = "               Tokyo   Beijing\n2021-01-01  3.043936  1.223434\n2021-01-02  2.105040  0.411292"
    cells = [{"cell_type": "markdown", "source": "# Weather\n\nMake a frame of the weather:"},
             {"cell_type": "code", "source": "weather_df = make_frame()\nweather_df", "outputs": [
                 {"output_type": "stream", "name": "stderr", "text": "/tmp/x.py:3: FutureWarning: deprecated\n"},
                 {"output_type": "execute_result", "data": {"text/plain": table}}]},
             {"cell_type": "code", "source": "weather_df.style", "outputs": [
                 {"output_type": "execute_result", "data": {
                     "text/plain": "<pandas.io.formats.style.Styler at 0x7fc187f4fc10>", "text/html": "<table/>"}}]}]
    path = tmp_path / "style.ipynb"
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}))
    transcript = read_source(path)
    assert [(s.kind, s.text) for s in transcript.segments] == [
        ("paragraph", "Make a frame of the weather:"), ("code", "weather_df = make_frame()\nweather_df"),
        ("code", table), ("code", "weather_df.style")]
    found = passages.group(transcript.segments, list(range(len(transcript.segments))))
    assert table in found[0].text and passages.draft(found[0], "").steps[2] == table


def test_a_page_that_only_forwards_the_browser_has_nothing_to_learn(tmp_path):
    """texi2any writes a stub for every node of a split manual, forwarding to the chapter that holds
    it: each became an empty chapter ("Aliasing (zsh)"). A folder skips it; a page with a refresh
    and text of its own is read."""
    from tutorialbook.errors import NothingToLearn

    stub = tmp_path / "Aliasing.html"
    stub.write_text('<html><head><title>Aliasing (zsh)</title><meta http-equiv="Refresh" '
                    'content="0; url=Shell-Grammar.html#Aliasing"></head><body>'
                    '<p>The node you are looking for is at <a href="Shell-Grammar.html#Aliasing">Aliasing</a>.</p>'
                    '</body></html>')
    with pytest.raises(NothingToLearn, match="only sends the reader on to Shell-Grammar.html#Aliasing"):
        read_source(stub)
    words = " ".join(["Aliases are expanded when a command is read, not when it is run."] * 5)
    page = tmp_path / "Live.html"
    page.write_text(f'<html><head><title>Live</title><meta http-equiv="refresh" content="300"></head>'
                    f'<body><h1>Live</h1><p>{words}</p></body></html>')
    assert read_source(page).segments[0].text == words


def test_rst_bibliography_under_the_title_is_no_text():
    """docutils' FAQ opens on "Date: $Date: …$", "Revision: $Revision: 9051 $", "Web site: …": a
    skill of version-control keywords. A field list elsewhere is text."""
    from tutorialbook.acquire.formats import read_document

    faq = read_document(".rst", "============\nDocutils FAQ\n============\n\n:Date: $Date: 2022-06-17 $\n"
                                ":Revision: $Revision: 9051 $\n:Web site: https://docutils.sourceforge.io/\n\n"
                                "Docutils\n========\n\n:param x: the input.\n\nDocutils processes plain text.\n",
                        "faq.rst")
    assert [s.text for s in faq.segments] == ["param x: the input.", "Docutils processes plain text."]


def test_a_title_left_bracketed_by_a_converter_is_read_without_brackets():
    """yt-dlp's README as plain text opens on its logo's alt text, "[YT-DLP]"."""
    from tutorialbook.acquire.sources import parse_plain

    transcript = parse_plain("[YT-DLP]\n\nA feature-rich command-line audio and video downloader for many sites.\n")
    assert transcript.title == "YT-DLP"


def test_rst_inline_literals_inside_emphasis_lose_their_backticks():
    """pyparsing's HowTo (sweep N): docutils nests no markup, so "*So ``parseString()`` is being
    renamed*" kept its double backticks in the text."""
    from tutorialbook.acquire.formats import read_document

    page = read_document(".rst", "T\n=\n\n*So ``parseString()`` is being renamed to ``parse_string()``.* "
                                 "Use ``parse_string()`` now.\n", "howto.rst")
    assert [s.text for s in page.segments] == [
        "So parseString() is being renamed to parse_string(). Use parse_string() now."]


def test_rst_directive_options_are_read_not_taken_for_its_argument():
    """docutils reads a directive's options only when its spec is not empty: Sphinx's, accepted
    as any, were taken for the argument ("current; :property:" named Jinja's method) or the
    code's lines."""
    from tutorialbook.acquire.formats import read_document

    page = read_document(".rst", (
        "T\n=\n\nAdd the functions that run these commands to the ``db.py`` file:\n\n"
        ".. code-block:: python\n    :caption: ``flaskr/db.py``\n    :emphasize-lines: 2\n\n"
        "    def init_db():\n        db = get_db()\n\n"
        ".. method:: current\n   :property:\n\n   Return the current item.\n"), "db.rst")
    assert [(s.kind, s.text) for s in page.segments] == [
        ("paragraph", "Add the functions that run these commands to the db.py file:"),
        ("code", "def init_db():\n    db = get_db()"), ("paragraph", "current: Return the current item.")]
    assert [title for _, _, title in page.headings] == ["T", "current"]


def test_rst_footnote_mark_heads_its_text():
    """A footnote's label was a paragraph "1" of its own, a step (docutils' primer and FAQ); one
    the text refers to is read there (test_footnotes_are_read_where_the_text_refers_to_them)."""
    from tutorialbook.acquire.formats import read_document

    page = read_document(".rst", "Functions\n=========\n\nPassed by value always.\n\n"
                                 ".. [1] Actually, *call by object reference* would be a better description.\n",
                         "controlflow.rst")
    assert [s.text for s in page.segments] == [
        "Passed by value always.", "[1]: Actually, call by object reference would be a better description."]


def test_plain_text_sentence_cased_lines_and_named_option_lists_head_sections(tmp_path):
    """pandoc's plain text writes headings below the first level as lines alone in sentence case
    ("Forking the project"), and a README titles its option lists "General Options:" over the
    options, indented. A line opening a sentence ("The default values are"), a term over its
    indented meaning, and a line with a figure or symbol stay text."""
    transcript = read_written(tmp_path, "README.txt", (
        "FROB\n\nINSTALLATION\n\nFrob installs with pip on any system that has Python.\nIt needs no compiler.\n\n"
        "Forking the project\n\nIf you fork the project, you can run your fork's build workflow.\n"
        "It builds every variant.\n\n"
        "The default values are\n\nWidth and height of the page, in points, as the\nprinter reports them.\n\n"
        "Backing store\n    When a window is obscured, the server may keep\n    its contents.\n\n"
        "Ctrl+F is your friend :D\n\nSearch this file for the option you need.\nEvery option is listed below.\n\n"
        "USAGE AND OPTIONS\n\n    frob [OPTIONS] FILE\n\nGeneral Options:\n\n"
        "    -h, --help        Print this help text and exit\n    --version         Print the version and exit\n"))
    assert [(level, title) for _, level, title in transcript.headings] == [
        (1, "INSTALLATION"), (2, "Forking the project"), (1, "USAGE AND OPTIONS"), (2, "General Options")]
    texts = [s.text for s in transcript.segments]
    assert "The default values are" in texts and "Ctrl+F is your friend :D" in texts


def test_html_gtk_doc_listing_line_numbers_are_no_part_of_its_code(tmp_path):
    """gtk-doc sets a listing's line numbers in a cell beside it (td.listing_lines): 15 of 17
    listings of GLib's GObject tutorial had a code block "1 2 3 …" of their own (sweep L); a data
    table whose first column counts keeps it."""
    page = tmp_path / "gobject.html"
    page.write_text("""<html><head><title>G</title></head><body><h1>GObject</h1><p>Define the type:</p>
<div class="informalexample"><table class="listing_frame"><tbody><tr><td class="listing_lines" align="right"><pre>1
2
3</pre></td><td class="listing_code"><pre class="programlisting">G_DEFINE_TYPE (ViewerFile, viewer_file, G_TYPE_OBJECT)
static void
viewer_file_init (ViewerFile *self) {}</pre></td></tr></tbody></table></div>
<table><tr><td>1</td><td>one</td></tr><tr><td>2</td><td>two</td></tr></table></body></html>""")
    assert [(s.kind, s.text) for s in read_source(page).segments] == [
        ("paragraph", "Define the type:"),
        ("code", "G_DEFINE_TYPE (ViewerFile, viewer_file, G_TYPE_OBJECT)\nstatic void\n"
                 "viewer_file_init (ViewerFile *self) {}"),
        ("table", "1 | one\n2 | two")]


def test_html_callouts_formulas_icon_glyphs_and_a_books_index_read_as_a_reader_sees_them(tmp_path):
    """Sweep L: libxml2's tutorial (DocBook) read its callout lists as tables ("| Declare the
    pointer…", the first row heading every piece) and its back-of-book index as skills; Doxygen's
    formula images read "{\\LaTeX}"; MkDocs' permalink glyph (U+F0C1) ended every section title."""
    page = tmp_path / "parsing.html"
    page.write_text("""<html><head><title>T</title></head><body><h1>Parsing<a class="headerlink" href="#p">&#xf0c1;</a></h1>
<p>Output as HTML, <img class="formulaInl" alt="{\\LaTeX}" src="form_0.png"> or XML.</p>
<pre class="programlisting">xmlDocPtr doc; <img src="images/callouts/1.png" alt="1"></pre>
<div class="calloutlist"><table border="0" summary="Callout list"><tr><td width="5%"><a href="#d"><img
 src="images/callouts/1.png" alt="1" border="0"></a> </td><td><p>Declare the pointer to the parsed document.</p></td></tr>
<tr><td width="5%"><a href="#n"><img src="images/callouts/2.png" alt="2" border="0"></a> </td><td><p>Declare a node
 pointer.</p></td></tr></table></div>
<div class="index"><div class="titlepage"><h2 class="title">Index</h2></div><div class="index"><div class="indexdiv">
<h3>A</h3><dl><dt>attribute</dt><dd><dl><dt>retrieving value, <a href="ar01s08.html">Retrieving Attributes</a></dt>
</dl></dd></dl></div></div></div></body></html>""")
    transcript = read_source(page)
    assert [title for _, _, title in transcript.headings] == ["Parsing"]
    assert [(s.kind, s.text) for s in transcript.segments] == [
        ("paragraph", "Output as HTML, LaTeX or XML."), ("code", "xmlDocPtr doc;"),
        ("list", "1. Declare the pointer to the parsed document.\n2. Declare a node pointer.")]


def test_html_listing_line_numbers_are_no_part_of_its_code(tmp_path):
    """Sphinx's ``:linenos:`` puts Pygments' line numbers beside the code, inline (``span.linenos``)
    or in a table column (``td.linenos``): BIND's zone file read "2$TTL 2d" and "24ns1  IN  A"."""
    page = ('<html><head><title>Zones</title></head><body><h1>Zones</h1><p>A zone file:</p>'
            '<div class="highlight"><pre><span></span><span class="linenos"> 1</span>$ORIGIN example.com.\n'
            '<span class="linenos"> 2</span>$TTL 2d    ; default TTL for zone\n</pre></div>'
            '<p>And in a table:</p><table class="highlighttable"><tr><td class="linenos"><div class="linenodiv">'
            '<pre>1\n2</pre></div></td><td class="code"><div class="highlight"><pre>ns1  IN  A  192.168.254.2\n'
            'www  IN  A  192.168.254.3\n</pre></div></td></tr></table></body></html>')
    transcript = read_written(tmp_path, "zones.html", page)
    codes = [s.text for s in transcript.segments if s.kind == "code"]
    assert codes == ["$ORIGIN example.com.\n$TTL 2d    ; default TTL for zone",
                     "ns1  IN  A  192.168.254.2\nwww  IN  A  192.168.254.3"]


def test_an_nbformat_2_notebook_keeps_its_lines_and_its_headings(tmp_path):
    """nbformat 2 stored a cell's lines without their newlines: every line ran into the next
    ("p.legend = Truep.show()", a title made of a whole paragraph). They are lines again, as
    nbformat joins them, and "##General examples" is the heading that notebook showed."""
    notebook = {"nbformat": 2, "metadata": {"name": "plot_intro"}, "worksheets": [{"cells": [
        {"cell_type": "markdown", "source": ["#New Plotting Framework"]},
        {"cell_type": "markdown", "source": ["", "## Structure of the Module", "", "This module plots."]},
        {"cell_type": "markdown", "source": ["##General examples"]},
        {"cell_type": "code", "input": ["p = plot(x)", "p.legend = True", "", "p.show()"], "outputs": []}]}]}
    transcript = read_written(tmp_path, "plot_intro.ipynb", json.dumps(notebook))
    assert [title for _, _, title in transcript.headings] == [
        "New Plotting Framework", "Structure of the Module", "General examples"]
    texts = [s.text for s in transcript.segments]
    assert "This module plots." in texts and "p = plot(x)\np.legend = True\n\np.show()" in texts


def test_html_heading_atop_a_note_or_example_box_labels_the_box_and_opens_no_section(tmp_path):
    """Apache's manual titles its boxes with a heading (``<div class="warning"><h3>Deprecation
    Notice</h3>``, ``<div class="example"><h3>Examples of IP address formats</h3>``): each had
    become a section that took in the rest of its own section after the box."""
    page = ("<html><head><title>HTTP/2 guide</title></head><body><h1>HTTP/2 guide</h1>"
            "<h2>Server Push</h2><div class='warning'><h3>Deprecation Notice</h3><p>Server Push is deprecated.</p>"
            "</div><p>The HTTP/2 protocol allows the server to push responses.</p>"
            "<div class='example'><h3>Examples of formats</h3><p>Require ip 10.1.2.3</p></div>"
            "<p>Push is set per location.</p><h2>Early Hints</h2><p>Send a 103 response first.</p></body></html>")
    transcript = read_written(tmp_path, "http2.html", page)
    assert [title for _, _, title in transcript.headings] == ["HTTP/2 guide", "Server Push", "Early Hints"]
    texts = [s.text for s in transcript.segments]
    assert "Deprecation Notice: Server Push is deprecated." in texts
    assert "Examples of formats: Require ip 10.1.2.3" in texts


def test_markdown_saved_as_text_is_read_as_markdown_and_plain_text_is_not(tmp_path):
    """Debian's autopkgtest.txt is Markdown (setext titles, `code` spans, **strong** list terms): read
    as plain text, its list items became sections ("- **allow-stderr**") and its markup stayed in
    the skills. A plain text with a heading underlined in tildes and a word in stars is no Markdown."""
    from tutorialbook.acquire.formats.markdown import looks_like_markdown

    markdown = ("Autotests\n=========\n\nThe package provides a file `debian/tests/control` with stanzas.\n\n"
                "Control fields\n--------------\n\n- **Tests:** *name-of-test*\n\n  This field names the tests, "
                "run from `debian/tests`.\n\n- **Restrictions:** *restriction-list*\n\n"
                "  Declares the restrictions, as `needs-root`.\n")
    transcript = read_written(tmp_path, "autopkgtest.txt", markdown)
    assert [title for _, _, title in transcript.headings] == ["Autotests", "Control fields"]
    texts = [s.text for s in transcript.segments]
    assert "The package provides a file debian/tests/control with stanzas." in texts
    assert not any("**" in t or "`" in t for t in texts)
    plain = ("5.6.12.1. Epochs should be used sparingly\n~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n\n"
             "Note that the purpose of epochs is to cope with mistakes, as the\n~~~ marks show.\n\n"
             "There **will** be a loop, and it **will** not be resolved.\n")
    assert looks_like_markdown(markdown) and not looks_like_markdown(plain)


def test_plain_text_from_docbook_keeps_chapters_over_their_sections_and_terms_off_the_toc(tmp_path):
    """mutt's manual as text: "Chapter 3. Configuration" over its own contents list, then sections
    numbered from 1 again; a definition list's terms alone over their meanings, indented. The
    chapters had been at the sections' level, dropped as empty; the terms ("Wiki") made chapters
    that held the rest of the manual; "List of Examples" was a section."""
    text = ("The Mail Client\n\nList of Examples\n\n1.1. Multiple configuration commands per line\n"
            "1.2. Commenting configuration files\n\nChapter 1. Introduction\n\nTable of Contents\n\n"
            "1. Home Page\n2. Online Resources\n\n1. Home Page\n\nThe home page has the latest news.\n"
            "It is updated often.\n\n2. Online Resources\n\nWiki\n\n    An (unofficial) wiki can be found at "
            "https://gitlab.com/mutt/\n    wikis/home.\n\nUSENET\n\n    For USENET, see the newsgroup comp.mail.\n\n"
            "Chapter 2. Configuration\n\nTable of Contents\n\n1. Location of Files\n\n1. Location of Files\n\n"
            "The system wide configuration file is read first.\nThen your own file is read.\n\n"
            "USAGE AND OPTIONS\n\n    mail [OPTIONS] FILE\n\nRun it on a folder of mail.\n")
    transcript = read_written(tmp_path, "manual.txt", text)
    assert [(level, title) for _, level, title in transcript.headings] == [
        (1, "Chapter 1. Introduction"), (2, "1. Home Page"), (2, "2. Online Resources"),
        (1, "Chapter 2. Configuration"), (2, "1. Location of Files"), (3, "USAGE AND OPTIONS")]
    texts = [s.text for s in transcript.segments]
    assert "Wiki: An (unofficial) wiki can be found at https://gitlab.com/mutt/ wikis/home." in texts
    assert "USENET: For USENET, see the newsgroup comp.mail." in texts
    assert not any("Multiple configuration commands" in t for t in texts)


def test_plain_text_code_lines_a_sentence_introduces_keep_their_lines(tmp_path):
    """DocBook's text output sets short examples at the margin under "Reasonable values are:"; the
    lines were joined as prose ("set mail_check=90 set timeout=15"). A list of items under a
    colon stays a list."""
    text = ("Tuning\n\nPolling for new mail can cause delays. So tune the variables. Reasonable\nvalues are:\n\n"
            "set mail_check=90\nset timeout=15\n\nwith relatively good results even over slow modem lines.\n\n"
            "It runs on these systems:\n\n- X86/Linux\n- AMD64/Linux\n")
    transcript = read_written(tmp_path, "tuning.txt", text)
    kinds = [(s.kind, s.text) for s in transcript.segments]
    assert ("code", "set mail_check=90\nset timeout=15") in kinds
    assert ("list", "- X86/Linux\n- AMD64/Linux") in kinds


def test_a_txt_in_restructuredtext_with_an_overlined_title_and_fields_is_read_so_without_them(tmp_path):
    """lighttpd's documentation (.txt) opens with an over- and underlined title, docinfo fields
    and a ``.. meta::``: read as plain text it kept "plain `````" titles, "::" and raw directives;
    read as reStructuredText, its fields ("Author: Jan Kneschke Date") had become a skill."""
    text = ("====================\nUsing Authentication\n====================\n\n:Author: Jan Kneschke\n"
            ":Date: $Date$\n:Revision: $Revision$\n\n.. meta::\n  :keywords: lighttpd, authentication\n\n"
            "Description\n===========\n\nlighttpd supports two methods::\n\n  auth.backend = \"plain\"\n\n"
            "basic\n`````\n\nThe Basic method sends the password in cleartext.\n")
    transcript = read_written(tmp_path, "authentication.txt", text)
    assert [title for _, _, title in transcript.headings] == ["Using Authentication", "Description", "basic"]
    texts = [s.text for s in transcript.segments]
    assert texts == ["lighttpd supports two methods:", 'auth.backend = "plain"',
                     "The Basic method sends the password in cleartext."]


def test_html_reference_entries_are_sections_named_by_what_they_describe(tmp_path):
    """An API page's entries (Sphinx's ``dl.py.function``, texinfo's ``dl.def``) ran together: an
    entry's closing "See also" opened the next entry's skill, named "See also: sprintf". Each is
    a section titled by its object's name (a method by its class's), its signatures heading its
    description, a class's methods below it; the section's own text after its entries (here a
    glossary, which stays a list) goes under the section's title again."""
    page = (
        "<html><head><title>json</title></head><body><h1>json — JSON encoder</h1><h2>Basic Usage</h2>"
        '<dl class="py function"><dt class="sig sig-object py" id="json.dumps"><span class="sig-prename '
        'descclassname">json.</span><span class="sig-name descname">dumps</span>(<em>obj</em>, '
        "<em>indent=None</em>)</dt><dd><p>Serialize obj to a JSON formatted str.</p>"
        "<p>See also: json.loads.</p></dd></dl>"
        '<dl class="py class"><dt class="sig sig-object py"><em>class </em><span class="sig-prename descclassname">'
        'json.</span><span class="sig-name descname">JSONEncoder</span>(<em>skipkeys=False</em>)</dt>'
        "<dd><p>Extensible JSON encoder.</p>"
        '<dl class="py method"><dt class="sig sig-object py"><span class="sig-name descname">encode</span>'
        "(<em>o</em>)</dt><dd><p>Return a JSON string of o.</p></dd></dl></dd></dl>"
        '<dl class="def"><dt><span class="category">: </span><span><em>s =</em> <strong>mat2str</strong> '
        "<em>(x, n)</em></span></dt><dd><p>Format real matrices as strings.</p></dd></dl>"
        '<dl class="simple glossary"><dt>owner name</dt><dd><p>The domain name.</p></dd></dl></body></html>')
    transcript = read_written(tmp_path, "json.html", page)
    assert [(level, title) for _, level, title in transcript.headings] == [
        (1, "json — JSON encoder"), (2, "Basic Usage"), (3, "json.dumps"), (3, "json.JSONEncoder"),
        (4, "JSONEncoder.encode"), (3, "mat2str"), (2, "Basic Usage")]
    texts = [(s.kind, s.text) for s in transcript.segments]
    assert texts[:2] == [("paragraph", "json.dumps(obj, indent=None): Serialize obj to a JSON formatted str."),
                         ("paragraph", "See also: json.loads.")]
    assert ("paragraph", "encode(o): Return a JSON string of o.") in texts
    assert ("paragraph", "s = mat2str (x, n): Format real matrices as strings.") in texts
    assert texts[-1] == ("list", "owner name\n  The domain name.")


def test_rst_docutils_class_directive_over_content_and_a_contents_directive_read(tmp_path, monkeypatch):
    """docutils-doc's mathematics.txt and slide-shows.txt set ``.. class:: colwidths-auto`` (or
    ``incremental``) over a table or list, with a ``.. contents::`` above: the class was read as
    Sphinx's Python class, a section without an id, and docutils' contents transform raised a bare
    IndexError out of ingest. A style name's class reads its content as it is; a Python class is
    still a section; and a failure inside docutils is a clear error naming the file."""
    import docutils.transforms.parts as parts

    transcript = read_written(tmp_path, "slides.rst", (
        "Slides\n======\n\n.. contents::\n\nFeatures\n--------\n\n.. class:: colwidths-auto\n\n"
        "   * Slides are sections.\n   * Handouts are the rest.\n\n.. class:: handout tiny\n\n"
        "   Print the handout.\n\nAPI\n---\n\n.. class:: Frob(size)\n\n   A frob of the given size.\n\n"
        ".. class:: object\n\n   Return a new featureless object.\n"))
    assert [title for _, _, title in transcript.headings] == ["Slides", "Features", "API", "Frob", "object"]
    assert [s.text for s in transcript.segments] == [
        "- Slides are sections.\n- Handouts are the rest.", "Print the handout.",
        "Frob(size): A frob of the given size.", "object: Return a new featureless object."]

    def broken(self, node, level=0):
        raise IndexError("list index out of range")

    monkeypatch.setattr(parts.Contents, "build_contents", broken)
    with pytest.raises(TutorialbookError, match="slides2.rst could not be read as reStructuredText"):
        read_written(tmp_path, "slides2.rst", "Slides\n======\n\n.. contents::\n\nA\n-\n\nText.\n")


def test_rst_object_descriptions_are_sections_named_by_the_object(tmp_path):
    """Sphinx's ``.. function::``, ``.. class::``, ``.. method::`` in a page's source: the function
    read as one more paragraph, and the class's signature vanished (docutils' own ``class``
    directive took it). Each is a section titled by its object's name (a method by its class's),
    its signature heading its text, as the HTML reader reads Sphinx's output; the section's own
    text after them goes under its title again; docutils' ``.. class:: special`` styles nothing."""
    source = (".. module:: json\n\nBasic Usage\n-----------\n\n.. function:: dumps(obj, *, indent=None)\n\n"
              "   Serialize *obj* to a JSON formatted :class:`str`.\n\n.. class:: JSONEncoder(*, skipkeys=False)\n\n"
              "   Extensible JSON encoder.\n\n   .. method:: encode(o)\n\n      Return a JSON string of *o*.\n\n"
              ".. c:function:: int PyObject_Print(PyObject *o, FILE *fp)\n\n   Print an object.\n\n"
              ".. class:: special\n\nThe module's own closing words.\n")
    transcript = read_written(tmp_path, "json.rst", source)
    assert [(level, title) for _, level, title in transcript.headings] == [
        (1, "Basic Usage"), (2, "dumps"), (2, "JSONEncoder"), (3, "JSONEncoder.encode"), (2, "PyObject_Print"),
        (1, "Basic Usage")]
    assert [s.text for s in transcript.segments] == [
        "dumps(obj, *, indent=None): Serialize obj to a JSON formatted str.",
        "JSONEncoder(*, skipkeys=False): Extensible JSON encoder.", "encode(o): Return a JSON string of o.",
        "int PyObject_Print(PyObject *o, FILE *fp): Print an object.", "The module's own closing words."]


def test_pdf_subsections_set_a_little_larger_in_bold_are_headings(tmp_path):
    """LaTeX sets a subsection 12 points bold over 11-point text (dot's user guide): only sections,
    at 14 points, were headings; "3.2 Clusters" stood as a skill of its own. A line as large in
    a regular face (a title page's author) is no heading."""
    body = ["A cluster is a subgraph placed in its own distinct", "rectangle of the layout, drawn with",
            "a border around the nodes it holds."]
    page = [(20, 20, "Helvetica:B", 14, "3 Advanced Features"), (20, 30, "Helvetica", 12, "Emden Gansner and others")]
    page += [(20, 40 + 5 * i, "Helvetica", 11, text) for i, text in enumerate(body)]
    page += [(20, 65, "Helvetica:B", 12, "3.1 Node Ports")]
    page += [(20, 75 + 5 * i, "Helvetica", 11, text) for i, text in enumerate(body)]
    page += [(20, 100, "Helvetica:B", 12, "3.2 Clusters")]
    page += [(20, 110 + 5 * i, "Helvetica", 11, text) for i, text in enumerate(body)]
    transcript = read_source(_laid_out_pdf(tmp_path / "dotguide.pdf", [page]))
    assert [(level, title) for _, level, title in transcript.headings] == [
        (1, "3 Advanced Features"), (2, "3.1 Node Ports"), (2, "3.2 Clusters")]
    assert "Emden Gansner and others" in [s.text for s in transcript.segments]


def test_pdf_printed_contents_whose_entries_run_together_are_no_text(tmp_path):
    """dblatex's contents pages: entries run into each other with their leader dots (". 2.1 People
    around Debian . . 2.2 How to contribute . . . ."), so the longest were taken for prose and
    made 37 skills of the guide's front matter. Its entries end where a sentence starts."""
    front = [(20, 20, "Helvetica", 20, "Guide for Maintainers"), (20, 40, "Helvetica", 14, "Contents"),
             (20, 50, "Helvetica", 10, "1 Overview . . . . . . . . . . . . 1"),
             (20, 56, "Helvetica", 10, ". 2.1 People around Debian . . 2.2 How to contribute . . . . 2.3 Social dynamics"),
             (20, 62, "Helvetica", 10, "Patch by diff -u . . Patch by dquilt Patch by dpkg-source --commit"),
             (20, 68, "Helvetica", 10, "4.9.1 4.9.2 4.9.3"),
             (20, 80, "Helvetica", 10, "This guide describes the building of the Debian package for ordinary")]
    chapter = [(20, 20, "Helvetica", 16, "1 Overview"),
               (20, 30, "Helvetica", 10, "The Debian packaging of a tarball starts with the debmake command.")]
    transcript = read_source(_laid_out_pdf(tmp_path / "guide.pdf", [front, chapter]))
    texts = [s.text for s in transcript.segments]
    assert texts[0].startswith("This guide describes the building") and not any(". ." in t for t in texts)


def test_pdf_contents_entry_whose_number_runs_into_its_title_and_a_short_abstract_after(tmp_path):
    """The Debian FAQ's contents (dblatex): "11.10How can I have my locally-built package included
    in the list of available packages that 11.11Some users like mawk, …" ran past the entry's word
    limit and ended the contents there, its eleven later entries (chapters "12 Getting support for
    Debian GNU/Linux", "Index") kept as text; a number run into its title is an entry. A short
    sentence after the contents ("This document answers questions …", its abstract) is prose."""
    front = [(20, 20, "Helvetica", 20, "The Frob FAQ"), (20, 40, "Helvetica", 14, "Contents"),
             (20, 50, "Helvetica", 10, "11.10How can I have my locally-built package included in the list of packages"),
             (20, 55, "Helvetica", 10, "that 11.11Some users like mawk, others like gawk; some like vim, others like elvis"),
             (20, 62, "Helvetica", 10, "12 Getting support for Frob"), (20, 68, "Helvetica", 10, "Index"),
             (20, 80, "Helvetica", 10, "Abstract"),
             (20, 90, "Helvetica", 10, "This document answers questions frequently asked about Frob.")]
    chapter = [(20, 20, "Helvetica", 16, "1 Overview"),
               (20, 30, "Helvetica", 10, "Frob rewrites the files of a folder in place.")]
    transcript = read_source(_laid_out_pdf(tmp_path / "faq.pdf", [front, chapter], bookmarks={1: "1 Overview"}))
    assert [s.text for s in transcript.segments] == [
        "The Frob FAQ", "This document answers questions frequently asked about Frob.",
        "Frob rewrites the files of a folder in place."]


def test_html_generated_pages_and_page_controls_are_no_text(tmp_path):
    """Sphinx writes genindex.html, search.html and py-modindex.html into every build, and a theme a
    404.html: a folder made chapters of them ("Search" › "Searching for multiple words only shows
    matches"). Sphinx's "[source]" beside a signature, DocBook's "[D]" beside an image, and
    Asciidoctor's zero-width space after an ellipsis are no text either."""
    from tutorialbook.errors import NothingToLearn

    search = ("<html><head><title>Search</title></head><body><h1>Search</h1><p>Searching for multiple words only "
              "shows matches that contain all words.</p><form><input name='q'></form></body></html>")
    for name in ("search.html", "genindex.html", "py-modindex.html", "404.html"):
        with pytest.raises(NothingToLearn):
            read_written(tmp_path, name, search)
    assert read_written(tmp_path, "searching.html", search).segments  # a page of that name only
    page = ("<html><head><title>Locks</title></head><body><h1>Locks</h1>"
            '<dl class="py class"><dt class="sig"><span class="sig-prename descclassname">tornado.locks.</span>'
            '<span class="sig-name descname">Lock</span><a class="reference internal" href="_modules/x.html">'
            '<span class="viewcode-link">[source]</span></a></dt><dd><p>A lock for coroutines.</p></dd></dl>'
            "<p>The screen shows the menu<a href='ld.html'>[D]</a>.</p><h2>Tiny Tiny RSS\u2026\u200b fails</h2>"
            "<p>Check the password.</p></body></html>")
    transcript = read_written(tmp_path, "locks.html", page)
    texts = [s.text for s in transcript.segments]
    assert texts[0] == "tornado.locks.Lock: A lock for coroutines." and "The screen shows the menu." in texts
    assert transcript.headings[-1][2] == "Tiny Tiny RSS\u2026 fails"


def test_html_asciidoc_py_admonition_table_is_its_label_over_its_text(tmp_path):
    """asciidoc-py's xhtml11 lays a NOTE out as a table of an icon cell (an image, or a title
    without icons) and the text's cell: 18 of calcurse's steps began "| " and lost "Note"."""
    page = ("<html><head><title>Manual</title></head><body><h1>Manual</h1><div class='admonitionblock'><table><tr>"
            "<td class='icon'><img src='./images/icons/note.png' alt='Note'></td><td class='content'>It is also "
            "possible to link calcurse with a calendar.</td></tr></table></div><div class='admonitionblock'><table>"
            "<tr><td class='icon'><div class='title'>Caution</div></td><td class='content'>Logs may hold secrets."
            "</td></tr></table></div><table><tr><td>key</td><td>value</td></tr></table></body></html>")
    texts = [(s.kind, s.text) for s in read_written(tmp_path, "manual.html", page).segments]
    assert texts == [("paragraph", "Note: It is also possible to link calcurse with a calendar."),
                     ("paragraph", "Caution: Logs may hold secrets."), ("table", "key | value")]


FROB_INFO = (
    "This is frob.info, produced by makeinfo version 6.8 from frob.texi.\n\n"
    "INFO-DIR-SECTION Utilities\nSTART-INFO-DIR-ENTRY\n* Frob: (frob).   Rewrite files in place.\nEND-INFO-DIR-ENTRY\n\n"
    "\x1f\nFile: frob.info,  Node: Top,  Next: Overview,  Up: (dir)\n\n"
    "GNU Frob 2.1\n************\n\nThis manual documents the frob utility.\n\n"
    "* Menu:\n\n* Overview::           What frob does.\n* Startup File::       Its settings.\n"
    "* Concept Index::      Topics.\n\n -- The Detailed Node Listing --\n\nOverview of frob\n\n* Startup File::\n\n"
    "\x1f\nFile: frob.info,  Node: Overview,  Next: Startup File,  Prev: Top,  Up: Top\n\n"
    "1 Overview\n**********\n\n"
    "\x00\x08[index\x00\x08]Frob rewrites each file it is given and keeps a backup copy\n"
    "beside the original file unless it is told otherwise by option\n"
    "flags.  Its settings are read from *note\n"
    "The Startup File:: once, when it starts, and never again later.\n\n"
    "   To keep no backup, run it with the option that says so:\n\n"
    "     frob --no-backup notes.txt\n\n"
    "   See *note the settings: Startup File. for the rest.(1)\n\n"
    "   ---------- Footnotes ----------\n\n"
    "   (1) Settings are read once, when frob starts.\n\n"
    "\x1f\nFile: frob.info,  Node: Startup File,  Next: Concept Index,  Prev: Overview,  Up: Top\n\n"
    "1.1 Startup File\n================\n\n"
    "Frob reads its settings from the file named in FROBRC, else from\n‘~/.frobrc’.\n\n"
    "Short line here\n\n   The file holds one setting a line.\n\n"
    "\x1f\nFile: frob.info,  Node: Concept Index,  Prev: Startup File,  Up: Top\n\n"
    "Concept Index\n*************\n\n* Menu:\n\n"
    "* backup:                                Overview.             (line 6)\n"
    "* settings:                              Startup File.         (line 6)\n\n"
    "\x1f\nTag Table:\nNode: Top\x7f100\nNode: Overview\x7f300\n\x1f\nEnd Tag Table\n\n"
    "\x1f\nLocal Variables:\ncoding: utf-8\nEnd:\n")


def test_info_manual_reads_as_its_nodes_text_without_what_only_the_info_reader_uses(tmp_path):
    """GNU Info (makeinfo's output, /usr/share/info): its index cookies are control bytes, so the
    file was refused as binary ("wget.info is binary, not text") and a whole manual was lost.
    Node headers, menus, the index node, the tag table and the footnotes' rule are no text; a
    cross-reference reads as words; titles are the underlined lines only ("Short line here" is
    none); the title is the Top node's."""
    import gzip

    path = tmp_path / "frob.info.gz"
    path.write_bytes(gzip.compress(FROB_INFO.encode()))
    transcript = read_source(path)
    assert transcript.title == "GNU Frob 2.1"
    assert [(level, title) for _, level, title in transcript.headings] == [(1, "1 Overview"), (2, "1.1 Startup File")]
    texts = [s.text for s in transcript.segments]
    body = "\n".join(texts)
    assert ("Frob rewrites each file it is given and keeps a backup copy beside the original file unless it is "
            "told otherwise by option flags. Its settings are read from The Startup File once, when it starts, "
            "and never again later.") in texts
    assert "frob --no-backup notes.txt" in texts
    assert "See the settings for the rest. (Settings are read once, when frob starts.)" in texts
    assert "Short line here" in body
    for gone in ("File:", "Node:", "* Menu:", "(line 6)", "Footnotes", "Tag Table", "Local Variables", "\x00",
                 "What frob does", "Concept Index", "Detailed Node Listing", "Overview of frob", "Startup File::"):
        assert gone not in body, gone
    # saved as text, or a part of a split manual, it reads the same
    (tmp_path / "frob.txt").write_bytes(FROB_INFO.encode())
    (tmp_path / "frob.info-1").write_bytes(FROB_INFO.encode())
    for name in ("frob.txt", "frob.info-1"):
        assert [s.text for s in read_source(tmp_path / name).segments] == texts, name


def test_info_split_manual_is_read_whole_from_its_first_file_and_its_parts_are_no_tutorials(tmp_path):
    """makeinfo splits a long manual (screen's, find's): the first file holds the Top node and an
    Indirect table naming the parts. Each part had been a tutorial of its own, all titled alike,
    their chapters nested into one another, and a part in ISO-8859-15 (the coding the first file
    declares) refused. Read from the first file, the manual is one; a folder's parts are read
    through it; without leave to read beside it, the error names the parts; an index alone is
    an error too."""
    import gzip

    from tutorialbook.acquire.roots import SourcePolicy
    from tutorialbook.acquire.sources import expand_documents, readable

    head = b"This is frob.info, produced by makeinfo version 6.8 from frob.texi.\n\n"
    (tmp_path / "frob.info").write_bytes(
        head + b"\x1f\nIndirect:\nfrob.info-1: 100\nfrob.info-2: 900\n\x1f\nTag Table:\n(Indirect)\n"
        b"\x1f\nEnd Tag Table\n\n\x1f\nLocal Variables:\ncoding: iso-8859-15\nEnd:\n")
    (tmp_path / "frob.info-1").write_bytes(
        head + b"\x1f\nFile: frob.info,  Node: Top,  Next: Overview,  Up: (dir)\n\nGNU Frob\n********\n\n"
        b"\x1f\nFile: frob.info,  Node: Overview,  Next: Keys\n\n1 Overview\n**********\n\n"
        b"Frob rewrites each file it is given and keeps a backup of it.\n")
    (tmp_path / "frob.info-2.gz").write_bytes(gzip.compress(
        head + b"\x1f\nFile: frob.info,  Node: Keys,  Prev: Overview\n\n2 Keys\n******\n\n"
        b"I get an error about undefined yywrap().\n" + b"=" * 40 + b"\n\n"
        b"The digraph \xa4 is the euro sign in this table of keys.\n"))
    policy = SourcePolicy(roots=(str(tmp_path),))
    transcript = read_source(tmp_path / "frob.info", policy=policy)
    assert transcript.title == "GNU Frob"
    assert [title for _, _, title in transcript.headings] == [
        "1 Overview", "2 Keys", "I get an error about undefined yywrap()."]
    assert [s.text for s in transcript.segments] == [
        "Frob rewrites each file it is given and keeps a backup of it.",
        "The digraph \u20ac is the euro sign in this table of keys."]
    assert expand_documents(str(tmp_path), policy) == [[tmp_path / "frob.info"]]
    with pytest.raises(TutorialbookError, match=r"frob.info is the first file of a split Info manual: its text is "
                                                r"in frob.info-1, frob.info-2, which were not found beside it"):
        read_source(tmp_path / "frob.info")  # no policy: nothing beside it is read
    index = tmp_path / "other.info-2"
    index.write_bytes(head + b"\x1f\nFile: frob.info,  Node: Concept Index,  Up: Top\n\nConcept Index\n*************\n\n"
                             b"* Menu:\n\n* backup:            Overview.     (line 6)\n")
    with pytest.raises(TutorialbookError, match="other.info-2 holds no Info node with text"):
        read_source(index)
    assert readable(tmp_path / "frob.info-2") and readable(tmp_path / "frob.info-12.gz")
    assert not readable(tmp_path / "frob.info-x")
    # a part read alone, in a coding only its first file declares: a clear error, not mojibake
    latin = tmp_path / "latin.info-3"
    latin.write_bytes(head + b"\x1f\nFile: frob.info,  Node: Keys\n\nThe digraph \xa4 is the euro sign.\n")
    with pytest.raises(TutorialbookError, match=r"latin.info-3 is not UTF-8 text \(byte \d+\)"):
        read_source(latin)


def _info(tmp_path, text: str):
    """An Info manual of ``text``, read."""
    path = tmp_path / "frob.info"
    path.write_text(text)
    return read_source(path)


def test_info_reference_after_the_authors_own_word_reads_as_the_name_alone(tmp_path):
    """makeinfo writes @ref as "*note", as it writes @pxref: magit's manual read "Now see see
    Post-Installation Tasks", "please see the see FAQ", "documented in see (transient)Top" (68
    times; nettle's, by an older makeinfo, "see See Randomness"). After a word the reference is
    the name alone; in brackets or opening a clause it still says "see"; another manual's node
    names that manual."""
    text = ("This is frob.info, produced by makeinfo version 6.8 from frob.texi.\n\n"
            "\x1f\nFile: frob.info,  Node: Setup,  Up: Top\n\n1 Setup\n*******\n\n"
            "Now see *note Startup File::.  Also see the *note Debugging\nTools::, and read it.\n\n"
            "Frob keeps backups (*note Backups::); for more, *note Options::.\n\n"
            "Transient is documented in *note (transient)Top::, its keys in *note\n(transient)Keys::.\n\n"
            "*Note Quitting::, for the rest; older makeinfo's @ref: see *Note Randomness::.\n")
    assert [s.text for s in _info(tmp_path, text).segments] == [
        "Now see Startup File. Also see the Debugging Tools, and read it.",
        "Frob keeps backups (see Backups); for more, see Options.",
        "Transient is documented in the transient manual, its keys in Keys in the transient manual.",
        "See Quitting, for the rest; older makeinfo's @ref: see Randomness."]


def test_info_copyright_line_in_a_quotation_is_a_notice_not_code(tmp_path):
    """texinfo's @copying sets "Copyright (C) 2015-2021 …" in a quotation, five spaces deep in
    Info: magit's manual read it as a code block, which the passage kept whole ("This manual is
    for Magit version 3.3.0. | Copyright (C) 2015-2021 Jonas Bernoulli <jonas@…>" was a skill). A
    notice is a paragraph, so the licence rules see it; a listing beside it stays code."""
    text = ("This is frob.info, produced by makeinfo version 6.8 from frob.texi.\n\n"
            "\x1f\nFile: frob.info,  Node: Top,  Up: (dir)\n\nFrob\n****\n\n"
            "Frob rewrites each file it is given in place and keeps a backup\ncopy beside the original file.\n\n"
            "This manual is for Frob version 2.1.\n\n"
            "     Copyright (C) 2015-2021 Jane Doe <jane@example.org>\n\n"
            "     You can redistribute this document and/or modify it under the terms\n"
            "     of the GNU General Public License.\n\n"
            "   Run it so:\n\n     frob --all notes.txt\n")
    segments = [(s.kind, s.text) for s in _info(tmp_path, text).segments]
    assert ("paragraph", "Copyright (C) 2015-2021 Jane Doe <jane@example.org>") in segments
    assert segments[-1] == ("code", "frob --all notes.txt")


def test_info_definitions_are_sections_named_by_what_they_define(tmp_path):
    """texinfo's @deffn in Info ("-- Command: acladd USERNAMES" over its meaning, indented): 114 of
    screen's skills had been named "-- Command: …", three to six entries a skill. Each is a
    section one level below the title before it, named by what it defines (a C function by the
    word before its arguments), its signatures opening its text; under a title that already
    names it, no section of its own; an example inside keeps its indent below the meaning."""
    text = ("This is frob.info, produced by makeinfo version 6.8 from frob.texi.\n\n"
            "\x1f\nFile: frob.info,  Node: Commands,  Up: Top\n\n2 Commands\n**********\n\n"
            "Frob reads these commands from its startup file, one a line.\n\n"
            " -- Command: acladd USERNAMES\n -- Command: addacl USERNAMES\n"
            "     Let users attach to the session.  USERNAMES is one user or a\n     comma separated list.\n\n"
            "          acladd bob,alice\n\n"
            " -- Function: int frob_open (const char *NAME,\n          int FLAGS)\n"
            "     Open the file NAME for rewriting.\n\n"
            "\x1f\nFile: frob.info,  Node: Quit,  Up: Commands\n\n2.1 Quit\n========\n\n"
            " -- Command: quit\n     Leave frob, keeping every backup.\n")
    transcript = _info(tmp_path, text)
    assert [(level, title) for _, level, title in transcript.headings] == [
        (1, "2 Commands"), (2, "acladd"), (2, "frob_open"), (2, "2.1 Quit")]
    assert [(s.kind, s.text) for s in transcript.segments] == [
        ("paragraph", "Frob reads these commands from its startup file, one a line."),
        ("paragraph", "acladd USERNAMES; addacl USERNAMES: Let users attach to the session. USERNAMES is one user "
                      "or a comma separated list."),
        ("code", "acladd bob,alice"),
        ("paragraph", "int frob_open (const char *NAME, int FLAGS): Open the file NAME for rewriting."),
        ("paragraph", "quit: Leave frob, keeping every backup.")]


def test_info_table_items_set_apart_by_blank_lines_are_terms_over_their_meaning(tmp_path):
    """sed's "Reporting Bugs": an item at the margin, a blank line, its meaning indented 5. The
    item had ended the skill before as a step and its meaning opened the next without it; a
    cross-reference wrapped inside a meaning ("*note Invocation: Invoking\n     sed.") put the
    next line at the margin; a later paragraph of the meaning was read as code for its quoted
    escapes. An example set deeper stays code; a sentence over a table is no term."""
    text = ("This is frob.info, produced by makeinfo version 6.8 from frob.texi.\n\n"
            "\x1f\nFile: frob.info,  Node: Bugs,  Up: Top\n\n3 Reporting Bugs\n****************\n\n"
            "Here are a few commonly reported bugs that are not bugs.\n\n"
            "'N' command on the last line\n\n"
            "     Most versions of 'frob' exit without printing anything when the\n"
            "     'N' command is issued on the last line of a file.\n\n"
            "          $ seq 3 | frob N\n\n"
            "     In addition, this version supports several escape characters\n"
            "     ('\\a', '\\c', '\\d', '\\o') to insert non-printable characters.\n\n"
            "'-i' clobbers read-only files\n\n"
            "     In short, 'frob -i' will let you delete the contents of a read-only\n"
            "     file, and in general the '-i' option (*note Invocation: Invoking\n"
            "     frob.) lets you clobber protected files.\n\n"
            "   Frob reads its operators left to right, as most tools do, and\n   it never reads them again.\n\n"
            "   It binds them as other languages of its kind bind theirs, and\n   it warns of none of them.\n\n"
            "   The precedence is as follows: (lowest to highest)\n\n"
            "     || operator, left associative\n     && operator, left associative\n")
    transcript = _info(tmp_path, text)
    *told, table = [(s.kind, s.text) for s in transcript.segments]
    assert told == [
        ("paragraph", "Here are a few commonly reported bugs that are not bugs."),
        ("paragraph", "'N' command on the last line: Most versions of 'frob' exit without printing anything when "
                      "the 'N' command is issued on the last line of a file."),
        ("code", "$ seq 3 | frob N"),
        ("paragraph", "In addition, this version supports several escape characters ('\\a', '\\c', '\\d', '\\o') "
                      "to insert non-printable characters."),
        ("paragraph", "'-i' clobbers read-only files: In short, 'frob -i' will let you delete the contents of a "
                      "read-only file, and in general the '-i' option (see Invocation) lets you clobber protected "
                      "files."),
        ("paragraph", "Frob reads its operators left to right, as most tools do, and it never reads them again."),
        ("paragraph", "It binds them as other languages of its kind bind theirs, and it warns of none of them."),
        ("paragraph", "The precedence is as follows: (lowest to highest)")]
    assert table[1].startswith("|| operator, left associative")  # its lines, no meaning of the sentence


def test_info_fourth_level_titles_table_headers_wrapped_signatures_and_rules_in_listings(tmp_path):
    """Sweep M: aspell's "3.2.2.2 Recognized Options" over its dots had been cut from them (its
    words would have fit on the line above) and lost, 23 of 30 fourth-level titles; automake's
    table header "Directory variable   Default value" over its rule became a section; a signature
    makeinfo wraps at the meaning's indent ("[ACTION-IF-NOT-FOUND]) Search for …") read
    "…FOUND],: [ACTION…"; gprof's call graph lost the dashed lines between its entries."""
    text = ("This is frob.info, produced by makeinfo version 6.8 from frob.texi.\n\n"
            "\x1f\nFile: frob.info,  Node: Options,  Up: Top\n\n3.2.2.1 Functions\n.................\n\n"
            "Frob can read options from the command line or from a file.\n\n"
            "3.2.2.2 Recognized Options\n..........................\n\n"
            "Frob recognizes most of the options of the older program.\n\n"
            "Directory variable   Default value\n----------------------------------\n"
            "‘prefix’             ‘/usr/local’\n\n"
            "Here is a call graph that frob printed for a small program of ours:\n\n"
            "     index % time    self  name\n     [1]    100.0    0.00  start [1]\n"
            "     -----------------------------------------------\n     [2]    100.0    0.00  main [2]\n\n"
            " -- Macro: FROB_PROG ([MINIMUM-VERSION], [ACTION-IF-FOUND],\n"
            "     [ACTION-IF-NOT-FOUND]) Search for frob in ‘PATH’.  If it is\n     found, ‘FROB’ is set.\n")
    transcript = _info(tmp_path, text)
    assert [(level, title) for _, level, title in transcript.headings] == [
        (4, "3.2.2.1 Functions"), (4, "3.2.2.2 Recognized Options"), (5, "FROB_PROG")]
    texts = [s.text for s in transcript.segments]
    assert "FROB_PROG ([MINIMUM-VERSION], [ACTION-IF-FOUND], [ACTION-IF-NOT-FOUND]): Search for frob in ‘PATH’. " \
           "If it is found, ‘FROB’ is set." in texts
    assert any("-----------------------------------------------\n[2]" in t for t in texts), texts
    assert not any("Directory variable" in title for _, _, title in transcript.headings)


def test_a_heading_repeating_the_title_of_the_node_it_is_in_is_that_nodes_text(tmp_path, library):
    """A README's title heading with a closing top heading beside it ("license"), and texinfo's
    section heading repeated after definitions for the prose between them: each had made a node
    inside a node of the same name (gitolite's "Gitolite README › Gitolite README", mpfr's
    "5.1 Initialization Functions" twice, sweep O and Q)."""
    readme = tmp_path / "README.md"
    readme.write_text("Gitolite README\n===============\n\n## Assumptions\n\nYou are familiar with ssh keys "
                      "and with git itself.\n\n## Installation\n\nRun the install script from a clone of the "
                      "repository as the hosting user.\n\n# license\n\nThe code is released under GPL v2.\n")
    page = tmp_path / "Initialization-Functions.html"
    page.write_text("""<html><head><title>Initialization Functions (GNU MPFR 4.2.0)</title></head><body>
<h3 class="section">5.1 Initialization Functions</h3>
<p>An object must be initialized before storing the first value in it.</p>
<dl class="def"><dt><span class="category">Function: </span><strong>mpfr_init2</strong> (mpfr_t x, prec)</dt>
<dd><p>Initialize x and set its precision to be exactly prec bits and its value to NaN.</p></dd></dl>
<p>Here is an example of how to use several initialization functions in one program.</p>
<dl class="def"><dt><span class="category">Function: </span><strong>mpfr_init</strong> (mpfr_t x)</dt>
<dd><p>Initialize x and set its precision to the default precision and its value to NaN.</p></dd></dl>
</body></html>""")
    library.ingest(str(readme), book="readme", refine_rounds=0)
    library.ingest(str(page), book="mpfr", refine_rounds=0)

    def shape(nodes) -> list:
        return [(node.title, shape(node.subnodes)) for node in nodes]

    assert shape(library.browse("readme", depth=5).children) == [
        ("Gitolite README", [("Assumptions", []), ("Installation", []), ("license", [])])]
    assert shape(library.browse("mpfr", depth=5).children) == [
        ("5.1 Initialization Functions", [("mpfr_init2", []), ("mpfr_init", [])])]
    chapter = library.browse("mpfr", depth=1).children[0]
    assert any("several initialization functions" in " ".join(s.steps) for s in library.skills("mpfr")
               if s.node_id == chapter.id)


def test_plain_text_a_line_a_sentence_left_open_shows_is_code_and_a_title_between_rules_is_its_words(tmp_path):
    """Exim's filter guide: "…the first text in an Exim filter file must be" / "# Exim filter": the
    line was read as a heading (its text in no skill, nine skills under a section "Sieve
    filter"). procmail's FAQ is titled "----- Frequently Asked Questions -----" on one line."""
    text = ("------------------------------\n------- Frequently Asked Questions -------\n"
            "------------------------------\n\n"
            "Format of filter files\n----------------------\n\n"
            "Apart from leading white space, the first text in an Exim filter file must be\n\n# Exim filter\n\n"
            "This is what distinguishes it from a conventional .forward file.\n\n"
            "Commands\n--------\n\nEach command is on a line of its own, and its arguments follow it.\n")
    transcript = read_written(tmp_path, "filter.txt", text)
    assert transcript.title == "Frequently Asked Questions"
    assert [title for _, _, title in transcript.headings] == ["Format of filter files", "Commands"]
    assert ("code", "# Exim filter") in [(s.kind, s.text) for s in transcript.segments]


def test_a_text_file_named_without_an_extension_is_read_as_text(tmp_path, library):
    """/usr/share/doc names its texts README, FAQ, QuickStart (gzipped when large): each was
    refused ("unsupported file type '(none)'"), a folder of them "holds no supported files". A
    program (executable, or opening with "#!"), a binary file and a hidden file beside them are
    not read."""
    import gzip

    from tutorialbook.acquire.sources import readable

    docs = tmp_path / "procmail"
    docs.mkdir()
    (docs / "QuickStart").write_text("procmail QuickStart\n\nPut a .forward file in your home directory "
                                     "that pipes each message to procmail.\n")
    (docs / "FAQ.gz").write_bytes(gzip.compress(b"Frequently Asked Questions\n\nProcmail locks the mailbox "
                                                b"with a lockfile before it writes a message.\n", mtime=0))
    (docs / "mkdist").write_text("#!/bin/sh\nmake dist\n")
    tool = docs / "lockfile"
    tool.write_text("Lock a file before it is written, then remove the lock after the write.\n")
    tool.chmod(0o755)
    (docs / "logo").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (docs / ".cvsignore").write_text("Makefile and the objects the build leaves behind.\n")
    assert sorted(p.name for p in docs.iterdir() if readable(p)) == ["FAQ.gz", "QuickStart"]
    report = library.ingest(str(docs), book="procmail", refine_rounds=0)
    assert sorted(t.title for t in report.tutorials) == ["Frequently Asked Questions", "procmail QuickStart"]
    with pytest.raises(TutorialbookError, match="unsupported file type '\\(none\\)' for logo"):
        library.ingest(str(docs / "logo"), book="procmail", refine_rounds=0)


def test_a_folders_licence_copyright_and_change_log_files_are_not_read(tmp_path, library):
    """Every folder of /usr/share/doc holds ``copyright``: read as text since extensionless files
    are, podman's became a chapter "Copyright" of "Files: … Copyright: 2017 …" sections, and its
    NOTICE another; mako's Sphinx changelog.html was 31% of its book. A folder's licence, copyright
    and change log files are passed over, each said why; one named alone is read (the user asked)."""
    import gzip

    from tutorialbook.acquire.sources import untaught

    docs = tmp_path / "podman"
    docs.mkdir()
    (docs / "README.md").write_text("# Podman\n\nRun a container with podman run and list them with podman ps.\n")
    (docs / "copyright").write_text("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n\n"
                                    "Files: *\nCopyright: 2017 Red Hat\nLicense: Apache-2.0\n")
    (docs / "NOTICE").write_text("This product includes software developed by the Docker project.\n")
    (docs / "COPYING.gz").write_bytes(gzip.compress(b"The GNU Lesser General Public License, version 2.1.\n"))
    (docs / "LICENSE.md").write_text("# MIT License\n\nPermission is hereby granted, free of charge.\n")
    (docs / "changelog.html").write_text("<h1>Changelog</h1><h2>1.3.5</h2><p>[bug] Fixed the loop.</p>")
    assert [p.name for p in sorted(docs.iterdir()) if untaught(p)] == [
        "COPYING.gz", "LICENSE.md", "NOTICE", "changelog.html", "copyright"]
    assert untaught(tmp_path / "COPYING.LIB") == untaught(tmp_path / "LICENSE-2.0.txt") == (
        "a licence or copyright notice")
    assert untaught(tmp_path / "CHANGES.rst") == untaught(tmp_path / "RELEASE_NOTES.md.gz") == "a change log"
    assert not any(untaught(tmp_path / name) for name in ("README.md", "licensing-howto.md", "history.html",
                                                          "changing-settings.html", "notices.txt"))
    report = library.ingest(str(docs), book="podman", refine_rounds=0)
    assert [t.title for t in report.tutorials] == ["Podman"]
    skipped = {f.source.rsplit("/", 1)[-1]: f.reason for f in report.files if f.status == "skipped"}
    assert set(skipped) == {"COPYING.gz", "LICENSE.md", "NOTICE", "changelog.html", "copyright"}
    assert skipped["changelog.html"].startswith("changelog.html is a change log, which teaches nothing")
    assert skipped["NOTICE"].startswith("NOTICE is a licence or copyright notice, which teaches nothing")
    legal = tmp_path / "legal"
    legal.mkdir()
    (legal / "COPYING").write_text("Everyone is permitted to copy and distribute verbatim copies.\n")
    with pytest.raises(TutorialbookError, match="holds no supported files .*; COPYING: licences and change logs "
                                                "are not read in a folder, name one alone to read it"):
        library.ingest(str(legal), book="legal", refine_rounds=0)
    alone = library.ingest(str(docs / "NOTICE"), book="legal", refine_rounds=0)
    assert alone.tutorials[0].status == "added"


def test_plain_text_terms_over_meanings_indented_under_them_are_items_each(tmp_path):
    """texinfo's tables in Info (and texts laid out so): a term or two at the margin, its meaning
    indented under it, no blank line between items. They ran together as one paragraph, cut at
    sentences across items (find's "'-print0' '-fprint0' Always print … '-ok' '-okdir' Always
    …", sweep O). A list item wrapped with a hanging indent and code over its indented lines stay
    what they were."""
    text = ("Unusual characters are handled differently by various actions, as\ndescribed below.\n\n"
            "'-print0'\n'-fprint0'\n     Always print the exact file name, unchanged, even if the output is\n"
            "     going to a terminal.\n'-ok'\n'-okdir'\n     Always print the exact file name, unchanged.\n"
            "'0'\n     No problems occurred.\n\n"
            "  N. Do not retitle any existing section to be Entitled\n     \"Endorsements\" or to conflict in "
            "title.\n\n"
            "  png_structp png_ptr = png_create_read_struct\n     (PNG_LIBPNG_VER_STRING, (png_voidp)user_error_ptr,\n"
            "     user_error_fn, user_warning_fn);\n")
    segments = [(s.kind, s.text) for s in read_written(tmp_path, "find.txt", text).segments]
    assert segments[1:4] == [
        ("paragraph", "'-print0', '-fprint0': Always print the exact file name, unchanged, even if the output is "
                      "going to a terminal."),
        ("paragraph", "'-ok', '-okdir': Always print the exact file name, unchanged."),
        ("paragraph", "'0': No problems occurred.")], segments
    assert not any(": \"Endorsements\"" in t or "create_read_struct:" in t for _, t in segments), segments


def test_html_asciidoc_callout_lists_are_numbered_lists(tmp_path):
    """asciidoc-py sets a listing's callouts as ``div.colist`` over a table of icon and text
    (Asciidoctor likewise, the number as text): each had been a table row, "| NFS server error
    message.", cut from its number and named after its second row (sweep Q, crmsh's guide)."""
    page = tmp_path / "history.html"
    page.write_text("""<html><head><title>T</title></head><body><h1>History</h1>
<div class="listingblock"><div class="content"><pre><code>crm(live)history# exclude nfs <b>&lt;1&gt;</b></code></pre></div></div>
<div class="colist arabic"><table>
<tr><td><img src="/img/icons/callouts/1.png" alt="1"></td><td>
NFS server error message.
</td></tr>
<tr><td><img src="/img/icons/callouts/2.png" alt="2"></td><td>Warning about a non-existing user id.</td></tr>
</table></div>
<div class="colist arabic"><table><tr><td><i class="conum" data-value="1"></i><b>1</b></td>
<td>Library import</td></tr></table></div></body></html>""")
    lists = [s.text for s in read_source(page).segments if s.kind == "list"]
    assert lists == ["1. NFS server error message.\n2. Warning about a non-existing user id.", "1. Library import"]


def test_html_texinfo_entry_signature_is_read_without_its_category(tmp_path):
    """texinfo 7 sets an entry's category in ``span.category`` ("Function: "): it headed every
    entry's text, and 131 of mpfr's skills were named "Function: int mpfr_cosh" (sweep O)."""
    page = tmp_path / "Init.html"
    page.write_text("""<html><head><title>T</title></head><body><h3>5.1 Initialization Functions</h3>
<dl class="def"><dt><span class="category">Function: </span><span><em>void</em> <strong class="def-name">mpfr_init2</strong>
<em>(mpfr_t x, mpfr_prec_t prec)</em></span></dt><dd><p>Initialize x and set its precision.</p></dd></dl></body></html>""")
    transcript = read_source(page)
    assert [t for _, _, t in transcript.headings] == ["5.1 Initialization Functions", "mpfr_init2"]
    assert [s.text for s in transcript.segments] == [
        "void mpfr_init2 (mpfr_t x, mpfr_prec_t prec): Initialize x and set its precision."]


def test_html_sphinx_entry_signature_is_read_without_its_annotation(tmp_path):
    """Sphinx sets "class" (or "async", "static") before an object's name in ``em.property``: it
    headed the entry's text and mako's classes were skills named "Class"."""
    page = tmp_path / "usage.html"
    page.write_text("""<html><head><title>T</title></head><body><h2>API Reference</h2>
<dl class="py class"><dt class="sig sig-object py" id="mako.template.Template">
<em class="property"><span class="pre">class</span><span class="w"> </span></em><span class="sig-prename descclassname">
<span class="pre">mako.template.</span></span><span class="sig-name descname"><span class="pre">Template</span></span>
<span class="sig-paren">(</span><em class="sig-param"><span class="n"><span class="pre">text</span></span></em><span class="sig-paren">)</span>
</dt><dd><p>Represents a compiled template.</p></dd></dl></body></html>""")
    transcript = read_source(page)
    assert [t for _, _, t in transcript.headings] == ["API Reference", "mako.template.Template"]
    assert [s.text for s in transcript.segments] == ["mako.template.Template (text): Represents a compiled template."]


def test_pdf_sentence_stopping_on_a_word_it_cannot_end_on_goes_on_across_the_page(tmp_path):
    """xfig's guide: "If the Text Flag for that text is set to" | page break | "Special, then it
    will be incorporated verbatim": the rest of the sentence, opening with a capital, had become a
    skill of its own (sweep P). A sentence ended on a page stays apart from the next."""
    pages = [[(20, 30, "body", 11, "Text is printed as typed. If the Text Flag for that text is set to")],
             [(20, 30, "body", 11, "Special, then it will be incorporated verbatim."),
              (20, 45, "body", 11, "Fonts are chosen in the text panel.")],
             [(20, 30, "body", 11, "Rulers show the page size in inches.")]]
    texts = [s.text for s in read_source(_laid_out_pdf(tmp_path / "xfig.pdf", pages)).segments]
    assert texts[0] == ("Text is printed as typed. If the Text Flag for that text is set to Special, then it will "
                        "be incorporated verbatim.")
    assert "Rulers show the page size in inches." in texts


def test_html_docbook_variable_list_set_as_a_table_reads_each_term_over_its_meaning(tmp_path):
    """xsltproc sets a DocBook variable list as a table (``table.variablelist``): each term and its
    meaning had been paragraphs apart, a term ending one skill and its meaning opening the next
    (cockpit-ws's "--for-tls-proxy", sweep Q)."""
    page = tmp_path / "cockpit-ws.8.html"
    page.write_text("""<html><head><title>cockpit-ws</title></head><body><h2>OPTIONS</h2>
<div class="variablelist"><table border="0" class="variablelist"><colgroup><col><col></colgroup><tbody>
<tr><td><p><span class="term"><code class="option">--port</code> <em>PORT</em></span></p></td>
<td><p>Serve HTTP requests on PORT instead of port 9090.</p><p>Usually it is started on demand.</p></td></tr>
<tr><td><p><span class="term"><code class="option">--no-tls</code></span></p></td><td><p>Don't use TLS.</p></td></tr>
</tbody></table></div></body></html>""")
    assert [s.text for s in read_source(page).segments] == [
        "--port PORT: Serve HTTP requests on PORT instead of port 9090.", "Usually it is started on demand.",
        "--no-tls: Don't use TLS."]


def test_info_emphasis_marks_are_no_text_and_codes_stars_stay(tmp_path):
    """makeinfo marks @strong with stars and @emph with underscores: "*_Never_* try", "_not_" stood
    in skills and their names, some hundred times in four manuals (sweep O). A star or an
    underscore in code stays."""
    text = ("This is frob.info, produced by makeinfo version 6.8 from frob.texi.\n\n"
            "\x1f\nFile: frob.info,  Node: Rules,  Up: Top\n\n1 Rules\n*******\n\n"
            "*_Never_* try to set the interface numbers by hand; frob does _not_ check _every_ one.\n\n"
            "     int *ptr = a*b*c;  /* my_var_name */\n     rm *.o\n")
    texts = [s.text for s in _info(tmp_path, text).segments]
    assert texts[0] == "Never try to set the interface numbers by hand; frob does not check every one."
    assert "int *ptr = a*b*c;  /* my_var_name */" in texts[1] and "rm *.o" in texts[1]


def test_docutils_html_docinfo_is_no_text_as_the_rst_sources_bibliography_is_not(tmp_path):
    """docutils' own HTML writers (docutils-doc's user docs, rst2html's pages) set a document's
    Author / Contact / Revision / Copyright fields in a ``table.docinfo`` (html5: ``dl.docinfo``):
    "Author: | Lea Wiemann Contact: | …" opened each page as text, where the same page read from
    its .txt source drops them as bibliography. A field list in the body stays."""
    page = tmp_path / "mailing-lists.html"
    page.write_text("""<html><head><title>Docutils Mailing Lists</title></head><body><div class="document">
<h1 class="title">Docutils Mailing Lists</h1>
<table class="docinfo" frame="void" rules="none"><tbody valign="top">
<tr><th class="docinfo-name">Author:</th><td>Lea Wiemann</td></tr>
<tr><th class="docinfo-name">Copyright:</th><td>This document has been placed in the public domain.</td></tr>
</tbody></table>
<dl class="docinfo simple"><dt class="author">Author</dt><dd class="author"><p>Lea Wiemann</p></dd></dl>
<p>All discussion about Docutils takes place on mailing lists.</p>
<table class="docutils field-list"><tbody><tr><th class="field-name">alias:</th><td class="field-body">html4</td></tr>
</tbody></table></div></body></html>""")
    texts = [s.text for s in read_source(page).segments]
    assert texts[0] == "All discussion about Docutils takes place on mailing lists."
    assert not any("Wiemann" in t for t in texts) and any("html4" in t for t in texts)


def test_html_sphinx_see_also_links_bare_version_notes_and_rubrics(tmp_path):
    """Sphinx furniture (a measured Sphinx manual, greenlet's): a "See also" box of links only (under
    terms naming them) is a pointer, no text (one read like the answer to a question and ranked
    first); a version note that says only its version ("New in version 1.0.0.") is no skill; a
    rubric ("Example") heads the block after it. A "See also" box that says something stays, and
    so does a version note saying what changed."""
    page = tmp_path / "greenlet.html"
    page.write_text("""<html><head><title>T</title></head><body><h1>Concepts</h1>
<div class="versionadded"><p><span class="versionmodified added">New in version 1.0.0.</span></p></div>
<div class="admonition seealso"><p class="admonition-title">See also</p><dl class="simple">
<dt>Where does execution go when a greenlet dies?</dt><dd><p><a href="#parents">Greenlet Parents</a></p></dd></dl></div>
<p>A greenlet is a small independent pseudo-thread.</p>
<p class="rubric">Example</p><p>Let us pull together an example of those concepts.</p>
<div class="versionchanged"><p><span class="versionmodified changed">Changed in version 2.5: </span>added the
<em>scrollable</em> argument.</p></div>
<div class="admonition seealso"><p class="admonition-title">See also</p><p>The <a href="x.html">threading</a>
module, which runs real threads.</p></div></body></html>""")
    assert [s.text for s in read_source(page).segments] == [
        "A greenlet is a small independent pseudo-thread.",
        "Example: Let us pull together an example of those concepts.",
        "Changed in version 2.5: added the scrollable argument.",
        "See also: The threading module, which runs real threads."]


def test_html_word_joiners_in_anchors_are_no_text(tmp_path):
    """Publican's DocBook HTML puts a word joiner (U+2060) in the anchor before each title: it led
    every section title ("\u2060Chapter 2. Using SystemTap") and stood as a step of its own in 43
    skills of the SystemTap guide (a measured DocBook guide)."""
    page = tmp_path / "scripts.html"
    page.write_text('<html><head><title>T</title></head><body><h2 class="title"><a id="scripts">\u2060</a>'
                    '3.2. SystemTap Scripts</h2><div class="example"><a id="timer">\u2060</a>'
                    '<p class="title"><b>Example 3.3. timer-s.stp</b></p><p>A probe prints hello world.</p></div>'
                    '</body></html>', encoding="utf-8")
    transcript = read_source(page)
    assert [t for _, _, t in transcript.headings] == ["3.2. SystemTap Scripts"]
    assert not any("\u2060" in s.text or not s.text.strip() for s in transcript.segments), transcript.segments


def test_html_a_text_set_in_pre_is_read_as_text_and_a_listing_stays_code(tmp_path):
    """haproxy's manuals (haproxy-dconv) set every section's text in ``<pre class="text">``, wrapped
    at 80 columns: each section had been one code step of up to 6 KB, named by its first line (sweep
    Q). A text written in sentences is read as a plain text is; a listing, a session at a prompt
    and a commented configuration stay code."""
    prose = ("Load balancing consists in aggregating multiple components in order to achieve\n"
             "a total processing capacity above each component's individual capacity, without\n"
             "any intervention from the end user and in a scalable way. This results in more\n"
             "operations being performed simultaneously by the time it takes a component to\n"
             "perform only one. A single operation however will still be performed on a single\n"
             "component at a time and will not get faster than without load balancing.\n\n"
             "Examples of load balancing :\n\n  - Process scheduling in multi-processor systems\n"
             "  - Link load balancing (e.g. EtherChannel, Bonding)\n")
    config = "\n".join(f"# Pick the {n}th mirror of the list that answers first and use it from now on.\n"
                       f"d-i mirror/http/hostname string mirror{n}.example.org" for n in range(4))
    page = tmp_path / "intro.html"
    page.write_text(f'<html><head><title>T</title></head><body><h2>3.1. Load balancing</h2><pre class="text">{prose}'
                    f'</pre><p>A configuration:</p><pre>{config}</pre></body></html>')
    segments = [(s.kind, s.text) for s in read_source(page).segments]
    assert segments[0][0] == "paragraph" and segments[0][1].startswith("Load balancing consists in aggregating "
                                                                        "multiple components in order to achieve a")
    assert ("list", "- Process scheduling in multi-processor systems\n- Link load balancing (e.g. EtherChannel, "
                    "Bonding)") in segments, segments
    assert segments[-1] == ("code", config)


def test_rst_term_its_author_ends_with_a_colon_heads_its_definition_with_one_colon():
    """Requests' advanced guide writes its hooks as a definition list whose term ends with a colon
    (``response``:); the definition came out as "response:: The response generated …"."""
    from tutorialbook.acquire.formats import read_document

    hooks = read_document(".rst", "Hooks\n=====\n\nAvailable hooks:\n\n``response``:\n"
                                  "    The response generated from a Request.\n", "hooks.rst")
    assert [s.text for s in hooks.segments][-1] == "response: The response generated from a Request."
    blocky = read_document(".rst", "Hooks\n=====\n\n``response``:\n    The response generated from a Request::\n\n"
                                   "        hooks={'response': print_url}\n", "hooks.rst")
    assert blocky.segments[0].text == "response: The response generated from a Request:"


def test_a_table_says_whether_it_opens_on_a_header_row():
    """Tig's manual (AsciiDoc to HTML) sets "Browsing state variables" as a table with no header
    row: its first row, "%(head) | The currently viewed head ID", headed every run of rows the
    table was cut into. Readers now say which tables open on a header (``Segment.header``):
    HTML's ``<thead>`` or a row of ``<th>``s, reStructuredText's header rows, a Markdown table's."""
    from tutorialbook.acquire.formats import read_document

    def tables(fmt: str, text: str | bytes) -> list[tuple[str, bool]]:
        return [(s.text.splitlines()[0], s.header) for s in read_document(fmt, text, "x").segments if s.kind == "table"]

    html = b"""<html><head><title>Manual</title></head><body><h1>Manual</h1><p>Variables and keys:</p>
    <table><tbody><tr><td><code>%(head)</code></td><td>The viewed head ID.</td></tr>
    <tr><td><code>%(commit)</code></td><td>The selected commit ID.</td></tr></tbody></table>
    <table><thead><tr><td>Key</td><td>Action</td></tr></thead><tbody><tr><td>q</td><td>Quit.</td></tr></tbody></table>
    <table><tr><th>Key</th><th>Action</th></tr><tr><td>j</td><td>Down.</td></tr></table>
    <table><tr><th>q</th><td>Quit.</td></tr><tr><th>j</th><td>Down.</td></tr></table></body></html>"""
    assert tables(".html", html) == [("%(head) | The viewed head ID.", False), ("Key | Action", True),
                                      ("Key | Action", True), ("q | Quit.", False)]
    rst = ("Manual\n======\n\n.. list-table::\n\n   * - q\n     - Quit.\n   * - j\n     - Down.\n\n"
           ".. list-table::\n   :header-rows: 1\n\n   * - Key\n     - Action\n   * - q\n     - Quit.\n")
    assert tables(".rst", rst) == [("q | Quit.", False), ("Key | Action", True)]
    assert tables(".md", "# Manual\n\n| Key | Action |\n|---|---|\n| q | Quit. |\n") == [("Key | Action", True)]


def test_a_side_menu_and_a_sites_banner_are_no_text(tmp_path):
    """lxml's documentation (python-lxml-doc) opens every page on a ``div.sidemenu`` ("Menu" and
    the site's whole menu) and a ``div.banner`` ("Like the tool? Help making it better! Your
    donation helps!"): the tutorial's first skill and its summary. A class word ending in "menu"
    ("sidemenu", "submenu") is furniture as "menu" is, but DocBook's "guimenu" (a program's menu
    named in the text); a banner holding no heading is furniture as a page header is."""
    page = tmp_path / "tutorial.html"
    page.write_text("""<html><head><title>The lxml.etree Tutorial</title></head><body><div class="document">
<div class="sidemenu"><div class="menutrigger">Menu</div><div class="menu"><ul><li><a href="i.html">lxml</a>
</li></ul></div></div><div class="banner"><div class="banner_link"><a href="index.html#support">Like the tool?
<br/>Help making it better! <br/>Your donation helps!</a></div></div><h1 class="title">The lxml.etree Tutorial</h1>
<p>This is a tutorial on XML processing with lxml.etree.</p>
<p>Choose <span class="guimenu">File</span> → <span class="guimenuitem">Open</span> to read a file.</p>
<div class="banner"><h2>Parsing</h2><p>Parse a string with fromstring().</p></div></div></body></html>""")
    transcript = read_source(page)
    assert [s.text for s in transcript.segments] == [
        "This is a tutorial on XML processing with lxml.etree.", "Choose File → Open to read a file.",
        "Parse a string with fromstring()."]
    assert transcript.title == "The lxml.etree Tutorial"


def test_an_icon_glyph_in_the_heading_is_no_word_of_the_title(tmp_path):
    """MkDocs' pages (mkdocs-doc) end each heading on a permalink whose text is an icon font's
    glyph (U+F0C1): the tutorial was titled "Getting Started with MkDocs\\uf0c1"."""
    assert read_written(tmp_path, "getting-started.html", (
        '<html><head><title>Getting Started - MkDocs</title></head><body><h1 id="gs">Getting Started with MkDocs'
        '<a class="headerlink" href="#gs" title="Permanent link">\uf0c1</a></h1>'
        '<p>An introductory tutorial!</p></body></html>')).title == "Getting Started with MkDocs"


def test_a_sites_tagline_is_no_text(tmp_path):
    """SQLite's documentation (sqlite3-doc) opens every page on its tagline, "Small. Fast. Reliable.
    Choose any three.": the first skill of "Command Line Shell For SQLite"."""
    page = tmp_path / "cli.html"
    page.write_text('<html><head><title>Command Line Shell For SQLite</title></head><body><div class=nosearch>'
                    '<a href="index.html"><img class="logo" src="logo.gif" alt="SQLite"></a>'
                    '<div class="tagline desktoponly">Small. Fast. Reliable.<br>Choose any three.</div></div>'
                    '<h1>Command Line Shell For SQLite</h1><p>The SQLite project provides a simple command-line '
                    'program named sqlite3.</p></body></html>', encoding="utf-8")
    assert [s.text for s in read_source(page).segments] == [
        "The SQLite project provides a simple command-line program named sqlite3."]


def test_markdown_contents_list_with_labels_and_other_pages_is_no_text(tmp_path):
    """eSpeak NG's user guide (espeak-ng's docs/guide.md) opens on its contents: links to its own
    sections, labels ("Command line usage") over links to other documents. It was the guide's
    first skill. A list of links alone or labels over them, at least half into the page, is the
    page's contents; links to other pages alone, or an item that says more, stay text."""
    transcript = read_written(tmp_path, "guide.md", (
        "# eSpeak NG user guide\n\n- [Installation](#installation)\n  - [Linux](#linux)\n"
        "- Command line usage\n  - [espeak-ng Command Line](../src/espeak-ng.1.ronn)\n"
        "- [Error solutions](#error-solutions)\n- [Full list of documents](index.md)\n\n"
        "## Installation\n\n### Linux\n\nUse the package manager of your distribution.\n\n"
        "## Error solutions\n\nRead on:\n\n- [Integration guide](integration.md)\n- [Voices](voices.md)\n\nThen:\n\n"
        "- [Linux](#linux) first, then build the library from source as the next step explains\n"
        "  - [Voices](voices.md)\n"))
    assert [s.text for s in transcript.segments] == [
        "Use the package manager of your distribution.", "Read on:", "- Integration guide\n- Voices", "Then:",
        "- Linux first, then build the library from source as the next step explains\n  - Voices"]


def test_a_number_linking_to_the_block_beside_it_is_no_text(tmp_path):
    """SiSU's books (live-manual-epub's Live Systems Manual) number every paragraph and heading in
    the margin, ``<label class="ocn"><a href="#o5">5</a></label><p id="o5">``: the numbers were
    read as text, a part's page summed up as "3". A number linking to the block it stands beside
    or in is that block's permalink; a number linking elsewhere ("see step 2") stays."""
    page = tmp_path / "about.xhtml"
    page.write_text("""<html><head><title>about</title></head><body><div class="content">
<div class="substance"><label class="ocn"><a href="#o4" class="lnkocn">4</a></label>
<h1 id="o4">1. About this manual</h1></div>
<div class="substance"><label class="ocn"><a href="#o5" class="lnkocn">5</a></label>
<p id="o5">This manual serves as a single access point to the documentation.</p></div>
<div class="substance"><p id="o6">Read it in order, as in <a href="#o9">9</a> below.</p></div>
</div></body></html>""")
    transcript = read_source(page)
    assert [s.text for s in transcript.segments] == [
        "This manual serves as a single access point to the documentation.", "Read it in order, as in 9 below."]
    assert [title for _, _, title in transcript.headings] == ["1. About this manual"]


def test_a_class_opening_with_an_admonitions_name_is_no_admonition(tmp_path):
    """Rust's compiler error index (rust-doc, error-index.html) sets each error code's section in a
    ``div.error-described``: read as an "error" admonition, its 484 headings ("E0004") were labels
    of the page's paragraphs, one flat section of 990 skills. A box of class ``alert-warning``
    still is one."""
    page = tmp_path / "error-index.html"
    page.write_text('<html><head><title>Rust Compiler Error Index</title></head><body><h1>Rust Compiler Error '
                    'Index</h1><div class="error-described"><h2 id="E0004" class="section-header"><a href="#E0004">'
                    'E0004</a></h2><p>The compiler cannot guarantee a matching pattern.</p></div>'
                    '<div class="error-described"><h2 id="E0005" class="section-header"><a href="#E0005">E0005</a>'
                    '</h2><p>Patterns used to bind names must be irrefutable.</p></div>'
                    '<div class="alert alert-warning"><h4>Heads up</h4><p>Errors change between releases.</p></div>'
                    '</body></html>', encoding="utf-8")
    transcript = read_source(page)
    assert [t for _, _, t in transcript.headings] == ["Rust Compiler Error Index", "E0004", "E0005"]
    assert [s.text for s in transcript.segments] == [
        "The compiler cannot guarantee a matching pattern.", "Patterns used to bind names must be irrefutable.",
        "Heads up: Errors change between releases."]


def test_the_wrapper_around_the_main_content_is_no_furniture_for_the_title(tmp_path):
    """The Read the Docs theme (python-cryptography-doc's installation.html) wraps a page's content,
    its h1 with it, in ``section.wy-nav-content-wrap``: "nav" made the h1 page furniture, and the
    tutorial was titled by the whole ``<title>``, "Installation — Cryptography 38.0.4 documentation"."""
    page = tmp_path / "installation.html"
    page.write_text('<html><head><title>Installation &mdash; Cryptography 38.0.4 documentation</title></head><body>'
                    '<nav class="wy-nav-side"><ul><li><a href="fernet.html">Fernet</a></li></ul></nav>'
                    '<section class="wy-nav-content-wrap"><nav class="wy-nav-top"><a href="index.html">Cryptography'
                    '</a></nav><div class="wy-nav-content"><div role="main" class="document"><section id="installation">'
                    '<h1>Installation</h1><p>You can install cryptography with pip.</p></section></div></div></section>'
                    '</body></html>', encoding="utf-8")
    transcript = read_source(page)
    assert transcript.title == "Installation"
    assert [s.text for s in transcript.segments] == ["You can install cryptography with pip."]


def test_a_heading_naming_the_pages_kind_titles_it(tmp_path):
    """javadoc (libcommons-lang3-java-doc) titles a class's page "BitField (Apache Commons Lang 3.12.0
    API)" and heads it "Class BitField"; rustdoc (rust-doc) "std::collections - Rust" and "Module
    std::collections": the tutorials had been titled by the whole ``<title>``, the API's name with it."""
    assert read_written(tmp_path, "BitField.html", (
        '<html><head><title>BitField (Apache Commons Lang 3.12.0 API)</title></head><body><main>'
        '<div class="header"><h1 title="Class BitField" class="title">Class BitField</h1></div>'
        '<p>Supports operations on bit-mapped fields.</p></main></body></html>')).title == "Class BitField"
    assert read_written(tmp_path, "index.html", (
        '<html><head><title>std::collections - Rust</title></head><body><main><h1 class="fqn">'
        '<span class="in-band">Module <a href="../index.html">std</a>::<wbr><a class="mod" href="#">'
        'collections</a></span></h1><p>Collection types.</p></main></body></html>')).title == "Module std::collections"


def test_a_run_link_under_an_example_and_a_link_set_as_a_button_are_no_text(tmp_path):
    """rustdoc (rust-doc's error-index.html, std's pages) ends each example on a link to the
    playground, "Run", in the ``div`` holding its ``pre``: 1,040 blocks of the index said "Run". pandas'
    tutorials (python-pandas-doc, 03_subset_data.html) end a data set's card on ``a.btn`` "To raw data":
    a button, as ``<button>`` is, not a step. A "run" in a sentence stays, and so does haproxy's keyword
    "source" (alone in its ``b``, it had gone as a page control)."""
    page = tmp_path / "error-index.html"
    page.write_text('<html><head><title>Errors</title></head><body><h1>Errors</h1><p>Erroneous code example:</p>'
                    '<div class="example-wrap"><pre class="rust">let x = 1;</pre><a class="test-arrow" target="_blank" '
                    'href="https://play.rust-lang.org/?code=let">Run</a></div><div class="card-body"><p>The data '
                    'set has twelve columns.</p><a href="titanic.csv" class="btn btn-dark btn-sm">To raw data</a>'
                    '</div><p>Then <a href="run.html">run</a> it.</p><div class="keyword"><b><a href="#4.2-source">'
                    'source</a></b> &lt;addr&gt;[:&lt;port&gt;]</div></body></html>', encoding="utf-8")
    assert [s.text for s in read_source(page).segments] == [
        "Erroneous code example:", "let x = 1;", "The data set has twelve columns.", "Then run it.",
        "source <addr>[:<port>]"]


def test_a_tooltip_is_no_text(tmp_path):
    """rustdoc (rust-doc's error-index.html) sets a tooltip, ``div.tooltip`` "ⓘ", over each example
    that fails to compile: 536 steps of the index said only "ⓘ"."""
    page = tmp_path / "error-index.html"
    page.write_text('<html><head><title>Errors</title></head><body><h1>Errors</h1><p>Erroneous code example:</p>'
                    '<div class="information"><div class="tooltip compile_fail">ⓘ</div></div><div class="example-wrap">'
                    '<pre class="rust compile_fail">let x: i32 = "a";</pre></div></body></html>', encoding="utf-8")
    assert [s.text for s in read_source(page).segments] == ["Erroneous code example:", 'let x: i32 = "a";']


def test_a_banner_linking_to_the_page_on_another_site_is_no_text(tmp_path):
    """celery's pages (python-celery-doc, first-steps-with-celery.html) open, above their title, on
    ``div.deck`` "This document describes the current stable version of Celery (5.2). For development
    docs, go here.", linking to the same page of the development docs: every page's first skill and
    its summary. A link to the page elsewhere below the title stays."""
    page = tmp_path / "first-steps-with-celery.html"
    page.write_text('<html><head><title>First Steps with Celery</title></head><body><div class="body" role="main">'
                    '<div class="deck"><p>This document describes the current stable version of Celery (5.2). For '
                    'development docs, <a href="http://docs.celeryproject.org/en/master/getting-started/first-steps-'
                    'with-celery.html">go here</a>.</p></div><section id="first-steps"><h1>First Steps with Celery</h1>'
                    '<p>Celery is a task queue with batteries included.</p><p>This page is also <a href="https://'
                    'example.org/first-steps-with-celery.html">online</a>.</p></section></div></body></html>',
                    encoding="utf-8")
    assert [s.text for s in read_source(page).segments] == [
        "Celery is a task queue with batteries included.", "This page is also online."]


def test_code_laid_out_as_a_table_a_line_a_row_is_one_code_block(tmp_path):
    """Racket's Scribble (racket-doc, guide/Lists__Iteration__and_Recursion.html) sets code as a
    ``blockquote.SCodeFlow`` holding a table of one-cell rows, a definition's lines a table nested in
    its first row, its indent no-break spaces, the REPL's lines below it. It had read as a table whose
    first row was the definition squashed into one line, followed by its lines again, unindented."""
    sp = "<span class='hspace'>&nbsp;&nbsp;</span>"
    t = read_written(tmp_path, "lists.html", (
        "<html><body><h1>Lists</h1><p>Define it:</p><blockquote class='SCodeFlow'><table><tr><td>"
        "<table class='RktBlk'><tr><td>(define (my-length lst)</td></tr>"
        f"<tr><td>{sp}(cond</td></tr><tr><td>{sp}&nbsp;[(empty? lst) 0]))</td></tr></table></td></tr>"
        "<tr><td>&gt; (my-length empty)</td></tr><tr><td><p>0</p></td></tr></table></blockquote>"
        "<table><tr><td>key</td></tr><tr><td>value</td></tr></table></body></html>"))
    assert [(s.kind, s.text) for s in t.segments] == [
        ("paragraph", "Define it:"),
        ("code", "(define (my-length lst)\n  (cond\n   [(empty? lst) 0]))\n> (my-length empty)\n0"),
        ("table", "key\nvalue")]


def test_a_heading_wrapped_in_a_link_is_a_heading(tmp_path):
    """Haddock (ghc-doc, base's Control-Concurrent-MVar.html) writes each section's title inside its
    anchor, ``<a id="g:1"><h1>MVars</h1></a>``: an inline element holding a block. The title had read
    as a paragraph "MVars", and the module's functions fell into the section before it."""
    t = read_written(tmp_path, "mvar.html", (
        "<html><body><h1>Control.Concurrent.MVar</h1><h2>Example</h2><p>Consider a skip channel.</p>"
        "<div id='interface'><a id='g:1'><h2><code>MVar</code>s</h2></a>"
        "<p>An MVar is a synchronising variable.</p></div></body></html>"))
    assert [title for _, _, title in t.headings] == ["Control.Concurrent.MVar", "Example", "MVars"]
    assert [s.text for s in t.segments] == ["Consider a skip channel.", "An MVar is a synchronising variable."]


def test_an_anchor_without_href_is_no_link_when_judging_navigation(tmp_path):
    """Haddock (ghc-doc, pretty's Text-PrettyPrint.html) names each declaration with an anchor that
    links nowhere (``<a id="v:char" class="def">char</a>``) beside its linked types: a signature
    "char :: Char -> Doc" counted as mostly links and was dropped as navigation, so the page lost
    every signature whose types were all linked. An ``<a>`` without ``href`` is a place, no link."""
    t = read_written(tmp_path, "pp.html", (
        "<html><body><h1>Text.PrettyPrint</h1><div class='top'><p class='src'><a id='v:char' class='def'>char</a>"
        " :: <a href='Data-Char.html#t:Char'>Char</a> -&gt; <a href='#t:Doc'>Doc</a></p>"
        "<div class='doc'><p>A document of height and width 1, containing a literal character.</p></div></div>"
        "<p><a href='a.html'>Previous</a> <a href='b.html'>Next</a></p></body></html>"))
    assert [s.text for s in t.segments] == [
        "char :: Char -> Doc", "A document of height and width 1, containing a literal character."]


def test_a_link_to_a_place_inside_the_block_is_no_navigation(tmp_path):
    """Racket's Scribble (racket-doc, reference/Delayed_Evaluation.html) links a definition's name to
    its own anchor in the definition's box ("procedure (promise? v) → boolean?  v : any/c"): with its
    types linked too, the box counted as mostly links and was dropped as navigation, so the reference
    lost its procedures' signatures. A link to a place inside the block itself is no navigation."""
    t = read_written(tmp_path, "promise.html", (
        "<html><body><h1>Delayed Evaluation</h1><p>A promise encapsulates an expression to be evaluated.</p>"
        "<blockquote class='SVInsetFlow'><table class='boxed RBoxed'><tr><td><blockquote class='SubFlow'>"
        "<div class='RBackgroundLabel'><p>procedure</p></div><p class='RForeground'>(<a name='(def._promise~3f)'></a>"
        "<a href='#%28def._promise~3f%29'>promise?</a>&nbsp;v) &rarr; <a href='booleans.html#b'>boolean?</a></p>"
        "</blockquote></td></tr><tr><td>&nbsp;v : <a href='contracts.html#any'>any/c</a></td></tr></table></blockquote>"
        "<p>Returns #t if v is a promise, #f otherwise.</p>"
        "<div><a href='a.html'>Previous chapter</a> <a href='#top'>top</a></div></body></html>"))
    assert [s.text for s in t.segments] == [
        "A promise encapsulates an expression to be evaluated.", "procedure (promise? v) → boolean?\nv : any/c",
        "Returns #t if v is a promise, #f otherwise."]


def test_a_table_cells_blocks_keep_their_words_apart(tmp_path):
    """Haddock (ghc-doc, pretty's Text-PrettyPrint.html) sets a record's fields in a table cell as
    blocks, a caption "Fields" over a list of a field's signature beside its description: the cell
    read "Fieldsmode :: ModeThe rendering mode.lineLength :: Int…", words of one block glued to the
    next's. A cell's blocks are read apart."""
    t = read_written(tmp_path, "style.html", (
        "<html><body><h1>Text.PrettyPrint</h1><table><tr><td class='src'>Style</td></tr><tr><td>"
        "<div class='subs fields'><p class='caption'>Fields</p><ul><li><dfn class='src'>mode :: Mode</dfn>"
        "<div class='doc'><p>The rendering mode.</p></div></li><li><dfn class='src'>lineLength :: Int</dfn>"
        "<div class='doc'><p>Maximum length of a line, in characters.</p></div></li></ul></div></td></tr></table>"
        "</body></html>"))
    assert [s.text for s in t.segments] == [
        "Style\nFields mode :: Mode The rendering mode. lineLength :: Int Maximum length of a line, in characters."]


def test_html_text_bare_among_the_heads_elements_is_no_text(tmp_path):
    """Node.js's API docs (nodejs-doc, api/modules.html) leave a template's placeholder unfilled in
    every page's head, "__JS_FLAVORED_DYNAMIC_CSS__" after the stylesheets: the parser moved it into
    the body, where it was each page's first paragraph. Text bare in the head is no text; the head's
    title and script keep theirs, and a page whose body starts unmarked in its head keeps its words."""
    t = read_written(tmp_path, "modules.html", (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>Modules | Node.js</title>\n"
        "<link rel='stylesheet' href='style.css'><script>var a = '<b>';</script>\n  __JS_FLAVORED_DYNAMIC_CSS__\n"
        "</head><body><h1>Modules</h1><p>Each file is treated as a separate module.</p></body></html>"))
    assert t.title == "Modules"
    assert [s.text for s in t.segments] == ["Each file is treated as a separate module."]
    t = read_written(tmp_path, "unmarked.html", (
        "<html><head><title>Tea</title><p>Warm the pot first.</p></head><body><p>Then brew.</p></body></html>"))
    assert [s.text for s in t.segments] == ["Warm the pot first.", "Then brew."]


def test_html_a_table_with_heading_rows_reads_its_rows_of_words_as_tables(tmp_path):
    """Doxygen's member summaries (libsdl2-doc, SDL_audio.h's page) are tables whose rows hold a
    heading ("Macros") or a declaration, its type in one cell and its linked name in the next: read
    cell by cell, "#define" and "struct" stood alone as paragraphs and a name with two links
    ("SDL_AUDIO_BITSIZE(x) (x & SDL_AUDIO_MASK_BITSIZE)") went as navigation. The runs of rows
    between the headings are tables; a run of links alone is still no text."""
    t = read_written(tmp_path, "audio.html", (
        "<html><body><h1>SDL_audio.h File Reference</h1><table class='memberdecls'>"
        "<tr class='heading'><td colspan='2'><h2 class='groupheader'>Macros</h2></td></tr>"
        "<tr><td colspan='2'><div class='groupHeader'>Audio flags</div></td></tr>"
        "<tr><td class='memItemLeft'>#define&#160;</td><td class='memItemRight'><a class='el' href='#a1'>"
        "SDL_AUDIO_BITSIZE</a>(x)&#160;&#160;(x &amp; <a class='el' href='#a2'>SDL_AUDIO_MASK_BITSIZE</a>)</td></tr>"
        "<tr><td class='memSeparator' colspan='2'>&#160;</td></tr>"
        "<tr><td class='memItemLeft'>struct&#160;</td><td class='memItemRight'><a class='el' href='s.html'>"
        "SDL_AudioCVT</a></td></tr><tr><td class='mdescLeft'>&#160;</td><td class='mdescRight'>A structure to hold "
        "audio conversion filters.</td></tr>"
        "<tr class='heading'><td colspan='2'><h2 class='groupheader'>Functions</h2></td></tr>"
        "<tr><td><a href='a.html'>SDL_LockAudio</a></td><td><a href='b.html'>SDL_UnlockAudio</a></td></tr>"
        "</table></body></html>"))
    assert [t for _, _, t in t.headings] == ["SDL_audio.h File Reference", "Macros"]  # nothing under the last
    assert [(s.kind, s.text) for s in t.segments] == [
        ("paragraph", "Audio flags"),
        ("table", "#define | SDL_AUDIO_BITSIZE(x) (x & SDL_AUDIO_MASK_BITSIZE)\nstruct | SDL_AudioCVT\n"
                  " | A structure to hold audio conversion filters.")]


def test_html_front_matter_titles_a_page_without_a_title_and_is_no_text(tmp_path):
    """Go's documentation (golang-1.19-doc, html/go_mem.html) is the site's source pages: no
    ``<title>``, the title in a JSON comment the page opens with ("Title": "The Go Memory Model"),
    so the page was titled by its first heading, "Introduction". Jekyll's and Hugo's HTML sources
    open with YAML between ``---`` lines, which had been read as the page's first paragraph."""
    t = read_written(tmp_path, "go_mem.html", (
        '<!--{\n\t"Title": "The Go Memory Model",\n\t"Subtitle": "Version of June 6, 2022"\n}-->\n'
        '<h2 id="introduction">Introduction</h2>\n<p>The Go memory model specifies the conditions.</p>'))
    assert t.title == "The Go Memory Model"
    assert [s.text for s in t.segments] == ["The Go memory model specifies the conditions."]
    t = read_written(tmp_path, "install.html", (
        "---\nlayout: page\ntitle: \"Installing the tool\"\n---\n<h2>From a package</h2><p>Run apt install tool.</p>"))
    assert t.title == "Installing the tool"
    assert [s.text for s in t.segments] == ["Run apt install tool."]
    t = read_written(tmp_path, "own.html", (
        '<!--{"Title": "Old name"}--><html><head><title>Page title</title></head><body><h1>Page title</h1>'
        "<p>Text of the page.</p></body></html>"))
    assert t.title == "Page title"


def test_html_a_dropped_contents_lists_own_label_is_no_text(tmp_path):
    """LaTeX2HTML (chktex's manual, ChkTeX/node5.html) ends a page over subsections with their
    links under a label, ``<A ID="CHILD_LINKS"><STRONG>Subsections</STRONG></A>``: the list went as
    navigation, its label stayed, a paragraph "Subsections" closing the page's last passage. A
    label over a contents list goes with it, inline or as a paragraph of its own; a label over a
    list that is text stays."""
    t = read_written(tmp_path, "node5.html", (
        "<html><body><h1>Installation</h1><p>Type make and then make install.</p><br><hr>"
        "<A ID='CHILD_LINKS'><STRONG>Subsections</STRONG></A><UL CLASS='ChildLinks'><LI><UL><LI>"
        "<A HREF='node6.html'>Note:</A></UL></UL><p>Contents:</p><ul><li><a href='a.html'>Building</a></li>"
        "<li><a href='b.html'>Testing</a></li></ul><p>Options:</p><ul><li>--prefix: where to install</li>"
        "<li>--enable-pcre: use PCRE</li></ul></body></html>"))
    assert [s.text for s in t.segments] == [
        "Type make and then make install.", "Options:", "- --prefix: where to install\n- --enable-pcre: use PCRE"]


def test_html_a_terms_classifier_is_set_apart_from_it(tmp_path):
    """docutils writes a definition's classifier (reStructuredText's ``term : classifier``) as a
    span in the term, its colon left to the stylesheet: pygments' quickstart (python-pygments-doc,
    docs/quickstart.html) read "encodingfor lexers and formatters". The older writer's own
    delimiter is kept as it is."""
    t = read_written(tmp_path, "quickstart.html", (
        "<html><body><h1>Quickstart</h1><p>Important options include:</p><dl class='simple'>"
        "<dt><cite>encoding</cite><span class='classifier'>for lexers and formatters</span></dt>"
        "<dd><p>The encoding used to convert byte strings.</p></dd>"
        "<dt>style <span class='classifier-delimiter'>:</span> <span class='classifier'>for formatters</span></dt>"
        "<dd><p>The name of the style.</p></dd></dl></body></html>"))
    assert [s.text for s in t.segments][1].splitlines() == [
        "encoding : for lexers and formatters", "  The encoding used to convert byte strings.",
        "style : for formatters", "  The name of the style."]


def test_html_an_ordered_list_read_as_its_blocks_keeps_its_numbers(tmp_path):
    """A numbered list whose items hold code is read as the items' blocks, and the numbers had gone:
    rsyslog's TLS tutorial (rsyslog-doc, tutorials/tls_cert_ca.html) read "generate the private
    key:" and "now create the (self-signed) CA certificate itself:", each over its command, as
    sentences of no order. Each item's first words keep its number (``start`` and ``value`` too);
    an item opening with its code is left as it is."""
    t = read_written(tmp_path, "tls_cert_ca.html", (
        "<html><body><h1>Setting up the CA</h1><ol class='arabic' start='3'><li><p>generate the private key:</p>"
        "<div class='highlight'><pre>certtool --generate-privkey --outfile ca-key.pem</pre></div>"
        "<p>This takes a short while.</p></li><li><p>now create the CA certificate itself:</p>"
        "<pre>certtool --generate-self-signed</pre></li><li value='9'><pre>ls</pre></li>"
        "<li><a href='x.html'>Distribute</a> the certificate.<pre>scp ca.pem host:</pre></li></ol></body></html>"))
    assert [s.text for s in t.segments] == [
        "3. generate the private key:", "certtool --generate-privkey --outfile ca-key.pem", "This takes a short while.",
        "4. now create the CA certificate itself:", "certtool --generate-self-signed", "ls",
        "10. Distribute the certificate.", "scp ca.pem host:"]


def test_html_an_ordered_list_numbered_from_zero_is_so_read_as_one_block_or_as_its_blocks(tmp_path):
    """``start="0"`` numbers a list from 0 (HTML allows it): a list read as its items' blocks had
    started at 1 where the same list read as one block started at 0. A number past 2**30 is capped."""
    def numbered(items):
        return [s.text for s in read_written(tmp_path, "steps.html", (
            f"<html><body><h1>Steps</h1><p>Take these steps now.</p><ol start='0'>{items}</ol>"
            "<ol start='99999999999999999999'><li>last</li></ol></body></html>")).segments]
    assert numbered("<li>alpha</li><li>beta</li>") == [
        "Take these steps now.", "0. alpha\n1. beta", "1073741824. last"]
    assert numbered("<li><p>alpha</p><pre>x = 1</pre></li><li>beta</li>") == [  # a step's lone term heads its code
        "Take these steps now.", "0. alpha:", "x = 1", "1. beta", "1073741824. last"]


def test_html_a_page_ending_on_an_address_ends_on_its_footer(tmp_path):
    """Halibut (putty-doc, Chapter2.html) ends every page of PuTTY's manual with a rule, a feedback
    note and an ``<address>`` naming the release ("[Debian PuTTY release 0.78-2+deb12u2]"): both
    had closed each chapter's last passage. What stands after the last rule of a page ending on
    an address is its footer; a longer run, or one holding a heading, loses its address only."""
    t = read_written(tmp_path, "Chapter2.html", (
        "<html><body><h1>Getting started</h1><p>Log out by typing the server's own logout command.</p>"
        "<hr><p>If you want to provide feedback on this manual, see the <a href='f.html'>Feedback page</a>.</p>"
        "<address>\n[Debian PuTTY release 0.78-2+deb12u2]</address></body></html>"))
    assert [s.text for s in t.segments] == ["Log out by typing the server's own logout command."]
    t = read_written(tmp_path, "srfi.html", (
        "<html><body><h1>SRFI 17</h1><p>Generalized set!.</p><hr><h2>Copyright</h2><p>Copyright (C) Per Bothner.</p>"
        "<hr><address>Editor: Mike Sperber</address></body></html>"))
    assert [s.text for s in t.segments] == ["Generalized set!.", "Copyright (C) Per Bothner."]
    t = read_written(tmp_path, "short.html", (
        "<html><body><hr><h1>Notes</h1><p>Keep the key safe.</p><address>The NTS team</address></body></html>"))
    assert [s.text for s in t.segments] == ["Keep the key safe."]


def test_html_an_items_words_before_its_paragraph_are_its_term(tmp_path):
    """Halibut (putty-doc, Chapter3.html) writes a list of terms each over its meaning as an item's
    bare words before a paragraph ("<li>IGNORE message<p>Should have no effect.</p></li>"): the
    special commands read "IGNORE message Should have no effect.", term and meaning run together.
    Those words are the item's term, as a lone first paragraph already is; a sentence stays."""
    t = read_written(tmp_path, "Chapter3.html", (
        "<html><body><h1>Using PuTTY</h1><p>In an SSH connection, the following special commands are available:</p>"
        "<ul><li><a name='i43'></a>IGNORE message\n<p>Should have no effect.</p></li>"
        "<li><a name='i46'></a>Repeat key exchange\n<p>Only available in SSH-2.</p></li><li>Break</li>"
        "<li>Type the command, then press Return.<p>The server answers.</p></li></ul></body></html>"))
    assert t.segments[1].text.splitlines() == [
        "- IGNORE message: Should have no effect.", "- Repeat key exchange: Only available in SSH-2.", "- Break",
        "- Type the command, then press Return. The server answers."]


def test_html_a_bullet_every_item_writes_is_the_lists_own(tmp_path):
    """makeinfo writes texinfo's ``@itemize @minus`` as a ``ul.no-bullet`` whose items write their
    "- " themselves (autoconf-doc, autoconf.html): the list read "- - one or more Makefile files".
    A mark every item writes is the list's bullet; an item's own leading dash is kept when the
    others write none."""
    t = read_written(tmp_path, "autoconf.html", (
        "<html><body><h1>Making configure Scripts</h1><p>The files that configure creates are:</p>"
        "<ul class='no-bullet'><li>- one or more <samp>Makefile</samp> files;\n</li><li>- optionally, a C header file;"
        "</li></ul><p>Options:</p><ul><li>- as a file name reads standard input</li><li>--help prints usage</li></ul>"
        "</body></html>"))
    assert [s.text for s in t.segments] == [
        "The files that configure creates are:", "- one or more Makefile files;\n- optionally, a C header file;",
        "Options:", "- - as a file name reads standard input\n- --help prints usage"]


def test_html_halibuts_navigation_bar_and_index_lines_are_no_text(tmp_path):
    """Halibut (putty-doc) heads each page with "Previous | Contents | Index | Next", the page's
    own entry or an absent one as plain words ("Previous" on index.html), which stayed as text; and
    its IndexPage.html sets the back-of-book index as lines "term: Section 3.11.3.17" parted by
    ``<br>``, which became 119 skills. A bar of leading-on words beside links, and a run of lines
    nearly all a term over the links to it, are no text; lines that say more after their colon stay."""
    t = read_written(tmp_path, "index.html", (
        "<html><body><p>Previous | Contents | <a href='IndexPage.html'>Index</a> | <a href='Chapter1.html'>Next</a></p>"
        "<h1>PuTTY User Manual</h1><p>PuTTY is a free Telnet and SSH client.</p><p>"
        "<code>-4</code>: <a href='c3.html#i192'>Section 3.11.3.17</a><br>"
        "accented characters: <a href='c3.html#i86'>Section 3.3</a>, <a href='c4.html#i77'>Section 4.4.8</a><br>"
        "accessibility: <a href='c4.html#i148'>Section 4.9.4</a><br>"
        "account name: <a href='c2.html#i20'>Section 2.3</a><br>"
        "ACL, process (Windows): <a href='c3.html#i224'>Section 3.11.3.28</a><br></p><p>"
        "Host: <a href='h.html'>the server</a> you connect to<br>Port: the port, 22 for <a href='s.html'>SSH</a><br>"
        "User: <a href='u.html'>your login</a> name<br>Key: <a href='k.html'>a key file</a><br>"
        "Log: <a href='l.html'>the log</a> of the session</p></body></html>"))
    assert [s.text for s in t.segments] == [
        "PuTTY is a free Telnet and SSH client.",
        "Host: the server you connect to\nPort: the port, 22 for SSH\nUser: your login name\nKey: a key file\n"
        "Log: the log of the session"]


def test_html_the_sites_name_with_its_version_is_no_text(tmp_path):
    """Doxygen's title area says the project's name and number on every page ("SDL 2.0" on
    libsdl2-doc's SDL_audio.h page, titled "SDL: SDL_audio.h File Reference"): the banner stayed,
    "SDL" not taken for the site's name as it is a piece of the page's own title's first word.
    The site's name is a word of the title or none of it, and a block saying it with a version is
    the banner; the page's own words stay."""
    t = read_written(tmp_path, "audio.html", (
        "<html><head><title>SDL: SDL_audio.h File Reference</title></head><body><div id='titlearea'><table><tr>"
        "<td><div id='projectname'>SDL<span id='projectnumber'>&#160;2.0</span></div></td></tr></table></div>"
        "<div class='header'><div class='title'>SDL_audio.h File Reference</div></div>"
        "<p>Access to the raw audio mixing buffer for the SDL library.</p><p>SDL 2.0 added audio capture.</p>"
        "</body></html>"))
    assert [s.text for s in t.segments] == [
        "Access to the raw audio mixing buffer for the SDL library.", "SDL 2.0 added audio capture."]


def test_html_a_toggle_over_hidden_content_and_a_go_to_source_link_are_no_text(tmp_path):
    """Doxygen opens each file page of libsdl2-doc (SDL_audio.h's) with "+ Include dependency graph
    for SDL_audio.h:", a block run by a click that shows a graph the page hides, and "Go to the
    source code of this file.", a link alone: both stood as paragraphs. A toggle whose next block
    is hidden is no text, nor a link alone that goes to the source; a toggle over shown text stays."""
    t = read_written(tmp_path, "audio.html", (
        "<html><body><h1>SDL_audio.h File Reference</h1><div class='textblock'>"
        "<div id='dynsection-0' onclick='return toggleVisibility(this)' class='dynheader closed'>"
        "<img src='closed.png' alt='+'/> Include dependency graph for SDL_audio.h:</div>"
        "<div id='dynsection-0-summary' class='dynsummary' style='display:block;'></div>"
        "<div id='dynsection-0-content' class='dyncontent' style='display:none;'><div class='center'>"
        "<img src='incl.png' alt=''/></div></div></div>"
        "<p><a href='audio_8h_source.html'>Go to the source code of this file.</a></p>"
        "<p>Access to the raw audio mixing buffer.</p>"
        "<div onclick='toggle(this)'>Show the answer</div><div>Use SDL_OpenAudioDevice.</div></body></html>"))
    assert [s.text for s in t.segments] == [
        "Access to the raw audio mixing buffer.", "Show the answer", "Use SDL_OpenAudioDevice."]


def test_html_a_more_link_after_a_summary_is_no_text(tmp_path):
    """Doxygen ends each brief description in its member summaries (libsdl2-doc, SDL_audio.h's
    page) with a link "More..." to the details below: "A structure to hold a set of audio
    conversion filters and buffers. More..." A link saying only "More..." ("Read more …") is a
    control, and the brackets it leaves empty go; "more" as a word of a sentence stays."""
    t = read_written(tmp_path, "audio.html", (
        "<html><body><h1>SDL_audio.h File Reference</h1><p>A structure to hold audio conversion filters. "
        "<a href='s.html#details'>More...</a></p><p>See the <a href='m.html'>more</a> detailed guide.</p>"
        "<p>Corrupt inputs cause sensible errors. (<a href='security.html'>More...</a>)</p></body></html>"))
    assert [s.text for s in t.segments] == [  # sqlite's "(More...)" leaves no "()"
        "A structure to hold audio conversion filters.", "See the more detailed guide.",
        "Corrupt inputs cause sensible errors."]


def test_html_a_texinfo_node_without_a_section_stands_under_the_last_section(tmp_path):
    """makeinfo sets a node that has no sectioning command in ``h4.node-heading`` wherever it is:
    bash's manual (bash-doc, bashref.html) has "Creating Internationalized Scripts" inside
    "3.1.2.5 Locale-Specific Translation" (a subsubsection, in h4 too), and it had become a sibling
    of "3.1.2 Quoting" above it. Such a node stands one level below the last section."""
    t = read_written(tmp_path, "bashref.html", (
        "<html><body><h2 class='chapter'>3 Basic Shell Features</h2><p>Bash is an acronym.</p>"
        "<h4 class='subsection'>3.1.2 Quoting</h4><p>Quoting removes special meaning.</p>"
        "<h4 class='subsubsection'>3.1.2.5 Locale-Specific Translation</h4><p>Prefix a string with $.</p>"
        "<h4 class='node-heading'>Creating Internationalized Scripts</h4><p>Run bash --dump-po-strings.</p>"
        "<h4 class='subsection'>3.1.3 Comments</h4><p>A word beginning with # is a comment.</p></body></html>"))
    assert [(level, title) for _, level, title in t.headings] == [
        (2, "3 Basic Shell Features"), (4, "3.1.2 Quoting"), (5, "3.1.2.5 Locale-Specific Translation"),
        (6, "Creating Internationalized Scripts"), (4, "3.1.3 Comments")]
