"""Consolidation by a model: it reads a tutorial's numbered segments and writes the chapter,
its sections (and subsections), one-line summaries and skills — each skill with the ids of
the segments that teach it.

Nothing the model says is taken on trust: every segment id it returns must name a real
segment of this tutorial, else it is dropped (a skill left without evidence is dropped
whole; a section left without segments takes its skills' segments, or goes). Quotes are
never the model's words: a skill's quote is the sentence of its evidence segments that
shares most words with it. If the reply is unusable, or nothing valid is left, the
deterministic outline (:func:`tutorialbook.skills.builder.outline`) is used, with a warning.
The result is an ordinary :class:`~tutorialbook.skills.builder.OutlineNode`, merged into the
book by the same :class:`~tutorialbook.skills.builder.Builder`.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from tutorialbook.skills import extract, passages
from tutorialbook.skills.builder import OutlineNode, TutorialContext
from tutorialbook.skills.extract import SkillDraft
from tutorialbook.llm.client import LLM

MAX_PROMPT_CHARS = 60_000  # segment text shown to the model; longer transcripts are clipped per segment
MAX_SEGMENTS = 2_000  # beyond this the deterministic outline is used
MAX_TITLE = 120
MAX_SUMMARY = 240
MAX_NAME = 120
MAX_STEPS = 12


class SkillOut(BaseModel):
    name: str = Field(description="a short imperative name, e.g. 'Feed the starter at a 1:1:1 ratio'")
    when_to_use: str = Field(description="the situation it is for")
    steps: list[str] = Field(description="what to do, in order (one step for a single instruction)")
    evidence: list[int] = Field(description="ids of the segments that teach it")


class SubsectionOut(BaseModel):
    title: str
    summary: str = Field(description="one line")
    segments: list[int] = Field(description="ids of the segments it covers")
    skills: list[SkillOut] = Field(default_factory=list)


class SectionOut(BaseModel):
    title: str
    summary: str = Field(description="one line")
    segments: list[int] = Field(description="ids of the segments it covers")
    skills: list[SkillOut] = Field(default_factory=list)
    subsections: list[SubsectionOut] = Field(default_factory=list)


class OutlineOut(BaseModel):
    title: str = Field(description="the chapter's title: what the tutorial teaches")
    summary: str = Field(description="one line")
    intro_segments: list[int] = Field(
        default_factory=list, description="ids of introductory segments before the first section"
    )
    skills: list[SkillOut] = Field(default_factory=list, description="skills of the introduction")
    sections: list[SectionOut]


PROMPT = """Consolidate this tutorial into one chapter of a table of contents with skills.

Tutorial title: {title}

The tutorial, as numbered segments ([id] text){clipped}:
{segments}

Write:
- the chapter's title and a one-line summary;
- its sections in reading order (and subsections only where a section clearly has parts), each with a
  short title, a one-line summary, and the ids of the segments it covers;
- under the section that teaches it, every skill a learner should take away: a short imperative name,
  when to use it, its steps in order, and the ids of the segments that teach it (its evidence).
