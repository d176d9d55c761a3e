"""PRE_TOOL_CALL / POST_TOOL_CALL (and the wrap hooks) around ``wrap_tool_execute``'s handler.

Pydantic AI runs every tool call -- function tools, toolsets, MCP servers -- through
its ``ToolManager``, which calls the root capability's ``wrap_tool_execute`` with the
validated arguments and a ``handler`` that executes the tool (output tools are
left out by Pydantic AI itself). hookport's sequence sits around that handler, inside every
capability's ``wrap_tool_execute`` (`_joins`):

- PRE hooks see the validated arguments as a dict copy; edits go to ``handler``;
- a refusal returns the refusal text as the tool's result: the model receives it as
  the tool return of that call and the run goes on; the tool body never runs and,
  since it is a result and not ``ModelRetry``, nothing runs the refused tool again;
- wrap hooks sit around ``handler`` (which may be called again, or not at all);
- a POST string replaces the result the model receives.
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable
from typing import Any

from hookport.adapters.pydantic_ai._bodies import site_call
from hookport.calls import ToolShape, atool_call
from hookport.contexts import ToolCallHookContext
from hookport.errors import HookAborted

REFUSAL = "The tool call to {tool} was denied: {reason}"
"""What the model receives for a refused call, as the tool return of that call (its ``tool_call_id``):
Pydantic AI's own wording for a denied tool call (``ToolDenied``), naming the tool the model called
and carrying the reason."""


class _ToolShape(ToolShape[Any]):
    def refusal_text(self, ctx: ToolCallHookContext, refusal: HookAborted) -> str:
        return REFUSAL.format(tool=ctx.tool_name, reason=refusal.reason)

    def replace(self, result: Any, text: str) -> Any:
        return text


SHAPE = _ToolShape()


async def hooked_tool_call(fields: dict[str, Any], call: Any, args: Any, handler: Any) -> Any:
    """One tool execution while a tool hook is registered: `handler(args)` runs the tool's whole
    execution lifecycle."""
    tool_input = copy.deepcopy(args) if isinstance(args, dict) else {"args": args}
    ctx = ToolCallHookContext(call.tool_name, tool_input, tool_call_id=call.tool_call_id,
                              metadata={"call": call}, **fields)

    def run(c: ToolCallHookContext) -> Awaitable[Any]:
        return handler(c.tool_input if isinstance(args, dict) else args)  # type: ignore[no-any-return]

    token = site_call.set((call.tool_call_id, call.tool_name))  # binds a renamed toolset's body to this call
    try:
        return await atool_call(ctx, run, SHAPE)
    finally:
        site_call.reset(token)
