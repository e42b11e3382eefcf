"""The Library is the one facade, composed of services that are given what they use: no module
below the surfaces takes or imports the Library, and the facade's methods keep the services'
signatures."""

import ast
import inspect
from pathlib import Path

from tutorialbook.ingest import Ingestion
from tutorialbook.library import Library
from tutorialbook.retrieval import Retrieval

ROOT = Path(__file__).resolve().parent.parent


def test_nothing_below_the_surfaces_takes_or_imports_the_library():
    found = []
    for folder in ("tutorialbook", "acquire", "llm", "memory", "skills"):
        for path in (ROOT / folder).rglob("*.py"):
            if path == ROOT / "tutorialbook" / "library.py" or path == ROOT / "tutorialbook" / "__init__.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.module == "tutorialbook.library":
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} imports the Library")
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    if any(a.arg == "library" for a in node.args.args + node.args.kwonlyargs):
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}(library)")
    assert found == [], found


def test_the_facade_keeps_the_services_signatures_and_docs():
    assert inspect.signature(Library.ingest) == inspect.signature(Ingestion.ingest)
    assert inspect.signature(Library.retrieve) == inspect.signature(Retrieval.retrieve)
    assert Library.retrieve.__doc__ == Retrieval.retrieve.__doc__


def test_the_services_share_one_store_and_reading(tmp_path):
    library = Library(store=str(tmp_path / "store"))
    services = (library.retrieval, library.ingestion, library.refinement, library.lessons)
    assert all(s.store is library.store and s.reading is library.reading for s in services)
    assert library.reading.store is library.store
