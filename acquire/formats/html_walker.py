"""The walk over a page's content that the HTML reader (``html.py``) writes into a Document
(``_Walker``): headings at their levels, inline runs as paragraphs or lines, code, quotes,
admonitions' labels, reference entries as sections; tables and lists through ``html_tables``
and ``html_lists``, navigation through ``html_chrome``."""

from __future__ import annotations

import re
from collections import defaultdict

from tutorialbook.acquire.formats.document import ADMONITIONS, Document, prose_words, squash, table_text
from tutorialbook.acquire.formats.html_chrome import INDEX_LINES, _UI_LABEL, _index_entry, _mostly_links, _says_nothing
from tutorialbook.acquire.formats.html_lists import (_item_lines, _item_term, _list_lines, _number_item, _ordinal,
                                                     _term_lines)
from tutorialbook.acquire.formats.html_tables import (_admonition_layout, _has_header, _holds_pages, _icon_cell,
                                                      _listing_text, _table_rows)
from tutorialbook.acquire.formats.html_vocabulary import (_HEADINGS, _INLINE, _LISTS, MAX_DEPTH, _TEXINFO_DEPTHS, _URL,
                                                          _class_words, _in_admonition, _is_box_title, _weight,
                                                          _words_of)
from tutorialbook.acquire.formats.plain import read_plain
from tutorialbook.errors import TutorialbookError

_BLOCKY = ("pre", "table", "h1", "h2", "h3", "h4", "h5", "h6")
#: DocBook's title-page headings that credit or subtitle the book (h2.subtitle, h3.author): text, no section
_CREDITS = frozenset({"subtitle", "author", "corpauthor", "editor", "othercredit", "collab"})
#: a line this long or shorter is one of a block's lines when ``<br>`` breaks it into three or more
#: (a program's statements, an address); hard-wrapped prose runs longer
SHORT_LINE = 40
#: lines ``<br>`` breaks, with a blank line among them, that make a text laid out in lines (read as
#: plain text: its paragraphs, underlined headings, indented code)
LAID_OUT_LINES = 4
_SEPARATORS = re.compile(r"[\s·•|/\-–—,;:]+")
#: boxes of examples set apart in the text (Apache's ``div.example``), whose heading is their label
_EXAMPLES = frozenset({"example"})
_FILE_NAME = re.compile(r"^[\w./-]*\.(?:png|jpe?g|gif|svg|webp|bmp|tiff?)$", re.I)


#: a ``<pre>`` of this many lines or more may be a text set in it, not a listing
PROSE_PRE_LINES = 6


def _written_prose(text: str) -> bool:
    """A ``<pre>`` holding a text written in sentences and wrapped by hand (haproxy's manuals set
    every section so): half its lines or more words (six or more, four in five of their tokens),
    three sentence ends or more, no prompt and few comment marks. Read as a plain text, not one
    listing: a section had been one 6 KB code step, named by its first 80-column line."""
    lines = [line.split() for line in text.splitlines() if line.strip()]
    if len(lines) < PROSE_PRE_LINES or any(tokens[0] in ("$", ">>>", "%", "#") for tokens in lines) \
            or sum(tokens[0].startswith(("#", "//", ";", "--")) for tokens in lines) >= 0.2 * len(lines):
        return False  # a session at a prompt, a commented configuration
    worded = sum(len(tokens) >= 6 and prose_words(tokens) >= 0.8 * len(tokens) for tokens in lines)
    return worded >= 0.5 * len(lines) and len(re.findall(r"[^\W\d_][.!?](?:\s|$)", text)) >= 3


#: a version number after a name ("SDL 2.0", "Foo v1.2.3")
_VERSIONED = re.compile(r"\s+v?\d+(?:\.\d+)+$|\s+v?\d+$", re.I)


