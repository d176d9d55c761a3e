"""Functions a code executor offers to generated code: PRE_TOOL_CALL before the code runs.

``LocalCommandLineCodeExecutor(functions=[purge_records])`` (and the Docker one) copies
each function's source into a module the generated code imports, and runs that code
in another process (or container), where no hook of this process can run. So the
call site is the execution itself, ``execute_code_blocks``: hookport reads the blocks
(`hookport.adapters._code_guard`) and dispatches PRE_TOOL_CALL for every use of one of
the executor's functions, with the arguments the code writes out literally. A refusal
means none of the code runs: the result is a failed execution (``exit_code=1``) whose
output is the refusal text, which the model reads as the code's output. POST_TOOL_CALL
sees the execution's output; a returned string replaces it. Edits of ``ctx.tool_input``
cannot reach code that is already written.

The functions module is a file any process in the work directory can import, so code
hookport cannot read completely fails closed while a hook may refuse one of the
functions: code that reaches names at run time, starts processes, imports a module that
does not exist here, or is a shell block, is refused before it runs.
"""

from __future__ import annotations

import ast
import inspect
from typing import Any

from hookport.adapters._code_guard import Use, adecide, read_blocks
from hookport.calls import ToolShape, tool_hooks_active
from hookport.contexts import ToolCallHookContext
from hookport.errors import HookAborted

from hookport.adapters.autogen._state import FRAMEWORK, agent_fields, current_turn
from hookport.adapters.autogen._tools import refusal_text

Args = tuple[Any, ...]
Kwargs = dict[str, Any]
_PYTHON = ("python", "py", "python3", "")


class _CodeShape(ToolShape[Any]):
    """A ``CommandLineCodeResult``."""

    def text(self, result: Any) -> str | None:
        return getattr(result, "output", None)

    def replace(self, result: Any, text: str) -> Any:
        return result.model_copy(update={"output": text})

    def refusal_text(self, ctx: ToolCallHookContext, refusal: HookAborted) -> str:
        return refusal_text(ctx.tool_name, refusal.reason)

    def refuse(self, ctx: ToolCallHookContext, refusal: HookAborted) -> Any:
        from autogen_ext.code_executors._common import CommandLineCodeResult

        text = ctx.tool_result if isinstance(ctx.tool_result, str) else refusal_text(ctx.tool_name, refusal.reason)
        return CommandLineCodeResult(exit_code=1, output=text, code_file=None)


SHAPE = _CodeShape()


def _offered(executor: Any) -> dict[str, list[str]]:
    """The executor's functions by name -> their parameters (a function, a ``FunctionWithRequirements``,
    or source text)."""
    found: dict[str, list[str]] = {}
    for entry in getattr(executor, "_functions", None) or ():
        func = getattr(entry, "func", entry)
        if isinstance(func, str):
            try:
                tree = ast.parse(func)
            except SyntaxError:
                continue
            found.update((node.name, [a.arg for a in (*node.args.posonlyargs, *node.args.args)])
                         for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)))
        elif getattr(func, "__name__", None):
            try:
                found[func.__name__] = list(inspect.signature(func).parameters)
            except (TypeError, ValueError):
                found[func.__name__] = []
    return found


def _functions(executor: Any) -> dict[str, Any]:
    return {getattr(getattr(e, "func", e), "__name__", ""): getattr(e, "func", e)
            for e in getattr(executor, "_functions", None) or ()}


def execute_code_blocks(wrapped: Any, instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``<Executor>.execute_code_blocks(code_blocks, cancellation_token)``."""
    if not tool_hooks_active():
        return wrapped(*args, **kwargs)
    offered = _offered(instance)
    if not offered:
        return wrapped(*args, **kwargs)
    blocks = args[0] if args else kwargs.get("code_blocks") or ()
    reading = read_blocks([(str(getattr(b, "language", "")), str(getattr(b, "code", ""))) for b in blocks],
                          offered, _PYTHON, spawns_reach=True,
                          known=[str(getattr(instance, "_functions_module", "functions"))])
    if not reading.uses and reading.hidden is None:
        return wrapped(*args, **kwargs)
    fields = agent_fields(current_turn.get())
    functions = _functions(instance)

    def context(use: Use) -> ToolCallHookContext:
        ctx = ToolCallHookContext(use.name, dict(use.arguments), functions.get(use.name) or instance,
                                  framework=FRAMEWORK, **fields)
        ctx.metadata["code_executor"] = type(instance).__name__
        return ctx

    return adecide(reading, offered, lambda: wrapped(*args, **kwargs), SHAPE, context)
