"""Chess questions for refinement: what a lesson recommends after given moves, which other
move it shows there, why it plays or avoids a move, and what a line is called.

The moves come from the lesson's own words, parsed the way consolidation parses them
(:func:`~tutorialbook.skills.chess.lines.track_lines`), and are written in SAN with move
numbers from the initial position ("After 1. e4 e5 2. Nf3 Nc6, what does the lesson
recommend for White?"). A position is named by the moves that first reach it in the lesson —
the same path the pack's skills are named by.

Grading is a legal-move match, not a phrase match: a skill answers when its SAN moves (check
signs dropped) hold the question's moves and the expected move *in sequence*, so "Bc4" said
after another position does not count. "Why" and "called" questions also need the answer
phrase (the narrator's reason, the name the narrator said) in the skill.
"""

from __future__ import annotations

import re
from typing import Iterable

import chess

from tutorialbook.skills import questions as qs
from tutorialbook.skills.chess import openings
from tutorialbook.skills.chess.events import MoveEvent
from tutorialbook.skills.chess.lines import read_lesson
from tutorialbook.skills.questions import Candidate, HarvestSource, Question
from tutorialbook.acquire.transcript import Segment

RECOMMEND = "chess_recommend"
ALTERNATIVE = "chess_alternative"
WHY = "chess_why"
NAME = "chess_name"
KINDS = (RECOMMEND, ALTERNATIVE, WHY, NAME)
#: kinds whose expected answer is the next move itself (it follows the question's moves)
MOVE_KINDS = (RECOMMEND, ALTERNATIVE)
MAX_REASON_WORDS = 8
START_EPD = chess.Board().epd()

_SAN = re.compile(r"(?<![\w-])(O-O-O|O-O|0-0-0|0-0|[KQRBN]?[a-h]?[1-8]?x?[a-h][1-8](?:=?[QRBN])?)[+#]?[!?]*(?![\w-])")


_SQUARE = re.compile(r"\b[a-hA-H][1-8]\b")


def names_a_square(text: str) -> bool:
    return bool(_SQUARE.search(text))


def san_tokens(text: str) -> list[str]:
    """The SAN moves written in a text, in order, without check signs or annotations."""
    return [m.group(1).replace("0", "O") for m in _SAN.finditer(text)]


def numbered(sans: list[str], first_ply: int = 1) -> str:
    """"1. e4 e5 2. Nf3" from SAN moves starting at ``first_ply``."""
    out = []
    for ply, san in enumerate(sans, first_ply):
        if ply % 2 == 1:
            out.append(f"{(ply + 1) // 2}. {san}")
        else:
            out.append(f"{ply // 2}... {san}" if not out else san)
    return " ".join(out)


def first_paths(events: list[MoveEvent]) -> dict[str, list[str]]:
    """Position (EPD) -> the SAN moves that first reached it in the lesson."""
    paths: dict[str, list[str]] = {START_EPD: []}
    for ev in events:
        if ev.epd_before in paths and ev.epd_after not in paths:
            paths[ev.epd_after] = paths[ev.epd_before] + [ev.san]
    return paths


def in_sequence(tokens: list[str], wanted: list[str]) -> bool:
    """Whether ``wanted`` occurs in ``tokens`` as a contiguous run."""
    n = len(wanted)
    return n > 0 and any(tokens[i:i + n] == wanted for i in range(len(tokens) - n + 1))


def _side(ply: int) -> str:
    return "White" if ply % 2 == 1 else "Black"


def _segment_of(source: HarvestSource, ev: MoveEvent) -> Segment | None:
    return next((s for s in reversed(source.segments) if s.start <= ev.start + 0.01), None) or \
        (source.segments[0] if source.segments else None)


# -- generators -------------------------------------------------------------------------

def chess_questions(source: HarvestSource) -> Iterable[Candidate]:
    """Every kind of chess question, from one reading of the lesson's moves."""
    events = read_lesson(source.segments, source.title)  # as ingest read them for the outline
    paths = first_paths(events)
    yield from advice_questions(source, events, paths)
    yield from alternative_questions(source, events, paths)
    yield from name_questions(source, events, paths)


def advice_questions(source: HarvestSource, events: list[MoveEvent], paths: dict[str, list[str]]
                     ) -> Iterable[Candidate]:
    """"After …, what does the lesson recommend?" for every move the narrator advises, and
    "why …?" for advice given with a reason of its own."""
    for ev in events:
        path = paths.get(ev.epd_before)
        segment = _segment_of(source, ev)
        if ev.kind not in ("recommend", "avoid") or not path or segment is None:
            continue
        after = f"After {numbered(path)}"
        move = numbered([ev.san], ev.ply)
        if ev.kind == "recommend":
            yield Candidate(RECOMMEND, f"{after}, what does the lesson recommend for {_side(ev.ply)}?", ev.san,
                            segment, ev.quote, 4.0, grounded=True)
        reason = " ".join(ev.reason.split()[:MAX_REASON_WORDS]).rstrip(",.;")
        if ev.reason and ev.reason.strip() != ev.quote.strip() and len(reason.split()) >= 3:
            verb = "recommend" if ev.kind == "recommend" else "warn against"
            yield Candidate(WHY, f"{after}, why does the lesson {verb} {move}?", reason, segment, ev.quote, 4.0)


