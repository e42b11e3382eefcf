"""Ingest cost that does not grow with the book: what one ingest reads and rewrites, the exam
kept separate, and retention upkeep that keeps what history and restore promise."""

import threading
import time

import pytest

from tests.support.examples import EXAMPLES, reteaching_tutorial
from tutorialbook.library import Library
from tutorialbook.memory import retention
from tutorialbook.skills import candidates

BASICS = EXAMPLES / "sourdough-basics.md"
TROUBLE = EXAMPLES / "sourdough-troubleshooting.srt"


def asked(library, monkeypatch) -> list[str]:
    """Every question the memory is asked from now on (refinement and exam go through rank_skills)."""
    seen: list[str] = []
    real = library.refinement._rank_skills  # the ranking refinement and exam are handed

    def spy(query, *args, **kwargs):
        seen.append(query)
        return real(query, *args, **kwargs)

    monkeypatch.setattr(library.refinement, "_rank_skills", spy)
    return seen


def test_an_ingest_asks_only_its_own_questions_and_exam_asks_the_earlier_ones(library, tmp_path, monkeypatch):
    library.ingest(str(BASICS), book="baking")
    library.ingest(str(TROUBLE), book="baking")
    earlier = {r["question"] for r in library.store.rows("questions")}
    assert earlier
    seen = asked(library, monkeypatch)
    report = library.ingest(str(reteaching_tutorial(tmp_path)), book="baking").tutorials[0]
    own = {r["question"] for r in library.store.rows("questions", f"tutorial_id = '{report.tutorial_id}'")}
    assert report.questions_harvested == len(own) > 0
    assert set(seen) <= own and not (set(seen) & (earlier - own))  # the earlier tutorials' were not re-asked
    seen.clear()
    exam = library.exam("baking")
    assert exam.questions == library.store.count("questions")
    assert (earlier - own) <= set(seen)  # the separate exam re-asks them


BIKE = """# Bicycle chain care

## Cleaning the chain

Shift onto the smallest cog at the back before you clean anything. Hold a rag around the lower run
of the chain and turn the pedals backwards. Always use a proper degreaser rather than dish soap.

## Oiling the chain

Let the chain dry completely before you add any oil. Put one drop of lubricant on each roller while
turning the cranks. Wipe off the excess oil after a few minutes, or it will collect grit.
"""


def test_consolidation_scores_candidates_and_rewrites_only_what_it_merges_into(library, tmp_path, monkeypatch):
    monkeypatch.setattr(candidates, "ALL_BELOW", 0)  # every chapter lookup goes through the indexes
    bike = tmp_path / "bicycle-chain.md"
    bike.write_text(BIKE)
    library.ingest(str(BASICS), book="baking", refine_rounds=0)
    chain = library.ingest(str(bike), book="baking", refine_rounds=0).tutorials[0]
    nodes = {r["id"]: (r["evidence"], r["text"]) for r in library.store.rows("nodes", "book = 'baking'")}
    upserted: list[str] = []
    real = library.store.upsert

    def spy(name, rows, *args, **kwargs):
        if name == "nodes":
            upserted.extend(r["id"] for r in rows)
        return real(name, rows, *args, **kwargs)

    monkeypatch.setattr(library.store, "upsert", spy)
    report = library.ingest(str(reteaching_tutorial(tmp_path)), book="baking", refine_rounds=0).tutorials[0]
    assert report.skills_updated == 1  # the passage taught again still finds its skill and chapter
    after = {r["id"]: r for r in library.store.rows("nodes", "book = 'baking'")}
    rewritten = {i for i, t in nodes.items() if (after[i]["evidence"], after[i]["text"]) != t}
    bike_nodes = {i for i, r in after.items() if r["origin"] == chain.tutorial_id}
    assert bike_nodes and not (rewritten & bike_nodes)  # a chapter it did not merge into was not rewritten
    new = {i for i, r in after.items() if r["origin"] == report.tutorial_id}
    assert set(upserted) <= new | rewritten  # written: its own nodes, and those it merged into
    assert upserted and not (set(upserted) & bike_nodes)  # nor even written again unchanged


