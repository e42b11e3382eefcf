"""The shipped examples (examples/, CC0) and tutorials derived from them."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def reteaching_tutorial(folder: Path) -> Path:
    """A second tutorial that teaches one passage of the sourdough basics again, word for word,
    beside one of its own: ingested after the basics it extends one skill and adds one."""
    basics = (EXAMPLES / "sourdough-basics.md").read_text()
    feeding = basics.split("## Feeding the starter")[1].split("##")[0].strip()
    path = folder / "starter-care.md"
    path.write_text("# Starter care\n\n" + feeding + "\n\n## Storing a starter\n\n"
                    "Keep a spare starter in the fridge in a jar with a loose lid, and feed it once a week.\n")
    return path
