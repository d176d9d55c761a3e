"""The second line of defence: the tool's own execution methods, ``BaseTool.run_json`` and
``BaseStreamTool.run_json_stream`` (0.6+).

Every path to an AutoGen tool's code goes through them: the workbenches
(``StaticWorkbench.call_tool``, ``StaticStreamWorkbench.call_tool_stream``), handoff
tools, agents and teams used as tools (``AgentTool``, ``TeamTool``), autogen-core's
``ToolAgent``, the OpenAI assistant agent, and any app code. When the agent's call
site (``AssistantAgent._execute_tool_call``) decided the call, the body claims that
decision and stays silent; otherwise it dispatches PRE_TOOL_CALL itself. A refusal
raises `ToolRefused`, which the workbenches turn into AutoGen's failed-tool result
(``is_error=True``) with the call site's text, so the model reads the same answer.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from hookport import registry
from hookport.calls import ToolShape, atool_call
from hookport.contexts import ToolCallHookContext
from hookport.decisions import body_layer, body_must_decide
from hookport.errors import HookAborted

from hookport.adapters._sdk_data import parse_arguments
from hookport.adapters.autogen._state import FRAMEWORK, agent_fields, current_turn
from hookport.adapters.autogen._tools import refusal_text

LAYER = body_layer(FRAMEWORK)
Args = tuple[Any, ...]
Kwargs = dict[str, Any]


class ToolRefused(Exception):
    """A PRE_TOOL_CALL hook refused the call at the tool's body; its text is what the model reads."""


class _BodyShape(ToolShape[Any]):
    def refusal_text(self, ctx: ToolCallHookContext, refusal: HookAborted) -> str:
        return refusal_text(ctx.tool_name, refusal.reason)

    def refuse(self, ctx: ToolCallHookContext, refusal: HookAborted) -> Any:
        raise ToolRefused(ctx.tool_result if isinstance(ctx.tool_result, str)
                          else refusal_text(ctx.tool_name, refusal.reason))


class _StreamShape(_BodyShape):
    """A streamed tool's items: its text is the final item's."""

    def text(self, result: Any) -> str | None:
        return super().text(result[-1]) if result else None

    def replace(self, result: Any, text: str) -> Any:
        return [*(result or [])[:-1], text]


BODY_SHAPE = _BodyShape()
STREAM_SHAPE = _StreamShape()


def _call(instance: Any, args: Args, kwargs: Kwargs) -> tuple[ToolCallHookContext, dict[str, Any]]:
    """``(self, args, cancellation_token, call_id=None)``: the context and the arguments as given."""
    given = parse_arguments(args[0] if args else kwargs.get("args"))
    ctx = ToolCallHookContext(instance.name, dict(given), instance, tool_call_id=kwargs.get("call_id"),
                              framework=FRAMEWORK, **agent_fields(current_turn.get()))
    return ctx, given


def _edited(args: Args, kwargs: Kwargs, given: dict[str, Any], ctx: ToolCallHookContext) -> tuple[Args, Kwargs]:
    if ctx.tool_input == given:
        return args, kwargs
    if args:
        return (dict(ctx.tool_input), *args[1:]), kwargs
    return args, {**kwargs, "args": dict(ctx.tool_input)}


def run_json(wrapped: Any, instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``BaseTool.run_json(args, cancellation_token, call_id=None)``: idle, one lookup (nothing
    registered anywhere) or two (no tool hook)."""
    if not (registry._global or registry._open_scopes):
        return wrapped(*args, **kwargs)
    given = args[0] if args else kwargs.get("args")
    if not body_must_decide(instance.name, LAYER, given if type(given) is dict else None):
        return wrapped(*args, **kwargs)
    return _guarded(wrapped, instance, args, kwargs)


async def _guarded(wrapped: Any, instance: Any, args: Args, kwargs: Kwargs) -> Any:
    ctx, given = _call(instance, args, kwargs)

    async def body(c: ToolCallHookContext) -> Any:
        a, k = _edited(args, kwargs, given, c)
        return await wrapped(*a, **k)

    return await atool_call(ctx, body, BODY_SHAPE, layer=LAYER)


def run_json_stream(wrapped: Any, instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``BaseStreamTool.run_json_stream(args, cancellation_token, call_id=None)`` (an async generator)."""
    given = args[0] if args else kwargs.get("args")
    if not body_must_decide(instance.name, LAYER, given if type(given) is dict else None):
        return wrapped(*args, **kwargs)
    return _guarded_stream(wrapped, instance, args, kwargs)


async def _guarded_stream(wrapped: Any, instance: Any, args: Args, kwargs: Kwargs) -> AsyncIterator[Any]:
    """Read whole inside the hooks (a body reached by no call site is rare), then handed on."""
    ctx, given = _call(instance, args, kwargs)

    async def body(c: ToolCallHookContext) -> Any:
        a, k = _edited(args, kwargs, given, c)
        return [item async for item in wrapped(*a, **k)]

    for item in await atool_call(ctx, body, STREAM_SHAPE, layer=LAYER):
        yield item
