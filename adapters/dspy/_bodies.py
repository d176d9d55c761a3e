"""The second line of defence: each ``dspy.Tool``'s own function, wrapped on the tool.

``Tool.__call__`` / ``acall`` (the call sites) are how ReAct runs a tool, but DSPy
has other routes to the function a tool holds: native tool calls
(``ToolCalls.ToolCall.execute(functions=tools)`` calls ``tool.func`` itself), user
code, a future release's path. DSPy calls that stored function directly, so the
guard sits on each tool's ``func``: wrapped when a tool is made (``Tool.__init__``)
and, for tools made before install, when a module runs with them (a ReAct's tools,
a ``tools=[...]`` input). Uninstall puts every original function back.

Before the function runs it asks `body_must_decide` (idle: two lookups). Under a call
a call site decided it claims that decision (by name: DSPy parses the arguments on
the way, so they need not compare equal); otherwise it dispatches PRE_TOOL_CALL
itself and a refusal raises `ToolRefused`, as at the call site.
"""

from __future__ import annotations

import inspect
import threading
import weakref
from collections.abc import Iterable
from typing import Any

import wrapt

from hookport.calls import atool_call, tool_call
from hookport.contexts import ToolCallHookContext
from hookport.decisions import body_layer, body_must_decide
from hookport.errors import HookAborted

from hookport.adapters.dspy._state import FRAMEWORK, agent_fields, record
from hookport.adapters.dspy._tools import TOOL, is_react_finish

LAYER = body_layer(FRAMEWORK)
EXTRA = "*args"
"""Where ``ctx.tool_input`` keeps positional arguments beyond the tool's declared ones."""


class _Body(wrapt.FunctionWrapper):  # type: ignore[misc]
    """hookport's guard on one tool's function; it remembers its tool (a type: never wrapped twice)."""


class Bodies:
    """The tools whose function is guarded, so uninstall can give each its own back."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tools: weakref.WeakSet[Any] = weakref.WeakSet()
        self.active = False

    def cover(self, tool: Any) -> None:
        func = getattr(tool, "func", None)
        if not self.active or func is None or isinstance(func, _Body) or is_react_finish(tool):
            return
        with self._lock:
            try:
                object.__setattr__(tool, "func", _Body(func, _guard(weakref.ref(tool), _is_async(func))))
                self._tools.add(tool)
            except (AttributeError, TypeError):  # a tool that refuses it (frozen): the call sites remain
                pass

    def cover_all(self, values: Iterable[Any]) -> None:
        """The tools among `values` (a module's inputs, a ReAct's tools), lists looked into."""
        from dspy.adapters.types.tool import Tool

        for value in values:
            for item in value if isinstance(value, (list, tuple)) else (value,):
                if isinstance(item, Tool):
                    self.cover(item)

    def restore(self) -> None:
        with self._lock:
            self.active = False
            for tool in list(self._tools):
                func = getattr(tool, "func", None)
                if isinstance(func, _Body):
                    object.__setattr__(tool, "func", func.__wrapped__)
            self._tools = weakref.WeakSet()


BODIES = Bodies()


def _is_async(func: Any) -> bool:
    return inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(getattr(func, "__call__", None))


def _arguments(tool: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    if not args:
        return dict(kwargs)
    names = list(getattr(tool, "args", None) or ())
    arguments = {**dict(zip(names, args)), **kwargs}
    if len(args) > len(names):
        arguments[EXTRA] = list(args[len(names):])
    return arguments


def _call(wrapped: Any, tool: Any, arguments: dict[str, Any]) -> Any:
    named = dict(arguments)
    extra = list(named.pop(EXTRA, None) or ())
    if not extra:
        return wrapped(**named)
    positional = [named.pop(n) for n in list(getattr(tool, "args", None) or ()) if n in named]
    return wrapped(*positional, *extra, **named)


def _context(tool: Any, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> ToolCallHookContext:
    return ToolCallHookContext(name, _arguments(tool, args, kwargs), tool, **agent_fields())


def _guard(tool_ref: weakref.ref[Any], is_async: bool) -> Any:
    """The wrapt wrapper of one tool's function (it knows its tool: DSPy calls the function bare)."""

    def guard(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        tool = tool_ref()
        name = getattr(tool, "name", None)
        if tool is None or not body_must_decide(name, LAYER):
            return wrapped(*args, **kwargs)
        ctx = _context(tool, str(name or ""), args, kwargs)
        if is_async:
            return _adecide(ctx, wrapped, tool)
        try:
            return tool_call(ctx, lambda c: _call(wrapped, tool, c.tool_input), TOOL, layer=LAYER)
        except HookAborted as error:
            record(error)
            raise

    return guard


async def _adecide(ctx: ToolCallHookContext, wrapped: Any, tool: Any) -> Any:
    async def run(c: ToolCallHookContext) -> Any:
        return await _call(wrapped, tool, c.tool_input)

    try:
        return await atool_call(ctx, run, TOOL, layer=LAYER)
    except HookAborted as error:
        record(error)
        raise


def new_tool(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``Tool.__init__``: guard the new tool's function."""
    result = wrapped(*args, **kwargs)
    if instance is not None:
        BODIES.cover(instance)
    return result
