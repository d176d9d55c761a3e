"""PRE_TOOL_CALL / POST_TOOL_CALL (and the wrap hooks between them) on ``Agent.execute_tool`` and
``Agent.execute_tool_async``, and the ``before_tool_definitions`` extension point on
``Agent._format_tools_for_completion``.

Every tool call of every PraisonAI loop (the OpenAI client's tool loop, the
LiteLLM one, streaming, async) goes through ``execute_tool`` or
``execute_tool_async``, before PraisonAI's own approval, guardrails and
``before_tool`` hooks. The sequence is `hookport.calls.tool_call`: PRE, wrap
hooks around the real call, POST with `duration_ms`. A refused tool never
runs: the call returns PraisonAI's own refusal text followed by the hook's reason,
``Execution of <tool> was blocked by security policy. Reason: <reason>``, which the loop hands to the model as the tool
result (after POST_TOOL_CALL saw it with ``refused=True``), and the loop goes on.

An abort (or, in strict mode, a broken hook) at POST, in a wrap hook, or
anywhere inside the tool's own work (an agent the tool runs) ends the run:
it is kept in the run's latch and raised again as soon as the call returns,
whatever PraisonAI's retry loop made of it.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Awaitable, Callable
from typing import Any

from hookport.calls import ToolShape, atool_call, tool_call, tool_hooks_active
from hookport.contexts import InterceptionContext, ToolCallHookContext
from hookport.dispatch import dispatch
from hookport.errors import HookAborted
from hookport.points import ExtensionPoint, InterceptionPoint
from hookport.registry import has_hooks

from hookport.adapters._sync_wraps import on_worker, sync_wraps
from hookport.adapters.praisonai._bodies import handing_over
from hookport.adapters.praisonai._state import (
    FRAMEWORK,
    agent_name,
    check_latch,
    current_latch,
    current_turn,
    record,
    end_tool,
    same_tool_call,
    start_tool,
    tool_running,
)

PRE = InterceptionPoint.PRE_TOOL_CALL
POST = InterceptionPoint.POST_TOOL_CALL
TOOL_DEFINITIONS = ExtensionPoint.BEFORE_TOOL_DEFINITIONS

BRIDGE_TOOLS = frozenset({"tool_search", "tool_describe", "tool_call"})
"""PraisonAI's tool-search bridge: it calls ``execute_tool`` again with the real tool."""

Args = tuple[Any, ...]
Kwargs = dict[str, Any]


def refusal(tool_name: str, reason: str | None = None) -> str:
    """PraisonAI's own text for a tool its ``before_tool`` hooks refused, followed by the
    refusing hook's reason (the model reads why): ``Execution of <tool> was blocked by
    security policy. Reason: <reason>``."""
    text = f"Execution of {tool_name} was blocked by security policy."
    return f"{text} Reason: {reason}" if reason else text


def _as_text(result: Any) -> str:
    if isinstance(result, str):
        return result
    if result is None:
        return ""
    try:
        return json.dumps(result, default=str)
    except (TypeError, ValueError):
        return str(result)


class PraisonAIToolShape(ToolShape[Any]):
    """A tool's answer is whatever the function returned; hooks read and replace its text."""

    def text(self, result: Any) -> str | None:
        return _as_text(result)

    def refusal_text(self, ctx: ToolCallHookContext, refusal_: HookAborted) -> str:
        return refusal(ctx.tool_name, refusal_.reason)

    def refuse(self, ctx: ToolCallHookContext, refusal_: HookAborted) -> Any:
        return ctx.tool_result if isinstance(ctx.tool_result, str) else refusal(ctx.tool_name, refusal_.reason)


SHAPE = PraisonAIToolShape()


# -- one tool call ------------------------------------------------------------------------------


