"""PRE_TOOL_CALL / POST_TOOL_CALL on the computer tool's actions (``ComputerAction``).

The run loop drives the app's ``Computer`` / ``AsyncComputer`` (clicks, typing,
key presses, then a screenshot) in ``ComputerAction._execute_action_and_capture
(computer, tool_call)``; the computer object itself is resolved per run (from a
provider or an initializer), so this one site, which every computer call of a run
takes, is wrapped instead of the object's methods.

- The tool is ``computer_use_preview`` (the SDK's runtime name of ``ComputerTool``);
  ``ctx.tool_input`` holds the call's ``actions`` (read-only: edits do not reach the
  driver).
- A refusal: none of the actions runs. The wire format's only answer to a computer
  call is a screenshot, so the model receives a fresh one of the unchanged screen
  (the driver's ``screenshot()``, read-only) and POST_TOOL_CALL sees the refusal text.
- A POST string does not replace the screenshot (the model only takes an image here).
"""

from __future__ import annotations

import inspect
from typing import Any

from hookport.calls import ToolShape, atool_call, outer_layer_dispatched_tool, tool_hooks_active
from hookport.contexts import ToolCallHookContext
from hookport.errors import HookAborted

from hookport.adapters.openai_agents._state import FRAMEWORK, agent_name, check_latch, current_agent, record
from hookport.adapters.openai_agents._tools import refusal_text

NAME = "computer_use_preview"
Args = tuple[Any, ...]
Kwargs = dict[str, Any]


class _ScreenShape(ToolShape[Any]):
    """A computer call answers with a screenshot (base64 text)."""

    def __init__(self, computer: Any) -> None:
        self.computer = computer

    def text(self, result: Any) -> str | None:
        return None if result is None else str(result)

    def replace(self, result: Any, text: str) -> Any:
        return text if result is None else result  # a screenshot is not replaced by text

    def refusal_text(self, ctx: ToolCallHookContext, refusal: HookAborted) -> str:
        return refusal_text(ctx.tool_name, refusal.reason)

    def refuse(self, ctx: ToolCallHookContext, refusal: HookAborted) -> Any:
        return _screenshot(self.computer)


async def _screenshot(computer: Any) -> Any:
    shot = computer.screenshot()
    return await shot if inspect.isawaitable(shot) else shot


def _actions(tool_call: Any) -> list[Any]:
    plain = tool_call.model_dump(exclude_none=True) if hasattr(tool_call, "model_dump") else {}
    actions = plain.get("actions") or ([plain["action"]] if plain.get("action") else [])
    return list(actions)


async def _hooked(wrapped: Any, args: Args, kwargs: Kwargs, computer: Any, tool_call: Any) -> Any:
    agent = current_agent()
    ctx = ToolCallHookContext(NAME, {"actions": _actions(tool_call)}, computer,
                              tool_call_id=getattr(tool_call, "call_id", None), agent=agent,
                              agent_role=agent_name(agent), framework=FRAMEWORK)
    shape = _ScreenShape(computer)

    async def run(c: ToolCallHookContext) -> Any:
        return await wrapped(*args, **kwargs)

    try:
        result = await atool_call(ctx, run, shape)
    except HookAborted as error:
        record(error)
        raise
    return await result if inspect.isawaitable(result) else result


def execute_actions(wrapped: Any, instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``ComputerAction._execute_action_and_capture(computer, tool_call)`` (a classmethod)."""
    check_latch()
    if not tool_hooks_active():
        return wrapped(*args, **kwargs)
    computer = args[0] if args else kwargs.get("computer")
    tool_call = args[1] if len(args) > 1 else kwargs.get("tool_call")
    if outer_layer_dispatched_tool(NAME, FRAMEWORK, {"actions": _actions(tool_call)}):
        return wrapped(*args, **kwargs)
    return _hooked(wrapped, args, kwargs, computer, tool_call)
