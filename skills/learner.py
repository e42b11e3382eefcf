"""Questions a learner would ask, built from the structure of a tutorial's passages.

A cloze ("Fill in the blank: <the stored sentence>") hands retrieval the very words it indexed,
so an exam made of clozes passes where a learner, who asks in their own words, fails. These
generators ask instead what a learner asks of a passage, and hold back the words that answer
it: the question is one part of a sentence's structure, the answer another.

* ``how`` — a purpose and its means: "To <goal>, <means>", "Use <x> to <goal>", "<x> is used
  to <goal>", "<x> lets you <goal>" → "How do I <goal>?" (answer: the means, or x);
* ``what`` — a definition, "<term> is a/an/the …" → "What is <term>?" (answer: the words after);
* ``why`` — a reason, "<fact> because/so that <reason>" → "Why <fact>?" (answer: the reason);
* ``behaviour`` — a condition, "If/When <condition>, <result>" → "What happens when
  <condition>?" (answer: the result);
* ``code`` — a code block and the prose that introduces it, when that prose states a goal ("To
  create the table, run:", "Add a function that closes it:") → "What code do I write to <goal>?"
  (answer: the block's line whose words are rarest in the tutorial).

The question is rewritten as a learner speaks (you → I), and a question that still holds its
answer is dropped. An answer is a contiguous phrase of the tutorial (2-6 words, or one code
term), so grading is the dev set's: the evidence retrieval returns covers the answer's words.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Iterable

from tutorialbook.skills import extract
from tutorialbook.skills import questions as qs
from tutorialbook.skills.questions import Candidate, HarvestSource, _clean, contains, is_code, key_words

ANSWER_WORDS = 5

_PRONOUN_SUBJECT = re.compile(r"^(?:it|this|that|these|those|there|they|you|we|he|she|i|here|which|what|one|each)\b",
                              re.I)
_GOAL = r"(?P<goal>[a-z][^,;:]{6,90}?)"
_LEARNER = r"(?:you|us|users?|the user|one)"
#: a clause that opens on a word pointing back ("this", "it", "such") or with its subject left out
#: ("If not specified", "When installed") is about something an earlier sentence named: asked
#: alone, nobody could tell what it asks about
_ANAPHORIC = re.compile(r"^(?:(?:it|its|this|that|these|those|they|them|their|such|so|not)\b"
                        r"|\w{2,}(?<!e)ed\b)", re.I)
#: a word pointing back at, or on to, what another sentence names ("select it", "turn this off",
#: "when I do so", "what is below?"): a question holding one asks about nothing a reader could place
_POINTING = re.compile(r"\b(?:it|this|these|those|them|so|below|above|following|preceding|former|latter)\b", re.I)
#: a fact that opens on a subordinating word is not the sentence's main clause
_SUBORDINATE = re.compile(r"^(?:\(|(?:because|since|as|although|though|while|whereas|unless|until)\b)", re.I)
_HOW = [
    re.compile(rf"^(?:in order )?to {_GOAL},\s*(?P<means>.+)$", re.I),
    re.compile(rf"^(?:(?:you|we) (?:can|could|should|may|might) )?use (?P<means>[^,;:]{{2,60}}?) "
               rf"to {_GOAL}(?:[,.;:]|$)", re.I),
    re.compile(rf"^(?P<means>[^,;:]{{2,60}}?) (?:is|are|can be|may be) used (?:to|for) {_GOAL}(?:[,.;:]|$)", re.I),
    # "allows/enables [the learner] to <goal>", "lets the learner <goal>", "helps [the learner] (to) <goal>":
    # "allows dictionaries to be created" states what the means permits of a thing, no goal of the learner's
    re.compile(rf"^(?P<means>[^,;:]{{2,60}}?) (?:(?:allows|enables) (?:{_LEARNER} )?to|lets {_LEARNER}(?: to)?"
               rf"|helps (?:{_LEARNER} )?(?:to )?) ?{_GOAL}(?:[,.;:]|$)", re.I),
]
_WHAT = re.compile(r"^(?P<term>[^\s,;:]+(?: [^\s,;:]+){0,4}?) (?P<verb>is|are|means|refers to) "
                   r"(?P<rest>(?:a|an|the|called|used|not|one|only|simply|just|defined)\b.+)$", re.I)
_WHY = re.compile(r"^(?P<fact>[^;:]{12,140}?),? (?:because|since|so that|in order that) (?P<reason>.+)$", re.I)
_WHEN = re.compile(r"^(?:if|when|whenever|once) (?P<cond>[^,;:]{4,90}),\s*(?P<result>.+)$", re.I)
_YOU = [(re.compile(p, re.I), r) for p, r in (
    (r"\byou are\b", "I am"), (r"\byou're\b", "I'm"), (r"\byou've\b", "I've"), (r"\byou'll\b", "I'll"),
    (r"\byourself\b", "myself"), (r"\byours\b", "mine"), (r"\byour\b", "my"), (r"\byou\b", "I"),
    (r"\bwe are\b", "I am"), (r"\bwe're\b", "I'm"), (r"\bour\b", "my"), (r"\bwe\b", "I"), (r"\bus\b", "me"))]
_FILLER = re.compile(r"^(?:you can |we can |simply |just |then |also |now |first |next |(?:you )?use (?:the )?"
                     r"(?:(?:function|command|method|option|argument|operator)s? )?)+", re.I)
#: a term must name something: no pronoun, adverb or clause word inside it
_NOT_IN_TERM = extract.STOPWORDS - {"of", "the", "a", "an"} | {"hence", "thus", "however", "therefore", "note",
                                                               "so", "also", "although", "here"}
_CODE_TERM = re.compile(r"`([^`]{2,60})`|(\b[\w.$]+\([^()\s]{0,20}\))|(\b\w+(?:[._/]\w+)+\b)")
#: letters with full stops ("e.g", "i.e", "a.k.a"): an abbreviation, not a name of code an answer holds
_ABBREVIATION = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]\.?")


def _learner(text: str) -> str:
    """How a learner would say it: "you"/"we" become "I", a question mark at the end."""
    for pattern, repl in _YOU:
        text = pattern.sub(repl, text)
    text = re.sub(r"\bI (?:is|was)\b", "I am", text)
    return " ".join(text.split()).rstrip(" .,;:!?")


def _lower_first(text: str) -> str:
    """Lowercase a sentence's first word when it is a common word ("The blog" → "the blog"),
    not a name ("Flask", "SQLite")."""
    first = text.split(" ", 1)[0]
    return text[:1].lower() + text[1:] if first.lower() in extract.STOPWORDS else text


def _phrase(text: str, raw: str = "", limit: int = ANSWER_WORDS) -> str:
    """The answer a part of a sentence gives: a code term in it, else its first ``limit``
    words (trimmed of a dangling function word), at least two of them carrying content."""
    for m in _CODE_TERM.finditer(text + " " + raw):
        term = next(g for g in m.groups() if g).strip()
        if term and term in text and len(term) >= 3 and not _ABBREVIATION.fullmatch(term):
            return term
    words = _FILLER.sub("", text.strip()).rstrip(" .;:!?").split()
    words = words[:limit]
    while len(words) > 2 and words[-1].lower().strip(",") in extract.STOPWORDS:
        words.pop()
    phrase = " ".join(words).strip(" ,")
    return phrase if len(key_words(phrase)) >= 2 or (len(key_words(phrase)) == 1 and len(words) >= 2) else ""


def _teaching(source: HarvestSource):
    """The tutorial's teaching sentences that are prose (code is asked about by ``code``)."""
    from tutorialbook.skills.code_text import looks_like_code

    return ((seg, raw, clean) for seg, raw, clean in qs._teaching(source)
            if not looks_like_code(clean) and len(clean.split()) <= 40)


