"""Interrupts and history that tell the truth: an interrupt (Ctrl-C, or a cancelled call) at
any stage leaves either the finished stage with its events or nothing, and says which; an
interrupted refinement keeps its writes' events and the tutorial's questions, and ingesting
again resumes it; import-skills writes an event; a restore keeps the exam questions."""

import shutil

import pytest

from tests.support.examples import EXAMPLES
from tutorialbook.errors import Cancelled
from tutorialbook.memory.store import Store

BASICS = EXAMPLES / "sourdough-basics.md"
TROUBLE = EXAMPLES / "sourdough-troubleshooting.srt"
TABLES = ("tutorials", "segments", "nodes", "skills", "questions", "events")


def counts(library):
    return {t: library.store.count(t) for t in TABLES}


@pytest.fixture
def forgetful(monkeypatch):
    """Consolidation that misses the passages about the starter, as a lossy one could: the
    refinement that follows has facts to repair, so it writes."""
    from tutorialbook.skills import passages

    keep = passages.is_boilerplate
    monkeypatch.setattr(passages, "is_boilerplate", lambda text, *a: "starter" in text or keep(text, *a))


def interrupt_at(monkeypatch, method: str, table: str, when):
    """Ctrl-C arrives (once) just before the ``table`` write ``method`` makes, once ``when()`` holds."""
    original = getattr(Store, method)
    fired = []

    def write(self, name, *args, **kwargs):
        if name == table and not fired and when():
            fired.append(name)
            raise KeyboardInterrupt()
        return original(self, name, *args, **kwargs)

    monkeypatch.setattr(Store, method, write)


def test_ctrl_c_during_refinement_keeps_its_events_and_questions_and_reingest_resumes(library, monkeypatch,
                                                                                     forgetful):
    stage = {"repairing": False}

    def progress(done, total, message):
        stage["repairing"] = stage["repairing"] or "repairing" in message

    # the round's new skills are written, then Ctrl-C before the nodes' search text is
    interrupt_at(monkeypatch, "upsert", "nodes", lambda: stage["repairing"])
    with pytest.raises(KeyboardInterrupt) as stopped:
        library.ingest(str(BASICS), book="baking", progress=progress)
    message = str(stopped.value)
    assert "during refinement" in message and "is committed with its events" in message
    assert "resumes the refinement" in message
    monkeypatch.undo()

    (tutorial,) = library.tutorials("baking")
    assert tutorial.status == "ready"
    refine = library.history("baking", action="refine")
    assert len(refine) == 1 and "interrupted part way" in refine[0].summary
    added = refine[0].detail["skills_added"]
    assert added and refine[0].versions["skills"]
    assert {s.id for s in library.skills("baking")} >= set(added)  # the skills it wrote, with their event
    assert library.store.count("questions", f"tutorial_id = '{tutorial.id}'") == 10  # the questions are stored

    resumed = library.ingest(str(BASICS), book="baking").tutorials[0]
    assert resumed.status == "refined" and resumed.refinement == "done"
    # asked again without the forgetful consolidation
    assert resumed.questions_harvested == 13 and resumed.pass_rate_after == 1.0
    again = library.ingest(str(BASICS), book="baking").tutorials[0]
    assert again.status == "unchanged" and again.refinement == "done"


def test_cancel_during_refinement_says_the_tutorial_is_committed(library, forgetful):
    stage = {"repairing": False}

    def progress(done, total, message):
        stage["repairing"] = stage["repairing"] or "repairing" in message

    with pytest.raises(Cancelled) as stopped:
        library.ingest(str(BASICS), book="baking", progress=progress, cancel=lambda: stage["repairing"])
    assert "cancelled during refinement" in str(stopped.value) and "committed with its events" in str(stopped.value)
    assert [t.status for t in library.tutorials("baking")] == ["ready"]
    assert len(library.history("baking", action="ingest")) == 1
    assert library.store.count("questions") == 10
    assert library.ingest(str(BASICS), book="baking").tutorials[0].status == "refined"


