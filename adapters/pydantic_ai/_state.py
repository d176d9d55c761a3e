"""What the pieces of the Pydantic AI adapter share: its name, whether it is on, the stream mode.

`buffered_streaming()` / `set_stream_mode("buffered")` make a streamed model request
answer-at-once while model hooks exist, so that a POST_MODEL_CALL replacement (or a wrap
hook's retry) reaches the consumer of ``run_stream``; by default (``"passthrough"``) the
stream reaches the consumer as the model produces it and POST runs after the last chunk.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Literal

from hookport.points import ExtensionPoint, InterceptionPoint
from hookport.registry import any_hooks

FRAMEWORK = "pydantic-ai"

P = InterceptionPoint
RUN_POINTS: tuple[Any, ...] = (
    P.EXECUTION_START, P.INPUT, P.OUTPUT, P.EXECUTION_END,
    ExtensionPoint.AGENT_TURN_START, ExtensionPoint.AGENT_TURN_END,
    P.PRE_MODEL_CALL, P.POST_MODEL_CALL, ExtensionPoint.WRAP_MODEL_CALL,
    P.PRE_TOOL_CALL, P.POST_TOOL_CALL, ExtensionPoint.WRAP_TOOL_CALL,
)
"""The points of a run, its model requests and its tools: a run starting with a hook registered for one
of them opens an execution (the run's id, which their contexts carry)."""


def run_hooks_registered() -> bool:
    """Whether a hook is registered (here, scoped ones included) for a point of `RUN_POINTS`."""
    return any_hooks(RUN_POINTS)


StreamMode = Literal["passthrough", "buffered"]
_MODES = ("passthrough", "buffered")


class _Switch:
    """Whether the adapter is installed: the handlers hookport wrapped for runs that outlive an
    uninstall (an ``agent.iter`` still open) let everything through from then on."""

    __slots__ = ("on",)

    def __init__(self) -> None:
        self.on = False


ACTIVE = _Switch()

_process_mode: StreamMode = "passthrough"
_scoped_mode: ContextVar[StreamMode | None] = ContextVar("hookport_pydantic_ai_stream_mode", default=None)


def _checked(mode: str) -> StreamMode:
    if mode not in _MODES:
        raise ValueError(f"stream mode must be one of {_MODES}, not {mode!r}")
    return mode  # type: ignore[return-value]


def set_stream_mode(mode: str) -> None:
    """Set the stream mode for the whole process."""
    global _process_mode
    _process_mode = _checked(mode)


def stream_mode() -> StreamMode:
    scoped = _scoped_mode.get()
    if scoped is not None:
        return scoped
    env = os.environ.get("HOOKPORT_PYDANTIC_AI_STREAM_MODE")
    return _checked(env) if env else _process_mode


@contextmanager
def buffered_streaming() -> Iterator[None]:
    """A block (and the tasks it starts) in which streamed model requests are buffered."""
    token = _scoped_mode.set("buffered")
    try:
        yield
    finally:
        _scoped_mode.reset(token)


def agent_fields(agent: Any) -> dict[str, Any]:
    """The context fields every point of one agent run carries."""
    return {"agent": agent, "agent_role": getattr(agent, "name", None), "framework": FRAMEWORK}


_current_agent: ContextVar[dict[str, Any]] = ContextVar("hookport_pydantic_ai_agent", default={})


def enter_agent(fields: dict[str, Any]) -> None:
    """Set in ``wrap_run`` before the run body: Pydantic AI carries it to the task driving the graph."""
    _current_agent.set(fields)


def current_agent() -> dict[str, Any]:
    return _current_agent.get()
