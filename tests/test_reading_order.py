"""A folder of documentation pages is read in the order its pages say (next/up links,
toctrees), not by file name: generated manuals name their pages by topic, so name order
scatters a tutorial's steps. Each generator's way of saying it, and the edges: links out of
the folder, cycles, unreadable pages, a folder read end to end into the TOC."""

from pathlib import Path

from tutorialbook.acquire.reading_order import documents, path_documents, reading_order
from tutorialbook.acquire.roots import SourcePolicy
from tutorialbook.acquire.sources import expand
from tutorialbook.library import Library


def page(title: str, next_: str | None = None, up: str | None = None, in_head: bool = True,
         body: str = "") -> bytes:
    head = "".join(f'<link rel="{rel}" href="{href}" title="x">' for rel, href in (("next", next_), ("up", up))
                   if href and in_head)
    nav = "".join(f'<a rel="{rel}" href="{href}">{rel}</a>' for rel, href in (("next", next_), ("up", up))
                  if href and not in_head)
    return (f"<html><head><title>{title}</title>{head}</head><body><h1>{title}</h1>"
            f"{body or f'<p>How to {title.lower()} in a few careful steps, with an example.</p>'}"
            f"<nav>{nav}</nav></body></html>").encode()


def order(pages: dict[str, bytes | None]) -> list[str]:
    return reading_order(sorted(pages), lambda name: pages[name])


def test_a_sphinx_chain_of_next_links_is_read_from_its_start_and_stray_pages_after():
    pages = {"index.html": page("Tutorial", "setup.html"), "setup.html": page("Setup", "views.html#top"),
             "views.html": page("Views", "../api/index.html"), "genindex.html": page("Index"),
             "search.html": page("Search")}
    assert order(pages) == ["index.html", "setup.html", "views.html", "genindex.html", "search.html"]


def test_mdbook_next_buttons_in_the_body_count_like_head_links():
    pages = {"ch01.html": page("Start", "ch03.html", in_head=False), "ch03.html": page("Middle", "ch02.html",
                                                                                      in_head=False),
             "ch02.html": page("End", in_head=False)}
    assert order(pages) == ["ch01.html", "ch03.html", "ch02.html"]


def test_texinfo_sections_hang_from_their_chapter_by_up_and_follow_it():
    # texinfo's Next is the next node at the same level: chapters chain, each chapter's sections chain
    pages = {"index.html": page("Top", "Intro.html"), "Intro.html": page("Intro", "Usage.html", "index.html"),
             "Usage.html": page("Usage", None, "index.html"),
             "Options.html": page("Options", "Files.html", "Usage.html"),
             "Files.html": page("Files", None, "Usage.html"),
             "About.html": page("About", None, "Intro.html")}
    assert order(pages) == ["index.html", "Intro.html", "About.html", "Usage.html", "Options.html", "Files.html"]


def test_pages_whose_names_differ_in_case_only_are_two_pages_and_a_link_finds_its_own():
    # makeinfo's split manual: index.html is its front page, Index.html its index (the last node)
    pages = {"index.html": page("Top", "Overview.html"), "Overview.html": page("Overview", "Index.html", "index.html"),
             "Index.html": page("Index", None, "index.html"), "Usage.html": page("Usage", None, "OVERVIEW.HTML")}
    assert order(pages) == ["index.html", "Overview.html", "Usage.html", "Index.html"]
    parents: dict[str, str] = {}
    documents(sorted(pages), lambda name: pages[name], parents)
    assert parents == {"Usage.html": "Overview.html"}, "a link spelt in no page's case finds the page in any case"


def test_docbook_next_in_depth_order_with_up_links_keeps_that_order():
    pages = {"index.html": page("Guide", "ch1.html"), "ch1.html": page("One", "s1.html", "index.html"),
             "s1.html": page("One a", "s2.html", "ch1.html"), "s2.html": page("One b", "ch2.html", "ch1.html"),
             "ch2.html": page("Two", None, "index.html")}
    assert order(pages) == ["index.html", "ch1.html", "s1.html", "s2.html", "ch2.html"]


