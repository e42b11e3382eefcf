"""Finding skills: keyword (BM25), vector, hybrid (both fused with RRF), and TOC descent.

The TOC descent walks the book's tree from the root, scoring each child by how well its
own text and the skills in its subtree match the query, keeps a beam of the best
branches, and returns the route so an agent can see (and question) the path taken.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np
from lancedb.rerankers import RRFReranker

from tutorialbook.memory import indexing
from tutorialbook.memory.store import Store, in_list, quote
from tutorialbook.memory.tree import Tree
from tutorialbook.models import RouteStep

MODES = ("toc", "hybrid", "keyword", "vector")
BEAM = 2
RRF_K = 60


@dataclass
class Hit:
    row: dict
    score: float


def search(store: Store, table: str, book: str, query: str, vector: np.ndarray | None,
           mode: str, limit: int, where: str | None = None) -> list[Hit]:
    """Rows of ``table`` in ``book`` ranked for the query; scores are higher-is-better."""
    tbl = store.table(table)
    if tbl.count_rows() == 0:  # e.g. no lessons yet: a hybrid query costs ms even on nothing
        return []
    scope = f"book = {quote(book)}" + (f" AND ({where})" if where else "")
    if mode == "keyword":
        rows = tbl.search(query, query_type="fts").where(scope, prefilter=True).limit(limit).to_list()
        return [Hit(r, float(r["_score"])) for r in rows]
    if mode == "vector":
        q = tbl.search(vector.tolist(), query_type="vector").distance_type("cosine")
        rows = indexing.tune(q, store, table).where(scope, prefilter=True).limit(limit).to_list()
        return [Hit(r, 1.0 - float(r["_distance"])) for r in rows]
    q = tbl.search(query_type="hybrid").vector(vector.tolist()).text(query).distance_type("cosine")
    rows = (
        indexing.tune(q, store, table).where(scope, prefilter=True)
        .rerank(RRFReranker(K=RRF_K)).limit(limit).to_list()
    )
    return [Hit(r, float(r["_relevance_score"])) for r in rows]


def toc_descent(store: Store, tree: Tree, query: str, vector: np.ndarray, k: int
                ) -> tuple[list[Hit], list[RouteStep]]:
    """Descend the tree with a beam; return the skills under the chosen branches."""
    skill_hits = search(store, "skills", tree.book, query, vector, "hybrid", max(50, 5 * k))
    node_hits = search(store, "nodes", tree.book, query, vector, "hybrid", 50)
    own = {h.row["id"]: h.score for h in node_hits}
    by_node: dict[str, float] = defaultdict(float)
    for hit in skill_hits:
        by_node[hit.row["node_id"]] = max(by_node[hit.row["node_id"]], hit.score)
    subtree_score: dict[str, float] = {}

    def score(node_id: str) -> float:
        """A branch is as good as its best match: its own text plus its best skill, or the
        best of its children — a big chapter does not win by size alone."""
        if node_id not in subtree_score:
            here = own.get(node_id, 0.0) + by_node.get(node_id, 0.0)
            below = [score(c) for c in tree.children.get(node_id, [])]
            subtree_score[node_id] = max([here, *below])
        return subtree_score[node_id]

    route: list[RouteStep] = []
    frontier = [tree.root_id]
    chosen_nodes: list[str] = []
    depth = 0
    while frontier:
        depth += 1
        candidates = [c for f in frontier for c in tree.children.get(f, [])]
        leaves = [f for f in frontier if not tree.children.get(f)]
        chosen_nodes.extend(leaves)
        if not candidates:
            break
        ranked = sorted(candidates, key=score, reverse=True)
        keep = [c for c in ranked[:BEAM] if score(c) > 0] or ranked[:1]
        for c in ranked:
            node = tree.nodes[c]
            why = _reason(own.get(c, 0.0), by_node.get(c, 0.0), score(c))
            route.append(RouteStep(depth=depth, node_id=c, title=node["title"], score=round(score(c), 5),
                                   chosen=c in keep, reason=why))
        # a branch whose own skills match better than all its children stops here too
        for c in keep:
            if tree.children.get(c) and by_node.get(c, 0.0) > max(score(x) for x in tree.children[c]):
                chosen_nodes.append(c)
        frontier = keep
    allowed = {n for c in chosen_nodes for n in tree.subtree(c)} if chosen_nodes else set(tree.nodes)
    ranked_hits = [h for h in skill_hits if h.row["node_id"] in allowed]
    if len(ranked_hits) < k:
        ranked_hits += _fill(store, tree, allowed, vector, {h.row["id"] for h in ranked_hits}, k - len(ranked_hits))
    return ranked_hits[:k], route


def _fill(store: Store, tree: Tree, allowed: set[str], vector, seen: set[str], n: int) -> list[Hit]:
    """Skills of the chosen branches that the global search did not rank: order by cosine."""
    if not allowed:
        return []
    q = store.table("skills").search(vector.tolist()).distance_type("cosine")
    rows = (indexing.tune(q, store, "skills")
            .where(f"book = {quote(tree.book)} AND {in_list('node_id', allowed)}", prefilter=True)
            .limit(n + len(seen)).to_list())
    return [Hit(r, (1.0 - float(r["_distance"])) / RRF_K) for r in rows if r["id"] not in seen][:n]


def _reason(own: float, skills: float, total: float) -> str:
    if total <= 0:
        return "no match in this branch"
    parts = []
    if own > 0:
        parts.append("its title/summary matches")
    if skills > 0:
        parts.append("skills here match")
    if total > own + skills:
        parts.append("a branch below matches")
    return ", ".join(parts)
