"""The HTML reader's vocabulary (``html.py``): the tags that head, run inline, list or stand
apart as blocks, the class words of texinfo's sectioning headings and of a box's own title, and
the small helpers every other part of the reader counts words and reads classes with. It
imports no other part of the reader."""

from __future__ import annotations

import re

from tutorialbook.acquire.formats.document import ADMONITIONS, squash

_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_INLINE = frozenset({"a", "abbr", "acronym", "b", "bdi", "bdo", "big", "br", "cite", "code", "data", "del", "dfn", "em",
                     "font", "i", "img", "ins", "kbd", "mark", "q", "s", "samp", "small", "span", "strike",
                     "strong", "sub", "sup", "time", "tt", "u", "var", "wbr", "label", "nobr"})
_LISTS = frozenset({"ul", "ol", "dl"})
#: blocks inside a list item whose words stand apart from the next block's ("pattern." "The first")
_ITEM_BLOCKS = frozenset({"p", "div", "pre", "blockquote", "table", "h1", "h2", "h3", "h4", "h5", "h6", "figure"})
MAX_DEPTH = 200
"""Deeper nesting than this (hostile or broken pages) is read as plain text, not walked."""
_WORD_SPLIT = re.compile(r"[\s_\-]+")
_URL = re.compile(r"://|^\s*www\.")
_ALNUM = re.compile(r"[^\W_]")
_FRAME = re.compile(r"[\s\[\]|()·•]+")
#: the classes texinfo gives a sectioning heading, and the level each stands for: texinfo 7 sets
#: a subsubsection in h4 like a subsection (bash's "3.2.5.1 Looping Constructs" beside "3.2.5")
_TEXINFO_DEPTHS = {"top": 1, "chapter": 2, "unnumbered": 2, "appendix": 2, "section": 3, "unnumberedsec": 3,
                   "appendixsec": 3, "subsection": 4, "unnumberedsubsec": 4, "appendixsubsec": 4,
                   "subsubsection": 5, "unnumberedsubsubsec": 5, "appendixsubsubsec": 5}
_TEXINFO_LEVELS = frozenset(_TEXINFO_DEPTHS)
#: the classes of an admonition's, topic's or sidebar's own title (Sphinx's "admonition-title"
#: "Scoping Behavior", "topic-title"): it heads the box's text, as "Note" does, no block of its own
_BOX_TITLES = frozenset({"admonition-title", "topic-title", "sidebar-title"})


def _class_words(el) -> set[str]:
    """The words of an element's class attribute ("navheader", "admonition", "note", …)."""
    return {w for w in _WORD_SPLIT.split(el.get("class", "").lower()) if w}


def _words_of(el) -> str:
    """An element's text with its pieces apart ("Page 0" "Page 1" across a <br>, not "Page 0Page 1")."""
    return " ".join(el.itertext())


def _weight(text: str) -> int:
    """Words, not the brackets and bars that set links apart ("[ << ] | [ >> ] | [Top] |
    [Contents]": texi2html's navigation bar): "You can download Flask-SQLAlchemy from PyPI"
    is four words of its own to two linked, however long the linked names are."""
    return sum(1 for token in _FRAME.split(text) if _ALNUM.search(token))  # ":" or "<<" alone is no word


def _is_box_title(el) -> bool:
    """An admonition's, topic's or sidebar's own title, by its class (not one too long to be one);
    DocBook's sidebar holds its title in a ``div.titlepage`` (the Debian Administrator's Handbook's
    "TIP Incremental updates" had been a paragraph apart from its text, a skill of its own)."""
    classes = set((el.get("class") or "").split())
    box = el.getparent()
    docbook = "titlepage" in classes and box is not None and "sidebar" in _class_words(box)
    titles = bool(classes & _BOX_TITLES) or docbook
    return titles and len(squash(el.text_content())) <= 150


def _in_admonition(el, also: frozenset[str] = frozenset()) -> bool:
    """Whether an element sits directly in a box whose class names an admonition (``div.note``,
    ``div.alert-warning``), or one of ``also``: a class naming it, or ending on its name; one that
    only opens with the name is something else (rustdoc's ``div.error-described`` holds an error
    code's section: the error index's 484 headings "E0004" had been labels of one flat page)."""
    box = el.getparent()
    kinds = {re.split(r"[-_]", token)[-1] for token in (box.get("class") or "").lower().split()} \
        if box is not None else set()
    return bool(kinds & (ADMONITIONS | also))