class _Walker:
    def __init__(self, doc: Document, site: frozenset[str] = frozenset()):
        self.doc = doc
        self.site = site
        self.level = 0  # the level of the last heading: a text laid out in lines nests below it
        self.titles: dict[int, str] = {}  # the last heading's title at each level
        self.owners: list[str] = []  # the reference entries the walk is inside ("JSONEncoder")
        self.resume: int | None = None  # a section whose text goes on after the entries it holds
        self.section = 0  # the level of texinfo's last sectioning heading (a chapter's 2, a section's 3)

    def heading(self, level: int, title: str) -> None:
        self.resume = None
        self.level = level
        self.titles[level] = squash(title)
        self.doc.heading(level, title)

    def heading_of(self, el, tag: str) -> None:
        """A heading element at its level: texinfo's by its sectioning class; a node with no sectioning
        command (``node-heading``) one below the last section ("Creating Internationalized Scripts"
        in bash's 3.1.2.5, set in h4 as 3.1.3 is, had become 3.1.3's sibling above it)."""
        classes = (el.get("class") or "").split()
        texinfo = [_TEXINFO_DEPTHS[c] for c in classes if c in _TEXINFO_DEPTHS]
        if texinfo and tag != "h1":
            self.section = texinfo[0]
        if "node-heading" in classes and self.section:
            self.heading(min(self.section + 1, 6), el.text_content())
        else:
            self.heading(texinfo[0] if texinfo and tag != "h1" else _HEADINGS[tag], el.text_content())

    def emit(self, kind: str, text: str, header: bool = True) -> None:
        said = squash(text)
        if not said or said.lower() in self.site or _VERSIONED.sub("", said).lower() in self.site \
                or (kind == "paragraph" and _SEPARATORS.fullmatch(said)):
            return  # nothing, the site's name (with its version: Doxygen's "SDL 2.0"), or what separated
            # links that were dropped ("·")
        if self.resume is not None:  # the section's own text after its entries: under its title again
            level, self.resume = self.resume, None
            if level in self.titles:
                self.doc.heading(level, self.titles[level])
        if kind == "paragraph" and said.strip("[]: ").lower() in ADMONITIONS:  # "Note" over its text
            self.doc.label(said.strip("[]: "))
            return
        self.doc.block(kind, text, header=header)

    def container(self, el, depth: int) -> None:
        """Inline runs become paragraphs; block children are read in order. A box's title heads
        its own text, never the block after the box."""
        run: list[tuple[str, str]] = [("text", el.text or "")]
        titled = False
        for child in el:
            tag = child.tag.lower() if isinstance(child.tag, str) else ""
            if tag in _INLINE and not any(True for _ in child.iter(*_HEADINGS)):
                run += _pieces(child, tag)
            elif tag == "hr":  # a thematic break: what follows is another matter
                self._flush(run)
                self.doc.rule()
            else:
                if tag in _LISTS and _labels(run) and _mostly_links(child):
                    run.clear()  # a contents list's own label ("Subsections" over LaTeX2HTML's child links)
                self._flush(run)
                after = child.getnext()
                if tag == "p" and after is not None and after.tag in _LISTS and not (child.tail or "").strip() \
                        and _labels(_inside(child)) and _mostly_links(after):
                    run.append(("text", child.tail or ""))
                    continue  # the same label set as a paragraph of its own
                titled = titled or _is_box_title(child) or tag == "summary"  # a disclosure's label likewise
                self.block(child, tag, depth + 1)
            run.append(("text", child.tail or ""))
        self._flush(run)
        if titled:
            self.doc.unlabel()

    def _flush(self, run: list[tuple[str, str]]) -> None:
        """A run of inline text: a paragraph; its lines apart when ``<br>`` breaks it into three
        or more short ones (a program, an address); read as a plain text when longer lines have
        blank lines among them (a text laid out in lines); nothing when every line of three or
        more is a link (a contents list), or when it is images alone."""
        lines: list[list[tuple[str, str]]] = [[]]
        for kind, text in run:
            if kind == "br":
                lines.append([])
            else:
                lines[-1].append((kind, text))
        run.clear()
        texts = [squash("".join(text for _, text in line)) for line in lines]
        said = [(text, line) for text, line in zip(texts, lines) if text]
        if all(kind == "image" for _, line in said for kind, text in line if text.strip()):
            return  # an image standing alone between blocks: its alt text ("The Fish-Footman began by
            # producing…", Beautiful Soup's epigraph) had been a skill named "The"
        linked = [_weight(" ".join(t for kind, t in line if kind == "link")) for _, line in said]
        total = [_weight(text) for text, _ in said]
        if len(said) >= 3 and all(0 < a == b for a, b in zip(linked, total)):
            return
        if len(said) >= INDEX_LINES and sum(_index_entry(line) for _, line in said) >= 0.8 * len(said):
            return  # a back-of-book index, a line a term ("accessibility: Section 4.9.4"): Halibut's IndexPage
        if len(said) >= 3 and sorted(len(text) for text, _ in said)[len(said) // 2] <= SHORT_LINE:
            self.emit("list", "\n".join(text for text, _ in said))
        elif len(said) >= LAID_OUT_LINES and any(not t for t in texts[1:-1]):  # lines and blank lines:
            self.laid_out("\n".join("".join(text for _, text in line).removeprefix("\n") for line in lines))
        else:
            self.emit("paragraph", " ".join(texts))

    def laid_out(self, text: str) -> None:
        """Text a page lays out in lines with ``<br>`` (DocBook's literallayout: a README inside
        the manual), read as a plain text is, its headings below the page's last one."""
        try:
            transcript = read_plain(text, self.doc.name).transcript()
        except TutorialbookError:  # nothing but headings
            return
        if transcript.title and transcript.title not in {t for _, _, t in transcript.headings}:
            self.doc.heading(self.level + 1, transcript.title)  # its opening lines: its title
        heads: dict[int, list[tuple[int, str]]] = defaultdict(list)
        for at, level, title in transcript.headings:
            heads[at].append((level, title))
        for n, segment in enumerate(transcript.segments):
            for level, title in heads[n]:
                self.doc.heading(self.level + level, title)
            self.doc.block(segment.kind, segment.text)

    def block(self, el, tag: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            self.emit("paragraph", el.text_content())
        elif tag in _HEADINGS and _in_admonition(el, _EXAMPLES):
            # DocBook's "Note" title of a div.note, Apache's "Deprecation Notice" atop a div.warning: the
            # box's label, no section (one had taken in everything after the box)
            self.doc.label(squash(el.text_content()).strip(": "))
        elif tag in _HEADINGS and _CREDITS & set(el.get("class", "").split()):
            self.emit("paragraph", el.text_content())  # a title page's subtitle or author: no section
        elif tag in _HEADINGS:
            self.heading_of(el, tag)
        elif tag == "pre":
            text = _with_breaks(el)
            self.laid_out(text) if _written_prose(text) else self.emit("code", text)
        elif (listing := _listing_text(el)) is not None:
            self.emit("code", listing)
        elif _says_nothing(el, tag):
            return
        elif tag == "dl" and _is_entry(el):
            self.entries(el, depth)
        elif tag in _LISTS:
            self.list_block(el, depth)
        elif tag == "table":
            self.table(el, depth)
        elif tag == "blockquote" and not any(True for _ in el.iter(*_BLOCKY, *_LISTS)):
            self.emit("quote", el.text_content())
        elif _is_box_title(el) or tag == "p" and "rubric" in _class_words(el):
            # a box's own title ("Scoping Behavior"), Sphinx's rubric (a heading that makes no section)
            self.doc.label(squash(el.text_content()).strip(": "))
        elif tag == "summary":  # a disclosure's label heads what it discloses, less the widget's own words
            self.doc.label(": ".join(part for part in re.split(r"\s*:\s+", squash(el.text_content()))
                                     if part and not _UI_LABEL.match(part)))
        elif tag in ("p", "dt", "figcaption", "caption", "address"):
            self._flush(_inside(el))
        else:
            self.container(el, depth)


    def table(self, el, depth: int) -> None:
        """A data table, a row a line; a table laying out an admonition (asciidoc-py's icon cell,
        "Note", beside its text: the label heads the text) or a page (DocBook's admonitions, a
        links column beside the text) is read as its blocks."""
        parent = el.getparent()
        if el.get("summary", "").strip().lower() == "callout list" \
                or parent is not None and "colist" in (parent.get("class") or "").split():
            # DocBook's and AsciiDoc's callouts: each mark's number beside what it explains ("1. Declare the
            # pointer…"), not a two-column table of "| …" rows whose first row headed every piece of it
            rows = [[cell for cell in row if isinstance(cell.tag, str) and cell.tag == "td"] for row in el.iter("tr")]
            self.emit("list", "\n".join(
                f"{squash(cells[0].text_content()) or next((_alt(i) for i in cells[0].iter('img')), '')}. "
                f"{squash(' '.join(c.text_content() for c in cells[1:]))}" for cells in rows if len(cells) >= 2))
        elif "variablelist" in _class_words(el) | _class_words(parent if parent is not None else el):
            # DocBook's variable list set as a table (xsltproc's variablelist.as.table): each term
            # heads its meaning, as a definition list's does; a term had ended one skill, its meaning
            # opened the next (cockpit-ws's "--for-tls-proxy")
            for row in el.iter("tr"):
                cells = [cell for cell in row if isinstance(cell.tag, str) and cell.tag in ("td", "th")]
                if len(cells) == 2 and squash(cells[0].text_content()):
                    self.doc.label(squash(cells[0].text_content()), join=True)
                    self.container(cells[1], depth)
                else:
                    for cell in cells:
                        self.container(cell, depth)
        elif (icon := _icon_cell(el)) is not None:
            label = squash(icon.text_content()) or next((squash(i.get("alt", "")) for i in icon.iter("img")), "")
            for cell in el.iter("td", "th"):
                if cell is not icon:
                    self.doc.label(label)
                    self.container(cell, depth)
        elif not any(True for _ in el.iter("pre", *_HEADINGS)) and not _admonition_layout(el) and not _holds_pages(el):
            caption = el.find("caption")  # its title ("Table 4. Available identifiers for articlelist-format"),
            if caption is not None:  # which heads it as a caption above it does; none of its rows says what
                self.emit("paragraph", caption.text_content())  # the table lists ("a | Article author")
            self.emit("table", table_text(_table_rows(el)), header=_has_header(el))
        elif not any(True for _ in el.iter("pre")) and not _admonition_layout(el) and not _holds_pages(el):
            self.rows_between_headings(el, depth)
        else:
            self.container(el, depth)

    def rows_between_headings(self, el, depth: int) -> None:
        """A table holding headings in rows of their own (Doxygen's member summaries: "Macros" over
        "#define | SDL_AUDIO_BITSIZE(x) (x & SDL_AUDIO_MASK_BITSIZE)"): its runs of rows of words,
        each run a table under the heading above it, unless nearly all links (navigation); a row of
        blocks is read as its blocks. Read cell by cell, "#define" and "struct" had been paragraphs,
        the names beside them dropped as links."""
        run: list = []

        def flush() -> None:
            rows = [row for row in run if squash(row.text_content())]
            run.clear()
            words = _weight(" ".join(_words_of(row) for row in rows))
            linked = sum(_weight(_words_of(a)) for row in rows for a in row.iter("a")
                         if a.get("href") is not None and not _URL.search(a.text_content()))
            if rows and linked < 0.8 * words:
                self.emit("table", table_text(_table_rows(el, rows)), header=False)

        for row in el.xpath("./tr|./*/tr"):
            if all(d.tag in _INLINE or d.tag in ("td", "th") for d in row.iterdescendants() if isinstance(d.tag, str)):
                run.append(row)
            else:
                flush()
                self.container(row, depth)
        flush()

    def entries(self, el, depth: int) -> None:
        """A reference entry (Sphinx's ``dl.py.function``, texinfo's ``dl.def``): a section one level
        below the text around it, titled by the name it describes (a member by its owner's:
        "JSONEncoder.encode"), its signatures heading its description's first block, then the
        rest of it (an entry inside it one level further down). Its description's last paragraph
        ("See also: …") had opened the next entry's skill; the section's own text after its
        entries goes under the section's title again."""
        base = self.resume if self.resume is not None else self.level
        signatures: list = []
        for item in el:
            if not isinstance(item.tag, str):
                continue
            if item.tag == "dt":
                signatures.append(item)
                continue
            if signatures:
                name = _entry_name(signatures[0], self.owners[-1] if self.owners else "")
                self.heading(base + 1, name)
                self.doc.label("; ".join(_signature(dt) for dt in signatures), join=True)
                signatures = []
                self.owners.append(name.rsplit(".", 1)[-1])
                self.container(item, depth)
                self.owners.pop()
            self.level = base
        if signatures:  # a term with no description
            self.emit("code", "\n".join(_signature(dt) for dt in signatures))
        self.resume = base

    def list_block(self, el, depth: int) -> None:
        """A list as one block; one holding code or tables, as its items' blocks, a definition's
        term heading its meaning's first block (bash's "bg:" over ``bg [jobspec …]``)."""
        if not any(True for _ in el.iter(*_BLOCKY)):
            self.emit("list", "\n".join(_list_lines(el, 0)))
            return
        number = _ordinal(el.get("start"), 1) if el.tag == "ol" else 1
        for item in el:
            if el.tag == "ol" and isinstance(item.tag, str) and item.tag == "li":
                number = _ordinal(item.get("value"), number)
                _number_item(item, number)
                number += 1
            if isinstance(item.tag, str) and item.tag == "dt":
                self.doc.label(", ".join(_term_lines(item)), join=True)
            elif isinstance(item.tag, str) and not any(True for _ in item.iter(*_BLOCKY)) \
                    and len(lines := _item_lines(item)) > 1:
                # a meaning of prose and lists only is one block, set under its term: its paragraph after
                # a nested list ("In the first case, …" after calcurse's "-d: Two formats are supported:")
                # had parted from its term and started a skill of its own; its paragraphs stand as one
                # meaning, not as terms of their own ("name_phonet.dat., If name is…")
                self.emit("list", "\n".join("  " + line for line in lines))
            elif isinstance(item.tag, str):
                # an item's lone term ("User Option: name" over paragraphs and code) heads its meaning, not a
                # paragraph the text before takes; a definition's meaning (``dd``) has its term already
                if item.tag == "li" and (term := _item_term(item)) is not None and term.tag != "pre":
                    self.doc.label(term.text_content(), join=True)
                    item.text = (item.text or "") + (term.tail or "")
                    item.remove(term)
                self.container(item, depth)


#: the class words of a definition list that describes a program's objects: Sphinx's domains
#: (``dl.py.function``, ``dl.c.macro``, ``dl.std.option``, ``dl.describe``) and texinfo's ``dl.def``
_ENTRY_CLASSES = frozenset({"def", "py", "c", "cpp", "js", "rst", "std", "describe"})
#: where an entry's signature names its object: Sphinx's prefix and name, texinfo's name
_ENTRY_NAMES = frozenset({"sig-prename", "descclassname", "sig-name", "descname", "def-name"})


def _is_entry(dl) -> bool:
    """Whether a ``dl`` describes a program's objects (each ``dt`` a signature)."""
    words = _class_words(dl)
    return bool(words & _ENTRY_CLASSES) or any(w.startswith("first-def") for w in words)


def _entry_name(dt, owner: str = "") -> str:
    """What an entry's signature names: Sphinx's ``json.`` + ``dumps``, texinfo's ``mat2str``, a
    member with its ``owner``'s name ("JSONEncoder.encode") unless it says its own prefix; else
    the signature itself."""
    named = [e for e in dt.iter() if isinstance(e.tag, str) and _class_words(e) & _ENTRY_NAMES]
    named = [e for e in named if not any(a in named for a in e.iterancestors())]
    prefixed = any(_class_words(e) & {"sig-prename", "descclassname"} for e in named)
    if not named:
        named = [e for e in dt.iter("strong")][:1]
    name = "".join(squash(e.text_content()) for e in named)
    if name and owner and not prefixed:
        name = f"{owner}.{name}"
    return name or _signature(dt)


def _signature(dt) -> str:
    """An entry's signature as written, without texinfo's category ("Function: ", span.category in
    texinfo 7; a mark ": " before): mpfr's 131 skills had been named "Function: int mpfr_cosh";
    nor Sphinx's annotation before the name (``em.property``: "class", "async", "static"): mako's
    classes had been skills named "Class"."""
    text = squash(dt.text_content())
    marks = [squash(e.text_content()) for e in dt.iter() if isinstance(e.tag, str)
             and _class_words(e) & {"category", "property"} and not _class_words(e) & _ENTRY_NAMES]
    for mark in marks:
        if mark and text.startswith(mark):
            text = text.removeprefix(mark).lstrip(": ").strip()
    return text.lstrip(": ").strip()


def _with_breaks(el, depth: int = 0) -> str:
    """An element's text with a line break where a ``<br>`` stands (a ``<pre>`` that breaks its
    lines with them: libxml's API pages), comments left out."""
    out = [el.text or ""]
    for child in el:
        if isinstance(child.tag, str):
            out.append("\n" if child.tag.lower() == "br" else
                       _with_breaks(child, depth + 1) if depth < MAX_DEPTH else child.text_content())
        out.append(child.tail or "")
    return "".join(out)


def _pieces(el, tag: str, depth: int = 0) -> list[tuple[str, str]]:
    """An inline element as pieces of a run: line breaks, links' words and other text (the
    breaks inside ``<small>``, ``<span>``… too)."""
    if tag == "br":
        return [("br", "")]
    if tag == "sup" and el.find(".//a") is None and (el.text or "").strip():  # 2<sup>51</sup>: 2^51, not 251
        return [("text", "^" + el.text_content().strip())]
    if tag == "a" or tag == "img" or tag not in _INLINE or depth > MAX_DEPTH:
        return [("link" if tag == "a" else "image" if tag == "img" else "text",
                 _alt(el) if tag == "img" else el.text_content())]
    return _inside(el, depth)


def _inside(el, depth: int = 0) -> list[tuple[str, str]]:
    """An element's inline content as pieces of a run (see ``_pieces``)."""
    pieces = [("text", el.text or "")]
    for child in el:
        pieces += _pieces(child, child.tag.lower() if isinstance(child.tag, str) else "", depth + 1)
        pieces.append(("text", child.tail or ""))
    return pieces


def _labels(run: list[tuple[str, str]]) -> bool:
    """Whether a run of inline text is a label alone: three words at most, no sentence (a contents
    list's "Subsections", "Contents:"; "Run:" ends no sentence either, but the list it labels stays)."""
    said = squash("".join(text for kind, text in run if kind != "br"))
    return bool(said) and len(said.split()) <= 3 and not re.search(r"[.!?;,]", said)


def _alt(img) -> str:
    """An image's words: its alt text, unless that is only a file's name or path (nbsphinx writes
    "_images/code-cells_20_0.png", texinfo "figures/plotting4" for figures/plotting4.png)."""
    alt = img.get("alt", "").strip()
    src = img.get("src", "")
    if any(word.startswith("formula") for word in _class_words(img)):
        alt = re.sub(r"[{}$]", "", re.sub(r"\\([A-Za-z]+)", r"\1", alt))  # Doxygen's "{\LaTeX}": LaTeX
    named = src.rsplit(".", 1)[0] if "." in src.rsplit("/", 1)[-1] else src
    return "" if _FILE_NAME.match(alt) or alt in (src, named) else alt
