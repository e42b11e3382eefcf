"""Adversarial refinement: harvested questions, answers from memory alone, repairs, the exam."""

import json
import os
import re
import subprocess
import sys

import pytest

from tests.support.examples import ROOT
from tutorialbook.errors import NotFound, TutorialbookError
from tutorialbook.memory.where import in_list
from tutorialbook.skills import questions as qs
from tutorialbook.skills.questions import HarvestSource
from tutorialbook.acquire.sources import parse_markdown

# Facts stated plainly ("… is …", "… holds …") are not instructions, so the first, extractive
# consolidation keeps no skill for them; the questions ask about exactly those facts.
PAN = """# Cast-iron pan care

A cast-iron pan rewards a little care with a lifetime of service.

## Seasoning

Seasoning is a thin layer of polymerised oil baked onto the iron.
A well-seasoned pan is black and slightly glossy.
Rub a very thin film of flaxseed oil over the whole pan.
Bake the pan upside down at two hundred and thirty degrees for one hour.
Never store the pan with a lid on, or moisture gets trapped and it rusts.

## Cooking and cleaning

Cast iron holds heat for about ten minutes after the burner is turned off.
Acidic sauces such as tomato strip fresh seasoning within twenty minutes.

To clean the pan after cooking:
1. Scrape out food scraps with a wooden spatula.
2. Rinse the pan under hot water without soap.
3. Dry the pan on a low burner until every drop has evaporated.

A thin coat of rust is harmless and scrubs off with steel wool.
"""


@pytest.fixture
def pan(tmp_path):
    path = tmp_path / "cast-iron-care.md"
    path.write_text(PAN)
    return path


def names(library, book):
    return [r["name"] for r in library.store.rows("skills", f"book = '{book}'")]


def evidence_by_skill(library):
    return {r["id"]: json.loads(r["evidence"]) for r in library.store.rows("skills")}


def holding(library, phrase):
    return [r for r in library.store.rows("skills") if qs.contains(qs.skill_body(r), phrase)]


def test_refinement_repairs_what_the_first_consolidation_missed(library, pan):
    report = library.ingest(str(pan), book="kitchen", domain="general", refine_rounds=0).tutorials[0]
    assert report.questions_harvested == 0 and report.pass_rate_before is None
    # consolidation keeps every passage, plain facts included; lose two of them to see them repaired
    lost = holding(library, "about ten minutes") + holding(library, "polymerised oil")
    assert len(lost) == 2, "a plain fact is part of a passage skill after consolidation"
    library.store.delete("skills", in_list("id", [r["id"] for r in lost]))
    assert not holding(library, "about ten minutes")
    evidence_before = evidence_by_skill(library)

    result = library.refine("kitchen", rounds=2)
    assert result.questions >= 10
    assert result.pass_rate_after > result.pass_rate_before
    assert result.pass_rate_after >= 0.9, [f.question for f in result.failures]
    tutorial = result.tutorials[0]
    assert tutorial.skills_added >= 2 and tutorial.rounds >= 1

    # the facts are skills now, each under the node that covers its span, with its evidence
    (heat,) = holding(library, "Cast iron holds heat for about ten minutes after the burner is turned off")
    view = library.skill(heat["id"])
    assert view.path[-1] == "Cooking and cleaning" and view.author == "refine"
    text = pan.read_text()
    assert view.evidence[0].quote.startswith("Cast iron holds heat")
    assert view.evidence[0].quote in text[int(view.evidence[0].start):int(view.evidence[0].end)]
    assert library.skill(holding(library, "polymerised oil")[0]["id"]).path[-1] == "Seasoning"

    # nothing duplicated, no evidence lost
    all_names = [qs.norm(n) for n in names(library, "kitchen")]
    assert len(all_names) == len(set(all_names))
    after = evidence_by_skill(library)
    for skill_id, spans in evidence_before.items():
        assert skill_id in after
        assert all(span in after[skill_id] for span in spans)

    # the exam re-asks the stored questions: what refinement fixed stays fixed
    rows = {r["id"]: r for r in library.store.rows("questions")}
    assert len(rows) == result.questions
    fixed = {i for i, r in rows.items() if not r["passed_before"] and r["passed_after"]}
    assert fixed
    exam = library.exam("kitchen")
    assert exam.questions == result.questions and not exam.regressions
    assert not fixed & {f.id for f in exam.failures}
    assert exam.pass_rate == pytest.approx(result.pass_rate_after)


