"""The rules of lessons: limits, outcomes, and the identity that decides merging.

Only an identical lesson (same normalised text on the same target) is merged and counted:
its id is derived from that key. A merely similar lesson (cosine >= SIMILAR) is stored and
returned to the writer, because similarity alone cannot tell a rewrite from a neighbour.
"""

from __future__ import annotations

import hashlib
import re


SIMILAR = 0.80
OUTCOMES = ("success", "failure", "partial", "note")


def normalise(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def lesson_id(book: str, target: str, text: str) -> str:
    return "l_" + hashlib.sha256(f"{book}\n{target}\n{normalise(text)}".encode()).hexdigest()[:16]
