"""What the Strands adapter's wrappers share: its name in contexts, and the context fields of an agent."""

from __future__ import annotations

from typing import Any

FRAMEWORK = "strands"


def agent_fields(agent: Any) -> dict[str, Any]:
    """`agent` / `agent_role` of a context: the Strands agent and its name (what ``agents=`` filters match)."""
    return {"agent": agent, "agent_role": getattr(agent, "name", None)}


def agent_of(invocation_state: Any) -> Any:
    """The agent of a request: Strands puts it in the invocation state of every run."""
    return invocation_state.get("agent") if isinstance(invocation_state, dict) else None