Use only the segment ids listed above. Keep facts, numbers and warnings the tutorial gives."""


def llm_outline(llm: LLM, tutorial: TutorialContext, fallback: OutlineNode) -> OutlineNode:
    """The model's outline of ``tutorial``, validated against its segments; ``fallback`` (the
    deterministic outline) when the model gives nothing usable."""
    segments = tutorial.transcript.segments
    if not segments:
        return fallback
    if len(segments) > MAX_SEGMENTS:
        llm.warn(f"llm ({llm.name}) consolidation: {len(segments)} segments are more than {MAX_SEGMENTS}; "
                 "used the deterministic outline")
        return fallback
    shown, clipped = _render_segments([s.text for s in segments])
    note = f" (each clipped to {clipped} characters to fit)" if clipped else ""
    prompt = PROMPT.format(title=tutorial.title, segments=shown, clipped=note)
    reply = llm.complete_json(
        prompt,
        OutlineOut,
        purpose="consolidation",
        max_tokens=8192,
        check=lambda out: None if out.sections or out.skills else "it has no sections and no skills",
    )
    if reply is None:
        return fallback
    dropped: list[int] = []
    chapter = _to_outline(reply, tutorial, dropped)
    if chapter is None:
        llm.warn(f"llm ({llm.name}) consolidation: nothing in the model's outline pointed at real segments; "
                 "used the deterministic outline")
        return fallback
    if dropped:
        shown_ids = ", ".join(str(i) for i in sorted(set(dropped))[:10])
        llm.warn(f"llm ({llm.name}) consolidation: dropped {len(dropped)} evidence reference(s) to segments "
                 f"that do not exist (ids {shown_ids}) and what rested only on them")
    return chapter


def _render_segments(texts: list[str]) -> tuple[str, int]:
    """The numbered segment list, and the per-segment clip length (0 when nothing was clipped)."""
    flat = [" ".join(t.split()) for t in texts]
    total = sum(len(t) for t in flat)
    limit = 0
    if total > MAX_PROMPT_CHARS:
        limit = max(80, MAX_PROMPT_CHARS // len(flat))
        flat = [t if len(t) <= limit else t[: limit - 1] + "…" for t in flat]
    return "\n".join(f"[{i}] {t}" for i, t in enumerate(flat)), limit


def _to_outline(reply: OutlineOut, tutorial: TutorialContext, dropped: list[int]) -> OutlineNode | None:
    n = len(tutorial.transcript.segments)

    def valid(ids: list[int]) -> list[int]:
        good = sorted({i for i in ids if isinstance(i, int) and 0 <= i < n})
        dropped.extend(i for i in ids if not (isinstance(i, int) and 0 <= i < n))
        return good

    def drafts(skills: list[SkillOut], context: str) -> list[SkillDraft]:
        out = []
        for skill in skills:
            evidence = valid(skill.evidence)
            name = _clip(skill.name, MAX_NAME)
            if not evidence or not name:
                continue
            steps = [_clip(s, 400) for s in skill.steps if s.strip()][:MAX_STEPS] or [name]
            when = _clip(skill.when_to_use, MAX_SUMMARY) or (f"While working on: {context}" if context else "")
            out.append(SkillDraft(name, when, steps, _quote(tutorial, evidence, name, steps), evidence))
        return out

    def node(title: str, summary: str, kind: str, ids: list[int], skills: list[SkillOut],
             children: list[OutlineNode]) -> OutlineNode | None:
        own = valid(ids)
        title = _clip(title, MAX_TITLE)
        found = drafts(skills, title)
        if not own and not children:
            own = sorted({i for d in found for i in d.segment_indexes})
        if not own and not children and not found:
            return None
        opening = tutorial.transcript.segments[own[0]].text if own else ""
        return OutlineNode(title or passages.title_phrase(opening), kind, own, found,
                           sorted(children, key=_first_segment), summary=_clip(summary, MAX_SUMMARY))

    sections = []
    for section in reply.sections:
        subsections = [s for s in (node(x.title, x.summary, "subsection", x.segments, x.skills, [])
                                   for x in section.subsections) if s]
        built = node(section.title, section.summary, "section", section.segments, section.skills, subsections)
        if built:
            sections.append(built)
    intro = valid(reply.intro_segments)
    intro_skills = drafts(reply.skills, reply.title)
    if not intro and intro_skills:
        intro = sorted({i for d in intro_skills for i in d.segment_indexes})
    if not sections and not intro_skills:
        return None
    title = _clip(reply.title, MAX_TITLE) or tutorial.title
    return OutlineNode(title, "chapter", intro, intro_skills, sorted(sections, key=_first_segment),
                       summary=_clip(reply.summary, MAX_SUMMARY))


def _first_segment(node: OutlineNode) -> int:
    return min((i for n in node.walk() for i in n.segments), default=1 << 30)


def _quote(tutorial: TutorialContext, evidence: list[int], name: str, steps: list[str]) -> str:
    """The sentence of the evidence segments that shares most content words with the skill
    (the tutorial's own words, never the model's)."""
    wanted = set(extract.keywords([name, *steps], 40))
    best, best_score = "", -1
    for i in evidence:
        for sentence in extract.split_sentences(tutorial.transcript.segments[i].text):
            words = {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z'-]{2,}", sentence)}
            score = len(words & wanted)
            if score > best_score:
                best, best_score = sentence, score
    return best or tutorial.transcript.segments[evidence[0]].text


def _clip(text: str, limit: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"
