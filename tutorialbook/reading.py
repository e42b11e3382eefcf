"""Reading a book: its books list, tree, nodes, skills and tutorials, as the surfaces show them.

A service of the :class:`~tutorialbook.library.Library` that the other services share: each of
them finds a book's tree here (one cache of trees per library, so a write's new version is read
once)."""

from __future__ import annotations

import hashlib
import time
from typing import Any, Callable, Iterable, TypeVar, cast

import numpy as np

from tutorialbook.common import check_book_name, lesson_view, no_book
from tutorialbook.errors import NotFound, TutorialbookError
from tutorialbook.memory import where
from tutorialbook.memory.rows import code_steps_of, evidence_of, root_row, steps_of
from tutorialbook.memory.store import Store
from tutorialbook.memory.tree import Tree, TreeCache, without_hidden
from tutorialbook.models import (
    MAX_DEPTH, BookInfo, Evidence, LessonView, NodeBrief, NodeView, SkillBrief, SkillView, TutorialInfo,
)

#: lessons a browse shows of a node, and a skill view of its skill (see ``shown_lessons``)
SHOWN_LESSONS = 10
#: the tables the books list counts (and ``books`` itself), and how many counts are kept
COUNTED = ("books", "tutorials", "nodes", "skills", "lessons")
KEPT_COUNTS = 4_096
T = TypeVar("T")
Embed = Callable[[list[str]], np.ndarray]