def test_a_repair_round_asks_only_the_failed_questions_again(library, pan, monkeypatch):
    """After a repair the questions that failed are asked again, not the whole exam; those that
    passed keep their answer, and the stored results agree with a full exam afterwards."""
    from tutorialbook.skills.refine import Refiner

    library.ingest(str(pan), book="kitchen", domain="general", refine_rounds=0)
    library.store.delete("skills", in_list("id", [r["id"] for r in holding(library, "about ten minutes")]))
    asked: list[list[str]] = []
    examine = Refiner.examine

    def recording(self, questions, pack=None, cancel=None):
        asked.append([q.id for q in questions])
        return examine(self, questions, pack, cancel)

    monkeypatch.setattr(Refiner, "examine", recording)
    result = library.refine("kitchen", rounds=1)
    monkeypatch.undo()
    rows = {r["id"]: r for r in library.store.rows("questions")}
    failed_first = {i for i, r in rows.items() if not r["passed_before"]}
    assert len(asked) == 2 and set(asked[0]) == set(rows) and failed_first
    assert set(asked[1]) == failed_first != set(rows)  # the second examination: the failures only
    assert {i for i, r in rows.items() if r["passed_before"]} <= {i for i, r in rows.items() if r["passed_after"]}
    exam = library.exam("kitchen")
    assert exam.pass_rate == pytest.approx(result.pass_rate_after) and not exam.regressions


def test_ingest_refines_by_default_and_keeps_the_exam(library, pan):
    report = library.ingest(str(pan), book="kitchen", domain="general").tutorials[0]
    assert report.questions_harvested >= 10
    assert report.pass_rate_after >= report.pass_rate_before and report.pass_rate_after >= 0.9
    assert report.stage_seconds["refine"] > 0
    stored = library.store.rows("questions")
    assert len(stored) == report.questions_harvested
    assert {r["kind"] for r in stored} == {"what", "avoid", "next_step", "cloze"}  # clozes fill a short exam
    for row in stored:
        evidence = json.loads(row["evidence"])
        assert evidence["tutorial_id"] == report.tutorial_id and qs.contains(evidence["quote"], row["answer"])
    again = library.ingest(str(pan), book="kitchen", domain="general").tutorials[0]
    assert again.status == "unchanged"
    assert (again.questions_harvested, again.pass_rate_before, again.pass_rate_after) == \
        (report.questions_harvested, report.pass_rate_before, report.pass_rate_after)


def test_refining_again_changes_nothing(library, pan):
    library.ingest(str(pan), book="kitchen", domain="general", refine_rounds=2)
    skills = sorted(names(library, "kitchen"))
    question_ids = sorted(r["id"] for r in library.store.rows("questions"))
    result = library.refine("kitchen")
    assert sorted(names(library, "kitchen")) == skills
    assert sorted(r["id"] for r in library.store.rows("questions")) == question_ids
    assert result.pass_rate_before == result.pass_rate_after


def test_harvest_is_deterministic_and_grounded():
    transcript = parse_markdown(PAN)
    source = HarvestSource("t_pan", "Cast-iron pan care", transcript.segments, timed=False,
                           sections=[(0.0, 999.0, "Seasoning")])
    first, second = qs.harvest(source), qs.harvest(source)
    assert [vars(q) for q in first] == [vars(q) for q in second]
    by_answer = {q.answer: q for q in first}
    # a number (with its unit) blanked in a factual, non-instructive sentence
    assert by_answer["ten minutes"].question == (
        f"Fill in the blank: Cast iron holds heat for about {qs.BLANK} after the burner is turned off.")
    # a prohibition, and the step that follows another in a numbered procedure
    avoid = by_answer["store the pan with a lid on"]
    assert avoid.kind == "avoid" and avoid.question.startswith("What should you never do")
    step = by_answer["Dry the pan on a low burner until"]
    assert step.kind == "next_step" and "Rinse the pan under hot water without soap" in step.question
    for q in first:
        assert qs.contains(q.evidence["quote"], q.answer)
        span = PAN[int(q.evidence["start"]):int(q.evidence["end"])]
        assert q.evidence["quote"].split()[0] in span


def test_grading_needs_the_answer_in_a_skill_about_the_question():
    q = qs.Question("q", "t", "cloze", f"Fill in the blank: The dough is done when it has grown by about {qs.BLANK}.",
                    "half", {})
    right = {"id": "a", "name": "The dough is done when it has grown by about half", "steps": "[]"}
    stray = {"id": "b", "name": "Cut the lemon in half", "steps": "[]"}
    assert qs.grade(q, [stray]).passed is False
    assert qs.grade(q, [stray, right]) == qs.Verdict(True, "a", 2)


