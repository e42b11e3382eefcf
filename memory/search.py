"""Finding skills: keyword (BM25), vector, hybrid (both fused linearly), and TOC descent.

A hybrid search runs its two halves itself, on LanceDB's event loop, rather than through
LanceDB's hybrid query: the full-text half starts while the query is still being embedded, each
half reads only the columns asked for, and each returns a pool of ``POOL`` candidates that are
fused by score: cosine similarity plus ``FTS_WEIGHT`` times the BM25 score relative to the
query's best. Score fusion keeps how much better the best match is, which rank fusion (RRF)
throws away; on real documents (bench/learning.py) it ranks the passage holding the answer
first more often than either half alone or RRF. Equal scores are ordered by row id in every mode, so
a ranking does not depend on insertion order or fragment layout. Retrieval searches a book's
skills on a snapshot (``memory/snapshots.py``): the table pinned to one version, the book's rows
kept in memory, so the halves return row ids only (reading ten rows' ``id`` back from a
100,000-row table costs ~0.7 ms a query; when the book holds every row of the table, its
searches skip the book filter, a no-op then which still costs ~0.5 ms). While a table has no
vector index (under ``Policy.vector_min_rows`` rows), the vector half of a search on a snapshot
scans the book's vectors in memory (``BookRows.nearest``): the same exact scan LanceDB would run,
whose cost there grew with the book (6 ms at 400 skills, 13 ms at 6,000; ~1.5 ms here).

The TOC descent walks the book's tree from the root, scoring each child by how well its
own text and the skills in its subtree match the query, keeps a beam of the best
branches, and returns the route so an agent can see (and question) the path taken: at each
level the branches taken and the best few it weighed against them.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Callable

import numpy as np

from tutorialbook.memory import indexing, lance, snapshots, terms
from tutorialbook.memory.snapshots import BookRows
from tutorialbook.memory.store import Store
from tutorialbook.memory.where import not_from, of_book
from tutorialbook.memory.tree import Tree
from tutorialbook.models import RouteStep

MODES = ("toc", "hybrid", "keyword", "vector")
#: branches a TOC descent follows at each level: three, chosen on the development documents (session 46:
#: toc hit@1 / hit@5 over nine real documents 197 / 266 -> 201 / 272; in session 30, before late interaction re-ordered
#: ten, 3 had been noise)
BEAM = 3
#: branches not taken that a route shows at each level, best first (a book of 400 tutorials has
#: 260 chapters: listing them all made a route 36 KB of a 39 KB answer)
RUNNERS_UP = 3
#: what a skill on the route's branches scores above the others (hybrid scores: cosine plus a
#: fifth of relative BM25). Only theirs were returned: in a book of many pages (a documentation
#: package's 20-30) the page holding the answer often lost the beam to pages holding one skill that
#: matched a little better, and all its skills were gone. Session 48, toc hit@1 / hit@5 refine off:
#: six whole packages 46 / 74 -> 49 / 84 (hybrid 50 / 81), ten single pages 113 / 160 -> 115 / 163,
#: the nine bench documents 201 / 272 -> 202 / 274; 0.1 alike (50 / 83, 114 / 164, 202 / 272)
ON_ROUTE = 0.05
#: weight of the BM25 half in a hybrid score, relative to cosine similarity
FTS_WEIGHT = 0.2
#: candidates each half of a hybrid search returns before fusion
POOL = 40
#: what a book's vectors held in memory keep (see ``_held_vectors``)
VECTOR_COLUMNS = ["id", "vector"]


@dataclass
class Hit:
    row: dict
    score: float


def search(store: Store, table: str, book: str, query: str,
           vector: np.ndarray | Callable[[], np.ndarray] | None, mode: str, limit: int,
           where: str | None = None, columns: list[str] | None = None,
           snapshot: BookRows | None = None, halves: dict | None = None) -> list[Hit]:
    """Rows of ``table`` in ``book`` ranked for the query; scores are higher-is-better.

    ``vector`` may be a function computing it, so that a hybrid search embeds the query while
    its full-text half runs. ``columns`` limits what rows carry (always with ``id``): reading
    columns is most of what a query over a large table costs. On a ``snapshot`` of the book the
    search reads that version, and rows carry the snapshot's columns instead.

    ``halves`` is a dict the caller keeps for one query (see :func:`reuse`): a hybrid search
    keeps its two halves there, and a later hybrid search of the same rows with a pool no larger
    fuses their best rows instead of running both halves again."""
    # the AsyncTable: a query is one trip to LanceDB's loop
    inner = snapshot.table if snapshot is not None else lance.require_async_table(store.table(table))
    scope: str | None = of_book(book) + (f" AND ({where})" if where else "")
    if snapshot is not None and snapshot.whole_table:  # the book filter would pass every row
        scope = where
    select = list(dict.fromkeys(["id", *columns])) if columns else None

    def run(query, score: str) -> list[dict]:
        return snapshot.found(query, score) if snapshot is not None else query

    def text():
        return _rows(_text(inner, query, scope, select, limit, snapshot is not None))

    if mode == "keyword":
        return _ranked([Hit(r, float(r["_score"])) for r in run(lance.run(text()), "_score")])
    wanted = limit
    if mode == "hybrid":
        limit = max(limit, POOL)
        key = (table, book, query, where, tuple(columns or ()), snapshot.version if snapshot is not None else None)
        kept = reuse(halves, key, limit)
        if kept is not None:
            return fuse(*kept, wanted)
    text_rows = None
    if mode != "vector":  # hybrid: the full-text half runs meanwhile
        text_rows = lance.submit(text())
    vector = vector() if callable(vector) else vector
    exact = True
    held = _held_vectors(store, table, snapshot) if snapshot is not None and not where else None

    def nearest(widen: bool = False) -> list[dict]:
        assert vector is not None  # the vector and hybrid modes are given one
        if held is not None:
            return run(held.nearest(vector, limit), "_distance")
        q = _nearest(store, table, inner, vector, scope, select, limit, exact, widen, snapshot is not None)
        return run(lance.run(_rows(q)), "_distance")

    rows = nearest()
    if len(rows) < limit and indexing.tuning(store, table) is not None:  # the probed partitions fell short
        rows = nearest(widen=True)
    if text_rows is None:
        return _ranked([Hit(r, 1.0 - float(r["_distance"])) for r in rows])
    found = run(text_rows.result(), "_score")
    if halves is not None:
        halves[key] = (limit, rows, found)
    return fuse(rows, found, wanted)


def reuse(halves: dict | None, key: tuple, pool: int) -> tuple[list[dict], list[dict]] | None:
    """The best ``pool`` rows of each half of a hybrid search already run for ``key`` with a
    pool at least that large, or None. Each half is its pool's best rows in order (an exact
    scan's or LanceDB's top k), so the best ``pool`` of a larger pool are what a search with
    ``pool`` returns: refinement asks each question in toc mode (a pool of 50) and then in
    hybrid mode (40), and the second reads the first's halves instead of searching again."""
    if halves is None or key not in halves or halves[key][0] < pool:
        return None
    _, vector_rows, text_rows = halves[key]
    best = sorted(vector_rows, key=lambda r: float(r["_distance"]))[:pool]
    return best, sorted(text_rows, key=lambda r: -float(r["_score"]))[:pool]


