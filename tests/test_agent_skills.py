"""Agent Skills export and import: folders that pass the front-matter rules, a round trip
that keeps skills and evidence, no duplicates on a second import, and the skill resource
serving the very SKILL.md that was exported."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from mcp import Client
from mcp.types import PromptReference, ResourceTemplateReference

from tests.support.examples import ROOT
from tutorialbook.config import Settings
from tutorialbook.library import Library
from tutorialbook.models import SkillFeedback
from tutorialbook.server.app import create_server
from tutorialbook.skills.agent_skills import parse_front_matter
from tutorialbook.skills import front_matter

# -- an independent validator of the Agent Skills front-matter rules ----------------------------
SPEC_FIELDS = {"name", "description", "license", "compatibility", "metadata", "allowed-tools"}


def read_front_matter(text: str) -> tuple[dict, str]:
    """The reference reader's view (skills-ref: split at '---', strictyaml), which Agent Skills
    hosts follow; ours must read every SKILL.md the same."""
    from skills_ref.parser import parse_frontmatter

    return parse_frontmatter(text)


def agent_skills_errors(folder: Path) -> list[str]:
    meta, body = read_front_matter((folder / "SKILL.md").read_text(encoding="utf-8"))
    errors = []
    if set(meta) - SPEC_FIELDS:
        errors.append(f"unknown fields {set(meta) - SPEC_FIELDS}")
    name = meta.get("name")
    if not isinstance(name, str) or not 1 <= len(name) <= 64:
        errors.append(f"name {name!r} must be a string of 1-64 characters")
    elif not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name):
        errors.append(f"name {name!r}: lowercase letters, digits, single hyphens, no hyphen at either end")
    if name != folder.name:
        errors.append(f"name {name!r} differs from its folder {folder.name!r}")
    description = meta.get("description")
    if not isinstance(description, str) or not 1 <= len(description.strip()) or len(description) > 1024:
        errors.append("description must be a non-empty string of at most 1024 characters")
    elif " Use it " not in description:
        errors.append("description must say when to use the skill")
    if not all(isinstance(v, str) for v in meta.get("metadata", {}).values()):
        errors.append("metadata values must be strings")
    if not re.search(r"^## Steps\n\n1\. \S", body, re.M):
        errors.append("the body must list the steps")
    if not (folder / "references" / "evidence.md").is_file():
        errors.append("references/evidence.md is missing")
    return errors


def skill_key(skill) -> tuple:
    return (tuple(skill.path[1:]), skill.name, skill.when_to_use, tuple(skill.steps),
            json.dumps([e.model_dump() for e in skill.evidence], sort_keys=True))


# -- tests -----------------------------------------------------------------------------------------
def test_export_then_import_round_trips_skills_and_evidence(baking: Library, tmp_path):
    some = baking.skills("baking")[0]
    baking.record_lesson("Worked well.", "baking", outcome="success", skill_id=some.id)  # helpful = 1
    exported = baking.export_skills("baking", str(tmp_path / "skills"))
    original = baking.skills("baking")
    assert len(exported.skills) == len(original) >= 5
    folders = sorted((tmp_path / "skills").iterdir())
    assert [f.name for f in folders] == sorted(s.folder for s in exported.skills)
    for folder in folders:
        assert agent_skills_errors(folder) == [], folder.name
    timed = next(f for f in folders if "00:00:" in (f / "references" / "evidence.md").read_text())
    evidence_md = (timed / "references" / "evidence.md").read_text()
    assert "#t=" in evidence_md and "Sourdough troubleshooting" in evidence_md

    other = Library(store=str(tmp_path / "other-store"))
    report = other.import_skills("baking", str(tmp_path / "skills"))
    assert (report.added, report.updated, report.unchanged, report.skipped) == (len(original), 0, 0, 0)
    imported = other.skills("baking")
    assert {skill_key(s) for s in imported} == {skill_key(s) for s in original}
    assert {s.id for s in imported} == {s.id for s in original}  # ids kept in a store that lacks them
    assert next(s for s in imported if s.id == some.id).helpful == 1
    assert sum(len(s.evidence) for s in imported) == sum(len(s.evidence) for s in original)
    nodes = other.books()[0].nodes

    again = other.import_skills("baking", str(tmp_path / "skills"))
    assert (again.added, again.updated, again.unchanged, again.nodes_added) == (0, 0, len(original), 0)
    assert len(other.skills("baking")) == len(original) and other.books()[0].nodes == nodes

    # into another book of the same store: fresh ids, same content, and again no duplicates
    copy = baking.import_skills("copy", str(tmp_path / "skills"))
    assert copy.added == len(original) and copy.nodes_added >= 2
    copied = baking.skills("copy")
    assert {skill_key(s) for s in copied} == {skill_key(s) for s in original}
    assert not {s.id for s in copied} & {s.id for s in original}
    assert baking.import_skills("copy", str(tmp_path / "skills")).unchanged == len(original)
    assert len(baking.skills("copy")) == len(original) and len(baking.skills("baking")) == len(original)
    found = baking.retrieve("how often should I feed my starter", "copy", k=3, mode="toc")
    assert "feed" in found.skills[0].name.lower()  # imported skills are searchable, TOC route included


def test_reimport_into_the_same_book_merges_and_applies_edits(baking: Library, tmp_path):
    baking.export_skills("baking", str(tmp_path / "skills"))
    assert baking.import_skills("baking", str(tmp_path / "skills")).unchanged == len(baking.skills("baking"))
    folder = next(p for p in sorted((tmp_path / "skills").iterdir()) if p.name.startswith("feed-the-starter"))
    skill_md = folder / "SKILL.md"
    text = skill_md.read_text()
    text = text.replace("## Steps\n\n1. ", "## Steps\n\n1. Weigh the flour and water first.\n2. ", 1)
    skill_md.write_text(text)
    report = baking.import_skills("baking", str(tmp_path / "skills"))
    changed = [s for s in report.skills if s.status == "updated"]
    assert len(changed) == 1 and changed[0].folder == folder.name and "edited" in changed[0].reason
    skill = baking.skill(changed[0].skill_id)
    assert skill.steps[0] == "Weigh the flour and water first." and skill.version == 2
    assert baking.import_skills("baking", str(tmp_path / "skills")).updated == 0

    # a folder an earlier export wrote for a skill the book no longer has is reported, not deleted
    ghost = tmp_path / "skills" / "ghost-skill-000000"
    shutil.copytree(folder, ghost)
    text = (ghost / "SKILL.md").read_text()
    (ghost / "SKILL.md").write_text(re.sub(r"^name: .*$", "name: ghost-skill-000000", text, count=1, flags=re.M))
    assert baking.export_skills("baking", str(tmp_path / "skills")).stale == [ghost.name] and ghost.is_dir()


def test_hand_written_and_invalid_skill_folders(library: Library, tmp_path):
    good = tmp_path / "skills" / "proof-in-a-warm-spot"
    (good).mkdir(parents=True)
    (good / "SKILL.md").write_text(
        "---\n"
        "name: proof-in-a-warm-spot\n"
        "description: >\n"
        "  Speeds up a slow dough. Use when the dough has not risen\n"
        "  after the time the recipe gives.\n"
        "license: CC0-1.0\n"
        "---\n\n"
        "# Proof in a warm spot\n\n"
        "1. Put the bowl in the oven with only the light on.\n"
        "2. Check it every thirty minutes.\n"
    )
    wrong_name = tmp_path / "skills" / "Wrong_Name"
    wrong_name.mkdir()
    (wrong_name / "SKILL.md").write_text("---\nname: Wrong_Name\ndescription: x\n---\n# x\n")
    mismatch = tmp_path / "skills" / "folder-a"
    mismatch.mkdir()
    (mismatch / "SKILL.md").write_text("---\nname: folder-b\ndescription: fine\n---\n# B\n")
    too_long = tmp_path / "skills" / "too-long"
    too_long.mkdir()
    (too_long / "SKILL.md").write_text(f"---\nname: too-long\ndescription: {'x' * 1025}\n---\n# T\n")

    report = library.import_skills("bread", str(tmp_path / "skills"))
    status = {s.folder: s for s in report.skills}
    assert status["proof-in-a-warm-spot"].status == "added"
    assert status["proof-in-a-warm-spot"].path == ["Imported skills"]
    for bad, why in [("Wrong_Name", "lowercase"), ("folder-a", "must equal the folder"), ("too-long", "1024")]:
        assert status[bad].status == "skipped" and why in status[bad].reason, status[bad]
    skill = library.skills("bread")[0]
    assert skill.name == "Proof in a warm spot"
    assert skill.steps == ["Put the bowl in the oven with only the light on.", "Check it every thirty minutes."]
    assert skill.when_to_use.startswith("Speeds up a slow dough. Use when the dough has not risen after")
    assert library.import_skills("bread", str(good)).unchanged == 1  # a single skill folder imports too


def test_front_matter_reads_like_yaml(baking: Library, tmp_path):
    """Our exporter's front matter, and tricky values, read the same with a real YAML parser
    (what Agent Skills hosts use) as with Tutorialbook's own reader."""
    baking.export_skills("baking", str(tmp_path / "skills"))
    for folder in sorted((tmp_path / "skills").iterdir()):
        text = (folder / "SKILL.md").read_text()
        ours, _ = parse_front_matter(text)
        assert ours == yaml.safe_load(text.split("---\n")[1]) == read_front_matter(text)[0]
    tricky = ['say "hi": now', "it's # not a comment", "naïve café ✓ 😀", "line\u2028sep\x85next", "tab\there",
              "back\\slash", "- dash", "{brace}", "yes", "  padded  ", "a --- b", "----", "x\n---\ny"]
    for value in tricky:
        block = front_matter.dump({"name": "x", "description": value, "metadata": {"k": value}})
        expected = {"name": "x", "description": value, "metadata": {"k": value}}
        assert parse_front_matter(block)[0] == yaml.safe_load(block.split("---\n")[1]) == expected
        assert read_front_matter(block + "body")[0] == expected, value
    hand = ("name: a-b\ndescription: |\n  first line\n  second: line\n\n  third\nallowed-tools: Read Grep\n"
            "metadata:\n  author: 'O''Brien'  # a comment\n  version: \"1.0\"\n"
            "compatibility: >-\n  needs a\n  kitchen\n")
    assert parse_front_matter(f"---\n{hand}---\nbody")[0] == yaml.safe_load(hand)


