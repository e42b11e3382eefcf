"""Stage 1 of refinement: harvest questions grounded in a tutorial, and grade answers to them.

Every question carries the span of the tutorial that answers it (tutorial, start, end, the
quoted sentence) and an expected answer that is a phrase of that quote, so a question can
always be checked against its source. Without an LLM, *generators* read the tutorial's
segments and write the questions:

* the questions a learner would ask (:mod:`tutorialbook.skills.learner`: how, what, why,
  what happens when, what code), graded by whether the retrieved evidence covers the answer;
* ``cloze`` — only to fill a short tutorial's exam up to ``MIN_QUESTIONS``: a key sentence (one that
  carries a fact or an instruction, e.g. "The dough is done when it has grown by about half") with a
  content word, number or command blanked;
* ``avoid`` — "what should you never do …?" from never / don't / avoid sentences;
* ``next_step`` — "which step comes after …?" from numbered procedures.

Harvesting is deterministic: choices are made by a hash seeded with the tutorial id, so
re-running it yields the same questions with the same ids.

Hooks. A domain pack contributes generators and graders by defining
``question_generators(self) -> list[Generator]`` and ``question_graders(self) -> dict[kind,
Grader]`` (chess: "after these moves, what does the lesson recommend?" graded by legal-move
match, :mod:`tutorialbook.skills.chess.questions`), and may write the skill a failed
question of its kinds needs with ``repair_draft(question, title)``. An LLM harvester or
judge replaces :func:`harvest` / :func:`grade`
(same signatures) in :class:`tutorialbook.skills.refine.Examiner`.
"""

from __future__ import annotations

import hashlib
import re
from bisect import bisect_left, bisect_right
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable, Iterable, Protocol

from tutorialbook.memory.rows import decode, encode, norm, steps_of  # noqa: F401 - norm: questions compare names loosely
from tutorialbook.skills import extract
from tutorialbook.skills.code_text import looks_like_code
from tutorialbook.acquire.formats.document import prose_words
from tutorialbook.acquire.transcript import Segment

#: at most this many questions per tutorial (procedures and prohibitions first, then cloze)
MAX_QUESTIONS = 30
MAX_AVOID = 8
MAX_NEXT_STEP = 8
BLANK = "_____"


@dataclass
class Question:
    """One probe of the memory: what to ask, what the answer must contain, and where the
    tutorial says so."""

    id: str
    tutorial_id: str
    kind: str
    question: str
    answer: str
    evidence: dict  # tutorial_id, tutorial_title, start, end, quote, timed, link

    def to_row(self, book: str, created_at: float) -> dict:
        return {"id": self.id, "book": book, "tutorial_id": self.tutorial_id, "question": self.question,
                "answer": self.answer, "kind": self.kind, "evidence": encode(self.evidence),
                "created_at": created_at}

    @classmethod
    def from_row(cls, row: dict) -> "Question":
        return cls(row["id"], row["tutorial_id"], row["kind"], row["question"], row["answer"],
                   decode(row["evidence"], "{}"))


@dataclass
class HarvestSource:
    """What a generator reads: the tutorial's own segments, and the spans of the book's
    nodes built from it (to name the section a question is about)."""

    tutorial_id: str
    title: str
    segments: list[Segment]
    timed: bool = True
    link: str = ""
    sections: list[tuple[float, float, str]] = field(default_factory=list)  # (start, end, title)

    @cached_property
    def taught(self) -> list[Segment]:
        """The segments a question may be asked of: none inside a licence's own section, of which
        the book keeps no skill (the builder's judgement, ``passages.is_licence_text``), so an
        exam asking about it would fail for what the book rightly left out."""
        from tutorialbook.skills.passages import LICENCE_OPENING_WORDS, is_licence_text

        order = sorted(range(len(self.segments)), key=lambda i: self.segments[i].start)
        starts = [self.segments[i].start for i in order]
        left_out: set[int] = set()
        for start, end, title in self.sections:  # each reads its opening words only, found by bisection
            inside = [i for i in order[bisect_left(starts, start - 0.01):bisect_right(starts, end + 0.01)]
                      if self.segments[i].end <= end + 0.01]
            words: list[str] = []
            for i in inside:
                words += self.segments[i].text.split()
                if len(words) >= LICENCE_OPENING_WORDS:
                    break
            if is_licence_text(title, " ".join(words[:LICENCE_OPENING_WORDS])):
                left_out.update(inside)
        return [s for i, s in enumerate(self.segments) if i not in left_out]

    def section_of(self, start: float, end: float) -> str:
        """Title of the narrowest section whose span holds [start, end] ('' when none)."""
        holding = [s for s in self.sections if s[0] - 0.01 <= start and end <= s[1] + 0.01]
        return min(holding, key=lambda s: (s[1] - s[0], s[2]))[2] if holding else ""

    def evidence(self, segment: Segment, quote: str) -> dict:
        link = f"{self.link}#t={int(segment.start)}" if self.timed and self.link else self.link
        return {"tutorial_id": self.tutorial_id, "tutorial_title": self.title, "start": round(float(segment.start), 2),
                "end": round(float(segment.end), 2), "quote": quote.strip(), "timed": self.timed, "link": link}


