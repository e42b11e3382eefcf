"""The source modules: every file of every package pyproject.toml maps to ``tutorialbook.*``."""

from __future__ import annotations

import tomllib
from pathlib import Path

from tests.support.examples import ROOT


def source_modules(root: Path = ROOT) -> dict[str, Path]:
    """Module name -> file, for every package pyproject.toml maps (sub-packages are mapped too)."""
    package_dir = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    modules = {}
    for package, folder in package_dir.items():
        for path in sorted((root / folder).glob("*.py")):
            modules[package if path.name == "__init__.py" else f"{package}.{path.stem}"] = path
    return modules
