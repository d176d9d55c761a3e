"""The second line of defence: ``FunctionTool.invoke``, the one method every path to a tool's body takes.

The tool loop calls ``tool.invoke(arguments=, context=, tool_call_id=)`` with or
without a middleware pipeline (1.0 to 1.23), and so do MCP tools (a ``FunctionTool``
per remote tool), agents used as tools (``agent.as_tool()``), an agent served as an
MCP server (``agent.as_mcp_server()``) and any code of the app's that invokes a tool.
When hookport's ``FunctionMiddleware`` decided the call, the body claims that
decision and stays silent; otherwise (a path no call site covers) it dispatches
PRE_TOOL_CALL itself and answers a refusal with the call site's text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hookport.calls import atool_call
from hookport.contexts import ToolCallHookContext
from hookport.decisions import body_layer
from hookport.errors import HookAborted

from hookport.adapters.agent_framework._middleware import FUNCTION_SHAPE, as_dict
from hookport.adapters.agent_framework._state import FRAMEWORK, AbortEscape, current_run, in_plain_run

LAYER = body_layer(FRAMEWORK)


def _arguments(kwargs: dict[str, Any]) -> Any:
    """What the body will run with: ``arguments``, else the context's, else direct keyword values."""
    given = kwargs.get("arguments")
    if given is None and kwargs.get("context") is not None:
        given = getattr(kwargs["context"], "arguments", None)
    if given is None:
        given = {k: v for k, v in kwargs.items() if k not in ("arguments", "context", "tool_call_id", "skip_parsing")}
    return given


async def guarded(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``FunctionTool.invoke(*, arguments=None, context=None, tool_call_id=None, **kwargs)``, once
    `body_must_decide` said no call site decided it: PRE_TOOL_CALL here, the body, POST_TOOL_CALL."""
    run = current_run.get()
    given = _arguments(kwargs)
    tool_input = as_dict(given) if isinstance(given, (Mapping, type(None))) or hasattr(given, "model_dump") else {}
    ctx = ToolCallHookContext(instance.name, dict(tool_input), instance, tool_call_id=kwargs.get("tool_call_id"),
                              agent=run.agent if run else None, agent_role=run.name if run else None,
                              framework=FRAMEWORK)

    async def body(c: ToolCallHookContext) -> Any:
        if c.tool_input == tool_input:
            return await wrapped(*args, **kwargs)
        direct = {k: kwargs[k] for k in ("context", "tool_call_id", "skip_parsing") if k in kwargs}
        return await wrapped(*args, arguments=dict(c.tool_input), **direct)

    try:
        return await atool_call(ctx, body, FUNCTION_SHAPE, layer=LAYER)
    except HookAborted as aborted:
        if run is None and not in_plain_run.get():  # outside an agent run: nothing unwraps the escape
            raise
        raise AbortEscape(aborted) from None
