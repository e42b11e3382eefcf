"""memory/rows.py and memory/where.py: the rows, their JSON columns and texts are defined once,
and no filter string is spliced together above memory/."""

import ast
from pathlib import Path

from tutorialbook.memory import rows, where

ROOT = Path(__file__).resolve().parent.parent


def test_a_skill_row_carries_its_encoded_columns_and_texts():
    evidence = [{"tutorial_id": "t1", "start": 0.0, "end": 1.0, "quote": "Fold it."},
                {"tutorial_id": "t2", "start": 5.0, "end": 6.0, "quote": "Fold again."}]
    row = rows.skill_row(id="s1", book="b", node_id="n1", name="Fold the dough", when_to_use="after mixing",
                         steps=["Fold it.", "Rest."], evidence=evidence, author="a", origin="t1", now=7.0)
    assert rows.steps_of(row) == ["Fold it.", "Rest."] and rows.evidence_of(row) == evidence
    assert row["sources"] == 2 and row["version"] == 1 and row["created_at"] == row["updated_at"] == 7.0
    assert row["text"] == "Fold the dough. after mixing. Fold it. Rest."
    assert rows.skill_vector_text(row["name"], rows.steps_of(row)) == "Fold the dough. Fold it. Rest."
    assert rows.tutorials_cited(row) == {"t1", "t2"}


def test_empty_json_cells_read_as_empty():
    assert rows.steps_of({"steps": ""}) == [] and rows.detail_of({"detail": None}) == {}


def test_private_keys_are_dropped_except_those_kept():
    assert rows.clean({"id": "x", "_distance": 0.1, "_status": "added"}, keep=("_status",)) == {
        "id": "x", "_status": "added"}


def test_names_compare_loosely():
    assert rows.norm("  Fold—the DOUGH!  ") == "fold the dough"


def test_a_node_text_names_at_most_thirty_skills():
    text = rows.node_text("Shaping", "How to shape.", [f"s{i}" for i in range(40)])
    assert text.startswith("Shaping. How to shape. s0; s1") and "s29" in text and "s30" not in text


def test_a_hostile_value_stays_one_literal():
    assert where.eq("book", "x' OR 'a'='a") == "book = 'x'' OR ''a''=''a'"
    assert where.in_list("id", []) == "false"
    assert where.both("a = 1", None, "b = 2 OR c = 3") == "a = 1 AND (b = 2 OR c = 3)"


def test_no_filter_is_spliced_above_memory():
    """``quote``/``in_list`` are memory/'s: every other module asks where.py for a filter by name."""
    found = []
    for folder in ("tutorialbook", "acquire", "llm", "skills", "server", "tools"):
        for path in (ROOT / folder).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Call):
                    fn = node.func
                    name = fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else ""
                    if name == "quote" and not (isinstance(fn, ast.Attribute) and fn.value.__class__ is ast.Name
                                                and fn.value.id not in ("where", "store")):
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == [], f"filters built with quote() above memory/: {found}"
