"""Adversarial refinement with a model: it writes the exam, marks what phrase matching
cannot, and writes the repairs.

* **Harvest** — the model reads the tutorial's numbered segments and writes hard questions,
  each with a short answer copied from one segment and that segment's id. A question is kept
  only when its segment exists, its answer really occurs in that segment, and the question
  does not give the answer away; the evidence span and quote are the segment's own. A domain
  pack's own generators (chess: "what does the lesson recommend after these moves?") still
  run beside it. No usable questions → the deterministic harvest, with a warning.
* **Judge** — the deterministic grade first (the answer phrase in a retrieved skill); only
  when it fails is the model asked whether one of the retrieved skills gives the expected
  answer in other words. It must name a skill id from the list (else retried, then the
  deterministic verdict stands). At most ``JUDGE_BUDGET`` model judgements per run.
* **Repair** — where refinement would add a skill from the evidence sentence, the model
  writes its name, when to use it and its steps from that passage; the steps must contain
  the expected answer, else the extractive draft is kept.

These plug into :class:`tutorialbook.skills.refine.Refiner` through its
:class:`~tutorialbook.skills.refine.Examiner` (harvest, judge) and one method override
(the repair draft); the repair loop itself is unchanged.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from tutorialbook.skills import extract
from tutorialbook.skills import questions as qs
from tutorialbook.llm.client import LLM
from tutorialbook.skills.questions import HarvestSource, Question, Verdict
from tutorialbook.skills.refine import Examiner, Refiner

KIND = "generated"
HARVEST_LIMIT = qs.MAX_QUESTIONS
JUDGE_BUDGET = 40
REPAIR_BUDGET = 20
MAX_PROMPT_CHARS = 60_000
REPAIRABLE = ("cloze", "avoid", KIND)  # kinds graded by the answer phrase (a procedure's order is not rewritten)


class QuestionOut(BaseModel):
    question: str = Field(description="a question the tutorial answers, without giving the answer away")
    answer: str = Field(description="the answer: a short phrase (1-8 words) copied exactly from the segment")
    segment: int = Field(description="id of the segment that answers it")


class HarvestOut(BaseModel):
    questions: list[QuestionOut]


class JudgeOut(BaseModel):
    passed: bool = Field(description="true when one of the skills gives the expected answer")
    skill_id: str = Field("", description="the id of that skill (empty when none does)")
    reason: str = ""


class DraftOut(BaseModel):
    name: str = Field(description="a short imperative name")
    when_to_use: str
    steps: list[str] = Field(description="the steps, in order; they must contain the expected answer")


HARVEST = """Write up to {limit} hard questions that check whether someone learned this tutorial: facts,
numbers, conditions, warnings and the order of steps, not trivia about the narrator.

Tutorial title: {title}

The tutorial, as numbered segments ([id] text):
{segments}

For each question give the answer as a short phrase (1-8 words) copied exactly from one segment, and
that segment's id. The question must not contain its answer."""

JUDGE = """Does one of these skills, retrieved from a book for the question, give the expected answer
(the same meaning, in any words)?

Question: {question}
Expected answer (from the tutorial): {answer}

Retrieved skills ([id] name: steps):
{skills}

Answer passed=true with the skill's id only if that skill itself says it."""

REPAIR = """A book of skills failed to answer a question its tutorial answers. Write the one skill that
answers it, from this passage only.

Question: {question}
Expected answer: {answer}
Section: {section}
Passage: {passage}

Give a short imperative name, when to use it, and its steps in order; the steps must contain the
expected answer word for word."""


def llm_harvest(llm: LLM, source: HarvestSource, pack=None) -> list[Question]:
    """Questions the model wrote, each checked against its segment; the deterministic
    harvest when none survive."""
    special = _pack_questions(source, pack)
    if llm.available and source.segments:
        found = _model_questions(llm, source)
        if found:
            seen = {qs.norm(q.question) for q in found}
            extra = [q for q in special if qs.norm(q.question) not in seen]
            return (found + extra)[: HARVEST_LIMIT + len(extra)]
        if llm.available:
            llm.warn(f"llm ({llm.name}) harvest: no question the model wrote held up against its segment; "
                     "used the deterministic harvest")
    return qs.harvest(source, qs.generators_for(getattr(pack, "name", "general"), pack))


def _pack_questions(source: HarvestSource, pack) -> list[Question]:
    hook = getattr(pack, "question_generators", None)
    return qs.harvest(source, list(hook())) if callable(hook) else []


