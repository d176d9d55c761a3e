"""The chain: run a point's hooks over a context, the way the contract says.

Proceed (return None), mutate in place, replace by returning, abort by raising
`HookAborted`. Hooks run in registration order, global then scoped; the
possibly replaced payload flows from hook to hook. Any other exception is
logged and swallowed (fail-open) unless strict mode is on.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from time import perf_counter
from typing import Any, TypeVar

from hookport import events
from hookport.errors import HookAborted, LLMCallBlockedError, ToolCallBlocked, source_name
from hookport.points import InterceptionPoint, Point, resolve_point
from hookport.registry import HookFn, hooks_for, original_of

logger = logging.getLogger("hookport")

C = TypeVar("C")
Reducer = Callable[[Any, Any], bool]
"""Apply a hook's non-None return to the context; True when it changed something."""

_strict = os.environ.get("HOOKPORT_STRICT", "").lower() in ("1", "true", "yes", "on")


def set_strict(enabled: bool = True) -> None:
    """In strict mode a hook's ordinary exception propagates instead of being logged."""
    global _strict
    _strict = bool(enabled)


def is_strict() -> bool:
    return _strict


# -- reducers --------------------------------------------------------------------


def _replace_payload(ctx: Any, result: Any) -> bool:
    ctx.payload = result
    return True


def _before_model(ctx: Any, result: Any) -> bool:
    if result is False:
        raise LLMCallBlockedError()
    if isinstance(result, list):
        ctx.messages[:] = result
        return True
    return False


def _after_model(ctx: Any, result: Any) -> bool:
    if isinstance(result, str):
        ctx.response = result
        return True
    return False


def _before_tool(ctx: Any, result: Any) -> bool:
    if result is False:
        raise ToolCallBlocked()
    if isinstance(result, dict):
        if result is not ctx.tool_input:
            ctx.tool_input.clear()
            ctx.tool_input.update(result)
        return True
    return False


def _after_tool(ctx: Any, result: Any) -> bool:
    if isinstance(result, str):
        ctx.tool_result = result
        return True
    return False


REDUCERS: dict[Point, Reducer] = {
    InterceptionPoint.PRE_MODEL_CALL: _before_model,
    InterceptionPoint.POST_MODEL_CALL: _after_model,
    InterceptionPoint.PRE_TOOL_CALL: _before_tool,
    InterceptionPoint.POST_TOOL_CALL: _after_tool,
}


# -- dispatch ---------------------------------------------------------------------


def dispatch(point: Point | str, ctx: C) -> C:
    """Run the hooks of `point` over `ctx` and return `ctx`.

    With no hook on the point this is one dict lookup. `HookAborted` raised by
    a hook (or by the reducer, for a legacy ``return False``) propagates.
    """
    hooks = hooks_for(point)  # type: ignore[arg-type]
    if not hooks:
        return ctx
    return run_hooks(resolve_point(point), ctx, hooks)


def run_hooks(point: Point, ctx: C, hooks: tuple[HookFn, ...]) -> C:
    """Run an already resolved chain (adapters that snapshot a chain use this)."""
    reducer = REDUCERS.get(point, _replace_payload)
    timed = bool(events.subscribers)
    started = perf_counter() if timed else 0.0
    modified = False
    for hook in hooks:
        try:
            result = hook(ctx)
            if result is not None and reducer(ctx, result):
                modified = True
        except HookAborted as aborted:
            if aborted.source is None:
                aborted.source = original_of(hook)
            if timed:
                _emit(point, ctx, "aborted", len(hooks), started, aborted)
            raise
        except Exception as error:
            if _strict:
                if timed:
                    _emit(point, ctx, "modified" if modified else "proceeded", len(hooks), started)
                raise
            logger.warning(
                "hook %s at %s raised %r; ignored (fail-open)",
                source_name(original_of(hook)),
                point.value,
                error,
                exc_info=True,
            )
    if timed:
        _emit(point, ctx, "modified" if modified else "proceeded", len(hooks), started)
    return ctx


def _emit(
    point: Point,
    ctx: Any,
    outcome: events.Outcome,
    count: int,
    started: float,
    aborted: HookAborted | None = None,
) -> None:
    # model_construct: the fields are built right here, so pydantic's validation would only cost time
    events.emit(
        events.HookDispatchedEvent.model_construct(
            point=point.value,
            outcome=outcome,
            hook_count=count,
            duration_ms=(perf_counter() - started) * 1000.0,
            abort_reason=aborted.reason if aborted else None,
            abort_source=aborted.source_name if aborted else None,
            framework=getattr(ctx, "framework", None),
        )
    )