@pytest.mark.asyncio
async def test_skill_resource_is_the_exported_skill_md_and_completions(baking: Library, tmp_path):
    report = baking.export_skills("baking", str(tmp_path / "skills"))
    server = create_server(Settings(store=str(baking.settings.store)))
    async with Client(server) as client:
        for item in report.skills[:5]:
            served = (await client.read_resource(f"tutorialbook://skills/{item.skill_id}")).contents[0]
            assert served.mime_type == "text/markdown"
            assert served.text == (tmp_path / "skills" / item.folder / "SKILL.md").read_text()
        templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
        assert templates >= {"tutorialbook://books/{book}/toc", "tutorialbook://books/{book}/nodes/{node_id}",
                             "tutorialbook://skills/{skill_id}", "tutorialbook://tutorials/{tutorial_id}/transcript"}
        assert client.server_capabilities.completions is not None
        books = await client.complete(PromptReference(name="solve"), {"name": "book", "value": "ba"})
        assert books.completion.values == ["baking"]
        node_ref = ResourceTemplateReference(uri="tutorialbook://books/{book}/nodes/{node_id}")
        nodes = await client.complete(node_ref, {"name": "node_id", "value": "n_"}, {"book": "baking"})
        assert len(nodes.completion.values) == baking.books()[0].nodes  # the root included
        skill_ref = ResourceTemplateReference(uri="tutorialbook://skills/{skill_id}")
        prefix = report.skills[0].skill_id[:6]
        skills = await client.complete(skill_ref, {"name": "skill_id", "value": prefix})
        assert report.skills[0].skill_id in skills.completion.values
        assert all(v.startswith(prefix) for v in skills.completion.values)
        assert "browse_toc from the root" in client.instructions and "record_lesson" in client.instructions


