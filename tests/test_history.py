"""History: who wrote what, when; reverting one lesson or one skill edit without losing later
writes; restoring one book without touching the others; the history/restore CLI."""

import json
import subprocess
import sys
import time

import pytest

from tests.support.examples import EXAMPLES, reteaching_tutorial
from tutorialbook.errors import NotFound, TutorialbookError
from tutorialbook.library import Library

BASICS = EXAMPLES / "sourdough-basics.md"
TROUBLE = EXAMPLES / "sourdough-troubleshooting.srt"


@pytest.fixture
def two_ingests(library, tmp_path):
    """'baking' from two tutorials by two agents; the second extends one skill of the first."""
    library.ingest(str(BASICS), book="baking", refine_rounds=0, agent="ingester-a")
    report = library.ingest(str(reteaching_tutorial(tmp_path)), book="baking", refine_rounds=0,
                            agent="ingester-b").tutorials[0]
    assert report.skills_updated == 1
    return library


def updated_skill(library):
    event = library.history("baking", action="ingest")[0]
    (before,) = event.detail["skills_before"]
    return before["id"]


def test_history_says_who_wrote_what_when(two_ingests):
    library = two_ingests
    t0 = time.time()
    skill = library.retrieve("score the loaf", "baking", k=1).skills[0]
    lesson = library.record_lesson("A curved blade gives a bigger ear.", "baking", "success", skill_id=skill.id,
                                   agent="alice")
    library.record_lessons([{"lesson": "Rye flour wakes a sluggish starter."},
                            {"lesson": "rye flour wakes a SLUGGISH starter"}], "baking", agent="bob")
    events = library.history("baking")
    assert [(e.agent, e.action) for e in events] == [
        ("bob", "lesson"), ("bob", "lesson"), ("alice", "lesson"), ("ingester-b", "ingest"), ("ingester-a", "ingest")]
    newest = events[0]
    assert "merged (x2)" in newest.summary and newest.versions["lessons"] >= 1
    assert events[2].target == lesson.lesson_id and f"helpful {skill.id}" in events[2].summary
    assert events[2].at >= t0 and events[2].time.endswith("Z")
    assert events[3].versions.keys() >= {"tutorials", "nodes", "skills"}
    assert {r["agent"] for r in library.store.rows("lessons")} == {"alice", "bob"}  # the rows carry it too
    assert [e.agent for e in library.history("baking", limit=2)] == ["bob", "bob"]
    with pytest.raises(NotFound) as missing:
        library.history("nosuch")
    assert missing.value.field == "book"


def test_revert_lesson_keeps_later_writes_and_takes_back_its_feedback(two_ingests):
    library = two_ingests
    skill = library.retrieve("score the loaf", "baking", k=1).skills[0]
    bad = library.record_lesson("Scoring is pointless.", "baking", "failure", skill_id=skill.id, agent="mallory")
    later = library.record_lesson("A razor at a shallow angle opens the ear.", "baking", "success",
                                  skill_id=skill.id, agent="alice")
    other = library.record_lesson("Bake until the crust is deep brown.", "baking", agent="bob")
    counts = library.store.get("skills", skill.id)
    assert (counts["helpful"], counts["harmful"]) == (skill.helpful + 1, skill.harmful + 1)

    report = library.revert_lesson(bad.lesson_id, agent="moderator")
    assert report.feedback_undone == {skill.id: {"harmful": 1}}
    ids = {r["id"] for r in library.store.rows("lessons")}
    assert bad.lesson_id not in ids and {later.lesson_id, other.lesson_id} <= ids
    counts = library.store.get("skills", skill.id)
    assert (counts["helpful"], counts["harmful"]) == (skill.helpful + 1, skill.harmful)  # later feedback kept
    event = library.history("baking", action="revert-lesson")[0]
    assert event.agent == "moderator" and event.detail["before"]["text"] == "Scoring is pointless."
    with pytest.raises(NotFound):
        library.revert_lesson(bad.lesson_id)
    # recorded again later, it is a new lesson with its own feedback, and can be reverted again
    again = library.record_lesson("Scoring is pointless.", "baking", "failure", skill_id=skill.id)
    assert not again.merged
    assert library.revert_lesson(again.lesson_id).feedback_undone == {skill.id: {"harmful": 1}}


