"""hookport: write an agent hook once, run it on every Python agent framework.

One framework-neutral engine implements the CrewAI interception-hook contract
and its catalog of ten points; adapters (`hookport.adapters`) attach it to the
model, tool, step and execution call sites of each framework.

    from hookport import adapters, on, InterceptionPoint, HookAborted

    adapters.install("langchain")

    @on(InterceptionPoint.PRE_TOOL_CALL, tools=["delete_file"])
    def guard_deletes(ctx):
        raise HookAborted(reason="file deletion is not allowed", source="policy")
"""

from __future__ import annotations

from hookport import events
from hookport.boundary import execution
from hookport.config import configure
from hookport.reentry import is_suppressed, reentrant, suppressed
from hookport.contexts import (
    ExecutionEndContext,
    ExecutionStartContext,
    InputContext,
    InterceptionContext,
    LLMCallHookContext,
    OutputContext,
    StepContext,
    ToolCallHookContext,
)
from hookport.dispatch import adispatch, dispatch, is_strict, run_hooks, set_strict
from hookport.errors import HookAborted, LLMCallBlockedError, ToolCallBlocked
from hookport.events import HookDispatchedEvent, subscribe, unsubscribe
from hookport.points import EXECUTION_BOUNDARY_POINTS, WRAP_POINTS, ExtensionPoint, InterceptionPoint
from hookport.registry import (
    clear_all_hooks,
    clear_hooks,
    get_hooks,
    get_scoped_hooks,
    has_hooks,
    on,
    register_hook,
    register_scoped,
    scoped_hooks,
    unregister_hook,
)

__version__ = "0.1.0"

__all__ = [
    "EXECUTION_BOUNDARY_POINTS",
    "ExecutionEndContext",
    "ExecutionStartContext",
    "ExtensionPoint",
    "HookAborted",
    "HookDispatchedEvent",
    "InputContext",
    "InterceptionContext",
    "InterceptionPoint",
    "LLMCallBlockedError",
    "LLMCallHookContext",
    "OutputContext",
    "StepContext",
    "ToolCallBlocked",
    "ToolCallHookContext",
    "WRAP_POINTS",
    "adispatch",
    "clear_all_hooks",
    "configure",
    "execution",
    "is_suppressed",
    "reentrant",
    "suppressed",
    "clear_hooks",
    "dispatch",
    "events",
    "get_hooks",
    "get_scoped_hooks",
    "has_hooks",
    "is_strict",
    "on",
    "register_hook",
    "register_scoped",
    "run_hooks",
    "scoped_hooks",
    "set_strict",
    "subscribe",
    "unregister_hook",
    "unsubscribe",
]
