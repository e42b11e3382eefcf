"""The connected MCP client's own model (``TUTORIALBOOK_LLM=sampling``), reached through the
MCP session: everything about sessions and protocol eras is here, not in llm/.

* :class:`SamplingBackend` — ``sampling/createMessage`` to the client, from the worker thread
  a tool's blocking work runs in. mcp 2.3 sends server-initiated requests mid-call only on
  2025-era sessions; :func:`sampling_llm` (ingest) says honestly whether that applies.
* On a 2026-07-28 session there is no back-channel, and the one portable form is a *resolver*
  (``Resolve`` returning ``Sample``) that runs before the tool body. :func:`sampling_resolver`
  builds a chain of them for the TOC descent of ``retrieve_skill``: each replays the descent
  (llm/toc.py ``navigate``) with the replies gathered so far
  (:class:`~tutorialbook.llm.client.ReplayBackend`) up to the first request with no reply, and
  asks the client for it; the tool body then runs the same descent on the recorded replies.
  The requests are built only from the query and the book's tree, so they render identically
  on every round, as the protocol requires. The chain works on 2025-era sessions too (there
  each ``Sample`` is sent as a standalone request). At most ``MAX_SAMPLES`` requests are made
  (levels plus retries); past that the descent falls back to the beam, with a warning.

No ``from __future__ import annotations`` here: the MCP SDK reads the resolvers' annotations
(``Context``, ``Annotated[..., Resolve(...)]``) at registration, and they are local names.
"""

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from pydantic import BaseModel

from tutorialbook.llm.client import (
    DEFAULT_TIMEOUT, LLM, SAMPLING, BackendError, Messages, NeedReply, ReplayBackend, Reply, request_digest, spec_of,
)
from tutorialbook.llm.toc import navigate

if TYPE_CHECKING:
    from tutorialbook.memory.tree import Tree

MAX_SAMPLES = 6  # sampling requests one retrieve_skill call may make through resolvers


class SamplingBackend:
    """``sampling/createMessage`` to the connected client, sent from the worker thread a tool's
    blocking work runs in (``anyio.from_thread``). Works on sessions with a back-channel
    (2025-era, stateful); the client reports no token counts."""

    name = SAMPLING

    def __init__(self, session, related_request_id=None):
        self.session = session
        self.related_request_id = related_request_id

    def complete(self, system: str, messages: Messages, schema: type[BaseModel] | None, max_tokens: int,
                 timeout: float) -> Reply:
        import anyio
        import anyio.from_thread
        from mcp.shared.exceptions import MCPError, NoBackChannelError

        wire = sampling_messages(messages)

        async def ask():
            with anyio.fail_after(timeout):
                return await self.session.create_message(
                    wire, max_tokens=max_tokens, system_prompt=system, temperature=0,
                    related_request_id=self.related_request_id)

        try:
            result = anyio.from_thread.run(ask)
        except TimeoutError as exc:
            raise BackendError(f"the client's model did not answer within {timeout:g} s", timeout=True) from exc
        except NoBackChannelError as exc:
            raise BackendError(f"no back-channel to the client: {exc}", fatal=True) from exc
        except MCPError as exc:  # the client refused (a person declined, or no model)
            raise BackendError(f"the client refused the sampling request: {exc}") from exc
        return Reply(text=sampled_text(result))


def sampling_messages(messages: Messages) -> list:
    from mcp.types import SamplingMessage, TextContent

    return [SamplingMessage(role=m["role"], content=TextContent(type="text", text=m["content"])) for m in messages]


def sampled_text(result) -> str:
    """The text of a ``CreateMessageResult`` ('' when the client answered with something else)."""
    content = getattr(result, "content", None)
    if isinstance(content, list):
        return "".join(getattr(c, "text", "") for c in content if getattr(c, "type", "") == "text")
    return getattr(content, "text", "") if getattr(content, "type", "") == "text" else ""


def sampling_llm(ctx, settings) -> LLM | None:
    """For a tool that needs many model calls while it runs (ingest): the client's model
    through ``sampling/createMessage`` when the session can carry it; an unavailable LLM
    that says why when it cannot; ``None`` when sampling is not the setting."""
    if spec_of(settings).lower() != SAMPLING:
        return None
    timeout = float(getattr(settings, "llm_timeout", None) or DEFAULT_TIMEOUT)
    capabilities = getattr(ctx, "client_capabilities", None)
    if capabilities is None or capabilities.sampling is None:
        return LLM.unavailable(SAMPLING, "sampling: the connected client does not offer sampling, so the "
                                         "deterministic path was used")
    session = ctx.session
    if not getattr(session, "can_send_request", False):
        return LLM.unavailable(SAMPLING, (
            f"sampling: this {ctx.protocol_version or 'stateless'} session has no back-channel for the many "
            "model requests an ingest makes while it runs (mcp 2.3 sends sampling requests mid-call only on "
            "2025-era stateful sessions; 2026-07-28 allows only requests resolved before a tool starts), so "
            "the deterministic path was used; set TUTORIALBOOK_LLM to a litellm model to use one here"))
    return LLM(SamplingBackend(session, getattr(ctx, "request_id", None)), name=SAMPLING, timeout=timeout)


