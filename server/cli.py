"""The `tutorialbook` command: serve over MCP, ingest with progress, inspect books.

Every command calls the same Library methods the MCP tools call; --json prints the same
structured results the tools return.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import logging
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from tutorialbook import __version__
from tutorialbook.acquire.sources import SOURCES_HELP, TITLE_HELP
from tutorialbook.server import cli_tools
from tutorialbook.config import Settings
from tutorialbook.errors import TutorialbookError
from tutorialbook.models import MAX_DEPTH


BOOK_HELP = "the book to use"
BOOK_NOTE = ("Commands that take --book use the book named 'default' unless told otherwise; "
             "`tutorialbook books` lists the books.")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tutorialbook",
        description="Learn from tutorials; serve the knowledge over MCP.",
        epilog=BOOK_NOTE,
        formatter_class=cli_tools.DefaultsShown,
    )
    parser.add_argument("--version", action="version", version=f"tutorialbook {__version__}")
    parser.add_argument("--store", help="store path or LanceDB URI (default: $TUTORIALBOOK_STORE or the XDG data dir)")
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")
    parser.add_argument("-v", "--verbose", action="store_true", help="log to stderr")
    parser.add_argument("--llm", help="none (default), sampling (the MCP client's model, serve only) or a litellm "
                                      "model string such as openai/gpt-4o-mini (or $TUTORIALBOOK_LLM)")
    parser.add_argument(
        "--llm-api-base",
        dest="llm_api_base",
        help="the model server's address, e.g. http://127.0.0.1:8000/v1 (or $TUTORIALBOOK_LLM_API_BASE)",
    )
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", help="what to do (COMMAND -h for its options)"
    )
    # every subcommand shows its defaults: the bound method is replaced on this one object on purpose
    sub.add_parser = functools.partial(  # type: ignore[method-assign]
        sub.add_parser, formatter_class=cli_tools.DefaultsShown)

    p = sub.add_parser("serve", help="run the MCP server (stdio; --http for streamable HTTP)")
    p.add_argument("--http", action="store_true", help="serve streamable HTTP at http://HOST:PORT/mcp")
    p.add_argument("--host", default="127.0.0.1", help="interface to listen on (loopback by default)")
    p.add_argument("--port", type=int, default=8765, help="TCP port for --http")
    p.add_argument("--tokens", help="JSON file of bearer tokens and their rights (or $TUTORIALBOOK_TOKENS)")
    p.add_argument("--workers", type=int, default=1,
                   help="--http: server processes on one port and store (more than 1: stateless, every request "
                        "stands alone, so calls may land on any worker or any server behind a load balancer)")
    p.add_argument("--stateless", action="store_true",
                   help="--http: keep no sessions even with one worker (several servers behind a load balancer)")
    p.add_argument("--allowed-host", action="append", default=[], dest="allowed_hosts",
                   help="a Host header to accept besides loopback (DNS-rebinding protection); repeatable")
    p.add_argument(
        "--oauth-issuer",
        dest="oauth_issuer",
        help="accept OAuth 2.1 access tokens (JWT) from this issuer instead of a tokens file; scopes "
        "read:BOOK, write:BOOK, admin:BOOK (BOOK may be *) give the rights (or $TUTORIALBOOK_OAUTH_ISSUER)",
    )
    p.add_argument(
        "--oauth-jwks",
        dest="oauth_jwks",
        help="the issuer's JWKS URL (default: its jwks_uri from the issuer's metadata; or $TUTORIALBOOK_OAUTH_JWKS)",
    )
    p.add_argument("--oauth-agent-claim", dest="oauth_agent_claim",
                   help="the token claim that names the agent (default sub; or $TUTORIALBOOK_OAUTH_AGENT_CLAIM)")
    p.add_argument("--allow-root", action="append", default=[], dest="allow_roots", metavar="DIR",
                   help="a folder ingest may read (repeatable; or $TUTORIALBOOK_ALLOWED_ROOTS); default: home and "
                        "the current folder over stdio, none over --http")

    p = sub.add_parser("ingest", help="ingest a tutorial file or folder")
    p.add_argument("source", help=SOURCES_HELP)
    p.add_argument("--book", default="default", help=BOOK_HELP + " (created if new)")
    p.add_argument("--title", default="", help=TITLE_HELP)
    p.add_argument("--domain", default="auto", choices=["auto", "general", "chess"],
                   help="domain pack: auto picks it from the title, file name or transcript")
    p.add_argument("--refine-rounds", type=int, default=1, dest="refine_rounds",
                   help="rounds of adversarial refinement after each tutorial (0 skips it)")
    p.add_argument("--workers", type=int, default=1,
                   help="worker processes reading a folder's files in parallel "
                        "(each file written in the folder's order)")
    p.add_argument("--ray", metavar="ADDRESS",
                   help="run the files as Ray tasks: a cluster's address (auto, HOST:PORT, ray://HOST:10001) or "
                        "local (a Ray on this machine); with --workers, that many tasks at once")

    p = sub.add_parser("refine", help="examine a book with questions harvested from its tutorials; repair failures")
    p.add_argument("--book", default="default", help=BOOK_HELP)
    p.add_argument(
        "--rounds", type=int, default=1, help="repair rounds at most (stops when the pass rate stops rising)"
    )

    p = sub.add_parser("exam", help="re-ask a book's stored questions from memory alone (a regression check)")
    p.add_argument("--book", default="default", help=BOOK_HELP)

    sub.add_parser("upkeep", help="compact the store, prune superseded table versions "
                                  "(TUTORIALBOOK_TABLE_VERSIONS_SECONDS) and the undo log restore reads "
                                  "(TUTORIALBOOK_KEEP_VERSIONS_SECONDS: restore reaches that far back)")

    sub.add_parser("books", help="list books")

    p = sub.add_parser("toc", help="print a book's table of contents as a tree")
    p.add_argument("--book", default="default", help=BOOK_HELP)
    p.add_argument("--node", default="", help="start at this node id (empty: the root)")
    p.add_argument("--depth", type=int, default=MAX_DEPTH, help=f"levels below the start to show (1-{MAX_DEPTH})")
    p.add_argument("--skills", action="store_true", help="list each node's skills (name and id) under it")

    p = sub.add_parser("search", help="retrieve skills for a task (the retrieve_skill tool)")
    p.add_argument("query", help="the task or question, in plain words")
    p.add_argument("--book", default="default", help=BOOK_HELP)
    p.add_argument("-k", type=int, default=5, help="how many skills to return (1-50)")
    p.add_argument("--mode", default="hybrid", choices=["toc", "hybrid", "keyword", "vector"],
                   help="toc: descend the TOC and show the route; hybrid: BM25 + vectors fused by score; "
                        "keyword (BM25 alone, never re-ordered word by word); vector")
    p.add_argument("--fen", default="", help="chess: a position (FEN); skills the tutorials tie to it come first")

    p = sub.add_parser("evaluate", help="judge a chess position and what the tutorials teach there "
                                        "(the evaluate_position tool)")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--fen", default="", help="the position as FEN")
    where.add_argument("--moves", default="", help="moves from the start, SAN or UCI: 'e4 e5 Nf3' or '1. e4 e5 2. Nf3'")
    p.add_argument("--book", default="", help="book whose tutorials to consult (empty: every book)")
    p.add_argument("--depth", type=int, default=12, help="engine search depth in plies (1-30)")
    p.add_argument("--multipv", type=int, default=1, help="how many best lines (1-5)")

    p = sub.add_parser("lesson", help="record a lesson (the record_lesson tool)")
    p.add_argument("lesson", help="the lesson's text; '-' reads it from standard input, @FILE from a file")
    p.add_argument("--book", default="default", help=BOOK_HELP)
    p.add_argument("--outcome", default="note", choices=["success", "failure", "partial", "note"],
                   help="how acting on the knowledge went (success/failure also count as feedback on --skill)")
    p.add_argument("--skill", default="", dest="skill_id", help="the skill the lesson is about")
    p.add_argument("--node", default="", dest="node_id", help="the TOC node the lesson is about, when not one skill")
    p.add_argument("--context", default="", help="the situation: task, inputs, environment")

    p = sub.add_parser("export-skills", help="write a book's skills as Agent Skills folders (SKILL.md + references/)")
    p.add_argument("directory", help="folder to write into, e.g. ~/.claude/skills or .claude/skills")
    p.add_argument("--book", default="default", help=BOOK_HELP)

    p = sub.add_parser("import-skills", help="read Agent Skills folders into a book (again: no duplicates)")
    p.add_argument("directory", help="a skill folder, or a folder of skill folders")
    p.add_argument("--book", default="default", help=BOOK_HELP + " (created if new)")

    sub.add_parser("doctor", help="check the store, embedder, whisper model, chess engine and LLM setting")

    p = sub.add_parser("history", help="who wrote what in a book, when (newest first)")
    p.add_argument("--book", default="default", help=BOOK_HELP)
    p.add_argument("--limit", type=int, default=50, help="newest events to show")
    p.add_argument("--action", help="only this action (ingest, lesson, revert-lesson, revert-skill, restore)")
    p.add_argument("--target", help="only events about this row id")

    p = sub.add_parser("restore", help="put a book back as it was after an event (or at a time); a new version")
    p.add_argument("--book", default="default", help=BOOK_HELP)
    when = p.add_mutually_exclusive_group(required=True)
    when.add_argument("--to", help="event id from `history`: the book as it was just after it")
    when.add_argument("--at", help="a time: epoch seconds or ISO 8601 (UTC unless it says otherwise)")

    p = sub.add_parser("revert-lesson", help="remove one lesson and the feedback it gave; later writes stay")
    p.add_argument("lesson_id", help="the lesson's id (l_…), from search or history")

    p = sub.add_parser("revert-skill", help="put one skill's content back to an earlier version of that row")
    p.add_argument("skill_id", help="the skill's id (s_…), from toc --skills or search")
    p.add_argument("--version", type=int, default=None, help="version to go back to (none: the previous one)")

    for name, command in sub.choices.items():  # --json after the command works too
        if name != "serve":
            command.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                                 help="print machine-readable JSON")
        command.add_argument("--llm", default=argparse.SUPPRESS, help=argparse.SUPPRESS)  # after the command too
        command.add_argument("--llm-api-base", dest="llm_api_base", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    return parser


@cli_tools.quiet_on_closed_pipe
def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
    settings = Settings().override(store=args.store or None, llm=args.llm or None,
                                   llm_api_base=args.llm_api_base or None)
    try:
        if args.command == "serve":
            if args.allow_roots:
                settings = settings.override(allowed_roots=tuple(args.allow_roots))
            if args.http:
                from tutorialbook.server.http import serve

                from tutorialbook.server.oauth import OAuthSettings

                oauth = OAuthSettings.configured(
                    settings.override(
                        oauth_issuer=args.oauth_issuer,
                        oauth_jwks=args.oauth_jwks,
                        oauth_agent_claim=args.oauth_agent_claim,
                    )
                )
                serve(settings, args.host, args.port, args.tokens, args.allowed_hosts, oauth=oauth,
                      workers=args.workers, stateless=args.stateless)
                return 0
            from tutorialbook.server.app import create_server

            create_server(settings).run()
            return 0
        if args.command == "doctor":
            from tutorialbook.server.doctor import run_doctor

            return run_doctor(settings, as_json=args.json)
        from tutorialbook.library import Library

        library = Library(settings)
        return COMMANDS[args.command](library, args)
    except TutorialbookError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:  # the library says what of it was committed, when it knows
        print(f"interrupted: {exc}" if str(exc) else "interrupted; nothing partial was committed", file=sys.stderr)
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
    report = library.ingest_batch(args.source, args.book, args.title or None, args.domain, args.refine_rounds,
                                  workers=args.workers, ray=args.ray, progress=bar.update)
    bar.close()
    lines = []
    by_id = {t.tutorial_id: t for t in report.tutorials}
    for f in report.files:  # every file, in order: failed and skipped ones say why
        t = by_id.get(f.tutorial_id) if f.tutorial_id else None
        if t is None:
            lines.append(f"{f.status:9} {Path(f.source).name}  {f.reason}")
            continue
        lines.append(
            f"{t.status:9} {t.title}  [{t.tutorial_id}]  {t.segments} segments, "
            f"nodes +{t.nodes_added}/~{t.nodes_updated}, skills +{t.skills_added}/~{t.skills_updated}"
            + (f", positions {t.positions_indexed}" if t.positions_indexed else "")
        )
        if t.questions_harvested:
            lines.append(f"          exam: {t.questions_harvested} questions, pass rate {_pct(t.pass_rate_before)} "
                         f"→ {_pct(t.pass_rate_after)}" + (f" ({t.repairs} repairs)" if t.status == "added" else ""))
        if t.screen:
            lines.append(f"          screen: {t.screen}")
        lines += [f"          warning: {w}" for w in t.warnings]
        if t.llm and t.llm.calls:
            tokens = (
                "" if t.llm.prompt_tokens is None else f", {t.llm.prompt_tokens}+{t.llm.completion_tokens or 0} tokens"
            )
            cost = "" if t.llm.cost_usd is None else f", ${t.llm.cost_usd:.4f}"
            lines.append(f"          llm: {t.llm.model}, {t.llm.calls} calls{tokens}{cost}")
    lines += [f"warning: {w}" for w in report.warnings]
    if len(report.files) > 1:
        counts = {s: sum(f.status == s for f in report.files) for s in ("added", "unchanged", "refined", "failed",
                                                                      "skipped")}
        lines.append(", ".join(f"{n} {s}" for s, n in counts.items() if n))
    _emit(args, report, "\n".join(lines))
    return 1 if report.failed else 0


def _pct(rate: float | None) -> str:
    return "n/a" if rate is None else f"{100 * rate:.1f}%"


def cmd_refine(library, args) -> int:
    bar = ProgressBar(enabled=not args.json and sys.stderr.isatty())
    report = library.refine(args.book, args.rounds, progress=bar.update)
    bar.close()
    lines = [f"{'tutorial':40} {'questions':>9} {'before':>7} {'after':>7} {'rounds':>6} {'added':>5} "
             f"{'extended':>8} {'moved':>5}"]
    for t in report.tutorials:
        lines.append(f"{t.title[:40]:40} {t.questions:>9} {_pct(t.pass_rate_before):>7} {_pct(t.pass_rate_after):>7} "
                     f"{t.rounds:>6} {t.skills_added:>5} {t.skills_extended:>8} {t.skills_moved:>5}")
    lines.append(f"{report.book}: {report.questions} questions, pass rate {_pct(report.pass_rate_before)} → "
                 f"{_pct(report.pass_rate_after)}")
    lines += [f"  still failing [{f.kind}] {f.question}  (expected: {f.answer})" for f in report.failures]
    return _emit(args, report, "\n".join(lines))


def cmd_upkeep(library, args) -> int:
    done = library.upkeep()
    lines = [f"{t.table:10} versions {t.versions_before} -> {t.versions_after}, fragments -{t.fragments_removed} "
             f"+{t.fragments_added}, {t.bytes_removed / 2**20:.1f} MiB freed" for t in done]
    return _emit(args, [dataclasses.asdict(t) for t in done], "\n".join(lines) or "no tables yet")


def cmd_exam(library, args) -> int:
    """Exit status 1 when a question that passed after refinement fails now."""
    report = library.exam(args.book)
    if not report.questions:
        _emit(args, report, f"{report.book}: {report.note}")
        return 0
    kinds = ", ".join(f"{k} {_pct(v)}" for k, v in report.by_kind.items())
    lines = [f"{report.book}: {report.passed}/{report.questions} passed ({_pct(report.pass_rate)}; {kinds})"]
    regressed = {r.id for r in report.regressions}
    for f in report.failures:
        mark = "REGRESSION" if f.id in regressed else "failing"
        modes = ", ".join(m for m, ok in f.modes.items() if not ok)
        lines.append(f"  {mark:10} [{f.kind}] {f.question}  (expected: {f.answer}; missed by {modes})")
    _emit(args, report, "\n".join(lines))
    return 1 if report.regressions else 0


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
    return _emit(args, view, "\n".join(_with_skills(library, view, lines) if args.skills else lines))


def _with_skills(library, view, lines: list[str]) -> list[str]:
    """The tree's lines with each node's skills listed under it."""
    prefixes = {}
    for line in lines:
        node_id = line.rsplit("[", 1)[1].split("]", 1)[0]
        indent = len(line) - len(line.lstrip("│├└─ "))
        prefixes[node_id] = " " * (indent + 4)
    listed = cli_tools.toc_skill_lines(library, view, prefixes)
    out = []
    for line in lines:
        out.append(line)
        out += listed.get(line.rsplit("[", 1)[1].split("]", 1)[0], [])
    return out


def cmd_evaluate(library, args) -> int:
    report = library.evaluate_position(args.fen, args.moves, args.book, args.depth, args.multipv)
    return _emit(args, report, "\n".join(cli_tools.evaluate_lines(report)))


def cmd_search(library, args) -> int:
    result = library.retrieve(args.query, args.book, args.k, args.mode, args.fen)
    lines = cli_tools.search_lines(result)
    lines += [f"lesson ({lesson.outcome}): {lesson.text}" for lesson in result.lessons]
    if result.route:
        lines.append("route: " + " → ".join(step.title for step in result.route if step.chosen))
    lines += [f"warning: {w}" for w in result.warnings]
    return _emit(args, result, "\n".join(lines) or "no skills found")


def cmd_lesson(library, args) -> int:
    result = library.record_lesson(
        cli_tools.lesson_text(args.lesson), args.book, args.outcome, args.skill_id, args.node_id, args.context
    )
    human = f"{'merged into' if result.merged else 'recorded'} {result.lesson_id} ({result.attached_to})"
    human += "".join(f"\n  similar: {lesson.text} [{lesson.id}]" for lesson in result.similar)
    return _emit(args, result, human)


def cmd_export_skills(library, args) -> int:
    bar = ProgressBar(enabled=not args.json and sys.stderr.isatty())
    report = library.export_skills(args.book, args.directory, progress=bar.update)
    bar.close()
    lines = [f"exported {len(report.skills)} skill(s) of {report.book!r} to {report.directory}"]
    lines += [f"  {s.folder}" for s in report.skills]
    lines += [f"  stale: {name} (written by an earlier export; the book no longer has it)" for name in report.stale]
    return _emit(args, report, "\n".join(lines))


def cmd_import_skills(library, args) -> int:
    bar = ProgressBar(enabled=not args.json and sys.stderr.isatty())
    report = library.import_skills(args.book, args.directory, progress=bar.update)
    bar.close()
    lines = [f"imported into {report.book!r}: {report.added} added, {report.updated} updated, "
             f"{report.unchanged} unchanged, {report.skipped} skipped; {report.nodes_added} node(s) added"]
    for s in report.skills:
        where = f"  → {' › '.join(s.path)}" if s.path else ""
        why = f"  ({s.reason})" if s.reason else ""
        lines.append(f"  {s.status:9} {s.folder}{where}{why}")
    return _emit(args, report, "\n".join(lines))


def cmd_history(library, args) -> int:
    events = library.history(args.book, args.limit, args.action, args.target)
    lines = [f"{e.time}  {e.agent:12} {e.action:13} {e.target:22} {e.summary}"
             + (f"  [{', '.join(f'{t} v{v}' for t, v in e.versions.items())}]" if e.versions else "")
             + ("" if e.logged else "  (unlogged)") + f"  {e.id}"
             for e in events]
    return _emit(args, events, "\n".join(lines) or f"no history for {args.book!r} yet")


def cmd_restore(library, args) -> int:
    report = library.restore(args.book, to=args.to, at=args.at)
    lines = [f"restored {report.book!r} to {report.time} (event {report.event_id})"]
    for t in report.tables:
        change = (
            f"{t.rows_before} -> {t.rows_after} rows, now version {t.new_version}" if t.new_version else "unchanged"
        )
        lines.append(f"  {t.table:10} {t.writes_undone} write(s) undone: {change}")
    return _emit(args, report, "\n".join(lines))


def cmd_revert_lesson(library, args) -> int:
    report = library.revert_lesson(args.lesson_id)
    undone = "; ".join(
        f"{s} " + ", ".join(f"{c} -{n}" for c, n in cols.items()) for s, cols in report.feedback_undone.items()
    )
    return _emit(
        args,
        report,
        f"removed lesson {report.id} from {report.book!r}" + (f"; feedback taken back: {undone}" if undone else ""),
    )


def cmd_revert_skill(library, args) -> int:
    report = library.revert_skill(args.skill_id, args.version)
    return _emit(args, report, f"skill {report.id}: content of version {report.to_version} restored as version "
                               f"{report.new_version} (was {report.from_version})")


COMMANDS = {
    "history": cmd_history,
    "restore": cmd_restore,
    "revert-lesson": cmd_revert_lesson,
    "revert-skill": cmd_revert_skill,
    "ingest": cmd_ingest,
    "books": cmd_books,
    "toc": cmd_toc,
    "search": cmd_search,
    "lesson": cmd_lesson,
    "evaluate": cmd_evaluate,
    "export-skills": cmd_export_skills,
    "import-skills": cmd_import_skills,
    "refine": cmd_refine,
    "exam": cmd_exam,
    "upkeep": cmd_upkeep,
}


class ProgressBar:
    """A one-line progress bar on stderr (only when it is a terminal)."""

    def __init__(self, enabled: bool, width: int = 30):
        self.enabled = enabled
        self.width = width

    def update(self, done: float, total: float, message: str) -> None:
        if not self.enabled or not total:
            return
        filled = int(self.width * min(done / total, 1.0))
        sys.stderr.write(
            f"\r[{'#' * filled}{'.' * (self.width - filled)}] {100 * done / total:5.1f}% {message[:60]:60}"
        )
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")


if __name__ == "__main__":
    sys.exit(main())
