"""Agent Skills folders: export a book's skills so Claude Code and other Agent Skills hosts
load them directly, and import such folders back into a book.

One folder per skill, named as its front-matter ``name``::

    feed-the-starter-every-day-d9eafe/
        SKILL.md                 front matter (name, description, metadata), when to use, steps
        references/evidence.md   every evidence span: tutorial, timestamps, link, quote

``SKILL.md`` is exactly what the ``tutorialbook://skills/{id}`` resource serves. Its
``metadata`` records the skill's id, book and TOC path, so an import puts each skill back
under a node with the same titles (creating the nodes it needs) and a second import of the
same folders changes nothing. Hand-written skill folders import too: without a recorded
path they land under an "Imported skills" chapter.

Front matter is written and read with PyYAML's safe dumper and loader (skills/front_matter.py).
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Literal

from pydantic import BaseModel, Field, ValidationError

from tutorialbook.errors import TutorialbookError
from tutorialbook.memory import history as hist
from tutorialbook.memory import where
from tutorialbook.memory.rows import (
    clean, code_steps_of, encode, encode_steps, evidence_of, node_row, node_text, norm as _norm, skill_row, skill_text,
    skill_vector_text, steps_of,
)
from tutorialbook.models import SOURCE_NOTE, Evidence, SkillView
from tutorialbook.skills import front_matter, skill_md
from tutorialbook.skills.skill_md import EVIDENCE_FILE, render_skill_md, skill_slug

Progress = Callable[[float, float, str], None]

NAME_RULE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
SPEC_FIELDS = {"name", "description", "license", "compatibility", "metadata", "allowed-tools"}
IMPORTED_CHAPTER = "Imported skills"
MAX_COMPATIBILITY = 500


class SkillFormatError(ValueError):
    """A skill folder that does not follow the Agent Skills format."""


# -- reports --------------------------------------------------------------------------------
class ExportedSkill(BaseModel):
    skill_id: str
    name: str
    folder: str = Field(description="folder name = the SKILL.md front-matter name")


class ExportReport(BaseModel):
    book: str
    directory: str
    skills: list[ExportedSkill]
    stale: list[str] = Field(default_factory=list, description=(
        "folders already in the directory that an earlier export of this book wrote for skills it no "
        "longer has (merged or removed); left in place"))


class ImportedSkill(BaseModel):
    folder: str
    status: Literal["added", "updated", "unchanged", "skipped"]
    skill_id: str = ""
    name: str = ""
    node_id: str = ""
    path: list[str] = Field(default_factory=list, description="TOC titles below the book's root")
    reason: str = Field("", description="why a folder was skipped, or what an update changed")


class ImportReport(BaseModel):
    book: str
    directory: str
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    skipped: int = 0
    nodes_added: int = 0
    skills: list[ImportedSkill] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    event_id: str = Field("", description="the import's event in the book's history (none when nothing changed)")


# -- export ---------------------------------------------------------------------------------
def export_skills(skills_of: Callable[[str], list[SkillView]], book: str, directory: str | Path,
                  progress: Progress | None = None) -> ExportReport:
    """Write every skill of ``book`` (read by ``skills_of``, after the folder is checked) as an
    Agent Skills folder under ``directory``."""
    root = Path(directory).expanduser()
    if root.exists() and not root.is_dir():
        raise TutorialbookError("directory", f"{root} is a file; give a folder to export into")
    views = skills_of(book)
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TutorialbookError("directory", f"{root} cannot be created ({exc.strerror})") from exc
    exported = []
    for n, view in enumerate(views):
        folder = skill_slug(view.name, view.id)
        write_skill_folder(view, root / folder)
        exported.append(ExportedSkill(skill_id=view.id, name=view.name, folder=folder))
        if progress:
            progress(n + 1, len(views), folder)
    written = {e.folder for e in exported}
    stale = []
    for existing in skill_folders(root):
        if existing.name in written:
            continue
        try:
            meta, _ = parse_front_matter((existing / "SKILL.md").read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, SkillFormatError):
            continue
        if isinstance(meta.get("metadata"), dict) and meta["metadata"].get(skill_md.META_BOOK) == book:
            stale.append(existing.name)
    return ExportReport(book=book, directory=str(root.resolve()), skills=exported, stale=stale)


def write_skill_folder(view: SkillView, folder: Path) -> None:
    (folder / "references").mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(render_skill_md(view), encoding="utf-8")
    (folder / EVIDENCE_FILE).write_text(render_evidence_md(view), encoding="utf-8")


def render_evidence_md(view: SkillView) -> str:
    """references/evidence.md: each span a person can read and open, then the same spans as
    JSON for ``import-skills``."""
    lines = [f"# Evidence: {_one_line(view.name)}", "", SOURCE_NOTE, ""]
    for n, e in enumerate(view.evidence, 1):
        unit = "seconds" if e.timed else "characters"
        lines += [
            f"## {n}. {_one_line(e.tutorial_title) or e.tutorial_id}, {skill_md._span(e.start, e.end, e.timed)}",
            "",
            f"- tutorial id: `{e.tutorial_id}`",
            f"- span: {e.start:g}–{e.end:g} {unit}",
        ]
        if e.link:
            lines.append(f"- open: <{e.link}>")
        lines += [""] + [f"> {line}" if line else ">" for line in e.quote.splitlines() or [""]] + [""]
    if not view.evidence:
        lines += ["No evidence was recorded for this skill.", ""]
    data = json.dumps([e.model_dump() for e in view.evidence], ensure_ascii=False, indent=2)
    fence = "`" * max(3, _longest_run(data, "`") + 1)
    lines += ["## Machine-readable copy", "",
              "`tutorialbook import-skills` reads this block; keep it in step with the entries above.",
              "", fence + "json", data, fence, ""]
    return "\n".join(lines)


def parse_evidence_md(text: str) -> list[Evidence]:
    blocks = re.findall(r"^(`{3,})json[ \t]*\n(.*?)\n\1[ \t]*$", text, re.M | re.S)
    if not blocks:
        raise SkillFormatError(f"{EVIDENCE_FILE} has no ```json block of evidence")
    try:
        items = json.loads(blocks[-1][1])
        if not isinstance(items, list):
            raise SkillFormatError(f"the JSON block of {EVIDENCE_FILE} is not a list")
        return [Evidence(**item) for item in items]
    except (json.JSONDecodeError, TypeError, ValidationError) as exc:
        raise SkillFormatError(f"the JSON block of {EVIDENCE_FILE} is not valid evidence: {exc}") from exc


# -- reading a skill folder -------------------------------------------------------------------
@dataclass
class ParsedSkill:
    folder: Path
    name: str  # the human name (the body's heading)
    description: str
    when_to_use: str
    steps: list[str]
    evidence: list[Evidence]
    path: list[str]  # TOC titles below the book root; [] when not recorded
    skill_id: str = ""  # as exported (metadata), if any
    author: str = "import"
    helpful: int = 0
    harmful: int = 0
    warnings: list[str] = field(default_factory=list)
    code: list[int] = field(default_factory=list)  # which steps were fenced: code, as typed


def validate_front_matter(meta: dict, folder_name: str | None = None) -> list[str]:
    """The Agent Skills rules for SKILL.md front matter; an empty list means valid."""
    errors = []
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        errors.append("'name' is required and must be a string")
    else:
        if len(name) > 64:
            errors.append(f"'name' is {len(name)} characters; the limit is 64")
        if not NAME_RULE.match(name):
            errors.append(f"'name' {name!r} must be lowercase letters, digits and single hyphens, "
                          "not starting or ending with a hyphen")
        if folder_name is not None and folder_name != name:
            errors.append(f"'name' {name!r} must equal the folder's name {folder_name!r}")
    description = meta.get("description")
    if not isinstance(description, str) or not description.strip():
        errors.append("'description' is required and must be a non-empty string")
    elif len(description) > skill_md.MAX_DESCRIPTION:
        errors.append(f"'description' is {len(description)} characters; the limit is {skill_md.MAX_DESCRIPTION}")
    if "compatibility" in meta and (not isinstance(meta["compatibility"], str)
                                    or len(meta["compatibility"]) > MAX_COMPATIBILITY):
        errors.append(f"'compatibility' must be a string of at most {MAX_COMPATIBILITY} characters")
    if "metadata" in meta and not (isinstance(meta["metadata"], dict)
                                   and all(isinstance(v, str) for v in meta["metadata"].values())):
        errors.append("'metadata' must map keys to string values")
    unknown = sorted(set(meta) - SPEC_FIELDS)
    if unknown:
        errors.append(f"unknown front-matter fields {unknown}; allowed: {sorted(SPEC_FIELDS)}")
    return errors


def read_skill_folder(folder: Path) -> ParsedSkill:
    """Parse and validate one skill folder; SkillFormatError says what is wrong."""
    try:
        text = (folder / "SKILL.md").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SkillFormatError(f"SKILL.md cannot be read ({exc})") from exc
    meta, body = parse_front_matter(text)
    errors = validate_front_matter(meta, folder.name)
    if errors:
        raise SkillFormatError("; ".join(errors))
    extra = meta.get("metadata") or {}
    sections = _sections(body)
    title = next((line[2:].strip() for line in body.splitlines() if line.startswith("# ")), "")
    name = title or meta["name"].replace("-", " ")
    when = " ".join(sections.get("when to use", "").split()) or meta["description"].strip()
    when = "" if when == skill_md.ANY_TIME else when
    code: list[int] = []
    steps = _list_items(sections["steps"], code=code) if "steps" in sections else \
        _list_items(body, numbered_only=True, code=code)
    if not steps:
        steps = [_first_paragraph(body) or meta["description"].strip()]
    warnings = []
    evidence: list[Evidence] = []
    evidence_file = folder / EVIDENCE_FILE
    if evidence_file.is_file():
        evidence = parse_evidence_md(evidence_file.read_text(encoding="utf-8"))
    path: list[str] = []
    if skill_md.META_PATH in extra:
        try:
            path = json.loads(extra[skill_md.META_PATH])
            if not isinstance(path, list) or not all(isinstance(t, str) and t.strip() for t in path):
                raise ValueError
        except ValueError:
            warnings.append(f"metadata {skill_md.META_PATH} is not a JSON list of titles; "
                            f"placed under {IMPORTED_CHAPTER!r}")
            path = []
    return ParsedSkill(
        folder=folder, name=name, description=meta["description"], when_to_use=when, steps=steps,
        evidence=evidence, path=[" ".join(t.split()) for t in path], skill_id=extra.get(skill_md.META_ID, ""),
        author=extra.get(skill_md.META_AUTHOR) or "import", helpful=_count(extra.get(skill_md.META_HELPFUL)),
        harmful=_count(extra.get(skill_md.META_HARMFUL)), warnings=warnings, code=code,
    )


def skill_folders(directory: Path) -> list[Path]:
    """The skill folders a directory names: itself when it holds a SKILL.md, else its
    sub-folders that do."""
    if (directory / "SKILL.md").is_file():
        return [directory]
    return sorted(p for p in directory.iterdir() if p.is_dir() and (p / "SKILL.md").is_file())


# -- import ---------------------------------------------------------------------------------
def import_skills(store, embed: Callable, ensure_book: Callable, tree: Callable, book: str, directory: str | Path,
                  progress: Progress | None, agent: str) -> ImportReport:
    """Read Agent Skills folders into ``book`` (created if new). Each skill goes under the
    node its recorded TOC path names (nodes are created as needed); a skill already in the
    book (same id, or same name under the same node) gains the evidence it lacked and any
    edited steps, so importing twice changes nothing the second time. Receives the store, the
    embedder, and the reading service's ``ensure_book`` and ``tree``; writes as ``agent``."""
    root = Path(directory).expanduser()
    if not root.is_dir():
        raise TutorialbookError("directory", f"{root} is not a folder of Agent Skills")
    folders = skill_folders(root)
    if not folders:
        raise TutorialbookError("directory", f"{root} holds no SKILL.md, neither itself nor in a sub-folder")
    report = ImportReport(book=book, directory=str(root.resolve()))
    parsed: list[ParsedSkill] = []
    for n, folder in enumerate(folders):
        try:
            skill = read_skill_folder(folder)
        except SkillFormatError as exc:
            report.skills.append(ImportedSkill(folder=folder.name, status="skipped", reason=str(exc)))
            report.warnings.append(f"{folder.name}: skipped: {exc}")
        else:
            parsed.append(skill)
            report.warnings += [f"{folder.name}: {w}" for w in skill.warnings]
        if progress:
            progress(n + 1, len(folders) + 1, f"read {folder.name}")
    ensure_book(book)
    with store.lock("skills-import"):  # two imports at once must not both add a node
        _Importer(store, embed, tree(book), book, report, agent).run(parsed)
    report.skipped = sum(s.status == "skipped" for s in report.skills)
    if progress:
        progress(len(folders) + 1, len(folders) + 1, "committed")
    return report