def _matching(source: HarvestSource, pattern: re.Pattern):
    """(segment, raw sentence, match) for each teaching sentence ``pattern`` matches from its start."""
    for segment, raw, sentence in _teaching(source):
        m = pattern.match(sentence)
        if m:
            yield segment, raw, m


def how_questions(source: HarvestSource) -> Iterable[Candidate]:
    for segment, raw, sentence in _teaching(source):
        for pattern in _HOW:
            m = pattern.search(sentence)
            if not m:
                continue
            goal, means = m.group("goal").strip(), m.group("means").strip()
            answer = _phrase(means, raw)
            if answer and goal.split()[0].lower() not in extract.STOPWORDS | {"be"} and not _POINTING.search(goal):
                yield Candidate("how", f"How do I {_learner(goal)}?", answer, segment, raw)
            break


def what_questions(source: HarvestSource) -> Iterable[Candidate]:
    for segment, raw, sentence in _teaching(source):
        m = _WHAT.match(sentence)
        term = m.group("term").strip() if m else ""
        if not m or _PRONOUN_SUBJECT.match(term) or _POINTING.search(term) or not key_words(term) \
                or not term[0].isalnum() \
                or any(w.lower() in _NOT_IN_TERM for w in term.split()):
            continue
        term = _lower_first(term)
        rest = re.sub(r"^(?:simply|just|defined as|called)\s+", "", m.group("rest"), flags=re.I)
        answer = _phrase(rest, "")
        verb = {"means": "does", "refers to": "does"}.get(m.group("verb").lower())
        to = " to" if "refers" in m.group("verb") else ""
        ask = (f"What {verb} {term} {m.group('verb').split()[0].rstrip('s')}{to}" if verb
               else f"What {m.group('verb').lower()} {term}")
        if answer:
            yield Candidate("what", f"{ask}?", answer, segment, raw)


