"""A ``CodeActAgent``'s code calling the agent's tools: each call is a tool call.

A ``CodeActAgent`` runs the model's code through the app's ``code_execute_fn`` (the
``execute`` tool). That code calls the tools as plain functions -- the functions the app
put in its executor's namespaces (``SimpleCodeExecutor(locals=..., globals=...)`` in
LlamaIndex's guide) -- so neither ``_call_tool`` nor ``FunctionTool.call`` sees them. While an
``execute`` call runs, the adapter puts a guard in place of each of the agent's tool functions
in the namespaces the executor holds (dicts among the attributes of ``code_execute_fn``'s
object, its module's globals, or in its closure) and puts the functions back afterwards. The guard is the tool's
body: it dispatches PRE_TOOL_CALL (unless a layer already decided this very call) and a
refusal is the refusal text, returned to the code as the function's value.

An executor that runs the code elsewhere (a sandbox, a kernel, a subprocess, with the
tools' source shipped along) never calls those guards. So unless the executor runs the
code here -- its function, or a method of its object, calls ``exec`` / ``eval`` -- the
code's tool calls are decided from its text before it runs (`hookport.adapters._code_guard`):
one PRE_TOOL_CALL per use, a refusal runs none of the code (the ``execute`` call's output
is the refusal), and code hookport cannot read fails closed. Should such code run here
after all, a guard claims a call its text decided with every argument written out.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from hookport.adapters._code_guard import Use, adecide, claim_decided, read
from hookport.adapters.llama_index._bodies import LAYER, tool_name
from hookport.adapters.llama_index._state import FRAMEWORK
from hookport.calls import ToolShape, atool_call, tool_call
from hookport.contexts import ToolCallHookContext
from hookport.decisions import body_must_decide

EXECUTE = "execute"
"""``CodeActAgent``'s tool that runs the model's code (``EXECUTE_TOOL_NAME``)."""

_TEXT: ToolShape[Any] = ToolShape()
_lock = threading.Lock()


def is_code_execution(agent: Any, name: str) -> bool:
    return name == EXECUTE and getattr(agent, "code_execute_fn", None) is not None


def _namespaces(execute: Any) -> list[dict[str, Any]]:
    """The dicts the code executor holds: attributes of its object, its module's globals, cells of its closure."""
    found: list[dict[str, Any]] = []
    owner = getattr(execute, "__self__", None)
    if owner is not None and hasattr(owner, "__dict__"):
        found.extend(v for v in vars(owner).values() if isinstance(v, dict))
    function = getattr(execute, "__func__", execute)
    module_globals = getattr(function, "__globals__", None)
    if isinstance(module_globals, dict):  # an executor that runs the code in its own module's globals
        found.append(module_globals)
    for cell in getattr(function, "__closure__", None) or ():
        try:
            if isinstance(cell.cell_contents, dict):
                found.append(cell.cell_contents)
        except ValueError:  # an empty cell
            continue
    return found


