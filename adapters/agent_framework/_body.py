"""The second line of defence: ``FunctionTool.__call__``, where a tool's own code is called.

``FunctionTool.invoke`` (the call site, `_calls`) reaches the code through it (1.0 to 1.23;
for sync tools on ``asyncio.to_thread`` from 1.15, the decision following in the copied
context); so do a ``FunctionTool`` subclass whose ``invoke`` override calls the tool, and an
app calling the tool object itself (``my_tool(table="users")``). When the call site decided
the call the body claims that decision and stays silent (one PRE and one POST per call);
otherwise it dispatches PRE_TOOL_CALL itself (awaited when the tool's code is a coroutine
function, else run to completion) and answers a refusal with the call site's text.
"""

from __future__ import annotations

import inspect
from typing import Any

from hookport.calls import atool_call, tool_call
from hookport.contexts import ToolCallHookContext
from hookport.decisions import body_layer, decided
from hookport.errors import HookAborted

from hookport.adapters.agent_framework._calls import FUNCTION_SHAPE, LAYER as CALL_LAYER
from hookport.adapters.agent_framework._state import FRAMEWORK, AbortEscape, current_run, in_plain_run

LAYER = body_layer(FRAMEWORK)


TOOL_CLASS: type | None = None
"""``agent_framework.FunctionTool``, once a tool body has run (hookport imports no framework at install)."""


def tool_class() -> type:
    global TOOL_CLASS
    from agent_framework import FunctionTool

    TOOL_CLASS = FunctionTool
    return FunctionTool


def inner_tool(instance: Any) -> Any:
    """The ``FunctionTool`` a tool wraps as its function (``FunctionTool(func=other_tool)``), if any."""
    func = getattr(instance, "func", None)
    return func if isinstance(func, TOOL_CLASS or tool_class()) else None


def nested(wrapped: Any, inner: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """A tool whose function is another tool: the outer call's decision is the inner tool's call
    too (its body claims it), not a second call."""
    with decided(inner.name, CALL_LAYER, None):
        return wrapped(*args, **kwargs)


def guarded(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``FunctionTool.__call__(*args, **kwargs)``, once `body_must_decide` said no call site decided it."""
    run = current_run.get()
    inner = inner_tool(instance)
    if inner is not None:
        wrapped = _nesting(wrapped, inner)
    context_name = getattr(instance, "_context_parameter_name", None)
    tool_input = {k: v for k, v in kwargs.items() if k != context_name}
    ctx = ToolCallHookContext(instance.name, dict(tool_input), instance, agent=run.agent if run else None,
                              agent_role=run.name if run else None, framework=FRAMEWORK)

    def arguments(c: ToolCallHookContext) -> dict[str, Any]:
        if c.tool_input == tool_input:
            return kwargs
        return {**c.tool_input, **({context_name: kwargs[context_name]} if context_name in kwargs else {})}

    if _is_async(instance):
        async def acall(c: ToolCallHookContext) -> Any:
            result = wrapped(*args, **arguments(c))
            return await result if inspect.isawaitable(result) else result

        async def aguarded() -> Any:
            try:
                return await atool_call(ctx, acall, FUNCTION_SHAPE, layer=LAYER)
            except HookAborted as aborted:
                raise _escape(aborted, run) from None

        return aguarded()
    try:
        return tool_call(ctx, lambda c: wrapped(*args, **arguments(c)), FUNCTION_SHAPE, layer=LAYER)
    except HookAborted as aborted:
        raise _escape(aborted, run) from None


def _nesting(wrapped: Any, inner: Any) -> Any:
    return lambda *args, **kwargs: nested(wrapped, inner, args, kwargs)


def _is_async(instance: Any) -> bool:
    func = getattr(instance, "func", None)
    while getattr(func, "func", None) is not None and hasattr(func, "invoke"):  # a tool wrapping a tool
        func = func.func
    return inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(getattr(func, "__call__", None))


def _escape(aborted: HookAborted, run: Any) -> BaseException:
    """Inside an agent run, past the framework's ``except Exception`` around a tool (`AbortEscape`)."""
    return aborted if run is None and not in_plain_run.get() else AbortEscape(aborted)
