"""Changes to a parsed page before the HTML reader (``html.py``) walks it: class words that only
name the page forgotten, a version banner and a signed footer dropped, footnotes set where the
text cites them, a term's classifier set apart from it."""

from __future__ import annotations

import re

from tutorialbook.acquire.formats.document import FOOTNOTE_CHARS, squash
from tutorialbook.acquire.formats.html_chrome import _CHROME_WORDS
from tutorialbook.acquire.formats.html_vocabulary import _HEADINGS, _INLINE, _WORD_SPLIT, _class_words


def _drop_signed_footer(content) -> None:
    """A page that ends on an ``<address>`` (its maker's contact or release line) ends on its footer:
    the address, with what stands after the page's last rule above it. Halibut ends each page of
    PuTTY's manual so: a rule, "If you want to provide feedback on this manual … see the Feedback
    page.", then "[Debian PuTTY release 0.78-2+deb12u2]", which had closed every chapter's last
    passage. A footer longer than a note (FOOTER_WORDS) or holding a heading keeps all but its address."""
    children = [c for c in content if isinstance(c.tag, str)]
    if not children or children[-1].tag != "address":
        return
    rules = [n for n, c in enumerate(children) if c.tag == "hr"]
    footer = children[rules[-1]:] if rules else children[-1:]
    if sum(len(c.text_content().split()) for c in footer) > FOOTER_WORDS or any(
            True for c in footer for _ in c.iter(*_HEADINGS)):
        footer = children[-1:]
    for el in footer:
        el.drop_tree()


#: the most words a page's signed footer says (a feedback note and a release line)
FOOTER_WORDS = 60


def _classifiers_apart(content) -> None:
    """A term's classifier (docutils' ``<dt>encoding<span class="classifier">for lexers</span>``,
    the reStructuredText ``term : classifier``) set after " : ", as the stylesheet shows it: the
    term had run into it ("encodingfor lexers and formatters", pygments' quickstart). docutils'
    older writer spells the colon out in a ``classifier-delimiter`` of its own."""
    for span in content.iter("span"):
        before = span.getprevious()
        if "classifier" in (span.get("class") or "").split() and not (
                before is not None and "classifier-delimiter" in (before.get("class") or "").split()):
            span.text = " : " + (span.text or "")


def _drop_other_versions(content, name: str) -> None:
    """A block above the page's first heading that links to this very page on another site is a
    version banner: celery's pages (python-celery-doc) open on "This document describes the current
    stable version of Celery (5.2). For development docs, go here.", linking to the page of the
    development docs; it had been every page's first skill and summary."""
    page = re.sub(r"\.gz$", "", name.replace("\\", "/").rsplit("/", 1)[-1].lower())  # Debian's changelog.html.gz
    first = next(content.iter(*_HEADINGS), None)
    if not page or first is None:
        return
    above = set(first.itersiblings(preceding=True))
    above.update(e for a in first.iterancestors() for e in a.itersiblings(preceding=True))
    for a in list(content.iter("a")):
        href = (a.get("href") or "").split("#", 1)[0].lower()
        if not re.match(r"https?://", href) or not href.endswith("/" + page):
            continue
        block = a
        while block.getparent() is not None and block.getparent() is not content and block.tag in _INLINE:
            block = block.getparent()
        if block.getparent() is not None and (block in above or any(e in above for e in block.iterancestors())):
            block.drop_tree()


#: the class words of a page's footnotes (docutils' aside/table/dl.footnote, DocBook's div.footnote(s),
#: pandoc's section.footnotes)
_FOOTNOTE_CLASSES = frozenset({"footnote", "footnotes", "footnote-list"})
#: a footnote's own mark before its text ("[2] ", "1", "*"), and pandoc's way back ("↩︎")
_FOOTNOTE_MARK = re.compile(r"^\s*[\[(]?\s*(?:\d{1,3}|[*†‡§¶])\s*[\])]?\.?\s*")
_FOOTNOTE_BACK = re.compile(r"\s*[↩\ufe0e]+\s*$")


def _forget_page_classes(root, name: str) -> None:
    """Drop the class words that only name the page: zzzeeksphinx marks each page's body with its
    path ("tutorial-orm_related_objects"), whose words are no furniture's (SQLAlchemy's page on
    related objects lost its heading as Sphinx's "related" navigation bar). A class that is the
    page's name alone ("related" on ``related.html``) still says what the element is, and so does
    one ending in a name of furniture only ("site-toc" on ``toc.html``)."""
    stem = re.sub(r"(?:\.x?html?)?(?:\.gz)?$", "", name.replace("\\", "/").rsplit("/", 1)[-1].lower())
    if len(stem) < 3 or {w for w in _WORD_SPLIT.split(stem) if w} <= _CHROME_WORDS:
        return
    slug = re.compile(rf"(?<![a-z0-9]){re.escape(stem)}$")
    for el in root.xpath("//*[@class]"):
        tokens = el.get("class").split()
        kept = [t for t in tokens if t.lower() == stem or not slug.search(t.lower())]
        if len(kept) < len(tokens):
            el.set("class", " ".join(kept))


def _footnote_body(el) -> list:
    """The elements a footnote's id names: itself, or with the text that follows its mark (docutils'
    dl.footnote: the id on the term, the text in the dd; texinfo: the id on a link in a heading
    "(1)", the text in the blocks after it, up to the next such heading)."""
    if el.tag == "dt":
        nxt = el.getnext()
        return [el, nxt] if nxt is not None and nxt.tag == "dd" else [el]
    block = el
    while block.tag in _INLINE and block.getparent() is not None:
        block = block.getparent()
    if block is el or block.tag not in _HEADINGS:
        return [block]
    found = [block]
    while (nxt := found[-1].getnext()) is not None and nxt.tag not in _HEADINGS:
        found.append(nxt)
    return found


def _inline_footnotes(content) -> None:
    """A footnote's text goes where the text refers to it, in brackets ("exit statuses (or “stati”
    if you prefer) of processes"), not at the page's end: there it had become a skill of its own
    under the page's last section ("[16] In old Debian releases…"), or steps "[1]" and "or
    “stati”…" beside the text they explain. A footnote nothing refers to, or a long one, stays."""
    boxes = [el for el in content.iter() if isinstance(el.tag, str) and el.tag not in _INLINE
             and _class_words(el) & _FOOTNOTE_CLASSES]  # not the marks (a.footnote-reference, sup.footnote)
    bodies: dict[str, list] = {}
    for box in boxes:
        for el in box.iter():
            if isinstance(el.tag, str) and el.get("id") and el.get("id") not in bodies:
                bodies[el.get("id")] = _footnote_body(el)
    inside = {el for box in boxes for el in box.iter()}  # the elements themselves: lxml's proxies stay alive
    refs = [a for a in content.iter("a") if a not in inside and (a.get("href") or "")[1:] in bodies
            and (a.get("href") or "").startswith("#")]
    done: set[str] = set()
    for a in refs:
        key = a.get("href")[1:]
        text = squash(" ".join(el.text_content() for el in bodies[key]))
        text = _FOOTNOTE_BACK.sub("", _FOOTNOTE_MARK.sub("", text, count=1))
        if not text or len(text) > FOOTNOTE_CHARS or a.getparent() is None:
            continue
        words = a.makeelement("span", {})
        words.text, words.tail = f" ({text})", a.tail
        a.getparent().replace(a, words)
        done.add(key)
    for key in done:
        for el in bodies[key]:
            if el.getparent() is not None:
                el.getparent().remove(el)
