"""Lists as the HTML reader's walker (``html_walker.py``) writes them: an item a line, nested
lists indented below, a lone term over its meaning as "term: meaning", an ordered list's
numbers kept, a bullet the items write themselves left out."""

from __future__ import annotations

import re

from tutorialbook.acquire.formats.document import squash
from tutorialbook.acquire.formats.html_vocabulary import _HEADINGS, _INLINE, _ITEM_BLOCKS, _LISTS


def _number_item(item, number: int) -> None:
    """An ordered list's item read as its blocks keeps its number before its first words ("2. now
    create the (self-signed) CA certificate itself:"): a how-to's steps, each with its command
    (rsyslog's TLS tutorial, the notebook's "Here are the steps:"), had lost their order. An item
    opening with code is left as it is."""
    for el in item.iter():
        if not isinstance(el.tag, str):
            continue
        if el.tag == "pre" or el.tag in _HEADINGS:
            return
        if (el.text or "").strip():
            el.text = f"{number}. {el.text.lstrip()}"
            return


def _item_lines(item) -> list[str]:
    """A list item's blocks of prose, a line each, its nested lists' items indented below them."""
    lines: list[str] = []
    run = [item.text or ""]

    def flush() -> None:
        if text := squash("".join(run)):
            lines.append(text)
        run.clear()

    def walk(el) -> None:
        for child in el:
            tag = child.tag.lower() if isinstance(child.tag, str) else ""
            if tag in _LISTS:
                flush()
                lines.extend(_list_lines(child, 1))
            elif tag in _INLINE or not tag:
                run.append(child.text_content() if tag else "")
            else:
                flush()
                run.append(child.text or "")
                walk(child)
                flush()
            run.append(child.tail or "")

    walk(item)
    flush()
    return lines


def _wrapped_list(el):
    """The one list a div holds and nothing else (Asciidoctor's ``div.ulist``), else None."""
    if el.tag != "div" or squash(el.text or ""):
        return None
    lists = [child for child in el if isinstance(child.tag, str) and child.tag in _LISTS]
    rest = [child for child in el if child not in lists]
    return lists[0] if len(lists) == 1 and not any(squash(child.text_content()) for child in rest) else None


def _term_lines(dt) -> list[str]:
    """A definition's terms, the parts its ``<br>`` breaks apart (DocBook's two commands over one
    meaning: "# apt-get install build-essential<br># apt-get build-dep linux" had run together)."""

    def text(el) -> str:
        parts = [el.text or "" if isinstance(el.tag, str) else ""]
        for child in el:
            parts += ["\0" if child.tag == "br" else text(child), child.tail or ""]
        return "".join(parts)

    return [line for line in (squash(part) for part in text(dt).split("\0")) if line]


def _item_term(item):
    """An item's first paragraph when it is a lone term over the paragraphs that say what it
    means (DocBook's "<li><p><code>Recommends</code></p><p>Use this for packages …</p>", which
    read "Recommends Use this for …"), else None."""
    if squash(item.text or ""):
        return None
    # its blocks, a list a div wraps aside (Asciidoctor's "Basic Features" over its sub-items is no term)
    blocks = [sub for sub in item
              if isinstance(sub.tag, str) and sub.tag in _ITEM_BLOCKS and _wrapped_list(sub) is None]
    if len(blocks) < 2 or blocks[0] is not next((sub for sub in item if isinstance(sub.tag, str)), None):
        return None
    term = squash(blocks[0].text_content())
    return blocks[0] if (0 < len(term.split()) <= MAX_ITEM_TERM_WORDS and not _SENTENCE_END.search(term)
                         and squash(blocks[1].text_content())) else None


