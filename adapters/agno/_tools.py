"""PRE_TOOL_CALL / POST_TOOL_CALL (and the wrap hooks) around ``FunctionCall.execute`` / ``aexecute``.

Agno runs every tool call of its loop -- function tools, toolkits, MCP tools, a team's
delegation tools; parallel async calls through ``asyncio.gather`` -- through these two
methods of ``agno.tools.function.FunctionCall``. In an async run a sync tool goes through
``asyncio.to_thread(function_call.execute)``: the sync path runs on a worker thread with
a copy of the run's context, so scoped hooks, the run's fields and the re-entrancy rule
follow it there.

- PRE hooks see a copy of the call's arguments; edits are set on the ``FunctionCall``
  before Agno runs it;
- a refusal is Agno's failed tool: ``function_call.error`` holds the refusal and the
  result is ``FunctionExecutionResult(status="failure")``, so the model receives the
  refusal as that call's tool message (``tool_call_error=True``) and the run goes on;
  the body, the tool's ``pre_hook`` / ``post_hook`` and the ``tool_hooks`` never run,
  and nothing retries the call;
- wrap hooks sit around Agno's whole execution of the call (its hooks included);
- a POST string replaces the result the model receives.

Both lines of defence are this one method in Agno: ``FunctionCall.execute`` / ``aexecute`` is the
tool-call object's own execution method and the only caller of a tool's entrypoint (Agno calls
``function.entrypoint(...)`` nowhere else; a ``FunctionCall`` run by code no agent loop runs, a
workflow step or the app, is decided here too). A call an outer layer already decided (another
adapter's tool wrapping it) is claimed, not dispatched twice; a nested call of a same-named tool
is a call of its own. External-execution tools, which Agno never runs, are decided when the model
asks for them (``_external``).

hookport's hooks enclose the users' own per-tool hooks: PRE, then Agno's ``pre_hook``,
``tool_hooks`` (in their order) around the body, ``post_hook``, then POST.
"""

from __future__ import annotations

from typing import Any

from hookport import registry
from hookport.calls import ToolShape, atool_call, tool_call
from hookport.contexts import ToolCallHookContext
from hookport.decisions import decided_outside
from hookport.errors import HookAborted
from hookport.points import ExtensionPoint, InterceptionPoint
from hookport.reentry import hooks_off
from hookport.registry import any_hooks, chains

from hookport.adapters.agno._external import Refused
from hookport.adapters.agno._state import FRAMEWORK, copied_arguments, current_run, escaping

P = InterceptionPoint
_PRE_TOOL, _POST_TOOL, _WRAP_TOOL = P.PRE_TOOL_CALL, P.POST_TOOL_CALL, ExtensionPoint.WRAP_TOOL_CALL
"""Module constants: on Python 3.11 ``P.PRE_TOOL_CALL`` goes through EnumType's ``__getattr__`` hook."""
_TOOL_POINTS = (_PRE_TOOL, _POST_TOOL, _WRAP_TOOL)


def _outcome(**fields: Any) -> Any:
    from agno.tools.function import FunctionExecutionResult

    return FunctionExecutionResult(**fields)


def result_text(outcome: Any) -> str | None:
    """What the model will read for a ``FunctionExecutionResult``."""
    if outcome is None:
        return None
    if getattr(outcome, "status", "success") != "success":
        return outcome.error
    result = outcome.result
    if result is None or isinstance(result, str):
        return result
    content = getattr(result, "content", None)  # agno.tools.function.ToolResult
    if isinstance(content, str):
        return content
    return str(result)


