"""Lessons: attachment, merge only when identical, similar ones surfaced, feedback."""

import threading

from tutorialbook.library import Library
from tutorialbook.models import SkillFeedback


def a_skill(library, query):
    return library.retrieve(query, "baking", k=1).skills[0]


def test_lesson_on_a_skill_comes_back_with_it(baking):
    skill = a_skill(baking, "score the loaf with a razor")
    result = baking.record_lesson("A curved blade gives a bigger ear.", "baking", "success", skill_id=skill.id)
    assert result.attached_to == f"skill:{skill.id}" and not result.merged
    assert result.feedback[0].helpful == skill.helpful + 1
    again = a_skill(baking, "score the loaf with a razor")
    assert [lesson.text for lesson in again.lessons] == ["A curved blade gives a bigger ear."]
    assert again.helpful == skill.helpful + 1


def test_lesson_without_target_goes_to_best_node_or_root(baking):
    about_starter = baking.record_lesson("My starter doubled faster after I fed it rye flour.", "baking")
    node_id = about_starter.attached_to.split(":", 1)[1]
    assert about_starter.attached_to.startswith("node:")
    node = baking.browse("baking", node_id).node  # "Feeding the starter", or the troubleshooting
    assert "starter" in f"{node.title} {node.summary}".lower(), node  # tutorial's "a starter ... doubles"
    off_topic = baking.record_lesson("The quarterly tax form is due in April.", "baking")
    assert off_topic.attached_to.startswith("root:")


def test_identical_lesson_is_merged_and_counted(baking):
    first = baking.record_lesson("Cold dough is easier to score.", "baking", "note")
    second = baking.record_lesson("  cold dough is EASIER to score!  ", "baking", "note")
    assert second.merged and second.lesson_id == first.lesson_id and second.merged_count == 2
    assert baking.store.count("lessons") == 1


def test_a_lesson_identical_but_for_case_and_punctuation_goes_where_the_first_went(baking):
    """With no target, a lesson goes to the node its words match best; two nodes scoring alike
    sent "Flour the banneton with rice flour." to one and "flour the banneton with RICE flour!"
    to the book, so the identical lesson was stored twice."""
    first = baking.record_lesson("Flour the banneton with rice flour.", "baking")
    second = baking.record_lesson("flour the banneton with RICE flour!", "baking")
    assert second.attached_to == first.attached_to and second.merged and second.merged_count == 2


def test_similar_lesson_is_stored_and_the_similar_ones_returned(baking):
    first = baking.record_lesson("Proof the loaf in the fridge overnight for better flavour.", "baking")
    second = baking.record_lesson("Proofing the loaf overnight in the fridge gives better flavour.", "baking")
    assert not second.merged and second.lesson_id != first.lesson_id
    assert [lesson.id for lesson in second.similar] == [first.lesson_id]
    assert baking.store.count("lessons") == 2


def test_feedback_counts_helpful_and_harmful(baking):
    a = a_skill(baking, "score the loaf with a razor")
    b = a_skill(baking, "my starter is sluggish")
    assert a.id != b.id  # (one passage teaches shaping, scoring and the preheated Dutch oven together)
    result = baking.record_lesson(
        "Scoring deep worked; the starter advice did not help in my cold kitchen.", "baking", "partial",
        feedback=[SkillFeedback(skill_id=a.id, verdict="helpful"), SkillFeedback(skill_id=b.id, verdict="harmful")],
    )
    counts = {f.skill_id: (f.helpful, f.harmful) for f in result.feedback}
    assert counts == {a.id: (a.helpful + 1, a.harmful), b.id: (b.helpful, b.harmful + 1)}


def test_concurrent_identical_lessons_make_one_row(baking, store_path):
    libraries = [Library(store=str(store_path)) for _ in range(4)]
    errors = []

    def write(lib):
        try:
            lib.record_lesson("Wet hands stop the dough sticking.", "baking")
        except Exception as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(lib,)) for lib in libraries]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    rows = baking.store.rows("lessons")
    assert len(rows) == 1 and rows[0]["merged_count"] == 4


def test_a_node_and_a_skill_show_their_most_confirmed_lessons_newest_first(baking):
    """Lessons pile up where a team works; a browse or a skill shows SHOWN_LESSONS of them (the
    most confirmed, then the newest) and says how many there are, instead of growing without bound."""
    from tutorialbook.reading import SHOWN_LESSONS

    skill = a_skill(baking, "score the loaf with a razor")
    root = baking.browse("baking").node.id
    texts = [f"Lesson {n}: bake {n + 10} minutes longer in a cold kitchen." for n in range(SHOWN_LESSONS + 5)]
    lessons = [{"lesson": t, "node_id": root} for t in texts] + [{"lesson": t, "skill_id": skill.id} for t in texts]
    baking.record_lessons(lessons, "baking")
    baking.record_lesson(texts[3], "baking", node_id=root)  # confirmed twice: shown first
    baking.record_lesson(texts[3], "baking", skill_id=skill.id)
    want = [texts[3]] + [t for t in reversed(texts) if t != texts[3]][:SHOWN_LESSONS - 1]
    view = baking.browse("baking")
    assert view.lessons_total == SHOWN_LESSONS + 5
    assert [lesson.text for lesson in view.lessons] == want
    again = a_skill(baking, "score the loaf with a razor")
    assert again.lessons_total == SHOWN_LESSONS + 5
    assert [lesson.text for lesson in again.lessons] == want


