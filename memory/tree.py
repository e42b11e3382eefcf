"""A book's TOC tree in memory, following the versions of the book's tables.

Browsing is the hot path of an agent's navigation, so the tree, the per-node skill counts and
the book's lessons are kept per (nodes, skills, tutorials, lessons) version; a write moves them
on by the rows it changed (see ``TreeCache``).
"""

from __future__ import annotations

import threading
from collections import Counter, defaultdict
from collections import OrderedDict
from dataclasses import dataclass, field

from tutorialbook.memory import snapshots
from tutorialbook.memory.rows import encode, evidence_of
from tutorialbook.memory.snapshots import BookRows
from tutorialbook.memory.store import Store


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
    hidden: frozenset = frozenset()
    """tutorials of the book whose commit has not finished (or was abandoned): their rows are left out"""
    hidden_skills: frozenset = frozenset()
    """ids of the skills those tutorials added (left out of the tree; searches drop them too)"""
    node_rows: BookRows | None = field(default=None, repr=False, compare=False)
    skill_rows: BookRows | None = field(default=None, repr=False, compare=False)
    """the book's skills as of the version this tree was read at: searches run on them"""
    lesson_rows: BookRows | None = field(default=None, repr=False, compare=False)
    lessons_of: dict[str, list[dict]] = field(default_factory=dict, repr=False, compare=False)
    """skill id -> its lessons (LESSON_COLUMNS)"""
    lessons_at: dict[str, list[dict]] = field(default_factory=dict, repr=False, compare=False)
    """node id -> the lessons on the node itself, not on one of its skills (what a browse shows)"""
    _subtree_totals: dict[str, int] | None = field(default=None, repr=False, compare=False)
    _taught: dict[str, list[dict]] = field(default_factory=dict, repr=False, compare=False)

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

    def taught(self, node_id: str) -> list[dict]:
        """A node's skills (brief fields) as their tutorials teach them (:meth:`in_reading_order`),
        worked out once per node and snapshot: a browse is read far more often than written."""
        order = self._taught.get(node_id)
        if order is None:
            order = self._taught[node_id] = self.in_reading_order(self.skills_at.get(node_id, []))
        return order

    def in_reading_order(self, briefs: list[dict]) -> list[dict]:
        """Skills as their tutorials teach them: by their first evidence span (its tutorial, then
        where it starts), then name; skills without evidence (an agent's) after those. The rows'
        own order is none: a store writes a row it updates (a vote, a repair) at its table's end."""
        ids = [b["id"] for b in briefs]
        full = self.skill_rows.rows(ids) if self.skill_rows is not None and ids else {}

        def key(brief: dict) -> tuple:
            row = full.get(brief["id"])
            first = (evidence_of(row) if row is not None else [])[:1]
            where = (0, first[0].get("tutorial_id", ""), float(first[0].get("start", 0.0))) if first else (1, "", 0.0)
            return (*where, brief["name"], brief["id"])

        return sorted(briefs, key=key)

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
NODE_COLUMNS = ["id", "parent_id", "position", "title", "summary", "kind", "evidence", "version", "origin"]
#: what a book's skills snapshot keeps: a SkillView's columns, and ``origin`` for unfinished commits
SKILL_COLUMNS = ["id", "name", "when_to_use", "steps", "node_id", "evidence", "sources", "helpful", "harmful",
                 "version", "author", "origin"]
#: what a LessonView is made of
LESSON_COLUMNS = ["id", "text", "outcome", "context", "skill_id", "node_id", "agent", "merged_count"]
#: books whose tree (and rows) the process keeps (a 100,000-skill book's rows take ~40 MB)
BOOKS = 8


#: (store, book) -> (versions, tree): the trees of every library of the process, least recent first
_trees: OrderedDict[tuple, tuple[tuple[int, ...], Tree]] = OrderedDict()
_guard = threading.Lock()


