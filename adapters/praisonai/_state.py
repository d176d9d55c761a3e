"""What a PraisonAI run carries along: the first abort, which agent turn is working, which tool runs.

PraisonAI catches almost everything its model and tool calls raise (``chat()``
prints the error and returns None, retry loops try again, a tool's error
becomes a string the model reads). hookport's contract says an abort leaves
the entry point as `HookAborted`, so the first abort of a run is kept in a
`Latch`: every later agent turn, model call or tool call of the same run
re-raises it at once (no request, no tool code, no second dispatch), and the
entry point raises it when PraisonAI hands control back.

The turn and the running tool decide what a nested call is:

- ``start()`` calls ``chat()`` on the same agent: the same turn, one step;
- a tool's body calls ``agent.chat()`` (its own agent or another one): a new
  turn, whose tool calls are new calls, dispatched and policed like any;
- ``execute_tool_async`` running ``execute_tool`` for the same call, or
  PraisonAI's tool-search bridge: the same tool call, dispatched once.

All of it lives in ContextVars, so it follows the work into the threads and
tasks PraisonAI starts with a copied context (``asyncio.to_thread``,
``asyncio.run``); the latch is one shared object, so an abort recorded in a
worker is seen by the caller.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from time import perf_counter
from typing import Any

from hookport import registry as _registry

FRAMEWORK = "praisonai"


class Latch:
    """The first error a hook raised during one outermost PraisonAI call."""

    __slots__ = ("error",)

    def __init__(self) -> None:
        self.error: BaseException | None = None

    def record(self, error: BaseException) -> BaseException:
        """Keep `error` unless an earlier one is already kept; returns the kept one."""
        if self.error is None:
            self.error = error
        return self.error

    def check(self) -> None:
        """Re-raise the kept error, if any."""
        if self.error is not None:
            raise self.error


class AgentTurn:
    """One agent turn: the agent, the name `agents=` filters match, what it did so far."""

    __slots__ = ("agent", "name", "model_calls", "tools_used", "started", "prompt")

    def __init__(self, agent: Any, prompt: Any = None) -> None:
        self.agent = agent
        self.name = agent_name(agent)
        self.model_calls = 0
        self.tools_used: list[str] = []
        self.started = perf_counter()
        self.prompt = prompt


class ToolRun:
    """A tool call in flight: which turn made it and which tool it is."""

    __slots__ = ("turn", "name")

    def __init__(self, turn: AgentTurn | None, name: Any) -> None:
        self.turn = turn
        self.name = name


_latch: ContextVar[Latch | None] = ContextVar("hookport_praisonai_latch", default=None)
_turn: ContextVar[AgentTurn | None] = ContextVar("hookport_praisonai_turn", default=None)
_tool: ContextVar[ToolRun | None] = ContextVar("hookport_praisonai_tool", default=None)


def hooks_anywhere() -> bool:
    """True when any hook is registered (global, or a scoped block is open somewhere).

    The entry points' fast path: with nothing registered a run needs no state at all.
    """
    return bool(_registry._global) or bool(_registry._open_scopes)


def current_latch() -> Latch | None:
    return _latch.get()


def current_turn() -> AgentTurn | None:
    return _turn.get()


def check_latch() -> None:
    """Re-raise the run's kept abort (a cheap no-op outside a run or before any abort)."""
    latch = _latch.get()
    if latch is not None and latch.error is not None:
        raise latch.error


def record(error: BaseException) -> BaseException:
    """Keep `error` as the run's abort (if there is a run); returns what to raise."""
    latch = _latch.get()
    return latch.record(error) if latch is not None else error


@contextmanager
def run_scope() -> Iterator[Latch]:
    """The latch of the outermost call; nested calls share it."""
    latch = _latch.get()
    if latch is not None:
        yield latch
        return
    latch = Latch()
    token = _latch.set(latch)
    try:
        yield latch
    finally:
        _reset(_latch, token)


# -- agent turns ------------------------------------------------------------------------------


def continues_turn(agent: Any) -> bool:
    """True when a call on `agent` is part of the turn already running (``start`` -> ``chat``),
    False for a new turn (no turn yet, another agent, or a call made from inside a tool)."""
    turn = _turn.get()
    if turn is None or turn.agent is not agent:
        return False
    running = _tool.get()
    return running is None or running.turn is not turn


# -- tool calls ---------------------------------------------------------------------------------


def same_tool_call(name: Any) -> bool:
    """True inside the dispatched call of tool `name` of the current turn (an inner layer of it)."""
    running = _tool.get()
    return running is not None and running.name == name and running.turn is _turn.get()


def start_tool(name: Any) -> Any:
    """Mark tool `name` of the current turn as running; give the token to `end_tool`."""
    turn = _turn.get()
    if turn is not None:
        turn.tools_used.append(str(name))
    return _tool.set(ToolRun(turn, name))


def end_tool(token: Any) -> None:
    _reset(_tool, token)


def in_tool_call() -> bool:
    """True while a tool call's "same tool" mark is set (a cheap check before `outside_tool`)."""
    running = _tool.get()
    return running is not None and running.name is not None


class outside_tool:
    """``with outside_tool():`` around a tool's own body: the call's "same tool" mark ends there,
    so a call its body makes (even of a same-named tool) is a call of its own; the turn stays
    the tool's (an agent the body runs is a new turn). A plain class: entered on every tool call."""

    __slots__ = ("_token",)

    def __enter__(self) -> None:
        running = _tool.get()
        self._token = None if running is None or running.name is None else _tool.set(ToolRun(running.turn, None))

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            _reset(_tool, self._token)


@contextmanager
def tool_running(name: Any) -> Iterator[None]:
    """`start_tool` ... `end_tool` as a block."""
    token = start_tool(name)
    try:
        yield
    finally:
        end_tool(token)


def agent_name(agent: Any) -> str | None:
    """The agent's ``name`` (what `agents=` filters match); its role when it has no name."""
    if agent is None:
        return None
    for attribute in ("name", "role"):
        value = getattr(agent, attribute, None)
        if isinstance(value, str) and value:
            return value
    return None


def _reset(var: ContextVar[Any], token: Any) -> None:
    try:
        var.reset(token)
    except ValueError:  # left in another context (a generator closed elsewhere)
        var.set(None)


# -- the same, as tokens (the entry points' hot path avoids context managers) ----------------------


def open_latch() -> tuple[Latch, Any]:
    """The run's latch, created when this is the outermost call; give the token to `close_latch`."""
    latch = _latch.get()
    if latch is not None:
        return latch, None
    latch = Latch()
    return latch, _latch.set(latch)


def close_latch(token: Any) -> None:
    if token is not None:
        _reset(_latch, token)


def enter_turn(turn: AgentTurn) -> Any:
    """Make `turn` the working one; give the token to `leave_turn`."""
    return _turn.set(turn)


def leave_turn(token: Any) -> None:
    _reset(_turn, token)