def _held_vectors(store: Store, table: str, snapshot: BookRows) -> BookRows | None:
    """The book's vectors at the snapshot's version, kept in memory, while ``table`` has no vector
    index: an exact scan there is what LanceDB would do, at a fifth of the cost at a few thousand
    rows (a table under the index threshold holds at most ~15 MB of vectors). None when the table
    is indexed, or when the process already holds a newer version of them."""
    if indexing.tuning(store, table) is not None:
        return None
    held, _ = snapshots.latest(store, table, snapshot.book, VECTOR_COLUMNS, snapshot.version)
    return held if held.version == snapshot.version else None


def fuse(vector_rows: list[dict], text_rows: list[dict], limit: int) -> list[Hit]:
    """Score fusion: cosine + ``FTS_WEIGHT`` x BM25 / the best BM25 among the text half's rows.
    A row only the text half found counts the lowest cosine the vector half returned (its own
    is no higher), a row only the vector half found counts no BM25; a row found by both keeps
    its vector-half copy. Scores are rounded to float32 so equal scores tie exactly."""
    cosine = {r["id"]: 1.0 - float(r["_distance"]) for r in vector_rows}
    floor = min(cosine.values(), default=0.0)
    best = max((float(r["_score"]) for r in text_rows), default=0.0)
    bm25 = {r["id"]: float(r["_score"]) / best for r in text_rows} if best > 0 else {}
    rows: dict[str, dict] = {}
    for row in (*vector_rows, *text_rows):
        rows.setdefault(row["id"], row)
    return _ranked([Hit(row, float(np.float32(cosine.get(i, floor) + FTS_WEIGHT * bm25.get(i, 0.0))))
                    for i, row in rows.items()])[:limit]