def test_sphinx_sources_follow_their_toctrees_depth_first():
    pages = {
        "index.rst.txt": b"Guide\n=====\n\n.. toctree::\n   :maxdepth: 2\n\n   start\n   Going further <more>\n"
                         b"   self\n   https://example.org\n   api/*\n   ../other\n\nText.\n",
        "more.rst.txt": b"More\n====\n\n.. toctree::\n\n   deeper\n",
        "deeper.rst.txt": b"Deeper\n======\n\nText.\n",
        "start.rst.txt": b"Start\n=====\n\nText.\n",
        "aside.rst.txt": b"Aside\n=====\n\nAn orphan page.\n"}
    assert order(pages) == ["index.rst.txt", "start.rst.txt", "more.rst.txt", "deeper.rst.txt", "aside.rst.txt"]


def test_myst_fenced_toctrees_are_read_and_other_fences_are_not():
    pages = {"index.md": b"# Guide\n\n```{toctree}\n:maxdepth: 1\nzeta\nalpha\n```\n\n```python\nbeta\n```\n",
             "alpha.md": b"# Alpha\n", "beta.md": b"# Beta\n", "zeta.md": b"# Zeta\n"}
    assert order(pages) == ["index.md", "zeta.md", "alpha.md", "beta.md"]


def test_a_manual_copied_in_part_keeps_its_contents_order_and_stays_one_document():
    """DocBook's Debian Reference, six of its pages: chains of next links break at the missing
    pages; the chapters hanging from the contents page by "up" follow its own links' order
    (they came before the preface), and its pages, linked, are one document."""
    contents = '<p><a href="pr01.html">Preface</a> <a href="ch01.html">1</a> <a href="ch02.html">2</a> ' \
               '<a href="ch03.html">3</a> <a href="apa.html">A</a></p>'
    pages = {"index.html": page("Reference", "pr01.html", body=contents),
             "pr01.html": page("Preface", "ch01.html", "index.html"),
             "ch01.html": page("Tutorials", "ch02.html", "index.html"),
             "ch03.html": page("Initialization", "ch04.html", "index.html"),
             "apa.html": page("Appendix", None, "index.html")}
    assert documents(sorted(pages), lambda n: pages[n]) == [
        ["index.html", "pr01.html", "ch01.html", "ch03.html", "apa.html"]]


def test_pages_that_say_no_order_follow_their_sidebar_and_are_one_document():
    """Erlang's guides: no next link, no toctree; every page shows the same sidebar listing the
    guide's pages in order. Two pages linking nowhere are two documents."""
    sidebar = "".join(f'<a href="{n}">{n}</a> ' for n in ("users_guide.html", "intro.html", "seq_prog.html",
                                                          "conc_prog.html"))
    pages = {n: page(n.split(".")[0], body=f"<div>{sidebar}</div><p>The chapter {n} in some detail.</p>")
             for n in ("conc_prog.html", "intro.html", "seq_prog.html", "users_guide.html")}
    assert documents(sorted(pages), lambda n: pages[n]) == [
        ["users_guide.html", "intro.html", "seq_prog.html", "conc_prog.html"]]
    alone = {"a.html": page("A"), "b.html": page("B"), "c.md": b"# C\n\nSee [a](a.html) for more.\n"}
    assert documents(sorted(alone), lambda n: alone[n]) == [["a.html", "c.md"], ["b.html"]]


def test_markdown_pages_linked_from_their_repository_or_gzipped_are_one_document():
    """yargs' docs as Debian ships them: README.md links "/docs/api.md" and "docs/advanced.md"
    (paths in its repository), and api.md is gzipped. No link was found, each file was a
    document alone, and api.md's chapter joined advanced.md's by its content."""
    pages = {"README.md": b"# Yargs\n\nRead the [API](/docs/api.md) and [advanced topics](docs/advanced.md).\n",
             "advanced.md": b"# Advanced Topics\n\nCommands, then [the API](./api.md#commands).\n",
             "api.md.gz": b"# API reference\n\nSee [Advanced](advanced.md).\n",
             "other.md": b"# Other\n\nNothing links here, it links to [yargs](https://x.org/docs/api.md).\n"}
    assert documents(sorted(pages), lambda n: pages[n]) == [["README.md", "api.md.gz", "advanced.md"], ["other.md"]]


def test_cycles_self_links_unreadable_and_other_files_keep_every_file_once():
    pages = {"a.html": page("A", "b.html"), "b.html": page("B", "a.html"), "c.html": page("C", "c.html"),
             "d.html": None, "e.srt": None, "f.html": b"", "g.html": b"\x00\xff not html <<<"}
    result = order(pages)
    assert sorted(result) == sorted(pages) and len(result) == len(pages)
    assert result.index("a.html") + 1 == result.index("b.html")


