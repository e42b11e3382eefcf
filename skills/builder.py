"""Consolidate: a transcript becomes TOC nodes and skills, merged into a book.

An *outline* (chapter → sections, each with its segments and skill drafts) is read off the
transcript — from headings, or from topic shifts where there are none — then matched
against the book's tree: a chapter or section on the same topic merges into the existing
node, and a skill taught again gains a source instead of being duplicated.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from tutorialbook.memory import lance, where
from tutorialbook.memory.rows import (
    clean, code_steps_of, encode, encode_steps, evidence_of, node_text, norm as _norm, passage_vector_text, skill_text,
    skill_vector_text, steps_of,
)
from tutorialbook.memory.search import search
from tutorialbook.memory.store import Store
from tutorialbook.memory.tree import Tree
from tutorialbook.skills import extract, passages
from tutorialbook.skills.candidates import sibling_candidates
from tutorialbook.skills.extract import SkillDraft
from tutorialbook.acquire.formats.document import prose_words
from tutorialbook.acquire.transcript import Transcript

#: A new tutorial joins an existing chapter when their contents' centroids are this close, or
#: CHAPTER_TITLED_MATCH close with a topic word in both titles. Measured with the bundled MiniLM:
#: the chapters of one real manual (An Introduction to R, 23 chapters: different topics of one
#: domain) reach p95 0.68 / max 0.78 between each other; two sourdough tutorials, 0.75.
CHAPTER_MATCH = 0.80
CHAPTER_TITLED_MATCH = 0.74
SECTION_MATCH = 0.72
SKILL_MATCH = 0.90
_TITLE_ONLY = float("inf")  # a threshold no content reaches: only a node of the same title matches
#: a skill of the same name taught in another tutorial merges when the passages are this close
NAMED_MATCH = 0.5
MAX_NODE_EVIDENCE = 6


@dataclass
class OutlineNode:
    """A node of one tutorial's own outline, before it is merged into the book."""

    title: str
    kind: str
    segments: list[int] = field(default_factory=list)
    drafts: list[SkillDraft] = field(default_factory=list)
    children: list["OutlineNode"] = field(default_factory=list)
    summary: str = ""  # a written one-line summary (an LLM's); empty: extracted from the segments
    menu: bool = False  # a manual's page of headings only: its children, other pages, join only by title

    def walk(self):
        yield self
        for child in self.children:
            yield from child.walk()


@dataclass
class TutorialContext:
    """What the builder needs to know of the tutorial being consolidated."""

    id: str
    title: str
    link: str  # file URI of the source
    transcript: Transcript
    vectors: np.ndarray  # one per segment


@dataclass
class Plan:
    """Rows to write, and what changed, for one tutorial."""

    nodes: list[dict] = field(default_factory=list)
    skills: list[dict] = field(default_factory=list)
    nodes_added: int = 0
    nodes_updated: int = 0
    skills_added: int = 0
    skills_updated: int = 0
    node_for: dict[int, str] = field(default_factory=dict)
    """id() of an outline node -> the book node it became or merged into."""
    skill_for: dict[int, str] = field(default_factory=dict)
    """id() of a skill draft -> the skill it became or merged into."""


