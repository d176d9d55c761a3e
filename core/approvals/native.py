"""``wait = "native"``: the framework's own human-in-the-loop pause, where it has one.

| framework | how the run pauses and resumes |
|---|---|
| LangGraph (``langchain``) | the tool call raises LangGraph's ``interrupt`` with the request; ``graph.invoke(Command(resume=True))`` (or ``False``, ``{"approve": False, "reason": ...}``, or any other value, e.g. ``"decided"``, after a decision in the store) resumes it; a checkpointer and a ``thread_id`` are LangGraph's requirements |
| OpenAI Agents SDK (``openai-agents``) | the SDK's ``needs_approval``: the run stops with ``result.interruptions``; ``state.approve(item)`` / ``state.reject(item)`` and ``Runner.run(agent, state)`` resume it (see `hookport.approvals.sdk_approval`) |

Not offered, and why (the call is refused with this reason, never let through):
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, Optional

from hookport.approvals.errors import AlreadyDecided, ApprovalError
from hookport.approvals.model import ApprovalRequest
from hookport.approvals.store import ApprovalStore
from hookport.approvals.waiting import Call, Verdict, ask, settle
from hookport.errors import PAUSE, let_through

__all__ = ["NOT_OFFERED", "NotOffered", "pause", "passes"]

NOT_OFFERED = {
    "crewai": "CrewAI's human input (human_input=True) asks once per task on the console, not per tool call",
    "praisonai": "PraisonAI has no pause that a tool call can raise and a later run resume",
    "strands": "Strands interrupts (tool_context.interrupt) are raised from inside the tool body; a pre-call hook "
               "cannot resume them through the store yet",
    "pydantic-ai": "Pydantic AI's deferred tools need the tool declared with requires_approval when the agent is "
                   "built; a hook cannot make an existing tool deferred",
    "google-adk": "ADK's tool confirmation is requested from inside the tool (tool_context.request_confirmation)",
    "agent-framework": "Agent Framework's approval mode is set on the tool when it is built",
    "autogen": "AutoGen has no tool-call pause that resumes a run",
    "agno": "Agno's confirmation (requires_confirmation) is set on the tool when it is built",
    "smolagents": "smolagents has no pause that a run resumes",
    "dspy": "DSPy has no pause that a run resumes",
    "llama-index": "LlamaIndex workflows' human-in-the-loop events are written into the workflow, not raised by a tool call",
    "openai": "the bare SDK has no agent run to pause (use block or defer)",
    "anthropic": "the bare SDK has no agent run to pause (use block or defer)",
    "mcp": "MCP elicitation asks the client for input; it is not a decision a later call can reuse",
}
"""Frameworks without a native pause here, each with the reason the refusal gives."""

__doc__ = (__doc__ or "") + "".join(f"\n- {name}: {why}" for name, why in NOT_OFFERED.items())


class NotOffered(ApprovalError):
    """``wait = "native"`` on a framework (or a call site) that has no pause hookport can use."""


def passes(error: BaseException) -> bool:
    """True for a framework's pause raised through `pause` (it must reach the framework as it is)."""
    return getattr(error, PAUSE, False) is True


def pause(store: ApprovalStore, call: Call, reason: str, note: Callable[[ApprovalRequest, bool], None], ctx: Any) -> Verdict:
    """The verdict for `call`: from the store if already decided, else the framework pauses the run and
    the answer it resumes with (or the store's decision meanwhile) decides."""
    framework = call.framework or ""
    pauser = PAUSERS.get(framework)
    if pauser is None:
        why = NOT_OFFERED.get(framework, "hookport has no native pause for it")
        raise NotOffered(f"wait = \"native\" is not offered by {framework or 'this call site'}: {why}; "
                         "use wait = \"block\" or \"defer\"")
    request, created = ask(store, call)
    note(request, created)
    verdict = settle(store, request)
    if verdict is not None:
        return verdict
    if request.state == "approved":  # consumed by a racing call: this one asks anew
        request, created = ask(store, call)
        note(request, created)
    answer = pauser(request, reason, ctx)
    return resumed(store, request, answer, BY.get(framework, f"{framework} resume"))


def resumed(store: ApprovalStore, request: ApprovalRequest, answer: Any, by: str) -> Verdict:
    """Apply the value a run resumed with: a decision (recorded in the store), or None to read the store."""
    decision, why = as_decision(answer)
    if decision is not None:
        try:
            request = store.decide(request.id, decision, by=by, reason=why)
        except AlreadyDecided:  # decided in the inbox meanwhile: that decision stands
            request = store.get(request.id)
    else:
        request = store.get(request.id)
    return settle(store, request) or Verdict("approval_pending", request)


def as_decision(answer: Any) -> tuple[Optional[bool], Optional[str]]:
    """``True`` / ``"approve"`` / ``{"approve": True}`` approve; ``False`` / ``"deny"`` / ``{"approve": False,
    "reason": ...}`` deny; anything else decides nothing (the store's decision applies)."""
    if isinstance(answer, dict):
        reason = answer.get("reason")
        answer = answer.get("approve", answer.get("approved"))
        return (answer, reason) if isinstance(answer, bool) else (None, None)
    if isinstance(answer, bool):
        return answer, None
    if isinstance(answer, str) and answer.lower() in ("approve", "approved", "yes", "deny", "denied", "no"):
        return answer.lower() in ("approve", "approved", "yes"), None
    return None, None


def langgraph(request: ApprovalRequest, reason: str, ctx: Any) -> Any:
    """LangGraph's ``interrupt``: the first time it raises (the run pauses), on resume it returns the answer."""
    if "langgraph" not in sys.modules:
        raise NotOffered("wait = \"native\" on LangChain needs a LangGraph graph (LangGraph is not loaded)")
    from langgraph.config import get_config
    from langgraph.errors import GraphBubbleUp
    from langgraph.types import interrupt

    try:
        get_config()
    except RuntimeError:
        raise NotOffered("wait = \"native\": this tool call is not running inside a LangGraph graph") from None
    try:
        return interrupt({"hookport_approval": request.id, "tool": request.tool, "arguments": request.arguments,
                          "run_id": request.run_id, "reason": reason})
    except GraphBubbleUp as paused:
        raise let_through(paused)


def openai_agents(request: ApprovalRequest, reason: str, ctx: Any) -> Any:
    """The SDK paused the run before this call (`hookport.pauses`, ``needs_approval``) and was resumed with
    ``state.approve(item)`` or ``state.reject(item)``: its run state holds the answer."""
    context = (getattr(ctx, "metadata", None) or {}).get("run_context")
    checker = getattr(context, "is_tool_approved", None)
    status = checker(ctx.tool_name, ctx.tool_call_id) if callable(checker) and ctx.tool_call_id else None
    if status is None:
        raise NotOffered("wait = \"native\": the OpenAI Agents SDK did not ask for this call's approval (a tool "
                         "called outside a run's approval step)")
    return {"approve": bool(status), "reason": None if status else "rejected in the run state"}


def wants_pause(framework: str) -> bool:
    """Whether `framework` pauses before its call site (the PRE_TOOL_CALL hook then reads the answer)."""
    return framework in BEFORE_CALL_SITE


PAUSERS: dict[str, Callable[[ApprovalRequest, str, Any], Any]] = {"langchain": langgraph, "openai-agents": openai_agents}
BEFORE_CALL_SITE = frozenset({"openai-agents"})
"""Frameworks that decide on approval while planning a turn, before the tool's call site (`hookport.pauses`)."""
BY = {"openai-agents": "openai-agents run state"}
