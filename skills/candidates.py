"""Which existing nodes a new tutorial's chapter (or section) might merge into, found through
the store's indexes instead of by reading every sibling.

Consolidation compares a new node's content (the centroid of its segments) with each
sibling's stored content, which costs one read of that sibling's segments. Under the book's
root the siblings are every chapter, so that cost grew with the book: at 15 tutorials the
siblings' reads were a fifth of consolidation, and every one of them was rewritten too. A
sibling whose content is close to the new node's has segments close to that centroid and a
title/summary vector close to it, so the candidates are

* the siblings with the same title (from the tree, in memory);
* the siblings whose tutorials own the segments nearest the centroid (one vector search on
  ``segments``; the tree's evidence says which nodes those tutorials built);
* the siblings nearest the centroid by their own vector (one vector search on ``nodes``).

Only those few are scored exactly. Few siblings (``ALL_BELOW``) are all scored, as before.
"""

from __future__ import annotations

import json
from typing import cast

import numpy as np

from tutorialbook.memory import where
from tutorialbook.memory.store import Store
from tutorialbook.memory.tree import Tree

#: with this many siblings or fewer every one is a candidate (reading them is cheap)
ALL_BELOW = 12
#: nearest segments and nodes looked at
SEGMENTS = 40
NODES = 8


def sibling_candidates(store: Store, tree: Tree, parent_id: str, title_key, title: str,
                       vector: np.ndarray) -> list[str]:
    """Ids of ``parent_id``'s children worth scoring against a new node titled ``title``
    (``title_key`` normalizes titles) whose content centroid is ``vector``."""
    siblings = tree.children.get(parent_id, [])
    stored = [s for s in siblings if s in tree.nodes]  # the build's own new nodes are not in the tree
    if len(siblings) <= ALL_BELOW or not stored:  # (a new node's children are all new: nothing to search)
        return list(siblings)
    wanted = set(siblings) - set(stored)
    key = title_key(title)
    wanted |= {s for s in stored if title_key(tree.nodes[s]["title"]) == key}
    tutorials = {r["tutorial_id"] for r in _nearest(store, "segments", vector, where.of_book(tree.book),
                                                    ["tutorial_id"], SEGMENTS)}
    if tutorials:
        for s in stored:
            if any(e["tutorial_id"] in tutorials for e in json.loads(tree.nodes[s]["evidence"] or "[]")):
                wanted.add(s)
    scope = where.both(where.of_book(tree.book), where.eq("parent_id", parent_id))
    wanted |= {r["id"] for r in _nearest(store, "nodes", vector, cast(str, scope), ["id"], NODES)}  # two clauses
    return [s for s in siblings if s in wanted]


def _nearest(store: Store, table: str, vector: np.ndarray, condition: str, columns: list[str],
             limit: int) -> list[dict]:
    query = (store.table(table).search(np.asarray(vector, dtype=np.float32).tolist()).metric("cosine")
             .where(condition, prefilter=True).select([*columns, "_distance"]).limit(limit))
    return query.to_list()