def outline(tutorial: TutorialContext) -> OutlineNode:
    """The default outline: headings when the source has them, else topic shifts."""
    transcript = tutorial.transcript
    n = len(transcript.segments)
    headings = sorted(transcript.headings)
    chapter = OutlineNode(tutorial.title, "chapter")
    if headings:
        top_level = min(level for _, level, _ in headings)
        tops = [h for h in headings if h[1] == top_level]
        # the document's one top heading titles the chapter when it opens the text, or when it is
        # the title and a block comes first (a note box above the h1): not a section of one name
        if len(tops) == 1 and (tops[0][0] == 0 or _same_title(tops[0][2], tutorial.title)):
            chapter.title = tops[0][2]
            headings = [h for h in headings if h is not tops[0]]
        stack: list[tuple[int, OutlineNode]] = [(0, chapter)]
        bounds = [h[0] for h in headings] + [n]
        chapter.segments = list(range(0, bounds[0]))
        for (start, level, title), end in zip(headings, bounds[1:]):
            while len(stack) > 1 and stack[-1][0] >= level:
                stack.pop()
            node = OutlineNode(title, "section" if len(stack) == 1 else "subsection", list(range(start, end)))
            stack[-1][1].children.append(node)
            stack.append((level, node))
        _echoes_lifted(chapter)
    else:
        cuts = [0] + extract.topic_boundaries(tutorial.vectors) + [n]
        if len(cuts) == 2:
            chapter.segments = list(range(n))
        for a, b in zip(cuts, cuts[1:]) if len(cuts) > 2 else []:
            chapter.children.append(OutlineNode(section_title(tutorial, a, b), "section", list(range(a, b))))
    keys = passages.heading_keys([tutorial.title, *(title for _, _, title in transcript.headings)])
    # a licence's own text, the whole tutorial's too (a manual's appendix page holding the GNU FDL)
    licences = {id(inner) for node in chapter.walk() if _is_licence(node, transcript) for inner in node.walk()}
    for node, path in _with_paths(chapter):
        if id(node) in licences:
            continue  # a licence's own text teaches nothing: no skill of any of its clauses
        context = " > ".join(path[-2:])
        segments = passages.without_boilerplate(transcript.segments, node.segments, keys)
        kept = [i for i in node.segments if i in segments]
        for passage in passages.group(segments, kept, leaf=not node.children):
            if passages.teaches(passage, keys):
                node.drafts.append(passages.draft(passage, context))
    _named_by_sections(chapter)
    return chapter


#: a name given to this many skills of one tutorial names none of them
SHARED_NAME = 3


def _named_by_sections(chapter: OutlineNode) -> None:
    """Skills that would share one name with two others or more are each named by their section's
    title before it: mutt's reference opens 418 sections with "Type: boolean Default: no" and the
    like, its variable's name only in the section's title ("3.147. imap_passive")."""
    counts = Counter(_norm(d.name) for node in chapter.walk() for d in node.drafts)
    for node in chapter.walk():
        for d in node.drafts:
            if counts[_norm(d.name)] >= SHARED_NAME and node.title and _norm(node.title) != _norm(d.name):
                d.name = extract.clipped(f"{node.title}: {d.name}")


def _is_licence(node: OutlineNode, transcript) -> bool:
    words: list[str] = []
    for inner in node.walk():  # its opening words, its subsections' included
        for i in inner.segments:
            words += transcript.segments[i].text.split()
        if len(words) >= passages.LICENCE_OPENING_WORDS:
            break
    return passages.is_licence_text(node.title, " ".join(words))


def section_title(tutorial: TutorialContext, a: int, b: int) -> str:
    """A title for segments ``a:b`` of a text without headings: a phrase of its most central
    sentence in words, not of a listing, a table or a command (tmux's sections had been named "’",
    "4", "-C"; procmail's "Cat mbox | formail -s procmail")."""
    segments = tutorial.transcript.segments
    worded = [i for i in range(a, b) if segments[i].kind not in ("code", "table") and _in_words(segments[i].text)]
    worded = worded or list(range(a, b))
    central = worded[extract.central_index(tutorial.vectors[worded])]
    return passages.title_phrase(segments[central].text)


def _in_words(text: str) -> bool:
    """Whether a text is words, as a sentence is: four or more, three in four of its tokens."""
    tokens = text.split()
    words = prose_words(tokens)
    return words >= 4 and words >= 0.75 * len(tokens)


def _echoes_lifted(node: OutlineNode) -> None:
    """A section titled as the node it is in is that node's text going on, lifted into it: a page's
    title repeated as its first heading with others beside it (a README's h1, then "license" as
    another h1), texinfo's section heading repeated after definitions for the prose between them.
    Each had been a node inside a node of the same name."""
    children: list[OutlineNode] = []
    for child in node.children:
        _echoes_lifted(child)
        if _same_title(child.title, node.title):
            node.segments = sorted(node.segments + child.segments)
            children += child.children
        else:
            children.append(child)
    node.children = children