@pytest.mark.parametrize("method, table", [("insert", "segments"), ("upsert", "skills"), ("insert", "events"),
                                           ("update", "tutorials")])
def test_ctrl_c_during_the_commit_leaves_nothing(library, monkeypatch, method, table):
    library.ingest(str(BASICS), book="baking", refine_rounds=0)
    before = counts(library)
    interrupt_at(monkeypatch, method, table, lambda: True)
    with pytest.raises(KeyboardInterrupt) as stopped:
        library.ingest(str(TROUBLE), book="baking", refine_rounds=0)
    monkeypatch.undo()
    assert "interrupted while committing" in str(stopped.value)
    assert "nothing of it was committed" in str(stopped.value)
    after = counts(library)
    logged = 2 if table == "tutorials" else 1  # the rollback's event (after the ingest's, when it was written)
    assert after["events"] == before["events"] + logged
    assert {k: v for k, v in after.items() if k != "events"} == {k: v for k, v in before.items() if k != "events"}
    assert library.history("baking")[0].action == "rollback"
    assert library.ingest(str(TROUBLE), book="baking", refine_rounds=0).tutorials[0].status == "added"


def test_cancel_before_the_commit_writes_nothing(library, tmp_path):
    library.ingest(str(BASICS), book="baking", refine_rounds=0)
    before = counts(library)
    folder = tmp_path / "more"
    folder.mkdir()
    shutil.copy(BASICS, folder / "a.md")
    shutil.copy(TROUBLE, folder / "b.srt")
    seen = {"b": False}

    def progress(done, total, message):
        seen["b"] = seen["b"] or (message.startswith("b.srt") and "consolidating" in message)

    with pytest.raises(Cancelled) as stopped:
        library.ingest(str(folder), book="baking", refine_rounds=0, progress=progress, cancel=lambda: seen["b"])
    assert "nothing was written" in str(stopped.value)
    assert "committed before it, and kept: 'Sourdough bread basics' (unchanged)" in str(stopped.value)
    assert counts(library) == before


def test_import_skills_is_an_event_and_can_be_reverted_and_restored(library, tmp_path):
    library.ingest(str(BASICS), book="baking", refine_rounds=0)
    export = library.export_skills("baking", str(tmp_path / "skills"))
    folder = tmp_path / "skills" / export.skills[0].folder
    skill_md = folder / "SKILL.md"
    skill_md.write_text(skill_md.read_text().replace("## Steps\n", "## Steps\n\n1. A step added by hand.\n", 1))
    point = library.history("baking")[0].id
    before = {s.id: s.steps for s in library.skills("baking")}

    report = library.import_skills("baking", str(tmp_path / "skills"), agent="editor")
    assert report.updated == 1 and report.event_id
    (event,) = library.history("baking", action="import-skills")
    assert event.agent == "editor" and event.id == report.event_id and event.versions["skills"]
    changed = event.detail["skills_before"][0]["id"]
    assert library.skill(changed).steps != before[changed]

    library.restore("baking", to=point)  # to before the import
    assert {s.id: s.steps for s in library.skills("baking")} == before
    assert [e.action for e in library.history("baking")][:2] == ["restore", "import-skills"]


def test_restore_to_an_ingest_keeps_the_exam_questions(library):
    library.ingest(str(BASICS), book="baking")
    library.ingest(str(TROUBLE), book="baking")
    first = library.tutorials("baking")[0]
    questions = {r["id"] for r in library.store.rows("questions", f"tutorial_id = '{first.id}'")}
    assert len(questions) == 10
    point = library.history("baking", action="ingest")[-1]  # the first tutorial's ingest, before its refinement
    library.restore("baking", to=point.id)
    assert [t.id for t in library.tutorials("baking")] == [first.id]  # the tutorial is back, ready
    assert {r["id"] for r in library.store.rows("questions", "book = 'baking'")} == questions
    exam = library.exam("baking")
    assert exam.questions == 10