@dataclass
class Candidate:
    """A question a generator proposes, with how much it is worth asking (higher first)."""

    kind: str
    question: str
    answer: str
    segment: Segment
    quote: str
    score: float = 1.0
    grounded: bool = False
    """The generator checked the answer against the quote itself (chess: the move parsed from
    the words); otherwise the answer must be a phrase of the quote."""


class Generator(Protocol):
    def __call__(self, source: HarvestSource) -> Iterable[Candidate]: ...


@dataclass
class Verdict:
    passed: bool
    skill_id: str = ""  # the skill that answered it
    rank: int = 0  # 1-based rank of that skill


#: a grader says whether one skill (a dict or a SkillView with name, steps) answers the question
Grader = Callable[[Question, object], bool]

# -- text helpers -----------------------------------------------------------------

def contains(haystack: str, needle: str) -> bool:
    """Whether the normalized ``needle`` occurs in the normalized ``haystack`` on word bounds."""
    needle = norm(needle)
    return bool(needle) and f" {needle} " in f" {norm(haystack)} "


def _seeded(seed: str, *parts: str) -> str:
    """A stable pseudo-random sort key (no dependence on Python's hash seed)."""
    return hashlib.sha256("\x1f".join((seed, *parts)).encode()).hexdigest()


def _clean(sentence: str) -> str:
    return " ".join(extract._strip_markup(extract._LIST_ITEM.sub("", sentence)).split())


_NUMBER_WORD = (r"(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
                r"fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|"
                r"ninety|hundred|thousand|million|half|quarter|dozen|twice|double)")
#: words too general to be the answer of a cloze question
GENERIC = frozenset(
    """instead because usually means mean always never often sometimes about around until unless since
    though although maybe probably quite rather enough little much many still even already almost
    other another something anything everything nothing someone anyone everyone whatever however
    actually basically simply exactly around within without between across through during before
    after above below again never ever tutorial video lesson today want need needs wants using used
    good great better best bad worse worst sure important main key idea part kind sort lot lots
    time times people person going gonna wanna there their they're it's that's what's here's""".split()
)
_UNIT_SKIP = extract.STOPWORDS | {"and", "or", "of", "the", "a", "an"}
_NUMBER = re.compile(
    rf"(?<![\w.])(?:\d+(?:[.,:]\d+)*(?:\s?%|°[CF]?)?|{_NUMBER_WORD}(?:(?:[- ]|\s+and\s+){_NUMBER_WORD})*)(?![\w])",
    re.I,
)
_CODE = re.compile(r"`([^`]{2,60})`")
_FACT = re.compile(
    r"\b(?:is|are|was|were|means?|when|until|because|so that|called|done|ready|causes?|makes?|gives?|keeps?|"
    r"needs?|takes?|lasts?|holds?|should|must|better|best|worse|more|less|too|than)\b", re.I)
_PREAMBLE = re.compile(r"^(?:welcome|hi|hello|hey|thanks|thank you|today|in this (?:video|tutorial|lesson)|"
                       r"this (?:video|tutorial|lesson)|let'?s get started|subscribe)\b", re.I)
_AVOID = re.compile(
    r"(?:^|[,;:]\s*|\b(?:you\s+)?(?:should|must|can)\s+)"
    r"(?P<cue>never|don'?t|do not|avoid|should not|shouldn'?t|must not|mustn'?t)\s+(?P<action>[^;:.!?]+)",
    re.I,
)
_CLAUSE_END = re.compile(
    r",\s*(?:or|and|because|so|since|as|which|otherwise|but)\b|\s+(?:or else|otherwise|because|since)\b|[,;–—-]\s", re.I
)
_CONDITION = re.compile(r"^(?P<cond>(?:if|when|whenever|before|after|once|while|during)\b[^,]{3,80}),\s*", re.I)


