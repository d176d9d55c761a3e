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


class Latch:
    """The first hook abort of an outermost run, shared with the runs nested in it."""

    __slots__ = ("error",)

    def __init__(self) -> None:
        self.error: BaseException | None = None


class RunScope:
    """One SDK run: the agent holding the turn (since when), the agent of the step in progress,
    and the abort latch of the outermost run."""

    __slots__ = ("turn_agent", "turn_started", "step_agent", "model_calls", "latch")

    def __init__(self, parent: RunScope | None = None) -> None:
        self.turn_agent: Any = None
        self.turn_started: float = 0.0
        self.step_agent: Any = None
        self.model_calls = 0
        self.latch = parent.latch if parent is not None else Latch()

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


def record(error: BaseException) -> BaseException:
    """Keep a hook abort as the run's (the first one wins); returns `error` to raise.

    A function tool's body that runs an agent (``Agent.as_tool``) is wrapped by
    the SDK's tool error handling, which would turn an abort inside it into a
    tool output; the latch lets the outer run stop on it anyway."""
    scope = _scope.get()
    if scope is not None and scope.latch.error is None:
        scope.latch.error = error
    return error


def check_latch() -> None:
    """Raise the run's kept abort, if any (a cheap no-op otherwise)."""
    scope = _scope.get()
    if scope is not None and scope.latch.error is not None:
        raise scope.latch.error


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
