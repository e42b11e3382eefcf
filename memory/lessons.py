"""Lessons agents write back, and helpful/harmful feedback on skills.

Only an identical lesson (same normalised text on the same target) is merged and counted:
the lesson id is derived from that key, so two processes writing it at once still make
one row. A merely similar lesson is stored and the similar ones are returned to the
writer, because similarity alone cannot tell a rewrite from a neighbour.
"""

from __future__ import annotations

import hashlib
import re
import time

import numpy as np

from tutorialbook.memory.store import Store, quote

SIMILAR = 0.80
MAX_LESSON_CHARS = 4000
OUTCOMES = ("success", "failure", "partial", "note")


def normalise(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def lesson_id(book: str, target: str, text: str) -> str:
    return "l_" + hashlib.sha256(f"{book}\n{target}\n{normalise(text)}".encode()).hexdigest()[:16]


def record(store: Store, *, book: str, text: str, outcome: str, context: str, skill_id: str,
           node_id: str, agent: str, vector: np.ndarray) -> tuple[dict, bool, list[dict]]:
    """Store or count a lesson; returns (row, merged, similar rows)."""
    target = f"skill:{skill_id}" if skill_id else f"node:{node_id}"
    row_id = lesson_id(book, target, text)
    now = time.time()
    similar = [
        r for r in (
            store.table("lessons").search(vector.tolist()).distance_type("cosine")
            .where(f"book = {quote(book)} AND id != {quote(row_id)}", prefilter=True).limit(5).to_list()
        )
        if 1 - r["_distance"] >= SIMILAR
    ]
    row = {
        "id": row_id, "book": book, "text": text.strip(), "outcome": outcome, "context": context,
        "skill_id": skill_id, "node_id": node_id, "agent": agent, "key": target,
        "merged_count": 1, "created_at": now, "updated_at": now, "vector": vector.tolist(),
    }
    inserted = store.insert_if_absent("lessons", [row])
    if not inserted:
        store.update_sql("lessons", f"id = {quote(row_id)}",
                         {"merged_count": "merged_count + 1", "updated_at": repr(now)})
        row = store.get("lessons", row_id)
    return row, not inserted, similar


def give_feedback(store: Store, skill_id: str, verdict: str) -> None:
    column = "helpful" if verdict == "helpful" else "harmful"
    store.update_sql("skills", f"id = {quote(skill_id)}", {column: f"{column} + 1"})