def test_cli_export_and_import_with_json_after_the_command(baking: Library, tmp_path):
    store, other = baking.settings.store, tmp_path / "other"

    def cli(store_path, *args):
        return subprocess.run([sys.executable, "-m", "tutorialbook.server", "--store", str(store_path), *args],
                              capture_output=True, text=True, check=True, cwd=ROOT, env=dict(os.environ)).stdout

    exported = json.loads(cli(store, "export-skills", str(tmp_path / "skills"), "--book", "baking", "--json"))
    assert exported["book"] == "baking" and len(exported["skills"]) >= 5
    human = cli(other, "import-skills", str(tmp_path / "skills"), "--book", "baking")
    assert human.startswith(f"imported into 'baking': {len(exported['skills'])} added, 0 updated")
    assert "→ Sourdough bread basics › Feeding the starter" in human
    again = json.loads(cli(other, "import-skills", str(tmp_path / "skills"), "--book", "baking", "--json"))
    assert again["unchanged"] == len(exported["skills"]) and again["added"] == 0


def test_feedback_survives_export(baking: Library, tmp_path):
    skill = baking.skills("baking")[1]
    baking.record_lesson("Hurt the loaf.", "baking", outcome="note",
                         feedback=[SkillFeedback(skill_id=skill.id, verdict="harmful")])
    baking.export_skills("baking", str(tmp_path / "skills"))
    other = Library(store=str(tmp_path / "other"))
    other.import_skills("baking", str(tmp_path / "skills"))
    assert other.skill(skill.id).harmful == 1


