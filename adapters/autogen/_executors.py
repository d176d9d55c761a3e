"""Functions a code executor offers to generated code: PRE_TOOL_CALL before the code runs.

``LocalCommandLineCodeExecutor(functions=[purge_records])`` (and the Docker one) copies
each function's source into a module the generated code imports, and runs that code
in another process (or container), where no hook of this process can run. So the
call site is the execution itself, ``execute_code_blocks``: hookport reads the Python
blocks, and for every use of one of the executor's functions (a call, or any other
reference to its name) dispatches PRE_TOOL_CALL with the function's name and the
arguments the code writes out literally (positional ones bound to the function's
parameters; arguments the code computes are not known before it runs). A refusal
means none of the code runs: the result is a failed execution (``exit_code=1``) whose
output is the refusal text, which the model reads as the code's output. POST_TOOL_CALL
sees the execution's output; a returned string replaces it. Edits of ``ctx.tool_input``
cannot reach code that is already written.
"""

from __future__ import annotations

import ast
import inspect
from typing import Any

from hookport.calls import ToolShape, atool_call, tool_hooks_active
from hookport.contexts import ToolCallHookContext
from hookport.errors import HookAborted

from hookport.adapters.autogen._state import FRAMEWORK, agent_fields, current_turn
from hookport.adapters.autogen._tools import refusal_text

Args = tuple[Any, ...]
Kwargs = dict[str, Any]
_PYTHON = {"python", "py", "python3", ""}


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


def _offered(executor: Any) -> dict[str, Any]:
    """The executor's functions by name (a function, a ``FunctionWithRequirements``, or source text)."""
    found: dict[str, Any] = {}
    for entry in getattr(executor, "_functions", None) or ():
        func = getattr(entry, "func", entry)
        if isinstance(func, str):
            try:
                tree = ast.parse(func)
            except SyntaxError:
                continue
            found.update((node.name, None) for node in tree.body
                         if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)))
        elif getattr(func, "__name__", None):
            found[func.__name__] = func
    return found


def _literal(node: ast.AST) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return None


def _arguments(call: ast.Call, func: Any) -> dict[str, Any]:
    """The arguments a call writes out literally, positional ones named after `func`'s parameters."""
    values: dict[str, Any] = {k.arg: _literal(k.value) for k in call.keywords if k.arg}
    try:
        names = list(inspect.signature(func).parameters) if func is not None else []
    except (TypeError, ValueError):
        names = []
    for index, arg in enumerate(call.args):
        values[names[index] if index < len(names) else f"arg{index}"] = _literal(arg)
    return values


def _name_of(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def uses(code: str, offered: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Each use of an offered function in `code`: (name, the arguments known before it runs)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    found: list[tuple[str, dict[str, Any]]] = []
    called: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _name_of(node.func) in offered:
            name = _name_of(node.func)
            assert name is not None
            found.append((name, _arguments(node, offered[name])))
            called.add(id(node.func))
    for node in ast.walk(tree):
        name = _name_of(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
        if name in offered and id(node) not in called:
            found.append((name, {}))
    for node in ast.walk(tree):  # `from functions import purge_records as p` and `getattr(..., "purge_records")`
        if isinstance(node, ast.ImportFrom):
            found.extend((alias.name, {}) for alias in node.names
                         if alias.name in offered and alias.asname not in (None, alias.name))
        elif isinstance(node, ast.Constant) and node.value in offered:
            found.append((str(node.value), {}))
    return found


def execute_code_blocks(wrapped: Any, instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``<Executor>.execute_code_blocks(code_blocks, cancellation_token)``."""
    if not tool_hooks_active():
        return wrapped(*args, **kwargs)
    offered = _offered(instance)
    if not offered:
        return wrapped(*args, **kwargs)
    blocks = args[0] if args else kwargs.get("code_blocks") or ()
    found = [use for block in blocks if str(getattr(block, "language", "")).lower() in _PYTHON
             for use in uses(str(getattr(block, "code", "")), offered)]
    if not found:
        return wrapped(*args, **kwargs)
    return _guarded(wrapped, instance, args, kwargs, found, offered)


async def _guarded(wrapped: Any, instance: Any, args: Args, kwargs: Kwargs,
                   found: list[tuple[str, dict[str, Any]]], offered: dict[str, Any]) -> Any:
    fields = agent_fields(current_turn.get())

    async def step(index: int) -> Any:
        if index == len(found):
            return await wrapped(*args, **kwargs)
        name, inputs = found[index]
        ctx = ToolCallHookContext(name, dict(inputs), offered.get(name) or instance, framework=FRAMEWORK, **fields)
        ctx.metadata["code_executor"] = type(instance).__name__
        return await atool_call(ctx, lambda c: step(index + 1), SHAPE)

    return await step(0)