def _words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z][A-Za-z'-]+", text)


def key_words(text: str) -> list[str]:
    """Content words of a text (stopwords and template words removed), in order."""
    return [w.lower() for w in _words(text) if w.lower() not in extract.STOPWORDS and len(w) > 2]


# -- generators -------------------------------------------------------------------

def _sentences(source: HarvestSource) -> Iterable[tuple[Segment, str, str]]:
    """(segment, raw sentence, cleaned sentence) of every sentence of the tutorial outside its
    licence."""
    for segment in source.taught:
        for raw in extract.split_sentences(segment.text):
            yield segment, raw, _clean(raw)


def _teaching(source: HarvestSource) -> Iterable[tuple[Segment, str, str]]:
    """The sentences that teach something: no question is asked about a greeting or a licence,
    which are not skills."""
    from tutorialbook.skills.passages import is_boilerplate

    return ((seg, raw, clean) for seg, raw, clean in _sentences(source) if not is_boilerplate(raw))


def is_code(segment: Segment) -> bool:
    """A code block (stored segments keep no kind: then code is told by its punctuation)."""
    return segment.kind == "code" or segment.kind == "text" and looks_like_code(segment.text)


def cloze_questions(source: HarvestSource) -> Iterable[Candidate]:
    """Blank one content phrase of each key sentence: a command, else a number (with its
    unit), else the tutorial's rarest content word of the sentence. A code block holds no
    sentence, nor does a line of words less than half of which prose writes: a blank in a
    program's output ("city | temp_lo | … (_____ rows)") asks nothing a learner would, and its
    repair had written that output into a skill's "when to use"."""
    frequency = Counter(w for _, _, s in _sentences(source) for w in key_words(s))
    for segment, raw, sentence in _teaching(source):
        words = sentence.split()
        if not 6 <= len(words) <= 45 or sentence.endswith(("?", ":")) or _PREAMBLE.match(sentence) \
                or is_code(segment) or prose_words(words) < 0.5 * len(words):
            continue
        answer, score = _cloze_answer(source.tutorial_id, raw, sentence, frequency)
        if not answer:
            continue
        score += 1.0 if extract.is_instructive(sentence) else 0.0
        score += 1.0 if _FACT.search(sentence) else 0.0
        start = _find_phrase(sentence, answer)
        blanked = sentence[:start] + BLANK + sentence[start + len(answer):]
        yield Candidate("cloze", f"Fill in the blank: {blanked}", answer, segment, raw, score)


def _cloze_answer(seed: str, raw: str, sentence: str, frequency: Counter) -> tuple[str, float]:
    codes = [m.group(1).strip() for m in _CODE.finditer(raw) if _find_phrase(sentence, m.group(1).strip()) >= 0]
    if codes:
        return min(codes, key=lambda c: _seeded(seed, sentence, c)), 2.0
    numbers = []
    for m in _NUMBER.finditer(sentence):
        phrase = m.group(0).strip()
        rest = _words(sentence[m.end():])[:1]
        if rest and rest[0].lower() not in _UNIT_SKIP and len(rest[0]) > 1:
            unit_end = sentence.index(rest[0], m.end()) + len(rest[0])
            phrase = sentence[m.start():unit_end]
        numbers.append(phrase)
    if numbers:
        return min(numbers, key=lambda n: _seeded(seed, sentence, n)), 2.0
    content = [w for w in (re.sub(r"['’]s$", "", w) for w in _words(sentence))
               if len(w) >= 4 and w.lower() not in extract.STOPWORDS | GENERIC | extract.IMPERATIVE_VERBS]
    if not content:
        return "", 0.0
    rarest = min(content, key=lambda w: (w.lower().endswith("ly"), frequency[w.lower()], -len(w),
                                         _seeded(seed, sentence, w)))
    return rarest, 0.5


_DANGLING = frozenset("and or but nor the a an of to with for from by at as than that which".split())


def _trim(phrase: str) -> str:
    """Drop dangling function words from the end of a cut phrase ("… bread flour and")."""
    words = phrase.split()
    while len(words) > 2 and words[-1].lower().strip(",") in _DANGLING:
        words.pop()
    return " ".join(words).rstrip(",")


def _find_phrase(sentence: str, phrase: str) -> int:
    match = re.search(rf"(?<![\w]){re.escape(phrase)}(?![\w])", sentence)
    return match.start() if match else -1


def avoid_questions(source: HarvestSource) -> Iterable[Candidate]:
    """"What should you never do …?" — the answer is the forbidden action."""
    for segment, raw, sentence in _teaching(source):
        if sentence.endswith("?"):
            continue
        match = _AVOID.search(sentence)
        if not match:
            continue
        action = _CLAUSE_END.split(match.group("action"), maxsplit=1)[0].strip()
        action_words = action.split()
        if len(action_words) < 2 or action_words[0].lower() in ("be", "worry", "forget", "panic"):
            continue
        action = _trim(" ".join(action_words[:10]))
        cue = match.group("cue").lower().replace("'", "")
        verb = {"never": "never do", "avoid": "avoid"}.get(cue, "not do")
        condition = _CONDITION.match(sentence)
        if condition and condition.end() <= match.start():
            where = condition.group("cond")[0].lower() + condition.group("cond")[1:]
        else:
            section = source.section_of(segment.start, segment.end) or source.title
            where = f"in “{section}”"
        yield Candidate("avoid", f"What should you {verb} {where}?", action, segment, raw, 3.0)


def next_step_questions(source: HarvestSource) -> Iterable[Candidate]:
    """"Which step comes after …?" over numbered procedures (two or more steps)."""
    for segment in source.taught:
        lines = extract._join_wrapped_lines(segment.text)
        steps = [_clean(line) for line in lines if extract._NUMBERED.match(line)]
        if len(steps) < 2:
            continue
        intro = next((_clean(line) for line in lines if not extract._LIST_ITEM.match(line)), "")
        intro = (extract.split_sentences(intro) or [""])[-1]  # the sentence that opens the list
        topic = intro.rstrip(":") or source.section_of(segment.start, segment.end) or source.title
        for before, after in zip(steps, steps[1:]):
            shown = " ".join(before.split()[:14])
            answer = _trim(" ".join(_CLAUSE_END.split(after, maxsplit=1)[0].rstrip(".").split()[:8]))
            if len(answer.split()) < 2:
                continue
            yield Candidate("next_step", f"In “{topic}”, which step comes after “{shown}”?", answer,
                            segment, after, 3.0)


def _learner_generators() -> list[Generator]:
    from tutorialbook.skills.learner import LEARNER_GENERATORS

    return LEARNER_GENERATORS


GENERAL_GENERATORS: list[Generator] = [next_step_questions, avoid_questions,
                                       lambda source: (c for g in _learner_generators() for c in g(source)),
                                       cloze_questions]
#: kinds asked only to fill a short tutorial's exam up to ``MIN_QUESTIONS``: a cloze hands
#: retrieval the words it indexed, so an exam of clozes passes where learners fail
FILLER_KINDS = ("cloze",)
MIN_QUESTIONS = 10
#: the kinds of :mod:`tutorialbook.skills.learner` (questions a learner would ask)
LEARNER_KINDS = ("how", "what", "why", "behaviour", "code")
#: kinds graded by whether the evidence retrieval returns covers the answer (with an LLM's own)
EVIDENCE_KINDS = (*LEARNER_KINDS, "generated")
MAX_LEARNER = 8  # per kind, so that no one sentence pattern makes the exam
_CAPS = {"avoid": MAX_AVOID, "next_step": MAX_NEXT_STEP, **{k: MAX_LEARNER for k in LEARNER_KINDS}}


def generators_for(pack=None) -> list[Generator]:
    """The general generators, then the domain pack's own.
    A pack's ``general_question_about(sentence)`` keeps the general ones off sentences its
    own generators read better (chess: a narrated move makes a poor blank to fill)."""
    keep = getattr(pack, "general_question_about", None)
    out = [_only_about(g, keep) for g in GENERAL_GENERATORS] if callable(keep) else list(GENERAL_GENERATORS)
    hook = getattr(pack, "question_generators", None)
    if callable(hook):
        out += list(hook())
    return out


def _only_about(generator: Generator, keep: Callable[[str], bool]) -> Generator:
    def filtered(source: HarvestSource) -> Iterable[Candidate]:
        return (c for c in generator(source) if keep(c.quote))
    return filtered


def harvest(source: HarvestSource, generators: list[Generator] | None = None,
            limit: int = MAX_QUESTIONS) -> list[Question]:
    """Questions grounded in the tutorial, at most ``limit``: the best of each kind by
    score, ties broken by a hash seeded with the tutorial id (so re-runs agree)."""
    seen: set[str] = set()
    by_kind: dict[str, list[Candidate]] = {}
    for generator in generators if generators is not None else generators_for():
        for c in generator(source):
            key = norm(c.question)
            if not c.answer.strip() or key in seen or not (c.grounded or contains(c.quote, c.answer)):
                continue
            seen.add(key)
            by_kind.setdefault(c.kind, []).append(c)
    chosen: list[Candidate] = []
    for kind, found in by_kind.items():
        found.sort(key=lambda c: (-c.score, _seeded(source.tutorial_id, kind, c.question)))
        if kind not in FILLER_KINDS:
            chosen += found[: _CAPS.get(kind, limit)]
    for kind in FILLER_KINDS:
        chosen += by_kind.get(kind, [])[: max(0, min(limit, MIN_QUESTIONS) - len(chosen))]
    chosen.sort(key=lambda c: (-c.score, _seeded(source.tutorial_id, c.kind, c.question)))
    chosen = chosen[:limit]
    chosen.sort(key=lambda c: (c.segment.start, c.kind, c.question))  # reading order
    return [
        Question(
            id="q_" + _seeded(source.tutorial_id, c.kind, c.question, c.answer)[:16],
            tutorial_id=source.tutorial_id, kind=c.kind, question=c.question, answer=c.answer.strip(),
            evidence=source.evidence(c.segment, c.quote),
        )
        for c in chosen
    ]


# -- grading ----------------------------------------------------------------------

def _field(skill, name: str):
    return skill[name] if isinstance(skill, dict) else getattr(skill, name)


def _steps(skill) -> list[str]:
    steps = _field(skill, "steps")
    return steps_of({"steps": steps}) if isinstance(steps, str) else list(steps)


def skill_body(skill) -> str:
    """What a graded answer is read from: the skill's name and steps."""
    return " ".join([_field(skill, "name"), *_steps(skill)])


def returned_text(skill) -> str:
    """The evidence an agent reads for a retrieved skill: its name, when to use it, its steps
    and its evidence quotes (what a learner's question is graded against)."""
    def get(name: str):  # a row read with fewer columns lacks some
        return skill.get(name) if isinstance(skill, dict) else getattr(skill, name, None)

    evidence = get("evidence")
    if isinstance(evidence, str):
        quotes = [e.get("quote", "") for e in decode(evidence)]
    else:
        quotes = [e.quote if hasattr(e, "quote") else e.get("quote", "") for e in evidence or []]
    return " ".join(p for p in [get("name"), get("when_to_use"), *_steps(skill), *quotes] if p)


def anchors(question: Question) -> list[str]:
    """The content words of a cloze question besides the blank: what the answering skill
    must be about (so a stray "half" elsewhere in the book does not count)."""
    text = question.question.split(":", 1)[-1].replace(BLANK, " ")
    answer = set(key_words(question.answer))
    return list(dict.fromkeys(w for w in key_words(text) if w not in answer))


def _grader(kind: str, pack=None) -> Grader | None:
    hook = getattr(pack, "question_graders", None)
    return (hook() if callable(hook) else {}).get(kind)


def answers(question: Question, skill, pack=None) -> bool:
    """Whether one skill holds the question's answer (deterministic): the grader the pack or
    a registration gives the question's kind, else answer-phrase matching."""
    grader = _grader(question.kind, pack)
    if grader is not None:
        return grader(question, skill)
    if question.kind in EVIDENCE_KINDS:  # the returned evidence covers the answer's words
        return contains(returned_text(skill), question.answer)
    body = skill_body(skill)
    if question.kind == "next_step":
        before = re.search(r"comes after “(.+)”\?$", question.question)
        if before is None:
            return contains(body, question.answer)
        steps = _steps(skill)
        return any(contains(step, before.group(1)) and contains(following, question.answer)
                   for step, following in zip(steps, steps[1:]))
    if not contains(body, question.answer):
        return False
    if question.kind == "cloze":
        wanted = anchors(question)
        present = sum(contains(body, w) for w in wanted)
        return present * 2 >= len(wanted)
    return True


def grade(question: Question, skills: list, pack=None) -> Verdict:
    """Pass when one of the retrieved skills (already cut to the top k) answers the question."""
    for rank, skill in enumerate(skills, 1):
        if answers(question, skill, pack):
            return Verdict(True, _field(skill, "id"), rank)
    return Verdict(False)
