"""Passages: the unit of knowledge a general tutorial becomes.

Every block of a section (a paragraph, a list, a code block with the prose that introduces it,
or a stretch of narration) belongs to one passage, and every passage that teaches something
becomes a skill carrying the whole passage: an agent that reads one skill reads what the
author wrote there, not one sentence cut out of it. Passages are kept near ``WORDS`` words so
a skill costs about what a retrieved chunk costs; a paragraph is split only when it is far
longer, at sentence ends.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from tutorialbook.acquire.transcript import Segment
from tutorialbook.skills.extract import SkillDraft, is_instructive, sentence_case, split_sentences

#: target words per passage; a block never joins a passage it would take past MAX_WORDS
WORDS = 55
MAX_WORDS = 110

_BOILERPLATE = re.compile(
    # a copyright notice ("Copyright (C) 2015 …", "© 2024 …"), not prose about copyright ("the copyright file")
    r"(?:\bcopyright\b:?\s*(?:©|\(c\))?\s*\d{4}|©|\(c\) ?\d{4}|\ball rights reserved\b"
    r"|\bpermission is (?:hereby )?granted\b"
    r"|\blicen[cs]ed? under\b|\bgnu (?:general|free|lesser) (?:public|documentation) licen[cs]e\b"
    r"|\bthis (?:program|library|manual|document) is free software\b|\bwithout any warranty\b"
    r"|\bsubscribe\b|\bthanks? (?:you )?for (?:watching|listening|reading)\b|\bsee you (?:next time|soon|in the next)\b"
    r"|\b(?:hi|hello|hey) (?:everyone|everybody|guys|there|folks)\b"
    r"|\bwelcome (?:back )?to (?:my|this|the|our) (?:channel|video|tutorial)\b"
    r"|\bin this (?:short |quick |little )?(?:video|episode|tutorial|lesson)\b,? "
    r"(?:i|we)(?:'ll| will| am going| are going)\b"
    r"|\blike and subscribe\b|\bsmash (?:that|the) like\b|^\W*welcome (?:back )?to\b)",
    re.I,
)
_NAV = re.compile(r"^(?:next|previous|prev|up|contents|index|home|top)\s*[:»›→]", re.I)
_ITEM = re.compile(r"^(?:[-*+•]|\d+[.)])\s+")
_WORD = re.compile(r"[A-Za-z0-9]+(?:['’][a-z]+)?")


@dataclass
class Passage:
    """Consecutive blocks of one section: segment indexes and, for a split paragraph, the part kept."""

    indexes: list[int]
    text: str
    start: float
    end: float
    blocks: list[tuple[str, str]] = field(default_factory=list)
    """(kind, text) of each block, in order: what the skill's steps are made of."""


def words(text: str) -> int:
    return len(text.split())


def is_boilerplate(text: str, headings: frozenset[str] = frozenset()) -> bool:
    """Material that teaches nothing: licences and copyright lines, greetings and sign-offs,
    navigation, and lists that only repeat the document's headings (a table of contents) or
    are runs of one- or two-word entries (an index), and speech recognition caught in a loop
    (the same few words over and over, which no speaker says)."""
    lines = [line.strip(" -*•\t") for line in text.splitlines() if line.strip(" -*•\t")]
    if not lines:
        return True
    if is_repetition_loop(text):
        return True
    short = words(text) <= 60
    if _BOILERPLATE.search(text) and (short or len(_BOILERPLATE.findall(text)) >= 2):
        return True
    if all(_NAV.match(line) for line in lines):
        return True
    if len(lines) >= 4:
        if headings and sum(_key(line) in headings for line in lines) >= 0.6 * len(lines):
            return True
        if sum(words(line) <= 2 for line in lines) >= 0.8 * len(lines) and not _looks_like_code(text):
            return True
    return False