def test_links_to_files_not_in_the_folder_change_nothing():
    pages = {"b.html": page("B", "missing.html", "../up.html"), "a.html": page("A", "http://x.org/b.html")}
    assert order(pages) == ["a.html", "b.html"]


def test_two_files_resolving_to_one_name_keep_their_given_order(tmp_path):
    one, two = tmp_path / "x" / "p.html", tmp_path / "y" / "p.html"
    assert path_documents([two, one], lambda p: None) == [[two], [one]]


def test_expand_orders_a_folder_and_reads_no_page_the_policy_refuses(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.html").write_bytes(page("Manual", "zebra.html"))
    (docs / "zebra.html").write_bytes(page("Zebra", "apple.html"))
    (docs / "apple.html").write_bytes(page("Apple"))
    (docs / "notes.txt").write_text("Some notes.\n")
    names = [p.name for p in expand(str(docs), SourcePolicy((str(docs),)))]
    assert names == ["index.html", "zebra.html", "apple.html", "notes.txt"]
    secret = tmp_path / "secret.html"  # a page outside the roots, linked in by a symlink: not read, not listed
    secret.write_bytes(page("Secret", "index.html"))
    (docs / "aardvark.html").symlink_to(secret)
    names = [p.name for p in expand(str(docs), SourcePolicy((str(docs),)))]
    assert names == ["index.html", "zebra.html", "apple.html", "notes.txt"]


def test_a_folder_of_pages_becomes_a_book_in_their_reading_order(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    steps = {"index.html": ("Baking bread", "mixing.html", "Bake a loaf of bread at home from flour and water."),
             "mixing.html": ("Mixing the dough", "shaping.html", "Mix the flour, water and salt until smooth."),
             "shaping.html": ("Shaping the loaf", "baking.html", "Fold the dough into a tight ball on the bench."),
             "baking.html": ("Baking in the oven", None, "Bake the loaf at 230 degrees for forty minutes.")}
    for name, (title, next_, text) in steps.items():
        (docs / name).write_bytes(page(title, next_, body=f"<p>{text}</p>"))
    library = Library(store=str(tmp_path / "store"), allowed_roots=[str(tmp_path)])
    report = library.ingest(str(docs), book="bread", refine_rounds=0)
    assert [Path(f.source).name for f in report.files] == ["index.html", "mixing.html", "shaping.html",
                                                           "baking.html"]
    assert [t.title for t in library.tutorials("bread")] == [
        "Baking bread", "Mixing the dough", "Shaping the loaf", "Baking in the oven"]
    toc = library.toc_markdown("bread")
    places = [toc.index(f"**{title}**") for title, _, _ in steps.values()]
    assert places == sorted(places)  # the chapters stand in the pages' order


def test_a_folders_subfolders_of_pages_are_named_in_the_report_as_not_read(tmp_path):
    """A Sphinx package's html folder holds a few pages and the manual one level down (Scrapy's
    tutorial is intro/tutorial.html): an ingest of the folder reads its own pages only, and says
    which subfolders hold pages it did not read, not those of assets, hidden or linked in."""
    docs = tmp_path / "html"
    docs.mkdir()
    (docs / "index.html").write_bytes(page("Scrapy", body="<p>Scrapy crawls web sites and extracts data.</p>"))
    for folder, name, body in (("intro", "tutorial.html", "<p>Run scrapy crawl quotes to start the spider.</p>"),
                               ("topics", "shell.md.gz", ""), ("_static", "style.css", "body {}"),
                               ("_images", "logo.png", ""), (".git", "notes.md", "# Notes")):
        (docs / folder).mkdir()
        (docs / folder / name).write_text(body)
    (docs / "topics" / "COPYING").write_text("Licence.")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "page.md").write_text("# Elsewhere")
    (docs / "linked").symlink_to(tmp_path / "outside")
    library = Library(store=str(tmp_path / "store"), allowed_roots=[str(tmp_path)])
    report = library.ingest(str(docs), book="scrapy", refine_rounds=0)
    assert [Path(f.source).name for f in report.files] == ["index.html"]
    assert report.warnings == ["subfolders are not read: intro, topics (ingest one on its own to read its pages)"]
    again = library.ingest(str(docs / "intro"), book="scrapy", refine_rounds=0)
    assert again.warnings == [] and len(again.tutorials) == 1  # the subfolder named alone is read


def test_a_folder_reads_the_pages_of_its_manual_in_its_subfolders_in_reading_order(tmp_path, monkeypatch):
    """A Sphinx package's ``html/`` holds its front page and the manual below it (``intro/``,
    ``topics/``), each page's next link leading on, through a copyright page on the way: the
    manual is read in that order, the copyright page passed, and no page only other links reach
    (``_modules/``' highlighted code, a page of another folder linked in by a symlink)."""
    from tutorialbook.acquire import sources

    docs = tmp_path / "html"
    for folder in ("intro", "topics", "_modules", "_static"):
        (docs / folder).mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "secret.html").write_bytes(page("Secret"))
    (docs / "linked").symlink_to(elsewhere)
    body = "<p>How to {} with Scrapy, in a few careful steps and an example.</p>"
    pages = {"index.html": ("Scrapy", "copyright.html"), "copyright.html": ("Copyright", "intro/overview.html"),
             "intro/overview.html": ("Scrapy at a glance", "tutorial.html"),
             "intro/tutorial.html": ("Scrapy Tutorial", "../topics/spiders.html"),
             "topics/spiders.html": ("Spiders", "../linked/secret.html"), "_modules/spider.html": ("Code", None),
             "topics/unlinked.html": ("Unlinked", None)}
    for name, (title, next_) in pages.items():
        extra = '<a href="../_modules/spider.html">[source]</a>' if name == "topics/spiders.html" else ""
        (docs / name).write_bytes(page(title, next_, body=body.format(title.lower()) + extra))
    (docs / "_static" / "style.css").write_text("body {}")
    library = Library(store=str(tmp_path / "store"), allowed_roots=[str(tmp_path)])
    report = library.ingest(str(docs), book="scrapy", refine_rounds=0)
    assert [Path(f.source).relative_to(docs).as_posix() for f in report.files if f.status == "added"] == [
        "index.html", "intro/overview.html", "intro/tutorial.html", "topics/spiders.html"]
    assert [t.title for t in library.tutorials("scrapy")] == ["Scrapy", "Scrapy at a glance", "Scrapy Tutorial",
                                                              "Spiders"]
    assert report.warnings == []  # topics/ was read (not all of it); _modules/ is the builder's own
    # a folder's walk is bounded: past TREE_ENTRIES entries its subfolders are looked at no further
    monkeypatch.setattr(sources, "TREE_ENTRIES", 3)
    assert [p.name for p in expand(str(docs), SourcePolicy((str(tmp_path),)))] == ["index.html"]