def _ranked(hits: list[Hit]) -> list[Hit]:
    """Best first; equal scores by row id."""
    return sorted(hits, key=lambda h: (-h.score, h.row["id"]))


def _text(inner, query: str, scope: str | None, select: list[str] | None, limit: int, row_ids: bool = False):
    q = inner.query().nearest_to_text(terms.query(query))
    return _finish(q.where(scope) if scope else q, "_score", select, limit, row_ids)


def _nearest(store: Store, table: str, inner, vector: np.ndarray, scope: str | None, select: list[str] | None,
             limit: int, exact: bool, widen: bool = False, row_ids: bool = False):
    q = inner.query().nearest_to(vector).distance_type("cosine")
    q = indexing.tune(q, store, table, refine=exact, widen=widen)
    return _finish(q.where(scope) if scope else q, "_distance", select, limit, row_ids)


def _finish(q, score: str, select: list[str] | None, limit: int, row_ids: bool):
    """Limit and columns: only the score and ``_rowid`` (for a snapshot), or ``select``."""
    q = q.limit(limit)
    if row_ids:
        return q.select([score]).with_row_id()
    return q.select([*select, score]) if select else q


async def _rows(query) -> list[dict]:
    return (await lance.collect(query)).to_pylist()


def toc_descent(store: Store, tree: Tree, query: str, vector: np.ndarray | Callable[[], np.ndarray], k: int,
                columns: list[str] | None = None, snapshot: BookRows | None = None,
                halves: dict | None = None) -> tuple[list[Hit], list[RouteStep]]:
    """Descend the tree with a beam; return the best skills, those under the chosen branches
    ``ON_ROUTE`` ahead (their rows limited to ``columns``, and ``node_id``; or the ``snapshot``'s,
    searched on it). The skill search keeps its halves in ``halves`` (see ``search``)."""
    columns = [*columns, "node_id"] if columns else None
    unfinished = unfinished_filter(tree)
    skill_hits = search(store, "skills", tree.book, query, vector, "hybrid", max(50, 5 * k), where=unfinished,
                        columns=columns, snapshot=snapshot, halves=halves)
    node_hits = search(store, "nodes", tree.book, query, vector, "hybrid", 50, where=unfinished, columns=["id"],
                       snapshot=tree.node_rows if snapshot is not None else None)
    own = {h.row["id"]: h.score for h in node_hits}
    by_node: dict[str, float] = defaultdict(float)
    for hit in skill_hits:
        by_node[hit.row["node_id"]] = max(by_node[hit.row["node_id"]], hit.score)
    score = _branch_scores(tree, own, by_node)

    route: list[RouteStep] = []
    frontier = [tree.root_id]
    chosen_nodes: list[str] = []
    passed: set[str] = set()
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
        for c in ranked[:len(keep) + RUNNERS_UP]:  # the branches taken, then the best ones not taken
            node = tree.nodes[c]
            why = _reason(own.get(c, 0.0), by_node.get(c, 0.0), score(c))
            route.append(RouteStep(depth=depth, node_id=c, title=node["title"], score=round(score(c), 5),
                                   chosen=c in keep, reason=why))
        # a branch whose own skills match better than all its children stops here too
        for c in keep:
            if tree.children.get(c) and by_node.get(c, 0.0) > max(score(x) for x in tree.children[c]):
                chosen_nodes.append(c)
        passed.update(keep)
        frontier = keep
    # the chosen branches, and the skills sitting on the nodes the route passed through (a
    # chapter's introduction is on the way to its sections), ``ON_ROUTE`` ahead of the rest; on
    # equal scores the branches first
    branches = {n for c in chosen_nodes for n in tree.subtree(c)} if chosen_nodes else set(tree.nodes)
    allowed = branches | passed
    ranked_hits = sorted((Hit(h.row, h.score + ON_ROUTE * (h.row["node_id"] in allowed)) for h in skill_hits),
                         key=lambda h: (-h.score, h.row["node_id"] not in branches))
    return ranked_hits[:k], route


