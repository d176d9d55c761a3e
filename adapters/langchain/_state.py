"""What every LangChain wrapper shares: the current run, the sticky abort, stream modes.

A `RunState` lives in a ContextVar for the length of the outermost run (a
compiled graph, a `create_agent` agent, an LCEL sequence). LangChain and
LangGraph copy contexts into their thread pools and tasks, so tools run by
`ToolNode` in threads see the same object. It carries the agent's name into
every hook context fired inside the run, and the *sticky abort*: once a
`HookAborted` passed through any wrapper, every later model, tool or step call
of the run re-raises it and the run's entry point raises it even if a layer in
between (a `handle_tool_errors=True` ToolNode, a fallback, a retry middleware
with ``on_failure="continue"``) swallowed it.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from typing import Any, Literal, TypeVar

from hookport import registry
from hookport.boundary import Execution, ReentrancyGuard
from hookport.calls import model_hooks_active, tool_hooks_active
from hookport.errors import HookAborted
from hookport.points import ExtensionPoint, InterceptionPoint
from hookport.reentry import is_suppressed

FRAMEWORK = "langchain"
DEFAULT_GRAPH_NAME = "LangGraph"

StreamMode = Literal["passthrough", "buffered"]
STREAM_MODE_ENV = "HOOKPORT_LANGCHAIN_STREAM_MODE"


class RunState:
    """One run of a graph or sequence; nested named graphs get a child sharing the root."""

    __slots__ = ("agent", "agent_role", "root", "aborted", "model_calls", "execution")

    def __init__(self, agent: Any, agent_role: str | None, root: RunState | None = None) -> None:
        self.agent = agent
        self.agent_role = agent_role
        self.root: RunState = root if root is not None else self
        self.aborted: HookAborted | None = None
        self.model_calls = 0
        self.execution: Execution | None = None

    def record(self, error: HookAborted) -> None:
        root = self.root
        if root.aborted is None:
            root.aborted = error

    def next_iteration(self) -> int:
        root = self.root
        count = root.model_calls
        root.model_calls = count + 1
        return count


_run: ContextVar[RunState | None] = ContextVar("hookport_langchain_run", default=None)

def raise_sticky_abort() -> None:
    """Re-raise the run's abort at the next call site: a hook's `HookAborted` that LangChain
    caught somewhere inside the run (`RunState.record`) still ends it."""
    state = _run.get()
    if state is not None and state.root.aborted is not None:
        raise state.root.aborted


model_guard = ReentrancyGuard("langchain_model")
"""Held for a model while its `stream()` runs, so the `invoke()` fallback inside does not dispatch again."""


# -- is any hook there? (the first question of every wrapper; `calls.*_hooks_active` answer it too,
# through three function calls and a generator: these read the chains directly) ----------------

_chains = registry.chains
_PRE_MODEL, _POST_MODEL, _WRAP_MODEL = (
    InterceptionPoint.PRE_MODEL_CALL, InterceptionPoint.POST_MODEL_CALL, ExtensionPoint.WRAP_MODEL_CALL)
_PRE_STEP, _POST_STEP = InterceptionPoint.PRE_STEP, InterceptionPoint.POST_STEP
_PRE_TOOL, _POST_TOOL, _WRAP_TOOL = (
    InterceptionPoint.PRE_TOOL_CALL, InterceptionPoint.POST_TOOL_CALL, ExtensionPoint.WRAP_TOOL_CALL)


def model_hooks_on() -> bool:
    """`hookport.calls.model_hooks_active()`, cheaper: a model call here would run a hook."""
    if is_suppressed():
        return False
    if _chains[_PRE_MODEL] or _chains[_POST_MODEL] or _chains[_WRAP_MODEL]:
        return True
    return bool(registry._open_scopes) and model_hooks_active()


def step_hooks_on() -> bool:
    """A LangGraph node run here would fire PRE_STEP or POST_STEP."""
    if _chains[_PRE_STEP] or _chains[_POST_STEP]:
        return True
    return bool(registry._open_scopes) and (registry.has_hooks(_PRE_STEP) or registry.has_hooks(_POST_STEP))


def tool_hooks_on() -> bool:
    """`hookport.calls.tool_hooks_active()`, cheaper: a tool call here would run a hook."""
    if is_suppressed():
        return False
    if _chains[_PRE_TOOL] or _chains[_POST_TOOL] or _chains[_WRAP_TOOL]:
        return True
    return bool(registry._open_scopes) and tool_hooks_active()


T = TypeVar("T")


def per_object(cache: dict[int, tuple[Any, Any]], obj: Any, compute: Callable[[Any], T]) -> T:
    """`compute(obj)`, remembered while `obj` lives (by identity: tools and graphs are not hashable
    by value); an object that cannot be weakly referenced is computed every time."""
    key = id(obj)
    entry = cache.get(key)
    if entry is not None and entry[0]() is obj:
        return entry[1]  # type: ignore[no-any-return]
    value = compute(obj)
    try:
        cache[key] = (weakref.ref(obj, lambda _, key=key: cache.pop(key, None)), value)
    except TypeError:
        pass
    return value


def current() -> RunState | None:
    return _run.get()


def raise_if_aborted() -> None:
    """Re-raise the run's abort (the sticky flag) at the start of any later call."""
    state = _run.get()
    if state is not None:
        aborted = state.root.aborted
        if aborted is not None:
            raise aborted


