"""The chain: run a point's hooks over a context, the way the contract says.

Proceed (return None), mutate in place, replace by returning, abort by raising
`HookAborted`. Hooks run in registration order, global then scoped; the
possibly replaced payload flows from hook to hook. Any other exception (a
timeout included) is the hook's failure: logged and ignored (``on_error=
"open"``, the default), turned into `HookAborted` (``"closed"``), or
propagated as it is in strict mode (except from a hook registered with its own
``on_error="closed"``: its failure is a refusal in every mode).

`dispatch` runs ``async def`` hooks to completion (on hookport's private loop
thread); `adispatch` awaits them on the running loop. While a chain runs, the
re-entrancy flag is raised, so model and tool calls made by a hook run no hooks.

A chain with no event subscriber and no process-wide timeout (the usual case)
takes the lean loop in `run_hooks`; `_run_observed` is the same loop that also
times the chain, counts failures and emits `HookDispatchedEvent`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from time import perf_counter
from typing import Any, Optional, TypeVar

from hookport import events
from hookport._loop_thread import HookTimeout, run_coroutine
from hookport.config import settings
from hookport.errors import PAUSE, HookAborted, LLMCallBlockedError, ToolCallBlocked, source_name
from hookport.hooks import HookEntry, HookFn, original_of
from hookport.points import ALIASES, InterceptionPoint, Point, resolve_point
from hookport.outcomes import take_reported
from hookport.reentry import hook_running, hooks_off
from hookport.runs import current_run_id
from hookport import registry
from hookport.registry import chains, hooks_for

logger = logging.getLogger("hookport")

C = TypeVar("C")
Reducer = Callable[[Any, Any], bool]
"""Apply a hook's non-None return to the context; True when it changed something."""


def set_strict(enabled: bool = True) -> None:
    """In strict mode a hook's ordinary exception propagates instead of being logged."""
    settings.strict = bool(enabled)


def is_strict() -> bool:
    return settings.strict


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
REDUCER_BY_ALIAS: dict[object, Reducer] = {
    alias: REDUCERS[point] for alias, point in ALIASES.items() if point in REDUCERS
}
"""`REDUCERS` under every spelling of each point: one lookup, no resolving."""


# -- dispatch ---------------------------------------------------------------------


def dispatch(point: Point | str, ctx: C) -> C:
    """Run the hooks of `point` over `ctx` and return `ctx`.

    With no hook on the point this is one dict lookup. `HookAborted` raised by
    a hook (or by the reducer, for a legacy ``return False``) propagates.
    """
    try:
        hooks = chains[point]
    except (KeyError, TypeError):
        hooks = hooks_for(point)  # an unknown name raises its clear error here
    if registry._open_scopes:
        hooks = hooks_for(point)
    if not hooks or hooks_off.get()[0]:
        return ctx
    if events.subscribers or settings.timeout is not None:
        return _run_observed(point, ctx, hooks)  # type: ignore[arg-type]
    # `run_hooks`' lean loop, written out here: a dispatch with hooks is the engine's hottest path
    running = [True]  # `hook_running()`, inline
    hooks_off.set(running)
    try:
        for hook in hooks:
            try:
                result = hook(ctx)
                if result is not None:
                    _apply(point, ctx, hook, result)
            except Exception as error:
                _lean_failure(point, ctx, hook, error, hooks)
    finally:
        running[0] = False
    return ctx


async def _done(ctx: C) -> C:
    """`adispatch` when the whole chain ran at the call: a coroutine is the cheapest awaitable of a
    value (counted: about 1.3k instructions to make and await, against 3k for an object whose
    ``__await__`` is a generator)."""
    return ctx


def adispatch(point: Point | str, ctx: C) -> Any:
    """`dispatch` for async call sites: ``ctx = await adispatch(point, ctx)``.

    Async hooks are awaited on the running loop (so it keeps serving other
    tasks while they wait); sync hooks run in place, in order with them. With
    no hook on the point, or a chain of plain sync hooks, the chain runs when
    `adispatch` is called (await its result at once, as above): see `start_chain`.
    """
    rest = start_chain(point, ctx)
    return _done(ctx) if rest is None else rest