def test_a_pack_can_add_generators_and_graders():
    class Pack:
        name = "toy"

        def question_generators(self):
            def gen(source):
                s = source.segments[0]
                yield qs.Candidate("toy", "What colour is the pan?", "black", s, "A pan is black.", 5.0)
            return [gen]

        def question_graders(self):
            return {"toy": lambda q, skill: skill["id"] == "x"}

    source = HarvestSource("t", "T", parse_markdown("A pan is black and heavy.\n").segments)
    found = qs.harvest(source, qs.generators_for(Pack()))
    (toy,) = [q for q in found if q.kind == "toy"]
    assert (toy.question, toy.answer, toy.evidence["quote"]) == ("What colour is the pan?", "black", "A pan is black.")
    assert qs.grade(toy, [{"id": "y"}, {"id": "x"}], Pack()) == qs.Verdict(True, "x", 2)
    assert not qs.grade(toy, [{"id": "y"}], Pack()).passed and not qs.grade(toy, [], Pack()).passed


def test_no_blank_is_asked_in_a_code_block(tmp_path):
    """A cloze is a key sentence with a word blanked: a query's output table ("city | temp_lo |
    … (_____ rows)") holds none, and PostgreSQL's tutorial had such a question, whose repair wrote
    the table into a skill's "when to use". Stored segments keep no kind: code told by its look."""
    import dataclasses

    text = ("# Deletions\n\nRows are removed from a table with the DELETE command, and 2 rows remain afterwards.\n\n"
            "```\n     city      | temp_lo | temp_hi | prcp |    date\n"
            "---------------+---------+---------+------+------------\n"
            " San Francisco |      46 |      50 | 0.25 | 1994-11-27\n"
            " San Francisco |      41 |      55 |    0 | 1994-11-29\n(2 rows)\n```\n")
    parsed = parse_markdown(text).segments
    for segments in (parsed, [dataclasses.replace(s, kind="text") for s in parsed]):
        found = qs.harvest(HarvestSource("t", "Deletions", segments), [qs.cloze_questions])
        assert [q.evidence["quote"] for q in found] == [
            "Rows are removed from a table with the DELETE command, and 2 rows remain afterwards."]


def test_bad_refine_calls_name_the_field(library, pan):
    with pytest.raises(NotFound) as info:
        library.refine("nosuch")
    assert info.value.field == "book" and "no book named 'nosuch'" in info.value.reason
    with pytest.raises(NotFound):
        library.exam("nosuch")
    library.ingest(str(pan), book="kitchen", domain="general", refine_rounds=0)
    with pytest.raises(TutorialbookError) as info:
        library.refine("kitchen", rounds=0)
    assert info.value.field == "rounds"
    with pytest.raises(TutorialbookError) as info:
        library.ingest(str(pan), book="kitchen", refine_rounds=-1)
    assert info.value.field == "refine_rounds"
    assert library.exam("kitchen").questions == 0  # nothing harvested yet: an empty exam, with a note


def test_cli_refine_and_exam(tmp_path, pan):
    store = tmp_path / "store"

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "tutorialbook.server", "--store", str(store), *args],
                              capture_output=True, text=True, cwd=ROOT, env=dict(os.environ))

    out = cli("ingest", str(pan), "--book", "kitchen", "--domain", "general", "--refine-rounds", "0")
    assert out.returncode == 0 and "exam:" not in out.stdout
    out = cli("refine", "--book", "kitchen", "--rounds", "2")
    assert out.returncode == 0 and "kitchen: " in out.stdout and "→" in out.stdout, out.stderr
    exam = cli("exam", "--book", "kitchen", "--json")
    assert exam.returncode == 0, exam.stdout
    report = json.loads(exam.stdout)
    assert report["questions"] >= 10 and report["regressions"] == []
    missing = cli("exam", "--book", "nosuch")
    assert missing.returncode == 2 and "no book named 'nosuch'" in missing.stderr


# A tutorial none of whose questions should be a cloze: each sentence has a structure a learner
# asks about (a purpose and its means, a definition, a reason, a condition, a code block).
GARDEN = """# Watering a vegetable garden

## Soil

To check whether the bed needs water, push a finger five centimetres into the soil.
Mulch is a layer of straw or bark spread over the soil.
Keep watering to the early morning because the leaves then dry before the evening chill.
If the soil sticks to your finger, wait another day before watering.

## The timer

Set the irrigation timer with the controller's command line:

    timer --zone beds --start 06:00 --minutes 20
"""


def garden_source():
    transcript = parse_markdown(GARDEN)
    first, rest = transcript.segments[0], transcript.segments[1:]
    sections = [(first.start, first.end, "Soil"), (rest[0].start, rest[-1].end, "The timer")]
    return HarvestSource("t_garden", "Watering a vegetable garden", transcript.segments, timed=False,
                         sections=sections)