def _branch_scores(tree: Tree, own: dict[str, float], by_node: dict[str, float]) -> Callable[[str], float]:
    """A branch is as good as its best match: its own text plus its best skill, or the best of
    its children — a big chapter does not win by size alone. A node no search found scores 0, so
    a branch scores the best of its matched nodes (each carried up to its ancestors once,
    instead of walking the whole tree per query), or 0 if it holds any unmatched node."""
    found = own.keys() | by_node.keys()
    best: dict[str, float] = {}
    for node_id in found:
        value = own.get(node_id, 0.0) + by_node.get(node_id, 0.0)
        current: str | None = node_id
        while current in tree.nodes and best.get(current, -np.inf) < value:
            best[current] = value
            current = tree.nodes[current]["parent_id"]
    unmatched_below: dict[str, bool] = {}

    def holds_unmatched(node_id: str) -> bool:
        if node_id not in found:
            return True
        if node_id not in unmatched_below:
            unmatched_below[node_id] = any(holds_unmatched(c) for c in tree.children.get(node_id, []))
        return unmatched_below[node_id]

    def score(node_id: str) -> float:
        matched = best.get(node_id, -np.inf)
        return float(max(matched, 0.0) if holds_unmatched(node_id) else matched)
    return score


def unfinished_filter(tree: Tree) -> str | None:
    """A filter leaving out the rows added by the book's unfinished commits (see ``Tree.hidden``)."""
    return not_from(tree.hidden)


def nearest_rows(store: Store, table: str, vectors: list, where: str, limit: int,
                 columns: list[str] | None = None) -> list[list[dict]]:
    """The ``limit`` rows nearest each vector by cosine (rows carry ``_distance``, and only
    ``columns`` when given), with ``where`` applied before the search; several vectors are one
    query, one vector one trip to LanceDB's loop."""
    handle = store.table(table)
    inner = lance.async_table(handle)
    if len(vectors) == 1 and inner is not None:
        q = inner.query().nearest_to(_listed(vectors[0])).distance_type("cosine").where(where).limit(limit)
        return [lance.run(_rows(q.select([*columns, "_distance"]) if columns else q))]
    query = handle.search([_listed(v) for v in vectors] if len(vectors) > 1 else _listed(vectors[0]))
    query = query.distance_type("cosine").where(where, prefilter=True).limit(limit)
    rows = (query.select(columns) if columns else query).to_list()
    if len(vectors) == 1:
        return [rows]
    found: list[list[dict]] = [[] for _ in vectors]
    for row in rows:
        found[row.pop("query_index")].append(row)
    return found


def _listed(vector) -> list[float]:
    return vector.tolist() if isinstance(vector, np.ndarray) else list(vector)


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
