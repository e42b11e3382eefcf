"""evaluate_position's grounding (skills/chess/positions.py): what the tutorials teach at a
position, read on a worker thread beside the search and cached per table version."""

import json
from pathlib import Path

import pytest

from tutorialbook.errors import NotFound
from tutorialbook.skills.chess import engine as chess_engine, positions

from test_chess_questions import ITALIAN, LESSON

RUY_LOPEZ = Path(__file__).resolve().parents[1] / "bench" / "data" / "chess_lessons" / "ruy_lopez.json"
MORPHY = "e4 e5 Nf3 Nc6 Bb5 a6"


def ingest(library, path: Path, sentences: list[str]) -> None:
    path.write_text("\n\n".join(sentences) + "\n")
    library.ingest(str(path), book="chess", domain="chess", refine_rounds=0)


def test_report_keeps_taught_moves_related_skills_and_engine_apart(library, tmp_path):
    ingest(library, tmp_path / "italian.txt", LESSON)
    report = library.evaluate_position(moves=ITALIAN, book="chess", depth=4, multipv=2)
    assert report.engine.source == "engine" and len(report.engine.lines) == 2
    assert report.opening.name.startswith("Italian Game")
    taught = report.taught
    assert taught.at == "this position" and taught.fen == chess_engine.parse_position(moves=ITALIAN).fen()
    assert [(m.move_san, m.kind) for m in taught.moves] == [("Bd2", "recommend"), ("Kf1", "avoid")]
    assert taught.moves[0].quote == "The right move is bishop to d2, blocking the check."
    assert taught.moves[0].evidence.quote == taught.moves[0].quote and taught.moves[0].evidence.link
    # the taught moves' skills first, in their order, then the opening's by name
    ids = [s.id for s in report.related_skills]
    assert ids[:2] == [m.skill_id for m in taught.moves] and len(ids) == len(set(ids)) > 2
    assert all(s.name.startswith("Italian Game") for s in report.related_skills)
    # a cached answer is not shared: changing one report leaves the next intact
    taught.moves.clear()
    assert len(library.evaluate_position(moves=ITALIAN, book="chess", depth=1).taught.moves) == 2


def test_the_first_call_after_an_ingest_sees_it(library, tmp_path):
    ingest(library, tmp_path / "italian.txt", LESSON)
    before = library.evaluate_position(moves=MORPHY, book="chess", depth=1).taught
    assert (before.at, before.plies_back, [m.move_san for m in before.moves]) == ("earlier position", 2, ["Bc4"])
    ingest(library, tmp_path / "ruy-lopez.txt", json.loads(RUY_LOPEZ.read_text())["sentences"])
    report = library.evaluate_position(moves=MORPHY, book="chess", depth=1)
    assert report.taught.at == "this position" and "Ba4" in [m.move_san for m in report.taught.moves]
    assert any(s.name.startswith("Ruy Lopez") for s in report.related_skills)
    # the same answer without the book, and from the position index on its own
    assert library.evaluate_position(moves=MORPHY, depth=1).taught == report.taught
    assert positions.taught_at(library.store, chess_engine.parse_position(moves=MORPHY), "chess") == report.taught


def test_a_missing_book_is_named(library, tmp_path):
    ingest(library, tmp_path / "italian.txt", LESSON)
    with pytest.raises(NotFound) as err:
        library.evaluate_position(moves=ITALIAN, book="openings", depth=1)
    assert err.value.field == "book" and "chess" in str(err.value)
