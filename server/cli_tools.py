"""The command line's side of the MCP tools: ``evaluate`` (evaluate_position), ``search`` with
``--fen`` and each hit shown once, ``lesson`` text from a file or ``-``, ``toc --skills``, and
output into a closed pipe (``| head``) ending quietly."""

from __future__ import annotations

import argparse
import functools
import os
import sys
from pathlib import Path

from tutorialbook.errors import TutorialbookError


def lesson_text(value: str) -> str:
    """The lesson itself, ``-`` for standard input, or ``@FILE`` for a file's text."""
    if value == "-":
        text = sys.stdin.read()
    elif value.startswith("@"):
        path = Path(value[1:]).expanduser()
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise TutorialbookError("lesson", f"cannot read {path} ({getattr(exc, 'strerror', None) or exc})") from exc
    else:
        return value
    text = text.strip()
    if not text:
        raise TutorialbookError("lesson", "the lesson read from " + ("standard input" if value == "-" else value[1:])
                                + " is empty")
    return text


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _code_lines(code: str) -> list[str]:
    """A code step as its own lines under the bullet: joined into one, Python's indentation and a
    shell script's line breaks would say something else."""
    rows = [row.rstrip() for row in str(code).strip("\n").splitlines()] or [""]
    return ["     - " + rows[0], *("       " + row if row else "" for row in rows[1:])]


def _where(e) -> str:
    if not e.timed:
        return f"characters {int(e.start)}–{int(e.end)}"
    return f"{int(e.start) // 60}:{int(e.start) % 60:02d}–{int(e.end) // 60}:{int(e.end) % 60:02d}"


def search_lines(result) -> list[str]:
    """Each hit once: its name, then steps and quotes only where they say something new."""
    lines = []
    for n, s in enumerate(result.skills, 1):
        said = {_one_line(s.name).rstrip(".").lower()}
        lines.append(f"{n}. {_one_line(s.name)}  [{s.id}]  ({' › '.join(s.path[1:])})")
        for i, step in enumerate(s.steps):
            key = _one_line(step).rstrip(".").lower()
            if key not in said:
                said.add(key)
                lines += _code_lines(step) if i in s.code_steps else [f"     - {_one_line(step)}"]
        for e in s.evidence[:2]:
            quote = _one_line(e.quote)
            shown = "" if quote.rstrip(".").lower() in said else f"  “{quote}”"
            lines.append(f"     from {e.tutorial_title} @ {_where(e)}{shown}" + (f"  <{e.link}>" if e.link else ""))
        lines += [f"     lesson ({lesson.outcome}): {_one_line(lesson.text)}" for lesson in s.lessons]
    return lines


def toc_skill_lines(library, view, prefix_of: dict[str, str]) -> dict[str, list[str]]:
    """node id -> the lines listing its skills (name and id), for ``toc --skills``: in the order the
    tutorials teach them (``Tree.in_reading_order``), as a reader meets them on the page."""
    tree = library.tree(view.book)
    return {node_id: [f"{prefix_of[node_id]}• {_one_line(r['name'])}  [{r['id']}]"
                      for r in tree.taught(node_id)] for node_id in prefix_of}


def evaluate_lines(report) -> list[str]:
    st = report.status
    state = "checkmate" if st.checkmate else "stalemate" if st.stalemate else "check" if st.check else "in play"
    lines = [f"{st.fen}", f"{st.turn} to move, {state}, {st.legal_moves} legal moves; material "
                          + ", ".join(f"{side} {points}" for side, points in st.points.items())]
    if report.opening:
        lines.append(f"opening: {report.opening.eco} {report.opening.name}")
    eng = report.engine
    score = f"mate in {eng.mate}" if eng.mate is not None else (f"{eng.cp / 100:+.2f}" if eng.cp is not None else "n/a")
    lines.append(
        f"{eng.source} ({eng.engine}, depth {eng.depth}): {score} for White" + (f" — {eng.note}" if eng.note else "")
    )
    for line in eng.lines:
        value = f"mate {line.mate}" if line.mate is not None else f"{(line.cp or 0) / 100:+.2f}"
        lines.append(f"  {value:>8}  {' '.join(line.san)}")
    taught = report.taught
    if taught.at == "nothing found":
        lines.append("the tutorials: nothing taught at this position or earlier in its line")
    else:
        back = f" ({taught.plies_back} plies back)" if taught.plies_back else ""
        lines.append(f"the tutorials, at {taught.at}{back} (quoted material):")
        for m in taught.moves:
            lines.append(f"  {m.kind:9} {m.move_san}: “{_one_line(m.quote)}” — {m.evidence.tutorial_title} "
                         f"@ {_where(m.evidence)}" + (f" ({_one_line(m.reason)})" if m.reason else ""))
    lines += [f"related skill: {_one_line(s.name)}  [{s.id}]" for s in report.related_skills]
    return lines


def quiet_on_closed_pipe(main):
    """``tutorialbook … | head``: a reader that stops reading ends the command quietly (exit 0)."""

    @functools.wraps(main)
    def wrapper(*args, **kwargs):
        try:
            code = main(*args, **kwargs)
            sys.stdout.flush()
            return code
        except BrokenPipeError:
            devnull = os.open(os.devnull, os.O_WRONLY)  # Python flushes stdout again at exit
            os.dup2(devnull, sys.stdout.fileno())
            return 0

    return wrapper


class DefaultsShown(argparse.HelpFormatter):
    """Help that states each option's default, where it has one worth saying."""

    def _get_help_string(self, action):
        text = action.help or ""
        default = action.default
        if ("%(default)" in text or default in (None, "", False, [], argparse.SUPPRESS)
                or action.option_strings == [] and action.nargs is None and default is None):
            return text
        return text + " (default: %(default)s)"
