"""crewai >= 1.15.3: attach to crewai's own interception dispatcher.

crewai dispatches all ten points itself, at every call site it has (agent
executors, the LLM layer and its native providers, the ReAct and native tool
paths, crews, tasks, flows). hookport joins that dispatch for the points
whose call sites it does not wrap itself: crewai resolves a point's hooks
through ``crewai.hooks.dispatch._resolve_hooks``, which is replaced so that,
while at least one hookport hook is registered for the point, the resolved
list ends with one bridge callable that runs hookport's chain (after crewai's
own hooks, as crewai's order wants). Model and tool calls are not bridged:
an agent's model calls are dispatched by ``_calls`` around the real call, and
tool calls right after crewai's own tool hooks (``run_before/after_tool_call_hooks``),
both outside crewai's dispatcher, so they cost no crewai `HookDispatchedEvent`
(60-110 us each); only direct ``llm.call()``s reach hookport through crewai's
LLM layer.

Nothing is added to crewai's registries: ``crewai.hooks.get_*_hooks()``,
``clear_*`` and crewai's own hooks behave exactly as without hookport, and a
point without hookport hooks keeps crewai's no-op fast path.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from time import perf_counter
from typing import Any

from hookport import registry

from hookport.adapters.crewai import _aborts
from hookport.adapters.crewai._contexts import (
    boundary_context_from_native,
    model_context_from_native,
)
from hookport.adapters.crewai._calls import (
    inside_agent_model_call,
    post_tool,
    pre_tool,
    tool_points_active,
    wrapped_twice,
)
from hookport.adapters.crewai._chain import run_chain, run_quietly
from hookport.adapters.crewai._runs import nested_run, owns_boundaries
from hookport.adapters.crewai._contexts import FRAMEWORK
from hookport.contexts import ExecutionEndContext
from hookport.errors import HookAborted
from hookport.points import EXECUTION_BOUNDARY_POINTS, InterceptionPoint
from hookport.registry import has_hooks

P = InterceptionPoint

Bridge = Callable[[Any], Any]


def _pre_model(native: Any) -> Any:
    """A direct model call (``llm.call(...)`` outside an agent): crewai's LLM layer dispatches it.
    An agent's model call dispatches hookport's points itself (``_calls``)."""
    if inside_agent_model_call():
        return None
    run_chain(P.PRE_MODEL_CALL, model_context_from_native(native))
    return None


def _post_model(native: Any) -> Any:
    if inside_agent_model_call():
        return None
    original = getattr(native, "response", None)
    ctx = run_chain(P.POST_MODEL_CALL, model_context_from_native(native))
    return ctx.response if ctx.response is not original else None


def is_internal_flow(flow: Any) -> bool:
    """crewai's own flows (the Flow-based agent executor, memory flows) are machinery."""
    if flow is None or not _is_flow(flow):
        return False
    if getattr(type(flow), "is_crewai_internal", False):
        return True
    return type(flow).__module__.startswith("crewai.")


def belongs_to_outer_run(point: InterceptionPoint, native: Any) -> bool:
    """Dispatches of crewai's internal flows that crewai >= 1.15.19 no longer makes.

    crewai 1.15.3 - 1.15.18 dispatch the agent executor's flow methods as
    steps and its run as an execution of its own, inside the crew's. Only a
    standalone ``Agent.kickoff()`` (no crew) owns its execution boundaries.
    """
    flow = getattr(native, "flow", None)
    if not is_internal_flow(flow):
        return False
    if point in (P.PRE_STEP, P.POST_STEP):
        return True
    return getattr(flow, "crew", None) is not None


_open_runs: set[int] = set()
"""Crews and flows whose EXECUTION_START reached hookport and whose END has not yet."""

_clocks: dict[Any, float] = {}
"""When a run (by owner) or a step (by task / flow method) started: OUTPUT, END and
POST_STEP report `duration_ms` from it. A step that raised never reads its clock, so
the oldest clocks are dropped past `_MAX_CLOCKS`."""
_MAX_CLOCKS = 4096


def _owner(native: Any) -> Any:
    return getattr(native, "crew", None) or getattr(native, "flow", None)