def _same_title(a: str, b: str) -> bool:
    return " ".join(a.lower().split()) == " ".join((b or "").lower().split())


def _with_paths(node: OutlineNode, path: tuple[str, ...] = ()):
    """Each node of an outline with the titles from its chapter down to it."""
    here = (*path, node.title)
    yield node, here
    for child in node.children:
        yield from _with_paths(child, here)


def cap_drafts(outline: OutlineNode, limit: int) -> int:
    """Keep the first ``limit`` skill drafts of an outline (in reading order); returns how
    many were dropped. Each draft costs an embedding, so this bounds a huge text's work."""
    kept = 0
    dropped = 0
    for node in outline.walk():
        room = max(0, limit - kept)
        dropped += max(0, len(node.drafts) - room)
        node.drafts = node.drafts[:room]
        kept += len(node.drafts)
    return dropped


def within_chapters(outline: OutlineNode, titles: list[str]) -> OutlineNode:
    """``outline`` as sections of chapters of these titles, the first innermost: a manual's page
    in the chapters its menu pages make (pages of headings only, which teach nothing themselves)."""
    for title in titles:
        children = outline.children if outline.kind == "root" else [outline]
        for child in children:
            child.kind = "section"
        outline = OutlineNode(title, "chapter", children=children, menu=True)
    return outline


