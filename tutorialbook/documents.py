"""A book's documents as Markdown (the MCP resources): its table of contents, a node, a
tutorial's transcript. Everything from a tutorial is fenced as quoted source material."""

from __future__ import annotations

from tutorialbook import quoting
from tutorialbook.errors import NotFound
from tutorialbook.models import Evidence
from tutorialbook.reading import Reading


def transcript_markdown(reading: Reading, tutorial_id: str) -> str:
    row = reading.store.get("tutorials", tutorial_id)
    if row is None or row["status"] != "ready":
        raise NotFound("tutorial_id", f"no tutorial {tutorial_id!r}" + (
            " (its commit has not finished)" if row is not None else ""))
    segments = reading.segments(tutorial_id, ["idx", "start", "end", "text"])
    lines = [f"Title: {row['title']}", ""]
    said = []
    for s in segments:
        stamp = (
            f"[{_clock(s['start'])}–{_clock(s['end'])}]"
            if row["timed"]
            else f"[chars {int(s['start'])}–{int(s['end'])}]"
        )
        said.append((s["start"], 0, f"{stamp} {s['text']}"))
    shown = reading.screen(tutorial_id, ["start", "end", "kind", "shown"])
    said += [(s["start"], 1, f"[{_clock(s['start'])}–{_clock(s['end'])}] on screen ({s['kind']}): "
              + s["shown"].replace("\n", "\n    ")) for s in shown]  # beside the speech, by time
    lines += [line for _, _, line in sorted(said, key=lambda x: x[:2])]
    head = f"# Transcript of tutorial `{tutorial_id}` (book {row['book']!r})\n\nSource: {row['source']}\n\n"
    return head + quoting.quoted_block("Its title and every line below are", "\n".join(lines))


def toc_markdown(reading: Reading, book: str) -> str:
    tree = reading.tree(book)
    lines = [f"Book: {tree.nodes[tree.root_id]['title']}", ""]

    def walk(node_id: str, level: int) -> None:
        for child in tree.children.get(node_id, []):
            node = tree.nodes[child]
            lines.append(f"{'  ' * level}- **{node['title']}** (`{child}`) — {node['summary']}")
            for s in tree.taught(child):
                lines.append(f"{'  ' * (level + 1)}- skill: {s['name']} (`{s['id']}`, {s['sources']} source(s))")
            walk(child, level + 1)

    walk(tree.root_id, 0)
    return (f"# Table of contents of book {book!r}\n\n"
            + quoting.quoted_block("Every title, summary and skill name below is", "\n".join(lines)))


def node_markdown(reading: Reading, book: str, node_id: str) -> str:
    view = reading.browse(book, node_id)
    lines = [f"Title: {view.node.title}", "", "Path: " + " › ".join(p.title for p in view.path + [view.node]), "",
             view.node.summary, ""]
    for e in view.evidence:
        lines.append(f"> {e.quote}  \n> — {e.tutorial_title} {_span(e)}")
    if view.children:
        lines += ["", "## Sections"] + [f"- {c.title} (`{c.id}`): {c.summary}" for c in view.children]
    if view.skills:
        lines += ["", "## Skills"] + [f"- {s.name} (`{s.id}`)" for s in view.skills]
    return (f"# Node `{node_id or view.node.id}` of book {book!r}\n\n"
            + quoting.quoted_block("Its title, summary, evidence, sections and skills below are", "\n".join(lines)))


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600:02d}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


def _span(e: Evidence) -> str:
    return f"[{_clock(e.start)}–{_clock(e.end)}]" if e.timed else f"[chars {int(e.start)}–{int(e.end)}]"
