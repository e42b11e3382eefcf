"""Navigation and page furniture, which the HTML reader (``html.py``, whose docstring lists the
rules) leaves out: elements dropped before the walk (nav, banners, bars, hidden blocks and the
toggles that show them, page controls, line-number gutters: ``_strip_chrome``), and blocks the
walk finds to say nothing (link panels, contents lists and indexes, pointers, images alone,
bare version notes: ``_says_nothing``)."""

from __future__ import annotations

import re
from urllib.parse import unquote

from lxml import etree
from lxml import html as lxml_html

from tutorialbook.acquire.formats.document import POINTER_WORDS, SEE_ONLY, squash
from tutorialbook.acquire.formats.html_vocabulary import (_ALNUM, _HEADINGS, _INLINE, _LISTS, _URL, _WORD_SPLIT,
                                                          _class_words, _is_box_title, _weight, _words_of)

_DROP_TAGS = frozenset({"script", "style", "noscript", "template", "nav", "aside", "form", "button", "input",
                        "select", "textarea", "svg", "iframe", "object", "embed", "canvas", "head", "link",
                        "meta", "dialog", "menu"})
_PAGE_FURNITURE = frozenset({"header", "footer"})
_CHROME_ROLES = frozenset({"navigation", "banner", "contentinfo", "complementary", "search", "menu",
                           "menubar", "toolbar", "dialog", "alert"})
_CHROME_WORDS = frozenset({"nav", "navbar", "navigation", "menu", "sidebar", "sphinxsidebar", "related",
                           "breadcrumb", "breadcrumbs", "skip", "skiplink", "footer", "masthead", "cookie",
                           "cookies", "headerlink", "permalink", "toc", "sidenav", "topbar", "pager",
                           "byline", "docinfo", "tagline", "tooltip"})
# docinfo: docutils' Author / Version / Copyright fields; tagline: a site's slogan (SQLite's "Small. Fast.
# Reliable. Choose any three." atop every page); tooltip: a hover widget (rustdoc's "ⓘ" over an example
# that fails to compile: 536 steps of its error index)
#: ids of AsciiDoc's document header fields (as a class, "email" marks an address in prose: kept), and
#: of a site's banner (Publican's ``div#banner``, "Download the ebook" atop every page of the Debian
#: Administrator's Handbook; a word of a longer id, "Beat.banner", names a thing documented)
_CHROME_IDS = frozenset({"author", "email", "revnumber", "revdate", "revremark", "banner"})
#: what follows "nav" in a compound class word that names page furniture (DocBook's navheader and
#: navfooter: the Prev / Up / Next tables atop and below every page of a generated manual)
_NAV_PARTS = frozenset({"header", "footer", "bar", "links", "panel", "box", "menu", "list", "tabs"})
#: a listing's line numbers (Pygments' gutter, as Sphinx's ``:linenos:`` writes it): no part of the code;
#: Sphinx's "[source]" links beside a signature (viewcode) likewise
_GUTTER = frozenset({"linenos", "lineno", "linenodiv", "viewcode"})
PROSE_WORDS = 10
"""A paragraph this long that is mostly not links is content, not navigation."""
_UI_LABEL = re.compile(r"^(?:expand|collapse|show|hide|toggle|click)\b", re.I)
#: how a sentence that only points at a link opens
_POINTER = re.compile(r"(?:click (?:here|this link)|(?:go|return|back|jump) to (?:the )?"
                      r"(?:next|previous|top|index|contents|home|start)\b)", re.I)
#: the words a link's label may say when the link only leads on through the pages ("Previous: … |
#: Next: …", "Next Tutorial Section: …"), one of the first set among them
_LEADS_ON = frozenset({"next", "previous", "prev", "up"})
_LEAD_LABEL = _LEADS_ON | {"back", "the", "tutorial", "section", "chapter", "page", "topic", "part", "step", "lesson",
                           "contents", "index", "home", "top"}  # Halibut's "Previous | Contents | Index | Next"