class TreeCache:
    """A book's tree follows the versions of its tables. It is read whole once; after a write
    only the rows the write changed are read (``memory/snapshots.py``) and the tree is patched
    with them, so the first read after a write costs about what any read costs."""

    def __init__(self, store: Store):
        self._store = store
        self._pending: tuple[int, dict[str, frozenset]] = (-1, {})  # tutorials version -> unfinished commits
        self._lock = threading.Lock()

    def books(self) -> list[str]:
        """The books of this store whose trees the process keeps, least recently used first."""
        here = self._store.key
        with _guard:
            return [book for store, book in _trees if store == here]

    def get(self, book: str) -> Tree | None:
        nodes_v, skills_v, lessons_v, tutorials_v = self._store.versions(("nodes", "skills", "lessons", "tutorials"))
        name = (self._store.key, book)
        with _guard:
            hit = _trees.get(name)
        key = (nodes_v, skills_v, tutorials_v, lessons_v)
        tree: Tree | None
        if hit and hit[0] == key:
            tree = hit[1]
        else:
            tree = self._moved(book, key, hit[1] if hit else None)
        if tree is not None:
            with _guard:
                if name not in _trees or _trees[name][0] <= key:  # never back to an older tree
                    _trees[name] = (key, tree)
                _trees.move_to_end(name)
                while len(_trees) > BOOKS:
                    _trees.popitem(last=False)
        return tree

    def _moved(self, book: str, key: tuple[int, ...], old: Tree | None) -> Tree | None:
        """The book's tree at these table versions, patched from ``old`` where it can be."""
        nodes_v, skills_v, tutorials_v, lessons_v = key
        hidden = self.hidden(book, tutorials_v)
        store = self._store
        node_rows, nodes_changed = snapshots.latest(store, "nodes", book, NODE_COLUMNS, nodes_v,
                                                    old.node_rows if old else None)
        if not len(node_rows):
            return None
        skill_rows, change = snapshots.latest(store, "skills", book, SKILL_COLUMNS, skills_v,
                                              old.skill_rows if old else None)
        lesson_rows, lessons_changed = snapshots.latest(store, "lessons", book, LESSON_COLUMNS, lessons_v,
                                                        old.lesson_rows if old else None)
        if old is not None and old.node_rows is node_rows and old.hidden == hidden:
            shape = old.root_id, old.nodes, old.children
        else:
            shape = _shape(node_rows, hidden)
        if old is None or change.whole:
            skills_at, counts, hidden_skills = _skills(skill_rows.all_rows(
                BRIEF_COLUMNS + ["origin"] + (["evidence"] if hidden else [])), hidden)
        else:
            skills_at, counts, hidden_skills = _patched(old, change, skill_rows, hidden)
        if old is not None and lesson_rows is old.lesson_rows:
            lesson_counts, lessons_of, lessons_at = old.lesson_counts, old.lessons_of, old.lessons_at
        elif old is None or lessons_changed.whole:
            lesson_counts, lessons_of, lessons_at = _lessons(lesson_rows)
        else:
            lesson_counts, lessons_of, lessons_at = _lessons_patched(old, lessons_changed)
        return Tree(book, *shape, counts, lesson_counts, skills_at, hidden=hidden,
                    hidden_skills=frozenset(hidden_skills), node_rows=node_rows, skill_rows=skill_rows,
                    lesson_rows=lesson_rows, lessons_of=lessons_of, lessons_at=lessons_at)

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


def _shape(node_rows: BookRows, hidden: frozenset) -> tuple[str, dict[str, dict], dict[str, list[str]]]:
    """The root, the nodes by id and each node's children in TOC order."""
    rows = node_rows.all_rows()
    if hidden:
        rows = [without_hidden(r, hidden) for r in rows if r["origin"] not in hidden]
    nodes = {r["id"]: r for r in rows}
    children: dict[str, list[str]] = defaultdict(list)
    root_id = ""
    for r in sorted(rows, key=lambda r: (r["position"], r["title"])):
        if r["parent_id"]:
            children[r["parent_id"]].append(r["id"])
        elif r["kind"] == "book":
            root_id = r["id"]
    return root_id, nodes, dict(children)