def alternative_questions(source: HarvestSource, events: list[MoveEvent], paths: dict[str, list[str]]
                          ) -> Iterable[Candidate]:
    """Where a line branches off an earlier one ("instead of Bc5, Black can play Nf6"):
    "After …, which other move does the lesson show for Black?"."""
    seen_lines: set[int] = set()
    for ev in events:
        if ev.branch_of is None or ev.line in seen_lines:
            continue
        seen_lines.add(ev.line)
        path = paths.get(ev.epd_before)
        segment = _segment_of(source, ev)
        if not path or segment is None or paths.get(ev.epd_after, path + [ev.san]) != path + [ev.san]:
            continue  # the branch's first move reached a position the lesson had reached another way
        yield Candidate(ALTERNATIVE, f"After {numbered(path)}, which other move does the lesson show for "
                                     f"{_side(ev.ply)}?", ev.san, segment, ev.quote, 3.5, grounded=True)


def name_questions(source: HarvestSource, events: list[MoveEvent], paths: dict[str, list[str]]
                   ) -> Iterable[Candidate]:
    """"What is the line 1. … called?" for each line whose name the narrator says: the answer
    is the most specific part of the opening's name found in the narrator's sentence."""
    sentences = [(seg, raw) for seg, raw, _ in qs._sentences(source)]
    asked: set[str] = set()
    for line in dict.fromkeys(ev.line for ev in events):
        named = None
        for ev in (e for e in events if e.line == line):
            opening = openings.lookup(ev.epd_after)
            if opening is not None and ev.epd_after in paths:
                named = (opening, paths[ev.epd_after])
        if named is None:
            continue
        opening, path = named
        for answer, proper in _name_parts(opening):
            said = next(((seg, raw) for seg, raw in sentences if qs.contains(raw, answer)
                         and (not proper or re.search(rf"\b{re.escape(answer)}\b", raw))), None)
            if said is not None and answer not in asked:  # one question per name said
                asked.add(answer)
                yield Candidate(NAME, f"What is the line {numbered(path)} called?", answer, said[0], said[1], 3.0)
                break


def _name_parts(opening: openings.Opening) -> list[tuple[str, bool]]:
    """The opening's name, most specific first — variation, its distinctive words, family —
    each with whether it must be said capitalised (a bare "Najdorf" names the line; a bare
    "classical" in "the classical reply" does not)."""
    parts = []
    if opening.variation:
        parts.append((opening.variation, False))
        bare = re.sub(r"\b(?:Variation|Defense|Attack|Gambit|Line|System)\b", "", opening.variation).strip()
        if bare and bare != opening.variation and len(bare) >= 4:
            parts.append((bare, True))
    parts.append((opening.family, False))
    return parts


GENERATORS = [chess_questions]


# -- grading and repair -------------------------------------------------------------------

def answers(question: Question, skill) -> bool:
    """Whether one skill holds the answer: the question's moves and the expected move in
    sequence (move kinds), or the moves and the answer phrase (why, name)."""
    body = qs.skill_body(skill)
    wanted = san_tokens(question.question)
    if question.kind in MOVE_KINDS:
        wanted += san_tokens(question.answer)
    elif not qs.contains(body, question.answer):
        return False
    return in_sequence(san_tokens(body), wanted)


GRADERS = {kind: answers for kind in KINDS}


def repair_draft(question: Question, title: str) -> tuple[str, str, list[str]] | None:
    """(name, when to use, steps) of a skill that answers a chess question no skill answers."""
    moves = san_tokens(question.question)
    if question.kind in MOVE_KINDS:
        path = moves
        return (f"{title}: after {numbered(path)}, play {question.answer}", f"In the {title} after {numbered(path)}",
                [f"Play {numbered([question.answer], len(path) + 1)}."])
    if question.kind == WHY and moves:
        path, move = moves[:-1], moves[-1]
        verb = "Avoid" if "warn against" in question.question else "Play"
        return (f"{title}: after {numbered(path)}, {verb.lower()} {move}", f"In the {title} after {numbered(path)}",
                [f"{verb} {numbered([move], len(path) + 1)}.", f"Why: {question.answer}."])
    if question.kind == NAME and moves:
        return f"{question.answer}: {numbered(moves)}", f"To play the {question.answer}", [numbered(moves)]
    return None


def position_rows(question: Question, skill: dict) -> dict[str, list[dict]]:
    """The position a move question is about, indexed with the skill a repair wrote for it,
    so ``evaluate_position`` teaches the move there again."""
    moves = san_tokens(question.question)
    if question.kind in MOVE_KINDS:
        path, move = moves, question.answer
    elif question.kind == WHY and moves:
        path, move = moves[:-1], moves[-1]
    else:
        return {}
    board = chess.Board()
    try:
        for san in path:
            board.push_san(san)
        played = board.parse_san(move)
    except ValueError:  # the question's moves are not a legal game: nothing to index
        return {}
    epd, san = board.epd(), board.san(played)
    board.push(played)
    opening = openings.lookup(board.epd()) or openings.lookup(epd)
    kind = "avoid" if "warn against" in question.question else "move" if question.kind == ALTERNATIVE else "recommend"
    e = question.evidence
    return {"positions": [{
        "id": f"{question.tutorial_id}:{question.id}", "book": skill["book"], "tutorial_id": question.tutorial_id,
        "epd": epd, "move_san": san, "move_uci": played.uci(), "kind": kind, "line": 0, "ply": len(path) + 1,
        "start": float(e.get("start", 0.0)), "end": float(e.get("end", 0.0)), "quote": e.get("quote", ""),
        "reason": question.answer if question.kind == WHY else "", "node_id": skill["node_id"],
        "skill_id": skill["id"], "eco": opening.eco if opening else "", "opening": opening.name if opening else "",
    }]}