def teaches(passage: Passage, headings: frozenset[str] = frozenset()) -> bool:
    """Whether a passage is worth a skill: judged on its prose (``is_boilerplate``), never on the
    code blocks it holds — an example of a licence file or a config of short lines teaches."""
    if not any(kind == "code" for kind, _ in passage.blocks):
        return not is_boilerplate(passage.text, headings)
    prose = "\n".join(text for kind, text in passage.blocks if kind != "code")
    return not prose.strip() or not is_boilerplate(prose, headings)


#: a stretch this long whose distinct words are this small a share of it is a decoding loop
LOOP_WORDS = 20
LOOP_DISTINCT = 0.1


#: a word or a phrase of up to three words said ten times running, as only a decoding loop says it
_LOOP_RUN = re.compile(r"\b(\w+(?:\W{1,3}\w+){0,2})(?:\W{1,3}\1\b){9,}\W*", re.I)


def is_repetition_loop(text: str) -> bool:
    """Whisper sometimes repeats a token until its window ends ("f, f, f, f, …"); what comes out
    teaches nothing. Real prose, lists and code of that length repeat far less: one distinct
    word in ten is a loop (code and numbers are compared as they are written)."""
    tokens = [t.lower() for t in _WORD.findall(text)]
    return len(tokens) >= LOOP_WORDS and len(set(tokens)) <= LOOP_DISTINCT * len(tokens)


def without_boilerplate(segments: list[Segment], indexes: list[int],
                        headings: frozenset[str] = frozenset()) -> dict[int, Segment]:
    """The segments of ``indexes`` that teach something, by index: a boilerplate segment goes,
    and a narrated one keeps its sentences but the greeting or sign-off said in the same breath
    ("Welcome to this lesson on … First, shift the chain …"); a code block stays whole. Spans
    stay the segment's."""
    kept: dict[int, Segment] = {}
    for i in indexes:
        seg = segments[i]
        if seg.kind == "code":  # a block the document marks as code is an example, whatever it holds
            kept[i] = seg       # (a YAML file of short lines, a copyright file's template)
            continue
        looped = _LOOP_RUN.sub("", seg.text)  # a decoding loop said in the same breath goes too
        if looped != seg.text:
            seg = replace(seg, text=" ".join(looped.split()))
        if is_boilerplate(seg.text, headings):
            sentences = split_sentences(seg.text)
            rest = [s for s in sentences if not is_boilerplate(s, headings)]
            if len(sentences) < 2 or not rest:
                continue
            seg = replace(seg, text=" ".join(rest))
        kept[i] = seg
    return kept


def _key(text: str) -> str:
    return " ".join(_WORD.findall(re.sub(r"^[\d.]+\s+", "", text).lower()))


def heading_keys(titles: list[str]) -> frozenset[str]:
    return frozenset(_key(t) for t in titles if _key(t))


def _looks_like_code(text: str) -> bool:
    return sum(ch in "{}();=<>[]$#/\\" for ch in text) > 0.05 * max(1, len(text))


def group(segments: list[Segment] | dict[int, Segment], indexes: list[int],
          kinds: list[str] | None = None) -> list[Passage]:
    """Consecutive segments of one section into passages of about ``WORDS`` words: a code block
    stays with the prose before it (which usually introduces it, ending in ':'), a short block
    joins its neighbour, and a paragraph or a list far over ``MAX_WORDS`` is cut at sentence
    ends or between its items."""
    out: list[Passage] = []
    current: list[int] = []
    size = 0

    def flush() -> None:
        nonlocal current, size
        if current:
            first, last = segments[current[0]], segments[current[-1]]
            text = "\n".join(segments[i].text.strip() for i in current)
            blocks = [(getattr(segments[i], "kind", "text"), segments[i].text.strip()) for i in current]
            out.append(Passage(current, text, first.start, last.end, blocks))
        current, size = [], 0

    for n, i in enumerate(indexes):
        seg = segments[i]
        kind = kinds[n] if kinds else getattr(seg, "kind", "text")
        w = words(seg.text)
        if w > MAX_WORDS and kind not in ("code", "list", "table"):
            flush()
            out.extend(_split(seg, i))
            continue
        if w > MAX_WORDS and kind == "list" and len(_top_items(seg.text)) > 1:
            runs = _split_list(seg, i)
            if current and segments[current[-1]].text.rstrip().endswith(":"):  # the sentence introducing it
                flush()
                lead = out.pop()
                runs[0] = Passage(lead.indexes + [i], lead.text + "\n" + runs[0].text, lead.start, runs[0].end,
                                  lead.blocks + runs[0].blocks)
            flush()
            out.extend(runs)
            continue
        introduced = bool(current) and (kind == "code" or segments[current[-1]].text.rstrip().endswith(":"))
        if current and size + w > (MAX_WORDS if introduced else WORDS) and not (introduced and size < WORDS):
            flush()
        current.append(i)
        size += w
    flush()
    return out


