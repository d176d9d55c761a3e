"""The second line of defence: a LlamaIndex tool's own ``call`` / ``acall``.

Every path from an agent, a workflow step or the app's code to a tool object ends in its
class's ``call`` (sync) or ``acall`` (async): ``FunctionTool`` (functions, ToolSpecs, MCP
tools, agents wrapped as tools), ``QueryEngineTool``, ``RetrieverTool``, and
``BaseToolAsyncAdapter.call`` for the app's own sync ``BaseTool`` classes. The body asks
whether the call site (``_call_tool``) decided this call; a call nobody decided (a workflow's
own ``@step`` calling a tool, code that holds the tool object) dispatches PRE_TOOL_CALL
here, and a refusal is the call site's ``ToolOutput(is_error=True)`` with the same text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hookport.adapters.llama_index._state import FRAMEWORK, current_run
from hookport.adapters.llama_index._tools import SHAPE
from hookport.calls import atool_call, tool_call
from hookport.contexts import ToolCallHookContext
from hookport.decisions import body_layer, body_must_decide, tool_hooks_active

LAYER = body_layer(FRAMEWORK)


def tool_name(tool: Any) -> str:
    metadata = tool.metadata
    return str(metadata.get_name() if hasattr(metadata, "get_name") else metadata.name)


def _arguments(tool: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any] | None:
    """The call's arguments as the call site saw them (``None`` for positional calls: not comparable)."""
    if args:
        return None
    context = getattr(tool, "ctx_param_name", None)
    return {k: v for k, v in kwargs.items() if k != context} if context else kwargs


def run_fields() -> dict[str, Any]:
    """The agent whose turn is open in the run, where there is a run (a body knows no agent itself)."""
    state = current_run.get()
    return dict(state.turn_fields) if state is not None and state.turn_fields else {}


def _context(name: str, tool: Any, arguments: Mapping[str, Any] | None, fields: dict[str, Any]) -> ToolCallHookContext:
    return ToolCallHookContext(name, dict(arguments or {}), tool=tool, framework=FRAMEWORK, **fields)


def _again(args: tuple[Any, ...], kwargs: dict[str, Any], arguments: Any, ctx: ToolCallHookContext) -> dict[str, Any]:
    """The keyword arguments to run with: the hooks' edits, the call's own extras (a Context) kept."""
    return kwargs if arguments is None or ctx.tool_input == arguments else {**kwargs, **ctx.tool_input}


def body_call(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``<tool>.call(...)``: dispatch unless a call site decided this call."""
    if not tool_hooks_active():
        return wrapped(*args, **kwargs)
    tool = getattr(instance, "base_tool", instance)
    arguments = _arguments(tool, args, kwargs)
    name = tool_name(tool)
    if not body_must_decide(name, LAYER, arguments):
        return wrapped(*args, **kwargs)
    ctx = _context(name, tool, arguments, run_fields())
    return tool_call(ctx, lambda c: wrapped(*args, **_again(args, kwargs, arguments, c)), SHAPE, layer=LAYER)


async def body_acall(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``<tool>.acall(...)``: dispatch unless a call site decided this call."""
    if not tool_hooks_active():
        return await wrapped(*args, **kwargs)
    arguments = _arguments(instance, args, kwargs)
    name = tool_name(instance)
    if not body_must_decide(name, LAYER, arguments):
        return await wrapped(*args, **kwargs)
    ctx = _context(name, instance, arguments, run_fields())

    async def run(c: ToolCallHookContext) -> Any:
        return await wrapped(*args, **_again(args, kwargs, arguments, c))

    return await atool_call(ctx, run, SHAPE, layer=LAYER)