def test_unusual_skills_export_valid_folders_and_read_back(tmp_path):
    from tutorialbook.models import Evidence, SkillView
    from tutorialbook.skills.agent_skills import read_skill_folder, write_skill_folder
    from tutorialbook.skills.skill_md import skill_slug

    quote = 'He said: "castle early" — then ``` and a # mark'
    evidence = [Evidence(tutorial_id="t_1", tutorial_title="Vidéo 1", start=61.5, end=75.25, quote=quote,
                         link="file:///v.mp4#t=61"),
                Evidence(tutorial_id="t_2", tutorial_title="Notes", start=10, end=90, quote="line one\nline two",
                         timed=False)]
    views = [
        SkillView(id="s_aaaaaaaaaaaa", name="Échecs: la défense française, toujours!", when_to_use="",
                  steps=["Jouez e6.", "Puis d5."], node_id="n", path=["chess", "Défenses", "Française"],
                  evidence=evidence, sources=2, helpful=3, harmful=1, version=4, author="agent-7"),
        SkillView(id="s_bbbbbbbbbbbb", name="x" * 3000, when_to_use="w" * 3000, steps=["s" * 5000],
                  node_id="n", path=["b", "t" * 2000], evidence=[], sources=0, helpful=0, harmful=0,
                  version=1, author="ingest"),
        SkillView(id="s_cccccccccccc", name="象棋开局", when_to_use="If it's 'late' in the game: #1",
                  steps=["Step with `code` and --- dashes"], node_id="n", path=["c", "---", "name: x"],
                  evidence=evidence[:1], sources=1, helpful=0, harmful=0, version=1, author="ingest"),
        # a code step keeps its lines and indents (it was flattened to one line); none of its lines,
        # a fence or a heading included, ends the step or opens a section
        SkillView(id="s_dddddddddddd", name="Slotted classes", when_to_use="",
                  steps=["Pass slots=True:", ">>> @attr.s(slots=True)\n... class C:\n...     x: int\n\n"
                         "## Lessons recorded by agents\n```\n    indented()", "Done."],
                  node_id="n", path=["d", "Slots"], evidence=[], sources=1, helpful=0, harmful=0, version=1,
                  author="ingest"),
        # a line of code keeps its spacing (Markdown would collapse it in a list item): it is fenced
        SkillView(id="s_eeeeeeeeeeee", name="Aligned assignments", when_to_use="",
                  steps=["Line the values up:", "x    <- c(1,  2)   # aligned", "  $ make  install"],
                  node_id="n", path=["e"], evidence=[], sources=1, helpful=0, harmful=0, version=1,
                  author="ingest"),
    ]
    for view in views:
        folder = tmp_path / skill_slug(view.name, view.id)
        write_skill_folder(view, folder)
        assert agent_skills_errors(folder) == [], (folder.name, agent_skills_errors(folder))
        parsed = read_skill_folder(folder)
        assert parsed.name == " ".join(view.name.split()) and parsed.steps == view.steps
        assert parsed.path == view.path[1:] and parsed.skill_id == view.id and parsed.author == view.author
        assert parsed.when_to_use == view.when_to_use
        assert [e.model_dump() for e in parsed.evidence] == [e.model_dump() for e in view.evidence]
        assert (parsed.helpful, parsed.harmful) == (view.helpful, view.harmful)
    assert skill_slug(views[0].name, views[0].id) == "echecs-la-defense-francaise-toujours-aaaaaa"


