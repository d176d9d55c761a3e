"""What the ADK adapter's wrappers share: its name in contexts, and the context fields of an agent."""

from __future__ import annotations

from typing import Any

FRAMEWORK = "google-adk"


def agent_fields(agent: Any) -> dict[str, Any]:
    """`agent` / `agent_role` of a context: the ADK agent and its name (what ``agents=`` filters match)."""
    return {"agent": agent, "agent_role": getattr(agent, "name", None)}
