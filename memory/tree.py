"""A book's TOC tree in memory, rebuilt only when the nodes or skills tables change.

Browsing is the hot path of an agent's navigation, so the tree and the per-node skill
counts are cached per (nodes version, skills version, lessons version).
"""

from __future__ import annotations

import threading
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace

from tutorialbook.memory.store import Store, quote


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
        self._lock = threading.Lock()

    def get(self, book: str) -> Tree | None:
        nodes_v, skills_v, lessons_v = self._store.versions(("nodes", "skills", "lessons"))
        with self._lock:
            hit = self._cache.get(book)
        if hit and hit[0] == (nodes_v, skills_v, lessons_v):
            return hit[1]
        if hit and hit[0][:2] == (nodes_v, skills_v):
            tree = replace(hit[1], lesson_counts=self._lesson_counts(book))
        else:
            tree = self._load(book)
            tree = tree and replace(tree, skills_version=skills_v)
        if tree is not None:
            with self._lock:
                self._cache[book] = ((nodes_v, skills_v, lessons_v), tree)
        return tree

    def _lesson_counts(self, book: str) -> Counter:
        return Counter(r["node_id"] for r in self._store.rows("lessons", f"book = {quote(book)}", ["node_id"]))

    def _load(self, book: str) -> Tree | None:
        where = f"book = {quote(book)}"
        rows = self._store.rows(
            "nodes", where, ["id", "parent_id", "position", "title", "summary", "kind", "evidence", "version"]
        )
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
        for r in self._store.rows("skills", where, BRIEF_COLUMNS):
            skills_at[r.pop("node_id")].append(r)
        counts = Counter({node: len(rows) for node, rows in skills_at.items()})
        return Tree(book, root_id, nodes, dict(children), counts, self._lesson_counts(book), dict(skills_at))