class Reading:
    """Books, trees and the views of their rows. Receives the store and the embedder (a new
    book's root node is embedded)."""

    def __init__(self, store: Store, embed: Embed):
        self.store = store
        self._embed = embed
        self._trees = TreeCache(store)
        self._at_version: dict[tuple[str, str | None], tuple[int, Any]] = {}  # (table, filter) -> (version, value)

    # -- books -----------------------------------------------------------------
    def books(self) -> list[BookInfo]:
        """Every book with its counts. Each count is taken once per version of its table (a
        lesson moves only the lessons count), all versions looked up in one trip."""
        versions = dict(zip(COUNTED, self.store.versions(COUNTED)))
        out = []
        for row in sorted(self._counted("books", None, versions["books"], lambda: self.store.rows("books")),
                          key=lambda r: r["id"]):
            of_book = where.of_book(row["id"])
            hidden = self._trees.hidden(row["id"], versions["tutorials"])  # unfinished commits are not counted
            visible = where.both(of_book, where.not_from(hidden))

            def count(table: str, scope: str | None) -> int:
                return self._counted(table, scope, versions[table], lambda: self.store.count(table, scope))

            out.append(BookInfo(
                name=row["id"], title=row["title"], tutorials=count("tutorials", where.ready_tutorials(row["id"])),
                nodes=count("nodes", visible), skills=count("skills", visible), lessons=count("lessons", of_book),
            ))
        return out

    def _counted(self, table: str, scope: str | None, version: int, read: Callable[[], T]) -> T:
        """``read()`` of ``table`` (rows matching ``scope``, their count) as of ``version``, read
        once per version."""
        key = (table, scope)
        hit = self._at_version.get(key)
        if hit is not None and hit[0] == version:
            return hit[1]
        value = read()
        if len(self._at_version) >= KEPT_COUNTS:
            self._at_version.clear()
        self._at_version[key] = (version, value)
        return value

    def book_names(self) -> list[str]:
        """Every book's name, sorted (reads only the ids)."""
        return sorted(b["id"] for b in self.store.rows("books", columns=["id"]))

    def ensure_book(self, book: str, title: str = "") -> Tree:
        check_book_name(book)
        self.store.insert_if_absent(
            "books", [{"id": book, "book": book, "title": title or book, "created_at": time.time()}]
        )
        root = root_row(id=root_id(book), book=book, title=title or book, vector=self._embed([book])[0])
        self.store.insert_if_absent("nodes", [cast(dict, root)])
        return cast(Tree, self._trees.get(book))  # its root is stored now: the book has a tree

    def tree(self, book: str) -> Tree:
        check_book_name(book)
        tree = self._trees.get(book)
        if tree is None:
            raise self.missing_book(book)
        return tree

    def has_book(self, book: str) -> bool:
        return self.store.count("books", where.by_id(book)) > 0

    def missing_book(self, book: str, among: Iterable[str] | None = None) -> NotFound:
        """The error for a book that does not exist, listing the known books (or ``among``:
        the ones a caller may see, so that a hidden book reads exactly like a missing one)."""
        return no_book(book, self.book_names() if among is None else among)

    # -- the tree ----------------------------------------------------------------
    def browse(self, book: str, node_id: str = "", depth: int = 1) -> NodeView:
        if not 1 <= depth <= MAX_DEPTH:
            raise TutorialbookError("depth", f"must be between 1 and {MAX_DEPTH}, got {depth}")
        tree = self.tree(book)
        node_id = node_id or tree.root_id
        if node_id not in tree.nodes:
            raise NotFound("node_id", f"no node {node_id!r} in book {book!r}; browse the root to see valid ids")
        node = tree.nodes[node_id]
        skills = tree.taught(node_id)
        lessons = tree.lessons_at.get(node_id, [])  # as of the version the tree was read at
        return NodeView(
            book=book, node=_brief(tree, node_id, 0),
            path=[_brief(tree, n, 0) for n in tree.path(node_id)[:-1]],
            evidence=[Evidence(**e) for e in evidence_of(node)],
            children=[_brief(tree, c, depth - 1) for c in tree.children.get(node_id, [])],
            skills=[SkillBrief(**{k: r[k] for k in SkillBrief.model_fields}) for r in skills],
            lessons=shown_lessons(lessons), lessons_total=len(lessons),
        )

    def skill(self, skill_id: str) -> SkillView:
        row = self.store.get("skills", skill_id)
        tree = self.tree(row["book"]) if row is not None else None
        if row is None or tree is None or row["id"] in tree.hidden_skills:  # tree is None only when row is
            raise NotFound("skill_id", f"no skill {skill_id!r}")
        return self.skill_views([(row, None)], tree)[0]

    def skills(self, book: str) -> list[SkillView]:
        """Every skill of a book, in TOC order: a node's in the order its tutorials teach them."""
        tree = self.tree(book)
        nodes: list[str] = []
        stack = [tree.root_id]
        while stack:  # pre-order: a node, then its children in TOC order
            node_id = stack.pop()
            nodes.append(node_id)
            stack.extend(reversed(tree.children.get(node_id, [])))
        taught = [b["id"] for node_id in nodes for b in tree.taught(node_id)]
        rank = {skill_id: n for n, skill_id in enumerate(taught)}
        rows = sorted(self.store.rows("skills", where.of_book(book)),
                      key=lambda r: (rank.get(r["id"], len(rank)), r["name"], r["id"]))
        return self.skill_views([(r, None) for r in rows], tree)

    def skill_views(self, rows: list[tuple[dict, float | None]], tree: Tree) -> list[SkillView]:
        """Skill rows (with their scores) as views: their TOC path, evidence and lessons."""
        rows = [(without_hidden(r, tree.hidden), score) for r, score in rows if r["id"] not in tree.hidden_skills]
        ids = [r["id"] for r, _ in rows]
        attached = {i: tree.lessons_of[i] for i in ids if i in tree.lessons_of}
        return [
            SkillView(
                id=r["id"], name=r["name"], when_to_use=r["when_to_use"], steps=steps_of(r),
                code_steps=code_steps_of(r), node_id=r["node_id"], path=tree.titles(r["node_id"]),
                evidence=[Evidence(**e) for e in evidence_of(r)],
                sources=r["sources"], helpful=r["helpful"], harmful=r["harmful"], version=r["version"],
                author=r["author"], score=None if score is None else round(score, 6),
                lessons=shown_lessons(attached.get(r["id"], [])), lessons_total=len(attached.get(r["id"], [])),
            )
            for r, score in rows
        ]

    # -- tutorials ---------------------------------------------------------------
    def tutorials(self, book: str) -> list[TutorialInfo]:
        self.tree(book)
        rows = self.store.rows("tutorials", where.ready_tutorials(book))
        return [self.tutorial_info(r) for r in sorted(rows, key=lambda r: r["created_at"])]

    def tutorial_info(self, r: dict) -> TutorialInfo:
        return TutorialInfo(id=r["id"], book=r["book"], title=r["title"], source=r["source"], domain=r["domain"],
                            duration=r["duration"], timed=r["timed"], status=r["status"],
                            segments=self.store.count("segments", where.of_tutorial(r["id"])))

    def segments(self, tutorial_id: str, columns: list[str] | None = None) -> list[dict]:
        """A tutorial's transcript segments, in order."""
        return sorted(self.store.rows("segments", where.of_tutorial(tutorial_id), columns), key=lambda s: s["idx"])

    def screen(self, tutorial_id: str, columns: list[str] | None = None) -> list[dict]:
        """What a tutorial's frames showed (unordered)."""
        return self.store.rows("screen", where.of_tutorial(tutorial_id), columns)

    def book_of(self, table: str, row_id: str) -> str | None:
        """The book a row (a skill, a tutorial) belongs to, or None when there is no such row."""
        found = self.store.rows(table, where.by_id(row_id), ["book"], limit=1)
        return found[0]["book"] if found else None

    def skill_names(self, book: str) -> list[dict]:
        """Every skill of a book as ``id`` and ``name`` (unordered): what listings need."""
        return self.store.rows("skills", where.of_book(book), ["id", "name"])

    # -- completion ----------------------------------------------------------------
    def ids_with_prefix(self, table: str, prefix: str, books: list[str] | None = None,
                        limit: int = 101) -> list[dict]:
        """Up to ``limit`` rows of ``table`` (``id`` and ``book``) whose id starts with ``prefix``,
        in ``books`` when given (the filter goes before the limit)."""
        if books is not None and not books:
            return []
        scope = where.both(where.id_prefix(prefix), where.in_list("book", books) if books is not None else None)
        return [r for r in self.store.rows(table, scope, ["id", "book"], limit=limit) if r["id"].startswith(prefix)]


def root_id(book: str) -> str:
    return "n_root_" + hashlib.sha256(book.encode()).hexdigest()[:8]


def _brief(tree: Tree, node_id: str, depth: int) -> NodeBrief:
    node = tree.nodes[node_id]
    kids = tree.children.get(node_id, [])
    return NodeBrief(
        id=node_id, title=node["title"], summary=node["summary"], kind=node["kind"], children=len(kids),
        skills=tree.skill_counts[node_id], subtree_skills=tree.subtree_skills(node_id),
        lessons=tree.lesson_counts[node_id],
        subnodes=[_brief(tree, c, depth - 1) for c in kids] if depth > 0 else [],
    )


def shown_lessons(rows: list[dict]) -> list[LessonView]:
    """A node's or skill's lessons as an answer shows them: the ``SHOWN_LESSONS`` most confirmed
    (``merged_count``), the newest first among equals (``rows`` in the order they were written).
    A team's lessons pile up on a few nodes; every browse answering with all of them grew without
    bound (``lessons_total`` says how many there are; retrieve_skill finds them by meaning)."""
    ranked = sorted(range(len(rows)), key=lambda n: (-int(rows[n].get("merged_count") or 1), -n))
    return [lesson_view(rows[n]) for n in ranked[:SHOWN_LESSONS]]
