"""Chess questions for refinement: harvested from a lesson's moves, graded by legal-move
match, repaired with skills the pack writes."""

import json

import chess
import pytest

from tutorialbook.skills import questions as qs
from tutorialbook.skills.chess import questions as cq
from tutorialbook.skills.chess.pack import ChessPack
from tutorialbook.skills.questions import HarvestSource, Question
from tests.support.chess_lessons import ITALIAN, LESSON
from tutorialbook.acquire.transcript import Segment



def source() -> HarvestSource:
    segments = [Segment(i * 4.0, i * 4.0 + 4.0, text) for i, text in enumerate(LESSON)]
    return HarvestSource("t_italian", "Italian Game lesson", segments)


@pytest.fixture(scope="module")
def harvested() -> dict[str, Question]:
    pack = ChessPack()
    found = qs.harvest(source(), qs.generators_for(pack))
    return {q.question: q for q in found if q.kind in cq.KINDS}


def test_harvest_asks_what_the_lesson_recommends_shows_and_why(harvested):
    recommend = harvested[f"After {ITALIAN}, what does the lesson recommend for White?"]
    assert (recommend.kind, recommend.answer) == (cq.RECOMMEND, "Bd2")
    assert recommend.evidence["quote"] == "The right move is bishop to d2, blocking the check."
    assert recommend.evidence["start"] == 40.0  # the segment that said it
    why = harvested[f"After {ITALIAN}, why does the lesson warn against 7. Kf1?"]
    assert (why.kind, why.answer) == (cq.WHY, "you lose the right to castle")
    other = harvested["After 1. e4 e5 2. Nf3 Nc6 3. Bc4, which other move does the lesson show for Black?"]
    assert (other.kind, other.answer) == (cq.ALTERNATIVE, "Nf6")
    called = harvested["What is the line 1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 4. d3 called?"]
    assert (called.kind, called.answer) == (cq.NAME, "Two Knights Defense")
    assert "Two Knights Defense" in called.evidence["quote"]
    # a lower-case "classical reply" does not name the Classical Variation: the family does
    italian = harvested["What is the line 1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. c3 Nf6 5. d4 exd4 6. cxd4 called?"]
    assert italian.answer == "Italian Game"
    assert [q.answer for q in harvested.values() if q.kind == cq.NAME].count("Italian Game") == 1
    d3 = harvested["After 1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6, what does the lesson recommend for White?"]
    assert d3.answer == "d3"
    # the same harvest twice gives the same questions, ids included
    again = qs.harvest(source(), qs.generators_for(ChessPack()))
    assert {q.id for q in again if q.kind in cq.KINDS} == {q.id for q in harvested.values()}


def test_every_chess_answer_is_grounded_in_its_quote(harvested):
    for q in harvested.values():
        if q.kind in cq.MOVE_KINDS:  # a move: the quote's words parse to it
            assert any(word in q.evidence["quote"].lower() for word in ("to", "takes")), q
        else:  # a phrase the narrator said
            assert qs.contains(q.evidence["quote"], q.answer), q


def skill(name: str, *steps: str) -> dict:
    return {"id": name[:8], "name": name, "steps": json.dumps(list(steps))}


@pytest.mark.parametrize("body,passes", [
    ((f"Italian Game: after {ITALIAN}, play Bd2", "Play Bd2."), True),
    ((f"Italian Game: {ITALIAN} 7. Bd2+",), True),  # check signs do not matter
    (("Italian Game: 1 e4 e5 2 Nf3 Nc6 3 Bc4 Bc5 4 c3 Nf6 5 d4 exd4 6 cxd4 Bb4 7 Bd2",), True),
    ((f"Italian Game: after {ITALIAN}, play Kf1", "Never Bd2 here."), False),  # Bd2 not after the moves
    (("Sicilian: after 1. e4 c5, play Bd2",), False),  # the move, after other moves
    (("Bd2 blocks the check",), False),
])
def test_grading_is_a_legal_move_match_in_sequence(body, passes):
    q = Question("q", "t", cq.RECOMMEND, f"After {ITALIAN}, what does the lesson recommend for White?", "Bd2", {})
    assert cq.answers(q, skill(*body)) is passes
    assert qs.grade(q, [skill(*body)], ChessPack()).passed is passes


