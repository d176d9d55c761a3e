"""PraisonAI's registries: the global default one (``add_hook``) and private ones.

The default registry writes into hookport's global hooks, so its hooks run on
every adapted framework. A `HookRegistry()` of your own holds its hooks until
a block activates it (``with registry:`` or ``with registry.activate():``),
which scopes them to the work inside: PraisonAI's ``Agent(hooks=registry)``.
Inside a registry, hooks are ordered by ``(priority, registration)`` as in
PraisonAI; the default registry's hooks join the engine's one global chain in
registration order.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Optional, Union

from hookport.config import OnError
from hookport.hooks import HookFn, is_async_callable
from hookport.points import Point
from hookport.registry import get_hooks as engine_get_hooks
from hookport.registry import register_hook, scoped_hooks, unregister_hook

from hookport.compat.praisonai._blocks import ActivatedByWith
from hookport.compat.praisonai._engine import engine_entry
from hookport.compat.praisonai._events import EVENT_POINTS, NOT_OFFERED, HookEvent, resolve_event
from hookport.compat.praisonai._types import DEFAULT_TIMEOUT, CommandHook, FunctionHook, HookDefinition

__all__ = [
    "HookRegistry",
    "add_hook",
    "get_default_registry",
    "has_hook",
    "remove_hook",
    "set_default_registry",
]

_active: ContextVar[frozenset[int]] = ContextVar("hookport_praisonai_active_registries", default=frozenset())
"""The registries active in this context (so a nested block of the same one adds nothing)."""


class HookRegistry(ActivatedByWith):
    """PraisonAI's registry of hook definitions (function and command hooks).

    ``with registry:`` is ``with registry.activate():``.
    """

    def __init__(self, enabled: bool = True, *, _is_default: bool = False) -> None:
        self._enabled = enabled
        self._is_default = _is_default
        self._hooks: dict[str, HookDefinition] = {}
        self._entries: dict[str, HookFn] = {}
        self._lock = threading.RLock()
        self._seq = 0
        self._global_timeout = 60.0

    @property
    def enabled(self) -> bool:
        """False: no hook of this registry runs (checked at every event)."""
        return self._enabled

    @enabled.setter
    def enabled(self, value: bool) -> None:
        self._enabled = bool(value)

    # -- registration --------------------------------------------------------------------

    def register(self, hook: HookDefinition) -> str:
        """Register a `FunctionHook` or `CommandHook`; returns its id."""
        if not isinstance(hook, (FunctionHook, CommandHook)):
            raise TypeError(f"register() takes a FunctionHook or a CommandHook, not {type(hook).__name__}")
        hook.event = resolve_event(hook.event)
        entry = engine_entry(hook, registry=self)
        with self._lock:
            hook._seq = self._seq
            self._seq += 1
            self._hooks[hook.id] = hook
            self._entries[hook.id] = entry
        if self._is_default:
            register_hook(EVENT_POINTS[hook.event], entry)
        return hook.id

    def register_function(
        self,
        event: Union[str, HookEvent],
        func: Callable[..., Any],
        matcher: Optional[str] = None,
        name: Optional[str] = None,
        description: Optional[str] = None,
        sequential: bool = False,
        timeout: float = DEFAULT_TIMEOUT,
        is_async: bool = False,
        priority: int = 100,
        *,
        on_error: Optional[OnError] = None,
    ) -> str:
        """Register a Python function (sync or ``async def``) for `event`; returns its id."""
        if not callable(func):
            raise TypeError(f"a hook must be callable, got {type(func).__name__}: {func!r}")
        return self.register(FunctionHook(
            event=resolve_event(event), func=func, matcher=matcher, name=name, description=description,
            sequential=sequential, timeout=timeout, is_async=is_async or is_async_callable(func),
            priority=priority, on_error=on_error,
        ))

    def register_command(
        self,
        event: Union[str, HookEvent],
        command: Union[str, list[str]],
        matcher: Optional[str] = None,
        name: Optional[str] = None,
        description: Optional[str] = None,
        sequential: bool = False,
        timeout: float = DEFAULT_TIMEOUT,
        env: Optional[dict[str, str]] = None,
        shell: bool = True,
        priority: int = 100,
        *,
        on_error: Optional[OnError] = None,
    ) -> str:
        """Register a program for `event` (see `CommandHook`); returns its id."""
        return self.register(CommandHook(
            event=resolve_event(event), command=command, matcher=matcher, name=name, description=description,
            sequential=sequential, timeout=timeout, env=dict(env or {}), shell=shell, priority=priority,
            on_error=on_error,
        ))

    register_command_hook = register_command  # the spelling in PraisonAI's module docstring

    def on(
        self,
        event: Union[str, HookEvent],
        matcher: Optional[str] = None,
        sequential: bool = False,
        timeout: float = DEFAULT_TIMEOUT,
        priority: int = 100,
        *,
        on_error: Optional[OnError] = None,
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator form of `register_function`; returns the function unchanged."""
        resolved = resolve_event(event)

        def decorator(func: Callable[..., Any]) -> Callable[..., Any]:
            self.register_function(resolved, func, matcher=matcher, sequential=sequential, timeout=timeout,
                                   priority=priority, on_error=on_error)
            return func

        return decorator

    def unregister(self, hook_id: str) -> bool:
        with self._lock:
            definition = self._hooks.pop(hook_id, None)
            entry = self._entries.pop(hook_id, None)
        if definition is None:
            return False
        if self._is_default and entry is not None:
            unregister_hook(EVENT_POINTS[definition.event], entry)
        return True

    # -- lookup ------------------------------------------------------------------------------

    def get_hooks(self, event: Union[str, HookEvent], target: Optional[str] = None) -> list[HookDefinition]:
        """Enabled hooks of `event` in PraisonAI's order, those whose matcher fits `target`."""
        resolved = resolve_event(event)
        if not self._enabled:
            return []
        self._forget_cleared()
        with self._lock:
            found = sorted((d for d in self._hooks.values() if d.event is resolved and d.enabled),
                           key=lambda d: (d.priority, d._seq))
        if target is not None:
            found = [d for d in found if d.matches(target)]
        return found

    def has_hooks(self, event: Union[str, HookEvent]) -> bool:
        return bool(self.get_hooks(event))

    def clear(self, event: Union[str, HookEvent, None] = None) -> None:
        resolved = resolve_event(event) if event is not None else None
        for definition in list(self._hooks.values()):
            if resolved is None or definition.event is resolved:
                self.unregister(definition.id)

    def list_hooks(self) -> dict[str, list[dict[str, Any]]]:
        self._forget_cleared()
        listing: dict[str, list[dict[str, Any]]] = {}
        with self._lock:
            ordered = sorted(self._hooks.values(), key=lambda d: (d.priority, d._seq))
        for d in ordered:
            listing.setdefault(d.event.value, []).append({
                "id": d.id, "name": d.name, "type": "command" if isinstance(d, CommandHook) else "function",
                "matcher": d.matcher, "enabled": d.enabled, "sequential": d.sequential, "priority": d.priority,
            })
        return listing

    def enable_hook(self, hook_id: str) -> bool:
        return self._set_enabled(hook_id, True)

    def disable_hook(self, hook_id: str) -> bool:
        return self._set_enabled(hook_id, False)

    def _set_enabled(self, hook_id: str, value: bool) -> bool:
        definition = self._hooks.get(hook_id)
        if definition is None:
            return False
        definition.enabled = value
        return True

    def set_global_timeout(self, timeout: float) -> None:
        """Recorded, as in PraisonAI (which never reads it); `HookRunner` takes its own default."""
        self._global_timeout = timeout

    def _forget_cleared(self) -> None:
        """The default registry mirrors the engine: hooks cleared there (``clear_all_hooks``) are gone here."""
        if not self._is_default:
            return
        with self._lock:
            for hook_id, definition in list(self._hooks.items()):
                if self._entries[hook_id] not in engine_get_hooks(EVENT_POINTS[definition.event]):
                    del self._hooks[hook_id]
                    del self._entries[hook_id]

    # -- running this registry's hooks ---------------------------------------------------------

    def engine_hooks(self) -> dict[Point, list[HookFn]]:
        """This registry's hooks as engine hooks, by point, in PraisonAI's order
        (what ``scoped_hooks()`` takes; adapters use it for ``Agent(hooks=registry)``)."""
        self._forget_cleared()
        grouped: dict[Point, list[HookFn]] = {}
        with self._lock:
            ordered = sorted(self._hooks.values(), key=lambda d: (d.priority, d._seq))
            for d in ordered:
                grouped.setdefault(EVENT_POINTS[d.event], []).append(self._entries[d.id])
        return grouped

    @contextmanager
    def activate(self) -> Iterator[None]:
        """Run this registry's hooks for the work inside the block (and the tasks and
        copied-context threads it starts): the hooks it holds when the block starts.
        The default registry's hooks are global already, and a registry active here
        already stays as it is: for those this does nothing (no hook runs twice)."""
        if self._is_default or id(self) in _active.get():
            yield
            return
        token = _active.set(_active.get() | {id(self)})
        try:
            with scoped_hooks(self.engine_hooks()):
                yield
        finally:
            try:
                _active.reset(token)
            except ValueError:  # left in another context (an async generator)
                _active.set(_active.get() - {id(self)})

    def __len__(self) -> int:
        self._forget_cleared()
        return len(self._hooks)

    def __repr__(self) -> str:
        return f"HookRegistry(enabled={self._enabled}, hooks={len(self)})"


