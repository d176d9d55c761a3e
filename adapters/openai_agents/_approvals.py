"""The SDK's own approval pause for ``wait = "native"`` approval rules (`hookport.pauses`).

``function_needs_approval(function_tool, context_wrapper, tool_call)`` is where a run
asks whether a function tool call needs a person (the tool's ``needs_approval``); it
returns a bool (0.19 - 0.21) or a ``FunctionToolApproval`` (0.24). When a registered
hook wants the call paused, the answer becomes "needs approval", so the run stops with
``result.interruptions`` and resumes the SDK's way (``state.approve(item)``, then
``Runner.run(agent, state)``). The tool's own setting is asked first and never loosened.
"""

from __future__ import annotations

from typing import Any

from hookport.pauses import pause_wanted
from hookport.points import InterceptionPoint
from hookport.registry import has_hooks

from hookport.adapters.openai_agents._state import FRAMEWORK
from hookport.adapters.openai_agents._tools import arguments_of


async def needs_approval(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    result = await wrapped(*args, **kwargs)
    if not has_hooks(InterceptionPoint.PRE_TOOL_CALL):  # no hook to want a pause: the arguments go unread
        return result
    function_tool = args[0] if args else kwargs.get("function_tool")
    tool_call = args[2] if len(args) > 2 else kwargs.get("tool_call")
    name = str(getattr(function_tool, "name", "") or "")
    if not pause_wanted(FRAMEWORK, name, arguments_of(getattr(tool_call, "arguments", None))):
        return result
    if isinstance(result, bool):
        return True
    if getattr(result, "outcome", None) == "invoke":  # 0.24's FunctionToolApproval
        result.outcome = "require_approval"
        result.prepared = None
    return result