def record_abort(error: HookAborted) -> None:
    state = _run.get()
    if state is not None:
        state.record(error)


def context_fields() -> dict[str, Any]:
    """`agent` / `agent_role` for a hook context fired now."""
    state = _run.get()
    if state is None:
        return {"agent": None, "agent_role": None}
    return {"agent": state.agent, "agent_role": state.agent_role}


def set_run(state: RunState | None) -> Token[RunState | None]:
    return _run.set(state)


def reset_run(token: Token[RunState | None], fallback: RunState | None) -> None:
    try:
        _run.reset(token)
    except ValueError:  # reset from another context (an async generator closed elsewhere)
        _run.set(fallback)


@contextmanager
def running(state: RunState | None) -> Iterator[None]:
    """Make `state` the current run for one block (one step of a generator)."""
    previous = _run.get()
    token = _run.set(state)
    try:
        yield
    finally:
        reset_run(token, previous)


# -- streaming modes -------------------------------------------------------------------------

_process_mode: StreamMode = "buffered" if os.environ.get(STREAM_MODE_ENV, "").lower() == "buffered" else "passthrough"
_mode_override: ContextVar[StreamMode | None] = ContextVar("hookport_langchain_stream_mode", default=None)


def _check(mode: str) -> StreamMode:
    if mode not in ("passthrough", "buffered"):
        raise ValueError(f"stream mode must be 'passthrough' or 'buffered', not {mode!r}")
    return mode  # type: ignore[return-value]


def set_stream_mode(mode: StreamMode) -> None:
    """Process-wide streaming mode (also ``HOOKPORT_LANGCHAIN_STREAM_MODE=buffered``)."""
    global _process_mode
    _process_mode = _check(mode)


def get_stream_mode() -> StreamMode:
    override = _mode_override.get()
    return override if override is not None else _process_mode


@contextmanager
def stream_mode(mode: StreamMode) -> Iterator[None]:
    """Use `mode` for the model calls started inside the block (and its threads and tasks)."""
    token = _mode_override.set(_check(mode))
    try:
        yield
    finally:
        try:
            _mode_override.reset(token)
        except ValueError:
            _mode_override.set(None)


def buffered_streaming() -> Any:
    """Shorthand for ``stream_mode("buffered")``: POST_MODEL_CALL sees the whole answer before any chunk leaves."""
    return stream_mode("buffered")
