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
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

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

    if inspect.iscoroutinefunction(fn):
        async def aguarded(*args: Any, **kwargs: Any) -> Any:
            if not body_must_decide(name, LAYER, None):
                return await fn(*args, **kwargs)
            ctx, given = context(args, kwargs)

            async def run(c: ToolCallHookContext) -> Any:
                return await (fn(*args, **kwargs) if given is None or c.tool_input == given else fn(**c.tool_input))

            return await atool_call(ctx, run, _TEXT, layer=LAYER)

        aguarded.__wrapped__ = fn  # type: ignore[attr-defined]
        return aguarded

    def guarded(*args: Any, **kwargs: Any) -> Any:
        if not body_must_decide(name, LAYER, None):
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
