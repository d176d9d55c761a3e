"""What a PraisonAI run carries along: which agent is working, and the first abort.

PraisonAI catches almost everything its model and tool calls raise (``chat()``
prints the error and returns None, retry loops try again). hookport's
contract says an abort leaves the entry point as `HookAborted`, so the first
abort of a run is kept in a `Latch`: every later model or tool call of the
same run re-raises it at once (no request, no tool code, no second dispatch),
and the entry point raises it when PraisonAI hands control back.

Both live in ContextVars, so they follow the work into the threads and tasks
PraisonAI starts with a copied context (``asyncio.to_thread``,
``asyncio.run``); the latch is one shared object, so an abort recorded in a
worker is seen by the caller.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

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
    """One agent turn: the agent, the name `agents=` filters match, its model calls so far."""

    __slots__ = ("agent", "name", "model_calls")

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.name = agent_name(agent)
        self.model_calls = 0


_latch: ContextVar[Latch | None] = ContextVar("hookport_praisonai_latch", default=None)
_turn: ContextVar[AgentTurn | None] = ContextVar("hookport_praisonai_turn", default=None)


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


@contextmanager
def agent_turn(agent: Any) -> Iterator[AgentTurn]:
    """Mark `agent` as the one working, for the model calls made inside the block."""
    turn = AgentTurn(agent)
    token = _turn.set(turn)
    try:
        yield turn
    finally:
        _reset(_turn, token)


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
