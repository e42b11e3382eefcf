"""The command line, run as a person would (the README's main job included)."""

import json
import os
import re
import subprocess
import sys

from conftest import EXAMPLES, ROOT


def cli(store, *args, check=True):
    return subprocess.run(
        [sys.executable, "-m", "tutorialbook.server", "--store", str(store), *args],
        capture_output=True, text=True, check=check, cwd=ROOT, env=dict(os.environ),
    )


def test_readme_main_job(tmp_path):
    readme = (ROOT / "README.md").read_text()
    main_job = re.search(r"```bash\n(sudo apt-get[^\n]+)\n```", readme).group(1)
    steps = [s.strip() for s in main_job.split("&&")][2:]  # after the apt and pip installs
    assert steps[0].startswith("tutorialbook --store ./store ingest examples/")
    outputs = []
    for step in steps:
        args = re.findall(r'"[^"]*"|\S+', step)[1:]
        args = [a.strip('"') for a in args]
        args[args.index("./store")] = str(tmp_path / "store")
        outputs.append(cli(tmp_path / "store", *args[2:]).stdout)
    assert "added     Sourdough bread basics" in outputs[0]  # the document's own title
    assert "└── Sourdough bread basics" in outputs[1] and "Feeding the starter" in outputs[1]
    assert "route: Sourdough bread basics" in outputs[2]


def test_json_output_and_lesson(tmp_path):
    store = tmp_path / "store"
    report = json.loads(cli(store, "--json", "ingest", str(EXAMPLES), "--book", "baking").stdout)
    assert [t["status"] for t in report["tutorials"]] == ["added", "added"]
    books = json.loads(cli(store, "--json", "books").stdout)
    assert books[0]["name"] == "baking" and books[0]["tutorials"] == 2
    found = json.loads(cli(store, "--json", "search", "preheat the oven", "--book", "baking", "-k", "2").stdout)
    skill_id = found["skills"][0]["id"]
    out = cli(store, "lesson", "Preheating a full hour gave a darker crust.", "--book", "baking",
              "--outcome", "success", "--skill", skill_id).stdout
    assert out.startswith("recorded l_") and f"skill:{skill_id}" in out
    again = json.loads(cli(store, "--json", "search", "preheat the oven", "--book", "baking", "-k", "2").stdout)
    assert again["skills"][0]["lessons"][0]["text"] == "Preheating a full hour gave a darker crust."
    assert again["skills"][0]["helpful"] == 1


def test_errors_exit_2_with_the_field(tmp_path):
    result = cli(tmp_path / "store", "toc", "--book", "nosuch", check=False)
    assert result.returncode == 2 and result.stderr.startswith("error: book: no book named 'nosuch'")
