"""memory/lance.py is the one door to LanceDB's internals: each internal it relies on works on
a real table of the installed LanceDB (a failure names the internal), and nothing else in the
package reaches past LanceDB's public API or imports LanceDB above memory/."""

import ast
from pathlib import Path

import lancedb
import pytest

from tutorialbook.memory import lance
from tutorialbook.memory.store import Store

ROOT = Path(__file__).resolve().parent.parent
INTERNALS = ("background_loop", "_inner", "_table")


@pytest.fixture
def store(tmp_path):
    store = Store(str(tmp_path / "store"), dim=4)
    store.insert("books", [{"id": f"b{i}", "book": f"b{i}", "title": f"Book {i}", "created_at": float(i)}
                           for i in range(3)])
    return store


def test_the_installed_lancedb_is_a_tested_version():
    assert lancedb.__version__ in lance.TESTED, (
        f"lancedb {lancedb.__version__} is not one memory/lance.py was tested with {lance.TESTED}: check each "
        "internal below, then add the version to lance.TESTED")


def test_the_background_loop_runs_and_takes_submissions():
    async def two():
        return 2

    assert lance.run(two()) == 2, "lancedb.background_loop.LOOP.run"
    assert lance.submit(two()).result(timeout=10) == 2, "lancedb.background_loop.LOOP.loop"


def test_a_local_table_has_its_async_table(store):
    inner = lance.async_table(store.table("books"))
    assert inner is not None, "LanceTable._table is no longer the AsyncTable behind a local table"
    assert lance.count_rows(inner) == 3, "AsyncTable.count_rows"


def test_a_query_is_collected_from_its_engine(store):
    inner = lance.require_async_table(store.table("books"))
    table = lance.run(lance.collect(inner.query().where("id = 'b1'").select(["id", "title"])))
    assert table.to_pylist() == [{"id": "b1", "title": "Book 1"}], "AsyncQuery._inner.execute"
    assert sorted(r["id"] for r in lance.run(lance.scan(inner, columns=["id"]))) == ["b0", "b1", "b2"]
    assert lance.scan_all(store.table("books")) == 3


def test_versions_are_read_in_one_trip(store):
    tables = [store.table("books"), store.table("nodes")]
    assert lance.versions(tables) == tuple(t.version for t in tables), "AsyncTable.version"


def test_the_store_reads_through_the_door(store):
    assert store.get("books", "b2")["title"] == "Book 2"
    assert store.versions(["books"]) == (store.version("books"),)


def _modules():
    for folder in ("tutorialbook", "acquire", "llm", "memory", "skills", "server", "tools"):
        yield from (ROOT / folder).rglob("*.py")


def test_only_memory_imports_lancedb_and_only_the_door_touches_its_internals():
    importers, internal_users = [], []
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        rel = path.relative_to(ROOT).as_posix()
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if any(n == "lancedb" or n.startswith("lancedb.") for n in names) and not rel.startswith("memory/"):
                importers.append(rel)
            if any("background_loop" in n for n in names) and rel != "memory/lance.py":
                internal_users.append(f"{rel}: lancedb.background_loop")
            if isinstance(node, ast.Attribute) and node.attr in ("_inner", "_table") and rel != "memory/lance.py":
                if isinstance(node.value, ast.Name) and node.value.id == "self":
                    continue  # an object's own private attribute (server/auth.py keeps a _table of tokens)
                internal_users.append(f"{rel}:{node.lineno}: .{node.attr}")
    assert importers == [], f"modules above memory/ import lancedb: {importers}"
    assert internal_users == [], f"LanceDB internals used outside memory/lance.py: {internal_users}"