def test_learner_questions_ask_in_other_words_and_hold_back_the_answer():
    questions = qs.harvest(garden_source())
    by_kind = {q.kind: q for q in questions}
    assert {"how", "what", "why", "behaviour", "code"} <= set(by_kind)
    assert by_kind["how"].question == "How do I check whether the bed needs water?"
    assert qs.contains("push a finger five centimetres", by_kind["how"].answer)
    assert by_kind["what"].question == "What is Mulch?" and by_kind["what"].answer.startswith("a layer of straw")
    assert by_kind["why"].question == "Why should I keep watering to the early morning?"
    assert qs.contains(by_kind["why"].answer, "the leaves")
    assert by_kind["behaviour"].question == "What happens when the soil sticks to my finger?"
    assert by_kind["code"].question == "What code do I write to set the irrigation timer with the controller's " \
        "command line (The timer)?"
    assert "timer --zone beds" in by_kind["code"].answer
    for q in questions:
        if q.kind in qs.LEARNER_KINDS:
            assert not qs.contains(q.question, q.answer)  # the question does not give the answer away
            assert qs.contains(GARDEN, q.answer) and qs.contains(q.evidence["quote"], q.answer)
            assert not q.question.startswith("Fill in the blank")
    # clozes only fill a short tutorial's exam up to MIN_QUESTIONS
    assert sum(q.kind == "cloze" for q in questions) <= max(0, qs.MIN_QUESTIONS - sum(
        q.kind != "cloze" for q in questions))


#: sentences whose question could not be told apart from any other page's: the condition or fact
#: points back to something named before ("this option", "it", a subject left out), is not the main
#: clause, or states what a tool permits of a thing rather than a goal of the learner's
BACK_REFERENCES = """
If not specified, the server listens on every address.

When this option is set, the dump holds no data.

This is much faster because the index is never read.

Because the file is small, it loads quickly since nothing is cached.

The library allows user programs to deal with dates.

The planner allows dictionaries to be created by unprivileged users.

To select this output format, use the --normal option.

Below is a summary of the options.

When you do so, the method is called from thereon.

When applicable, include the version of the compiler.

SELECT EXTRACT(EPOCH FROM now()) - 3:

    SELECT 1;
"""
KEPT = """
If there is no match to the pattern, the function returns null.

When the server restarts, every open connection is closed.

The ecpg preprocessor allows you to embed SQL in C programs.

The index is rebuilt every night because deleted rows leave dead entries behind.
"""


def test_learner_questions_are_not_asked_of_sentences_that_point_back():
    from tutorialbook.skills.learner import LEARNER_GENERATORS

    def asked(text):
        source = HarvestSource("t", "T", parse_markdown(text).segments)
        return [c.question for g in LEARNER_GENERATORS for c in g(source)]

    assert asked(BACK_REFERENCES) == []
    assert sorted(asked(KEPT)) == ["How do I embed SQL in C programs?",
                                   "What happens when the server restarts?",
                                   "What happens when there is no match to the pattern?",
                                   "Why is it that the index is rebuilt every night?"]


#: a manual whose last section is its licence's own text (as GNU manuals append the FDL)
LICENSED = """# Compressing files

To compress a file, use the bzip2 command.

If the file already exists, bzip2 refuses to overwrite it.

# Copying

Permission is hereby granted, free of charge, to any person obtaining a copy of this manual.

If you modify this manual, you must mark your changes clearly.

To distribute modified copies, use the terms of section 4.
"""


def test_no_question_is_asked_of_a_licence_the_book_keeps_no_skill_of():
    segments = parse_markdown(LICENSED).segments
    copying = next(i for i, s in enumerate(segments) if "Permission" in s.text)
    sections = [(segments[0].start, segments[copying - 1].end, "Compressing files"),
                (segments[copying].start, segments[-1].end, "Copying")]
    source = HarvestSource("t", "Manual", segments, timed=False, sections=sections)
    asked = qs.harvest(source)
    assert {q.question for q in asked if q.kind in ("how", "behaviour")} == {
        "How do I compress a file?", "What happens when the file already exists?"}
    assert all(q.evidence["start"] < segments[copying].start for q in asked)
    # the same sentences under a heading that names no licence are asked about
    plain = HarvestSource("t", "Manual", segments, timed=False, sections=[sections[0], (*sections[1][:2], "Changes")])
    assert any(q.evidence["start"] >= segments[copying].start for q in qs.harvest(plain))


