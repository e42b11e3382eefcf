"""A book's TOC tree in memory, rebuilt only when the nodes or skills tables change.

Browsing is the hot path of an agent's navigation, so the tree and the per-node skill
counts are cached per (nodes version, skills version, lessons version).
"""

from __future__ import annotations

import threading
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace

from tutorialbook.memory.rows import encode, evidence_of
from tutorialbook.memory.store import Store
from tutorialbook.memory.where import quote


@dataclass
class Tree:
    book: str
    root_id: str
    nodes: dict[str, dict]
    children: dict[str, list[str]]
    skill_counts: Counter = field(default_factory=Counter)
    lesson_counts: Counter = field(default_factory=Counter)
    skills_at: dict[str, list[dict]] = field(default_factory=dict)
    """node id -> its skills' brief fields, so a browse needs no query."""
    skills_version: int = 0
    """the ``skills`` table version checked before this tree was read"""
    hidden: frozenset = frozenset()
    """tutorials of the book whose commit has not finished (or was abandoned): their rows are left out"""
    hidden_skills: frozenset = frozenset()
    """ids of the skills those tutorials added (left out of the tree; searches drop them too)"""
    _subtree_totals: dict[str, int] | None = field(default=None, repr=False, compare=False)

    def path(self, node_id: str) -> list[str]:
        """Ids from the root down to ``node_id`` inclusive."""
        out = []
        current = node_id
        while current and current in self.nodes:
            out.append(current)
            current = self.nodes[current]["parent_id"]
        return out[::-1]

    def titles(self, node_id: str) -> list[str]:
        return [self.nodes[n]["title"] for n in self.path(node_id)]

    def subtree(self, node_id: str) -> list[str]:
        out, stack = [], [node_id]
        while stack:
            current = stack.pop()
            out.append(current)
            stack.extend(self.children.get(current, []))
        return out

    def subtree_skills(self, node_id: str) -> int:
        """Skills in a node's subtree; totals for the whole tree are summed once, on first use
        (a browse of the root of a 100,000-skill book asks for every chapter's total)."""
        if self._subtree_totals is None:
            totals: dict[str, int] = {}
            for node in reversed(self.subtree(self.root_id)) if self.root_id else []:
                totals[node] = self.skill_counts[node] + sum(totals[c] for c in self.children.get(node, []))
            self._subtree_totals = totals
        total = self._subtree_totals.get(node_id)
        if total is None:  # not under the root (or the tree was edited in place): walk it
            return sum(self.skill_counts[n] for n in self.subtree(node_id))
        return total


BRIEF_COLUMNS = ["node_id", "id", "name", "when_to_use", "sources", "helpful", "harmful"]


class TreeCache:
    """The tree is rebuilt when nodes or skills change; a new lesson only recounts lessons,
    because lessons are the busiest writes of a shared store."""

    def __init__(self, store: Store):
        self._store = store
        self._cache: dict[str, tuple[tuple[int, ...], Tree]] = {}
        self._pending: tuple[int, dict[str, frozenset]] = (-1, {})  # tutorials version -> unfinished commits
        self._lock = threading.Lock()

    def get(self, book: str) -> Tree | None:
        nodes_v, skills_v, lessons_v, tutorials_v = self._store.versions(("nodes", "skills", "lessons", "tutorials"))
        with self._lock:
            hit = self._cache.get(book)
        key = (nodes_v, skills_v, tutorials_v, lessons_v)
        if hit and hit[0] == key:
            return hit[1]
        if hit and hit[0][:3] == key[:3]:
            tree = replace(hit[1], lesson_counts=self._lesson_counts(book))
        else:
            tree = self._load(book, self.hidden(book, tutorials_v))
            tree = tree and replace(tree, skills_version=skills_v)
        if tree is not None:
            with self._lock:
                self._cache[book] = (key, tree)
        return tree

    def hidden(self, book: str, tutorials_version: int | None = None) -> frozenset:
        """The book's tutorials whose commit is not finished: being written, or abandoned by a
        writer that died (commit visibility is decided here, at read time, from the 'ready'
        marker a commit writes last)."""
        if tutorials_version is None:
            tutorials_version = self._store.version("tutorials")
        with self._lock:
            if self._pending[0] == tutorials_version:
                return self._pending[1].get(book, frozenset())
        pending: dict[str, set] = defaultdict(set)
        for row in self._store.rows("tutorials", "status != 'ready'", ["id", "book"]):
            pending[row["book"]].add(row["id"])
        frozen = {b: frozenset(ids) for b, ids in pending.items()}
        with self._lock:
            self._pending = (tutorials_version, frozen)
        return frozen.get(book, frozenset())

    def _lesson_counts(self, book: str) -> Counter:
        return Counter(r["node_id"] for r in self._store.rows("lessons", f"book = {quote(book)}", ["node_id"]))

    def _load(self, book: str, hidden: frozenset = frozenset()) -> Tree | None:
        where = f"book = {quote(book)}"
        rows = self._store.rows(
            "nodes", where, ["id", "parent_id", "position", "title", "summary", "kind", "evidence", "version", "origin"]
        )
        if hidden:
            rows = [without_hidden(r, hidden) for r in rows if r["origin"] not in hidden]
        if not rows:
            return None
        nodes = {r["id"]: r for r in rows}
        children: dict[str, list[str]] = defaultdict(list)
        root_id = ""
        for r in sorted(rows, key=lambda r: (r["position"], r["title"])):
            if r["parent_id"]:
                children[r["parent_id"]].append(r["id"])
            elif r["kind"] == "book":
                root_id = r["id"]
        skills_at: dict[str, list[dict]] = defaultdict(list)
        hidden_skills = set()
        for r in self._store.rows("skills", where, BRIEF_COLUMNS + (["origin", "evidence"] if hidden else [])):
            if hidden:
                if r.pop("origin") in hidden:
                    hidden_skills.add(r["id"])
                    continue
                r = without_hidden(r, hidden)
                r.pop("evidence")
            skills_at[r.pop("node_id")].append(r)
        counts = Counter({node: len(rows) for node, rows in skills_at.items()})
        return Tree(book, root_id, nodes, dict(children), counts, self._lesson_counts(book), dict(skills_at),
                    hidden=hidden, hidden_skills=frozenset(hidden_skills))


def without_hidden(row: dict, hidden: frozenset) -> dict:
    """A node or skill row without the evidence of unfinished commits (and, for a skill, its
    ``sources`` counted again): what the row read like before such a commit extended it."""
    if not hidden or "evidence" not in row:
        return row
    evidence = evidence_of(row)
    kept = [e for e in evidence if e.get("tutorial_id") not in hidden]
    if len(kept) == len(evidence):
        return row
    row = {**row, "evidence": encode(kept)}
    if "sources" in row:
        row["sources"] = len({e["tutorial_id"] for e in kept})
    return row
