"""A PraisonAI hook definition, as a hook of the engine.

The engine hook builds PraisonAI's input from the context, calls the user's
function (or runs the command) and carries the verdict back (`apply_result`).
An ``async def`` function becomes an ``async def`` engine hook, so `adispatch`
awaits it on the running loop and `dispatch` runs it on the engine's private
loop. The definition's ``timeout`` and failure policy become the engine
entry's ``timeout=`` / ``on_error=`` (see `engine_timeout`, `FAILURE_POLICY`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Optional

from hookport.config import OnError
from hookport.hooks import HookFn, is_async_callable, make_entry

from hookport.compat.praisonai._commands import run_command
from hookport.compat.praisonai._events import EVENT_POINTS, FAILURE_POLICY, MATCHED_EVENTS, HookEvent
from hookport.compat.praisonai._inputs import HookInput, build_input
from hookport.compat.praisonai._types import CommandHook, FunctionHook, HookDefinition, is_default_timeout
from hookport.compat.praisonai._verdicts import apply_result, normalize_result

if TYPE_CHECKING:
    from hookport.compat.praisonai._registry import HookRegistry

__all__ = ["engine_entry", "engine_policy", "engine_timeout", "make_engine_hook"]


def is_async_definition(definition: HookDefinition) -> bool:
    if isinstance(definition, CommandHook):
        return True
    return isinstance(definition, FunctionHook) and (definition.is_async or is_async_callable(definition.func))


def engine_timeout(definition: HookDefinition) -> Optional[float]:
    """The engine ``timeout=`` of a definition.

    An explicit timeout is enforced as given. PraisonAI's default (60 s) is
    enforced on async hooks, where it costs a `wait_for`; a sync function hook
    keeps the process default (`hookport.configure(timeout=...)`, none unless
    set), because enforcing a timeout on a sync hook runs every call on a helper
    thread (about 500x the cost of the call) and cannot stop it anyway. Command
    hooks enforce their own timeout (the program is killed and the hook denies).
    """
    if isinstance(definition, CommandHook) or not definition.timeout:
        return None
    if is_default_timeout(definition.timeout) and not is_async_definition(definition):
        return None
    return float(definition.timeout)


def engine_policy(definition: HookDefinition) -> OnError:
    """``on_error`` of a definition: its own, else closed where PraisonAI acts on a deny."""
    return definition.on_error or FAILURE_POLICY[definition.event]


def engine_entry(definition: HookDefinition, registry: Optional[HookRegistry] = None) -> HookFn:
    """The engine entry (with timeout and failure policy) that runs `definition`."""
    hook = make_engine_hook(definition, registry=registry)
    return make_entry(hook, EVENT_POINTS[definition.event], timeout=engine_timeout(definition),
                      on_error=engine_policy(definition))


def make_engine_hook(
    definition: HookDefinition | HookEvent | str,
    callback: Optional[Callable[..., Any]] = None,
    matcher: Optional[str] = None,
    registry: Optional[HookRegistry] = None,
) -> HookFn:
    """Wrap a PraisonAI hook definition (or an event and a callback) into an engine hook."""
    if not isinstance(definition, HookDefinition):
        from hookport.compat.praisonai._events import resolve_event

        if not callable(callback):
            raise TypeError(f"a hook must be callable, got {type(callback).__name__}: {callback!r}")
        definition = FunctionHook(event=resolve_event(definition), func=callback, matcher=matcher)
    event = definition.event
    matched = definition.matcher is not None and event in MATCHED_EVENTS

    def prepare(ctx: Any) -> Optional[HookInput]:
        """PraisonAI's input for `ctx`, or None when this hook does not run for it."""
        if not definition.enabled or (registry is not None and not registry.enabled):
            return None
        if event is HookEvent.ON_ERROR and getattr(ctx, "status", None) != "failed":
            return None
        if event is HookEvent.AFTER_TOOL and getattr(ctx, "refused", False):
            return None  # PraisonAI fires no after_tool for a call its before_tool blocked
        if matched and not definition.matches(_target(ctx)):
            return None
        return build_input(event, ctx)

    hook: HookFn
    if isinstance(definition, CommandHook):
        command = definition

        async def praisonai_command_hook(ctx: Any) -> Any:
            data = prepare(ctx)
            if data is None:
                return None
            outcome = await run_command(command, event, data)
            return apply_result(event, ctx, data, outcome.verdict, _named(command.name))

        hook = praisonai_command_hook
        hook.__name__ = hook.__qualname__ = definition.name or "command_hook"
        return hook
    else:
        func = definition.func
        if not callable(func):
            raise TypeError(f"a hook must be callable, got {type(func).__name__}: {func!r}")
        if is_async_definition(definition):

            async def praisonai_async_hook(ctx: Any) -> Any:
                data = prepare(ctx)
                if data is None:
                    return None
                return apply_result(event, ctx, data, normalize_result(await func(data)), func)

            hook = praisonai_async_hook
        else:

            def praisonai_hook(ctx: Any) -> Any:
                data = prepare(ctx)
                if data is None:
                    return None
                returned = func(data)
                if inspect.isawaitable(returned):  # a sync callable that handed back a coroutine
                    return _settle(event, ctx, data, returned, func)
                return apply_result(event, ctx, data, normalize_result(returned), func)

            hook = praisonai_hook
    hook.__name__ = definition.name or getattr(func, "__name__", "praisonai_hook")
    hook.__qualname__ = getattr(func, "__qualname__", hook.__name__)
    hook.__hookport_original__ = func  # type: ignore[attr-defined]
    return hook


async def _settle(event: HookEvent, ctx: Any, data: HookInput, awaitable: Any, func: Callable[..., Any]) -> Any:
    return apply_result(event, ctx, data, normalize_result(await awaitable), func)


def _target(ctx: Any) -> str:
    name = getattr(ctx, "tool_name", None)
    if name is None and isinstance(getattr(ctx, "payload", None), dict):
        name = ctx.payload.get("tool_name")
    return name or ""


class _named:
    """A stand-in callable that names a command hook as the source of its deny."""

    def __init__(self, name: Optional[str]) -> None:
        self.__name__ = name or "command_hook"

    def __call__(self, *args: Any) -> None:  # pragma: no cover - never called
        return None