def test_why_and_name_need_the_phrase_and_the_moves():
    why = Question("q", "t", cq.WHY, f"After {ITALIAN}, why does the lesson warn against 7. Kf1?",
                   "you lose the right to castle", {})
    assert cq.answers(
        why, skill(f"Italian: after {ITALIAN}, avoid Kf1", "Avoid Kf1.", "Why: you lose the right to castle.")
    )
    assert not cq.answers(why, skill(f"Italian: after {ITALIAN}, avoid Kf1", "Avoid Kf1."))
    assert not cq.answers(why, skill("Castling", "If you lose the right to castle, your king stays in the center."))
    name = Question(
        "q", "t", cq.NAME, "What is the line 1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 called?", "Two Knights Defense", {}
    )
    assert cq.answers(name, skill("Italian Game: Two Knights Defense: 1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 4. Ng5"))
    assert not cq.answers(name, skill("Two Knights Defense: 1. e4 e5 2. Nf3 Nc6 3. Bb5 Nf6"))


def test_repair_drafts_answer_their_questions(harvested):
    for q in harvested.values():
        name, when, steps = cq.repair_draft(q, "Italian Game")
        assert cq.answers(q, {"id": "new", "name": name, "steps": steps}), q.question
        assert name and when and steps


def test_refinement_restores_a_recommendation_the_memory_lost(library, tmp_path):
    path = tmp_path / "italian-game-lesson.txt"
    path.write_text("\n\n".join(LESSON) + "\n")
    library.ingest(str(path), book="chess", domain="chess", refine_rounds=0)
    bd2 = Question("q", "t", cq.RECOMMEND, f"After {ITALIAN}, what does the lesson recommend for White?", "Bd2", {})
    lost = [r["id"] for r in library.store.rows("skills") if cq.answers(bd2, r)]
    assert lost  # consolidation made the skill; take it away, as a bad merge or an edit could
    library.store.table("skills").delete(" OR ".join(f"id = '{i}'" for i in lost))
    board = chess.Board()
    for san in cq.san_tokens(ITALIAN):
        board.push_san(san)
    library.store.table("positions").delete(f"epd = '{board.epd()}'")  # and its place in the position index
    assert library.evaluate_position(moves=ITALIAN, book="chess").taught.at != "this position"

    report = library.refine("chess", rounds=2)
    rows = {r["question"]: r for r in library.store.rows("questions") if r["kind"] in cq.KINDS}
    assert len(rows) >= 5
    asked = rows[bd2.question]
    assert (asked["passed_before"], asked["passed_after"]) == (False, True)
    assert report.pass_rate_after > report.pass_rate_before
    restored = [r for r in library.store.rows("skills") if cq.answers(bd2, r)]
    assert [r["author"] for r in restored] == ["refine"]
    evidence = json.loads(restored[0]["evidence"])
    assert evidence[0]["quote"] == "The right move is bishop to d2, blocking the check."
    names = [r["name"] for r in library.store.rows("skills")]
    assert len(names) == len(set(names))
    # the position index teaches the move again, with the narrator's words and time
    taught = library.evaluate_position(moves=ITALIAN, book="chess").taught
    assert taught.at == "this position"
    assert [(t.move_san, t.kind) for t in taught.moves] == [("Bd2", "recommend")]
    assert taught.moves[0].quote == "The right move is bishop to d2, blocking the check."
    assert taught.moves[0].evidence.start == evidence[0]["start"] and taught.moves[0].skill_id == restored[0]["id"]
    # the stored exam agrees: no question fell back, the chess ones all pass
    exam = library.exam("chess")
    assert not exam.regressions and all(exam.by_kind[kind] == 1.0 for kind in exam.by_kind if kind in cq.KINDS)


# -- queries that spell out moves ------------------------------------------------------------

@pytest.mark.parametrize("query,moves", [
    (f"After {ITALIAN}, what does the lesson recommend for White?", cq.san_tokens(ITALIAN)),
    ("after 1 e4 e5 2 Nf3 what should black play", ["e4", "e5", "Nf3"]),
    ("1. e4 e5 2. Ke3?? is it any good", ["e4", "e5"]),  # the legal prefix
    ("How do I play against e4?", []),  # one move names no line
    ("Bb5 a6 Ba4", []),  # not from the initial position
    ("Keep the pawns on c3, d4 and e3", []),
])
def test_a_query_names_the_moves_it_plays_from_the_start(query, moves):
    from tutorialbook.skills.chess.query import moves_in

    assert moves_in(query) == moves


def test_retrieval_puts_skills_that_continue_the_query_moves_first(library, tmp_path):
    """Every skill of an opening shares its first moves; the one that goes on from the
    question's exact position must lead in every mode."""
    path = tmp_path / "italian-game-lesson.txt"
    path.write_text("\n\n".join(LESSON) + "\n")
    library.ingest(str(path), book="chess", domain="chess", refine_rounds=0)
    query = "After 1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6, what should White play?"
    for mode in ("hybrid", "toc", "keyword", "vector"):
        top = library.retrieve(query, "chess", k=3, mode=mode).skills[0]
        assert "3. Bc4 Nf6 4. d3" in top.name or top.name.endswith("3. Bc4 Nf6, play d3"), (mode, top.name)
