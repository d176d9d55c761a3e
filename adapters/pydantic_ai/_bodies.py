"""The second line of defence: every Pydantic AI toolset that runs a tool checks its call was decided.

Pydantic AI runs a tool by awaiting ``toolset.call_tool(name, tool_args, ctx, tool)``:
``FunctionToolset`` for function tools (``@agent.tool``, ``tools=[...]``, ``Tool``
objects), the MCP toolsets, an app's own ``AbstractToolset``. hookport's call site is
the handler of the root capability's ``wrap_tool_execute`` (`_joins`); a path it misses
(a tool the app calls through the toolset itself, a root capability of the app's that
does not chain its handler, a future release's route) meets this guard. The guard is on
the class's own ``call_tool``: every ``AbstractToolset`` subclass that exists at install
and every one defined later (``__init_subclass__``),
except those that only hand the call on to another toolset (wrappers, combined,
dynamic) and those that run nothing here (external / deferred tools, output tools).

Under a call site that decided this very call the body claims the decision and runs
(a renamed or prefixed tool reaches its toolset under its own name: the call id
binds it to the call site's decision); otherwise it dispatches PRE_TOOL_CALL and a
refusal is the call site's answer, ``The tool call to <tool> was denied: <reason>``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from hookport.adapters._method_guards import MethodGuards
from hookport.adapters.pydantic_ai._state import FRAMEWORK, agent_fields
from hookport.calls import atool_call
from hookport.contexts import ToolCallHookContext
from hookport.decisions import body_layer, body_must_decide, decided_outside

LAYER = body_layer(FRAMEWORK)

site_call: ContextVar[tuple[str | None, str] | None] = ContextVar("hookport_pydantic_ai_site_call", default=None)
"""(tool call id, tool name) of the call the call site is deciding, while its work runs."""

_passing_on: tuple[type, ...] = ()


def _runs_tools(klass: type) -> bool:
    return not issubclass(klass, _passing_on)


GUARDS = MethodGuards("call_tool", lambda klass, original: _guarded(klass, original), _runs_tools)


def install_guards() -> None:
    """When ``pydantic_ai.agent`` is imported: guard the toolsets that exist and will."""
    global _passing_on
    from pydantic_ai._output import OutputToolset
    from pydantic_ai.toolsets.abstract import AbstractToolset
    from pydantic_ai.toolsets.combined import CombinedToolset
    from pydantic_ai.toolsets._dynamic import DynamicToolset
    from pydantic_ai.toolsets.external import ExternalToolset
    from pydantic_ai.toolsets.wrapper import WrapperToolset

    _passing_on = (WrapperToolset, CombinedToolset, DynamicToolset, ExternalToolset, OutputToolset)
    GUARDS.guard_tree(AbstractToolset)
    GUARDS.watch(AbstractToolset)


def _guarded(klass: type, original: Callable[..., Any]) -> Callable[..., Any]:
    """`klass`'s ``call_tool``, guarded: idle, one call and `body_must_decide`."""

    @functools.wraps(original)
    def call_tool(self: Any, name: str, tool_args: Any, ctx: Any, tool: Any, *args: Any, **kwargs: Any) -> Any:
        known = tool_args if type(tool_args) is dict else None
        if (not body_must_decide(name, LAYER, known) or _claimed_as_renamed(name, ctx, known)
                or GUARDS.owner(type(self)) is not klass):  # the last: an override's super() call
            return original(self, name, tool_args, ctx, tool, *args, **kwargs)
        return _decide(original, self, name, tool_args, ctx, tool, args, kwargs)

    return call_tool


def _claimed_as_renamed(name: str, ctx: Any, args: dict[str, Any] | None) -> bool:
    """The call site's call under another name (a prefixed or renamed toolset): claim it."""
    site = site_call.get()
    if site is None or site[1] == name or site[0] != getattr(ctx, "tool_call_id", None):
        return False
    return decided_outside(site[1], LAYER, args)


async def _decide(original: Callable[..., Any], toolset: Any, name: str, tool_args: Any, ctx: Any, tool: Any,
                  args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """A tool run no call site decided: PRE_TOOL_CALL here, with what the toolset knows."""
    from hookport.adapters.pydantic_ai._tools import SHAPE

    ctx_input = dict(tool_args) if isinstance(tool_args, dict) else {"args": tool_args}
    hook_ctx = ToolCallHookContext(name, ctx_input, tool, tool_call_id=getattr(ctx, "tool_call_id", None),
                                   **agent_fields(getattr(ctx, "agent", None)))

    async def run(c: ToolCallHookContext) -> Any:
        given = c.tool_input if isinstance(tool_args, dict) else tool_args
        return await original(toolset, name, given, ctx, tool, *args, **kwargs)

    return await atool_call(hook_ctx, run, SHAPE, layer=LAYER)
