"""The real-document bench scores by written rules (bench/data/r-intro/README.md); these check
the rules themselves on inputs small enough to work out by hand."""

from __future__ import annotations

import math

import pytest

from bench import real_documents as real
from tutorialbook.models import Evidence, LessonView, SkillView


def test_chunks_are_60_word_windows_with_stride_30_never_spanning_files():
    hundred = " ".join(f"w{i}" for i in range(100))
    out = real.chunks([hundred, "one short file"])
    assert [len(c.split()) for c in out] == [60, 60, 40, 3]
    assert out[1].split()[0] == "w30" and out[2].split()[-1] == "w99"
    assert out[3] == "one short file"


def test_bm25_matches_the_formula_worked_by_hand():
    scores = real.bm25_scores(["a b", "b c c"], "c C c")  # a query token counts once
    tf, length, avg = 2, 3, 2.5
    expected = math.log(1 + (2 - 1 + 0.5) / (1 + 0.5)) * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / avg))
    assert scores[0] == 0 and scores[1] == pytest.approx(expected)


def test_a_hit_is_a_normalised_substring_and_a_miss_is_not():
    assert real.is_hit("Use the  Function\nassign()", ["the function assign()"])
    assert real.is_hit("flask --app flaskr init-db", ["flask app flaskr init db"])
    assert not real.is_hit("the function", ["the function assign()"])


def test_html_visible_text_drops_head_script_style_and_spaces_blocks(tmp_path):
    page = tmp_path / "p.html"
    page.write_text("<html><head><title>T</title></head><body><script>x=1</script><style>p{}</style>"
                    "<p>one</p><p>two&amp;three</p><span>four</span>five</body></html>")
    assert real.html_visible(page) == "one two&three fourfive"


def test_skill_text_is_name_when_steps_quotes_and_lessons_in_order():
    skill = SkillView(id="s", name="Name", when_to_use="When", steps=["one", "two"], node_id="n", path=["Root"],
                      evidence=[Evidence(tutorial_id="t", tutorial_title="Title", start=0, end=1, quote="quote")],
                      sources=1, helpful=0, harmful=0, version=1, author="a",
                      lessons=[LessonView(id="l", text="lesson", outcome="success")])
    assert real.skill_text(skill) == "Name When one two quote lesson"


def test_the_target_is_half_the_chunk_misses_and_one_and_a_half_times_its_chars():
    chunk = {"n": 30, "hit@1": 20, "hit@5": 27, "chars@1": 348, "chars@5": 1789}
    t = real.target(chunk)
    assert (t["max_misses@1"], t["max_misses@5"]) == (5, 1)
    assert real.meets({"n": 30, "hit@1": 25, "hit@5": 29, "chars@1": 522, "chars@5": 2683}, t)
    assert not real.meets({"n": 30, "hit@1": 24, "hit@5": 29, "chars@1": 300, "chars@5": 1500}, t)
    assert not real.meets({"n": 30, "hit@1": 30, "hit@5": 30, "chars@1": 600, "chars@5": 1500}, t)
