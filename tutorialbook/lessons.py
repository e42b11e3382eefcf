"""Lessons agents write back, a service of the :class:`~tutorialbook.library.Library` (the
merge rules are :mod:`tutorialbook.memory.lessons`)."""

from __future__ import annotations

import time
from typing import cast

import numpy as np

from tutorialbook.common import lesson_view
from tutorialbook.config import Settings
from tutorialbook.errors import NotFound, TutorialbookError
from tutorialbook.memory import history as hist
from tutorialbook.memory import lessons as lesson_store
from tutorialbook.memory import where
from tutorialbook.memory.group_commit import GroupCommit
from tutorialbook.memory.rows import lesson_row
from tutorialbook.memory.search import nearest_rows, search
from tutorialbook.memory.store import Store
from tutorialbook.memory.tree import LESSON_COLUMNS, Tree
from tutorialbook.models import FeedbackCount, LessonResult, SkillFeedback
from tutorialbook.reading import Embed, Reading

in_list = where.in_list

#: distinct skills one lesson may give a verdict on, and feedback items one call may carry
#: (repeats of an item count once)
MAX_FEEDBACK = 50
MAX_FEEDBACK_ITEMS = 1000


class Lessons:
    """Records lessons and skill feedback. Receives the store, the embedder (a lesson is found
    by meaning), settings (its limits, the default agent) and the reading service (trees)."""

    def __init__(self, store: Store, embed: Embed, settings: Settings, reading: Reading):
        self.store, self._embed, self.settings, self.reading = store, embed, settings, reading
        self._group: GroupCommit[list[tuple[dict, list]], tuple[list[bool], dict[str, dict]]] = \
            GroupCommit(self._commit)

    # -- lessons -----------------------------------------------------------------
    def record_lesson(self, lesson: str, book: str, outcome: str = "note", skill_id: str = "", node_id: str = "",
                      context: str = "", feedback: list[SkillFeedback] | None = None,
                      agent: str | None = None) -> LessonResult:
        """Store (or count again) one lesson. ``agent`` is who learned it (over HTTP: the
        caller's token); by default settings.agent."""
        item = {"lesson": lesson, "outcome": outcome, "skill_id": skill_id, "node_id": node_id,
                "context": context, "feedback": feedback}
        return self._record_lessons([item], book, agent, single=True)[0]

    def record_lessons(self, lessons: list[dict], book: str, agent: str | None = None) -> list[LessonResult]:
        """Record many lessons of one book at once. Each item takes record_lesson's arguments
        (``lesson``, ``outcome``, ``skill_id``, ``node_id``, ``context``, ``feedback``). All are
        checked before anything is written; then the new lessons are one commit, merges one
        update, feedback one update per skill, and their history one commit (lessons other calls
        write at the same moment may share the commits: :mod:`tutorialbook.memory.group_commit`)."""
        if not isinstance(lessons, list) or not lessons:
            raise TutorialbookError("lessons", "give a non-empty list of lessons")
        return self._record_lessons(lessons, book, agent, single=False)

    def _record_lessons(self, items: list, book: str, agent: str | None, single: bool) -> list[LessonResult]:
        agent = agent or self.settings.agent
        tree = self.reading.tree(book)
        plans = [self._lesson_plan(item, book, tree, "" if single else f"lessons[{n}].")
                 for n, item in enumerate(items)]
        # a lesson with no target goes where its words lead: the words as its identity reads them
        # (lesson_id's normalised text), so a lesson identical but for case and punctuation goes
        # to the same node and merges there, however close two nodes score
        vectors = self._embed([p["text"] if p["attached"] else lesson_store.normalise(p["text"]) for p in plans])
        for plan, vector in zip(plans, vectors):
            plan["vector"] = vector
            if not plan["node_id"]:
                plan["node_id"] = self._best_node(tree, plan["text"], vector)
                plan["attached"] = ("root:" if plan["node_id"] == tree.root_id else "node:") + plan["node_id"]
        now = time.time()
        rows: list[dict] = []  # rows the store writes and reads back (LessonRow: memory/rows.py)
        ids = [lesson_store.lesson_id(book, f"skill:{p['skill_id']}" if p["skill_id"] else f"node:{p['node_id']}",
                                      p["text"]) for p in plans]
        for plan, row_id, similar in zip(plans, ids, self._similar_lessons(book, ids, vectors)):
            target = f"skill:{plan['skill_id']}" if plan["skill_id"] else f"node:{plan['node_id']}"
            plan["similar"] = similar
            rows.append(cast(dict, lesson_row(
                id=row_id, book=book, text=plan["text"], outcome=plan["outcome"], context=plan["context"],
                skill_id=plan["skill_id"], node_id=plan["node_id"], agent=agent, key=target, vector=plan["vector"],
                now=now)))
        verdicts_of = []
        totals: dict[str, dict[str, int]] = {}
        for plan in plans:
            verdicts = list(plan["verdicts"])
            sid = plan["skill_id"]
            if sid and plan["outcome"] in ("success", "failure") and sid not in {s for s, _ in verdicts}:
                verdicts.append((sid, "helpful" if plan["outcome"] == "success" else "harmful"))
            verdicts_of.append(verdicts)
            for s, verdict in verdicts:
                column = "helpful" if verdict == "helpful" else "harmful"
                totals.setdefault(s, {}).setdefault(column, 0)
                totals[s][column] += 1
        # the lessons and their history, committed with those other callers write now
        merged_flags, stored = self._group.submit(list(zip(rows, verdicts_of)))
        # feedback: one update per skill for the whole batch
        for s, columns in totals.items():
            self.store.update_sql("skills", where.by_id(s), {c: f"{c} + {n}" for c, n in columns.items()})
        counts = {r["id"]: r for r in self.store.rows("skills", in_list("id", list(totals)))} if totals else {}
        results = []
        for plan, row, merged, verdicts in zip(plans, rows, merged_flags, verdicts_of):
            now_row = stored.get(row["id"], row)
            results.append(LessonResult(
                lesson_id=row["id"], merged=merged, merged_count=now_row["merged_count"], attached_to=plan["attached"],
                similar=[lesson_view(r, 1 - r["_distance"]) for r in plan["similar"]],
                feedback=[FeedbackCount(skill_id=c["id"], helpful=c["helpful"], harmful=c["harmful"])
                          for c in (counts[s] for s in dict.fromkeys(s for s, _ in verdicts) if s in counts)],
            ))
        return results

    def _commit(self, calls: list[list[tuple[dict, list]]]) -> list[tuple[list[bool], dict[str, dict]]]:
        """Lesson rows of several calls (each row with its verdicts) as one commit of new ids,
        one update per merge count and one commit of their history. Per call: which rows were
        merged into a stored lesson (an id already stored, or earlier in the batch), and the
        merged rows as stored now."""
        rows = [row for call in calls for row, _ in call]
        with self.store.lock("lessons"):
            present = {r["id"] for r in self.store.rows("lessons", in_list("id", [r["id"] for r in rows]), ["id"])}
            fresh: dict[str, dict] = {}
            extra: dict[str, int] = {}
            merged_flags = []
            for row in rows:
                if row["id"] in present or row["id"] in fresh:
                    extra[row["id"]] = extra.get(row["id"], 0) + 1
                    merged_flags.append(True)
                else:
                    fresh[row["id"]] = row
                    merged_flags.append(False)
            written = self.store.insert("lessons", list(fresh.values()))
            by_count: dict[int, list[str]] = {}
            for row_id, n in extra.items():
                by_count.setdefault(n, []).append(row_id)
            now = repr(time.time())
            for n, ids in by_count.items():
                written = self.store.update_sql("lessons", in_list("id", ids),
                                                {"merged_count": f"merged_count + {n}", "updated_at": now})
        # a new row is as written; a merged one is read back for its count
        stored = {r["id"]: r for r in self.store.rows("lessons", in_list("id", list(extra)), LESSON_COLUMNS)
                  } if extra else {}
        version = hist.version_of(written)
        verdicts_of = [verdicts for call in calls for _, verdicts in call]
        hist.record(self.store, [
            hist.lesson_event(row["book"], row["agent"], stored.get(row["id"], row), merged, verdicts, version,
                              time.time())
            for row, merged, verdicts in zip(rows, merged_flags, verdicts_of)
        ])
        out, at = [], 0
        for call in calls:
            flags = merged_flags[at:at + len(call)]
            out.append((flags, {r["id"]: stored[r["id"]] for (r, _), m in zip(call, flags) if m and r["id"] in stored}))
            at += len(call)
        return out

    def _similar_lessons(self, book: str, ids: list[str], vectors: np.ndarray, k: int = 5) -> list[list[dict]]:
        """Stored lessons similar to each new one (itself excluded): one vector query for a whole batch."""
        if len(ids) == 1:
            hits = nearest_rows(self.store, "lessons", [vectors[0]], where.except_id(book, ids[0]), k, LESSON_COLUMNS)
        else:
            hits = nearest_rows(self.store, "lessons", list(vectors), where.of_book(book), k + 1, LESSON_COLUMNS)
            hits = [sorted((r for r in found if r["id"] != own), key=lambda r: r["_distance"])[:k]
                    for found, own in zip(hits, ids)]
        return [[r for r in found if 1 - r["_distance"] >= lesson_store.SIMILAR] for found in hits]

    def _lesson_plan(self, item, book: str, tree: Tree, prefix: str) -> dict:
        """One lesson's checked arguments (errors name the field, prefixed in a batch)."""
        get = item.get if isinstance(item, dict) else lambda k, d=None: getattr(item, k, d)
        text = (get("lesson") or "").strip() if isinstance(get("lesson") or "", str) else ""
        outcome, skill_id, node_id = get("outcome") or "note", get("skill_id") or "", get("node_id") or ""
        context = get("context") or ""
        if not text:
            raise TutorialbookError(prefix + "lesson", "is empty; say what worked or what did not")
        limit = self.settings.max_lesson_chars
        if len(text) > limit:
            raise TutorialbookError(prefix + "lesson", f"is {len(text)} characters; the limit is {limit} "
                                                       "(TUTORIALBOOK_MAX_LESSON_CHARS)")
        if outcome not in lesson_store.OUTCOMES:
            raise TutorialbookError(prefix + "outcome", f"{outcome!r} is not one of {', '.join(lesson_store.OUTCOMES)}")
        if len(context) > limit:
            raise TutorialbookError(prefix + "context", f"is over {limit} characters")
        verdicts = self._verdicts(get("feedback") or [], book, prefix + "feedback")
        if skill_id:
            node_id = self._skill_in_book(skill_id, book, prefix + "skill_id")["node_id"]
            attached = f"skill:{skill_id}"
        elif node_id:
            if node_id not in tree.nodes:
                raise NotFound(prefix + "node_id", f"no node {node_id!r} in book {book!r}")
            attached = f"node:{node_id}"
        else:
            attached = ""  # the best-matching node, once the text is embedded
        return {"text": text, "outcome": outcome, "context": context, "skill_id": skill_id, "node_id": node_id,
                "attached": attached, "verdicts": verdicts}

    def _verdicts(self, feedback: list, book: str, field: str) -> list[tuple[str, str]]:
        """Per-skill verdicts, one per skill (a repeated item counts once), at most
        MAX_FEEDBACK skills, all of them in the book (checked in one read)."""
        if len(feedback) > MAX_FEEDBACK_ITEMS:
            raise TutorialbookError(field, f"has {len(feedback)} items; the limit is {MAX_FEEDBACK_ITEMS}")
        verdicts: dict[str, str] = {}
        for f in feedback:
            f = f if isinstance(f, SkillFeedback) else SkillFeedback.model_validate(f)
            if verdicts.setdefault(f.skill_id, f.verdict) != f.verdict:
                raise TutorialbookError(field, f"skill {f.skill_id!r} is called both helpful and harmful")
        if len(verdicts) > MAX_FEEDBACK:
            raise TutorialbookError(field, f"names {len(verdicts)} skills; the limit is {MAX_FEEDBACK} a lesson")
        if verdicts:
            found = {
                r["id"]: r["book"] for r in self.store.rows("skills", in_list("id", list(verdicts)), ["id", "book"])
            }
            for skill_id in verdicts:
                if found.get(skill_id) != book:
                    raise NotFound(field, f"no skill {skill_id!r} in book {book!r}")
        return list(verdicts.items())

    def _skill_in_book(self, skill_id: str, book: str, field: str) -> dict:
        row = self.store.get("skills", skill_id)
        if row is None or row["book"] != book:
            raise NotFound(field, f"no skill {skill_id!r} in book {book!r}")
        return row

    def _best_node(self, tree: Tree, text: str, vector: np.ndarray) -> str:
        """The node (not the book itself) whose title and summary the lesson matches best, when it
        matches at least 0.35 by cosine; else the book. Searched on the tree's own version of its
        nodes, in memory: the two best, since one may be the book's root."""
        hits = search(self.store, "nodes", tree.book, text, vector, "vector", 2, columns=["id", "kind"],
                      snapshot=tree.node_rows)
        best = next((h for h in hits if h.row["kind"] != "book"), None)
        return best.row["id"] if best is not None and best.score >= 0.35 else tree.root_id
