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

from typing import Any

from hookport.calls import ToolShape, outer_layer_dispatched_tool, tool_call, tool_hooks_active
from hookport.contexts import ToolCallHookContext
from hookport.errors import HookAborted

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


def tool_input(tool: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any] | None:
    """The call's arguments by name, as ``Tool.__call__`` reads them (None: not readable as names)."""
    if not args:
        return dict(kwargs)
    if len(args) == 1 and not kwargs and isinstance(args[0], dict):
        return dict(args[0])
    names = list(getattr(tool, "inputs", None) or ())
    if len(args) > len(names):
        return None
    return {**dict(zip(names, args)), **kwargs}


def tool_entry(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    name = getattr(instance, "name", None) or type(instance).__name__
    if name == FINAL_ANSWER or not tool_hooks_active() or outer_layer_dispatched_tool(name, FRAMEWORK):
        return wrapped(*args, **kwargs)
    sanitize = kwargs.pop("sanitize_inputs_outputs", False)
    arguments = tool_input(instance, args, kwargs)
    if arguments is None:
        return wrapped(*args, sanitize_inputs_outputs=sanitize, **kwargs)

    from hookport.adapters.smolagents._runs import agent_fields, note_abort

    ctx = ToolCallHookContext(name, arguments, instance, framework=FRAMEWORK, **agent_fields())
    failures: list[BaseException] = []

    def run(c: ToolCallHookContext) -> Any:
        try:
            return wrapped(sanitize_inputs_outputs=sanitize, **c.tool_input)
        except BaseException as error:
            failures.append(error)
            raise

    try:
        return tool_call(ctx, run, SHAPE)
    except BaseException as error:
        if not any(error is f for f in failures):  # a hook's error: it ends the run
            note_abort(error)
        raise