def test_a_sphinx_sources_toctree_leads_into_its_subfolders(tmp_path):
    """Sphinx's ``_sources/`` copies each page's source: the front page's toctree names the pages
    below it by their paths (``intro/overview``), the subfolder's own toctree its pages from there."""
    sources_ = tmp_path / "_sources"
    (sources_ / "intro").mkdir(parents=True)
    (sources_ / "index.rst.txt").write_text("Scrapy\n======\n\nCrawl sites.\n\n.. toctree::\n\n   intro/index\n")
    (sources_ / "intro" / "index.rst.txt").write_text("Intro\n=====\n\n.. toctree::\n\n   tutorial\n   /faq\n")
    (sources_ / "intro" / "tutorial.rst.txt").write_text("Tutorial\n========\n\nRun scrapy crawl quotes.\n")
    (sources_ / "faq.rst.txt").write_text("FAQ\n===\n\nAsk away.\n")
    (sources_ / "intro" / "unlisted.rst.txt").write_text("Unlisted\n========\n\nNot in a toctree.\n")
    names = [p.relative_to(sources_).as_posix() for p in expand(str(sources_), SourcePolicy((str(tmp_path),)))]
    assert names == ["index.rst.txt", "intro/index.rst.txt", "intro/tutorial.rst.txt", "faq.rst.txt"]


def _starter_pages(folder: Path, linked: bool) -> None:
    feeding = ("<p>A starter is a culture of wild yeast and bacteria that leavens the bread.</p>"
               "<p>Feed the starter with equal weights of flour and water every day at the same time.</p>"
               "<p>Keep the starter in a warm place so it doubles within six hours of a feeding.</p>")
    folder.mkdir()
    (folder / "a-feeding.html").write_bytes(page("Feeding the starter", "b-notes.html" if linked else None,
                                                 body=feeding))
    # the same passages in other words (two pages of a manual are alike by nature, never verbatim
    # but for the furniture every page repeats, below)
    (folder / "b-notes.html").write_bytes(page("Starter notes", None, body=feeding.replace("every day", "each day")))


