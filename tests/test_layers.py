"""Imports go one way: each package imports only the packages below it (issue 18, item 4).

    server (MCP app, HTTP, CLI) > tools (MCP tools) > core (tutorialbook/: Library and its parts)
    > llm > skills > acquire > memory > base (tutorialbook.models, .errors, .config, .quoting)

Every import counts, wherever it stands: at the top, inside a function (a lazy import), under
``if TYPE_CHECKING``, relative, or a literal ``import_module("tutorialbook.…")``. The folders
are those pyproject.toml maps to ``tutorialbook.*`` (package-dir), so a new folder is checked
as soon as it is installed.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.examples import ROOT
from tests.support.sources import source_modules

#: lowest first; a module may import its own layer and those before it
LAYERS = ("base", "memory", "acquire", "skills", "llm", "core", "tools", "server")
BASE = {"models", "errors", "config", "quoting"}

#: (file, imported module) -> why it is still there. Empty is the goal; an entry that no longer
#: occurs fails the test, so the list cannot outlive the import it excuses.
KNOWN: dict[tuple[str, str], str] = {}


def layer(module: str) -> str | None:
    """The layer of a ``tutorialbook`` module (None for anything else: the standard library, …)."""
    parts = module.split(".")
    if parts[0] != "tutorialbook":
        return None
    if len(parts) == 1:
        return "core"
    if parts[1] in BASE:
        return "base"
    return parts[1] if parts[1] in LAYERS else "core"


def imports(module: str, path: Path) -> list[tuple[int, str, bool, tuple[str, ...]]]:
    """(line, imported module, at the top level, the names a ``from`` import takes) for every
    import in the file."""
    tree = ast.parse(path.read_text(), str(path))
    top = {id(node) for node in tree.body}
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, id(node) in top, ()) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            names = tuple(alias.name for alias in node.names)
            found.append((node.lineno, base, id(node) in top, names))
            if base == "tutorialbook":  # `from tutorialbook import acquire` names a package
                found += [(node.lineno, f"{base}.{name}", id(node) in top, ()) for name in names]
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", getattr(node.func, "attr", None)) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append((node.lineno, node.args[0].value, False, ()))
    return found


def violations(modules: dict[str, Path], root: Path = ROOT) -> list[tuple[str, str, str]]:
    """(file:line, imported module, what is wrong) for each import that goes up a layer."""
    out = []
    for module, path in modules.items():
        here = layer(module)
        for line, target, _, _ in imports(module, path):
            there = layer(target)
            if there is not None and LAYERS.index(there) > LAYERS.index(here):
                out.append((f"{path.relative_to(root)}:{line}", target, f"{here} imports {there}"))
    return out


def test_each_package_imports_only_the_packages_below_it():
    found = violations(source_modules())
    new = [f"{where}: {why} ({target})" for where, target, why in found
           if (where.rpartition(":")[0], target) not in KNOWN]
    assert not new, "imports against the layers:\n" + "\n".join(new)
    gone = [f"{file} -> {target}" for file, target in KNOWN
            if not any(w.rpartition(":")[0] == file and t == target for w, t, _ in found)]
    assert not gone, "no longer imported, delete from KNOWN:\n" + "\n".join(gone)


def cycle(modules: dict[str, Path]) -> list[str]:
    """A cycle of modules through their top-level imports (empty when there is none)."""
    edges: dict[str, set[str]] = {}
    for module, path in modules.items():  # `from package import name` may name a module
        targets = {t for _, base, top, names in imports(module, path) if top
                   for t in (base, *(f"{base}.{name}" for name in names))}
        edges[module] = (targets & modules.keys()) - {module}
    done: set[str] = set()

    def visit(module: str, trail: list[str]) -> list[str]:
        if module in trail:
            return trail[trail.index(module):] + [module]
        if module not in done:
            for target in sorted(edges[module]):
                if found := visit(target, trail + [module]):
                    return found
            done.add(module)
        return []

    return next((found for module in sorted(modules) if (found := visit(module, []))), [])


def test_no_cycle_through_top_level_imports():
    assert not (found := cycle(source_modules())), "import cycle: " + " -> ".join(found)


def test_the_check_sees_every_kind_of_import(tmp_path):
    """The checker itself: a lazy, a relative, a TYPE_CHECKING and an import_module import up
    the layers are each reported with their line; imports down the layers are not."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.setuptools.package-dir]\n"tutorialbook.memory" = "memory"\n"tutorialbook.memory.sub" = "memory/sub"\n')
    (tmp_path / "memory" / "sub").mkdir(parents=True)
    (tmp_path / "memory" / "__init__.py").write_text("")
    (tmp_path / "memory" / "sub" / "__init__.py").write_text("")
    (tmp_path / "memory" / "store.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "from tutorialbook.errors import TutorialbookError\n"  # base: allowed
        "from . import sub\n"  # same layer: allowed
        "if TYPE_CHECKING:\n"
        "    from tutorialbook.library import Library\n"  # line 5
        "def f():\n"
        "    import tutorialbook.server.app\n"  # line 7
        "    from ..llm import client\n"  # line 8, relative
        "    return import_module('tutorialbook.tools.ingest')\n")  # line 9
    (tmp_path / "memory" / "sub" / "deep.py").write_text("from ...skills import builder\n")
    found = violations(source_modules(tmp_path), tmp_path)
    assert sorted((w, t) for w, t, _ in found) == [
        ("memory/store.py:5", "tutorialbook.library"),
        ("memory/store.py:7", "tutorialbook.server.app"),
        ("memory/store.py:8", "tutorialbook.llm"),
        ("memory/store.py:9", "tutorialbook.tools.ingest"),
        ("memory/sub/deep.py:1", "tutorialbook.skills"),
    ]
    assert {why for _, _, why in found} == {"memory imports core", "memory imports server", "memory imports llm",
                                           "memory imports tools", "memory imports skills"}


def test_the_check_sees_a_cycle(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.setuptools.package-dir]\n"tutorialbook.memory" = "memory"\n')
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "store.py").write_text("from tutorialbook.memory.tree import Tree\n")
    (tmp_path / "memory" / "tree.py").write_text("def f():\n    from tutorialbook.memory import store\n")
    assert cycle(source_modules(tmp_path)) == []  # a lazy import breaks it
    (tmp_path / "memory" / "tree.py").write_text("from tutorialbook.memory import store\n")
    assert cycle(source_modules(tmp_path)) == ["tutorialbook.memory.store", "tutorialbook.memory.tree",
                                               "tutorialbook.memory.store"]