#: a link that is a control of the page's own ("source" beside rustdoc's item, Sphinx's "View page
#: source", "Edit on GitHub"), whole
_PAGE_CONTROL = re.compile(r"\[?(?:src|source|(?:view|show) (?:page )?source|page source|"
                           r"(?:go|jump) to (?:the )?source(?: code)?(?: of this \w+)?\.?|"  # Doxygen's
                           r"edit(?: (?:on \w+|this page))?|run)\]?", re.I)
#: a link on to the rest of what a summary began ("More...", "Read more …", "more »")
_READ_MORE = re.compile(r"\(?(?:read )?more\s*(?:\.\.\.|…|»|›)\)?", re.I)
#: the class words of a link set as a button (Bootstrap's ``a.btn``): a control, as ``<button>`` is
_BUTTON_WORDS = frozenset({"btn", "button"})


def _in_chrome(el) -> bool:
    """Whether an element or one around it is page furniture (``_is_chrome``; the page itself
    never is: mdBook's ``<html class="sidebar-visible">`` says the sidebar is open; nor is an element
    holding the page's main content: the Read the Docs theme wraps it in ``section.wy-nav-content-wrap``,
    and its pages had been titled "Installation — Cryptography 38.0.4 documentation")."""
    return any(_is_chrome(e) and not e.xpath("boolean(.//main|.//*[@role='main'])")
               for e in (el, *el.iterancestors()) if isinstance(e.tag, str) and e.tag not in ("html", "body"))


def _visible_text(el) -> str:
    clone = lxml_html.fromstring(etree.tostring(el))
    _strip_chrome(clone)
    return clone.text_content()


def _strip_chrome(content) -> None:
    doomed = []
    for el in content.iter():
        if not isinstance(el.tag, str):
            doomed.append(el)
        elif el is not content and _is_chrome(el):
            doomed.append(el)
    for el in doomed:
        if el.getparent() is not None:
            _empty_brackets(el)
            el.drop_tree()  # keeps the tail text


def _empty_brackets(el) -> None:
    """The brackets around an element that goes, left with nothing between them: sqlite's
    "(<a>More...</a>)" had left "()" at its paragraph's end."""
    prev, parent, tail = el.getprevious(), el.getparent(), el.tail or ""
    before = (prev.tail if prev is not None else parent.text) or ""
    pair = before.rstrip()[-1:] + tail.lstrip()[:1]
    if pair in ("()", "[]"):
        before, el.tail = before.rstrip()[:-1], tail.lstrip()[1:]
        if prev is not None:
            prev.tail = before
        else:
            parent.text = before


def _is_chrome(el) -> bool:
    tag = el.tag.lower()
    if _is_box(el):
        return False
    if tag in _DROP_TAGS or _class_words(el) & _GUTTER or tag == "td" and _line_numbers(el):
        return True
    if "indexdiv" in _class_words(el):  # DocBook's back-of-book index: terms and the pages they are on
        return True
    if tag in _PAGE_FURNITURE and not any(a.tag in ("article", "main", "section") for a in el.iterancestors()):
        return True
    if el.get("role", "").lower() in _CHROME_ROLES or el.get("aria-hidden") == "true" or el.get("hidden") is not None:
        return True
    if "display:none" in el.get("style", "").replace(" ", "").lower() or _hidden_toggle(el):
        return True
    if tag == "a" and _control_link(el):
        return True
    if tag == "a" and _in_heading(el):  # the heading's own words (mdBook's <a class="header">)
        return False
    chrome, words = _chrome_words(el)
    if chrome:
        return True
    if words & {"header", "topnav", "banner"} and not any(True for _ in el.iter(*_HEADINGS)):
        return True  # a page header or a site's banner (lxml's "Your donation helps!"), not a title block
    if tag == "summary":  # a disclosure widget's own label ("Expand description"), not its content's title
        return bool(_UI_LABEL.match(squash(el.text_content())))
    return False


