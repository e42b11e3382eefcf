"""Jupyter notebooks (.ipynb, nbformat 2 to 4, read as JSON): markdown cells are Markdown,
code cells code blocks, and a code cell's text output is kept short (its first lines).

A cell's text stored as a list of lines is joined as nbformat joins it: lines that end in a
newline as they are, lines without one (nbformat 2 wrote them so) on lines of their own. An old
notebook's markdown heading with no space after its marks ("##General examples", which the
notebook of its day showed as a heading) is one."""

from __future__ import annotations

import json
import re
from typing import Any, cast

from tutorialbook.acquire.formats.document import Document
from tutorialbook.acquire.formats.markdown import add_markdown
from tutorialbook.errors import TutorialbookError

OUTPUT_LINES = 8


def read_notebook(text: str, name: str) -> Document:
    try:
        notebook = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TutorialbookError(
            "source", f"{name} is not valid JSON (line {exc.lineno} column {exc.colno}: {exc.msg}); "
            "a notebook is a JSON document") from exc
    cells = _cells(notebook)
    old = isinstance(notebook, dict) and isinstance(notebook.get("nbformat"), int) and notebook["nbformat"] < 4
    if cells is None:
        raise TutorialbookError("source", f"{name} is not a Jupyter notebook (no list of cells)")
    doc = Document(name)
    for cell in cells:
        if not isinstance(cell, dict):
            continue
        kind = cell.get("cell_type")
        source = _text(cell.get("source", cell.get("input", "")))
        if kind == "markdown":
            add_markdown(_ATX_UNSPACED.sub(r"\1 \2", source) if old else source, doc)
        elif kind == "heading":  # nbformat 3
            level = cell.get("level")
            doc.heading(level if isinstance(level, int) else 1, source)
        elif kind == "code":
            doc.block("code", source)
            output = _short_output(cell.get("outputs") or [])
            if output:
                doc.block("code", output)
        elif kind == "raw":
            doc.block("text", source)
    title = notebook.get("metadata", {}).get("title") if isinstance(notebook.get("metadata"), dict) else None
    doc.title = title if isinstance(title, str) and title.strip() else None
    return doc


def _cells(notebook):
    if not isinstance(notebook, dict):
        return None
    if isinstance(notebook.get("cells"), list):
        return notebook["cells"]
    worksheets = notebook.get("worksheets")
    if isinstance(worksheets, list) and worksheets and isinstance(worksheets[0], dict):
        return [c for sheet in worksheets if isinstance(sheet, dict) for c in sheet.get("cells") or []]
    return None


def _text(value) -> str:
    if isinstance(value, list):
        lines = [v for v in value if isinstance(v, str)]
        return "".join(lines) if lines and lines[0].endswith(("\n", "\r")) else "\n".join(lines)
    return value if isinstance(value, str) else ""


#: a heading's marks run into its words ("##General examples")
_ATX_UNSPACED = re.compile(r"^( {0,3}#{1,6})([^#\s])", re.M)


_REPR = re.compile(r"<[\w.]+(?: object)?(?: at 0x[0-9a-fA-F]+)?>")


def _short_output(outputs: list) -> str:
    """Printed or returned text, first lines only; images, HTML and errors are dropped, and so are
    warnings on stderr ("…: FutureWarning: …") and an object's bare repr ("<pandas.io.formats.style.Styler
    at 0x7fc1…>", "<IPython.core.display.HTML object>": what stood for a table now gone)."""
    lines: list[str] = []
    for output in outputs:
        if not isinstance(output, dict) or output.get("name") == "stderr":
            continue
        data = cast(dict[str, Any], output.get("data")) if isinstance(output.get("data"), dict) else {}
        text = _text(output.get("text", data.get("text/plain", "")))
        if _REPR.fullmatch(text.strip()):
            continue
        lines.extend(text.splitlines())
    if len(lines) > OUTPUT_LINES:
        lines = lines[:OUTPUT_LINES] + ["..."]
    return "\n".join(lines)
