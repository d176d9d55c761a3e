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

import os
from typing import TYPE_CHECKING, Any

from hookport import events
from hookport.boundary import execution
from hookport.config import configure
from hookport.reentry import is_suppressed, reentrant, suppressed
from hookport.runs import bind_run, current_run_id
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

if TYPE_CHECKING:
    from hookport.policy import Policy, PolicyError

__version__ = "0.1.0"
"""The one place the version lives: pyproject.toml reads it from here (``dynamic = ["version"]``)."""

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
    "Policy",
    "PolicyError",
    "StepContext",
    "ToolCallBlocked",
    "ToolCallHookContext",
    "WRAP_POINTS",
    "adispatch",
    "bind_run",
    "clear_all_hooks",
    "configure",
    "current_run_id",
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
    "load_policy",
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


def load_policy(path: str | os.PathLike[str], *, register: bool = True) -> Policy:
    """Read, validate and compile a TOML policy file and register its hooks (see `hookport.policy`)."""
    from hookport.policy import load_policy as load

    return load(path, register=register)


def __getattr__(name: str) -> Any:
    if name in ("Policy", "PolicyError"):  # the policy module (pydantic models, tomllib) loads on first use
        from hookport import policy

        return getattr(policy, name)
    raise AttributeError(f"module 'hookport' has no attribute {name!r}")


if os.environ.get("HOOKPORT_OTEL", "").strip().lower() in ("1", "true", "yes", "on"):
    from hookport import otel as _otel

    _otel.instrument_from_environment()