def test_pages_of_one_manual_keep_their_own_chapters_and_skills(tmp_path):
    """Two tutorials on one topic merge (tests/test_ingest_text.py); two pages of one manual,
    linked by its next links, are alike by nature and stay as its author set them: chapters side
    by side, each page's skills its own. The same pages unlinked are two tutorials: they merge."""
    library = Library(store=str(tmp_path / "store"), allowed_roots=[str(tmp_path)])
    for linked in (True, False):
        folder = tmp_path / ("manual" if linked else "clippings")
        _starter_pages(folder, linked)
        library.ingest(str(folder), book=folder.name, refine_rounds=0)
        chapters = [c.title for c in library.browse(folder.name).children]
        skills = library.store.rows("skills", f"book = '{folder.name}'")
        if linked:
            assert chapters == ["Feeding the starter", "Starter notes"]
            assert len(skills) == 2 and {s["sources"] for s in skills} == {1}
        else:
            assert chapters == ["Feeding the starter"]
            assert len(skills) == 1 and {s["sources"] for s in skills} == {2}


def test_a_notice_every_page_of_a_manual_repeats_is_one_skill(tmp_path):
    """Each chapter page of the Debian New Maintainers' Guide opens on the same notice ("The
    rewrite of this tutorial document … is available as Guide for Debian Maintainers"): 9
    identical skills, one a chapter. A passage another page of the manual holds word for word is
    that page's skill, its source added; the pages' own passages stay theirs. (Like the Guide's,
    each chapter page has sections: its introduction, above them, is not one passage whole.)"""
    notice = ("<p>The rewrite of this tutorial document with updated contents and more practical examples is "
              "available as the Guide for Debian Maintainers. Please use the new tutorial as the primary one, as this "
              "document is kept only for the readers who still follow its older examples and the historical "
              "record.</p>")
    folder = tmp_path / "guide"
    folder.mkdir()
    bodies = {"a.html": "<p>Choose the package name from lower case letters, digits and the plus sign.</p>",
              "b.html": "<p>Run debuild in the source tree to build the binary package and sign it.</p>",
              "c.html": "<p>Upload the package to the archive with dput once the lintian checks pass.</p>"}
    titles = {"a.html": "Getting started", "b.html": "Building the package", "c.html": "Uploading the package"}
    nexts = {"a.html": "b.html", "b.html": "c.html", "c.html": None}
    for name, body in bodies.items():
        (folder / name).write_bytes(page(titles[name], nexts[name], body=f"{notice}<h2>In short</h2>{body}"))
    library = Library(store=str(tmp_path / "store"), allowed_roots=[str(tmp_path)])
    library.ingest(str(folder), book="guide", refine_rounds=0)
    skills = library.store.rows("skills", "book = 'guide'")
    noticed = [s for s in skills if "rewrite of this tutorial" in s["steps"]]
    assert len(noticed) == 1 and noticed[0]["sources"] == 3
    assert len(skills) == 4 and [c.title for c in library.browse("guide").children] == list(titles.values())


def test_texi2html_titles_and_accesskeys_say_next_and_a_chapter_citing_others_is_no_contents():
    """zsh's manual (texi2any) says "Next chapter" in a link's title, DocBook's buttons by accesskey
    "n"; vim's user manual has no such links and one chapter cites four others: it is no contents
    page, the folder keeps name order."""
    def nav(title_or_key: str, href: str) -> str:
        attr = f'accesskey="{title_or_key}"' if len(title_or_key) == 1 else f'title="{title_or_key}"'
        return f'<a {attr} href="{href}">&gt;</a>'

    pages = {"Introduction.html": page("Introduction",
                                       body=nav("Next chapter", "Roadmap.html") + "<p>Zsh is a shell.</p>"),
             "Roadmap.html": page("Roadmap", body=nav("n", "Files.html") + "<p>Where to start reading.</p>"),
             "Files.html": page("Files", body=nav("Up section", "Introduction.html") + "<p>Startup files.</p>")}
    assert reading_order(sorted(pages), lambda n: pages[n]) == ["Introduction.html", "Roadmap.html", "Files.html"]
    cites = "".join(f'<a href="usr_0{n}.html">chapter {n}</a> ' for n in (1, 2, 4, 5))
    manual = {f"usr_0{n}.html": page(f"Chapter {n}", body="<p>Text of the chapter.</p>") for n in (1, 2, 4, 5)}
    manual["usr_03.html"] = page("Chapter 3", body=f"<p>Moving around: see {cites}for more.</p>")
    assert reading_order(sorted(manual), lambda n: manual[n]) == sorted(manual)


