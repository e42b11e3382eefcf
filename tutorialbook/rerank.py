"""Late interaction: the first few skills of a ranking put in order by how well each word of the
query finds its closest match in the skill's text.

A skill's vector is the mean of its tokens' vectors, so a question about one detail of a
passage scores about as high against that passage as against its neighbour on the same topic:
the answer sits in the passage ranked second as often as first. Matching word by word (MaxSim,
as ColBERT scores: for each of the query's content words the cosine of its nearest token in
the skill's text, averaged) tells them apart, with the same MiniLM and no other model. It runs
on the best ``TOP`` of a ranking only, at ``TOP`` short model runs a query: the answer the
search ranks sixth to tenth is brought into a top 5 when its words match (session 44: over
nine real documents, hit@5 +6 / +11 / +15 of 296 in hybrid / toc / vector, hit@1 unchanged,
~1.5x a query's time when no token vectors are cached; 15 gained nothing more). Measured in
``bench/learning.py --real``: the weight chosen on the two development documents (r-intro,
Flask), then the held-out ones printed. A skill is matched with its
section's title before its text: the author's heading says what the passage is about in the
words a question uses, and a passage seldom repeats it (README, session 32: +10 first hits over
19 real documents, 10 better and 1 worse; even on six documents measured afterwards).
Once the first is found, the others of its section rank a little higher (``SECTION``): where
the answer is not the passage the question's words match best, it is most often a neighbour
in the same section (session 45: hit@5 +3 / +2 / +3 of 296 over nine real documents in hybrid /
toc / vector, the first hit unchanged; a cap on how many of the five one section may place lost
up to 22).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from tutorialbook.memory.rows import skill_text, steps_of
from tutorialbook.memory.search import Hit

#: how many of a ranking's first skills are re-ordered (a top 5 may take in the sixth to the tenth)
TOP = 10
#: what the word-by-word match (0-1) weighs against the ranking's own score
WEIGHT = 3.0
#: what sharing the first skill's section adds to another's score (the first and tenth of a ranking
#: part by ~1.2 after the match is added): 0.1 to 0.4 gained alike; 0.2, the least at which both
#: development documents gain most (r-intro +1, Flask the same), measured on all nine
SECTION = 0.2
#: the words of a question that only hold it together: articles, prepositions, auxiliaries,
#: pronouns, question words. Every other word is matched, "first", "make" or "not" included
#: (``skills/extract.py``'s wider list, which drops those too, gave the same on the development
#: documents and 1-2 fewer first hits on two held-out ones)
FUNCTION_WORDS = frozenset(
    """a an the of to in on for and or is are be do does did i my me how what why when which can
    should with it this that from by as at if you your""".split()
)
#: the columns a hit's row needs for its text (``node_id``: its section's title)
COLUMNS = ["name", "when_to_use", "steps", "node_id"]

TokenVectors = Callable[[list[str]], list[tuple[np.ndarray, list[str]]]]


def rerank(query: str, hits: list[Hit], tokens: TokenVectors,
           title_of: Callable[[str], str] = lambda node_id: "") -> list[Hit]:
    """``hits`` with the first ``TOP`` re-scored (their score plus ``WEIGHT`` times the match, and
    ``SECTION`` for sharing the new first's section) and re-ordered, ties by id; the rest as they
    were. The query's content words are its WordPiece tokens that are words outside
    ``FUNCTION_WORDS``, and the pieces that continue a word; a query of function words alone
    leaves the ranking as it is. ``title_of`` gives the title of
    a skill's node (its section), matched with the skill's text."""
    head = hits[:TOP]
    if len(head) < 2:
        return hits
    vectors = tokens([query, *(row_text(h.row, title_of(h.row.get("node_id", ""))) for h in head)])
    query_vectors, query_tokens = vectors[0]
    content = [i for i, t in enumerate(query_tokens)
               if t.startswith("##") or (t.isalnum() and t not in FUNCTION_WORDS)]
    if not content:
        return hits
    words = query_vectors[content].astype(np.float32)
    scored = [Hit(h.row, h.score + WEIGHT * _maxsim(words, skill)) for h, (skill, _) in zip(head, vectors[1:])]
    first, *rest = sorted(scored, key=lambda h: (-h.score, h.row["id"]))
    section = first.row.get("node_id")
    rest = [Hit(h.row, h.score + SECTION) if section and h.row.get("node_id") == section else h for h in rest]
    return [first, *sorted(rest, key=lambda h: (-h.score, h.row["id"]))] + hits[TOP:]


def row_text(row: dict, title: str = "") -> str:
    """The text a skill is matched on: its section's title, its name, when to use it and its steps."""
    text = skill_text(row["name"], row["when_to_use"], steps_of(row))
    return f"{title}. {text}" if title else text


def _maxsim(words: np.ndarray, skill: np.ndarray) -> float:
    """The mean over the query's words of each one's best cosine among the skill's tokens (a
    skill's text is never empty: ``skill_text`` joins its parts with full stops)."""
    return float((words @ skill.astype(np.float32).T).max(axis=1).mean())