def _brief(row: dict, hidden: frozenset) -> dict | None:
    """A skill row as the tree keeps it (None: added by an unfinished commit)."""
    if hidden:
        if row["origin"] in hidden:
            return None
        row = without_hidden(row, hidden)
    return {c: row[c] for c in BRIEF_COLUMNS}


def _skills(rows: list[dict], hidden: frozenset) -> tuple[dict[str, list[dict]], Counter, set[str]]:
    skills_at: dict[str, list[dict]] = defaultdict(list)
    hidden_skills = set()
    for r in rows:
        brief = _brief(r, hidden)
        if brief is None:
            hidden_skills.add(r["id"])
        else:
            skills_at[brief.pop("node_id")].append(brief)
    return dict(skills_at), Counter({node: len(briefs) for node, briefs in skills_at.items()}), hidden_skills


def _patched(old: Tree, change: snapshots.Change, skill_rows: BookRows,
             hidden: frozenset) -> tuple[dict[str, list[dict]], Counter, set[str]]:
    """``old``'s skills with the rows a write removed taken out and the rows it added put in;
    when the unfinished commits differ, the rows they touch are read again from ``skill_rows``."""
    removed, added = list(change.removed), list(change.added)
    if hidden != old.hidden:
        moved = old.hidden ^ hidden
        again = skill_rows.mentioning(("origin", "evidence"), sorted(moved))
        removed += again  # as they are now: the tree drops them by id, wherever they sit
        added += again
    added = list({r["id"]: r for r in added}.values())  # a row both rewritten and re-read
    gone: dict[str, set[str]] = defaultdict(set)
    for row in removed:
        gone[row["node_id"]].add(row["id"])
    skills_at = dict(old.skills_at)
    hidden_skills = set(old.hidden_skills) - {r["id"] for r in removed}
    fresh: dict[str, list[dict]] = defaultdict(list)
    for row in added:
        brief = _brief(row, hidden)
        if brief is None:
            hidden_skills.add(row["id"])
        else:
            fresh[brief.pop("node_id")].append(brief)
    counts = Counter(old.skill_counts)
    for node in set(gone) | set(fresh):
        briefs = [b for b in skills_at.get(node, []) if b["id"] not in gone.get(node, ())] + fresh.get(node, [])
        if briefs:
            skills_at[node], counts[node] = briefs, len(briefs)
        else:
            skills_at.pop(node, None)
            counts.pop(node, None)
    return skills_at, counts, hidden_skills


def _lessons(lesson_rows: BookRows) -> tuple[Counter, dict[str, list[dict]], dict[str, list[dict]]]:
    """Lessons per node, each skill's lessons, and each node's own lessons."""
    rows = lesson_rows.all_rows()
    of: dict[str, list[dict]] = defaultdict(list)
    at: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        (of[r["skill_id"]] if r["skill_id"] else at[r["node_id"]]).append(r)
    return Counter(r["node_id"] for r in rows), dict(of), dict(at)


def _lessons_patched(old: Tree, change: snapshots.Change) -> tuple[Counter, dict[str, list[dict]],
                                                                     dict[str, list[dict]]]:
    """``old``'s lessons with the rows a write removed taken out and those it added appended (a
    rewritten row, such as a lesson counted again, moves to the end, where the table puts it):
    a lesson costs the tree what it changed, not a pass over every lesson of the book."""
    counts = Counter(old.lesson_counts)
    of, at = dict(old.lessons_of), dict(old.lessons_at)
    gone: dict[tuple[bool, str], set[str]] = defaultdict(set)
    for r in change.removed:
        gone[(bool(r["skill_id"]), r["skill_id"] or r["node_id"])].add(r["id"])
        counts[r["node_id"]] -= 1
    for (on_skill, key), ids in gone.items():
        held = of if on_skill else at
        kept = [r for r in held.get(key, []) if r["id"] not in ids]
        if kept:
            held[key] = kept
        else:
            held.pop(key, None)
    for r in change.added:
        held = of if r["skill_id"] else at
        key = r["skill_id"] or r["node_id"]
        held[key] = [*held.get(key, []), r]
        counts[r["node_id"]] += 1
    return +counts, of, at


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