class _Importer:
    def __init__(self, store, embed: Callable, tree, book: str, report: ImportReport, agent: str):
        self.store, self.embed, self.tree = store, embed, tree
        self.agent = agent
        self.book = book
        self.report = report
        self.children = {k: list(v) for k, v in self.tree.children.items()}
        self.now = time.time()
        self.new_nodes: dict[str, dict] = {}
        self.touched_nodes: set[str] = set()
        self.skills: dict[str, dict] = {}  # id -> row to write
        self.by_node: dict[str, dict[str, str]] = {}  # node -> normalized name -> skill id

    def run(self, parsed: list[ParsedSkill]) -> None:
        for skill in parsed:
            self.report.skills.append(self._place(skill))
        changed = [row for row in self.skills.values() if row["_status"] != "unchanged"]
        if changed:
            vectors = self.embed([skill_vector_text(row["name"], steps_of(row)) for row in changed])
            for row, vector in zip(changed, vectors):
                row["vector"] = vector.tolist()
        nodes = self._node_rows()
        self.report.nodes_added = len(self.new_nodes)
        for status in ("added", "updated", "unchanged"):
            setattr(self.report, status, sum(s.status == status for s in self.report.skills))
        before = hist.skills_before(self.store, [r["id"] for r in changed if r["_status"] == "updated"])
        versions: dict[str, int | None] = {}
        try:
            versions["nodes"] = hist.version_of(self.store.upsert("nodes", nodes))
            versions["skills"] = hist.version_of(self.store.upsert("skills", [_clean(r) for r in changed]))
        finally:  # the import's event, interrupted part way too (revert-skill reads its before-images)
            if nodes or changed:
                ev = hist.event(
                    book=self.book, agent=self.agent, action="import-skills", target=self.book,
                    summary=f"imported skills from {self.report.directory}: +{self.report.added} "
                            f"~{self.report.updated}, nodes +{self.report.nodes_added}"
                            + ("" if "skills" in versions else " (interrupted part way)"),
                    versions=versions,
                    detail={"skills_before": before, "directory": self.report.directory,
                            "skills_added": [r["id"] for r in changed if r["_status"] == "added"],
                            "nodes_added": sorted(self.new_nodes)})
                hist.record(self.store, [ev])
                self.report.event_id = ev["id"]

    # nodes
    def _node_for(self, path: list[str]) -> str:
        node_id = self.tree.root_id
        for depth, title in enumerate(path, 1):
            match = next((c for c in self.children.get(node_id, []) if _norm(self._title(c)) == _norm(title)), None)
            if match is None:
                match = "n_" + hashlib.sha256(f"{self.book}\n{json.dumps(path[:depth])}".encode()).hexdigest()[:12]
                siblings = self.children.setdefault(node_id, [])
                self.new_nodes[match] = dict(node_row(
                    id=match, book=self.book, parent_id=node_id, position=len(siblings), title=title, summary="",
                    kind="chapter" if depth == 1 else "section", evidence=[], origin="import", now=self.now))
                siblings.append(match)
            node_id = match
        return node_id

    def _title(self, node_id: str) -> str:
        node = self.new_nodes.get(node_id) or self.tree.nodes[node_id]
        return node["title"]

    def _node_rows(self) -> list[dict]:
        """New nodes, and nodes that gained skills, with their search text and vector."""
        ids = sorted(self.touched_nodes | set(self.new_nodes))
        if not ids:
            return []
        names: dict[str, list[str]] = {i: [] for i in ids}
        for row in self.store.rows("skills", where.in_list("node_id", ids), ["node_id", "name"]):
            names[row["node_id"]].append(row["name"])
        for row in self.skills.values():
            if row["_status"] == "added":
                names.setdefault(row["node_id"], []).append(row["name"])
        stored = {
            r["id"]: r
            for r in self.store.rows("nodes", where.in_list("id", [i for i in ids if i not in self.new_nodes]))
        }
        rows = []
        for node_id in ids:
            row = self.new_nodes.get(node_id) or _clean(stored[node_id])
            if node_id in self.new_nodes:
                row["summary"] = _summary(names[node_id])
            row["text"] = node_text(row["title"], row["summary"], names[node_id])
            rows.append(row)
        for row, vector in zip(rows, self.embed([r["text"] for r in rows])):
            row["vector"] = vector.tolist()
        return rows

    # skills
    def _place(self, skill: ParsedSkill) -> ImportedSkill:
        path = skill.path or [IMPORTED_CHAPTER]
        node_id = self._node_for(path)
        row, by_id = self._existing(skill, node_id)
        if row is None:
            return self._add(skill, node_id, path)
        known = evidence_of(row)
        keys = {_evidence_key(e) for e in known}
        fresh = [e.model_dump() for e in skill.evidence if _evidence_key(e.model_dump()) not in keys]
        changes = []
        if fresh:
            known += fresh
            row["evidence"] = encode(known)
            row["sources"] = len({e["tutorial_id"] for e in known})
            changes.append(f"{len(fresh)} evidence span(s) added")
        steps = encode_steps(skill.steps, skill.code)
        if by_id and (steps_of(row) != skill.steps or code_steps_of(row) != skill.code
                      or row["when_to_use"] != skill.when_to_use):
            row["steps"], row["when_to_use"] = steps, skill.when_to_use
            changes.append("steps or when-to-use edited")
        status = "unchanged"
        if changes:
            status = "updated"
            if row["_status"] == "unchanged":
                row["_status"] = "updated"
                row["version"] += 1
            row["updated_at"] = self.now
            row["text"] = skill_text(row["name"], row["when_to_use"], steps_of(row))
        return ImportedSkill(folder=skill.folder.name, status=status, skill_id=row["id"], name=row["name"],
                             node_id=row["node_id"], path=self.tree.titles(row["node_id"])[1:] or path,
                             reason="; ".join(changes))

    def _existing(self, skill: ParsedSkill, node_id: str) -> tuple[dict | None, bool]:
        """The skill this folder already is in the book, and whether it matched by id."""
        for candidate in (skill.skill_id, self._derived_id(skill)):
            if not candidate:
                continue
            if candidate in self.skills:
                return self.skills[candidate], True
            row = self.store.get("skills", candidate)
            if row is not None and row["book"] == self.book:
                return self._hold(row), True
        same_name = self.by_node.get(node_id, {}).get(_norm(skill.name))
        if same_name:
            return self.skills[same_name], False
        if node_id not in self.new_nodes:
            for row in self.store.rows("skills", where.eq("node_id", node_id)):
                if _norm(row["name"]) == _norm(skill.name):
                    return self._hold(row), False
        return None, False

    def _hold(self, row: dict) -> dict:
        row = _clean(row)
        row["_status"] = "unchanged"
        self.skills[row["id"]] = row
        self.by_node.setdefault(row["node_id"], {})[_norm(row["name"])] = row["id"]
        return row

    def _derived_id(self, skill: ParsedSkill) -> str:
        seed = skill.skill_id or skill.folder.name
        return "s_" + hashlib.sha256(f"{self.book}\n{seed}".encode()).hexdigest()[:12]

    def _add(self, skill: ParsedSkill, node_id: str, path: list[str]) -> ImportedSkill:
        skill_id = skill.skill_id
        if not skill_id or not re.match(r"^[A-Za-z0-9_.:-]{1,64}$", skill_id) or self.store.get("skills", skill_id):
            skill_id = self._derived_id(skill)
        evidence = [e.model_dump() for e in skill.evidence]
        row = {**skill_row(id=skill_id, book=self.book, node_id=node_id, name=skill.name,
                           when_to_use=skill.when_to_use, steps=skill.steps, evidence=evidence, author=skill.author,
                           origin="import", helpful=skill.helpful, harmful=skill.harmful, now=self.now,
                           code=skill.code),
               "_status": "added"}
        self.skills[skill_id] = row
        self.by_node.setdefault(node_id, {})[_norm(skill.name)] = skill_id
        self.touched_nodes.add(node_id)
        return ImportedSkill(folder=skill.folder.name, status="added", skill_id=skill_id, name=skill.name,
                             node_id=node_id, path=path)