def _top_items(text: str) -> list[str]:
    """A list block's top-level items (the readers write one a line), each with its nested
    lines (indented under it)."""
    items: list[str] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        if items and line[:1].isspace():
            items[-1] += "\n" + line
        else:
            items.append(line)
    return items


def _split_list(seg: Segment, index: int) -> list[Passage]:
    """A long list as runs of whole items of about ``WORDS`` words (an item keeps what is nested
    in it), each with its own span interpolated over the segment: one embedding of a page of
    steps matches none of them well, and a reader asking about one step gets the steps around
    it, not the page."""
    runs: list[list[str]] = [[]]
    for item in _top_items(seg.text):
        if runs[-1] and words("\n".join(runs[-1])) + words(item) > WORDS:
            runs.append([])
        runs[-1].append(item)
    return _spans(seg, index, [("\n".join(run), run[0]) for run in runs], "list")


def _split(seg: Segment, index: int) -> list[Passage]:
    """A long paragraph as runs of whole sentences of about ``WORDS`` words, each with its own
    span (offsets or times interpolated over the segment)."""
    sentences = split_sentences(seg.text) or [seg.text]
    runs: list[list[str]] = [[]]
    for sentence in sentences:
        if runs[-1] and words(" ".join(runs[-1])) + words(sentence) > WORDS:
            runs.append([])
        runs[-1].append(sentence)
    return _spans(seg, index, [(" ".join(run), run[0]) for run in runs], "paragraph")


def _spans(seg: Segment, index: int, parts: list[tuple[str, str]], kind: str) -> list[Passage]:
    """Consecutive parts of one segment's text, each (its text, its first sentence or item as
    written in the segment), as passages with their own spans (offsets or times interpolated
    over the segment)."""
    total = max(1, len(seg.text))
    out, at = [], 0
    for text, first in parts:
        found = seg.text.find(first, at)
        begin = found if found >= 0 else at
        at = begin + len(text)
        span = seg.end - seg.start
        out.append(Passage([index], text, seg.start + span * begin / total,
                           seg.start + span * min(at, total) / total, [(kind, text)]))
    return out


def step_name(text: str, sentences: list[str] | None = None) -> str:
    """A passage's name: its first instruction as the author wrote it (when short enough to be a
    name), else a title phrase from its opening. ``sentences``: the ones to look in (default:
    the text's)."""
    from tutorialbook.skills.extract import name_from

    for sentence in [s for s in (split_sentences(text) if sentences is None else sentences) if words(s) >= 3][:4]:
        if is_instructive(sentence) and len(sentence) <= 100:
            return name_from(sentence)
    return title_phrase(text)


