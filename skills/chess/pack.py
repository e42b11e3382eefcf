"""The chess domain pack: a narrated opening lesson becomes chapters by opening family,
sections by variation, move-recommendation skills and an index of the positions it discusses."""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from tutorialbook.skills import extract
from tutorialbook.skills.builder import OutlineNode, Plan, TutorialContext
from tutorialbook.skills.chess import openings, vocabulary
from tutorialbook.skills.chess import questions as chess_questions
from tutorialbook.skills.chess.lines import MoveEvent, track_lines
from tutorialbook.skills.chess.questions import first_paths, numbered
from tutorialbook.skills.domains import DomainPack
from tutorialbook.skills.extract import SkillDraft

UNNAMED = "Other openings"


@dataclass
class _Line:
    family: str
    variation: str
    eco: str
    name: str


class ChessPack(DomainPack):
    name = "chess"
    initial_prompt = vocabulary.INITIAL_PROMPT

    def __init__(self) -> None:
        self._events: dict[str, tuple[list[MoveEvent], dict[int, SkillDraft], dict[int, OutlineNode]]] = {}

    def recognises(self, text: str) -> bool:
        return vocabulary.looks_like_chess(text)

    def outline(self, tutorial: TutorialContext) -> OutlineNode:
        segments = tutorial.transcript.segments
        events = tutorial.transcript.moves if tutorial.transcript.moves is not None else track_lines(segments)
        paths = first_paths(events)
        lines = {ev.line: _name_line([e for e in events if e.line == ev.line]) for ev in events}
        root = OutlineNode(tutorial.title, "root")
        sections: dict[tuple[str, str], OutlineNode] = {}

        def section(line: _Line) -> OutlineNode:
            key = (line.family, line.variation)
            if key not in sections:
                chapter = next((c for c in root.children if c.title == line.family), None)
                if chapter is None:
                    chapter = OutlineNode(line.family, "chapter")
                    root.children.append(chapter)
                sections[key] = OutlineNode(line.variation, "section")
                chapter.children.append(sections[key])
            return sections[key]

        starts = [s.start for s in segments]
        line_of_segment: dict[int, int] = {}
        for ev in events:
            line_of_segment.setdefault(max(0, bisect_right(starts, ev.start) - 1), ev.line)
        current = events[0].line if events else None
        drafts_for_event: dict[int, SkillDraft] = {}
        node_for_event: dict[int, OutlineNode] = {}
        for i, seg in enumerate(segments):
            current = line_of_segment.get(i, current)
            node = section(lines[current]) if current is not None else _fallback(root, tutorial.title)
            node.segments.append(i)
            node.drafts.extend(extract.skill_drafts(seg.text, i, node.title))
        for n, ev in enumerate(events):
            node = section(lines[ev.line])
            node_for_event[n] = node
            if ev.kind in ("recommend", "avoid"):
                seg_index = max(0, bisect_right(starts, ev.start) - 1)
                draft = _advice_draft(ev, paths.get(ev.epd_before, []), lines[ev.line], seg_index)
                node.drafts.append(draft)
                drafts_for_event[n] = draft
        for line_id, line in lines.items():
            moves = _longest_path([e for e in events if e.line == line_id], paths)
            if len(moves) >= 2:
                first = next(e for e in events if e.line == line_id)
                seg_index = max(0, bisect_right(starts, first.start) - 1)
                section(line).drafts.append(SkillDraft(
                    name=f"{line.name}: {numbered(moves)}",
                    when_to_use=f"To play the {line.name} ({line.eco})" if line.eco else f"To play {line.name}",
                    steps=[numbered(moves)], quote=first.quote, segment_indexes=[seg_index],
                ))
        self._events[tutorial.id] = (events, drafts_for_event, node_for_event)
        return root

    def question_generators(self) -> list:
        """Refinement's chess questions: recommendations, alternatives, reasons, names."""
        return list(chess_questions.GENERATORS)

    def general_question_about(self, sentence: str) -> bool:
        """General questions ask about principles, not about narrated moves (a square named)."""
        return not chess_questions.names_a_square(sentence)

    def question_graders(self) -> dict:
        return dict(chess_questions.GRADERS)

    def repair_draft(self, question, title: str):
        return chess_questions.repair_draft(question, title)

    def repair_rows(self, question, skill: dict) -> dict[str, list[dict]]:
        """The position index row a repaired move skill belongs to."""
        return chess_questions.position_rows(question, skill)

    def extra_rows(self, tutorial: TutorialContext, plan: Plan) -> dict[str, list[dict]]:
        """The position index: each position the lesson discusses, the move said there,
        when, in which words, under which node and skill."""
        events, drafts, nodes = self._events.pop(tutorial.id, ([], {}, {}))
        rows = []
        for n, ev in enumerate(events):
            opening = openings.lookup(ev.epd_after) or openings.lookup(ev.epd_before)
            draft = drafts.get(n)
            rows.append({
                "id": f"{tutorial.id}:p{n}", "book": plan_book(plan), "tutorial_id": tutorial.id,
                "epd": ev.epd_before, "move_san": ev.san, "move_uci": ev.uci, "kind": ev.kind,
                "line": ev.line, "ply": ev.ply, "start": ev.start, "end": ev.end, "quote": ev.quote,
                "reason": ev.reason, "node_id": plan.node_for.get(id(nodes.get(n)), ""),
                "skill_id": plan.skill_for.get(id(draft), "") if draft else "",
                "eco": opening.eco if opening else "", "opening": opening.name if opening else "",
            })
        return {"positions": rows} if rows else {}


def plan_book(plan: Plan) -> str:
    return (plan.nodes or plan.skills)[0]["book"] if (plan.nodes or plan.skills) else ""


def _longest_path(events: list[MoveEvent], paths: dict[str, list[str]]) -> list[str]:
    return max((paths.get(e.epd_after, []) for e in events), key=len, default=[])


def _name_line(events: list[MoveEvent]) -> _Line:
    """The deepest named position of a line names it (transpositions included)."""
    named = None
    for ev in events:
        named = openings.lookup(ev.epd_after) or named
    if named is None:
        return _Line(UNNAMED, "Unnamed lines", "", "an unnamed line")
    return _Line(named.family, named.variation or "Main line", named.eco, named.name)


def _fallback(root: OutlineNode, title: str) -> OutlineNode:
    if not root.children:
        root.children.append(OutlineNode(title, "chapter"))
    return root.children[0]


def _advice_draft(ev: MoveEvent, path: list[str], line: _Line, seg_index: int) -> SkillDraft:
    where = f"after {numbered(path)}" if path else "from the starting position"
    verb = "play" if ev.kind == "recommend" else "avoid"
    steps = [f"{verb.capitalize()} {ev.san}."]
    if ev.reason and ev.reason != ev.quote.strip():
        steps.append(f"Why: {ev.reason}.")
    return SkillDraft(
        name=f"{line.family}: {where}, {verb} {ev.san}",
        when_to_use=f"In the {line.name} {where}",
        steps=steps, quote=ev.quote, segment_indexes=[seg_index],
    )
