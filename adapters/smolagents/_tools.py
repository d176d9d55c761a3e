"""PRE_TOOL_CALL / POST_TOOL_CALL on ``Tool.__call__``: every smolagents tool call.

``Tool.__call__`` is where both agents reach a tool: ToolCallingAgent's
``execute_tool_call`` (parallel calls included: each runs on its own thread in a
copy of the run's context) and CodeAgent's local Python executor, for each call
the generated code makes. ``final_answer`` also passes here; it is the run's
answer (OUTPUT), not a tool call, and is left alone.

A refused call returns the refusal text as the tool's output, smolagents' way
for a tool to report a failure the model should read: it becomes the step's
observation (ToolCallingAgent) or the call's value in the generated code
(CodeAgent). The tool body never runs, and smolagents never retries a tool.
Raising instead would be recorded as a step error, with the tool's arguments
and "Please try again".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hookport.calls import ToolShape, outer_layer_dispatched_tool, tool_call, tool_hooks_active
from hookport.contexts import ToolCallHookContext
from hookport.errors import HookAborted

from hookport.adapters.smolagents import _late

FRAMEWORK = "smolagents"
FINAL_ANSWER = "final_answer"


class _Shape(ToolShape[Any]):
    def text(self, result: Any) -> str | None:
        return None if result is None else str(result)

    def replace(self, result: Any, text: str) -> Any:
        return text

    def refusal_text(self, ctx: ToolCallHookContext, refusal: HookAborted) -> str:
        return refusal_message(ctx.tool_name, refusal.reason)


def refusal_message(tool: str, reason: str) -> str:
    """What the model reads as the output of a refused call."""
    return f"Tool '{tool}' was refused: {reason}"


SHAPE = _Shape()


EXTRA = "*args"
"""Where ``ctx.tool_input`` keeps positional arguments beyond the tool's declared inputs (a tool whose
``forward(*args, **kwargs)`` skips smolagents' signature check: ``Tool.from_langchain``, MCP tools)."""


def tool_input(tool: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The call's arguments by name, as ``Tool.__call__`` reads them; extra positional ones under `EXTRA`."""
    if not args:
        return dict(kwargs)
    if len(args) == 1 and not kwargs and isinstance(args[0], dict):
        return dict(args[0])
    names = list(getattr(tool, "inputs", None) or ())
    arguments = {**dict(zip(names, args)), **kwargs}
    if len(args) > len(names):
        arguments[EXTRA] = list(args[len(names):])
    return arguments


def call_arguments(tool: Any, arguments: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """`tool_input` undone: the positional and keyword arguments to call the tool with."""
    named = dict(arguments)
    if EXTRA not in named:
        return (), named
    extra = list(named.pop(EXTRA) or ())
    positional = [named.pop(n) for n in list(getattr(tool, "inputs", None) or ()) if n in named]
    return (*positional, *extra), named


def tool_name(tool: Any) -> str:
    return getattr(tool, "name", None) or type(tool).__name__


def decide(tool: Any, arguments: dict[str, Any], call: Callable[..., Any], layer: str | None = None) -> Any:
    """One tool call through the hooks: `call(*args, **kwargs)` runs it unless a hook refuses it."""
    runs = _late.runs()
    ctx = ToolCallHookContext(tool_name(tool), arguments, tool, framework=FRAMEWORK, **runs.agent_fields())
    own = runs.OwnErrors()

    def run(c: ToolCallHookContext) -> Any:
        args, kwargs = call_arguments(tool, c.tool_input)
        return own.call(call, *args, **kwargs)

    try:
        return tool_call(ctx, run, SHAPE, layer=layer)
    except BaseException as error:
        own.end_run_unless_own(error)  # a hook's error: it ends the run
        raise


def tool_entry(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``Tool.__call__``: the call site (an argument list that does not fit the tool's inputs is
    dispatched too, its extra positional arguments in ``ctx.tool_input["*args"]``)."""
    name = tool_name(instance)
    if name == FINAL_ANSWER or not tool_hooks_active() or outer_layer_dispatched_tool(name, FRAMEWORK):
        return wrapped(*args, **kwargs)
    sanitize = kwargs.pop("sanitize_inputs_outputs", False)
    return decide(instance, tool_input(instance, args, kwargs),
                  lambda *a, **k: wrapped(*a, sanitize_inputs_outputs=sanitize, **k))