class Builder:
    """Merges one tutorial's outline into a book."""

    def __init__(self, store: Store, embed, book: str, tree: Tree, author: str = "ingest",
                 kin: frozenset[str] = frozenset(), under: str | None = None):
        """``kin``: the ids of tutorials that are other pages of this one's manual (a folder's
        pages linked by next/up links or toctrees): its chapters never join theirs and its skills
        never merge into theirs, their author set them apart (one manual's pages are alike enough
        to pass the chapter rule; a tutorial's program grown page by page, the skill rule).
        ``under``: the node of the page this one is a section of (DocBook's and texinfo's section
        pages), where its chapter goes as a section, joining only one of its own title."""
        self.kin = kin
        self.under = under
        self.store = store
        self.embed = embed
        self.book = book
        self.tree = tree
        self.author = author
        self.plan = Plan()
        self._now = time.time()
        self._pending = _PendingSkills()
        self._book_has_skills: bool | None = None
        self._tutorial = ""
        self._read: dict[str, dict] = {}  # stored nodes read for matching, by id
        self._planned: dict[str, dict] = {}  # the plan's nodes, by id
        self._vectors: dict[int, np.ndarray] = {}  # id() of a draft, or of a node without text -> its vector

    def build(self, tutorial: TutorialContext, chapter: OutlineNode) -> Plan:
        """Merge an outline: one chapter, or (kind "root") several chapters at once."""
        self._embed_outline(tutorial, chapter)
        for local in chapter.children if chapter.kind == "root" else [chapter]:
            if self.under is not None:
                local.kind = "section"
                self._merge(tutorial, local, self.under, _TITLE_ONLY)
            else:
                self._merge(tutorial, local, self.tree.root_id, CHAPTER_MATCH)
        self._refresh_node_texts()
        return self.plan

    def _embed_outline(self, tutorial: TutorialContext, chapter: OutlineNode) -> None:
        """The vectors the merge needs, in one batch: every draft's, and the title of each node
        without segments. A batch keeps both cores busy; a call per node (a 3 MB manual has
        1,800) left one idle and paid the call's overhead each time. A passage of one segment in
        the same words has that segment's vector (a text is embedded alone, so it is the same)."""
        owners: list[int] = []
        texts: list[str] = []
        self._vectors = {}
        segments = tutorial.transcript.segments
        for node in chapter.walk():
            if not any(n.segments for n in node.walk()):
                owners.append(id(node))
                texts.append(node.title)
            for draft in node.drafts:
                text = _search_text(draft)
                if len(draft.segment_indexes) == 1 and text.split() == segments[draft.segment_indexes[0]].text.split():
                    self._vectors[id(draft)] = tutorial.vectors[draft.segment_indexes[0]]  # the same words
                else:
                    owners.append(id(draft))
                    texts.append(text)
        self._vectors.update(zip(owners, self.embed(texts)) if texts else ())

    # -- nodes -----------------------------------------------------------------
    def _merge(self, tutorial: TutorialContext, local: OutlineNode, parent_id: str, threshold: float) -> None:
        vector = self._content_vector(tutorial, local)
        node = self._match_node(local, parent_id, vector, threshold)
        evidence = self._node_evidence(tutorial, local)
        if node is not None and threshold == CHAPTER_MATCH and _norm(node["title"]) != _norm(local.title):
            # a tutorial joining another's chapter keeps its shape: it is a section of that chapter
            # under its own title (one of the same title its only match), its sections under it.
            # A page with no sections had its skills filed straight under the other's title; one
            # with sections had them scattered among the other tutorial's sections
            self._take(node)
            self._extend_node(node, evidence)
            local.kind = "section"
            return self._merge(tutorial, local, node["id"], _TITLE_ONLY)
        if node is None:
            node = self._new_node(tutorial, local, parent_id, vector, evidence)
        else:
            self._take(node)
            self._extend_node(node, evidence)
        self.plan.node_for[id(local)] = node["id"]
        for draft in local.drafts:
            self._add_skill(tutorial, draft, node["id"], self._vectors[id(draft)])
        for child in local.children:
            self._merge(tutorial, child, node["id"], _TITLE_ONLY if local.menu else SECTION_MATCH)

    def _content_vector(self, tutorial: TutorialContext, local: OutlineNode) -> np.ndarray:
        """What a node is about: the centroid of its segments that teach (its title when it has
        none): the footer every page of a manual repeats (AUTHOR, COPYING, SEE ALSO) made
        trace-cmd's man pages alike."""
        segments = [i for n in local.walk() for i in n.segments]
        if not segments:
            return self._vectors[id(local)]
        said = tutorial.transcript.segments
        teaching = [i for i in segments if not passages.is_boilerplate(said[i].text)] or segments
        return _unit(tutorial.vectors[teaching].mean(axis=0))

    def _match_node(self, local: OutlineNode, parent_id: str, vector: np.ndarray, threshold: float) -> dict | None:
        found = sibling_candidates(self.store, self.tree, parent_id, _norm, local.title, vector)
        self._read_stored(found)
        siblings = [self._node(i) for i in found]
        best, best_score = None, -1.0
        for sibling in siblings:
            if _norm(sibling["title"]) == _norm(local.title):
                return sibling
            if sibling.get("_status") == "added":  # this tutorial's own: its author kept them apart
                continue
            if threshold == CHAPTER_MATCH and sibling.get("_tutorials", set()) & self.kin:
                continue  # another page's chapter of the same manual: likewise
            score = float(np.dot(sibling["_content"], vector)) if sibling.get("_content") is not None else 0.0
            needed = threshold
            if threshold == CHAPTER_MATCH and topic_words(sibling["title"]) & topic_words(local.title):
                needed = CHAPTER_TITLED_MATCH
            if score >= needed and score > best_score:
                best, best_score = sibling, score
        return best

    def _node(self, node_id: str) -> dict:
        """A node of this build, or a stored one read for matching (it joins the plan, to be
        rewritten, only when the tutorial merges into it: :meth:`_take`)."""
        if node_id in self._planned:
            return self._planned[node_id]
        if node_id not in self._read:
            self._read_stored([node_id])
        return self._read[node_id]

    def _read_stored(self, node_ids: list[str]) -> None:
        """Read the stored nodes among ``node_ids`` not read yet, with their content, in one query
        for the rows and one for the segments their evidence spans (a query costs ~5 ms whatever
        it reads, and a chapter may have a hundred candidates in a big book)."""
        wanted = [i for i in dict.fromkeys(node_ids) if i not in self._planned and i not in self._read]
        if not wanted:
            return
        rows = {r["id"]: r for r in self.store.rows("nodes", where.in_list("id", wanted))}
        spans = {i: [(e["tutorial_id"], e["start"], e["end"]) for e in evidence_of(rows[i])] for i in wanted}
        contents = self._contents({i: _founders(rows[i], spans[i]) for i in wanted})
        for i in wanted:  # a stored node's id: the row exists
            row = rows[i]
            row["_content"] = contents[i]
            row["_tutorials"] = {span[0] for span in spans[i]}
            row["_status"] = "updated"
            self._read[i] = row

    def _contents(self, spans: dict[str, list[tuple[str, float, float]]]) -> dict[str, np.ndarray | None]:
        """Each node's content: the unit centroid of the stored segments lying within its spans
        (node id -> its (tutorial, start, end) spans) that teach (all of them when none does), None
        when none lie there. The spans' tutorials'
        segments are read by the indexed ``tutorial_id`` in one query, as columns, and each
        node's spans checked on arrays, its segments taken in the table's order: a root chapter's
        candidates at 400 tutorials span ~2,400 segments, which as Python rows cost ~20 ms a
        chapter to convert and, with their vectors as lists, ~45 MB of peak memory."""
        tutorial_ids = {span[0] for node in spans.values() for span in node}
        found = self.store.columns("segments", where.in_list("tutorial_id", tutorial_ids),
                                   ["tutorial_id", "start", "end", "vector", "text"]) if tutorial_ids else None
        if found is None or not found.num_rows:
            return {i: None for i in spans}
        tutorials = np.asarray(found["tutorial_id"].to_pylist(), dtype=object)
        of_tutorial = {t: tutorials == t for t in tutorial_ids}
        starts = found["start"].to_numpy().astype(np.float64)
        ends = found["end"].to_numpy().astype(np.float64)
        vectors = lance.matrix(found["vector"])
        teaches = np.array([not passages.is_boilerplate(t) for t in found["text"].to_pylist()], dtype=bool)
        contents: dict[str, np.ndarray | None] = {}
        for node_id, node_spans in spans.items():
            inside = np.zeros(found.num_rows, dtype=bool)
            for tutorial_id, start, end in node_spans:  # where.lies_within, on arrays
                slack = where.SPAN_SLACK
                inside |= of_tutorial[tutorial_id] & (starts >= start - slack) & (ends <= end + slack)
            if (inside & teaches).any():  # as _content_vector: what teaches, else all there is
                inside &= teaches
            contents[node_id] = _unit(vectors[inside].mean(axis=0)) if inside.any() else None
        return contents

    def _take(self, node: dict) -> None:
        if self._read.pop(node["id"], None) is not None:
            self._plan_node(node)

    def _plan_node(self, node: dict) -> None:
        self.plan.nodes.append(node)
        self._planned[node["id"]] = node

    def _new_node(self, tutorial, local, parent_id, vector, evidence) -> dict:
        siblings = self.tree.children.setdefault(parent_id, [])
        row = {
            "id": stable_id("n_", self.book, tutorial.id, parent_id, str(len(siblings)), local.title),
            "book": self.book,
            "parent_id": parent_id,
            "position": len(siblings),
            "title": local.title,
            "summary": self._summary(tutorial, local),
            "kind": local.kind,
            "evidence": encode(evidence),
            "origin": tutorial.id,
            "version": 1,
            "updated_at": self._now,
            "_content": vector,
            "_status": "added",
        }
        siblings.append(row["id"])
        self._plan_node(row)
        self.plan.nodes_added += 1
        return row

    def _extend_node(self, node: dict, evidence: list[dict]) -> None:
        existing = evidence_of(node)
        if any(e["tutorial_id"] == evidence[0]["tutorial_id"] for e in existing) if evidence else True:
            return
        node["evidence"] = encode((existing + evidence)[:MAX_NODE_EVIDENCE])
        if node["_status"] == "updated" and not node.get("_counted"):
            node["version"] += 1
            node["_counted"] = True
            self.plan.nodes_updated += 1

    def _summary(self, tutorial: TutorialContext, local: OutlineNode) -> str:
        if local.summary:
            return local.summary
        if local.segments and local.children:  # an introduction says what the chapter is
            return extract.opening([tutorial.transcript.segments[i] for i in local.segments])
        segments = [i for n in local.walk() for i in n.segments]
        if not segments:
            return ""
        return extract.summary(tutorial.transcript.segments, segments, tutorial.vectors[segments])

    def _node_evidence(self, tutorial: TutorialContext, local: OutlineNode) -> list[dict]:
        segments = [i for n in local.walk() for i in n.segments]
        if not segments:
            return []
        first, last = tutorial.transcript.segments[segments[0]], tutorial.transcript.segments[segments[-1]]
        best = tutorial.transcript.segments[segments[extract.central_index(tutorial.vectors[segments])]]
        return [evidence(tutorial, first.start, last.end, extract.one_line(best.text, 240))]

    # -- skills ----------------------------------------------------------------
    def _add_skill(self, tutorial: TutorialContext, draft: SkillDraft, node_id: str, vector: np.ndarray) -> None:
        text = skill_text(draft.name, draft.when_to_use, draft.steps)
        if draft.search_text:
            text = f"{draft.name}. {draft.search_text}"
        spans = [tutorial.transcript.segments[i] for i in draft.segment_indexes]
        start, end = draft.span or (spans[0].start, spans[-1].end)
        proof = evidence(tutorial, start, end, draft.quote)
        self._tutorial = tutorial.id
        match = self._match_skill(draft, vector, node_id)
        if match is not None:
            self.plan.skill_for[id(draft)] = match["id"]
            known = evidence_of(match)
            steps = steps_of(match)
            # a passage merged into a skill stays readable in it, even a second one of this tutorial
            added = [step for step in draft.steps if step not in steps] if draft.search_text else []
            if any(e["tutorial_id"] == tutorial.id for e in known) and not added:
                return
            known.append(proof)
            if added:
                code = {draft.steps[n] for n in draft.code}
                match["steps"] = encode_steps(steps + added, [*code_steps_of(match), *(
                    len(steps) + k for k, step in enumerate(added) if step in code)])
            match["evidence"] = encode(known)
            match["sources"] = len({e["tutorial_id"] for e in known})
            match["updated_at"] = self._now
            if match["_status"] == "updated" and not match.get("_counted"):
                match["version"] += 1
                match["_counted"] = True
                self.plan.skills_updated += 1
            return
        skill_id = stable_id(  # one skill a name (see _match_skill); a passage also by where it starts
            "s_", self.book, tutorial.id, _norm(draft.name), *([f"{start:g}"] if draft.search_text else []))
        if skill_id in self._pending.by_id:  # the name again in another section: by where it starts too
            skill_id = stable_id("s_", self.book, tutorial.id, _norm(draft.name), node_id, f"{start:g}")
        row = {
            "id": skill_id,
            "book": self.book,
            "node_id": node_id,
            "name": draft.name,
            "when_to_use": draft.when_to_use,
            "steps": encode_steps(draft.steps, draft.code),
            "evidence": encode([proof]),
            "sources": 1,
            "helpful": 0,
            "harmful": 0,
            "version": 1,
            "author": self.author,
            "origin": tutorial.id,
            "text": text,
            "created_at": self._now,
            "updated_at": self._now,
            "vector": vector.tolist(),
            "_status": "added",
        }
        self.plan.skills.append(row)
        self._remember(row, vector)
        self.plan.skill_for[id(draft)] = row["id"]
        self.plan.skills_added += 1

    def _match_skill(self, draft: SkillDraft, vector: np.ndarray, node_id: str) -> dict | None:
        """A skill of this build, or of the book, with the same name or meaning: never one of this
        tutorial's other sections (a manual's 3.6.5 was emptied into its alike 3.6.4; a section's
        skills are where its author put them). This build's are compared at once (names by key,
        vectors in one product), so a tutorial with thousands of skills costs linear time per
        skill, not a Python loop over all."""
        key = _norm(draft.name)
        pending = self._pending
        if pending.rows:
            def apart(i: int) -> bool:
                row = pending.rows[i]
                return row["origin"] == self._tutorial and row["node_id"] != node_id

            first = pending.by_key.get(key)
            if first is not None and (draft.search_text and pending.rows[first]["origin"] == self._tutorial
                                      or apart(first) or not _same_names(draft, pending.rows[first])):
                first = None  # passages of one tutorial may share their opening words
            scores = pending.matrix[: len(pending.rows)] @ vector
            close = next((int(i) for i in np.flatnonzero(scores >= SKILL_MATCH)
                          if not apart(int(i)) and _same_names(draft, pending.rows[int(i)])), None)
            candidates = [i for i in (first, close) if i is not None]
            if candidates:
                return pending.rows[min(candidates)]
        if self._book_has_skills is None:
            self._book_has_skills = self.store.count("skills", where.of_book(self.book)) > 0
        if not self._book_has_skills:  # a new book: nothing stored to match
            return None
        # on the tree's snapshot: a book's vectors are scanned in memory while its table is small
        hits = search(self.store, "skills", self.book, "", vector, "vector", 1, snapshot=self.tree.skill_rows)
        # another page of this manual's skill only when it is this passage word for word: the notice
        # every chapter page of the Debian New Maintainers' Guide opens on had been 9 skills
        kin = bool(hits) and hits[0].row.get("origin") in self.kin
        if hits and (not kin or hits[0].score >= SKILL_MATCH) and (
                hits[0].score >= SKILL_MATCH or _norm(hits[0].row["name"]) == key and hits[0].score >= NAMED_MATCH):
            if hits[0].row["id"] in pending.by_id:  # an earlier draft merged into it: one row to rewrite
                row = pending.rows[pending.by_id[hits[0].row["id"]]]
                return row if _same_names(draft, row) and not (kin and not _verbatim(draft, row)) else None
            stored = self.store.rows("skills", where.by_id(hits[0].row["id"]))  # whole, with its vector
            if not stored or not _same_names(draft, stored[0]) or kin and not _verbatim(draft, stored[0]):
                return None  # replaced since the tree was read; or alike only
            row = clean(stored[0])
            row["_status"] = "updated"
            self.plan.skills.append(row)
            self._remember(row, np.array(row["vector"], dtype=np.float32))
            return row
        return None

    def _remember(self, row: dict, vector: np.ndarray) -> None:
        self._pending.add(row, vector)

    # -- search text -----------------------------------------------------------
    def _refresh_node_texts(self) -> None:
        """A node's searchable text and vector cover its title, summary and skill names."""
        ids = [n["id"] for n in self.plan.nodes]
        names: dict[str, list[str]] = {i: [] for i in ids}
        for row in self.store.rows("skills", where.in_list("node_id", ids), ["node_id", "name"]) if ids else []:
            names[row["node_id"]].append(row["name"])
        for row in self.plan.skills:
            if row["_status"] == "added":
                names.setdefault(row["node_id"], []).append(row["name"])
        texts = []
        for node in self.plan.nodes:
            node["text"] = node_text(node["title"], node["summary"], names.get(node["id"], []))
            texts.append(node["text"])
        vectors = self.embed(texts) if texts else []
        for node, vector in zip(self.plan.nodes, vectors):
            node["vector"] = vector.tolist()


