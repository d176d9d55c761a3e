"""The second line of defence: a PraisonAI tool function checks that its call was decided.

PraisonAI tools are plain functions (sync or async) that its executor looks up by
``__name__`` in ``agent.tools`` and calls with the model's arguments. There is no
tool class whose method every path goes through, so the functions themselves are
guarded where PraisonAI is handed them: ``Agent(tools=[...])`` (``Agent.__init__``).
A guarded function reached with no decision for its call (a route past
``execute_tool``, a workflow step, a future release's new path) dispatches
PRE_TOOL_CALL itself and answers a refusal with PraisonAI's text and the reason,
``Execution of <tool> was blocked by security policy. Reason: <reason>``

A body that runs also ends the call site's "same tool, same turn" mark, so a tool
its body runs through an agent (even one that shares its name) is a new call.

Guards are `functools.wraps` functions (PraisonAI reads the signature, the
docstring and the annotations to build the schema and cast the arguments). The
adapter's uninstall puts the originals back into every agent it guarded and turns
any copy left elsewhere into a plain pass-through.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import threading
import weakref
from collections.abc import Callable
from typing import Any

from hookport.calls import atool_call, tool_call
from hookport.contexts import ToolCallHookContext
from hookport.decisions import body_layer, body_must_decide

from hookport.adapters.praisonai._state import FRAMEWORK, agent_name, current_turn, in_tool_call, outside_tool

LAYER = body_layer(FRAMEWORK)
_on = [False]
"""Whether the adapter is installed (a guard left behind after uninstall only calls through)."""
_agents: weakref.WeakSet[Any] = weakref.WeakSet()


_handed: dict[str, list[contextvars.Context]] = {}
_handed_lock = threading.Lock()


class handing_over:
    """``with handing_over(name):`` around an async call site's work: PraisonAI 1.5 runs a sync
    tool in ``run_in_executor`` without the caller's context, so the body would not see the
    call's decision (and would dispatch it again). The body finds the context here instead."""

    __slots__ = ("name", "context")

    def __init__(self, name: str) -> None:
        self.name = name
        self.context = contextvars.copy_context()

    def __enter__(self) -> None:
        with _handed_lock:
            _handed.setdefault(self.name, []).append(self.context)

    def __exit__(self, *exc: object) -> None:
        with _handed_lock:
            waiting = _handed.get(self.name)
            if waiting is not None and self.context in waiting:
                waiting.remove(self.context)
            if not waiting:
                _handed.pop(self.name, None)


def _taken(name: str) -> contextvars.Context | None:
    """The context an async call site handed over for a call of `name` (None: there is none)."""
    if not _handed:
        return None
    with _handed_lock:
        waiting = _handed.get(name)
        if not waiting:
            return None
        context = waiting.pop(0)
        if not waiting:
            del _handed[name]
        return context


def _context(name: str, kwargs: dict[str, Any], fn: Any) -> ToolCallHookContext:
    turn = current_turn()
    agent = turn.agent if turn is not None else None
    return ToolCallHookContext(name, dict(kwargs), fn, agent=agent, agent_role=agent_name(agent),
                               framework=FRAMEWORK, metadata={"layer": LAYER})


def _shape() -> Any:
    """The call site's tool shape (`_tools` imports this module), found when a body dispatches:
    an import statement where each agent's tools are guarded cost ~2 µs per tool and agent."""
    from hookport.adapters.praisonai._tools import SHAPE

    return SHAPE


def guard(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn`, checking each call first (an async function stays one)."""
    name = fn.__name__
    if inspect.iscoroutinefunction(fn):
        @functools.wraps(fn)
        async def aguarded(*args: Any, **kwargs: Any) -> Any:
            if not _on[0] or not body_must_decide(name, LAYER):
                if not in_tool_call():
                    return await fn(*args, **kwargs)
                with outside_tool():
                    return await fn(*args, **kwargs)
            ctx = _context(name, kwargs, fn)

            async def run(c: ToolCallHookContext) -> Any:
                with outside_tool():
                    return await fn(*args, **c.tool_input)

            return await atool_call(ctx, run, _shape(), layer=LAYER)

        aguarded.__hookport_body__ = fn  # type: ignore[attr-defined]
        return aguarded

    @functools.wraps(fn)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        if not _on[0] or not body_must_decide(name, LAYER):
            if not in_tool_call():  # idle: no hook, no run state
                return fn(*args, **kwargs)
            with outside_tool():
                return fn(*args, **kwargs)
        handed = _taken(name)
        if handed is not None:  # an executor thread without the call's context: run in it
            return handed.run(guarded, *args, **kwargs)
        ctx = _context(name, kwargs, fn)

        def run(c: ToolCallHookContext) -> Any:
            with outside_tool():
                return fn(*args, **c.tool_input)

        return tool_call(ctx, run, _shape(), layer=LAYER)

    guarded.__hookport_body__ = fn  # type: ignore[attr-defined]
    return guarded


def _guardable(tool: Any) -> bool:
    return inspect.isfunction(tool) and not hasattr(tool, "__hookport_body__")


def agent_init(wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``Agent.__init__``: the function tools it is handed are guarded before it reads them."""
    tools = kwargs.get("tools")
    if isinstance(tools, (list, tuple)) and any(_guardable(t) for t in tools):
        kwargs = {**kwargs, "tools": type(tools)(guard(t) if _guardable(t) else t for t in tools)}
        result = wrapped(*args, **kwargs)
        _agents.add(instance)
        return result
    return wrapped(*args, **kwargs)


def switch(on: bool) -> None:
    """On at install; off at uninstall, which also gives every guarded agent its own functions back."""
    _on[0] = on
    if on:
        return
    for agent in list(_agents):
        tools = getattr(agent, "tools", None)
        if isinstance(tools, list):
            tools[:] = [getattr(t, "__hookport_body__", t) for t in tools]
    _agents.clear()
