"""The second line of defence: a LangChain tool's own body checks that its call was decided.

`BaseTool.run` / `arun` (the call site, `_tools`) is what every LangChain and LangGraph
path calls (`invoke`, `ToolNode`, `create_agent`, `AgentExecutor`, a tool used from a
custom node or a `RunnableLambda`). The body guard sits one level in, on the body
methods of the tool classes that hold a function: `StructuredTool._run` / `_arun` and
`Tool._run` / `_arun` (every ``@tool``, ``StructuredTool.from_function``, ``Tool``, and
the MCP adapters' tools). A body reached with no decision open for it (an internal
route, `BaseTool.run` called past hookport's wrapper, a future release's new path)
dispatches PRE_TOOL_CALL itself and answers a refusal with the call site's text.

`_arun` of a tool without a coroutine hands the call to `_run` in an executor thread
(the context copied): `_run` checks it, once.
"""

from __future__ import annotations

import functools
from typing import Any

from hookport import registry
from hookport.calls import ToolShape, atool_call, tool_call
from hookport.contexts import ToolCallHookContext
from hookport.decisions import body_layer, body_must_decide
from hookport.errors import HookAborted

from hookport.adapters.langchain import _state
from hookport.adapters.langchain._context import LangChainToolContext
from hookport.adapters.langchain._tools import blocked_message, split_input

LAYER = body_layer(_state.FRAMEWORK)
_PLUMBING = frozenset({"run_manager", "callbacks", "config"})

class BodyShape(ToolShape[Any]):
    """A body returns content (`BaseTool.run` makes the ToolMessage): a refusal is its text."""

    def __init__(self, tool_name: str) -> None:
        self.tool_name = tool_name

    def refusal_text(self, ctx: ToolCallHookContext, refusal: HookAborted) -> str:
        return blocked_message(self.tool_name, refusal.reason)


class BodyCall:
    """What a body knows of its call: the arguments (plumbing aside) and the run's agent."""

    __slots__ = ("args", "kwargs", "ctx", "shown")

    def __init__(self, tool: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.args, self.kwargs = args, kwargs
        visible = {k: v for k, v in kwargs.items() if k not in _PLUMBING}
        tool_input: Any = visible
        if args:  # `Tool`'s one string, or positional arguments a route passed as they were
            tool_input = args[0] if len(args) == 1 and not visible else {
                **{f"arg{i}": a for i, a in enumerate(args)}, **visible}
        self.shown = split_input(tool, tool_input)[1]
        state = _state._run.get()
        self.ctx = LangChainToolContext(
            tool.name, self.shown, tool, None,
            state.agent if state is not None else None,
            state.agent_role if state is not None else None,
            _state.FRAMEWORK, {"layer": LAYER},
        )
        self.shown = dict(self.shown)  # the context's dict is the hooks' to edit

    def edited(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """The arguments with a hook's edits of keyword arguments carried to the body."""
        edited = self.ctx.tool_input
        if edited == self.shown or self.args:
            return self.args, self.kwargs
        return self.args, {**self.kwargs, **edited}


def guarded_run(original: Any) -> Any:
    """`StructuredTool._run` / `Tool._run`, checking its call first."""

    @functools.wraps(original)
    def _run(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not registry._global and not registry._open_scopes or not body_must_decide(self.name, LAYER):
            return original(self, *args, **kwargs)
        call = BodyCall(self, args, kwargs)

        def run(ctx: ToolCallHookContext) -> Any:
            new_args, new_kwargs = call.edited()
            return original(self, *new_args, **new_kwargs)

        return tool_call(call.ctx, run, BodyShape(self.name), layer=LAYER)

    return _run


def guarded_arun(original: Any) -> Any:
    """`StructuredTool._arun` / `Tool._arun`: an async body is checked here, a sync one in `_run`."""

    @functools.wraps(original)
    async def _arun(self: Any, *args: Any, **kwargs: Any) -> Any:
        if getattr(self, "coroutine", None) is None or not body_must_decide(self.name, LAYER):
            return await original(self, *args, **kwargs)  # no coroutine: `_run` checks what it is handed
        call = BodyCall(self, args, kwargs)

        async def run(ctx: ToolCallHookContext) -> Any:
            new_args, new_kwargs = call.edited()
            return await original(self, *new_args, **new_kwargs)

        return await atool_call(call.ctx, run, BodyShape(self.name), layer=LAYER)

    return _arun


GUARDED = {
    "langchain_core.tools.structured": ("StructuredTool", {"_run": guarded_run, "_arun": guarded_arun}),
    "langchain_core.tools.simple": ("Tool", {"_run": guarded_run, "_arun": guarded_arun}),
}
"""module -> (class, method -> guard): the tool classes whose body methods are guarded."""


class BodyGuards:
    """Puts the guards on the tool classes and takes off only its own.

    Plain functions (`functools.wraps`), not wrapt proxies: LangChain reads the body's
    signature and type hints on every call (`_get_runnable_config_param(self._run)`),
    and through a proxy that costs tens of microseconds per tool call.
    """

    def __init__(self) -> None:
        self._placed: list[tuple[type, str, Any, Any]] = []

    def place(self, module: Any) -> tuple[list[str], list[str]]:
        """(the guarded body methods, those this release does not have) as report names."""
        class_name, guards = GUARDED[module.__name__]
        owner = getattr(module, class_name, None)
        placed: list[str] = []
        missing: list[str] = []
        for attribute, guard in guards.items():
            name = f"{module.__name__}:{class_name}.{attribute}"
            original = getattr(owner, "__dict__", {}).get(attribute)
            if original is None:
                missing.append(name)
                continue
            wrapper = guard(original)
            setattr(owner, attribute, wrapper)
            self._placed.append((owner, attribute, original, wrapper))
            placed.append(name)
        return placed, missing

    def remove(self) -> None:
        while self._placed:
            owner, attribute, original, wrapper = self._placed.pop()
            if owner.__dict__.get(attribute) is wrapper:
                setattr(owner, attribute, original)
