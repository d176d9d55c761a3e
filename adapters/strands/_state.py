"""What the Strands adapter's wrappers share: its name in contexts, and the context fields of an agent."""

from __future__ import annotations

import weakref
from typing import Any

FRAMEWORK = "strands"


def agent_fields(agent: Any) -> dict[str, Any]:
    """`agent` / `agent_role` of a context: the Strands agent and its name (what ``agents=`` filters match)."""
    return {"agent": agent, "agent_role": getattr(agent, "name", None)}


def agent_of(invocation_state: Any) -> Any:
    """The agent of a request: Strands puts it in the invocation state of every run."""
    return invocation_state.get("agent") if isinstance(invocation_state, dict) else None


_model_calls: weakref.WeakKeyDictionary[Any, list[int]] = weakref.WeakKeyDictionary()
"""Per agent, the model requests its invocation in progress made so far (Strands runs one invocation
of an agent at a time; an agent used as a tool is another agent, with its own count), in a one-item
list counted in place: a request stores nothing (no new weak reference, no dict write)."""


def new_invocation(agent: Any) -> None:
    """``agent`` starts an invocation (``stream_async``): its next model request is its first."""
    _model_calls.pop(agent, None)


def next_model_call(agent: Any) -> int:
    """A model request of ``agent``: its ``ctx.iterations``, the invocation's requests before it, from 0."""
    if agent is None:
        return 0
    calls = _model_calls.get(agent)
    if calls is None:
        _model_calls[agent] = [1]
        return 0
    calls[0] += 1
    return calls[0] - 1