_default_registry = HookRegistry(_is_default=True)
_default_lock = threading.Lock()


def get_default_registry() -> HookRegistry:
    """The process-wide registry ``add_hook`` writes to (its hooks are hookport's global hooks)."""
    return _default_registry


def set_default_registry(registry: HookRegistry) -> None:
    """Make `registry` the default: its hooks become global, the old default's stop being global."""
    global _default_registry
    if not isinstance(registry, HookRegistry):
        raise TypeError(f"set_default_registry() takes a HookRegistry, not {type(registry).__name__}")
    with _default_lock:
        old = _default_registry
        if old is registry:
            return
        for hook_id, definition in list(old._hooks.items()):
            unregister_hook(EVENT_POINTS[definition.event], old._entries[hook_id])
        old._is_default = False
        registry._is_default = True
        for hook_id, definition in sorted(registry._hooks.items(), key=lambda item: item[1]._seq):
            register_hook(EVENT_POINTS[definition.event], registry._entries[hook_id])
        _default_registry = registry


def add_hook(
    event: Union[str, HookEvent],
    callback: Optional[Callable[..., Any]] = None,
    priority: int = 100,
    matcher: Optional[str] = None,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    on_error: Optional[OnError] = None,
) -> Any:
    """Register a global hook. A direct call returns its id; as a decorator returns the function.

    ``async def`` callbacks are awaited (PraisonAI's ``add_hook`` silently never awaits them).
    """
    resolved = resolve_event(event)
    if callback is not None:
        return _default_registry.register_function(resolved, callback, matcher=matcher, priority=priority,
                                                   timeout=timeout, on_error=on_error)

    def decorator(func: Callable[..., Any]) -> Callable[..., Any]:
        _default_registry.register_function(resolved, func, matcher=matcher, priority=priority, timeout=timeout,
                                            on_error=on_error)
        return func

    return decorator


def remove_hook(hook_id: str) -> bool:
    return _default_registry.unregister(hook_id)


def has_hook(event: Union[str, HookEvent]) -> bool:
    """True when the default registry has a hook for `event`; False for a PraisonAI event
    hookport does not offer (nothing can be registered there), an error for an unknown name."""
    if isinstance(event, str) and not isinstance(event, HookEvent) and event.lower() in NOT_OFFERED:
        return False
    return _default_registry.has_hooks(event)
