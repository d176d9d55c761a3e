"""What the pieces of the LlamaIndex adapter share: its name, the context fields, the run in progress.

A LlamaIndex run is a workflow: ``run()`` schedules it and returns a handler at once, and
the steps run as asyncio tasks created inside ``run()``. Those tasks copy the context of
the ``run()`` call, so `RunState`, set around that call, is what every step, model request
and tool call of the run sees (a run nested inside a tool sees its outer run's state).
"""

from __future__ import annotations

import time
from contextvars import ContextVar
from typing import Any

FRAMEWORK = "llama-index"


def agent_fields(agent: Any) -> dict[str, Any]:
    """The context fields of every point an agent serves."""
    return {"agent": agent, "agent_role": getattr(agent, "name", None)}


class RunState:
    """One outermost run: which agent's turn is open (an ``AgentWorkflow`` hands off between agents)."""

    __slots__ = ("turn_agent", "turn_started", "turn_fields")

    def __init__(self) -> None:
        self.turn_agent: str | None = None
        self.turn_started = 0.0
        self.turn_fields: dict[str, Any] = {}

    def open_turn(self, agent: Any) -> None:
        """`agent` takes its turn (its first step in the run, or after a handoff)."""
        self.turn_agent = getattr(agent, "name", None)
        self.turn_started = time.perf_counter()
        self.turn_fields = agent_fields(agent)


current_run: ContextVar[RunState | None] = ContextVar("hookport_llama_index_run", default=None)


model_calls: ContextVar[dict[int, int] | None] = ContextVar("hookport_llama_index_model_calls", default=None)
"""Per agent (by ``id``), the model requests the ``Workflow.run`` in progress made so far. Every run
sets its own (a run nested in a tool of another run too), and its step tasks copy it from ``run()``,
so each agent of an ``AgentWorkflow`` and each agent run inside a tool counts its own requests."""


def next_model_call(agent: Any) -> int:
    """A model request of `agent`: its ``ctx.iterations``, the run's requests of that agent before it, from 0."""
    counts = model_calls.get()
    if counts is None:
        return 0
    calls = counts.get(id(agent), 0)
    counts[id(agent)] = calls + 1
    return calls