def _clock_key(point: InterceptionPoint, native: Any) -> Any:
    if point in (P.PRE_STEP, P.POST_STEP):
        task = getattr(native, "task", None)
        if task is not None:
            return ("task", id(task))
        return ("method", id(getattr(native, "flow", None)), getattr(native, "step_name", None))
    return ("run", id(_owner(native)))


def _duration(point: InterceptionPoint, native: Any) -> float | None:
    """Start the clock at START / PRE_STEP; read it at OUTPUT, END and POST_STEP."""
    key = _clock_key(point, native)
    now = perf_counter()
    if point in (P.EXECUTION_START, P.PRE_STEP):
        if len(_clocks) >= _MAX_CLOCKS:
            for stale in list(_clocks)[: _MAX_CLOCKS // 2]:
                _clocks.pop(stale, None)
        _clocks[key] = now
        return None
    started = _clocks.pop(key, None) if point in (P.EXECUTION_END, P.POST_STEP) else _clocks.get(key)
    return (now - started) * 1000.0 if started is not None else None


_TIMED = frozenset({P.EXECUTION_START, P.OUTPUT, P.EXECUTION_END, P.PRE_STEP, P.POST_STEP})


def _boundary(point: InterceptionPoint) -> Bridge:
    def bridge(native: Any) -> Any:
        if belongs_to_outer_run(point, native):
            return None
        if point in EXECUTION_BOUNDARY_POINTS and (nested_run() or owns_boundaries()):
            return None  # a crew or flow started inside the outermost run (or a run whose boundaries
            # hookport dispatches itself): not an execution of its own
        duration = _duration(point, native) if point in _TIMED else None
        if point is P.EXECUTION_END:
            _open_runs.discard(id(_owner(native)))
        original = getattr(native, "payload", None)
        if has_hooks(point):
            ctx = boundary_context_from_native(point, native, duration)
            if point is P.EXECUTION_END and getattr(native, "status", None) == "failed":
                run_quietly(point, ctx)  # the run failed already: nothing is left to abort
                return None
            run_chain(point, ctx)
            replaced = ctx.payload
        else:  # bridged only to start a clock, or to open the run a failure END closes
            replaced = original
        owner = _owner(native)
        if point is P.EXECUTION_START and owner is not None and not is_internal_flow(owner):
            _open_runs.add(id(owner))
        return replaced if replaced is not original else None

    return bridge


def end_after_failure(instance: Any, error: BaseException) -> None:
    """EXECUTION_END(failed) for a kickoff that raised, where crewai dispatched none.

    crewai dispatches END on the failure path only from 1.15.6; before, a
    failed run that started never ended. When crewai does it, its END reached
    the bridge first and this is a no-op: END fires exactly once.
    """
    if id(instance) not in _open_runs:
        return
    _open_runs.discard(id(instance))
    if not has_hooks(P.EXECUTION_END):
        return
    started = _clocks.pop(("run", id(instance)), None)
    duration = (perf_counter() - started) * 1000.0 if started is not None else None
    field = "flow" if _is_flow(instance) else "crew"
    ctx = ExecutionEndContext(None, output=None, status="failed", error=error, duration_ms=duration,
                              framework=FRAMEWORK, **{field: instance})
    run_quietly(P.EXECUTION_END, ctx)


def _is_flow(instance: Any) -> bool:
    return any(klass.__name__ == "Flow" for klass in type(instance).__mro__)


def _named(fn: Bridge, point: InterceptionPoint) -> Bridge:
    # crewai's telemetry and warnings name a hook by __name__.
    fn.__name__ = f"hookport_{point.value}"
    fn.__qualname__ = fn.__name__
    fn.__hookport_bridge__ = True  # type: ignore[attr-defined]
    return fn


def make_bridges() -> dict[str, Bridge]:
    """One bridge per point, keyed by the point's value (crewai's enum compares equal)."""
    bridges: dict[str, Bridge] = {
        P.PRE_MODEL_CALL.value: _pre_model,
        P.POST_MODEL_CALL.value: _post_model,
    }
    for point in (P.EXECUTION_START, P.INPUT, P.OUTPUT, P.EXECUTION_END, P.PRE_STEP, P.POST_STEP):
        bridges[point.value] = _boundary(point)
    named: dict[str, Bridge] = {}
    for value, fn in bridges.items():
        # a fresh function object per point so each can carry its own name
        def bound(native: Any, _fn: Bridge = fn) -> Any:
            return _fn(native)

        named[value] = _named(bound, P(value))
    return named


BRIDGES: dict[str, Bridge] = make_bridges()


_ROUTES: dict[str, tuple[InterceptionPoint, Bridge]] = {value: (P(value), fn) for value, fn in BRIDGES.items()}
"""crewai point value -> (hookport point, bridge): one dict lookup on crewai's hot path."""


def with_bridge(hooks: list[Any], route: tuple[InterceptionPoint, Bridge] | None) -> list[Any]:
    if route is None:
        return hooks
    point, bridge = route
    if has_hooks(point) or _opens(point):
        return [*hooks, bridge]
    return hooks


def _opens(point: InterceptionPoint) -> bool:
    """A point bridged for the hooks of a later one: START opens the run (and its clock) that
    OUTPUT / END close, PRE_STEP the step POST_STEP times."""
    if point is P.EXECUTION_START:
        return has_hooks(P.EXECUTION_END) or has_hooks(P.OUTPUT)
    if point is P.PRE_STEP:
        return has_hooks(P.POST_STEP)
    return False


def make_resolve_hooks(original: Callable[[Any], list[Any]]) -> Callable[[Any], list[Any]]:
    """A replacement for ``crewai.hooks.dispatch._resolve_hooks``: what `dispatch()` runs.

    It sits on crewai's hottest path (every dispatch, most with no hook at
    all; crewai bounds that no-op cost in its own tests), so it is a plain
    function rather than a wrapt wrapper: while hookport has no hook anywhere
    it costs one call and two truth tests.
    """

    def _resolve_hooks(point: Any) -> list[Any]:
        hooks = original(point)
        if not registry._global and not registry._open_scopes:
            return hooks
        return with_bridge(hooks, _ROUTES.get(getattr(point, "_value_", point)))

    functools.update_wrapper(_resolve_hooks, original)  # keeps __wrapped__ = crewai's function
    _resolve_hooks.__hookport_patch__ = True  # type: ignore[attr-defined]
    return _resolve_hooks


def _hook_context(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    return args[0] if args else kwargs.get("context")


def before_tool_hooks(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``tool_hooks.run_before_tool_call_hooks(context) -> blocked``, which every tool site calls:
    crewai's own hooks, then hookport's PRE_TOOL_CALL (outside crewai's dispatcher, so it costs
    no crewai `HookDispatchedEvent`). When crewai's hook refused, hookport's chain does not run,
    as if it were the last hook of crewai's list."""
    blocked = wrapped(*args, **kwargs)
    if blocked or wrapped_twice(wrapped) or not tool_points_active():
        return blocked
    return pre_tool(_hook_context(args, kwargs)) is False


def after_tool_hooks(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``tool_hooks.run_after_tool_call_hooks(context) -> result``: crewai's hooks, then hookport's."""
    result = wrapped(*args, **kwargs)
    if wrapped_twice(wrapped) or not tool_points_active():
        return result
    native = _hook_context(args, kwargs)
    replaced = post_tool(native)
    if replaced is None:
        return result
    try:
        native.tool_result = replaced
    except (AttributeError, TypeError):
        pass
    return replaced


TOOL_HOOK_IMPORTERS = (
    "crewai.hooks.tool_hooks",
    "crewai.utilities.tool_utils",
    "crewai.agents.agent_executor",
    "crewai.agents.crew_agent_executor",
    "crewai.experimental.agent_executor",
)
"""Where ``run_before/after_tool_call_hooks`` live or are imported by name (it depends on the release)."""


def check_execution_error_wrapper(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``Agent._check_execution_error``: a hookport abort is never retried (crewai < 1.15.19 retried it)."""
    error = args[0] if args else kwargs.get("e")
    if isinstance(error, HookAborted):
        raise error
    pending = _aborts.pending_abort()
    if pending is not None:
        raise pending
    return wrapped(*args, **kwargs)