def test_upkeep_compacts_and_keeps_history_and_restore_within_the_window(store_path):
    library = Library(store=str(store_path), keep_versions_seconds=retention.MIN_KEEP_SECONDS)
    library.ingest(str(BASICS), book="baking", refine_rounds=0, agent="a")
    point = library.history("baking")[0].id
    library.ingest(str(TROUBLE), book="baking", refine_rounds=0, agent="b")
    library.record_lesson("Keep the starter at 24 C.", "baking", agent="c")
    versions = len(library.store.version_history("skills"))
    done = {t.table: t for t in library.upkeep()}
    assert done["skills"].fragments_removed >= 2 and done["skills"].fragments_added == 1
    assert len(library.store.version_history("skills")) >= versions  # inside the window nothing is pruned
    events = [e.action for e in library.history("baking")]
    assert events[:3] == ["lesson", "ingest", "ingest"]
    # retention keeps a 1 s margin before the version current when the window opened: on a fast
    # machine every version above was made within that second, so let the restore come later
    time.sleep(1.5)
    library.restore("baking", to=point)  # a moment inside the window restores after upkeep
    assert {b.name: b for b in library.books()}["baking"].tutorials == 1
    # a later upkeep, once those moments are past the window, prunes them; the latest stays whole
    later = time.time() + 10 * retention.MIN_KEEP_SECONDS
    pruned = {t.table: t for t in retention.upkeep(library.store, library.retention, now=later)}
    assert pruned["skills"].versions_after < pruned["skills"].versions_before
    assert {b.name: b for b in library.books()}["baking"].tutorials == 1
    assert library.history("baking")[0].action == "restore"  # history lives in the events table


def test_upkeep_under_a_concurrent_reader_loses_nothing(store_path):
    library = Library(store=str(store_path), keep_versions_seconds=retention.MIN_KEEP_SECONDS)
    library.ingest(str(BASICS), book="baking", refine_rounds=0)
    library.ingest(str(TROUBLE), book="baking", refine_rounds=0)
    expected = sorted(s.id for s in library.skills("baking"))
    reader = Library(store=str(store_path))
    failures: list[BaseException] = []
    counts: list[int] = []
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            try:
                counts.append(len(reader.retrieve("feed the starter", "baking", k=3).skills))
                assert sorted(s.id for s in reader.skills("baking")) == expected
            except BaseException as exc:  # noqa: BLE001 - reported below
                failures.append(exc)
                return

    thread = threading.Thread(target=read)
    thread.start()
    try:
        for _ in range(3):
            library.upkeep()
    finally:
        stop.set()
        thread.join()
    assert not failures, failures
    assert counts and all(c == 3 for c in counts)
    assert sorted(s.id for s in library.skills("baking")) == expected


def fragments(library) -> dict[str, int]:
    out = {}
    for name in retention.existing_tables(library.store):
        stats = library.store.table(name).stats()
        out[name] = stats["fragment_stats"]["num_fragments"] if isinstance(stats, dict) \
            else stats.fragment_stats.num_fragments
    return out


def test_ingest_runs_upkeep_once_enough_versions_accumulated(tmp_path):
    kept = Library(store=str(tmp_path / "kept"), upkeep_every=3)
    piled = Library(store=str(tmp_path / "piled"), upkeep_every=0)  # 0: only `tutorialbook upkeep`
    for library in (kept, piled):
        library.ingest(str(BASICS), book="baking", refine_rounds=0)
        library.ingest(str(TROUBLE), book="baking", refine_rounds=0)
    data = {name: n for name, n in fragments(kept).items() if name not in retention.HISTORY}
    assert max(data.values()) <= 3  # compacted every few commits
    assert max(fragments(kept).values()) <= 3 * retention.HISTORY_FACTOR  # the history tables less often
    assert sum(fragments(kept).values()) < sum(fragments(piled).values())
    assert retention.due(kept.store, kept.retention) == []


def test_retention_settings_are_checked(monkeypatch):
    monkeypatch.setenv("TUTORIALBOOK_KEEP_VERSIONS_SECONDS", "-1")
    from tutorialbook.config import Settings
    from tutorialbook.errors import TutorialbookError

    with pytest.raises(TutorialbookError):
        Settings()


def test_upkeep_on_the_command_line(store_path):
    import json
    import subprocess
    import sys

    Library(store=str(store_path)).ingest(str(BASICS), book="baking", refine_rounds=0)
    done = subprocess.run([sys.executable, "-m", "tutorialbook.server", "--store", str(store_path), "upkeep", "--json"],
                          capture_output=True, text=True, check=True)
    tables = {t["table"]: t for t in json.loads(done.stdout)}
    assert tables["skills"]["fragments_added"] <= 1 and tables["skills"]["versions_after"] >= 1
    human = subprocess.run([sys.executable, "-m", "tutorialbook.server", "--store", str(store_path), "upkeep"],
                           capture_output=True, text=True, check=True).stdout
    assert "skills" in human and "versions" in human
    assert Library(store=str(store_path)).tutorials("baking")[0].title  # nothing lost
