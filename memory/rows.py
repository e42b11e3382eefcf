"""The rows of the store's tables, built and read in one place.

A skill's searchable text, the text its vector is made from, a node's search text, how a JSON
column is written and read back: each is one function here, so that consolidation, refinement,
lessons, recovery and the Agent Skills import cannot drift apart (a skill re-embedded from
other text than it was built from ranks differently after a repair)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Collection
from datetime import datetime, timezone
from typing import Any, TypedDict

import numpy as np


class SkillRow(TypedDict, total=False):
    """A row of ``skills``. ``steps`` and ``evidence`` are JSON lists (:func:`steps_of`, :func:`evidence_of`)."""

    id: str
    book: str
    node_id: str
    name: str
    when_to_use: str
    steps: str
    evidence: str
    sources: int
    helpful: int
    harmful: int
    version: int
    author: str
    origin: str
    text: str
    created_at: float
    updated_at: float
    vector: list[float]


class NodeRow(TypedDict, total=False):
    """A row of ``nodes`` (a TOC node); ``evidence`` is a JSON list."""

    id: str
    book: str
    parent_id: str
    position: int
    title: str
    summary: str
    kind: str
    evidence: str
    origin: str
    version: int
    text: str
    updated_at: float
    vector: list[float]


class LessonRow(TypedDict, total=False):
    id: str
    book: str
    text: str
    outcome: str
    context: str
    skill_id: str
    node_id: str
    agent: str
    key: str
    merged_count: int
    created_at: float
    updated_at: float
    vector: list[float]


class SegmentRow(TypedDict, total=False):
    id: str
    book: str
    tutorial_id: str
    idx: int
    start: float
    end: float
    text: str
    vector: list[float]


# -- JSON columns ---------------------------------------------------------------------------
def encode(value: Any) -> str:
    """A JSON column as the tables store steps and evidence."""
    return json.dumps(value)


def dumps(value: Any) -> str:
    """Compact JSON (history details, model lists): what is written once and read rarely."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def decode(value: str | None, empty: str = "[]") -> Any:
    """A JSON column read back; an empty cell is the empty list (or ``empty``)."""
    return json.loads(value or empty)


def encode_steps(steps: list[str], code: Collection[int] = ()) -> str:
    """Steps as the skills table stores them: a step that is a code block as ``{"code": text}``
    (shown as typed: SKILL.md fences it, one line or many), the rest as their text."""
    return encode([{"code": step} if n in code else step for n, step in enumerate(steps)])


def steps_of(row: dict) -> list[str]:
    """A skill's steps as text, code or not."""
    return [step["code"] if isinstance(step, dict) else step for step in decode(row["steps"])]


def code_steps_of(row: dict) -> list[int]:
    """Which of a skill's steps are code blocks (``encode_steps``)."""
    return [n for n, step in enumerate(decode(row["steps"])) if isinstance(step, dict)]


def evidence_of(row: dict) -> list[dict]:
    return decode(row["evidence"])


def detail_of(row: dict) -> dict:
    return decode(row["detail"], "{}")


def tutorials_cited(row: dict) -> set[str]:
    """The tutorials a skill's or node's evidence comes from."""
    return {e["tutorial_id"] for e in evidence_of(row)}


def clean(row: dict, keep: tuple[str, ...] = ()) -> dict:
    """A row without private keys (the store's ``_distance``/``_rowid``, a builder's ``_status``)."""
    return {k: v for k, v in row.items() if not k.startswith("_") or k in keep}


# -- texts ------------------------------------------------------------------------------------
def norm(text: str) -> str:
    """A name or sentence compared loosely: lowercase words and digits, single spaces."""
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def skill_text(name: str, when: str, steps: list[str]) -> str:
    """A skill's searchable text (its row's ``text``, what BM25 ranks)."""
    return f"{name}. {when}. " + " ".join(steps)


def skill_vector_text(name: str, steps: list[str]) -> str:
    """What a skill's vector is made from: its name and steps."""
    return name + ". " + " ".join(steps)