class _Call(ToolShape[Any]):
    """One hooked tool call: its context, how Agno runs it, which exceptions came from Agno's own
    execution, and the shape of its ``FunctionExecutionResult`` (one object per call, its bound
    methods the engine's `run`: no closure or separate shape per call)."""

    __slots__ = ("instance", "wrapped", "args", "kwargs", "ctx", "native")

    def __init__(self, wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        run = current_run.get()
        function = instance.function
        self.instance = instance
        self.wrapped = wrapped
        self.args = args
        self.kwargs = kwargs
        self.ctx = ToolCallHookContext(function.name, copied_arguments(instance.arguments), function,
                                       tool_call_id=instance.call_id, framework=FRAMEWORK,
                                       metadata={"function_call": instance},
                                       agent=run.agent if run is not None else None,
                                       agent_role=run.name if run is not None else None)
        self.native: BaseException | None = None

    text = staticmethod(result_text)  # type: ignore[assignment]  # no frame in between

    def replace(self, result: Any, text: str) -> Any:
        if result is not None and result.status != "success":
            self.instance.error = text
            result.error = text
            return result
        self.instance.result = text
        if result is None:
            return _outcome(status="success", result=text)
        result.result = text
        return result

    def refuse(self, ctx: ToolCallHookContext, refusal: HookAborted) -> Any:
        text = ctx.tool_result if isinstance(ctx.tool_result, str) else refusal.reason
        self.instance.error = text
        return _outcome(status="failure", error=text)

    def prepare(self, ctx: ToolCallHookContext) -> None:
        """The hooks' arguments on the ``FunctionCall`` Agno is about to run."""
        if ctx.tool_input != (self.instance.arguments or {}):
            self.instance.arguments = ctx.tool_input

    def run(self, ctx: ToolCallHookContext) -> Any:
        """Agno's own execution of the call (``tool_call``'s `run`)."""
        self.prepare(ctx)
        try:
            return self.wrapped(*self.args, **self.kwargs)
        except BaseException as error:  # AgentRunException (StopAgentRun ...) stays Agno's
            self.native = error
            raise

    async def arun(self, ctx: ToolCallHookContext) -> Any:
        self.prepare(ctx)
        try:
            return await self.wrapped(*self.args, **self.kwargs)
        except BaseException as error:
            self.native = error
            raise

    def failed(self, error: BaseException) -> BaseException:
        return error if error is self.native else escaping(error)


def _bypassed(instance: Any) -> bool:
    """No tool hook would run, or an outer layer (another adapter's tool wrapping this call)
    already decided this very call (which this call site then claims)."""
    return hooks_off.get()[0] or not (chains[_PRE_TOOL] or chains[_POST_TOOL] or chains[_WRAP_TOOL] or
                                      registry._open_scopes and any_hooks(_TOOL_POINTS)) or \
        decided_outside(instance.function.name, FRAMEWORK, instance.arguments or {})  # `tool_hooks_active()` inlined


def _refused_external(instance: Any) -> Any:
    """Agno's failed tool for an external call PRE_TOOL_CALL refused when it was produced (or None)."""
    entrypoint = getattr(instance.function, "entrypoint", None)
    if type(entrypoint) is not Refused:
        return None
    instance.error = entrypoint.text
    return _outcome(status="failure", error=entrypoint.text)


def execute(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``FunctionCall.execute()`` (also on the worker thread of an async run)."""
    if not (registry._global or registry._open_scopes):  # nothing registered anywhere: straight through
        return wrapped(*args, **kwargs)
    if type(getattr(instance.function, "entrypoint", None)) is Refused:
        return _refused_external(instance)
    if _bypassed(instance):
        return wrapped(*args, **kwargs)
    call = _Call(wrapped, instance, args, kwargs)
    try:
        return tool_call(call.ctx, call.run, call)
    except BaseException as error:
        raise call.failed(error) from None


def aexecute(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``FunctionCall.aexecute()``: async tools, and sync ones whose ``tool_hooks`` are async; its
    own coroutine when nothing is registered."""
    if not (registry._global or registry._open_scopes):  # nothing registered anywhere: straight through
        return wrapped(*args, **kwargs)
    return _aexecute(wrapped, instance, args, kwargs)


async def _aexecute(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    refused = _refused_external(instance)
    if refused is not None:
        return refused
    if _bypassed(instance):
        return await wrapped(*args, **kwargs)
    call = _Call(wrapped, instance, args, kwargs)
    try:
        return await atool_call(call.ctx, call.arun, call)
    except BaseException as error:
        raise call.failed(error) from None
