"""Late interaction (tutorialbook/rerank.py) with the real MiniLM: the first ten of a ranking put
in order word by word, the rest kept, keyword mode left literal."""

import json

import numpy as np
import pytest

from tutorialbook import rerank
from tutorialbook.library import Library
from tutorialbook.memory.embedder import MiniLM, _TokenCache
from tutorialbook.memory.search import Hit


@pytest.fixture(scope="module")
def tokens():
    return MiniLM().token_vectors


def _hit(id_: str, name: str, steps: list[str], score: float) -> Hit:
    return Hit({"id": id_, "name": name, "when_to_use": "", "steps": json.dumps(steps)}, score)


WORKSPACE = _hit("a", "The workspace", ["The workspace holds the objects you create during a session.",
                                         "It can be saved when you quit and restored when you start again."], 0.62)
REMOVING = _hit("b", "Removing objects", ["To delete a variable, call rm() with its name.",
                                          "rm(list = ls()) removes every object in the workspace."], 0.60)
LISTING = _hit("c", "Listing objects", ["ls() prints the names of the objects in the workspace."], 0.55)


@pytest.mark.parametrize("query", ["How do I delete a variable from the workspace?",
                                   "how can I get rid of a variable I no longer need"])
def test_the_skill_that_holds_the_detail_asked_for_moves_first(tokens, query):
    ranked = rerank.rerank(query, [WORKSPACE, REMOVING, LISTING], tokens)
    assert [h.row["id"] for h in ranked][0] == "b"  # the topic's overview had scored higher
    scores = [h.score for h in ranked]
    assert scores == sorted(scores, reverse=True)


def test_only_the_first_ten_are_put_in_order_and_the_rest_are_kept(tokens):
    others = [_hit(f"x{i}", f"Note {i}", [f"An unrelated remark number {i} about plotting colours."], 0.5 - i / 100)
              for i in range(12)]
    hits = [*others[:2], WORKSPACE, LISTING, *others[2:8], REMOVING, *others[8:]]
    ranked = rerank.rerank("How do I delete a variable from the workspace?", hits, tokens)
    assert {h.row["id"] for h in ranked[:10]} == {h.row["id"] for h in hits[:10]}
    assert ranked[10:] == hits[10:]  # untouched, scores and all


def test_the_answer_ranked_sixth_to_tenth_comes_into_a_top_five(tokens):
    """The search's fused score ranks a passage on the same topic about as high as the one that
    holds the detail asked for; matched word by word, the seventh comes first."""
    others = [_hit(f"x{i}", f"Note {i}", [f"An unrelated remark number {i} about plotting colours."], 0.5 - i / 100)
              for i in range(5)]
    hits = [WORKSPACE, LISTING, *others, REMOVING]  # the answer seventh
    ranked = rerank.rerank("How do I delete a variable from the workspace?", hits, tokens)
    assert ranked[0].row["id"] == "b"


def test_a_query_of_function_words_or_a_single_hit_leaves_the_ranking_as_it_is(tokens):
    hits = [WORKSPACE, REMOVING, LISTING]
    assert rerank.rerank("what is the", hits, tokens) == hits
    assert rerank.rerank("How do I delete a variable?", [WORKSPACE], tokens) == [WORKSPACE]
    assert rerank.rerank("How do I delete a variable?", [], tokens) == []


def test_a_skill_is_matched_with_its_sections_title(tokens):
    """The author's heading says what a passage is about in the words a question uses, and the
    passage seldom repeats it: two passages alike word for word part on their sections' titles."""
    keep = {"id": "k", "name": "Keep the input", "when_to_use": "",
            "steps": json.dumps(["Give -k to keep the input file; by default it is deleted."])}
    compress = Hit({**keep, "id": "c", "node_id": "n_compress"}, 0.61)
    decompress = Hit({**keep, "id": "d", "node_id": "n_decompress"}, 0.60)
    titles = {"n_compress": "Compressing files", "n_decompress": "Decompressing an archive"}.get
    query = "How do I keep the archive when decompressing?"
    assert [h.row["id"] for h in rerank.rerank(query, [compress, decompress], tokens)] == ["c", "d"]  # a tie
    ranked = rerank.rerank(query, [compress, decompress], tokens, lambda node_id: titles(node_id, ""))
    assert [h.row["id"] for h in ranked] == ["d", "c"]
    assert rerank.row_text(decompress.row, "Decompressing an archive").startswith("Decompressing an archive. Keep")
    assert rerank.row_text(decompress.row) == "Keep the input. . " + json.loads(keep["steps"])[0]


def test_retrieve_matches_each_skill_with_its_sections_title(baking):
    """Retrieval hands late interaction the title of each skill's node (the section)."""
    seen: list[str] = []
    source = baking.retrieval._tokens

    def recording():
        inner = source()

        def tokens(texts):
            seen.extend(texts)
            return inner(texts)
        return tokens

    baking.retrieval._tokens = recording
    result = baking.retrieve(QUERIES[0], "baking", k=5, mode="hybrid")
    tree = baking.reading.tree("baking")
    titles = {s.id: tree.nodes[s.node_id]["title"] for s in result.skills}
    assert len(set(titles.values())) > 1  # the five come from more than one section
    for skill in result.skills:
        assert any(text.startswith(f"{titles[skill.id]}. {skill.name}.") for text in seen), skill.name