def passage_vector_text(steps: list[str]) -> str:
    """What a passage-sized skill's vector is made from: its own words."""
    return "\n".join(steps)


def node_text(title: str, summary: str, skill_names: list[str]) -> str:
    """A node's search text: its title, summary and (up to 30) skills' names."""
    return f"{title}. {summary} " + "; ".join(skill_names[:30])


# -- rows ---------------------------------------------------------------------------------------
def skill_row(*, id: str, book: str, node_id: str, name: str, when_to_use: str, steps: list[str],
              evidence: list[dict], author: str, origin: str, text: str | None = None,
              vector: np.ndarray | list[float] | None = None, helpful: int = 0, harmful: int = 0,
              now: float | None = None, code: Collection[int] = ()) -> SkillRow:
    """A new skill at version 1 (``text`` defaults to :func:`skill_text`)."""
    now = time.time() if now is None else now
    row: SkillRow = {
        "id": id, "book": book, "node_id": node_id, "name": name, "when_to_use": when_to_use,
        "steps": encode_steps(steps, code), "evidence": encode(evidence),
        "sources": len({e["tutorial_id"] for e in evidence}),
        "helpful": helpful, "harmful": harmful, "version": 1, "author": author, "origin": origin,
        "text": skill_text(name, when_to_use, steps) if text is None else text,
        "created_at": now, "updated_at": now,
    }
    if vector is not None:
        row["vector"] = vector.tolist() if isinstance(vector, np.ndarray) else vector
    return row


def node_row(*, id: str, book: str, parent_id: str, position: int, title: str, summary: str, kind: str,
             evidence: list[dict], origin: str, now: float | None = None) -> NodeRow:
    """A new TOC node at version 1 (its text and vector come when its skills are known)."""
    return {"id": id, "book": book, "parent_id": parent_id, "position": position, "title": title,
            "summary": summary, "kind": kind, "evidence": encode(evidence), "origin": origin, "version": 1,
            "updated_at": time.time() if now is None else now}


def root_row(*, id: str, book: str, title: str, vector) -> NodeRow:
    """A book's root node."""
    return {"id": id, "book": book, "parent_id": "", "position": 0, "title": title,
            "summary": f"Everything the tutorials of {book!r} teach.", "kind": "book", "evidence": "[]",
            "version": 1, "text": title, "updated_at": time.time(), "vector": vector}


def segment_rows(book: str, tutorial_id: str, segments, vectors) -> list[SegmentRow]:
    """A transcript's segments (anything with start, end and text), each with its vector."""
    return [{"id": f"{tutorial_id}:{i}", "book": book, "tutorial_id": tutorial_id, "idx": i,
             "start": s.start, "end": s.end, "text": s.text, "vector": vectors[i]}
            for i, s in enumerate(segments)]


def screen_rows(book: str, tutorial_id: str, shown) -> list[dict]:
    """What the frames showed (start, end, kind, text each), by time."""
    return [{"id": f"{tutorial_id}:s{i}", "book": book, "tutorial_id": tutorial_id, "idx": i, "start": s.start,
             "end": s.end, "kind": s.kind, "shown": s.text, "text": s.text}
            for i, s in enumerate(shown)]


def lesson_row(*, id: str, book: str, text: str, outcome: str, context: str, skill_id: str, node_id: str,
               agent: str, key: str, vector, now: float) -> LessonRow:
    """A new lesson, counted once."""
    return {"id": id, "book": book, "text": text, "outcome": outcome, "context": context, "skill_id": skill_id,
            "node_id": node_id, "agent": agent, "key": key, "merged_count": 1, "created_at": now,
            "updated_at": now, "vector": vector.tolist() if isinstance(vector, np.ndarray) else vector}


def iso(at: float) -> str:
    """Epoch seconds as UTC ISO 8601, to the millisecond."""
    return datetime.fromtimestamp(at, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def image(row: dict) -> dict:
    """A row as stored (no search columns), JSON-safe: a before-image."""
    out = {}
    for key, value in row.items():
        if key.startswith("_"):
            continue
        if key == "vector" and value is not None:
            value = [float(x) for x in value]
        out[key] = value
    return out