MANUAL_WITH_FDL = """# Compressing files with squeeze

To compress a file, use the squeeze command with the file's name.

If the file already exists, squeeze refuses to overwrite it.

To keep the original file, use the --keep option.

When the input is a terminal, squeeze reads nothing and stops.

# GNU Free Documentation License

The purpose of this License is to make a manual, textbook, or other functional and useful
document free in the sense of freedom.

If you have Invariant Sections without Cover Texts, merge those two alternatives to suit the situation.

To use this License in a document you have written, include a copy of the License in the document.

When the Document is included in an aggregate, this License does not apply to the other works.
"""


def test_refinement_writes_no_skill_from_a_licence(library, tmp_path):
    """The exam asks nothing of a licence's section, so no failed question there makes a repair
    write the licence into the book (the builder keeps none of it)."""
    path = tmp_path / "squeeze.md"
    path.write_text(MANUAL_WITH_FDL)
    report = library.ingest(str(path), book="tools", domain="general").tutorials[0]
    assert report.questions_harvested >= 3
    texts = [" ".join([r["name"], r["steps"]]) for r in library.store.rows("skills")]
    assert any("--keep" in t for t in texts)
    assert not [t for t in texts if re.search(r"Invariant|this License|aggregate", t)]
    assert not [r for r in library.store.rows("questions") if "License" in json.loads(r["evidence"])["quote"]]


def test_learner_questions_are_graded_by_the_evidence_returned():
    q = next(q for q in qs.harvest(garden_source()) if q.kind == "how")
    named = {"id": "a", "name": "Check whether the bed needs water", "when_to_use": "", "steps": "[]",
             "evidence": "[]"}
    quoted = {"id": "b", "name": "Soil", "when_to_use": "", "steps": "[]",
              "evidence": json.dumps([{"quote": "push a finger five centimetres into the soil"}])}
    stepped = {"id": "c", "name": "Soil", "when_to_use": "", "evidence": "[]",
               "steps": json.dumps(["To check, push a finger five centimetres into the soil."])}
    assert qs.grade(q, [named]).passed is False  # the right topic without the answer is a miss
    assert qs.grade(q, [named, quoted]) == qs.Verdict(True, "b", 2)
    assert qs.grade(q, [stepped]).passed is True


def test_an_abbreviation_is_no_code_term_an_answer_holds():
    """ "e.g." matched the pattern of a dotted name, and questions of openQA's and With-Editor's manuals
    had "e.g" for their answer; a dotted name still is one."""
    from tutorialbook.skills.learner import _phrase

    assert "e.g" != _phrase("you can use a socket, e.g. when the server runs remotely")
    assert _phrase("the shell, i.e. the program that reads commands") != "i.e"
    assert _phrase("it reads the file, e.g. config.yaml") == "config.yaml"


def test_a_cue_quoting_only_the_skills_own_words_is_not_added_to_when_to_use():
    """A procedure asked "which step comes after …?" quotes its own title and step: the cue would add
    only the question's frame to what every retrieval returns. A cue with words of its own is added."""
    from tutorialbook.skills.refine import _add_cue

    row = {"name": "Register a user", "when_to_use": "",
           "steps": json.dumps(["Validate that the username is not empty.", "Insert the new user."])}
    assert not _add_cue(row, "In “Register a user”, which step comes after “Validate that the username is”?")
    assert row["when_to_use"] == ""
    assert _add_cue(row, "In “Sign-up”, which step comes after “Validate that the username is”?")
    assert _add_cue(row, "How do I keep two people from taking one name?")
    assert row["when_to_use"].count(" | ") == 1


def test_a_quote_the_steps_hold_within_a_span_the_skill_cites_is_not_cited_again():
    """A procedure asked about step by step: each question's evidence lies in the span the skill
    already cites, and its quote is one of the skill's steps; quoting it again only doubles what every
    retrieval returns. Evidence from another span, or a quote the steps lack, is kept."""
    from tutorialbook.skills.refine import _add_evidence

    span = {"tutorial_id": "t1", "tutorial_title": "T", "start": 10.0, "end": 50.0, "quote": "Open the valve.",
            "timed": True, "link": ""}
    row = {"steps": json.dumps(["Open the valve.", "Bleed the air out of the radiator."]),
           "evidence": json.dumps([span])}
    assert not _add_evidence(row, {**span, "start": 20.0, "end": 30.0, "quote": "Bleed the air out of the radiator."})
    assert len(json.loads(row["evidence"])) == 1
    assert _add_evidence(row, {**span, "start": 60.0, "end": 70.0, "quote": "Bleed the air out of the radiator."})
    assert _add_evidence(row, {**span, "start": 20.0, "end": 30.0, "quote": "Close it when water comes out."})
    assert len(json.loads(row["evidence"])) == 3