def _hidden_toggle(el) -> bool:
    """A control that shows what the page hides: a block run by a click whose next block with
    anything in it is hidden (Doxygen's "+ Include dependency graph for SDL_audio.h:" over its
    graph, shown by script), its label no text once the hidden block is gone."""
    if el.get("onclick") is None or el.tag in _INLINE:
        return False
    for after in el.itersiblings():
        if not isinstance(after.tag, str):
            continue
        if squash(after.text_content()) or after.find(".//img") is not None:
            return "display:none" in after.get("style", "").replace(" ", "").lower() or after.get("hidden") is not None
    return False


def _line_numbers(cell) -> bool:
    """A table cell of counted lines beside a listing's cell (gtk-doc's td.listing_lines: "1 2 3 …"
    had been code, one skill nothing but the numbers 1 to 64)."""
    nxt = cell.getnext()
    if nxt is None or nxt.tag != "td" or nxt.find(".//pre") is None:
        return False
    numbers = cell.text_content().split()
    return bool(numbers) and all(n.isdigit() for n in numbers) and \
        [int(n) for n in numbers] == list(range(int(numbers[0]), int(numbers[0]) + len(numbers)))


def _is_box(el) -> bool:
    """Content set apart in the text, not the page's furniture: a footnote (docutils writes
    ``<aside class="footnote">``: Sphinx's footnotes were all lost), or a sidebar with a title of
    its own (DocBook's ``div.sidebar`` "TIP Incremental updates", Sphinx's sidebar directive)."""
    classes = set((el.get("class") or "").lower().split())
    if classes & {"footnote", "footnotes", "footnote-list", "citation", "citation-list"}:
        return True
    return "sidebar" in classes and any(
        True for t in el.iter() if isinstance(t.tag, str) and set((t.get("class") or "").split()) & {
            "sidebar-title", "title"})


def _control_link(a) -> bool:
    """A link that works the page rather than says something: a permalink mark, DocBook's "[D]"
    (an image's long description), "Skip to …", a page control standing alone ("source", "Edit
    on GitHub", rustdoc's "Run" under an example), a link set as a button (pandas' "To raw data"),
    a link that runs script ("[−]"), a "More..." after a summary (Doxygen's, to the details below),
    unless that one is words of a sentence
    (Erlang's manuals link every function so: "If a process calls link(Other_Pid) it …")."""
    text = squash(a.text_content())
    return (text in ("¶", "#", "§", "🔗", "[D]") or text.lower().startswith("skip to")
            or bool(_READ_MORE.fullmatch(text))
            or bool(_PAGE_CONTROL.fullmatch(text) or _class_words(a) & _BUTTON_WORDS) and _stands_alone(a, text)
            or a.get("href", "").strip().lower().startswith("javascript:")
            and (not _ALNUM.search(text) or _stands_alone(a, text))
            or text.isdigit() and _numbers_its_block(a))


def _numbers_its_block(a) -> bool:
    """A number linking to the block it stands beside or in: that block's number in the margin
    (SiSU's "object citation numbers", ``<label><a href="#o5">5</a></label><p id="o5">``, before
    every paragraph and heading of the Live Systems Manual), a permalink, no word of it."""
    target = a.get("href", "").strip()
    if not target.startswith("#") or len(target) < 2:
        return False
    for el in (a, *a.iterancestors()):
        if not isinstance(el.tag, str) or el.tag in ("body", "html"):
            return False
        beside = el.getnext()
        if el.get("id") == target[1:] or beside is not None and beside.get("id") == target[1:]:
            return True
    return False


def _in_heading(el) -> bool:
    """Whether an element stands inside a heading (mdBook's ``<h2><a class="header">``: the
    heading's own words, whatever its class says)."""
    return any(a.tag in _HEADINGS for a in el.iterancestors() if isinstance(a.tag, str))