def _model_questions(llm: LLM, source: HarvestSource) -> list[Question]:
    texts = [" ".join(s.text.split()) for s in source.segments]
    limit = max(80, MAX_PROMPT_CHARS // len(texts)) if sum(map(len, texts)) > MAX_PROMPT_CHARS else 0
    shown = "\n".join(f"[{i}] {t if not limit or len(t) <= limit else t[:limit - 1] + '…'}" for i, t in enumerate(texts))
    reply = llm.complete_json(HARVEST.format(limit=HARVEST_LIMIT, title=source.title, segments=shown), HarvestOut,
                              purpose="harvest", max_tokens=4096)
    if reply is None:
        return []
    out: list[Question] = []
    seen: set[str] = set()
    rejected = 0
    for item in reply.questions:
        question, answer = " ".join(item.question.split()), " ".join(item.answer.split()).strip(" .")
        if not (0 <= item.segment < len(source.segments)) or not question or not answer:
            rejected += 1
            continue
        segment = source.segments[item.segment]
        if not qs.contains(segment.text, answer) or qs.contains(question, answer) or qs.norm(question) in seen:
            rejected += 1
            continue
        seen.add(qs.norm(question))
        quote = next((s for s in extract.split_sentences(segment.text) if qs.contains(s, answer)), segment.text)
        out.append(Question(
            id="q_" + qs._seeded(source.tutorial_id, KIND, question, answer)[:16], tutorial_id=source.tutorial_id,
            kind=KIND, question=question, answer=answer, evidence=source.evidence(segment, quote)))
        if len(out) >= HARVEST_LIMIT:
            break
    if rejected:
        llm.warn(f"llm ({llm.name}) harvest: dropped {rejected} question(s) whose segment id or answer did not "
                 "match the tutorial")
    return sorted(out, key=lambda q: (q.evidence["start"], q.question))


class LLMJudge:
    """The deterministic grade, and the model where phrase matching says no."""

    def __init__(self, llm: LLM, budget: int = JUDGE_BUDGET):
        self.llm = llm
        self.budget = budget

    def __call__(self, question: Question, skills: list, pack=None) -> Verdict:
        verdict = qs.grade(question, skills, pack)
        if verdict.passed or not skills or not self.llm.available:
            return verdict
        if self.budget <= 0:
            self.llm.warn(f"llm ({self.llm.name}) judge: more than {JUDGE_BUDGET} judgements in one run; the rest "
                          "were graded deterministically")
            return verdict
        self.budget -= 1
        ids = [qs._field(s, "id") for s in skills]
        listed = "\n".join(f"[{qs._field(s, 'id')}] {qs._field(s, 'name')}: {' / '.join(qs._steps(s))[:600]}"
                           for s in skills)

        def check(out: JudgeOut) -> str | None:
            if out.passed and out.skill_id.strip() not in ids:
                return f"passed=true needs the id of one listed skill ({', '.join(ids)})"
            return None

        out = self.llm.complete_json(JUDGE.format(question=question.question, answer=question.answer, skills=listed),
                                     JudgeOut, purpose="judge", max_tokens=512, check=check)
        if out is None or not out.passed:
            return verdict
        skill_id = out.skill_id.strip()
        return Verdict(True, skill_id, ids.index(skill_id) + 1)


def llm_examiner(llm: LLM) -> Examiner:
    return Examiner(harvest=lambda source, pack: llm_harvest(llm, source, pack), judge=LLMJudge(llm))


class LLMRefiner(Refiner):
    """A :class:`Refiner` whose examiner and repair drafts use a model."""

    def __init__(self, *args, llm: LLM, **kwargs):
        kwargs.setdefault("examiner", llm_examiner(llm))
        super().__init__(*args, **kwargs)
        self.llm = llm
        self._repairs_left = REPAIR_BUDGET

    def _draft(self, q, source, spans, *args, **kwargs):  # the repair loop's own draft, rewritten by the model
        draft = super()._draft(q, source, spans, *args, **kwargs)
        if draft is None or q.kind not in REPAIRABLE or not self.llm.available or self._repairs_left <= 0:
            return draft
        self._repairs_left -= 1
        name, when, steps, node_id = draft
        section = next((s.title for s in spans if s.node_id == node_id), source.title)
        segment = next((s for s in source.segments if abs(s.start - q.evidence["start"]) < 0.01), None)
        passage = " ".join((segment.text if segment else q.evidence.get("quote", "")).split())[:3000]

        def check(out: DraftOut) -> str | None:  # the book's own grader must accept the skill
            if not qs.answers(q, {"id": "", "name": out.name, "steps": out.steps}):
                words = ", ".join(qs.anchors(q)[:8]) if q.kind == "cloze" else ""
                return (f"the steps must contain the expected answer {q.answer!r} word for word"
                        + (f", with the question's key words ({words})" if words else ""))
            return None

        out = self.llm.complete_json(REPAIR.format(question=q.question, answer=q.answer, section=section,
                                                   passage=passage),
                                     DraftOut, purpose="repair", max_tokens=1024, check=check)
        if out is None:
            return draft
        written = [" ".join(s.split()) for s in out.steps if s.strip()][:12]
        return (" ".join(out.name.split())[:120] or name, " ".join(out.when_to_use.split())[:240] or when,
                written or steps, node_id)


def refiner(store, embed, tree, rank_skills, book: str, agent: str, llm: LLM | None) -> Refiner:
    """The refiner for a run (see :class:`Refiner` for what it receives): with a model when one is configured."""
    if llm is None:
        return Refiner(store, embed, tree, rank_skills, book, agent)
    return LLMRefiner(store, embed, tree, rank_skills, book, agent, llm=llm)