def _guard(fn: Callable[..., Any], name: str, fields: dict[str, Any]) -> Callable[..., Any]:
    signature = inspect.signature(fn)

    def arguments(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any] | None:
        try:
            return dict(signature.bind(*args, **kwargs).arguments)
        except TypeError:  # the function will say what is wrong
            return None

    def context(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[ToolCallHookContext, Any]:
        given = arguments(args, kwargs)
        return ToolCallHookContext(name, dict(given or {}), tool=fn, framework=FRAMEWORK, **fields), given

    def decided(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
        return claim_decided(name, arguments(args, kwargs)) or not body_must_decide(name, LAYER, None)

    if inspect.iscoroutinefunction(fn):
        async def aguarded(*args: Any, **kwargs: Any) -> Any:
            if decided(args, kwargs):
                return await fn(*args, **kwargs)
            ctx, given = context(args, kwargs)

            async def run(c: ToolCallHookContext) -> Any:
                return await (fn(*args, **kwargs) if given is None or c.tool_input == given else fn(**c.tool_input))

            return await atool_call(ctx, run, _TEXT, layer=LAYER)

        aguarded.__wrapped__ = fn  # type: ignore[attr-defined]
        return aguarded

    def guarded(*args: Any, **kwargs: Any) -> Any:
        if decided(args, kwargs):
            return fn(*args, **kwargs)
        ctx, given = context(args, kwargs)
        return tool_call(ctx, lambda c: fn(*args, **kwargs) if given is None or c.tool_input == given
                         else fn(**c.tool_input), _TEXT, layer=LAYER)

    guarded.__wrapped__ = fn  # type: ignore[attr-defined]
    return guarded


class _Swap:
    """One namespace entry guarded, for as many ``execute`` calls as run at once."""

    __slots__ = ("original", "guard", "users")

    def __init__(self, original: Any, guard: Any) -> None:
        self.original, self.guard, self.users = original, guard, 0


_swaps: dict[tuple[int, str], _Swap] = {}


@contextmanager
def tools_guarded(agent: Any, fields: dict[str, Any]) -> Iterator[None]:
    """While the agent's code runs, its tool functions in the executor's namespaces are guarded."""
    functions = {id(fn): (fn, tool_name(tool)) for tool in getattr(agent, "tools", None) or ()
                 if (fn := getattr(tool, "_real_fn", None)) is not None and tool_name(tool) != EXECUTE}
    held: list[tuple[dict[str, Any], str, _Swap]] = []
    with _lock:
        for space in _namespaces(agent.code_execute_fn):
            for key, value in list(space.items()):
                swap = _swaps.get((id(space), key))
                if swap is None and id(value) in functions and functions[id(value)][0] is value:
                    swap = _swaps[(id(space), key)] = _Swap(value, _guard(value, functions[id(value)][1], fields))
                    space[key] = swap.guard
                if swap is not None and space.get(key) is swap.guard:
                    swap.users += 1
                    held.append((space, key, swap))
    try:
        yield
    finally:
        with _lock:
            for space, key, swap in held:
                swap.users -= 1
                if swap.users == 0:
                    del _swaps[(id(space), key)]
                    if space.get(key) is swap.guard:
                        space[key] = swap.original


# -- code that runs elsewhere --------------------------------------------------------------------------------


_RUNS_CODE = frozenset({"exec", "eval"})


def _calls_exec(code: Any) -> bool:
    if _RUNS_CODE & set(code.co_names):
        return True
    return any(_calls_exec(c) for c in code.co_consts if hasattr(c, "co_names"))


def runs_here(execute: Any) -> bool:
    """True when the executor runs the code in this process: its function, or a method of its
    object, calls ``exec`` / ``eval`` (the guards above then see every call)."""
    functions = [getattr(execute, "__func__", execute)]
    owner = getattr(execute, "__self__", None)
    if owner is not None:
        functions.extend(v for k in type(owner).__mro__[:-1] for v in vars(k).values() if inspect.isfunction(v))
    return any(_calls_exec(f.__code__) for f in functions if hasattr(f, "__code__"))


def _offered(agent: Any) -> tuple[dict[str, list[str]], dict[str, Any]]:
    """The agent's tools the code may call by name -> their parameters, and the tools."""
    tools = {tool_name(t): t for t in getattr(agent, "tools", None) or ()
             if getattr(t, "_real_fn", None) is not None and tool_name(t) != EXECUTE}
    offered: dict[str, list[str]] = {}
    for name, tool in tools.items():
        try:
            offered[name] = list(inspect.signature(tool._real_fn).parameters)
        except (TypeError, ValueError):
            offered[name] = []
    return offered, tools


async def run_code(agent: Any, fields: dict[str, Any], tool_input: Any, run: Callable[[], Any]) -> Any:
    """The ``execute`` call of a ``CodeActAgent``: guards in its namespaces, and the code's tool calls
    decided from its text when the executor runs it elsewhere."""
    from hookport.adapters.llama_index._tools import SHAPE

    with tools_guarded(agent, fields):
        code = tool_input.get("code") if isinstance(tool_input, dict) else None
        offered, tools = _offered(agent)
        if not offered or not isinstance(code, str) or runs_here(agent.code_execute_fn):
            return await run()
        reading = read(code, offered)
        if not reading.uses and reading.hidden is None:
            return await run()

        def context(use: Use) -> ToolCallHookContext:
            ctx = ToolCallHookContext(use.name, dict(use.arguments), tool=tools.get(use.name), framework=FRAMEWORK,
                                      **fields)
            ctx.metadata["code_executor"] = getattr(agent.code_execute_fn, "__qualname__", EXECUTE)
            return ctx

        return await adecide(reading, offered, run, SHAPE, context)
