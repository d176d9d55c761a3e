"""Tool calls at ``FunctionTool.invoke``, the one method every path to a tool's code takes.

The tool loop calls ``tool.invoke(arguments=, context=, tool_call_id=)`` with or without a
middleware pipeline (from the end of the users' ``FunctionMiddleware`` when there is one, 1.0
to 1.23), and so do MCP tools (a ``FunctionTool`` per remote tool), agents used as tools
(``agent.as_tool()``), an agent served as an MCP server (``agent.as_mcp_server()``) and any code
of the app's that invokes a tool. Each call no outer layer decided is dispatched here:
PRE_TOOL_CALL (a refusal becomes the function result; the tool never runs) -> wrap hooks ->
the tool -> POST_TOOL_CALL. Joining here instead of the framework's function middleware keeps
the tool loop on its own no-middleware route (no ``FunctionInvocationContext``, argument
snapshots and pipeline closures per call). The tool's own code, ``FunctionTool.__call__``, is
the second line (`_body`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hookport.calls import ToolShape, atool_call
from hookport.contexts import ToolCallHookContext
from hookport.errors import HookAborted

from hookport.adapters.agent_framework._messages import _result_text
from hookport.adapters.agent_framework._state import (FRAMEWORK, AbortEscape, RunState, current_run, in_plain_run,
                                                     set_run_fields)

LAYER = FRAMEWORK
"""The layer name of this call site (`hookport.decisions`); the tool's body claims its decisions."""


class FunctionShape(ToolShape[Any]):
    def text(self, result: Any) -> str | None:
        if type(result) is list and len(result) == 1:  # the usual one ``Content``: `_result_text`, inlined
            text = getattr(result[0], "text", None)
            if isinstance(text, str):
                return text
        return None if result is None else _result_text(result)

    def replace(self, result: Any, text: str) -> Any:
        return text

    def refusal_text(self, ctx: ToolCallHookContext, refusal: HookAborted) -> str:
        return refusal_message(ctx.tool_name, refusal.reason)


def refusal_message(tool: str, reason: str) -> str:
    """The function result the model reads for a refused call, in the framework's own
    ``Error: ...`` style (``Error: Tool call invocation was rejected by user.``)."""
    return f"Error: Tool call {tool} was refused: {reason}"


FUNCTION_SHAPE = FunctionShape()


def as_dict(arguments: Any) -> dict[str, Any]:
    if arguments is None:
        return {}
    dump = getattr(arguments, "model_dump", None)
    if callable(dump):
        return dict(dump())
    return dict(arguments)


def _arguments(kwargs: dict[str, Any]) -> Any:
    """What the tool will run with: ``arguments``, else the context's, else direct keyword values."""
    given = kwargs.get("arguments")
    if given is None and kwargs.get("context") is not None:
        given = getattr(kwargs["context"], "arguments", None)
    if given is None:
        given = {k: v for k, v in kwargs.items() if k not in ("arguments", "context", "tool_call_id", "skip_parsing")}
    return given


class ToolContext(ToolCallHookContext):
    """One hooked tool call: its context, and what `run_tool` needs to run it (one object per call,
    built without the keyword chain of the base ``__init__``)."""

    __slots__ = ("_wrapped", "_args", "_kwargs", "_given")

    def __init__(self, wrapped: Any, args: tuple[Any, ...], kwargs: dict[str, Any], given: dict[str, Any],
                 tool: Any, run: RunState | None) -> None:
        self._wrapped = wrapped
        self._args = args
        self._kwargs = kwargs
        self._given = given  # the arguments as the framework gave them (hooks edit a copy)
        self.tool_name = tool.name
        self.tool_input = dict(given)
        self.tool = tool
        self.tool_result = None
        self.raw_tool_result = None
        self.tool_call_id = kwargs.get("tool_call_id")
        self.duration_ms = None
        self.refused = False
        self.refusal = None
        self.wrappable = False
        set_run_fields(self, run)


async def run_tool(c: ToolContext) -> Any:
    """The engine's `run`: the framework's ``invoke``, with the hooks' arguments if they changed them."""
    kwargs = c._kwargs
    if c.tool_input == c._given:
        return await c._wrapped(*c._args, **kwargs)
    direct = {k: kwargs[k] for k in ("context", "tool_call_id", "skip_parsing") if k in kwargs}
    return await c._wrapped(*c._args, arguments=dict(c.tool_input), **direct)


async def invoke(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``FunctionTool.invoke(*, arguments=None, context=None, tool_call_id=None, **kwargs)``, once
    the idle check found a tool hook and no outer layer decided this call."""
    run = current_run.get()
    given = kwargs.get("arguments")
    if type(given) is not dict:  # the tool loop gives its own dict; anything else is read as the tool will
        given = _arguments(kwargs)
        given = as_dict(given) if isinstance(given, (Mapping, type(None))) or hasattr(given, "model_dump") else {}
    try:
        return await atool_call(ToolContext(wrapped, args, kwargs, given, instance, run), run_tool, FUNCTION_SHAPE,
                                layer=LAYER)
    except HookAborted as aborted:
        if run is None and not in_plain_run.get():  # outside an agent run: nothing unwraps the escape
            raise
        raise AbortEscape(aborted) from None  # past the framework's `except Exception` around a tool
