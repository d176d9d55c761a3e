"""PRE_TOOL_CALL / POST_TOOL_CALL on ``Agent.execute_tool`` and ``Agent.execute_tool_async``,
and the ``before_tool_definitions`` extension point on ``Agent._format_tools_for_completion``.

Every tool call of every PraisonAI loop (the OpenAI client's tool loop, the
LiteLLM one, streaming, async) goes through ``execute_tool`` or
``execute_tool_async``, before PraisonAI's own approval, guardrails and
``before_tool`` hooks. A refused tool never runs: the call returns PraisonAI's
own refusal text, ``Execution of <tool> was blocked by security policy.``,
which the loop hands to the model as the tool result, and the loop goes on.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from hookport.boundary import ReentrancyGuard
from hookport.calls import TOOL_LAYER  # layering: the mcp adapter underneath stays silent
from hookport.contexts import InterceptionContext, ToolCallHookContext
from hookport.dispatch import dispatch
from hookport.errors import HookAborted
from hookport.points import ExtensionPoint, InterceptionPoint
from hookport.registry import has_hooks

from hookport.adapters.praisonai._state import FRAMEWORK, agent_name, check_latch, record

PRE = InterceptionPoint.PRE_TOOL_CALL
POST = InterceptionPoint.POST_TOOL_CALL
TOOL_DEFINITIONS = ExtensionPoint.BEFORE_TOOL_DEFINITIONS

BRIDGE_TOOLS = frozenset({"tool_search", "tool_describe", "tool_call"})
"""PraisonAI's tool-search bridge: it calls ``execute_tool`` again with the real tool."""

_tool_calls = ReentrancyGuard("praisonai_tool_call")

Args = tuple[Any, ...]
Kwargs = dict[str, Any]


def refusal(tool_name: str) -> str:
    """PraisonAI's own text for a tool its ``before_tool`` hooks refused."""
    return f"Execution of {tool_name} was blocked by security policy."


# -- one tool call ------------------------------------------------------------------------------


class _ToolCall:
    """The bound arguments of ``execute_tool(function_name, arguments, tool_call_id=None, ...)``."""

    __slots__ = ("name", "arguments", "call_id", "args", "kwargs", "key")

    def __init__(self, agent: Any, args: Args, kwargs: Kwargs) -> None:
        self.args = args
        self.kwargs = kwargs
        self.name = args[0] if args else kwargs.get("function_name")
        self.arguments = args[1] if len(args) > 1 else kwargs.get("arguments")
        self.call_id = args[2] if len(args) > 2 else kwargs.get("tool_call_id")
        self.key = (id(agent), self.name)

    def passes_through(self, agent: Any) -> bool:
        """Nested calls of the same tool, and the tool-search bridge, dispatch at the inner/outer call only."""
        if _tool_calls.held(self.key):
            return True
        return self.name in BRIDGE_TOOLS and getattr(agent, "_tool_search_config", None) is not None

    def context(self, agent: Any) -> ToolCallHookContext:
        tool_input = dict(self.arguments) if isinstance(self.arguments, dict) else {}
        return ToolCallHookContext(
            str(self.name),
            tool_input,
            _find_tool(agent, self.name),
            tool_call_id=self.call_id if isinstance(self.call_id, str) else None,
            agent=agent,
            agent_role=agent_name(agent),
            framework=FRAMEWORK,
        )

    def with_input(self, tool_input: dict[str, Any]) -> tuple[Args, Kwargs]:
        if len(self.args) > 1:
            return (self.args[0], tool_input, *self.args[2:]), self.kwargs
        return self.args, {**self.kwargs, "arguments": tool_input}


def _find_tool(agent: Any, name: Any) -> Any:
    for tool in getattr(agent, "tools", None) or ():
        if getattr(tool, "__name__", None) == name or getattr(tool, "name", None) == name:
            return tool
    return None


def _as_text(result: Any) -> str:
    if isinstance(result, str):
        return result
    if result is None:
        return ""
    try:
        return json.dumps(result, default=str)
    except (TypeError, ValueError):
        return str(result)


def _before(call: _ToolCall, agent: Any) -> ToolCallHookContext | str:
    """PRE_TOOL_CALL; returns the context, or the refusal text when a hook refused the call."""
    ctx = call.context(agent)
    if has_hooks(PRE):
        try:
            dispatch(PRE, ctx)
        except HookAborted:
            return refusal(ctx.tool_name)
        except Exception as error:  # strict mode: a broken hook ends the run
            raise record(error) from None
    return ctx


def _after(ctx: ToolCallHookContext, result: Any) -> Any:
    """POST_TOOL_CALL; a string a hook returned replaces the result the model sees."""
    if not has_hooks(POST):
        return result
    text = _as_text(result)
    ctx.tool_result = text
    ctx.raw_tool_result = result
    try:
        dispatch(POST, ctx)
    except Exception as error:  # HookAborted or strict mode: the run ends here
        raise record(error) from None
    return result if ctx.tool_result is text else ctx.tool_result


def tool_call(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``Agent.execute_tool``."""
    check_latch()
    if instance is None or not (has_hooks(PRE) or has_hooks(POST)):
        return wrapped(*args, **kwargs)
    call = _ToolCall(instance, args, kwargs)
    if call.passes_through(instance):
        return wrapped(*args, **kwargs)
    ctx = _before(call, instance)
    if isinstance(ctx, str):
        return ctx
    args, kwargs = call.with_input(ctx.tool_input)
    with _tool_calls.hold(call.key), TOOL_LAYER.hold(call.name):
        result = wrapped(*args, **kwargs)
    return _after(ctx, result)


async def _atool_call(wrapped: Callable[..., Any], instance: Any, call: _ToolCall) -> Any:
    ctx = _before(call, instance)
    if isinstance(ctx, str):
        return ctx
    args, kwargs = call.with_input(ctx.tool_input)
    with _tool_calls.hold(call.key), TOOL_LAYER.hold(call.name):
        result = await wrapped(*args, **kwargs)
    return _after(ctx, result)


def tool_acall(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``Agent.execute_tool_async``."""
    check_latch()
    if instance is None or not (has_hooks(PRE) or has_hooks(POST)):
        return wrapped(*args, **kwargs)
    call = _ToolCall(instance, args, kwargs)
    if call.passes_through(instance):
        return wrapped(*args, **kwargs)
    return _atool_call(wrapped, instance, call)


# -- the tool list the model gets ------------------------------------------------------------------


def tool_definitions(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``Agent._format_tools_for_completion``: fire ``before_tool_definitions``.

    The payload is a deep copy of the OpenAI-style tool schemas (PraisonAI
    caches them), so hooks may edit it in place or return a new list; what
    they leave is what the model gets.
    """
    definitions = wrapped(*args, **kwargs)
    if instance is None or not has_hooks(TOOL_DEFINITIONS) or not isinstance(definitions, list):
        return definitions
    ctx = InterceptionContext(
        copy.deepcopy(definitions),
        agent=instance,
        agent_role=agent_name(instance),
        framework=FRAMEWORK,
        metadata={"model": _model_of(instance)},
    )
    try:
        dispatch(TOOL_DEFINITIONS, ctx)
    except Exception as error:
        raise record(error) from None
    return ctx.payload if isinstance(ctx.payload, list) else definitions


def _model_of(agent: Any) -> str:
    model = getattr(agent, "llm", None)
    return model if isinstance(model, str) else ""
