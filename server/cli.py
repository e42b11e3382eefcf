"""The `tutorialbook` command: serve over MCP, ingest with progress, inspect books.

Every command calls the same Library methods the MCP tools call; --json prints the same
structured results the tools return.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from typing import Any

from pydantic import BaseModel

from tutorialbook import __version__
from tutorialbook.config import Settings
from tutorialbook.errors import TutorialbookError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tutorialbook", description="Learn from tutorials; serve the knowledge over MCP.")
    parser.add_argument("--version", action="version", version=f"tutorialbook {__version__}")
    parser.add_argument("--store", help="store path or LanceDB URI (default: $TUTORIALBOOK_STORE or the XDG data dir)")
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")
    parser.add_argument("-v", "--verbose", action="store_true", help="log to stderr")
    sub = parser.add_subparsers(dest="command", required=True)

    sub.add_parser("serve", help="run the MCP server on stdio")

    p = sub.add_parser("ingest", help="ingest a tutorial file or folder")
    p.add_argument("source")
    p.add_argument("--book", default="default")
    p.add_argument("--title", default="")
    p.add_argument("--domain", default="auto")

    sub.add_parser("books", help="list books")

    p = sub.add_parser("toc", help="print a book's table of contents as a tree")
    p.add_argument("--book", default="default")
    p.add_argument("--node", default="", help="start at this node id")
    p.add_argument("--depth", type=int, default=5)

    p = sub.add_parser("search", help="retrieve skills for a query")
    p.add_argument("query")
    p.add_argument("--book", default="default")
    p.add_argument("-k", type=int, default=5)
    p.add_argument("--mode", default="hybrid", choices=["toc", "hybrid", "keyword", "vector"])

    p = sub.add_parser("lesson", help="record a lesson")
    p.add_argument("lesson")
    p.add_argument("--book", default="default")
    p.add_argument("--outcome", default="note", choices=["success", "failure", "partial", "note"])
    p.add_argument("--skill", default="", dest="skill_id")
    p.add_argument("--node", default="", dest="node_id")
    p.add_argument("--context", default="")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
    settings = Settings()
    if args.store:
        settings.store = args.store
    try:
        if args.command == "serve":
            from tutorialbook.server.app import create_server

            create_server(settings).run()
            return 0
        from tutorialbook.library import Library

        library = Library(settings)
        return COMMANDS[args.command](library, args)
    except TutorialbookError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted; nothing partial was committed", file=sys.stderr)
        return 130


def _emit(args, result: Any, human: str) -> int:
    if args.json:
        if isinstance(result, list):
            print(json.dumps([r.model_dump() if isinstance(r, BaseModel) else r for r in result], indent=2))
        else:
            print(result.model_dump_json(indent=2))
    else:
        print(human)
    return 0


def cmd_ingest(library, args) -> int:
    bar = ProgressBar(enabled=not args.json and sys.stderr.isatty())
    report = library.ingest(args.source, args.book, args.title or None, args.domain, progress=bar.update)
    bar.close()
    lines = []
    for t in report.tutorials:
        lines.append(
            f"{t.status:9} {t.title}  [{t.tutorial_id}]  {t.segments} segments, "
            f"nodes +{t.nodes_added}/~{t.nodes_updated}, skills +{t.skills_added}/~{t.skills_updated}"
        )
        lines += [f"          warning: {w}" for w in t.warnings]
    return _emit(args, report, "\n".join(lines))


def cmd_books(library, args) -> int:
    books = library.books()
    rows = [f"{'book':20} {'tutorials':>9} {'nodes':>6} {'skills':>7} {'lessons':>8}"]
    rows += [f"{b.name:20} {b.tutorials:>9} {b.nodes:>6} {b.skills:>7} {b.lessons:>8}" for b in books]
    return _emit(args, books, "\n".join(rows) if books else "no books yet: tutorialbook ingest FILE --book NAME")


def cmd_toc(library, args) -> int:
    view = library.browse(args.book, args.node, args.depth)
    lines = [f"{view.node.title}  [{view.node.id}]  {view.node.subtree_skills} skills"]

    def walk(nodes, prefix: str) -> None:
        for i, node in enumerate(nodes):
            last = i == len(nodes) - 1
            lines.append(f"{prefix}{'└── ' if last else '├── '}{node.title}  [{node.id}]  "
                         f"{node.skills} skills{f', {node.lessons} lessons' if node.lessons else ''}")
            walk(node.subnodes, prefix + ("    " if last else "│   "))

    walk(view.children, "")
    return _emit(args, view, "\n".join(lines))


def cmd_search(library, args) -> int:
    result = library.retrieve(args.query, args.book, args.k, args.mode)
    lines = []
    for n, s in enumerate(result.skills, 1):
        lines.append(f"{n}. {s.name}  [{s.id}]  ({' › '.join(s.path[1:])})")
        lines += [f"     - {step}" for step in s.steps]
        for e in s.evidence[:2]:
            where = f"{e.start:.0f}s" if e.timed else f"char {int(e.start)}"
            lines.append(f"     “{e.quote}” — {e.tutorial_title} @ {where}")
        lines += [f"     lesson ({l.outcome}): {l.text}" for l in s.lessons]
    lines += [f"lesson ({l.outcome}): {l.text}" for l in result.lessons]
    if result.route:
        lines.append("route: " + " → ".join(step.title for step in result.route if step.chosen))
    return _emit(args, result, "\n".join(lines) or "no skills found")


def cmd_lesson(library, args) -> int:
    result = library.record_lesson(args.lesson, args.book, args.outcome, args.skill_id, args.node_id, args.context)
    human = f"{'merged into' if result.merged else 'recorded'} {result.lesson_id} ({result.attached_to})"
    human += "".join(f"\n  similar: {l.text} [{l.id}]" for l in result.similar)
    return _emit(args, result, human)


COMMANDS = {"ingest": cmd_ingest, "books": cmd_books, "toc": cmd_toc, "search": cmd_search, "lesson": cmd_lesson}


class ProgressBar:
    """A one-line progress bar on stderr (only when it is a terminal)."""

    def __init__(self, enabled: bool, width: int = 30):
        self.enabled = enabled
        self.width = width

    def update(self, done: float, total: float, message: str) -> None:
        if not self.enabled or not total:
            return
        filled = int(self.width * min(done / total, 1.0))
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {100 * done / total:5.1f}% {message[:60]:60}")
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")


if __name__ == "__main__":
    sys.exit(main())
