"""The second line of defence: every ADK tool class's own ``run_async`` checks its call was decided.

ADK runs a tool by awaiting ``tool.run_async(args=..., tool_context=...)`` from more
places than the agent's tool pipeline (hookport's call site): a ``Workflow``'s tool
node (``_ToolNode``) calls it itself, so does a tool that runs another tool, and a
future release may add more. Each tool class defines its own ``run_async``
(``FunctionTool``, ``AgentTool``, ``McpTool``, ``NodeTool``, an app's ``BaseTool``
subclass), so the guard is put on the class: on every ``BaseTool`` subclass that
exists when the adapter is installed, and on each new class as it is defined
(``BaseTool.__init_subclass__``). Uninstall removes them all.

A guarded ``run_async`` asks `body_must_decide` (two lookups when no tool hook is
registered); under a call site that decided this call it claims the decision and
runs; otherwise it dispatches PRE_TOOL_CALL itself and a refusal answers with ADK's
convention for a failed tool, ``{"error": "<refusal text>"}``. An override that calls
``super().run_async`` runs the guard once: only the class whose ``run_async`` the
tool's type resolves to acts.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from functools import partial
from typing import Any

from hookport.adapters._method_guards import MethodGuards
from hookport.adapters._sync_wraps import on_worker, sync_wraps
from hookport.adapters.google_adk._state import FRAMEWORK, agent_fields
from hookport.adapters.google_adk._tools import SHAPE
from hookport.calls import atool_call, tool_call
from hookport.contexts import ToolCallHookContext
from hookport.decisions import body_layer, body_must_decide
from hookport.points import ExtensionPoint

LAYER = body_layer(FRAMEWORK)
GUARDS = MethodGuards("run_async", lambda klass, original: _guarded(klass, original))


def install_guards(base_tool_module: Any) -> None:
    """When ``google.adk.tools.base_tool`` is imported: guard the tool classes that exist and will."""
    GUARDS.guard_tree(base_tool_module.BaseTool)
    GUARDS.watch(base_tool_module.BaseTool)


def _guarded(klass: type, original: Callable[..., Any]) -> Callable[..., Any]:
    """`klass`'s ``run_async``, guarded: idle, one call and `body_must_decide`."""

    @functools.wraps(original)
    def run_async(self: Any, *args: Any, **kwargs: Any) -> Any:
        tool_args = kwargs.get("args")
        if not body_must_decide(getattr(self, "name", None), LAYER,
                                tool_args if type(tool_args) is dict else None):
            return original(self, *args, **kwargs)  # its coroutine as it is: no extra frame
        if GUARDS.owner(type(self)) is not klass:  # an override's super() call: the override decided
            return original(self, *args, **kwargs)
        return _decide(original, self, args, kwargs)

    return run_async


async def _decide(original: Callable[..., Any], tool: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """A tool body reached with no decision: PRE_TOOL_CALL here, with what the body knows."""
    tool_args = kwargs.get("args")
    tool_context = kwargs.get("tool_context")
    ctx = ToolCallHookContext(
        getattr(tool, "name", type(tool).__name__), dict(tool_args) if isinstance(tool_args, dict) else {}, tool,
        tool_call_id=getattr(tool_context, "function_call_id", None), framework=FRAMEWORK,
        **agent_fields(_agent_of(tool_context)),
    )

    async def run(c: ToolCallHookContext) -> Any:
        return await original(tool, *args, **{**kwargs, "args": c.tool_input})

    if sync_wraps(ExtensionPoint.WRAP_TOOL_CALL):
        return await on_worker(partial(tool_call, layer=LAYER), ctx, run, SHAPE)
    return await atool_call(ctx, run, SHAPE, layer=LAYER)


def _agent_of(tool_context: Any) -> Any:
    """The agent running the tool, if any (a workflow node has none: its context knows no agent)."""
    invocation = getattr(tool_context, "_invocation_context", None)
    return getattr(invocation, "agent", None)
