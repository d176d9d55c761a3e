"""Two more places DSPy runs a tool: a native tool call's ``execute``, and CodeAct's code.

``ToolCalls.ToolCall.execute(functions)`` (3.0+) runs the function a model's native
tool call names: a ``dspy.Tool``'s (its guarded body decides too), or a plain
function from a dict or from the caller's frame, which no other layer sees. So
``execute`` is a call site: PRE_TOOL_CALL with the call's name and arguments, and
a refusal is DSPy's own failure of a tool, ``RuntimeError("Error executing tool
'<name>': Tool call <name> was refused: <reason>")``. The caller-frame lookup is
done here, in the caller's frame, so hookport's wrapper does not hide it.

``CodeAct`` sends each tool's source into its interpreter (a Deno / Pyodide sandbox,
or the interpreter the app gave it) and runs the model's code there, where the tools
run on copies no hook of this process sees. ``ProgramOfThought._execute_code`` (which
CodeAct inherits) is the call site: the code is read against the module's tools
(`hookport.adapters._code_guard`), each use is one PRE_TOOL_CALL, a refusal runs none
of the code (the step's observation is ``Failed to execute the generated code: Tool
call <name> was refused: <reason>``), and code hookport cannot read fails closed.
"""

from __future__ import annotations

import sys
from typing import Any

from hookport.adapters._code_guard import Use, decide, read
from hookport.calls import ToolShape, outer_layer_dispatched_tool, tool_call, tool_hooks_active
from hookport.contexts import ToolCallHookContext
from hookport.errors import HookAborted

from hookport.adapters.dspy._state import FRAMEWORK, agent_fields, record
from hookport.adapters.dspy._tools import ToolRefused, refusal_text

Args = tuple[Any, ...]
Kwargs = dict[str, Any]


class _ExecuteShape(ToolShape[Any]):
    def refusal_text(self, ctx: ToolCallHookContext, refusal: HookAborted) -> str:
        return refusal_text(ctx.tool_name, refusal.reason)

    def refuse(self, ctx: ToolCallHookContext, refusal: HookAborted) -> Any:
        text = ctx.tool_result if isinstance(ctx.tool_result, str) else self.refusal_text(ctx, refusal)
        raise RuntimeError(f"Error executing tool '{ctx.tool_name}': {text}") from ToolRefused(text, refusal)

    def text(self, result: Any) -> str | None:
        from hookport.adapters.dspy._tools import TOOL

        return TOOL.text(result)


_EXECUTE = _ExecuteShape()


def _caller_functions(name: str) -> dict[str, Any]:
    """What ``execute()`` with no functions finds: the name in its caller's locals, then globals."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_globals.get("__name__", "").startswith(("wrapt", "hookport.")):
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None:
        return {}
    try:
        found = frame.f_locals.get(name) or frame.f_globals.get(name)
    finally:
        del frame
    return {name: found} if found is not None else {}


def tool_call_execute(wrapped: Any, instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``ToolCalls.ToolCall.execute(functions=None)``: a native tool call run by DSPy."""
    functions = args[0] if args else kwargs.get("functions")
    if functions is None and instance is not None:
        functions = _caller_functions(str(instance.name))
    name = str(getattr(instance, "name", "") or "")
    if instance is None or not tool_hooks_active() or outer_layer_dispatched_tool(name, FRAMEWORK):
        return wrapped(functions)
    ctx = ToolCallHookContext(name, dict(instance.args or {}), _named(functions, name), **agent_fields())

    def run(c: ToolCallHookContext) -> Any:
        func = _resolve(functions, name)
        if c.tool_input == (instance.args or {}) or func is None:
            return wrapped(functions)
        try:  # edited arguments: what ``execute`` does, with them
            return func(**c.tool_input)
        except Exception as error:
            raise RuntimeError(f"Error executing tool '{name}': {error}") from error

    try:
        return tool_call(ctx, run, _EXECUTE)
    except HookAborted as error:
        record(error)
        raise


def _named(functions: Any, name: str) -> Any:
    """The tool (or function) `functions` holds under `name`."""
    if isinstance(functions, dict):
        return functions.get(name)
    return next((t for t in functions or () if getattr(t, "name", None) == name), None)


def _resolve(functions: Any, name: str) -> Any:
    """The function ``execute`` calls: a dict's entry, or the named ``dspy.Tool``'s ``func``."""
    found = _named(functions, name)
    return found if isinstance(functions, dict) else getattr(found, "func", None)


# -- CodeAct ----------------------------------------------------------------------------------------------------


class _CodeShape(ToolShape[Any]):
    """``_execute_code``'s ``(output, error)``."""

    def text(self, result: Any) -> str | None:
        output, error = result
        return output if output is not None else error

    def replace(self, result: Any, text: str) -> Any:
        return (text, None) if result is None or result[0] is not None else (None, text)

    def refusal_text(self, ctx: ToolCallHookContext, refusal: HookAborted) -> str:
        return refusal_text(ctx.tool_name, refusal.reason)

    def refuse(self, ctx: ToolCallHookContext, refusal: HookAborted) -> Any:
        return None, ctx.tool_result if isinstance(ctx.tool_result, str) else self.refusal_text(ctx, refusal)


_CODE = _CodeShape()


def execute_code(wrapped: Any, instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``ProgramOfThought._execute_code(code[, interpreter])``: CodeAct's code, its tool calls decided first."""
    tools = getattr(instance, "tools", None)
    code = args[0] if args else kwargs.get("code")
    if not isinstance(tools, dict) or not tools or not isinstance(code, str) or not tool_hooks_active():
        return wrapped(*args, **kwargs)
    offered = {str(name): list(getattr(tool, "args", None) or ()) for name, tool in tools.items()}
    reading = read(code, offered)
    if not reading.uses and reading.hidden is None:
        return wrapped(*args, **kwargs)
    fields = agent_fields()

    def context(use: Use) -> ToolCallHookContext:
        ctx = ToolCallHookContext(use.name, dict(use.arguments), tools.get(use.name), **fields)
        ctx.metadata["code_interpreter"] = type(instance).__name__
        return ctx

    try:
        return decide(reading, offered, lambda: wrapped(*args, **kwargs), _CODE, context)
    except HookAborted as error:
        record(error)
        raise
