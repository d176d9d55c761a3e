"""What one agent run shares with the middleware under it (a ContextVar, so it follows
the run into the framework's tasks and parallel tool calls)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Literal

from hookport.contexts import InterceptionContext, set_shared_fields
from hookport.errors import HookAborted

FRAMEWORK = "agent-framework"


class Switch:
    """On while the adapter is installed: a run wrapper still on the stack of a run begun
    before ``uninstall()`` lets the rest of it through."""

    __slots__ = ("on",)

    def __init__(self) -> None:
        self.on = False


ACTIVE = Switch()


class RunState:
    """One ``Agent.run``: its agent, the model calls it has made (``ctx.iterations``: counted
    whether or not step hooks are registered), the tool-loop step in progress (numbered from 1,
    only kept while step hooks are registered), and an abort a tool hook raised where the
    framework would have turned it into a tool error."""

    __slots__ = ("agent", "name", "model_calls", "iteration", "step_started", "abort")

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.name: str = getattr(agent, "name", None) or type(agent).__name__
        self.model_calls = 0
        self.iteration = 0
        self.step_started: float | None = None
        self.abort: HookAborted | None = None


def set_run_fields(ctx: InterceptionContext, run: RunState | None) -> None:
    """A call's shared context fields: its run's agent and name (`run` None: outside any run followed)."""
    if run is None:
        set_shared_fields(ctx, None, None, None, None, None, FRAMEWORK, None)
    else:
        set_shared_fields(ctx, run.agent, run.name, None, None, None, FRAMEWORK, None)


current_run: ContextVar[RunState | None] = ContextVar("hookport_agent_framework_run", default=None)
in_plain_run: ContextVar[bool] = ContextVar("hookport_agent_framework_plain_run", default=False)
"""Inside an ``Agent.run`` that started with nothing registered (no `RunState` is kept): a tool
hook's abort there must still leave the run (`AbortEscape`), not become a tool error."""


class AbortEscape(BaseException):
    """Carries a tool hook's `HookAborted` past the framework's ``except Exception``
    around a tool call (which would make it a tool error); the run wrapper unwraps it."""

    def __init__(self, aborted: HookAborted) -> None:
        super().__init__(aborted.reason)
        self.aborted = aborted


StreamMode = Literal["live", "buffered"]
_stream_mode: ContextVar[StreamMode] = ContextVar("hookport_agent_framework_stream_mode", default="live")


def stream_mode() -> StreamMode:
    """``live`` (default): a streamed model request's chunks pass as they come and a POST_MODEL_CALL
    replacement reaches its final response only; ``buffered``: the request is read whole first, so a
    replacement reaches the chunks too."""
    return _stream_mode.get()


def set_stream_mode(mode: StreamMode) -> None:
    if mode not in ("live", "buffered"):
        raise ValueError(f"stream mode must be 'live' or 'buffered', not {mode!r}")
    _stream_mode.set(mode)


@contextmanager
def buffered_streaming() -> Iterator[None]:
    """A block in which streamed model requests are read whole before POST_MODEL_CALL runs."""
    token = _stream_mode.set("buffered")
    try:
        yield
    finally:
        _stream_mode.reset(token)