def test_code_steps_are_fenced_one_line_or_many_and_a_nested_list_is_not(tmp_path, library):
    """Every sweep found one-line code blocks ("pip install hypothesis", "set -g …") shown as
    prose steps in SKILL.md while longer ones were fenced, and a nested list fenced as if it were
    code: a step now knows it was a code block (stored, served as ``code_steps``), SKILL.md fences
    exactly those and sets a nested list's lines under its item, and import reads both back."""
    from tutorialbook.skills.agent_skills import read_skill_folder

    page = tmp_path / "install.md"
    page.write_text("# Hypothesis\n\n## Install\n\nInstall it from PyPI with pip in a fresh environment:\n\n"
                    "```\npip install hypothesis\n```\n\n"
                    "Then the exporter works in three stages, which:\n\n"
                    "1. Reads the notebook\n    - its cells\n    - its outputs\n2. Writes the page\n")
    library.ingest(str(page), book="hyp", refine_rounds=0)
    skill = next(s for s in library.skills("hyp") if "pip install hypothesis" in s.steps)
    assert [skill.steps[n] for n in skill.code_steps] == ["pip install hypothesis"]
    folder = tmp_path / "out"
    library.export_skills("hyp", str(folder))
    written = {p.parent.name: p.read_text() for p in folder.glob("*/SKILL.md")}
    text = next(t for t in written.values() if "pip install hypothesis" in t)
    assert re.search(r"\n\d\. ```\n +pip install hypothesis\n +```\n", text), text
    assert re.search(r"\n\d\. Reads the notebook\n +- its cells\n +- its outputs\n\d\. Writes the page\n", text), text
    parsed = read_skill_folder(next(p.parent for p in folder.glob("*/SKILL.md") if "pip install" in p.read_text()))
    assert [parsed.steps[n] for n in parsed.code] == ["pip install hypothesis"]
    assert parsed.steps == skill.steps
    # refinement reads and repairs such skills too (its grader had met the code step's stored form)
    report = library.ingest(str(page), book="hyp-refined", refine_rounds=1).tutorials[0]
    assert report.questions_harvested > 0 and report.pass_rate_after is not None
    refined = next(s for s in library.skills("hyp-refined") if "pip install hypothesis" in s.steps)
    assert [refined.steps[n] for n in refined.code_steps] == ["pip install hypothesis"]


HOSTILE_TUTORIAL = """# Front matter --- and other traps

## Quoting: "colons", 'apostrophes' and --- dashes

Always write `key: value` pairs --- never "bare: colons" --- when you fill the form.
Never type three dashes --- like this --- into a YAML field: it ends the block.
Remember: a line of only dashes is a rule in Markdown.

---

Always check "yes", no, null and ~ values twice; # this is not a comment.
Never trust a value like {brace: open} or [bracket, list] — quote it.

## Odd characters\u2028and separators

1. Press Ctrl+C\x85 then type 'O''Brien' and "say \\"hi\\"".
2. Never paste a tab\there or a backslash \\ into the name.
3. Remember the key idea: ---- four dashes, ----- five, and --- three.
"""


def test_agentskills_validate_accepts_every_skill_of_a_hostile_book(tmp_path):
    """The reference validator (skills-ref's `agentskills validate`) accepts every exported skill
    of a book built from text full of YAML traps: `---`, quotes, colons, '#', flow syntax,
    line separators."""
    validate = shutil.which("agentskills") or str(Path(sys.executable).parent / "agentskills")
    source = tmp_path / "hostile.md"
    source.write_text(HOSTILE_TUTORIAL, encoding="utf-8")
    library = Library(Settings(store=str(tmp_path / "store")))
    library.ingest(str(source), book="traps", refine_rounds=0)
    report = library.export_skills("traps", str(tmp_path / "skills"))
    assert len(report.skills) >= 3  # one skill a passage
    texts = [(tmp_path / "skills" / s.folder / "SKILL.md").read_text(encoding="utf-8") for s in report.skills]
    assert any("---" in t.split("\n---\n", 1)[1] for t in texts), "the tutorial's --- reaches the skills' bodies"
    for exported in report.skills:
        folder = tmp_path / "skills" / exported.folder
        done = subprocess.run([validate, "validate", str(folder)], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, (exported.folder, done.stdout, done.stderr)
        meta, _ = read_front_matter((folder / "SKILL.md").read_text(encoding="utf-8"))
        view = library.skill(exported.skill_id)
        assert meta["metadata"]["tutorialbook-toc-path"] == json.dumps(view.path[1:], ensure_ascii=False)
