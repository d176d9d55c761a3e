"""PRE_TOOL_CALL / POST_TOOL_CALL / WRAP_TOOL_CALL at ``Tool.__call__`` / ``Tool.acall``.

ReAct runs the tool the model picked through ``self.tools[name](**args)`` (or
``await ...acall(**args)`` in ``aforward``); user code calling a ``dspy.Tool``
goes through the same two methods. ReAct's own ``finish`` tool (the loop's end
signal, not a tool of the user's) is not reported.

- ``ctx.tool_input`` is the keyword arguments; an edited dict is what the tool gets.
- A refusal follows DSPy's convention for a failed tool: the call raises
  `ToolRefused` (``Tool call <name> was refused: <reason>``), without running the
  tool body. ReAct writes it into the trajectory as the observation
  ``Execution error in <name>: Tool call <name> was refused: <reason>`` (the
  sentence alone: ReAct's formatter is wrapped, see `error_text`) and lets the model go on; ReAct never retries
  a tool, and it runs one tool per iteration (DSPy has no parallel tool calls).
- A POST string replaces the result the caller (ReAct's observation) gets.
- A POST abort stops the run: ReAct would turn it into an observation, so it is
  kept in the run's latch and raised again by the next step or model call.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from hookport.calls import ToolShape, atool_call, outer_layer_dispatched_tool, tool_call, tool_hooks_active
from hookport.contexts import ToolCallHookContext
from hookport.errors import HookAborted
from hookport.points import ExtensionPoint

from hookport.adapters._sync_wraps import on_worker, sync_wraps
from hookport.adapters.dspy._state import FRAMEWORK, agent_fields, check_latch, record

Args = tuple[Any, ...]
Kwargs = dict[str, Any]


class ToolRefused(RuntimeError):
    """A hook refused this tool call; DSPy reports it like any failed tool (ReAct: as the observation)."""

    def __init__(self, message: str, refusal: HookAborted) -> None:
        super().__init__(message)
        self.refusal = refusal


def refusal_text(tool_name: str, reason: str) -> str:
    return f"Tool call {tool_name} was refused: {reason}"


def _as_text(result: Any) -> str | None:
    if result is None or isinstance(result, str):
        return result
    try:
        return json.dumps(result, default=str)
    except (TypeError, ValueError):
        return str(result)


class _ToolShape(ToolShape[Any]):
    def text(self, result: Any) -> str | None:
        return _as_text(result)

    def refusal_text(self, ctx: ToolCallHookContext, refusal: HookAborted) -> str:
        return refusal_text(ctx.tool_name, refusal.reason)

    def refuse(self, ctx: ToolCallHookContext, refusal: HookAborted) -> Any:
        text = ctx.tool_result if isinstance(ctx.tool_result, str) else refusal_text(ctx.tool_name, refusal.reason)
        raise ToolRefused(text, refusal)


TOOL = _ToolShape()


def error_text(wrapped: Callable[..., str], instance: Any, args: Args, kwargs: Kwargs) -> str:
    """ReAct's formatter of a failed tool's error (``format_error_for_lm(err, traceback_frames=5)``
    from 3.4, ``_fmt_exc(err)`` before): a traceback of five frames, which for a refusal would
    hand the model hookport's source lines and install paths. A `ToolRefused` is its sentence
    alone (``Tool call <name> was refused: <reason>``); every other error is DSPy's own text."""
    error = args[0] if args else kwargs.get("error", kwargs.get("err"))
    if isinstance(error, ToolRefused):
        return str(error)
    return wrapped(*args, **kwargs)


def is_react_finish(tool: Any) -> bool:
    """ReAct's built-in ``finish`` tool (a lambda defined in ``ReAct.__init__``)."""
    if getattr(tool, "name", None) != "finish":
        return False
    return getattr(getattr(tool, "func", None), "__qualname__", "").startswith("ReAct.__init__")


def _unhooked(instance: Any, args: Args) -> bool:
    return (bool(args) or not tool_hooks_active() or is_react_finish(instance)
            or outer_layer_dispatched_tool(getattr(instance, "name", None), FRAMEWORK))


def _context(instance: Any, kwargs: Kwargs) -> ToolCallHookContext:
    return ToolCallHookContext(str(getattr(instance, "name", "") or ""), dict(kwargs), instance, **agent_fields())


def tool_run(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``Tool.__call__(**kwargs)``."""
    check_latch()
    if _unhooked(instance, args):
        return wrapped(*args, **kwargs)
    try:
        return tool_call(_context(instance, kwargs), lambda c: wrapped(**c.tool_input), TOOL)
    except HookAborted as error:
        record(error)
        raise


async def _atool_run(wrapped: Callable[..., Awaitable[Any]], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    check_latch()
    if _unhooked(instance, args):
        return await wrapped(*args, **kwargs)

    async def run(c: ToolCallHookContext) -> Any:
        return await wrapped(**c.tool_input)

    ctx = _context(instance, kwargs)
    try:
        if sync_wraps(ExtensionPoint.WRAP_TOOL_CALL):
            return await on_worker(tool_call, ctx, run, TOOL)
        return await atool_call(ctx, run, TOOL)
    except HookAborted as error:
        record(error)
        raise


def tool_acall(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``Tool.acall(**kwargs)``."""
    return _atool_run(wrapped, instance, args, kwargs)