# -- front matter ---------------------------------------------------------------------------------
def parse_front_matter(text: str) -> tuple[dict, str]:
    """The YAML front matter of a SKILL.md as a dict (PyYAML's safe loader), and the body after it."""
    try:
        return front_matter.load(text)
    except front_matter.FrontMatterError as exc:
        raise SkillFormatError(str(exc)) from None


# -- Markdown body ----------------------------------------------------------------------------
def _sections(body: str) -> dict[str, str]:
    """``## Heading`` sections of the body, keyed by lower-case heading."""
    out: dict[str, list[str]] = {}
    current = None
    for line in body.splitlines():
        heading = re.match(r"^##\s+(.*?)\s*#*\s*$", line)
        if heading:
            current = heading.group(1).lower()
            out[current] = []
        elif current is not None:
            out[current].append(line)
    return {k: "\n".join(v) for k, v in out.items()}


_ITEM_MARK = re.compile(r"\s*(?:\d+[.)]|[-*+])\s")


def _list_items(text: str, numbered_only: bool = False, code: list[int] | None = None) -> list[str]:
    """The items of a Markdown list: a wrapped item joined into one line; an item that is a fenced
    block (``skill_md._step_lines``) keeps its lines, less the item's indent, and its index goes
    into ``code`` when it is a code step (a fence with a language or none, not ``text``)."""
    pattern = r"^(\s{0,3}(?:\d+[.)]|[-*+])\s+)(.*)$"
    if numbered_only:
        pattern = r"^(\s{0,3}\d+[.)]\s+)(.*)$"
    items: list[str] = []
    fence, pad, pad_item, is_code = "", 0, 0, True
    block: list[str] = []
    for line in text.splitlines():
        if fence:
            if line.strip() == fence:
                if code is not None and is_code:
                    code.append(len(items))
                items.append("\n".join(block))
                fence = ""
            else:
                block.append(line[pad:] if line[:pad].isspace() else line.lstrip())
            continue
        if items and pad_item and line[:pad_item].isspace() and _ITEM_MARK.match(line[pad_item:]):
            items[-1] += "\n" + line[pad_item:]  # a nested item of a step of several lines (``_step_lines``)
            continue
        match = re.match(pattern, line)
        opening = re.fullmatch(r"(`{3,})(\w*)", match.group(2).strip()) if match else None
        if opening and match:
            fence, pad, block, pad_item = opening.group(1), len(match.group(1)), [], 0
            is_code = opening.group(2) != "text"
        elif match:
            items.append(match.group(2).strip())
            pad_item = len(match.group(1))
        elif items and line.startswith("   ") and line.strip():  # a wrapped item
            items[-1] += " " + line.strip()
    if fence:
        if code is not None and is_code:
            code.append(len(items))
        items.append("\n".join(block))  # a fence left open: its lines to the end
    return [i for i in items if i.strip()]


def _first_paragraph(body: str) -> str:
    for block in re.split(r"\n\s*\n", body):
        text = " ".join(line.strip() for line in block.splitlines() if not line.lstrip().startswith(("#", ">")))
        if text.strip():
            return text.strip()[:1000]
    return ""


# -- helpers --------------------------------------------------------------------------------------
def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _count(value) -> int:
    try:
        return max(0, int(str(value)))
    except (TypeError, ValueError):
        return 0


def _longest_run(text: str, char: str) -> int:
    return max((len(m) for m in re.findall(re.escape(char) + "+", text)), default=0)


def _evidence_key(e: dict) -> tuple:
    return (e["tutorial_id"], round(float(e["start"]), 2), round(float(e["end"]), 2), " ".join(e["quote"].split()))


def _clean(row: dict) -> dict:
    """A row without the store's private columns (``_distance``, ``_rowid``); the import's
    own ``_status`` mark stays (the store writes only schema columns)."""
    return clean(row, keep=("_status",))


def _summary(names: list[str]) -> str:
    text = "Imported skills: " + "; ".join(names[:5])
    return text if len(text) <= 240 else text[:239].rstrip() + "…"
