"""Whether a text reads as code: a light test (no model, no numpy) that SKILL.md rendering, the
passage grouping and the exam share."""

from __future__ import annotations


def looks_like_code(text: str) -> bool:
    """Code's punctuation ({}();=<>[]$#/\\) makes more than 5% of the text's characters."""
    return sum(ch in "{}();=<>[]$#/\\" for ch in text) > 0.05 * max(1, len(text))