def why_questions(source: HarvestSource) -> Iterable[Candidate]:
    for segment, raw, m in _matching(source, _WHY):
        fact = m.group("fact").strip()
        if _WHEN.match(fact + ",") or re.match(r"^(?:if|when|whenever|once|but|and|or|so)\b", fact, re.I) \
                or _ANAPHORIC.match(fact) or _SUBORDINATE.match(fact):
            continue
        answer = _phrase(m.group("reason"), "")
        if not answer or len(fact.split()) < 3:
            continue
        if fact.split()[0].lower() in extract.IMPERATIVE_VERBS:  # an instruction: why do it?
            yield Candidate("why", f"Why should I {_learner(fact[:1].lower() + fact[1:])}?", answer, segment, raw)
        else:
            yield Candidate("why", f"Why is it that {_learner(_lower_first(fact))}?", answer, segment, raw)


def behaviour_questions(source: HarvestSource) -> Iterable[Candidate]:
    for segment, raw, m in _matching(source, _WHEN):
        if _ANAPHORIC.match(m.group("cond")) or _POINTING.search(m.group("cond")) or len(m.group("cond").split()) < 2:
            continue  # a condition needs a subject and what it does: "when applicable" names neither
        answer = _phrase(m.group("result"), raw)
        if answer:
            yield Candidate("behaviour", f"What happens when {_learner(m.group('cond'))}?", answer, segment, raw)


def code_questions(source: HarvestSource) -> Iterable[Candidate]:
    """A code block introduced by prose that states its goal: what code does it, answered by
    the block's line whose words are rarest in the tutorial."""
    frequency = Counter(t for s in source.segments for t in re.findall(r"\w+", s.text.lower()))
    taught = {id(s) for s in source.taught}
    for before, segment in zip(source.segments, source.segments[1:]):
        if id(segment) not in taught or not is_code(segment) or is_code(before):
            continue
        intro = (extract.split_sentences(before.text) or [""])[-1]
        section = source.section_of(segment.start, segment.end)
        goal = _intro_goal(intro)
        topic = re.sub(r"^[\d.]+\s+", "", section)
        lines = [line.strip() for line in segment.text.splitlines()
                 if len(_terms(line)) >= 2 and len(line.strip()) <= 70 and "://" not in line]
        if not goal or not lines:  # "an example of <section>" is too vague to be fair: which block?
            continue
        line = min(lines, key=lambda s: (sum(frequency[t] for t in _terms(s)) / len(_terms(s)), s))
        answer = " ".join(line.split()[:6])
        where = f" ({topic})" if topic and not contains(goal, topic) else ""
        question = f"What code do I write to {_learner(goal)}{where}?"
        yield Candidate("code", question, answer, segment, segment.text)


def _terms(line: str) -> set[str]:
    return {t for t in re.findall(r"\w+", line.lower()) if len(t) >= 3}


def _intro_goal(sentence: str) -> str:
    """The goal an introducing sentence states ("To create the table, run:" → "create the
    table"; "Add a function that closes the connection:" → "add a function that closes the
    connection"), or '' when it names none ("For example:")."""
    from tutorialbook.skills.code_text import looks_like_code

    s = _clean(sentence).rstrip(" :.")
    if looks_like_code(s) or re.match(r"^[A-Z]{2,}\b", s):  # code read as prose ("SELECT EXTRACT(…)", "SET
        return ""                                               # CONNECTION — …"): a verb in capitals is a keyword
    m = re.match(r"^(?:in order )?to ([^,]{6,90}),", s, re.I)
    if m:
        return m.group(1)
    s = re.sub(r"^(?:(?:now|next|then|first|finally|here|so)[, ]+)+", "", s, flags=re.I)
    s = re.sub(r"^(?:you|we) (?:can|will|should|need to|have to|must|'ll)\s+", "", s, flags=re.I)
    s = re.sub(r"\b(?:the following|below|this|these)\s+(?:code|lines?|snippet|commands?|example)\b", "the code", s,
               flags=re.I)
    words = re.findall(r"[a-z']+", s.lower())
    if len(key_words(s)) < 2 or not words or words[0] not in extract.IMPERATIVE_VERBS:
        return ""
    return s[:1].lower() + s[1:]


def _fair(generator):
    """Only the questions that do not hold their own answer."""
    def asked(source: HarvestSource) -> Iterable[Candidate]:
        return (c for c in generator(source) if not contains(c.question, c.answer))
    asked.__name__ = generator.__name__
    return asked


LEARNER_GENERATORS = [_fair(g) for g in (how_questions, what_questions, why_questions, behaviour_questions,
                                         code_questions)]
