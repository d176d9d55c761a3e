"""PRE_TOOL_CALL / WRAP_TOOL_CALL / POST_TOOL_CALL around every tool ADK runs for an agent.

(The tools' own bodies are the second line, in ``_bodies``: a run no call site decided.)

The call site is ADK's ``_call_tool_async(tool, args, tool_context)``, the one line
that runs ``tool.run_async`` for function tools, MCP tools, agent tools and the
rest, each call of a parallel batch on its own. It moved between releases (the
adapter's targets name each place). hookport's hooks run innermost: after the
plugins' and the agent's ``before_tool`` callbacks (one of them may answer the
call, and then no tool runs and no tool hook fires), before the ``after_tool``
callbacks, which see hookport's replacement or refusal as the tool's result.

A refusal is ADK's convention for a failed tool: the function response
``{"error": "<refusal text>"}`` goes to the model as that call's answer, the tool
body never runs, and nothing retries it.
"""

from __future__ import annotations

import json
from typing import Any

from hookport.adapters._sync_wraps import on_worker, sync_wraps
from hookport.adapters.google_adk._state import FRAMEWORK, agent_fields
from hookport.calls import ToolShape, atool_call, tool_call, tool_hooks_active
from hookport.contexts import ToolCallHookContext
from hookport.errors import HookAborted
from hookport.points import ExtensionPoint


class ADKToolShape(ToolShape[Any]):
    """ADK tool results: anything; ADK wraps a non-dict as ``{"result": ...}`` for the model."""

    def text(self, result: Any) -> str | None:
        if result is None or isinstance(result, str):
            return result
        if isinstance(result, dict) and set(result) == {"result"}:
            return self.text(result["result"])
        try:
            return json.dumps(result, default=str)
        except (TypeError, ValueError):
            return str(result)

    def replace(self, result: Any, text: str) -> Any:
        return text

    def refuse(self, ctx: ToolCallHookContext, refusal: HookAborted) -> Any:
        return {"error": ctx.tool_result if isinstance(ctx.tool_result, str) else refusal.reason}


SHAPE = ADKToolShape()


async def tool_run(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``_call_tool_async(tool, args=..., tool_context=...)``: one tool call, hooked when a tool hook would run."""
    if not tool_hooks_active():
        return await wrapped(*args, **kwargs)
    tool, tool_args, tool_context, rest = _bind(args, kwargs)
    invocation = getattr(tool_context, "_invocation_context", None)
    ctx = ToolCallHookContext(
        getattr(tool, "name", type(tool).__name__), tool_args if isinstance(tool_args, dict) else {}, tool,
        tool_call_id=getattr(tool_context, "function_call_id", None), framework=FRAMEWORK,
        **agent_fields(getattr(invocation, "agent", None)),
    )

    async def run(c: ToolCallHookContext) -> Any:
        return await wrapped(tool, args=c.tool_input, tool_context=tool_context, **rest)

    if sync_wraps(ExtensionPoint.WRAP_TOOL_CALL):
        return await on_worker(tool_call, ctx, run, SHAPE)
    return await atool_call(ctx, run, SHAPE)


_PARAMETERS = ("tool", "args", "tool_context", "max_workers")


def _bind(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, Any, dict[str, Any]]:
    """(tool, args, tool_context, the other arguments by name: the thread pool's ``max_workers``)."""
    bound = {**dict(zip(_PARAMETERS, args)), **kwargs}
    return bound.pop("tool", None), bound.pop("args", None), bound.pop("tool_context", None), bound