def _chrome_words(el) -> tuple[bool, set[str]]:
    """Whether an element's class or id words name page furniture, and those words."""
    words = _class_words(el)
    id_words = [w for w in _WORD_SPLIT.split(el.get("id", "").lower()) if w]
    # "site-nav" is chrome; "Related-software-and-documentation" is a section, and so is a heading
    # or section whose id is a slug of its title ("pager-mode" of "1.1. Pager Mode", "cookies")
    slug = _slug_of_title(el, id_words)
    if len(id_words) <= 2 and not slug:
        words.update(id_words)
    if el.get("id", "").lower() in _CHROME_IDS and not slug:  # zsh's section id="Author" is "2.1 Author"
        return True, words
    return bool(words & _CHROME_WORDS) or any(
        w.startswith("nav") and w[3:] in _NAV_PARTS or len(w) > 3 and w.endswith("nav")  # "docnav": a Prev/Next bar
        # lxml's "sidemenu", "submenu"; not DocBook's "guimenu" (a program's menu named in the text)
        or len(w) > 4 and w.endswith("menu") and not w.startswith("gui")
        for w in words), words


def _stands_alone(el, text: str) -> bool:
    """Whether a link is all the words of the block it stands in (not one word of a sentence), the
    blocks beside it apart (rustdoc's "Run" after the ``pre`` it runs, in one ``div``)."""
    parent = el.getparent()
    while parent is not None and parent.tag in _INLINE and parent.getparent() is not None:
        parent = parent.getparent()  # javadoc's span.element-name around a method's name ("run")
    if parent is None:
        return True
    said = (parent.text or "") + "".join(
        (child.text_content() if isinstance(child.tag, str) and child.tag in _INLINE else "") + (child.tail or "")
        for child in parent)
    return not _ALNUM.search(squash(said).replace(text, "", 1))


def _slug_of_title(el, id_words: list[str]) -> bool:
    """Whether an element's id only repeats words of its heading (itself, or the first it holds);
    a heading's own id may shorten them (tig's manual: "4.4. Cursor Navigation" is ``cursor-nav``,
    and was dropped as a navigation bar)."""
    heading = next(el.iter(*_HEADINGS), None)
    if heading is None or not id_words:
        return False
    said = set(re.findall(r"\w+", heading.text_content().lower()))
    return all(w in said or heading is el and len(w) >= 3 and any(s.startswith(w) for s in said) for w in id_words)


def _mostly_links(el) -> bool:
    """Next/previous panels, link-only tables of contents and indexes."""
    listing = el.tag in _LISTS or el.tag == "table"
    places = {name for x in el.iter() if isinstance(x.tag, str) for name in (x.get("id"), x.get("name")) if name}
    # an anchor naming a place is no link, nor a link to a place inside the block itself (Scribble links a
    # definition's name to its own anchor: "(promise? v) → boolean?" had gone as navigation)
    links = [a for a in el.iter("a") if a.get("href") is not None
             and not (a.get("href", "").startswith("#") and unquote(a.get("href", "")[1:]) in places)]
    if len(links) < (1 if listing else 2) or any(True for _ in el.iter(*_HEADINGS)):  # a section is never navigation
        return False
    if not listing and any(_is_prose(p) for p in el.iter("p", "pre")):  # prose above a contents list: walked,
        return False                                                     # the list alone is judged
    text = _weight(_words_of(el))
    linked = sum(_weight(_words_of(a)) for a in links if not _URL.search(a.text_content()))  # a URL shown
    # is a reference; a paragraph is a sentence, which Sphinx links word by word ("Recall from Kinds
    # of filters that the value can be a string, a regular expression, a list…"): nearly all links
    return text > 0 and linked >= (0.8 if listing or el.tag == "p" else 0.5) * text


def _says_nothing(el, tag: str) -> bool:
    """A block that is no text: navigation, a pointer, an image alone, a "See also" box of links,
    a bare version note."""
    return (_mostly_links(el) or _is_pointer(el) or tag in ("p", "div", "figure") and _image_only(el)
            or tag == "div" and (_links_box(el) or _bare_version(el)))


