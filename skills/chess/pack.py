"""The chess domain pack: a narrated opening lesson becomes chapters by opening family,
sections by variation, move-recommendation skills and an index of the positions it discusses."""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import Any

from tutorialbook.skills import extract
from tutorialbook.skills.builder import OutlineNode, Plan, TutorialContext
from tutorialbook.skills.chess import board_moves, openings, vocabulary
from tutorialbook.skills.chess.fuse import fuse
from tutorialbook.skills.chess import questions as chess_questions
from tutorialbook.skills.chess.events import MoveEvent
from tutorialbook.skills.chess.lines import read_lesson
from tutorialbook.skills.chess.questions import first_paths, numbered
from tutorialbook.skills.domains import DomainPack, Worker
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
    hotwords = vocabulary.HOTWORDS
    decoding = vocabulary.DECODING

    def __init__(self) -> None:
        self._events: dict[str, tuple[list[MoveEvent], dict[int, SkillDraft], dict[int, OutlineNode]]] = {}
        self._frames: board_moves.Frames | None = None
        self._seen: dict[str, dict] = {}  # tutorial id -> report counts and warnings
        self._times: dict[str, float] = {}  # EPD -> when the board first showed it

    def recognises(self, text: str) -> bool:
        return vocabulary.looks_like_chess(text)

    def watch(self, path, cancel=None) -> Worker | None:
        """Read the board in a video's frames on a worker (nothing to read in audio or text)."""
        from pathlib import Path

        from tutorialbook.acquire.frames import has_video
        from tutorialbook.acquire.sources import media_extensions

        if Path(path).suffix.lower() not in media_extensions() or not has_video(path):
            return None

        def read(worker: Worker) -> board_moves.Frames:
            def board_on_screen() -> None:
                worker.claim = "a chessboard is on screen; the chess pack reads it instead"
                worker.claims_screen.set()
            try:
                return board_moves.read_frames(path, cancel, on_board=board_on_screen)
            except Exception as exc:  # a reader failure costs the board, never the tutorial
                return board_moves.Frames(
                    warnings=[f"board: reading the frames failed ({exc}); moves come from the narration"]
                )

        return Worker(read)

    def seen(self, result: board_moves.Frames) -> bool:
        """Keep the frames' readings; a board on screen for a few frames is a chess video."""
        self._frames = result
        return result.frames_with_board >= board_moves.SHOWN

    def note(self, tutorial_id: str, report) -> None:
        counts = self._seen.pop(tutorial_id, None)
        if counts is None:
            return
        warnings = counts.pop("warnings")
        for name, value in counts.items():
            setattr(report, name, value)
        report.warnings = list(dict.fromkeys([*report.warnings, *warnings]))

    def _moves(self, tutorial: TutorialContext) -> list[MoveEvent]:
        """The lesson's moves: the board's fused with the narration's when a board was read,
        else the narration's (or a PGN's) alone."""
        segments = tutorial.transcript.segments
        stated = tutorial.transcript.moves  # a PGN's
        spoken = stated if stated is not None else read_lesson(segments, tutorial.title)
        frames, self._frames = self._frames, None
        self._times = {}
        if frames is None:
            self._seen[tutorial.id] = {"moves_from_speech": len(spoken), "warnings": []}
            return spoken
        counts: dict[str, Any] = {"frames_read": frames.frames_read, "warnings": list(frames.warnings)}
        self._seen[tutorial.id] = counts
        sight = board_moves.sight(frames, {(e.epd_before, e.uci) for e in spoken})
        if not sight.moves:
            counts["moves_from_speech"] = len(spoken)
            counts["warnings"].append(
                "no chessboard was read in the video's frames; the moves come from the narration alone"
                if not sight.has_board else
                "a chessboard was on screen but no legal move was read off it; the moves come from the narration alone")
            return spoken
        fusion = fuse(sight.moves, spoken, segments)
        counts.update(positions_seen=sight.positions, moves_from_board=fusion.from_board,
                      moves_from_speech=fusion.from_speech, disagreements=fusion.disagreements)
        if sight.dropped:
            counts["warnings"].append(f"board: {sight.dropped} stable readings matched no legal move and were dropped")
        self._times = sight.times
        return sorted(fusion.events, key=lambda e: e.start)

    def outline(self, tutorial: TutorialContext) -> OutlineNode:
        segments = tutorial.transcript.segments
        events = self._moves(tutorial)
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
                draft = _advice_draft(ev, paths.get(ev.epd_before, []), lines[ev.line], seg_index,
                                      self._times.get(ev.epd_before))
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


def _advice_draft(ev: MoveEvent, path: list[str], line: _Line, seg_index: int,
                  shown: float | None = None) -> SkillDraft:
    where = f"after {numbered(path)}" if path else "from the starting position"
    verb = "play" if ev.kind == "recommend" else "avoid"
    steps = [f"{verb.capitalize()} {ev.san}."]
    if ev.reason and ev.reason != ev.quote.strip():
        steps.append(f"Why: {ev.reason}.")
    if shown is not None:
        steps.append(f"On the board at {int(shown) // 60}:{int(shown) % 60:02d} ({shown:.1f} s).")
    return SkillDraft(
        name=f"{line.family}: {where}, {verb} {ev.san}",
        when_to_use=f"In the {line.name} {where}",
        steps=steps, quote=ev.quote, segment_indexes=[seg_index],
    )
