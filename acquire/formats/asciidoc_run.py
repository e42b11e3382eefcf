"""The child process that runs asciidoc-py (``acquire/formats/asciidoc.py`` starts it): reads an
AsciiDoc document on standard input, writes ``{"docbook": ..., "messages": [...]}`` as JSON.

asciidoc-py is an interpreter as much as a parser, so it runs fenced in: in its safe mode (no
``sys::``/``eval::`` macros; an ``ifeval`` is read as a condition that holds, since safe mode
would fail the whole document on it); with ``include::`` turned off (reading standard
input it would open any path an include names, safe mode or not); with its filters (``[source]``
highlighting, a block's ``filter=`` attribute: shell commands) replaced by one that returns the
block's lines as written; and a line naming an attribute nothing defines keeps its words (asciidoc-py
drops it). Its state is module-global and it swaps ``sys.stdout`` while it runs:
a process of its own keeps that away from the server, and lets the parent bound its time."""

from __future__ import annotations

import io
import json
import re
import sys
import tempfile
from pathlib import Path


#: an include directive's line (asciidoc-py's include macro: ``include::target[attributes]``)
_INCLUDE = re.compile(r"include1?::\S[^\[]*\[[^\]]*\]\s*$")
#: a conditional on an expression (``ifeval::[{safe-mode-level} < 20]``): safe mode refuses to
#: evaluate it and fails the document, so it is read as a condition that holds (its ``endif``
#: still closes it)
_IFEVAL = re.compile(r"ifeval::\[.*\]\s*$")
_HOLDS = "ifndef::tutorialbook-never-set[]"
#: a simple attribute reference (``{name}``), as asciidoc-py's ``subs_attrs`` finds one
_REFERENCE = re.compile(r"(?<!\\)\{([^\\\W][-\w]*?)\}(?!\\)")


def convert(text: str) -> dict:
    from asciidoc import asciidoc as engine
    from asciidoc.api import AsciiDocAPI

    engine.filter_lines = _unfiltered
    engine.Reader1.open = _without_includes(engine.Reader1.open)
    engine.Reader1.read = _dropping_includes(engine.Reader1.read)
    engine.Lex.subs = staticmethod(_keeping_unknown_references(engine.Lex.subs, engine.Lex.canonical_subs,
                                                               lambda: engine.document.attributes))
    api = AsciiDocAPI()
    api.options("--safe")
    with tempfile.TemporaryDirectory(prefix="tutorialbook-asciidoc-") as folder:
        target = Path(folder) / "document.xml"
        try:
            api.execute(io.StringIO(text), str(target), backend="docbook45")
        except Exception:  # noqa: BLE001 - its messages say why (an error also ends the run early)
            pass
        docbook = target.read_text(encoding="utf-8") if target.exists() else ""
    return {"docbook": docbook, "messages": list(engine.message.messages)}


def _without_includes(open_file):
    """The reader's ``open``, made to give standard input an include depth of 0: no include is
    followed (asciidoc-py warns of each; ``_dropping_includes`` drops its line)."""
    def opened(reader, fname):
        open_file(reader, fname)
        if fname == "<stdin>":
            reader.max_depth = 0
    return opened


def _dropping_includes(read):
    """The reader's ``read``, made to give an include directive of standard input as a blank line:
    it names a file, and read as text it became a paragraph (a skill) of its own. asciidoc-py
    reads it as a directive wherever it stands, in a listing too; an escaped one (a backslash
    before it) stays text. An ``ifeval`` comes back as a condition that holds (``_IFEVAL``)."""
    def reading(reader, *args, **kwargs):
        line = read(reader, *args, **kwargs)
        if not isinstance(line, str) or reader.fname != "<stdin>":
            return line
        return "" if _INCLUDE.match(line) else _HOLDS if _IFEVAL.match(line) else line
    return reading


def _keeping_unknown_references(subs, canonical, defined):
    """Text substitution (``Lex.subs``: paragraphs, list items, titles of blocks) that keeps a line
    whose attribute reference names nothing defined: asciidoc-py drops such a line whole, and a
    document written for a build that defines its own attributes (``{litdd}``, ``{product}``) lost
    every line naming one. The reference is escaped, so it reads as written."""
    def substituted(lines, options):
        if lines and options and "attributes" in canonical(options):
            names = defined()  # the run's document (asciidoc-py makes one a run)
            def kept(found: re.Match) -> str:
                return found.group() if found.group(1) in names else "\\" + found.group()
            lines = [_REFERENCE.sub(kept, line) for line in lines]
        return subs(lines, options)
    return substituted


def _unfiltered(filter_cmd, lines, attrs=None):
    """A block's lines as written: no filter command runs."""
    return lines


if __name__ == "__main__":
    result = convert(sys.stdin.buffer.read().decode("utf-8", "replace"))
    sys.stdout.buffer.write(json.dumps(result).encode("utf-8"))