def _links_box(el) -> bool:
    """A "See also" box (Sphinx's ``div.seealso``) of links only, each maybe under a term naming
    it: a pointer, no text (greenlet's "See also: Details And Examples / Creating And Executing
    Greenlets" had been a skill reading like the answer to a question, and ranked first)."""
    if "seealso" not in _class_words(el):
        return False
    said = [p for p in el.iter("p", "dd", "li") if not _is_box_title(p)
            and not any(True for _ in p.iter("p", "dd", "li") if _ is not p)]
    return bool(said) and all(p.find(".//a") is not None and _weight(_words_of(p)) <= sum(
        _weight(_words_of(a)) for a in p.iter("a")) for p in said)


#: Sphinx's version notes: "New in version 1.0.0." and what changed, if it says
_VERSION_NOTES = frozenset({"versionadded", "versionchanged", "deprecated"})


def _bare_version(el) -> bool:
    """A version note that says only its version ("New in version 1.0.0."): no skill of its own
    (greenlet's context variables page had opened with one)."""
    if not _class_words(el) & _VERSION_NOTES:
        return False
    badge = "".join(s.text_content() for s in el.iter("span") if "versionmodified" in _class_words(s))
    return bool(badge) and not squash(el.text_content()).replace(squash(badge), "", 1).strip(" .:")


def _is_pointer(el) -> bool:
    """A short paragraph that only sends the reader elsewhere through its link ("Click here for
    the corresponding HTML documentation", "Go to the next section or return to the index"),
    or says nothing but "see" beside its links ("For more, see Wildcards.": fish's tutorial had
    four such skills)."""
    text = squash(el.text_content())
    if el.tag != "p" or el.find(".//a") is None or len(text.split()) > POINTER_WORDS:
        return False
    if _POINTER.match(text):
        return True
    outside = el.text or ""
    for child in el:
        outside += ("" if child.tag == "a" or child.find(".//a") is not None else child.text_content()) \
            + (child.tail or "")
    words = re.findall(r"[a-z]+", outside.lower())
    said = set(words)
    return bool(SEE_ONLY.fullmatch(" ".join(words))) or bool(said & _LEADS_ON) and said <= _LEAD_LABEL


def _is_prose(el) -> bool:
    """A paragraph of its own words: some length, mostly not link text."""
    text = _weight(_words_of(el))
    return text >= PROSE_WORDS and sum(_weight(_words_of(a)) for a in el.iter("a")) < 0.8 * text


#: a run of this many lines or more, nearly all of them a term over the links to where it is, is an index
INDEX_LINES = 5


def _index_entry(line: list[tuple[str, str]]) -> bool:
    """Whether a line is an index's entry: words, a colon, then links only ("account name: Section
    2.3, Section 3.11.3.4"), as a back-of-book index sets them."""
    after: list[tuple[str, str]] | None = None
    for kind, text in line:
        if after is not None:
            after.append((kind, text))
        elif kind != "link" and ":" in text:
            after = [("text", text.split(":", 1)[1])]
    return after is not None and any(kind == "link" and _ALNUM.search(t) for kind, t in after) \
        and all(kind == "link" or not _ALNUM.search(t) for kind, t in after)


def _image_only(el) -> bool:
    """A block that shows an image and says nothing but its caption (Asciidoctor's div.imageblock
    "Figure 25. Save database backup" over a screenshot, a figure, a paragraph of an image): no
    text to learn; its alt text and caption had made steps and skills of their own."""
    if el.find(".//img") is None and el.find(".//svg") is None:
        return False
    stack = [el]
    while stack:  # any words outside its captions: the first found ends the walk
        node = stack.pop()
        if node is not el and (node.tag in ("figcaption", "caption") or _class_words(node) & {"title", "caption"}):
            continue
        if (node.text or "").strip():
            return False
        for child in node:
            if (child.tail or "").strip():
                return False
            if isinstance(child.tag, str):
                stack.append(child)
    return True