def test_section_pages_name_their_chapter_page_as_parent_and_chapters_none():
    pages = {"index.html": page("Guide", "ch1.html"), "ch1.html": page("One", "s1.html", "index.html"),
             "s1.html": page("One a", "s2.html", "ch1.html"), "s2.html": page("One b", "ch2.html", "ch1.html"),
             "ch2.html": page("Two", None, "index.html"), "ch2s1.html": page("Two a", None, "ch2.html")}
    parents: dict[str, str] = {}
    documents(sorted(pages), lambda name: pages[name], parents)
    assert parents == {"s1.html": "ch1.html", "s2.html": "ch1.html", "ch2s1.html": "ch2.html"}
    # a chapter copied without its manual (its parent page not in the folder) is its sections' parent
    chapter = {"Strings.html": page("5 Strings", "Escapes.html", "index.html"),
               "Escapes.html": page("5.1 Escapes", "Arrays.html", "Strings.html"),
               "Arrays.html": page("5.2 Arrays", None, "Strings.html")}
    parents = {}
    documents(sorted(chapter), lambda name: chapter[name], parents)
    assert parents == {"Escapes.html": "Strings.html", "Arrays.html": "Strings.html"}


def test_a_docbook_manuals_section_pages_are_sections_of_their_chapter(tmp_path):
    """DocBook and texinfo split a manual into a page a section, each naming its chapter's page as
    its parent (rel="up"): the sections stand under their chapter in the book, in their order,
    and a chapter stays at the top (its parent is the manual's first page). A chapter page that is
    only a menu of its section pages (headings and links: it teaches nothing, no skill) is still
    their chapter: its sections had floated up to the top, the chapter lost (aspell's "5 Working
    With Dictionaries"), and a menu inside a menu nests likewise; a page below a section page of a
    menu stays under that section (MIT Scheme's "4.2.1 Standard Names" had gone beside "4.2"). The
    section pages under a menu join only a node of their own title (two about baking stay two)."""
    docs = tmp_path / "guide"
    docs.mkdir()
    texts = {"index.html": ("Bread guide", "ch1.html", None, "This guide teaches how to bake bread at home."),
             "ch1.html": ("1. Dough", "ch1s1.html", "index.html", "Dough is flour, water, salt and yeast."),
             "ch1s1.html": ("1.1. Mixing", "ch1s2.html", "ch1.html", "Mix the flour and water until smooth."),
             "ch1s2.html": ("1.2. Kneading", "ch2.html", "ch1.html", "Knead the dough for ten minutes."),
             "ch2.html": ("2. Baking", "ch2s1.html", "index.html", ""),
             "ch2s1.html": ("2.1. Oven heat", "ch2s1s1.html", "ch2.html", "Bake the loaf at 230 degrees for "
                                                                        "forty minutes."),
             "ch2s1s1.html": ("2.1.1. Preheating", "ch2s2.html", "ch2s1.html", "Turn the oven on half an hour "
                                                                              "before the loaf goes in."),
             "ch2s2.html": ("2.2. Tins", "ch2s3.html", "ch2.html", ""),
             "ch2s3.html": ("2.2.1. Greasing", None, "ch2s2.html", "Bake the loaf in a tin greased with butter "
                                                                   "for forty minutes.")}
    for name, (title, next_, up, text) in texts.items():
        body = f"<p>{text}</p>" if text else '<ul><li><a href="ch2s1.html">2.1. Oven heat</a></li></ul>'
        (docs / name).write_bytes(page(title, next_, up, body=body))
    library = Library(store=str(tmp_path / "store"), allowed_roots=[str(tmp_path)])
    report = library.ingest(str(docs), book="bread", refine_rounds=0)

    def shape(nodes) -> list:
        return [(node.title, shape(node.subnodes)) for node in nodes]

    assert shape(library.browse("bread", depth=5).children) == [
        ("Bread guide", []), ("1. Dough", [("1.1. Mixing", []), ("1.2. Kneading", [])]),
        ("2. Baking", [("2.1. Oven heat", [("2.1.1. Preheating", [])]), ("2.2. Tins", [("2.2.1. Greasing", [])])])]
    assert sorted(f.source.rsplit("/", 1)[-1] for f in report.files if f.status == "skipped") == ["ch2.html",
                                                                                                   "ch2s2.html"]