@dataclass
class SampledPlan:
    """What the resolvers gathered for one retrieve_skill call."""

    active: bool = False
    replies: dict[str, str] = field(default_factory=dict)  # request digest -> the client's reply text
    pending: NeedReply | None = None  # the next request, if the descent still needs one
    unavailable: str = ""  # why sampling could not be used (for the result's warnings)


def plan_llm(plan: "SampledPlan | None") -> LLM | None:
    """The LLM the tool body passes to ``Library.retrieve``: the recorded replies replayed,
    an unavailable LLM that says why, or ``None`` (not sampling: the settings decide)."""
    if plan is None or not isinstance(plan, SampledPlan):
        return None
    if plan.unavailable:
        return LLM.unavailable(SAMPLING, plan.unavailable)
    if not plan.active:
        return None
    exhausted = (f"the descent needed more than the {MAX_SAMPLES} sampling requests one call may make"
                 if plan.pending is not None else "")
    return LLM(ReplayBackend(plan.replies, exhausted=exhausted), name=SAMPLING)


def replan(tree: "Tree", query: str, replies: dict[str, str]) -> NeedReply | None:
    """Replay the descent on the replies so far; the first request still unanswered."""
    try:
        navigate(tree, query, LLM(ReplayBackend(replies, planning=True), name=SAMPLING))
    except NeedReply as need:
        return need
    return None


def sampling_resolver(authorize: Callable[[Any, str], Any], steps: int = MAX_SAMPLES):
    """The resolver a tool annotates a parameter with: ``Annotated[Any, Resolve(resolver)]``.
    It needs tool arguments ``query``, ``book`` and ``mode``. ``authorize(ctx, book)`` returns
    the Library when the caller may read the book, else ``None`` (the tool body then raises
    its usual error; no title of the book goes to the client before that)."""
    from typing import Annotated

    import anyio.to_thread
    from mcp.server.mcpserver import Context, Resolve, Sample
    from mcp_types.version import is_version_at_least

    async def start(ctx: Context, query: str, book: str, mode: str) -> Any:
        settings = getattr(getattr(ctx.request_context.lifespan_context, "library", None), "settings", None)
        if mode != "toc" or settings is None or spec_of(settings).lower() != SAMPLING:
            return SampledPlan()
        capabilities = ctx.client_capabilities
        if capabilities is None or capabilities.sampling is None:
            return SampledPlan(unavailable="sampling: the connected client does not offer sampling, so the TOC "
                                           "was descended by the deterministic beam")
        version = ctx.protocol_version
        if not (version and is_version_at_least(version, "2026-07-28")) and not ctx.session.can_send_request:
            return SampledPlan(unavailable=f"sampling: this {version or 'stateless'} session has no back-channel "
                                           "(stateless HTTP), so the TOC was descended by the deterministic beam")

        def first() -> SampledPlan:
            library = authorize(ctx, book)
            if library is None:
                return SampledPlan()
            try:
                tree = library.tree(book)
            except Exception:  # noqa: BLE001 - the tool body reports a missing book
                return SampledPlan()
            return SampledPlan(active=True, pending=replan(tree, query, {}))

        return await anyio.to_thread.run_sync(first)

    def make_sampler(previous):
        async def sampler(plan: Annotated[Any, Resolve(previous)]) -> Sample | None:
            if not plan.active or plan.pending is None:
                return None
            need = plan.pending
            return Sample(sampling_messages(need.messages), max_tokens=need.max_tokens, system_prompt=need.system,
                          temperature=0)
        return sampler

    def make_planner(previous, sampler):
        async def planner(ctx: Context, query: str, book: str, plan: Annotated[Any, Resolve(previous)],
                          sampled: Annotated[Any, Resolve(sampler)]) -> Any:
            if sampled is None or not plan.active or plan.pending is None:
                return plan
            need = plan.pending
            replies = {**plan.replies, request_digest(need.system, need.messages): sampled_text(sampled)}

            def again() -> SampledPlan:
                try:
                    library = authorize(ctx, book)
                    tree = library.tree(book) if library is not None else None
                except Exception:  # noqa: BLE001 - the book went away between rounds: ask no more
                    tree = None
                return SampledPlan(active=True, replies=replies,
                                   pending=replan(tree, query, replies) if tree is not None else None)

            return await anyio.to_thread.run_sync(again)
        return planner

    resolver = start
    for _ in range(steps):
        resolver = make_planner(resolver, make_sampler(resolver))
    return resolver