def title_phrase(text: str, limit: int = 8) -> str:
    """A short title taken from a passage itself, in its author's words: its first instruction
    when it gives one, else the opening of its first sentence, cut at a clause boundary. Words
    that only link the sentence to the one before ("For example,", "Note that", "Thus") are not
    a title, and a clause of fewer than ``MIN_TITLE_WORDS`` words runs on into the next."""
    sentences = [s for s in split_sentences(text) if words(s) >= 3] or [text]
    chosen = next((s for s in sentences[:4] if is_instructive(s)), sentences[0])
    unlinked = _LINKING.sub("", chosen.strip())
    # "Here is what the view does": a word the sentence stands on (its subject) stays
    chosen = chosen.strip() if _BE.match(unlinked) else unlinked
    ends = [m.start() for m in _CLAUSE_END.finditer(chosen)] + [len(chosen)]
    # the first clause end with enough words before it: a shorter clause runs on into the next
    cut = next(e for e in ends if words(chosen[:e]) >= MIN_TITLE_WORDS or e == len(chosen))
    tokens = chosen[:cut].split()
    if len(tokens) > limit:
        tokens = tokens[:limit]
        while tokens and tokens[-1].lower().strip(".,") in _WEAK_END:
            tokens.pop()
    phrase = " ".join(tokens).strip(" .,:;!?\"'")
    return sentence_case(phrase) or "Untitled"


#: a title names something: shorter clauses run on into the next one
MIN_TITLE_WORDS = 3
#: words that open a sentence by tying it to what came before, not by saying what it is about
_LINKING = re.compile(
    r"^(?:(?:so|and|but|now|okay|ok|well|then|first|next|finally|also|thus|hence|therefore|however|namely"
    r"|for (?:example|instance)|e\.g\.|i\.e\.|that is|in (?:other words|addition|fact|this case|particular)"
    r"|similarly|likewise|of course|here|basically|actually|as you can see|(?:note|notice|remember) that)"
    r"[,:]?\s+)+",
    re.I,
)
#: a form of "to be" that opens what is left once the linking words are gone: they were its subject
_BE = re.compile(r"^(?:is|are|was|were|will be|has been)\b", re.I)
#: where a clause ends; an unsure word's mark (the transcript's ``(?)``) is part of its word
_CLAUSE_END = re.compile(r"(?<=\w)(?:[,;:]|\((?!\?\))| - | – | — |\s(?:which|because|so that|where|although|but)\s)")


_WEAK_END = frozenset(
    "a an the and or of to in on at by for with from into as is are be that this its your their".split()
)


def _items(lines: list[str]) -> list[str]:
    """List items, each with its wrapped continuation lines."""
    items: list[str] = []
    for line in lines:
        if _ITEM.match(line) or not items:
            items.append(_ITEM.sub("", line))
        else:
            items[-1] += " " + line
    return items


def draft(passage: Passage, context: str) -> SkillDraft:
    """The skill a passage becomes: named by its first instruction or opening words, its steps
    the passage's blocks and sentences (code blocks whole), its evidence the whole passage.
    ``context`` (the section's title path) is searched with it."""
    steps: list[str] = []
    for kind, block in passage.blocks or [("text", passage.text)]:
        lines = [line.strip() for line in block.splitlines() if line.strip()]
        if kind == "code":
            steps.append(block)
        elif kind == "list" or len(lines) > 1 and all(_ITEM.match(line) for line in lines[1:]):
            head = [] if _ITEM.match(lines[0]) else [lines.pop(0)]
            steps += head + _items(lines)
        else:
            steps.append(" ".join(lines))
    # named by its prose, each block's sentences apart: a line of the code it holds ("- run: make
    # install") is no name while the author's words introduce it
    prose = [text for kind, text in passage.blocks if kind != "code" and text.strip()] or [passage.text]
    name = step_name(prose[0], [s for text in prose for s in split_sentences(text)])
    when = ""
    first = split_sentences(passage.text)[:1]
    lead = re.match(r"^((?:if|when|whenever|before|after|once|to)\b[^,]{3,70}),", first[0], re.I) if first else None
    if lead:
        when = lead.group(1)
    # the steps carry the whole passage; the quote only shows where it starts
    quote = passage.text if words(passage.text) <= 20 else " ".join(passage.text.split()[:14])
    search = f"{context}: {passage.text}" if context else passage.text
    return SkillDraft(name, when, steps, quote, list(passage.indexes), search, (passage.start, passage.end))