def start_chain(point: Point | str, ctx: C) -> Optional[Coroutine[Any, Any, C]]:
    """`adispatch` up to the chain's first hook that may await: None when the whole chain ran here
    (or has no hook), else the coroutine that runs the rest. The engine's async call paths use it
    directly, so a chain of plain hooks costs them neither a coroutine nor an awaitable:

        rest = start_chain(point, ctx)
        if rest is not None:
            await rest
    """
    try:
        hooks = chains[point]
    except (KeyError, TypeError):
        hooks = hooks_for(point)
    if registry._open_scopes:
        hooks = hooks_for(point)
    if not hooks or hooks_off.get()[0]:
        return None
    if events.subscribers or settings.timeout is not None or type(hooks[0]) is HookEntry:
        return arun_hooks(point, ctx, hooks)  # type: ignore[arg-type]
    # `dispatch`'s lean loop, until a hook that may await: the rest of the chain is then a coroutine
    running = [True]
    hooks_off.set(running)
    try:
        for index, hook in enumerate(hooks):
            if type(hook) is HookEntry:
                return arun_hooks(point, ctx, hooks, index)  # type: ignore[arg-type]
            try:
                result = hook(ctx)
                if result is not None:
                    if hasattr(result, "__await__"):  # a sync callable that handed back an awaitable
                        return arun_hooks(point, ctx, hooks, index, result)  # type: ignore[arg-type]
                    REDUCER_BY_ALIAS.get(point, _replace_payload)(ctx, result)
            except Exception as error:
                _lean_failure(point, ctx, hook, error, hooks)
    finally:
        running[0] = False
    return None


def run_hooks(point: Point, ctx: C, hooks: tuple[HookFn, ...]) -> C:
    """Run an already resolved chain from sync code (adapters that snapshot a chain use this)."""
    if events.subscribers or settings.timeout is not None:
        return _run_observed(point, ctx, hooks)
    running = hook_running()
    try:
        for hook in hooks:
            try:
                result = hook(ctx)  # a HookEntry applies its filters and options itself
                if result is not None:
                    _apply(point, ctx, hook, result)
            except Exception as error:
                _lean_failure(point, ctx, hook, error, hooks)
    finally:
        running[0] = False
    return ctx


def _apply(point: Point, ctx: Any, hook: HookFn, result: Any) -> bool:
    """A hook's non-None return: await it if it is awaitable, then apply it to `ctx`."""
    if hasattr(result, "__await__"):
        result = run_coroutine(_awaited(result), None, _name(hook))
        if result is None:
            return False
    return REDUCER_BY_ALIAS.get(point, _replace_payload)(ctx, result)


def _run_observed(point: Point, ctx: C, hooks: tuple[HookFn, ...]) -> C:
    """`run_hooks` with an event subscriber or a process-wide timeout: timed, reported, every hook an entry."""
    timed = bool(events.subscribers)
    started = perf_counter() if timed else 0.0
    entries_only = settings.timeout is not None
    failures: Optional[_Failures] = None
    modified: list[str] = []
    running = hook_running()
    try:
        for hook in hooks:
            try:
                entry = hook if type(hook) is HookEntry or not entries_only else _default_entry(hook)
                result = entry(ctx)
                if result is not None and _apply(point, ctx, hook, result):
                    modified.append(_name(hook))
            except HookAborted as aborted:
                _aborted(_resolved(point), ctx, hook, aborted, hooks, started, timed, failures, modified)
                raise
            except Exception as error:
                failures = _failed(_resolved(point), ctx, hook, error, hooks, started, timed, failures, modified)
    finally:
        running[0] = False
    if timed:
        _emit(_resolved(point), ctx, "modified" if modified else "proceeded", len(hooks), started,
              failures=failures, modified_by=modified)
    return ctx


def _lean_failure(point: object, ctx: Any, hook: HookFn, error: Exception, hooks: tuple[HookFn, ...]) -> None:
    """A hook of a lean chain raised: a refusal propagates, named after its hook; anything else
    meets the failure policy (`_failed`)."""
    if isinstance(error, HookAborted):
        if error.source is None:
            error.source = original_of(hook)
        raise error
    _failed(_resolved(point), ctx, hook, error, hooks, 0.0, False, None, False)


def _resolved(point: object) -> Point:
    return ALIASES.get(point) or resolve_point(point)


