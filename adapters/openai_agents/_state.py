"""What one run of the Agents SDK carries along: which agent holds the turn, and its model calls.

A `RunScope` is set by every ``AgentRunner.run`` / ``run_streamed`` call (a
nested run, e.g. an agent used as a tool, gets its own) in a ContextVar, so it
follows the run into the tasks the SDK starts (function tools run as
concurrent tasks, a streamed run's loop is a background task), each of which
copies the context.
"""

from __future__ import annotations

from contextvars import ContextVar
from time import perf_counter
from typing import Any

FRAMEWORK = "openai-agents"


class RunScope:
    """One SDK run: the agent holding the turn (since when), the agent of the step in progress."""

    __slots__ = ("turn_agent", "turn_started", "step_agent", "model_calls")

    def __init__(self) -> None:
        self.turn_agent: Any = None
        self.turn_started: float = 0.0
        self.step_agent: Any = None
        self.model_calls = 0

    def take_turn(self, agent: Any) -> None:
        """Make `agent` the one holding the turn, from now."""
        self.turn_agent = agent
        self.turn_started = perf_counter()


_scope: ContextVar[RunScope | None] = ContextVar("hookport_openai_agents_run", default=None)


def current_scope() -> RunScope | None:
    return _scope.get()


def set_scope(scope: RunScope | None) -> Any:
    """Make `scope` the current run's (each ``run`` / ``run_streamed`` call sets a fresh one)."""
    return _scope.set(scope)


def reset_scope(token: Any) -> None:
    reset(_scope, token)


def current_agent() -> Any:
    scope = _scope.get()
    return scope.step_agent if scope is not None else None


def agent_name(agent: Any) -> str | None:
    name = getattr(agent, "name", None)
    return name if isinstance(name, str) and name else None


def reset(var: ContextVar[Any], token: Any) -> None:
    try:
        var.reset(token)
    except ValueError:  # left in another context (a task finished elsewhere)
        var.set(None)