class _ToolCall:
    """The bound arguments of ``execute_tool(function_name, arguments, tool_call_id=None, ...)``."""

    __slots__ = ("name", "arguments", "call_id", "args", "kwargs", "error")

    def __init__(self, args: Args, kwargs: Kwargs) -> None:
        self.args = args
        self.kwargs = kwargs
        self.name = args[0] if args else kwargs.get("function_name")
        self.arguments = args[1] if len(args) > 1 else kwargs.get("arguments")
        self.call_id = args[2] if len(args) > 2 else kwargs.get("tool_call_id")
        self.error: BaseException | None = None
        """What the tool itself raised (PraisonAI's business, not an abort to keep)."""

    def passes_through(self, agent: Any) -> bool:
        """An inner layer of a call already dispatched (same tool, same turn), and the
        tool-search bridge, dispatch at the outer / inner call only."""
        if same_tool_call(self.name):
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

    def runner(self, wrapped: Callable[..., Any]) -> Callable[[ToolCallHookContext], Any]:
        def run(ctx: ToolCallHookContext) -> Any:
            args, kwargs = self.with_input(ctx.tool_input)
            token = start_tool(self.name)
            try:
                result = wrapped(*args, **kwargs)
            except BaseException as error:
                self.error = error
                raise
            finally:
                end_tool(token)
            check_latch()  # an abort inside the tool's own work (an agent it ran) ends the run
            return result

        return run

    def arunner(self, wrapped: Callable[..., Awaitable[Any]]) -> Callable[[ToolCallHookContext], Awaitable[Any]]:
        async def run(ctx: ToolCallHookContext) -> Any:
            args, kwargs = self.with_input(ctx.tool_input)
            token = start_tool(self.name)
            try:
                if _drops_context():
                    with handing_over(str(self.name)):  # for a body in a thread without this context
                        result = await wrapped(*args, **kwargs)
                else:
                    result = await wrapped(*args, **kwargs)
            except BaseException as error:
                self.error = error
                raise
            finally:
                end_tool(token)
            check_latch()
            return result

        return run

    def kept(self, error: BaseException) -> BaseException:
        """What to raise for `error`: a hook's abort or failure becomes the run's abort."""
        if error is self.error:
            return error
        return record(error)


_DROPS: list[bool] = []


def _drops_context() -> bool:
    """Whether this release runs a sync tool of ``execute_tool_async`` in an executor thread without
    the caller's context (1.5 and 1.6; 1.7 copies it, so nothing is handed over there)."""
    if not _DROPS:
        from hookport.adapters._versions import installed_version, release

        _DROPS.append(release(installed_version("praisonaiagents") or "0") < (1, 7, 0))
    return _DROPS[0]


def _find_tool(agent: Any, name: Any) -> Any:
    for tool in getattr(agent, "tools", None) or ():
        if getattr(tool, "__name__", None) == name or getattr(tool, "name", None) == name:
            return tool
    return None


def _raise(kept: BaseException, error: BaseException) -> None:
    if kept is error:
        raise error
    raise kept from None


def tool_call_wrapper(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``Agent.execute_tool``."""
    check_latch()
    if instance is None:
        return wrapped(*args, **kwargs)
    if not tool_hooks_active():
        if current_turn() is None:
            return wrapped(*args, **kwargs)
        with tool_running(args[0] if args else kwargs.get("function_name")):
            return wrapped(*args, **kwargs)
    call = _ToolCall(args, kwargs)
    if call.passes_through(instance):
        return wrapped(*args, **kwargs)
    try:
        return tool_call(call.context(instance), call.runner(wrapped), SHAPE)
    except Exception as error:
        _raise(call.kept(error), error)


async def _atool_call(wrapped: Callable[..., Any], instance: Any, call: _ToolCall) -> Any:
    ctx = call.context(instance)
    try:
        if sync_wraps(ExtensionPoint.WRAP_TOOL_CALL):  # see hookport.adapters._sync_wraps
            return await on_worker(tool_call, ctx, call.arunner(wrapped), SHAPE)
        return await atool_call(ctx, call.arunner(wrapped), SHAPE)
    except Exception as error:
        _raise(call.kept(error), error)


def tool_acall_wrapper(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``Agent.execute_tool_async``."""
    check_latch()
    if instance is None:
        return wrapped(*args, **kwargs)
    if not tool_hooks_active():
        if current_turn() is None:
            return wrapped(*args, **kwargs)
        return _amarked(wrapped, args, kwargs)
    call = _ToolCall(args, kwargs)
    if call.passes_through(instance):
        return wrapped(*args, **kwargs)
    return _atool_call(wrapped, instance, call)


async def _amarked(wrapped: Callable[..., Any], args: Args, kwargs: Kwargs) -> Any:
    """An unhooked tool call inside a turn: still marked, so an agent its body runs is a new turn."""
    with tool_running(args[0] if args else kwargs.get("function_name")):
        return await wrapped(*args, **kwargs)


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


# -- PraisonAI's tool retry loop --------------------------------------------------------------------


def tool_attempt(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``ToolExecutionMixin._execute_tool_with_circuit_breaker`` (1.6+): one attempt of PraisonAI's
    tool retry loop.

    When the run's abort was recorded during the attempt (an agent the tool ran
    was stopped by a hook), the attempt reports a policy denial, which that loop
    never retries: the tool's body is not run again for an abort that is
    already final, and ``execute_tool``'s wrapper raises it.
    """
    latch = current_latch()
    if latch is None:
        return wrapped(*args, **kwargs)
    if latch.error is None:
        try:
            result = wrapped(*args, **kwargs)
        except Exception:
            if latch.error is None:
                raise
        else:
            if latch.error is None:
                return result
    return {"error": f"the run was aborted by a hook: {latch.error}", "policy_denied": True}