_GENERIC_TITLE_WORDS = frozenset(
    "introduction intro tutorial tutorials guide basics basic using use overview part chapter section appendix "
    "notes note more advanced simple getting started lesson lessons video how".split())


def topic_words(title: str) -> set[str]:
    """A title's content words (not stop words, not words any tutorial title may carry)."""
    return {w for w in re.findall(r"[a-z]{3,}", title.lower())
            if w not in extract.STOPWORDS and w not in _GENERIC_TITLE_WORDS}


class _PendingSkills:
    """The skills a build holds so far, for matching: in order, by name key (first wins), by id,
    and their vectors as the rows of one growing matrix."""

    def __init__(self):
        self.rows: list[dict] = []
        self.by_key: dict[str, int] = {}
        self.by_id: dict[str, int] = {}
        self.matrix = np.zeros((0, 0), dtype=np.float32)

    def add(self, row: dict, vector: np.ndarray) -> None:
        n = len(self.rows)
        if n == self.matrix.shape[0]:
            grown = np.zeros((max(16, 2 * n), vector.shape[0]), dtype=np.float32)
            if n:
                grown[:n] = self.matrix[:n]
            self.matrix = grown
        self.matrix[n] = vector
        self.rows.append(row)
        self.by_key.setdefault(_norm(row["name"]), n)
        self.by_id[row["id"]] = n


