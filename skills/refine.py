"""Adversarial refinement: examine the memory with questions harvested from a tutorial, and
repair what it fails.

Stage 1 (:mod:`tutorialbook.skills.questions`) harvests questions grounded in a tutorial's
spans. Stage 2 asks each question of the memory alone — through ``Library.rank_skills``, the
skill ranking ``retrieve`` returns to agents (less late interaction's re-ordering of its first
five), in the modes they use (``toc`` descent and ``hybrid``), never the transcript — and grades
the top ``k`` skills deterministically. A
question passes when every mode answers it.

Every failure becomes a repair:

* the answer is in a skill that retrieval did not surface → that skill is *extended*: the
  question's phrasing joins its "when to use" (so the way people ask finds it) and the
  question's evidence joins its evidence; when the TOC descent went on below the chapter it
  sits on (its tutorial merged into that chapter as a whole), it *moves* to the section the
  descent reached;
* no skill holds it → a skill is *added* at the node whose evidence covers the question's
  span, carrying the evidence sentence (a numbered procedure comes back whole; a domain
  pack may write it instead: chess writes "after these moves, play X") — unless a
  skill of the same name or meaning exists (``SKILL_MATCH``), which is extended instead:
  the sentence becomes one of its steps.

Repairs never duplicate a skill and never remove evidence. Rounds repeat until the pass
rate stops rising or ``rounds`` are spent. After a repair only the failed questions are asked
again (asking all of them doubled a round's questions): a repair adds cues, evidence or a
skill, which in a full re-examination turned one passing question into a failure in 11
re-examinations of ``bench/learning.py --real``'s documents and in none of the 8 of
``bench/scale.py``'s five probe pages at 25 and 400 tutorials. The report's rate after repair
can thus miss such a loss; ``exam`` asks every stored question again. The questions and their
results are stored in the ``questions`` table (``passed_before`` / ``passed_after``) so ``exam``
can re-run them.

The harvest and the judge are plain functions held by an :class:`Examiner`; an LLM examiner
(generated questions, an LLM judge) replaces them without touching the repair loop.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, cast

import numpy as np

from tutorialbook.memory import history as hist
from tutorialbook.memory import where
from tutorialbook.memory.rows import (
    clean, code_steps_of, encode, encode_steps, evidence_of, node_text, norm, skill_row, skill_text, skill_vector_text,
    steps_of, tutorials_cited,
)
from tutorialbook.memory.search import search
from tutorialbook.models import Evidence, QuestionResult, TutorialRefinement
from tutorialbook.skills import extract
from tutorialbook.skills import questions as qs
from tutorialbook.skills.builder import SKILL_MATCH, stable_id
from tutorialbook.skills.questions import HarvestSource, Question, Verdict
from tutorialbook.acquire.transcript import Segment

#: retrieval modes a question must be answered in, and how many skills an answer may use
MODES = ("toc", "hybrid")
TOP_K = 3
MAX_ROUNDS = 10
MAX_CUES = 4  # question phrasings kept in one skill's "when to use"
AUTHOR = "refine"


@dataclass
class Examiner:
    """Who writes the exam and who marks it. The defaults are deterministic; an LLM
    examiner supplies its own functions with the same signatures."""

    harvest: Callable[[HarvestSource, object], list[Question]] = field(
        default=lambda source, pack: qs.harvest(source, qs.generators_for(pack)))
    judge: Callable[[Question, list, object], Verdict] = field(
        default=lambda q, skills, pack: qs.grade(q, skills, pack)
    )


@dataclass
class Answer:
    passed: bool
    modes: dict[str, bool]
    skill_id: str = ""
    route: list[str] = field(default_factory=list)  # the nodes a TOC descent ended in


@dataclass
class _Span:
    start: float
    end: float
    node_id: str
    depth: int
    title: str


class Refiner:
    """Examines and repairs one book. Receives the store, the embedder, the book's tree (a
    function: it is read again after each write) and the skill ranking agents get
    (``Retrieval.rank_skills``), and who the repairs are written as."""

    def __init__(self, store, embed: Callable, tree: Callable, rank_skills: Callable, book: str, agent: str,
                 examiner: Examiner | None = None, k: int = TOP_K, modes: tuple[str, ...] = MODES):
        self.store, self.embed, self.tree, self.rank_skills = store, embed, tree, rank_skills
        self.agent = agent
        self.book = book
        self.examiner = examiner or Examiner()
        self.k = k
        self.modes = modes
        self._vectors: dict[str, np.ndarray] = {}  # question text -> embedding, asked again each round
        self._stored: dict[str, dict] = {}  # the tutorial's stored questions, by id

    # -- stage 1 -------------------------------------------------------------------
    def source(self, tutorial: dict) -> tuple[HarvestSource, list[_Span]]:
        """The tutorial as stored (its segments) and the spans of the nodes built from it."""
        rows = sorted(self.store.rows("segments", where.of_tutorial(tutorial["id"]),
                                      ["idx", "start", "end", "text"]), key=lambda r: r["idx"])
        segments = [Segment(r["start"], r["end"], r["text"]) for r in rows]
        tree = self.tree(self.book)
        spans = []
        for node_id, node in tree.nodes.items():
            for e in evidence_of(node):
                if e["tutorial_id"] == tutorial["id"]:
                    spans.append(_Span(e["start"], e["end"], node_id, len(tree.path(node_id)), node["title"]))
        link = Path(tutorial["source"]).as_uri() if tutorial["source"].startswith("/") else ""
        source = HarvestSource(tutorial["id"], tutorial["title"], segments, bool(tutorial["timed"]), link,
                               [(s.start, s.end, s.title) for s in spans if s.depth > 1])
        return source, spans

    # -- stage 2: answer from memory alone -------------------------------------------
    def ask(self, question: Question, pack=None, vector=None) -> Answer:
        """Ask the memory alone, the way an agent's ``retrieve_skill`` does (the same ranking,
        in every mode of ``self.modes``), and grade the top k. Without late interaction's
        re-ordering: it costs a model run per skill re-ordered that the token cache does not
        hold, so in a big book every question paid for it and ingest grew slower with the book
        (``bench/scale.py``'s paired probe 1.09x -> 1.38x)."""
        modes, skill_id, ended = {}, "", []
        if vector is None:
            vector = self.embed([question.question])[0]
        tree = self.tree(self.book)  # and its snapshot of the skills, searched as retrieve searches it
        halves: dict = {}  # toc's skill search holds hybrid's: searched once for both modes
        for mode in self.modes:
            hits, route = self.rank_skills(question.question, self.book, self.k, mode, vector,
                                           tree=tree, snapshot=tree.skill_rows, halves=halves, late=False)
            verdict = self.examiner.judge(question, [h.row for h in hits], pack)
            modes[mode] = verdict.passed
            skill_id = skill_id or verdict.skill_id
            chosen = [r for r in route if r.chosen]
            deepest = max((r.depth for r in chosen), default=0)
            ended += [r.node_id for r in chosen if r.depth == deepest]
        return Answer(all(modes.values()), modes, skill_id, ended)

    def examine(self, questions: list[Question], pack=None, cancel=None) -> dict[str, Answer]:
        missing = [q.question for q in questions if q.question not in self._vectors]
        if missing:
            self._vectors.update(zip(missing, self.embed(missing)))
        out = {}
        for q in questions:
            if cancel and cancel():
                break
            out[q.id] = self.ask(q, pack, self._vectors[q.question])
        return out

    # -- the loop --------------------------------------------------------------------
    def refine_tutorial(
        self, tutorial: dict, rounds: int, pack=None, cancel=None, progress: Callable[[str], None] | None = None
    ) -> tuple[TutorialRefinement, list[QuestionResult]]:
        """Examine the book with a tutorial's questions — the stored ones, and any the
        examiner harvests that are not stored yet — repair the failures, examine again."""
        source, spans = self.source(tutorial)
        stored = sorted(self.store.rows("questions", where.of_tutorial(tutorial["id"])),
                        key=lambda r: (r["created_at"], r["id"]))
        self._stored = {r["id"]: r for r in stored}
        questions = [Question.from_row(r) for r in stored]
        known = {q.id for q in questions}
        questions += [q for q in self.examiner.harvest(source, pack) if q.id not in known]
        if len(questions) > len(stored):  # the tutorial's questions are stored before any repair
            self.save(questions, {}, {})
        say = progress or (lambda message: None)
        say(f"examining the memory with {len(questions)} questions")
        before: dict[str, Answer] = {}
        current = before
        added = extended = moved = ran = 0
        try:
            before = current = self.examine(questions, pack, cancel)
            for _ in range(rounds):
                failed = [q for q in questions if q.id in current and not current[q.id].passed]
                if not failed or (cancel and cancel()):
                    break
                ran += 1
                say(f"round {ran}: repairing {len(failed)} failures")
                a, e, m = self.repair(failed, current, source, spans, pack)
                added, extended, moved = added + a, extended + e, moved + m
                if not (a or e or m):
                    break
                # only the failures are asked again: the questions that passed keep their answer
                asked = self.examine(failed, pack, cancel)
                if len(asked) < len(failed):  # cancelled midway: keep what was measured
                    break
                after = {**current, **asked}
                # neither is empty: a failure was in `current`, `after` answered every question
                rising = cast(float, _rate(after)) > cast(float, _rate(current))
                current = after
                if not rising:
                    break
        finally:  # interrupted too: the results measured so far are kept with the questions
            if before or current:
                self.save(questions, before, current)
        results = [self._result(q, current.get(q.id), before.get(q.id), current.get(q.id)) for q in questions]
        summary = TutorialRefinement(
            tutorial_id=tutorial["id"], title=tutorial["title"], questions=len(questions),
            pass_rate_before=_rate(before), pass_rate_after=_rate(current), rounds=ran,
            skills_added=added, skills_extended=extended, skills_moved=moved,
        )
        return summary, results

    def save(self, questions: list[Question], before: dict[str, Answer], after: dict[str, Answer]) -> None:
        now = time.time()
        rows = []
        for q in questions:
            old = self._stored.get(q.id, {})
            row = q.to_row(self.book, old.get("created_at", now))
            # a question left unasked (the caller cancelled) keeps its previous results
            row["passed_before"] = before[q.id].passed if q.id in before else old.get("passed_before")
            row["passed_after"] = after[q.id].passed if q.id in after else old.get("passed_after")
            rows.append(row)
        self.store.upsert("questions", rows)

    def exam(self, rows: list[dict], packs: dict[str, object]) -> list[QuestionResult]:
        """Re-run stored questions; nothing is written."""
        questions = [Question.from_row(row) for row in rows]
        by_tutorial: dict[str, list[Question]] = {}
        for q in questions:
            by_tutorial.setdefault(q.tutorial_id, []).append(q)
        answers = {}
        for tid, group in by_tutorial.items():
            answers.update(self.examine(group, packs.get(tid)))
        return [self._result(q, answers[q.id], row["passed_before"], row["passed_after"])
                for q, row in zip(questions, rows)]

    @staticmethod
    def _result(q: Question, answer: Answer | None, before, after) -> QuestionResult:
        def flag(value):
            return value.passed if isinstance(value, Answer) else value

        return QuestionResult(
            id=q.id, tutorial_id=q.tutorial_id, kind=q.kind, question=q.question, answer=q.answer,
            evidence=Evidence(**q.evidence), passed=bool(answer and answer.passed),
            modes=answer.modes if answer else {}, skill_id=answer.skill_id if answer else "",
            passed_before=flag(before), passed_after=flag(after),
        )

    # -- repairs ---------------------------------------------------------------------
    def repair(self, failed: list[Question], answers: dict[str, Answer], source: HarvestSource,
               spans: list[_Span], pack=None) -> tuple[int, int, int]:
        """One repair per failed question; returns (skills added, extended, moved)."""
        with self.store.lock(f"refine-{self.book}"):
            known = {r["id"]: r for r in self.store.rows(
                "skills", where.both(where.of_book(self.book), where.cites_tutorial(source.tutorial_id)))}
            new: dict[str, dict] = {}  # normalized name -> row
            changed: dict[str, dict] = {}
            moved: dict[str, str] = {}  # skill id -> the node it left
            indexed: list[tuple[Question, dict]] = []  # (question, the skill drafted for it)
            for q in failed:
                answer = answers.get(q.id) or Answer(False, {})
                holder = self._holder(q, known, new, changed, pack)
                if holder is not None:
                    grew = _add_evidence(holder, q.evidence)
                    target = self._reachable(holder["node_id"], holder["vector"], answer.route,
                                             tutorials_cited(holder)) \
                        if answer.modes.get("toc") is False else holder["node_id"]
                    if target != holder["node_id"]:  # the TOC leads below where it sits: move it there
                        moved.setdefault(holder["id"], holder["node_id"])
                        holder["node_id"] = target
                        grew = True
                    if answer.modes.get("hybrid") is False or not grew:
                        grew = _add_cue(holder, _cue(q)) or grew
                    if grew:
                        self._mark(holder, new, changed)
                    continue
                draft = self._draft(q, source, spans, known, pack)
                if draft is None:
                    continue
                name, when, steps, node_id = draft
                match = self._same_skill(name, steps, new, changed)
                if match is not None:
                    grew = _add_steps(match, steps) | _add_cue(match, _cue(q)) | _add_evidence(match, q.evidence)
                    if grew:
                        self._mark(match, new, changed)
                    indexed.append((q, match))
                    continue
                row = self._new_skill(name, when, steps, node_id, q)
                row["node_id"] = self._reachable(node_id, row["vector"], answer.route, {q.tutorial_id})
                new[norm(name)] = row
                indexed.append((q, row))
            self._write(list(new.values()), list(changed.values()), moved, source, self._pack_rows(indexed, pack))
        return len(new), len(set(changed) - set(moved)), len(moved)

    def _reachable(self, node_id: str, vector, route: list[str], tutorials: set[str]) -> str:
        """Where a skill of ``node_id`` is found by TOC descent. A tutorial that merged into
        a chapter as a whole (no sections of its own below it) leaves its knowledge on the
        chapter, where a descent that goes on into the sections never looks: when the
        descent for the question went on below ``node_id``, the skill belongs in the section
        it ended in that is closest in meaning. A chapter's own introduction (the tutorial
        also built sections below it) stays where it is."""
        tree = self.tree(self.book)
        below = [n for n in dict.fromkeys(route) if n != node_id and node_id in tree.path(n)]
        if not below:
            return node_id
        for child in tree.subtree(node_id)[1:]:
            if any(e["tutorial_id"] in tutorials for e in evidence_of(tree.nodes[child])):
                return node_id
        rows = self.store.rows("nodes", where.in_list("id", below), ["id", "vector"])
        skill = np.asarray(vector, dtype=np.float32)
        return (
            max(rows, key=lambda r: (float(np.dot(np.asarray(r["vector"], dtype=np.float32), skill)), r["id"]))["id"]
            if rows
            else node_id
        )

    def _holder(self, q: Question, known: dict, new: dict, changed: dict, pack=None) -> dict | None:
        """A skill of the book that holds the answer (retrieval just did not surface it)."""
        pool = {**known, **changed, **{r["id"]: r for r in new.values()}}
        for hit in search(self.store, "skills", self.book, f"{q.answer} {q.question}", None, "keyword", 10):
            pool.setdefault(hit.row["id"], clean(hit.row))
        holders = [r for r in pool.values() if qs.answers(q, r, pack)]
        if not holders:
            return None
        tid = q.tutorial_id

        def preference(row: dict):
            from_here = tid in tutorials_cited(row)
            return (not from_here, len(qs.skill_body(row)), row["id"])

        best = min(holders, key=preference)
        return changed.get(best["id"]) or next((r for r in new.values() if r["id"] == best["id"]), None) or dict(best)

    def _draft(self, q: Question, source: HarvestSource, spans: list[_Span], known: dict, pack=None):
        """(name, when to use, steps, node id) of the skill that would answer ``q``: the
        pack's own draft for its kinds of question, else the evidence sentence (a numbered
        procedure whole)."""
        node_id, title = self._covering_node(q, spans, known)
        if node_id is None:
            return None
        hook = getattr(pack, "repair_draft", None)
        drafted = hook(q, title) if callable(hook) else None
        if drafted is not None:
            return (*drafted, node_id)
        if q.kind == "next_step":
            segment = next((s for s in source.segments if abs(s.start - q.evidence["start"]) < 0.01), None)
            procedures = (
                [d for d in extract.skill_drafts(segment.text, 0, title) if len(d.steps) >= 2] if segment else []
            )
            if procedures:
                d = procedures[0]
                return d.name, d.when_to_use, d.steps, node_id
        sentence = qs._clean(q.evidence["quote"])
        if not sentence:
            return None
        return extract.name_from(sentence), extract._when(sentence, title), [sentence], node_id

    def _covering_node(self, q: Question, spans: list[_Span], known: dict) -> tuple[str | None, str]:
        """The node the tutorial's outline put the question's span in: where consolidation
        placed the skills of that very segment; else the narrowest node whose evidence span
        holds it — narrowed further, when that node has sections, to the section of the
        nearest consolidated skill before the span (a tutorial's sections are contiguous; its
        sections that merged into one node keep only the first one's span as evidence). A
        span before any section is the chapter's introduction and stays on the chapter."""
        start, end = q.evidence["start"], q.evidence["end"]
        tree = self.tree(self.book)
        placed = []  # (segment start, node id) of skills consolidation made from this tutorial
        for row in known.values():
            if row.get("origin") != q.tutorial_id or row.get("author") == AUTHOR or row["node_id"] not in tree.nodes:
                continue
            placed += [(e["start"], row["node_id"]) for e in evidence_of(row)
                       if e["tutorial_id"] == q.tutorial_id]
        same = sorted({n for s, n in placed if abs(s - start) < 0.01})
        if same:
            return same[0], tree.nodes[same[0]]["title"]
        holding = [s for s in spans if s.start - 0.01 <= start and end <= s.end + 0.01]
        if not holding:  # evidence capped on a crowded node: the node nearest in time
            holding = sorted(spans, key=lambda s: (min(abs(s.start - start), abs(s.end - end)), -s.depth))[:1]
        if not holding:
            return None, ""
        best = min(holding, key=lambda s: (s.end - s.start, -s.depth, s.node_id))
        below = set(tree.subtree(best.node_id)[1:])
        before = sorted((s, n) for s, n in placed if n in below and s < start)
        if before:
            node_id = before[-1][1]
            return node_id, tree.nodes[node_id]["title"]
        return best.node_id, best.title

    def _same_skill(self, name: str, steps: list[str], new: dict, changed: dict) -> dict | None:
        """An existing skill that *is* this one (same normalized name, or cosine >= SKILL_MATCH)."""
        key = norm(name)
        if key in new:
            return new[key]
        for row in changed.values():
            if norm(row["name"]) == key:
                return row
        vector = self.embed([skill_vector_text(name, steps)])[0]
        for hit in search(self.store, "skills", self.book, name, vector, "vector", 3):
            if hit.score >= SKILL_MATCH or norm(hit.row["name"]) == key:
                return changed.get(hit.row["id"]) or clean(hit.row)
        for hit in search(self.store, "skills", self.book, name, None, "keyword", 5):
            if norm(hit.row["name"]) == key:
                return changed.get(hit.row["id"]) or clean(hit.row)
        for row, other in ((r, np.asarray(r["vector"], dtype=np.float32)) for r in new.values()):
            if float(np.dot(other, vector)) >= SKILL_MATCH:
                return row
        return None

    def _new_skill(self, name: str, when: str, steps: list[str], node_id: str, q: Question) -> dict:
        vector = self.embed([skill_vector_text(name, steps)])[0]
        row = skill_row(id=stable_id("s_", "repair", self.book, q.tutorial_id, node_id, name), book=self.book,
                        node_id=node_id, name=name, when_to_use=when, steps=steps, evidence=[_evidence(q.evidence)],
                        author=AUTHOR, origin=q.tutorial_id, vector=vector)
        return {**row, "_new": True}

    @staticmethod
    def _mark(row: dict, new: dict, changed: dict) -> None:
        if not row.get("_new"):
            changed[row["id"]] = row

    def _write(self, added: list[dict], changed: list[dict], moved: dict[str, str] | None = None,
               tutorial: HarvestSource | None = None, extra: dict[str, list[dict]] | None = None) -> None:
        """Write one round's repairs: changed skills merged into their freshest rows (so
        feedback counted meanwhile survives), new skills, the pack's rows for them, then the
        touched nodes' search text; then one ``refine`` event in the book's history (with
        before-images, so ``revert-skill`` can take a repair back)."""
        now = time.time()
        moved = moved or {}
        before: list[dict] = []
        versions: dict[str, int | None] = {}
        try:
            self._write_rows(added, changed, moved, extra, now, before, versions)
        finally:  # interrupted part way too: what was written gets its event (with its before-images)
            partial = bool(versions.get("partial"))
            wrote = {k: v for k, v in versions.items() if k not in ("partial", "rows_added")}
            if wrote or versions.get("rows_added") or (partial and (added or changed)):
                target = tutorial.tutorial_id if tutorial else self.book
                summary = (f"refined with questions from {tutorial.title!r}: " if tutorial else "refined: ") + \
                    f"skills +{len(added)} ~{len(changed) - len(moved)}, moved {len(moved)}"
                if partial:
                    summary += " (interrupted part way: the tables in versions were written, the rest maybe not)"
                hist.record(self.store, [hist.event(
                    book=self.book, agent=self.agent, action="refine", target=target, summary=summary,
                    versions=wrote,
                    detail={"skills_before": before, "skills_added": [r["id"] for r in added], "moved": moved,
                            "rows_added": versions.get("rows_added", {})})])

    def _write_rows(self, added: list[dict], changed: list[dict], moved: dict[str, str], extra, now: float,
                    before: list[dict], versions: dict) -> None:
        """The writes of one round of repairs; ``versions`` (and ``before``) fill in as they
        land, so an interrupted round's event says what was written."""
        versions["partial"] = 1
        if changed:
            fresh = {r["id"]: r for r in self.store.rows("skills", where.in_list("id", [r["id"] for r in changed]))}
            rows = []
            for row in changed:
                current = fresh.get(row["id"])
                if current is None:  # deleted meanwhile: nothing to extend
                    continue
                current = clean(current)
                evidence = _merge_evidence(evidence_of(current), evidence_of(row))
                steps = steps_of(row)
                current.update(
                    node_id=row["node_id"],
                    when_to_use=row["when_to_use"],
                    steps=row["steps"],
                    evidence=encode(evidence),
                    sources=len({e["tutorial_id"] for e in evidence}),
                    version=current["version"] + 1,
                    updated_at=now,
                    text=skill_text(current["name"], row["when_to_use"], steps),
                )
                if steps != steps_of(fresh[row["id"]]):
                    current["vector"] = self.embed([skill_vector_text(current["name"], steps)])[0].tolist()
                rows.append(current)
            before.extend(hist.image(fresh[r["id"]]) for r in rows)
            versions["skills"] = hist.version_of(self.store.upsert("skills", rows))
        if added:
            versions["skills"] = hist.version_of(self.store.insert(
                "skills", [clean(r) for r in added]))
        rows_added: dict[str, list[str]] = versions.setdefault("rows_added", {})
        for table, rows in (extra or {}).items():
            if self.store.insert_if_absent(table, rows):
                versions[table] = self.store.version(table)
                rows_added[table] = [r["id"] for r in rows]
        arrived = {r["node_id"] for r in changed if r["id"] in moved}
        versions["nodes"] = self._refresh_nodes({r["node_id"] for r in added} | arrived | set(moved.values()))
        del versions["partial"]
        if not (added or changed):
            versions.clear()  # nothing was written: no event

    @staticmethod
    def _pack_rows(indexed: list[tuple[Question, dict]], pack) -> dict[str, list[dict]]:
        """Rows of the pack's own tables for drafted skills (chess: the position a restored
        move is taught at), from its ``repair_rows(question, skill)``."""
        hook: Any = getattr(pack, "repair_rows", None)  # called only when callable
        out: dict[str, list[dict]] = {}
        for q, skill in indexed if callable(hook) else []:
            for table, rows in hook(q, skill).items():
                out.setdefault(table, []).extend(rows)
        return out

    def _refresh_nodes(self, node_ids: set[str]) -> int | None:
        """A node's searchable text lists its skills' names: new skills join it."""
        if not node_ids:
            return None
        nodes = self.store.rows("nodes", where.in_list("id", node_ids))
        names: dict[str, list[tuple[float, str]]] = {n: [] for n in node_ids}  # (created_at, name)
        for row in self.store.rows("skills", where.in_list("node_id", node_ids), ["node_id", "name", "created_at"]):
            names[row["node_id"]].append((row["created_at"], row["name"]))
        texts = [node_text(n["title"], n["summary"], [name for _, name in sorted(names[n["id"]])]) for n in nodes]
        vectors = self.embed(texts)
        rows = []
        for node, text, vector in zip(nodes, texts, vectors):
            row = clean(node)
            row.update(text=text, vector=vector.tolist(), updated_at=time.time())
            rows.append(row)
        return hist.version_of(self.store.upsert("nodes", rows))


# -- helpers ---------------------------------------------------------------------------

def _rate(answers: dict[str, Answer]) -> float | None:
    if not answers:
        return None
    return round(sum(a.passed for a in answers.values()) / len(answers), 4)


def _cue(q: Question) -> str:
    """How the question asks for this skill, as a "when to use" phrase."""
    text = q.question
    if text.startswith("Fill in the blank: "):
        text = text.removeprefix("Fill in the blank: ").replace(qs.BLANK, "…")
    return " ".join(text.split())[:200]


#: words a question quotes (a section's title, a step it asks about)
_QUOTED = re.compile(r"“([^”]+)”")


def _add_cue(row: dict, cue: str) -> bool:
    """Add how a question asked for the skill to its "when to use", unless the skill's own words
    already say it (a cloze of a sentence its passage holds): a repeat would only lengthen what
    every retrieval returns."""
    when = row["when_to_use"] or ""
    if not cue or qs.contains(when, cue):
        return False
    body = " ".join([row["name"], *steps_of(row)])
    if all(qs.contains(body, part) for part in cue.split("…") if part.strip()):
        return False
    quoted = _QUOTED.findall(cue)
    if quoted and all(qs.contains(body, part) for part in quoted):
        # "In “Register”, which step comes after “Validate the input.”?": the words it quotes are the
        # skill's own; the rest is the question's frame, which every such cue repeats (Flask's
        # procedures had grown to 1,800 characters of them, returned with every retrieval)
        return False
    parts = [p for p in when.split(" | ") if p]
    if len(parts) > MAX_CUES:
        return False
    row["when_to_use"] = " | ".join(parts + [cue])
    return True


def _add_steps(row: dict, steps: list[str]) -> bool:
    current = steps_of(row)
    body = " ".join([row["name"], *current])
    extra = [s for s in steps if not qs.contains(body, s)]
    if not extra:
        return False
    row["steps"] = encode_steps(current + extra, code_steps_of(row))
    return True


def _evidence(e: dict) -> dict:
    return {k: e.get(k, d) for k, d in (("tutorial_id", ""), ("tutorial_title", ""), ("start", 0.0), ("end", 0.0),
                                        ("quote", ""), ("timed", True), ("link", ""))}


def _add_evidence(row: dict, e: dict) -> bool:
    """Add a question's evidence to the skill that answers it, unless a span of the skill already
    covers it and the skill's steps hold its quote: a procedure's every step, asked about in turn,
    had been quoted again beside the step, doubling what every retrieval returns."""
    known, e = evidence_of(row), _evidence(e)
    if any(_covers(k, e) for k in known) and qs.contains(" ".join(steps_of(row)), e["quote"]):
        return False
    merged = _merge_evidence(known, [e])
    if len(merged) == len(known):
        return False
    row["evidence"] = encode(merged)
    row["sources"] = len({x["tutorial_id"] for x in merged})
    return True


def _merge_evidence(known: list[dict], extra: list[dict]) -> list[dict]:
    """Every known span, plus the extra ones no known span of the same tutorial covers."""
    out = list(known)
    for e in extra:
        if not any(_covers(k, e) and qs.contains(k["quote"], e["quote"]) for k in out):
            out.append(e)
    return out


def _covers(known: dict, e: dict) -> bool:
    """Whether the span ``known`` cites holds the span of ``e`` (same tutorial)."""
    return known["tutorial_id"] == e["tutorial_id"] and known["start"] - 0.01 <= e["start"] \
        and e["end"] <= known["end"] + 0.01


def pass_rate(results: list[QuestionResult]) -> float | None:
    return round(sum(r.passed for r in results) / len(results), 4) if results else None


def by_kind(results: list[QuestionResult]) -> dict[str, float]:
    kinds: dict[str, list[bool]] = {}
    for r in results:
        kinds.setdefault(r.kind, []).append(r.passed)
    return {k: round(sum(v) / len(v), 4) for k, v in sorted(kinds.items())}