QUERIES = ["how do I shape the dough into a tight ball", "my starter is sluggish",
           "when is the bread done baking", "what should I avoid when seasoning"]


@pytest.mark.parametrize("mode", ["hybrid", "vector", "toc"])
def test_the_best_skill_is_the_same_whatever_k(baking, mode):
    """A top 1 is the first of the top 5: both are put in order over the same ten skills."""
    for query in QUERIES:
        one = baking.retrieve(query, "baking", k=1, mode=mode).skills
        five = baking.retrieve(query, "baking", k=5, mode=mode).skills
        assert [s.id for s in one] == [s.id for s in five[:1]]


def test_keyword_mode_and_the_setting_turned_off_keep_the_search_order(baking, store_path):
    keyword = [(s.id, s.score) for s in baking.retrieve(QUERIES[0], "baking", k=5, mode="keyword").skills]
    reranked = [s.id for s in baking.retrieve(QUERIES[2], "baking", k=5, mode="hybrid").skills]
    baking = Library(store=str(store_path), late_interaction=False)
    assert baking._token_vectors() is None
    assert [(s.id, s.score) for s in baking.retrieve(QUERIES[0], "baking", k=5, mode="keyword").skills] == keyword
    plain = baking.retrieve(QUERIES[2], "baking", k=5, mode="hybrid").skills
    ten = baking.retrieve(QUERIES[2], "baking", k=10, mode="hybrid").skills
    assert [s.id for s in plain] == [s.id for s in ten[:5]]  # the search's own first five, in its order
    assert set(reranked) <= {s.id for s in ten} and len(reranked) == 5  # late interaction's five, from those ten
    assert [s.score for s in plain] == sorted((s.score for s in plain), reverse=True)
    assert all(s.score < 2 for s in plain)  # no late-interaction term (WEIGHT x a match) added


def test_token_vectors_are_unit_rows_one_per_token_and_kept_for_the_next_query(tokens):
    (vectors, words), = tokens(["Knead the dough"])
    assert words == ["kn", "##ead", "the", "dough"]  # WordPiece: a rarer word in pieces
    assert vectors.dtype == np.float16 and vectors.shape == (4, 384)
    assert np.allclose(np.linalg.norm(vectors.astype(np.float32), axis=1), 1.0, atol=1e-2)
    assert tokens(["Knead the dough"])[0][0] is vectors  # from the cache


def test_a_query_embedded_alone_keeps_its_token_vectors_from_that_run():
    model = MiniLM()
    vector = model.embed(["how long should the dough rest"])[0]
    kept = model._token_cache.get("how long should the dough rest")
    assert kept is not None and model.token_vectors(["how long should the dough rest"])[0][0] is kept[0]
    fresh = MiniLM()._tokens_of("how long should the dough rest")  # a run of its own gives the same rows
    assert kept[1] == fresh[1] and np.array_equal(kept[0], fresh[0])
    assert np.allclose(np.linalg.norm(vector), 1.0)


def test_the_token_cache_drops_the_least_recently_used_past_its_limit():
    cache = _TokenCache(limit=3 * 384 * 2)
    item = lambda: (np.zeros((1, 384), dtype=np.float16), ["w"])  # noqa: E731
    for text in "abc":
        cache.put(text, item())
    assert cache.get("a") is not None  # "a" used again: "b" is now the oldest
    cache.put("d", item())
    assert cache.get("b") is None and all(cache.get(t) is not None for t in "acd")


def test_refinement_asks_without_late_interaction_and_retrieve_uses_it(store_path):
    """Refinement grades its questions on the search's own order: late interaction costs a model
    run for each skill the token cache does not hold, which in a big book every question paid and
    made ingest slower as the book grew (bench/scale.py). Agents' retrieves keep it."""
    from tests.support.examples import EXAMPLES

    library = Library(store=str(store_path), allowed_roots=(str(EXAMPLES),))
    asked: list[int] = []
    source = library.retrieval._tokens

    def counted():
        asked.append(1)
        return source()

    library.retrieval._tokens = counted
    report = library.ingest(str(EXAMPLES / "sourdough-basics.md"), book="baking", refine_rounds=1)
    assert report.tutorials[0].refinement != "skipped" and asked == []
    library.retrieve(QUERIES[0], "baking", k=5, mode="hybrid")
    assert asked


def test_the_first_skills_section_mates_rank_above_an_equal_from_elsewhere(tokens, monkeypatch):
    """The answer a question's words do not match best is most often a neighbour of the one they
    do: once the first is found, another of its section passes one from another section scored
    a little higher."""
    def in_section(hit, node_id, score):
        return Hit({**hit.row, "node_id": node_id}, score)

    removing = in_section(REMOVING, "n_objects", 0.62)
    listing = in_section(LISTING, "n_objects", 0.50)
    saving = in_section(_hit("s", "Saving objects to a file", ["save() writes the objects of the workspace to a file."],
                             0.0), "n_files", 0.55)
    query = "How do I delete a variable from the workspace?"
    hits = [removing, saving, listing]
    assert [h.row["id"] for h in rerank.rerank(query, hits, tokens)] == ["b", "c", "s"]
    monkeypatch.setattr(rerank, "SECTION", 0.0)
    assert [h.row["id"] for h in rerank.rerank(query, hits, tokens)] == ["b", "s", "c"], "the section put it second"
