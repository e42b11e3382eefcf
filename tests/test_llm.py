"""LLM access (llm/client.py and its uses): litellm over real HTTP against an OpenAI-compatible
server this test runs on 127.0.0.1 with scripted replies (invalid JSON, a 500, a timeout, a
hallucinated evidence id), and ``sampling`` through the MCP client's sampling callback in both
protocol eras."""

import json
import re
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from mcp import Client
from mcp.types import CreateMessageResult, TextContent
from pydantic import BaseModel

from tutorialbook.config import Settings
from tutorialbook.library import Library
from tutorialbook.memory.search import toc_descent
from tutorialbook.server.app import create_server
from tutorialbook.skills import questions as qs
from tutorialbook.llm.client import LLM, LiteLLMBackend

KNIFE = """# Knife care

A sharp knife is safer than a dull one.

## Sharpening

Hold the blade at a fifteen degree angle against the whetstone.

Soak the whetstone in water for ten minutes before you start.

Draw the blade across the stone from heel to tip.

## Storing

Never put a good knife in the dishwasher.

Store knives on a magnetic strip so the edges do not touch.
"""

ONION = """# Dicing an onion

An onion dices quickly once you know the cuts.

## Preparing

Cut the onion in half through the root.

Peel off the papery skin and keep the root end on.

## Cutting

Make horizontal cuts toward the root but not through it.

Chill the onion for ten minutes first so it stings your eyes less.
"""


# -- a scripted model: the same brain over HTTP (litellm) and over MCP sampling -------------

def segments_of(prompt: str) -> dict[int, str]:
    return {int(m.group(1)): m.group(2) for m in re.finditer(r"^\[(\d+)\] (.*)$", prompt, re.M)}