def test_the_tree_patched_lesson_by_lesson_is_the_tree_read_whole(baking, monkeypatch):
    """A lesson moves the book's tree on by the rows it changed (new, counted again, reverted),
    not by a pass over every lesson of the book; the tree so patched holds what one built from
    all of the book's lesson rows holds."""
    from tutorialbook.memory import tree as trees

    skill = a_skill(baking, "score the loaf with a razor")
    root = baking.browse("baking").node.id  # the tree this process keeps, patched from here on
    whole = []
    rebuild = trees._lessons
    monkeypatch.setattr(trees, "_lessons", lambda rows: whole.append(rows) or rebuild(rows))
    baking.record_lesson("Flour the banneton with rice flour.", "baking")
    baking.record_lesson("Score at a shallow angle.", "baking", skill_id=skill.id)
    baking.record_lessons([{"lesson": f"Note {n} on the crumb.", "skill_id": skill.id} for n in range(3)]
                          + [{"lesson": "Steam the first twenty minutes.", "node_id": root}], "baking")
    baking.record_lesson("flour the banneton with RICE flour!", "baking")  # identical: counted again, rewritten
    baking.revert_lesson(baking.record_lesson("A lesson taken back.", "baking", skill_id=skill.id).lesson_id)
    patched = baking.reading.tree("baking")
    assert not whole

    def ids(counts, of, at):
        return ({k: [r["id"] for r in v] for k, v in of.items()}, {k: [r["id"] for r in v] for k, v in at.items()},
                dict(counts))

    assert ids(patched.lesson_counts, patched.lessons_of, patched.lessons_at) == ids(*rebuild(patched.lesson_rows))
    assert sum(patched.lesson_counts.values()) == baking.store.count("lessons") == 6



def test_lessons_written_at_once_by_many_agents_through_one_library_are_each_stored_once(baking):
    """A server answers its agents' calls in threads of one Library, whose lesson writes are
    committed in groups (memory/group_commit.py): each lesson is still stored once, a lesson
    said by several agents counted, and each write has its own event naming its agent."""
    errors, results = [], {}

    def write(n):
        try:
            for i in range(4):
                text = f"Agent {n} found that a {i + 2}-hour autolyse helps." if i < 3 else "Steam the oven."
                results[(n, i)] = baking.record_lesson(text, "baking", agent=f"agent{n}")
        except Exception as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    rows = {r["text"]: r for r in baking.store.rows("lessons")}
    assert len(rows) == 8 * 3 + 1
    assert rows["Steam the oven."]["merged_count"] == 8
    steam = [r for (n, i), r in results.items() if i == 3]
    assert sum(not r.merged for r in steam) == 1 and {r.lesson_id for r in steam} == {rows["Steam the oven."]["id"]}
    for (n, i), result in results.items():
        if i < 3:
            row = rows[f"Agent {n} found that a {i + 2}-hour autolyse helps."]
            assert not result.merged and row["agent"] == f"agent{n}"
    events = baking.history("baking", action="lesson")
    assert len(events) == 8 * 4
    assert sorted((e.agent, e.target) for e in events) == sorted((f"agent{n}", r.lesson_id)
                                                                 for (n, _), r in results.items())


def test_a_nodes_skills_keep_the_order_the_page_teaches_them_after_a_vote(tmp_path):
    """A vote rewrites its skill's row, which the store then holds at its table's end: browse_toc
    had listed that skill last from then on, and the TOC resource listed every node's skills
    alphabetically. Every surface now lists them as the page teaches them."""
    steps = ["Weigh the flour and the water before you start, on a scale that reads single grams.",
             "Mix them by hand until no dry flour is left, then cover the bowl and let it rest.",
             "Bake the loaf in a covered pot for twenty minutes, then uncovered until it is dark.",
             "Cool it on a rack for an hour before you cut it, or the crumb turns gummy."]
    filler = " The dough tells you more than the clock does, so watch it rather than the timer."
    page = tmp_path / "bread.md"
    page.write_text("# Bread\n\n## Steps\n\n" + "\n\n".join(s + filler * 4 for s in steps) + "\n")
    library = Library(store=str(tmp_path / "store"))
    library.ingest(str(page), book="bread", refine_rounds=0)
    chapter = library.browse("bread").children[0]
    node = next(c for c in library.browse("bread", chapter.id).children if c.title == "Steps")
    taught = [s.name.split()[0] for s in library.browse("bread", node.id).skills]
    assert taught == ["Weigh", "Mix", "Bake", "Cool"], taught
    weigh = library.browse("bread", node.id).skills[0]
    library.record_lesson("Weighing by the gram made every loaf the same.", "bread", "success", skill_id=weigh.id)
    assert [s.name.split()[0] for s in library.browse("bread", node.id).skills] == taught
    assert [s.name.split()[0] for s in library.skills("bread")] == taught
    toc = library.toc_markdown("bread")
    assert [toc.index(f"skill: {word}") for word in taught] == sorted(toc.index(f"skill: {word}") for word in taught)