def stable_id(prefix: str, *parts: str) -> str:
    """An id from what a row is (book, tutorial, place, name): the same tutorials ingested into
    any store get the same ids, so equal scores, which rank by id, rank the same way everywhere."""
    return prefix + hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:12]


def evidence(tutorial: TutorialContext, start: float, end: float, quote_text: str) -> dict:
    timed = tutorial.transcript.timed
    link = f"{tutorial.link}#t={int(start)}" if timed and tutorial.link else tutorial.link
    return {
        "tutorial_id": tutorial.id,
        "tutorial_title": tutorial.title,
        "start": round(float(start), 2),
        "end": round(float(end), 2),
        "quote": quote_text.strip(),
        "timed": timed,
        "link": link,
    }


#: what names a thing in a passage: a code span, a word with a digit or an underscore, a dotted,
#: slashed or hyphenated compound, a camelCase word
_NAMED = re.compile(r"`[^`\n]+`|\b\w*[\d_]\w*\b|\b\w+(?:[./:-]\w+)+|\b[a-z]+[A-Z]\w*")


def _same_names(draft: SkillDraft, row: dict) -> bool:
    """Whether a passage and a skill name the same things (modules, options, numbers): alike
    passages about different things are different skills ("Do NOT use mod_rewrite to protect
    specific urls" and the same warning of mod_redirect, at cosine 0.97, had been one)."""
    def names(text: str) -> frozenset[str]:
        return frozenset(found.lower() for found in _NAMED.findall(text))

    return names(skill_text(draft.name, draft.when_to_use, draft.steps)) == \
        names(skill_text(row["name"], row["when_to_use"], steps_of(row)))


def _verbatim(draft: SkillDraft, row: dict) -> bool:
    """Whether a stored skill's steps are the draft's, word for word (case and spacing aside)."""
    said = lambda steps: " ".join(" ".join(steps).split()).casefold()  # noqa: E731
    return said(draft.steps) == said(steps_of(row))


def _search_text(draft: SkillDraft) -> str:
    """What a skill's vector is made from: a passage's own words (its section titles are found
    by keyword, through the row's text), else the name and steps."""
    return passage_vector_text(draft.steps) if draft.search_text else skill_vector_text(draft.name, draft.steps)


def _founders(node: dict, spans: list[tuple[str, float, float]]) -> list[tuple[str, float, float]]:
    """The spans of the tutorial that made a node (all its spans when none are left): what the node
    is about stays what its founder taught. A chapter's content had been the centroid of every
    tutorial that joined it, each joining page drawing it nearer the next: 24 of trace-cmd's 28 man
    pages joined the first one's chapter, though only 5 came that near the first page itself."""
    own = [span for span in spans if span[0] == node.get("origin")]
    return own or spans


def _unit(vector: np.ndarray) -> np.ndarray:
    return (vector / (np.linalg.norm(vector) + 1e-9)).astype(np.float32)
