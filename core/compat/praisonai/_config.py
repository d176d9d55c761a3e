"""``HooksConfig`` and the forms PraisonAI's ``Agent(hooks=...)`` accepts, as engine hooks.

`engine_hooks_for` turns any of those forms (a `HookRegistry`, a list of
middleware, a `HooksConfig`, a dict with its keys) into engine hooks by
point: what ``scoped_hooks()`` takes, so one agent's hooks run for that
agent's work only. ``with config:`` does that for a block; `register()`
makes them global.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Optional

from hookport.answers import text_of
from hookport.hooks import HookFn, make_entry
from hookport.points import ExtensionPoint, InterceptionPoint, Point
from hookport.registry import register_hook, scoped_hooks, unregister_hook

from hookport.compat.praisonai._blocks import ActivatedByWith
from hookport.compat.praisonai._middleware import ModelResponse, middleware_hooks, tool_request
from hookport.compat.praisonai._registry import HookRegistry

__all__ = ["HooksConfig", "engine_hooks_for"]

_HOOKS_KEYS = ("on_step", "on_tool_call", "middleware", "registry")


@dataclass
class HooksConfig(ActivatedByWith):
    """PraisonAI's per-agent hook bundle.

    `on_step` observes every finished agent turn (AGENT_TURN_END) and receives a
    `ModelResponse` with the answer, as PraisonAI's does; `on_tool_call`
    observes every tool call before it runs with a `ToolRequest`. Both may be
    ``async def``; what they return is ignored and what they raise is logged.
    `middleware` is a list of ``@before_model`` ... ``@wrap_tool_call``
    functions; `registry` a `HookRegistry`. ``with config:`` runs them for a block.
    """

    on_step: Optional[Callable[..., Any]] = None
    on_tool_call: Optional[Callable[..., Any]] = None
    middleware: list[Any] = field(default_factory=list)
    registry: Optional[HookRegistry] = None
    _registered: list[tuple[Point, HookFn]] = field(default_factory=list, repr=False)

    def engine_hooks(self) -> dict[Point, list[HookFn]]:
        """The hooks of this bundle by point (observers, then middleware, then the registry's)."""
        grouped: dict[Point, list[HookFn]] = {}

        def add(more: dict[Point, list[HookFn]]) -> None:
            for point, hooks in more.items():
                grouped.setdefault(point, []).extend(hooks)

        if self.on_step is not None:
            add({ExtensionPoint.AGENT_TURN_END: [_observer(self.on_step, _step_response, ExtensionPoint.AGENT_TURN_END)]})
        if self.on_tool_call is not None:
            add({InterceptionPoint.PRE_TOOL_CALL: [_observer(self.on_tool_call, tool_request,
                                                             InterceptionPoint.PRE_TOOL_CALL)]})
        if self.middleware:
            add(middleware_hooks(self.middleware))
        if self.registry is not None:
            if not isinstance(self.registry, HookRegistry):
                raise TypeError(f"HooksConfig.registry must be a hookport HookRegistry, not "
                                f"{type(self.registry).__name__}")
            add(self.registry.engine_hooks())
        return grouped

    def register(self) -> None:
        """Make this bundle's hooks global (until `unregister()`)."""
        for point, hooks in self.engine_hooks().items():
            for hook in hooks:
                self._registered.append((point, register_hook(point, hook)))

    def unregister(self) -> None:
        for point, hook in self._registered:
            unregister_hook(point, hook)
        self._registered.clear()

    @contextmanager
    def activate(self) -> Iterator[None]:
        """Run this bundle's hooks for the work inside the block only."""
        with scoped_hooks(self.engine_hooks()):
            yield

    def to_dict(self) -> dict[str, Any]:
        return {"on_step": self.on_step, "on_tool_call": self.on_tool_call,
                "middleware": list(self.middleware), "registry": self.registry}


def _step_response(ctx: Any) -> ModelResponse:
    answer = text_of(ctx.payload)
    return ModelResponse(content=answer if answer is not None else ("" if ctx.payload is None else str(ctx.payload)),
                         model=str(ctx.metadata.get("model") or ""))


def _observer(callback: Callable[..., Any], build: Callable[[Any], Any], point: Point) -> HookFn:
    """An observer hook: `callback(build(ctx))`, awaited if async; its result and errors change nothing."""
    if not callable(callback):
        raise TypeError(f"a hook must be callable, got {type(callback).__name__}: {callback!r}")

    def observe(ctx: Any) -> Any:
        value = callback(build(ctx))
        if inspect.isawaitable(value):
            async def settle() -> None:
                await value

            return settle()
        return None

    observe.__name__ = getattr(callback, "__name__", type(callback).__name__)
    observe.__qualname__ = getattr(callback, "__qualname__", observe.__name__)
    observe.__hookport_original__ = callback  # type: ignore[attr-defined]
    return make_entry(observe, point, on_error="open")


def engine_hooks_for(hooks: Any) -> dict[Point, list[HookFn]]:
    """Engine hooks by point for anything PraisonAI's ``Agent(hooks=...)`` accepts:
    None, a `HookRegistry`, a list of middleware, a `HooksConfig`, or a dict with the
    keys ``on_step``, ``on_tool_call``, ``middleware``, ``registry``.

    Adapters wrap an agent's work in ``scoped_hooks(engine_hooks_for(agent_hooks))``.
    """
    if hooks is None:
        return {}
    if isinstance(hooks, HookRegistry):
        return hooks.engine_hooks()
    if isinstance(hooks, HooksConfig):
        return hooks.engine_hooks()
    if isinstance(hooks, dict):
        unknown = sorted(set(hooks) - set(_HOOKS_KEYS))
        if unknown:
            raise TypeError(f"Unknown keys for hooks: {unknown}. Valid keys: {list(_HOOKS_KEYS)}")
        return HooksConfig(**{k: v for k, v in hooks.items()}).engine_hooks()
    if isinstance(hooks, (list, tuple)):
        return middleware_hooks(hooks)
    raise TypeError(f"hooks= takes a HookRegistry, a list of middleware, a HooksConfig or a dict, "
                    f"not {type(hooks).__name__}")