async def arun_hooks(point: Point, ctx: C, hooks: tuple[HookFn, ...], start: int = 0,
                     pending: Any = None) -> C:
    """Run an already resolved chain on an async call site, from its hook at `start` (`adispatch`
    ran those before it); `pending` is the awaitable that hook already handed back."""
    point = ALIASES.get(point) or resolve_point(point)
    reducer = REDUCERS.get(point, _replace_payload)
    timed = bool(events.subscribers)
    started = perf_counter() if timed else 0.0
    failures: Optional[_Failures] = None
    modified: list[str] = []
    running = [True]  # this task's own flag (`hook_running()`, inline): sibling tasks never see it
    hooks_off.set(running)
    try:
        for index in range(start, len(hooks)):
            hook = hooks[index]
            try:
                if pending is not None and index == start:
                    result = await pending
                elif type(hook) is HookEntry:
                    if not hook.applies(ctx):
                        continue
                    result = await hook.call_async(ctx)
                elif settings.timeout is not None:
                    result = await _default_entry(hook).call_async(ctx)
                else:
                    result = hook(ctx)
                    if result is not None and hasattr(result, "__await__"):
                        result = await result
                if result is not None and reducer(ctx, result):
                    modified.append(_name(hook))
            except HookAborted as aborted:
                _aborted(point, ctx, hook, aborted, hooks, started, timed, failures, modified)
                raise
            except Exception as error:
                failures = _failed(point, ctx, hook, error, hooks, started, timed, failures, modified)
    finally:
        running[0] = False
    if timed:
        _emit(point, ctx, "modified" if modified else "proceeded", len(hooks), started,
              failures=failures, modified_by=modified)
    return ctx


# -- failures -----------------------------------------------------------------------


class _Failures:
    """The hooks that failed or timed out during one dispatch (for telemetry)."""

    __slots__ = ("failed", "timed_out", "error")

    def __init__(self) -> None:
        self.failed: list[str] = []
        self.timed_out: list[str] = []
        self.error: Optional[str] = None

    def add(self, name: str, error: BaseException) -> None:
        (self.timed_out if isinstance(error, HookTimeout) else self.failed).append(name)
        self.error = f"{type(error).__name__}: {error}"


def _name(hook: HookFn) -> str:
    return source_name(original_of(hook)) or repr(hook)


def _default_entry(hook: HookFn) -> HookEntry:
    """A plain hook seen while a process-wide timeout is configured."""
    return HookEntry(hook, agents=None, tools=None, timeout=None, on_error=None, is_async=False)


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


def _aborted(
    point: Point, ctx: Any, hook: HookFn, aborted: HookAborted, hooks: tuple[HookFn, ...],
    started: float, timed: bool, failures: Optional[_Failures], modified: Optional[list[str]] = None,
) -> None:
    if aborted.source is None:
        aborted.source = original_of(hook)
    if timed:
        _emit(point, ctx, "aborted", len(hooks), started, aborted, failures, modified)


def _failed(
    point: Point, ctx: Any, hook: HookFn, error: Exception, hooks: tuple[HookFn, ...],
    started: float, timed: bool, failures: Optional[_Failures], modified: object,
) -> _Failures:
    """Apply the failure policy to a hook's exception; returns the updated failure list."""
    if getattr(error, PAUSE, False):  # the framework's own pause raised by a hook (LangGraph's interrupt)
        if timed:
            _emit(point, ctx, "aborted", len(hooks), started, HookAborted(f"paused: {type(error).__name__}", original_of(hook)))
        raise error
    failures = failures or _Failures()
    name = _name(hook)
    failures.add(name, error)
    own = hook.on_error if type(hook) is HookEntry else None
    if settings.strict and own != "closed":  # a hook's own "closed" refuses even in strict mode
        if timed:
            _emit(point, ctx, "failed", len(hooks), started, failures=failures)
        raise error
    policy = own or settings.on_error
    if policy == "closed":
        reason = str(error) if isinstance(error, HookTimeout) else f"hook {name} failed: {type(error).__name__}: {error}"
        aborted = HookAborted(reason, source=original_of(hook))
        if timed:
            _emit(point, ctx, "aborted", len(hooks), started, aborted, failures)
        raise aborted from error
    logger.warning("hook %s at %s raised %r; ignored (fail-open)", name, point.value, error,
                   exc_info=not isinstance(error, HookTimeout))
    return failures


def _emit(
    point: Point,
    ctx: Any,
    outcome: events.Outcome,
    count: int,
    started: float,
    aborted: HookAborted | None = None,
    failures: Optional[_Failures] = None,
    modified_by: Optional[list[str]] = None,
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
            agent_role=getattr(ctx, "agent_role", None),
            tool_name=getattr(ctx, "tool_name", None),
            failed_hooks=tuple(failures.failed) if failures else (),
            timed_out_hooks=tuple(failures.timed_out) if failures else (),
            error=failures.error if failures else None,
            outcomes=take_reported(ctx),
            run_id=current_run_id(),
            modified_by=tuple(modified_by) if modified_by else (),
            tool_input=_arguments(ctx),
        )
    )


def _arguments(ctx: Any) -> Optional[dict[str, Any]]:
    """A copy of a tool call's arguments for the event (a subscriber must not change the call's)."""
    arguments = getattr(ctx, "tool_input", None)
    return dict(arguments) if isinstance(arguments, dict) else None