def test_revert_skill_edit_keeps_later_writes(two_ingests):
    library = two_ingests
    skill_id = updated_skill(library)
    now = library.store.get("skills", skill_id)
    assert now["version"] == 2 and now["sources"] == 2
    lesson = library.record_lesson("Doubling in six hours held in a cold kitchen too.", "baking", "success",
                                   skill_id=skill_id, agent="alice")
    unrelated = library.record_lesson("Steam in the first minutes gives a glossy crust.", "baking", agent="bob")

    report = library.revert_skill(skill_id, agent="editor")
    assert (report.from_version, report.to_version, report.new_version) == (2, 1, 3)
    reverted = library.store.get("skills", skill_id)
    assert reverted["version"] == 3 and reverted["sources"] == 1
    assert len(json.loads(reverted["evidence"])) == 1
    assert reverted["helpful"] == now["helpful"] + 1  # feedback given after the edit is kept
    assert {lesson.lesson_id, unrelated.lesson_id} <= {r["id"] for r in library.store.rows("lessons")}
    assert library.store.count("tutorials", "status = 'ready'") == 2
    assert library.retrieve("starter doubles within six hours", "baking", k=3).skills  # still searchable

    # the revert is an edit too: going back to version 2 brings the second source back
    library.revert_skill(skill_id, version=2)
    back = library.store.get("skills", skill_id)
    assert back["version"] == 4 and back["sources"] == 2 and back["evidence"] == now["evidence"]
    with pytest.raises(TutorialbookError) as bad:
        library.revert_skill(skill_id, version=9)
    assert bad.value.field == "version"


def test_revert_skill_edit_made_without_an_event_uses_the_undo_log(two_ingests):
    library = two_ingests
    skill_id = updated_skill(library)
    row = {k: v for k, v in library.store.get("skills", skill_id).items() if not k.startswith("_")}
    edited = dict(row, name="An edit made behind history's back", version=row["version"] + 1)
    library.store.upsert("skills", [edited])  # a write path that logs no event
    report = library.revert_skill(skill_id)
    assert report.to_version == row["version"]
    assert library.store.get("skills", skill_id)["name"] == row["name"]


def test_restore_one_book_leaves_the_others(library):
    library.ingest(str(BASICS), book="baking", refine_rounds=0, agent="a")
    library.record_lesson("Keep the starter at 24 C.", "baking", agent="a")
    point = library.history("baking")[0].id
    library.ensure_book("other")
    library.record_lesson("Unrelated lesson in another book.", "other", agent="c")
    library.ingest(str(TROUBLE), book="baking", refine_rounds=0, agent="b")
    library.record_lesson("This one came after the restore point.", "baking", agent="b")
    before = {b.name: b for b in library.books()}
    assert before["baking"].tutorials == 2

    report = library.restore("baking", to=point, agent="admin")
    after = {b.name: b for b in library.books()}
    assert after["baking"].tutorials == 1 and after["baking"].lessons == 1
    assert after["other"].lessons == 1  # another book's later write survives
    assert [r["text"] for r in library.store.rows("lessons", "book = 'baking'")] == ["Keep the starter at 24 C."]
    changed = {t.table for t in report.tables if t.new_version}
    assert {"tutorials", "segments", "skills", "lessons"} <= changed
    assert library.history("baking")[0].action == "restore"
    # the restore is a version like any other: restore to just before it undoes it
    library.restore("baking", to=library.history("baking")[1].id)
    assert {b.name: b for b in library.books()}["baking"].tutorials == 2
    with pytest.raises(TutorialbookError):
        library.restore("baking", at="not a time")
    with pytest.raises(TutorialbookError):
        library.restore("baking", at=1.0)  # before the book existed: nothing to restore to


def test_history_shows_a_lesson_whose_event_was_never_written(library):
    library.ensure_book("baking")
    row = {"id": "l_orphan", "book": "baking", "text": "Written by a writer killed before its event.",
           "outcome": "note", "agent": "ghost", "node_id": library.tree("baking").root_id, "merged_count": 1,
           "created_at": time.time(), "vector": library.embed(["x"])[0]}
    library.store.insert("lessons", [row])
    (event,) = library.history("baking")
    assert (event.agent, event.target, event.logged) == ("ghost", "l_orphan", False)


def test_history_restore_and_revert_on_the_command_line(two_ingests, store_path):
    library = two_ingests
    lesson = library.record_lesson("Shape the loaf tightly.", "baking", agent="cli-test")

    def cli(*args):
        done = subprocess.run([sys.executable, "-m", "tutorialbook.server", "--store", str(store_path), *args],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return done.stdout

    human = cli("revert-lesson", lesson.lesson_id)
    assert lesson.lesson_id in human
    lines = cli("history", "--book", "baking").splitlines()
    assert [line.split()[2] for line in lines] == ["revert-lesson", "lesson", "ingest", "ingest"]
    assert lines[1].split()[1] == "cli-test" and lines[3].split()[1] == "ingester-a"
    first = lines[3].split()[-1]
    restored = json.loads(cli("restore", "--book", "baking", "--to", first, "--json"))
    assert restored["book"] == "baking" and Library(store=str(store_path)).books()[0].tutorials == 1
