"""A team on a runtime the app started itself: the run's context follows the run into the runtime.

``rt.start()`` at start-up, then ``RoundRobinGroupChat(..., runtime=rt).run(...)``: the
runtime handles the team's messages in tasks of its own loop, which copied the
context of ``rt.start()``, not that of ``team.run``. So a ``scoped_hooks()`` block
(or the run's execution, or any ContextVar of the app's) opened around ``team.run``
would be empty where the team's agents run their tools.

hookport takes a copy of the caller's context when the team's ``run_stream`` starts
(``team.run`` goes through it), keyed by the team's id, and re-enters it where the
runtime hands that team's messages to its agents: ``SequentialRoutedAgent.on_message_impl``,
the handler of every group-chat manager and participant container (all AgentChat
teams: round-robin, selector, swarm, MagenticOne, graph flows), whose agent key is
the team's id. The handler runs in a task of that context, with the runtime's own
per-message variables (``MessageHandlerContext``, agent instantiation) kept. A team on
its own embedded runtime needs none of this: that runtime starts inside ``run_stream``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing
from contextvars import Context, ContextVar, copy_context
from typing import Any

_carried: dict[str, Context] = {}
"""The team's id -> the context its running ``run_stream`` was called in."""

_runtime_vars: frozenset[ContextVar[Any]] | None = None


def carrying(team: Any, wrapped: Callable[..., Any]) -> Callable[..., Any]:
    """``run_stream`` of `team`, carrying its caller's context when the team is on an outside runtime."""
    key = getattr(team, "_team_id", None)
    if key is None or getattr(team, "_embedded_runtime", True):
        return wrapped

    def run_stream(*args: Any, **kwargs: Any) -> Any:
        return _carried_stream(str(key), wrapped(*args, **kwargs))

    return run_stream


async def _carried_stream(key: str, inner: Any) -> AsyncIterator[Any]:
    _carried[key] = copy_context()  # the first step runs in the caller's (and hookport's run's) context
    try:
        async with aclosing(inner):
            async for item in inner:
                yield item
    finally:
        _carried.pop(key, None)


def on_message_impl(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``SequentialRoutedAgent.on_message_impl(message, ctx)``: the handler of a team's agents."""
    if not _carried:
        return wrapped(*args, **kwargs)
    try:
        captured = _carried.get(instance.id.key)
    except Exception:  # an agent not bound to a runtime yet
        captured = None
    if captured is None:
        return wrapped(*args, **kwargs)
    return _within(captured, wrapped(*args, **kwargs))


async def _within(captured: Context, handling: Any) -> Any:
    context = captured.copy()
    here = copy_context()
    context.run(_keep_runtime_vars, here)
    return await context.run(asyncio.ensure_future, handling)


def _keep_runtime_vars(here: Context) -> None:
    """Inside the caller's context: the runtime's values of its own per-message variables."""
    for var in _own_vars():
        if var in here:
            var.set(here[var])


def _own_vars() -> frozenset[ContextVar[Any]]:
    """autogen-core's ContextVars (the message handler's agent, agent instantiation, subscriptions)."""
    global _runtime_vars
    if _runtime_vars is None:
        import autogen_core

        found: set[ContextVar[Any]] = set()
        for name in dir(autogen_core):
            owner = getattr(autogen_core, name, None)
            if isinstance(owner, type) and name.endswith("Context"):
                found.update(v for v in vars(owner).values() if isinstance(v, ContextVar))
        _runtime_vars = frozenset(found)
    return _runtime_vars