def _written_mark(ul) -> str:
    """The mark every item of a list writes before its words ("- ", as makeinfo writes texinfo's
    ``@itemize @minus`` in a ``ul.no-bullet``): the list's own bullet, no word of its items (autoconf's
    manual read "- - one or more Makefile files"); "" when the items write none, or not all alike."""
    items = [squash(li.text_content()) for li in ul if isinstance(li.tag, str) and li.tag == "li"]
    marks = {m.group(0) if (m := _ITEM_MARK.match(text)) else "" for text in items}
    return marks.pop() if len(items) >= 2 and len(marks) == 1 else ""


#: a bullet written as an item's first character (a hyphen, a dash, a bullet, an asterisk)
_ITEM_MARK = re.compile(r"[-–—•·*‣◦▪]\s")


def _lead_term(item) -> bool:
    """Whether an item's words before its first block are a lone term over that block's meaning
    (Halibut's "<li>IGNORE message<p>Should have no effect.</p></li>", PuTTY's special commands,
    which read "IGNORE message Should have no effect.")."""
    words = [item.text or ""]
    for sub in item:
        if not isinstance(sub.tag, str):
            words.append(sub.tail or "")
        elif sub.tag in _ITEM_BLOCKS:
            term = squash("".join(words))
            return 0 < len(term.split()) <= MAX_ITEM_TERM_WORDS and not _SENTENCE_END.search(term) \
                and bool(squash(sub.text_content()))
        elif sub.tag in _INLINE:
            words += [sub.text_content(), sub.tail or ""]
        else:
            return False
    return False


#: a list item's first paragraph of this many words or fewer, no sentence, is a term
MAX_ITEM_TERM_WORDS = 4
#: what ends a sentence or a clause, not a term: Chinese and Japanese write no spaces, so their sentence
#: ("调用 debmake 命令以开始准备打包信息。") is as few "words" as a term, its full stop the difference
_SENTENCE_END = re.compile(r"[.!?:;,。！？：；，、]$")


def _ordinal(value: str | None, otherwise: int) -> int:
    """An ordered list's ``start`` or an item's ``value``: the number as written (0 too, as HTML
    allows), at most 2**30 (a page's "99999999999999999999"); ``otherwise`` when it is no number."""
    value = (value or "").strip()
    return min(int(value), 1 << 30) if value.isdigit() else otherwise


def _list_lines(el, depth: int) -> list[str]:
    lines: list[str] = []
    number = _ordinal(el.get("start"), 1)
    marked = el.tag == "ul" and _written_mark(el)
    for item in el:
        if not isinstance(item.tag, str) or item.tag not in ("li", "dt", "dd"):
            continue
        # a nested list, or one a div wraps (Asciidoctor's div.ulist): its items had run into the item's words
        wrapped = {sub: inner for sub in item if isinstance(sub.tag, str) and (inner := _wrapped_list(sub)) is not None}
        nested = [wrapped.get(sub, sub) for sub in item
                  if isinstance(sub.tag, str) and (sub.tag in _LISTS or sub in wrapped)]
        words = [item.text or ""]
        term = _item_term(item)
        lead = term is None and _lead_term(item)
        for sub in item:
            if sub in wrapped:
                words.append(sub.tail or "")
                continue
            if sub is term:
                words.append(f"{squash(sub.text_content())}: ")
            elif lead and sub.tag in _ITEM_BLOCKS:  # the words before it were its term
                words, lead = [squash("".join(words)) + ": ", sub.text_content()], False
            elif sub not in nested:  # a break or a block (an item's second <p>) parts words
                words.append(" " if sub.tag == "br" else
                             f" {sub.text_content()} " if sub.tag in _ITEM_BLOCKS else sub.text_content())
            words.append(sub.tail or "")
        marker = {"ol": f"{number}. ", "ul": "- "}.get(el.tag, "" if item.tag == "dt" else "  ")
        number += el.tag == "ol"
        text = ", ".join(_term_lines(item)) if item.tag == "dt" and not nested else squash("".join(words))
        if marked:
            text = text[len(marked):].lstrip()
        if text:
            lines.append("  " * depth + marker + text)
        for sub in nested:
            lines.extend(_list_lines(sub, depth + 1))
    return lines
