"""PRE_TOOL_CALL / POST_TOOL_CALL on every tool call an ``AssistantAgent`` runs.

Every tool call of an agent turn, parallel ones included (AutoGen runs the
calls of one model answer with ``asyncio.gather``), goes through the static
method ``AssistantAgent._execute_tool_call(tool_call=, workbench=, ...)``,
which returns ``(FunctionCall, FunctionExecutionResult)``. It exists with that
shape in every supported release, above the place the execution moved
(``StaticWorkbench.call_tool`` -> ``tool.run_json`` in 0.5, the workbench's
``call_tool`` / ``call_tool_stream`` over ``BaseTool.run_json`` from 0.6), so it
covers function tools, MCP workbenches, custom workbenches and handoff tools
alike, on every version, once.

- ``ctx.tool_input`` is the parsed JSON arguments; an edit is dumped back
  into a copy of the ``FunctionCall`` the tool gets.
- A refusal follows AutoGen's convention for a failed tool call: the result
  is ``FunctionExecutionResult(content="Error: Tool call <name> was refused:
  <reason>", is_error=True)``, which the model receives as that call's output
  (as it does for a tool that raised, or one not found). The body never runs,
  and nothing re-runs it (AutoGen does not retry tool calls).
- A POST string replaces the result's content (``is_error`` kept).
- An error out of a tool hook (an abort after the tool ran, a failing hook) ends
  the turn before its next model request: AutoGen 0.6+ would wait forever for a
  tool call that raised (`TurnState.hold_error`).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from hookport import registry
from hookport.calls import ToolShape, atool_call, tool_call, tool_hooks_active
from hookport.contexts import ToolCallHookContext
from hookport.errors import HookAborted
from hookport.points import ExtensionPoint
from hookport.registry import has_hooks

from hookport.adapters._sdk_data import parse_arguments
from hookport.adapters._sync_wraps import on_worker, sync_wraps
from hookport.adapters.autogen._state import FRAMEWORK, current_turn

Args = tuple[Any, ...]
Kwargs = dict[str, Any]


def refusal_text(tool_name: str, reason: str) -> str:
    """What the model receives for a refused call, in AutoGen's ``Error: ...`` style."""
    return f"Error: Tool call {tool_name} was refused: {reason}"


class _ExecutionShape(ToolShape[Any]):
    """``(FunctionCall, FunctionExecutionResult)``."""

    def __init__(self, call: Any) -> None:
        self.call = call

    def text(self, result: Any) -> str | None:
        return result[1].content if isinstance(result, tuple) else None

    def _result(self, text: str, is_error: bool) -> Any:
        from autogen_core.models import FunctionExecutionResult

        return (self.call, FunctionExecutionResult(content=text, call_id=self.call.id, is_error=is_error,
                                                   name=self.call.name))

    def replace(self, result: Any, text: str) -> Any:
        if isinstance(result, tuple):
            return result[0], result[1].model_copy(update={"content": text})
        return self._result(text, False)

    def refusal_text(self, ctx: ToolCallHookContext, refusal: HookAborted) -> str:
        return refusal_text(ctx.tool_name, refusal.reason)

    def refuse(self, ctx: ToolCallHookContext, refusal: HookAborted) -> Any:
        text = ctx.tool_result if isinstance(ctx.tool_result, str) else refusal_text(ctx.tool_name, refusal.reason)
        return self._result(text, True)


_ATOMS = frozenset((str, int, float, bool, type(None)))


def _unedited(arguments: dict[str, Any], raw: Any) -> dict[str, Any]:
    """What the hooks' edits are told apart from: a flat copy of `arguments` when every value is
    immutable (the usual JSON scalars), else a second parse of `raw` (cheaper than a deep copy)."""
    for value in arguments.values():
        if type(value) not in _ATOMS:
            return parse_arguments(raw)
    return dict(arguments)


async def _hooked(wrapped: Any, kwargs: Kwargs) -> Any:
    call = kwargs["tool_call"]
    state = current_turn.get()
    arguments = parse_arguments(call.arguments)
    ctx = ToolCallHookContext(call.name, arguments, kwargs.get("workbench"), tool_call_id=call.id,
                              framework=FRAMEWORK, agent=state.agent if state is not None else None,
                              agent_role=state.name if state is not None else kwargs.get("agent_name"))
    original = _unedited(arguments, call.arguments)
    shape = _ExecutionShape(call)

    async def run(c: ToolCallHookContext) -> Any:
        # each run (a wrap hook may make several) is a decision the tool's body claims, opened by
        # `atool_call` / `tool_call` around it (on a worker, `on_worker` brings it to this task);
        # behind a workbench's ``tool_overrides`` rename the body knows another name and dispatches it too
        if c.tool_input == original:
            return await wrapped(**kwargs)
        edited = dataclasses.replace(call, arguments=json.dumps(c.tool_input, default=str))
        found, result = await wrapped(**{**kwargs, "tool_call": edited})
        return call, result

    try:
        if has_hooks(ExtensionPoint.WRAP_TOOL_CALL) and sync_wraps(ExtensionPoint.WRAP_TOOL_CALL):
            return await on_worker(tool_call, ctx, run, shape)
        return await atool_call(ctx, run, shape)
    except Exception as error:
        if state is None:
            raise
        state.hold_error(error)  # raised by the turn before its next model request (see TurnState.hold_error)
        return shape._result(f"Error: {error}", True)


def execute_tool_call(wrapped: Any, instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``AssistantAgent._execute_tool_call`` (a static method, called with keyword arguments)."""
    if not (registry._global or registry._open_scopes) or args or "tool_call" not in kwargs or \
            not tool_hooks_active():
        return wrapped(*args, **kwargs)
    return _hooked(wrapped, kwargs)