def outline_reply(prompt: str) -> dict:
    """Two sections split at the middle, one skill each pointing at a real segment and at the
    invented segment 999, and one skill resting only on invented segments (to be dropped)."""
    ids = sorted(segments_of(prompt))
    title = re.search(r"Tutorial title: (.*)", prompt).group(1)
    half = max(1, len(ids) // 2)
    first, second = ids[:half], ids[half:] or ids[:1]
    return {
        "title": f"Model chapter: {title}", "summary": f"What {title} teaches, in one line.",
        "intro_segments": [], "skills": [],
        "sections": [
            {"title": f"Model part one of {title}", "summary": "The first half.", "segments": first,
             "skills": [{"name": f"Model skill one of {title}", "when_to_use": "at the start",
                         "steps": ["Do the first thing", "Then the next"], "evidence": [first[-1], 999]},
                        {"name": "A skill the model imagined", "when_to_use": "never",
                         "steps": ["Nothing real"], "evidence": [555, 556]}]},
            {"title": f"Model part two of {title}", "summary": "The second half.", "segments": second,
             "skills": [{"name": f"Model skill two of {title}", "when_to_use": "at the end",
                         "steps": ["Finish up"], "evidence": [second[0]]}]},
        ],
    }


def toc_reply(prompt: str) -> dict:
    """Pick the listed node sharing most words with the query, and an invented id."""
    query = set(re.findall(r"[a-z]+", re.search(r"Query: (.*)", prompt).group(1).lower()))
    nodes = re.findall(r"^\[(n_\w+)\] (.+?) — ", prompt, re.M)
    best = max(nodes, key=lambda n: len(query & set(re.findall(r"[a-z]+", n[1].lower()))))
    return {"picks": [{"node_id": best[0], "reason": f"'{best[1]}' fits the query"},
                      {"node_id": "n_invented0000", "reason": "made up"}]}


QUESTIONS = {  # answer phrase -> the question the scripted model asks about it
    "fifteen degree angle": "At what angle do you hold the blade against the whetstone?",
    "ten minutes": "How long do you soak the whetstone?",
    "magnetic strip": "Where should knives be stored?",
    "a sharp knife": "Which kind of knife is safer?",  # a plain fact: no skill holds it after consolidation
}


def harvest_reply(prompt: str) -> dict:
    out = []
    for i, text in segments_of(prompt).items():
        for answer, question in QUESTIONS.items():
            if answer in text.lower():
                out.append({"question": question, "answer": answer, "segment": i})
    out.append({"question": "What colour is the narrator's hat?", "answer": "a red hat", "segment": 0})  # not in it
    out.append({"question": "What is in segment 404?", "answer": "nothing", "segment": 404})  # no such segment
    out.append({"question": "Is a sharp knife safer?", "answer": "a sharp knife", "segment": 0})  # gives it away
    return {"questions": out}


def judge_reply(prompt: str) -> dict:
    ids = re.findall(r"^\[(s_\w+)\]", prompt, re.M)
    return {"passed": False, "skill_id": "", "reason": f"none of {len(ids)} skills says it"}


def repair_reply(prompt: str) -> dict:
    answer = re.search(r"Expected answer: (.*)", prompt).group(1)
    question = re.search(r"Question: (.*)", prompt).group(1)
    return {"name": f"Remember {answer}", "when_to_use": f"asked: {question}", "steps": [f"Use {answer}, as taught"]}


def brain(prompt: str) -> str:
    if prompt.startswith("Consolidate this tutorial"):
        return json.dumps(outline_reply(prompt))
    if prompt.startswith("Find where a book's table of contents"):
        return json.dumps(toc_reply(prompt))
    if prompt.startswith("Write up to"):
        return json.dumps(harvest_reply(prompt))
    if prompt.startswith("Does one of these skills"):
        return json.dumps(judge_reply(prompt))
    if prompt.startswith("A book of skills failed"):
        return json.dumps(repair_reply(prompt))
    return "{}"


# -- the OpenAI-compatible server on loopback ----------------------------------------------

class FakeModel:
    """POST /v1/chat/completions. ``script`` entries (used first, in order): a string (the reply
    content), ``("status", 500)``, ``("sleep", seconds)``; when it is empty, ``brain`` answers."""

    def __init__(self):
        self.script: deque = deque()
        self.requests: list[dict] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append({"path": self.path, **body})
                step = fake.script.popleft() if fake.script else None
                if isinstance(step, tuple) and step[0] == "sleep":
                    time.sleep(step[1])
                    step = "{}"
                if isinstance(step, tuple) and step[0] == "status":
                    return self._send(step[1], {"error": {"message": "scripted failure", "type": "server_error"}})
                user = [m["content"] for m in body["messages"] if m["role"] == "user"][0]
                content = step if isinstance(step, str) else brain(user)
                self._send(200, {
                    "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": body["model"],
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                 "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
                })

            def _send(self, code, payload):
                data = json.dumps(payload).encode()
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client gave up (the timeout test)
                    pass

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_port}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def user_prompts(self) -> list[str]:
        return [[m["content"] for m in r["messages"] if m["role"] == "user"][0] for r in self.requests]


