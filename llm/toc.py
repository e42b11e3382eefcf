"""TOC retrieval driven by a model, in the PageIndex manner.

The model is shown the tree one level at a time — titles, one-line summaries and counts,
never the bodies — with the query, and answers with the node ids worth opening and why. It
descends level by level until the branches it chose have no children (or it says stop
here); the skills under the branches it reached are then ranked for the query. Ids it
invents are dropped (an answer with no real id is retried, quoting the error); when it gives
no usable answer the deterministic beam (:func:`tutorialbook.memory.search.toc_descent`) runs
instead, with a warning. The route, with the model's reasons, is what ``retrieve`` returns.

The descent's requests are built only from the query and the book's tree, so a replay of it
on recorded replies asks exactly the same requests: the MCP surface drives it through the
client's model that way (tools/sampling.py).
"""

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from tutorialbook.models import RouteStep
from tutorialbook.llm.client import LLM

if TYPE_CHECKING:  # the store (LanceDB) loads on first use: the MCP server imports this module at start
    from tutorialbook.memory.search import Hit
    from tutorialbook.memory.store import Store
    from tutorialbook.memory.tree import Tree

BEAM = 3  # nodes the model may open per level
MAX_LEVELS = 6
MAX_CANDIDATES = 120  # nodes shown per level
SUMMARY_CHARS = 160


class Pick(BaseModel):
    node_id: str = Field(description="an id from the list")
    reason: str = Field(description="why this branch should hold what the query needs")


class TocChoice(BaseModel):
    picks: list[Pick] = Field(description=f"up to {BEAM} nodes to open, best first; an empty list means none "
                                          "of them fits better than where you are now")


PROMPT = """Find where a book's table of contents answers a query. You see one level of the tree at a time
(titles and one-line summaries only); choose the nodes to open next.

Query: {query}

You are at: {where}

Nodes at this level ([id] title — summary (what is below)):
{nodes}

Choose up to {beam} node ids from this list whose branches most likely hold skills for the query, best
first, each with a short reason. Return an empty list if none fits better than where you are now."""


@dataclass
class Navigation:
    route: list[RouteStep]
    chosen: list[str]  # the nodes the descent ended in


def navigate(tree: "Tree", query: str, llm: LLM) -> Navigation | None:
    """The model's descent of ``tree`` for ``query``; ``None`` when it gave no usable answer.
    (Only the tree and the query go into the prompts, so a replay is exact.)"""
    route: list[RouteStep] = []
    chosen: list[str] = []
    frontier = [tree.root_id]
    for depth in range(1, MAX_LEVELS + 1):
        chosen += [f for f in frontier if not tree.children.get(f)]
        parents = [f for f in frontier if tree.children.get(f)]
        candidates = [c for f in parents for c in tree.children[f]]
        if not candidates:
            return Navigation(route, chosen)
        shown = candidates[:MAX_CANDIDATES]
        if len(candidates) > len(shown):
            llm.warn(f"llm ({llm.name}) toc: level {depth} has {len(candidates)} nodes; the model saw the first "
                     f"{len(shown)}")
        prompt = PROMPT.format(query=" ".join(query.split()), where=_where(tree, parents),
                               nodes="\n".join(_line(tree, c) for c in shown), beam=BEAM)
        known = set(shown)

        def check(choice: TocChoice, known=known) -> str | None:
            if choice.picks and not any(p.node_id.strip() in known for p in choice.picks):
                bad = ", ".join(p.node_id for p in choice.picks[:5])
                return f"none of the ids it names ({bad}) is in the list; use ids exactly as listed"
            return None

        choice = llm.complete_json(prompt, TocChoice, purpose=f"toc level {depth}", max_tokens=1024, check=check)
        if choice is None:
            return None
        picks: dict[str, str] = {}
        invented = []
        for pick in choice.picks:
            node_id = pick.node_id.strip()
            if node_id in known and node_id not in picks and len(picks) < BEAM:
                picks[node_id] = " ".join(pick.reason.split())[:300]
            elif node_id not in known:
                invented.append(node_id)
        if invented:
            llm.warn(f"llm ({llm.name}) toc level {depth}: dropped node ids not in the tree: {', '.join(invented[:5])}")
        order = list(picks)
        for c in shown:
            node = tree.nodes[c]
            rank = order.index(c) + 1 if c in picks else 0
            route.append(RouteStep(depth=depth, node_id=c, title=node["title"],
                                   score=round(1.0 / rank, 5) if rank else 0.0, chosen=bool(rank),
                                   reason=f"model: {picks[c]}" if rank else "model: not chosen"))
        if not picks:  # the model stops here: the current branches are the answer
            return Navigation(route, chosen + parents)
        frontier = order
    return Navigation(route, chosen + frontier)


def llm_toc_descent(store: "Store", tree: "Tree", query: str, vector, k: int, llm: LLM
                    ) -> "tuple[list[Hit], list[RouteStep]] | None":
    """Skills under the branches the model navigated to, ranked for the query (hybrid search
    within them), and the model's route; ``None`` when the deterministic beam must run."""
    found = navigate(tree, query, llm)
    if found is None:
        return None
    allowed = {n for c in found.chosen for n in tree.subtree(c)} or set(tree.nodes)
    from tutorialbook.memory.search import search
    from tutorialbook.memory.where import in_list

    hits = search(store, "skills", tree.book, query, vector, "hybrid", k, in_list("node_id", allowed))
    if not hits:
        llm.warn(f"llm ({llm.name}) toc: the branches the model chose hold no skills for the query; used the "
                 "deterministic beam")
        return None
    return hits, found.route


def retrieve_toc(store: "Store", tree: "Tree", query: str, vector, k: int, llm: LLM | None
                 ) -> "tuple[list[Hit], list[RouteStep]]":
    """The model's descent when there is a usable model, else (or when it fails) the beam."""
    if llm is not None and llm.available:
        found = llm_toc_descent(store, tree, query, vector, k, llm)
        if found is not None:
            return found
        llm.warn(f"llm ({llm.name}) toc: the route below is the deterministic beam")
    from tutorialbook.memory.search import toc_descent

    return toc_descent(store, tree, query, vector, k)


def _where(tree: "Tree", parents: list[str]) -> str:
    return " | ".join(" › ".join(tree.titles(p)) for p in parents)


def _line(tree: "Tree", node_id: str) -> str:
    node = tree.nodes[node_id]
    summary = " ".join((node.get("summary") or "").split())
    if len(summary) > SUMMARY_CHARS:
        summary = summary[: SUMMARY_CHARS - 1].rsplit(" ", 1)[0] + "…"
    below = tree.subtree_skills(node_id)
    kids = len(tree.children.get(node_id, []))
    counts = f"{below} skill{'s' * (below != 1)}" + (f", {kids} subsection{'s' * (kids != 1)}" if kids else "")
    return f"[{node_id}] {' '.join(node['title'].split())} — {summary} ({counts})"