@pytest.fixture
def model(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # a local server needs none
    fake = FakeModel()
    yield fake
    fake.server.shutdown()


@pytest.fixture
def tutorials(tmp_path):
    folder = tmp_path / "kitchen"
    folder.mkdir()
    (folder / "knife-care.md").write_text(KNIFE)
    (folder / "dicing-an-onion.md").write_text(ONION)
    return folder


class Shape(BaseModel):
    colour: str
    count: int


# -- the interface ------------------------------------------------------------------------

def test_invalid_json_and_a_500_are_retried_and_tokens_and_cost_counted(model):
    # gpt-4o-mini is a model litellm knows the price of; the loopback server answers for it
    llm = LLM(LiteLLMBackend("openai/gpt-4o-mini", api_base=model.url), timeout=20)
    model.script.extend(['{"colour": "red", count: 3', ("status", 500), '{"colour": "red", "count": 3}'])
    value = llm.complete_json("Name a colour and a count.", Shape, purpose="test")
    assert value == Shape(colour="red", count=3)
    assert (llm.usage.calls, llm.usage.failed, llm.usage.invalid) == (3, 1, 1)
    assert (llm.usage.prompt_tokens, llm.usage.completion_tokens) == (200, 40)
    assert llm.usage.cost_usd and llm.usage.cost_usd > 0
    assert llm.warnings == []
    first, retry = model.requests[0], model.requests[1]
    assert first["path"] == "/v1/chat/completions" and first["model"] == "gpt-4o-mini"
    assert first["response_format"]["type"] == "json_schema"
    assert first["response_format"]["json_schema"]["schema"]["required"] == ["colour", "count"]
    assert retry["messages"][-2] == {"role": "assistant", "content": '{"colour": "red", count: 3'}
    assert "not valid JSON" in retry["messages"][-1]["content"]


def test_wrong_shape_is_retried_then_none_with_a_warning(model):
    llm = LLM(LiteLLMBackend("openai/scripted", api_base=model.url), timeout=20)
    model.script.extend(['{"colour": "red"}', "```json\n{\"count\": 1}\n```", "[]"])
    assert llm.complete_json("Name a colour and a count.", Shape, purpose="test") is None
    assert llm.usage.calls == 3 and llm.usage.invalid == 3 and llm.usage.cost_usd is None  # unknown price
    assert "does not match the schema" in model.requests[1]["messages"][-1]["content"]
    (warning,) = llm.warnings
    assert "test: no valid answer after 3 attempt(s)" in warning and "deterministic" in warning


def test_a_timeout_returns_none_quickly_and_is_not_retried(model):
    llm = LLM(LiteLLMBackend("openai/scripted", api_base=model.url), timeout=1)
    model.script.append(("sleep", 4))
    started = time.monotonic()
    assert llm.complete_json("Name a colour and a count.", Shape, purpose="slow") is None
    assert time.monotonic() - started < 3.5
    assert llm.usage.calls == 1 and llm.usage.failed == 1
    assert "timed out after 1 s" in llm.warnings[0]


def test_a_dead_model_is_skipped_after_three_failed_uses(model):
    llm = LLM(LiteLLMBackend("openai/scripted", api_base=model.url), timeout=20, retries=0)
    model.script.extend([("status", 500)] * 5)
    for _ in range(4):
        assert llm.complete_json("Anything?", Shape, purpose="probe") is None
    assert len(model.requests) == 3 and not llm.available
    assert any("skipped for the rest of this run" in w for w in llm.warnings)


# -- consolidation ------------------------------------------------------------------------

def test_consolidation_writes_the_models_titles_and_skills_with_real_evidence(tmp_path, model, tutorials):
    library = Library(store=str(tmp_path / "store"), llm="openai/scripted", llm_api_base=model.url)
    report = library.ingest(str(tutorials / "knife-care.md"), book="kitchen", refine_rounds=0).tutorials[0]

    root = library.browse("kitchen", depth=2)
    (chapter,) = root.children
    assert chapter.title == "Model chapter: Knife care"
    assert chapter.summary == "What Knife care teaches, in one line."
    assert [s.title for s in chapter.subnodes] == ["Model part one of Knife care", "Model part two of Knife care"]
    skills = {s.name: s for s in library.skills("kitchen")}
    assert set(skills) == {"Model skill one of Knife care", "Model skill two of Knife care"}
    assert "A skill the model imagined" not in skills  # its evidence pointed at segments that do not exist
    one = skills["Model skill one of Knife care"]
    assert one.steps == ["Do the first thing", "Then the next"] and one.path[-1] == "Model part one of Knife care"
    # evidence is the tutorial's own text at the real segment (segment 999 was dropped)
    (proof,) = one.evidence
    text = (tutorials / "knife-care.md").read_text()
    assert proof.quote in text and text[int(proof.start):int(proof.end)].startswith(proof.quote[:20])
    assert any("dropped 3 evidence reference(s)" in w and "999" in w for w in report.warnings), report.warnings
    assert report.llm.model == "openai/scripted" and report.llm.calls == 1
    assert report.llm.prompt_tokens == 100 and report.llm.completion_tokens == 20
    prompt = model.user_prompts()[0]
    assert "[1] Hold the blade at a fifteen degree angle against the whetstone." in prompt


def test_unusable_replies_fall_back_to_the_deterministic_outline(tmp_path, model, tutorials):
    plain = Library(store=str(tmp_path / "plain"))
    plain.ingest(str(tutorials / "knife-care.md"), book="kitchen", refine_rounds=0)
    expected = plain.browse("kitchen", depth=3).model_dump(include={"children"})

    model.script.extend(["no", '{"title": 3}', '{"title": "x", "summary": "y", "sections": []}'])
    library = Library(store=str(tmp_path / "store"), llm="openai/scripted", llm_api_base=model.url)
    report = library.ingest(str(tutorials / "knife-care.md"), book="kitchen", refine_rounds=0).tutorials[0]
    got = library.browse("kitchen", depth=3).model_dump(include={"children"})
    strip = lambda tree: json.loads(re.sub(r'"id": "n_\w+"', '"id": ""', json.dumps(tree)))  # noqa: E731
    assert strip(got) == strip(expected)
    assert sorted(s.name for s in library.skills("kitchen")) == sorted(s.name for s in plain.skills("kitchen"))
    assert report.llm.calls == 3 and report.llm.invalid == 3
    assert any("consolidation: no valid answer after 3 attempt(s)" in w for w in report.warnings)


def test_no_llm_means_no_llm_fields(tmp_path, tutorials):
    library = Library(store=str(tmp_path / "store"), llm="none")
    report = library.ingest(str(tutorials / "knife-care.md"), book="kitchen", refine_rounds=0).tutorials[0]
    assert report.llm is None and report.warnings == []
    found = library.retrieve("sharpen a knife", "kitchen", mode="toc")
    assert found.warnings == [] and found.llm is None


# -- toc retrieval ------------------------------------------------------------------------

def test_toc_retrieval_follows_the_models_route(tmp_path, model, tutorials):
    store = str(tmp_path / "store")
    Library(store=store).ingest(str(tutorials), book="kitchen", refine_rounds=0)
    library = Library(store=store, llm="openai/scripted", llm_api_base=model.url)
    found = library.retrieve("how do I dice an onion", "kitchen", k=3, mode="toc")

    tree = library.tree("kitchen")
    chosen = [step for step in found.route if step.chosen]
    assert chosen and tree.nodes[chosen[0].node_id]["title"] == "Dicing an onion"
    assert chosen[0].depth == 1 and chosen[0].reason.startswith("model: 'Dicing an onion' fits the query")
    assert all(step.reason == "model: not chosen" for step in found.route if not step.chosen)
    assert [s.depth for s in chosen] == sorted(s.depth for s in chosen) and max(s.depth for s in chosen) >= 2
    under = set(tree.subtree(chosen[0].node_id))
    assert found.skills and all(s.node_id in under for s in found.skills)
    assert any("dropped node ids not in the tree: n_invented0000" in w for w in found.warnings)
    prompts = [p for p in model.user_prompts() if p.startswith("Find where")]
    assert len(prompts) == max(s.depth for s in found.route)
    assert "Hold the blade" not in prompts[0]  # titles and summaries, never the bodies
    assert found.llm.calls == len(prompts)


def test_toc_retrieval_falls_back_to_the_beam_when_the_model_fails(tmp_path, model, tutorials):
    store = str(tmp_path / "store")
    Library(store=store).ingest(str(tutorials), book="kitchen", refine_rounds=0)
    library = Library(store=store, llm="openai/scripted", llm_api_base=model.url)
    model.script.extend([("status", 500)] * 3)
    found = library.retrieve("how do I dice an onion", "kitchen", k=3, mode="toc")
    tree = library.tree("kitchen")
    _, beam = toc_descent(library.store, tree, found.query, library.embed([found.query])[0], 3)
    assert found.route == beam
    assert any("toc level 1: no valid answer" in w for w in found.warnings)
    assert any("the route below is the deterministic beam" in w for w in found.warnings)
    assert library.retrieve("onion", "kitchen", mode="hybrid").warnings == []  # other modes ask no model


# -- harvest, judge, repair ----------------------------------------------------------------

def test_harvest_and_repair_through_the_model(tmp_path, model, tutorials, monkeypatch):
    from tutorialbook.skills import passages

    keep = passages.is_boilerplate  # a consolidation that misses the safety fact, for refinement to repair
    monkeypatch.setattr(passages, "is_boilerplate", lambda text, *a: "sharp knife is safer" in text or keep(text, *a))
    library = Library(store=str(tmp_path / "store"), llm="openai/scripted", llm_api_base=model.url)
    model.script.extend(["not an outline", "still not", "nor this"])  # consolidation falls back (deterministic)
    report = library.ingest(str(tutorials / "knife-care.md"), book="kitchen", refine_rounds=1).tutorials[0]

    stored = library.store.rows("questions", "book = 'kitchen'")
    assert {q["kind"] for q in stored} == {"generated"}
    assert {q["answer"]: q["question"] for q in stored} == QUESTIONS
    for q in stored:  # every question is grounded in the segment the model named
        evidence = json.loads(q["evidence"])
        assert qs.contains(evidence["quote"], q["answer"]) and evidence["quote"] in KNIFE
    assert any("harvest: dropped 3 question(s)" in w for w in report.warnings), report.warnings
    assert report.questions_harvested == 4

    # the fact no skill held was failed, judged by the model (no), and repaired with the skill it wrote
    prompts = model.user_prompts()
    judged = [p for p in prompts if p.startswith("Does one of these skills")]
    repaired = [p for p in prompts if p.startswith("A book of skills failed")]
    assert any("Which kind of knife is safer?" in p for p in judged)
    assert any("Expected answer: a sharp knife" in p and "Passage: A sharp knife is safer" in p for p in repaired)
    (skill,) = [s for s in library.skills("kitchen") if s.author == "refine" and s.name == "Remember a sharp knife"]
    assert skill.steps == ["Use a sharp knife, as taught"] and "Which kind of knife is safer?" in skill.when_to_use
    assert skill.evidence[0].quote == "A sharp knife is safer than a dull one."
    assert report.pass_rate_before < 1.0 and report.pass_rate_after >= report.pass_rate_before
    assert report.llm.calls == len(model.requests)


def test_the_model_judges_what_phrase_matching_misses(model):
    from tutorialbook.llm.refine import LLMJudge
    from tutorialbook.skills.questions import Question

    question = Question("q1", "t1", "generated", "Where should knives be kept?", "magnetic strip", {})
    skills = [{"id": "s_one", "name": "Hang knives on a magnet bar", "steps": '["Hang them on a magnet bar"]'},
              {"id": "s_two", "name": "Dry the knife", "steps": '["Dry it at once"]'}]
    judge = LLMJudge(LLM(LiteLLMBackend("openai/scripted", api_base=model.url), timeout=20))
    model.script.append('{"passed": true, "skill_id": "s_one", "reason": "a magnet bar is a magnetic strip"}')
    verdict = judge(question, skills)
    assert (verdict.passed, verdict.skill_id, verdict.rank) == (True, "s_one", 1)
    assert not judge(question, []).passed and len(model.requests) == 1  # nothing retrieved: nothing to ask
    model.script.extend(['{"passed": true, "skill_id": "s_nine"}'] * 3)  # an id it was not shown ...
    verdict = judge(question, skills)
    assert not verdict.passed and len(model.requests) == 4  # ... is retried, then not trusted
    assert "needs the id of one listed skill" in model.requests[-1]["messages"][-1]["content"]


# -- sampling through the MCP client ---------------------------------------------------------

class Sampler:
    """The client's model: the same scripted brain, answering sampling/createMessage."""

    def __init__(self):
        self.prompts: list[str] = []

    async def __call__(self, context, params):
        prompt = params.messages[0].content.text
        self.prompts.append(prompt)
        return CreateMessageResult(role="assistant", model="client-model",
                                   content=TextContent(type="text", text=brain(prompt)))


def sampling_server(tmp_path):
    return create_server(Settings(store=str(tmp_path / "store"), llm="sampling"))


@pytest.mark.asyncio
@pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")  # create_message: sampling is deprecated in 2026
async def test_sampling_in_a_legacy_session_consolidates_and_navigates(tmp_path, tutorials):
    sampler = Sampler()
    async with Client(sampling_server(tmp_path), sampling_callback=sampler, mode="legacy") as client:
        assert client.protocol_version == "2025-11-25"
        result = await client.call_tool("ingest_tutorial", {"source": str(tutorials), "book": "kitchen",
                                                            "refine_rounds": 0})
        assert not result.is_error, result.content
        reports = result.structured_content["tutorials"]
        assert all(r["llm"]["model"] == "sampling" and r["llm"]["calls"] == 1 for r in reports)
        assert all(r["llm"]["prompt_tokens"] is None for r in reports)  # the client reports no counts
        toc = await client.call_tool("browse_toc", {"book": "kitchen"})
        titles = [c["title"] for c in toc.structured_content["children"]]
        assert sorted(titles) == ["Model chapter: Dicing an onion", "Model chapter: Knife care"]

        sampler.prompts.clear()
        found = await client.call_tool("retrieve_skill", {"query": "how do I dice an onion", "book": "kitchen",
                                                          "mode": "toc", "k": 2})
        assert not found.is_error, found.content
        route = found.structured_content["route"]
        chosen = [s for s in route if s["chosen"]]
        assert chosen[0]["title"] == "Model chapter: Dicing an onion" and chosen[0]["reason"].startswith("model:")
        assert len(sampler.prompts) == max(s["depth"] for s in route)
        assert all(p.startswith("Find where") for p in sampler.prompts)


@pytest.mark.asyncio
async def test_sampling_in_a_2026_session_navigates_through_resolvers(tmp_path, tutorials):
    Library(store=str(tmp_path / "store")).ingest(str(tutorials), book="kitchen", refine_rounds=0)
    sampler = Sampler()
    async with Client(sampling_server(tmp_path), sampling_callback=sampler) as client:
        assert client.protocol_version == "2026-07-28"
        found = await client.call_tool("retrieve_skill", {"query": "how do I dice an onion", "book": "kitchen",
                                                          "mode": "toc", "k": 2})
        assert not found.is_error, found.content
        body = found.structured_content
        chosen = [s for s in body["route"] if s["chosen"]]
        assert chosen[0]["title"] == "Dicing an onion" and chosen[0]["reason"].startswith("model: 'Dicing an onion'")
        assert len(sampler.prompts) == max(s["depth"] for s in body["route"])  # one sample per level
        assert any("n_invented0000" in w for w in body["warnings"])
        assert body["llm"]["model"] == "sampling"

        # an ingest needs many requests mid-call: a 2026 session cannot carry them, and says so
        sampler.prompts.clear()
        (tmp_path / "more").mkdir()
        (tmp_path / "more" / "bread.md").write_text("# Bread\n\nKnead the dough for ten minutes.\n")
        result = await client.call_tool("ingest_tutorial", {"source": str(tmp_path / "more"), "book": "kitchen",
                                                            "refine_rounds": 0})
        (report,) = result.structured_content["tutorials"]
        assert sampler.prompts == [] and report["llm"]["calls"] == 0
        assert any("2026-07-28 session has no back-channel" in w for w in report["warnings"]), report["warnings"]


@pytest.mark.asyncio
async def test_sampling_without_a_client_model_falls_back_with_a_warning(tmp_path, tutorials):
    Library(store=str(tmp_path / "store")).ingest(str(tutorials), book="kitchen", refine_rounds=0)
    for mode in ("auto", "legacy"):
        async with Client(sampling_server(tmp_path), mode=mode) as client:  # no sampling_callback
            found = await client.call_tool("retrieve_skill", {"query": "dice an onion", "book": "kitchen",
                                                              "mode": "toc"})
            assert not found.is_error, found.content
            body = found.structured_content
            assert body["skills"] and [s for s in body["route"] if s["chosen"]]
            assert any("does not offer sampling" in w for w in body["warnings"]), body["warnings"]
            assert all(not s["reason"].startswith("model:") for s in body["route"])
            hybrid = await client.call_tool("retrieve_skill", {"query": "dice an onion", "book": "kitchen"})
            assert hybrid.structured_content["warnings"] == []


def test_sampling_outside_mcp_explains_itself(tmp_path, tutorials):
    library = Library(store=str(tmp_path / "store"), llm="sampling")
    report = library.ingest(str(tutorials / "knife-care.md"), book="kitchen", refine_rounds=0).tutorials[0]
    assert report.llm.calls == 0 and any("without an MCP client" in w for w in report.warnings)
    assert library.browse("kitchen").children[0].title == "Knife care"  # the deterministic outline


def test_cli_flag_sets_the_model(tmp_path, model, tutorials, capsys):
    from tutorialbook.server.cli import main

    code = main(["--store", str(tmp_path / "store"), "ingest", str(tutorials / "knife-care.md"), "--book", "kitchen",
                 "--refine-rounds", "0", "--llm", "openai/scripted", "--llm-api-base", model.url])
    assert code == 0
    out = capsys.readouterr().out
    assert "llm: openai/scripted, 1 calls, 100+20 tokens" in out
    assert Library(store=str(tmp_path / "store")).browse("kitchen").children[0].title == "Model chapter: Knife care"
