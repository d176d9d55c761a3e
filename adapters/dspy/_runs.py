"""Executions (the outermost run of any DSPy module) and steps (ReAct iterations).

- EXECUTION_START / INPUT / OUTPUT / EXECUTION_END: the outermost
  ``Module.__call__`` / ``Module.acall`` (``dspy.streamify`` drives one of them).
  Every DSPy program is a module and every module calls its sub-modules
  (``Predict``, ``ChainOfThought``) through the same methods, so only the
  outermost call is an execution; the inner ones only pass the run along.
  INPUT sees the keyword arguments as a dict (a replacement dict is what the
  module gets); OUTPUT sees the ``dspy.Prediction`` (`OutputContext.text` is its
  last output field, ``answer`` for ``"question -> answer"``).
- PRE_STEP / POST_STEP ``kind="react_iteration"``: ``ReAct._call_with_potential_
  trajectory_truncation`` and its async twin, once per iteration (``step_name=
  "react"``, the predictor that picks the next tool) and once for the final
  extraction (``step_name="extract"``). PRE's payload is the trajectory so far,
  POST's the step's ``Prediction``.
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable
from time import perf_counter
from typing import Any

from hookport import boundary
from hookport.answers import register_answer_type
from hookport.calls import model_hooks_active, tool_hooks_active
from hookport.errors import HookAborted
from hookport.points import InterceptionPoint
from hookport.registry import has_hooks

from hookport.adapters.dspy._state import (
    FRAMEWORK,
    RunScope,
    check_latch,
    current_scope,
    enter,
    leave,
    own_name,
    record,
)

P = InterceptionPoint
STEP_KIND = "react_iteration"
Args = tuple[Any, ...]
Kwargs = dict[str, Any]


def hooks_anywhere() -> bool:
    """True when some hook could fire during a run (a run with none needs no scope)."""
    return (boundary.boundary_hooks_active() or model_hooks_active() or tool_hooks_active()
            or has_hooks(P.PRE_STEP) or has_hooks(P.POST_STEP) or _turns_hooked())


def _nested_scope(instance: Any, parent: RunScope) -> RunScope | None:
    """A scope for a nested module that has a name of its own (None: it keeps its parent's)."""
    return RunScope(instance, parent.latch) if own_name(instance) else None


def module_call(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``Module.__call__``: an execution when outermost, a scope change when named."""
    parent = current_scope()
    if parent is None:
        if not hooks_anywhere():
            return wrapped(*args, **kwargs)
        _cover_tools(instance, kwargs)
        scope = RunScope(instance)
    else:
        nested = _nested_scope(instance, parent)
        if nested is None:
            return wrapped(*args, **kwargs)
        scope = nested
    token = enter(scope)
    try:
        if parent is not None:
            return _turn(scope, lambda: wrapped(*args, **kwargs))
        register_answers()
        return boundary.run_execution(
            FRAMEWORK, lambda inputs: _turn(scope, lambda: wrapped(*args, **_kwargs(inputs, kwargs))),
            dict(kwargs), agent=instance, agent_role=scope.agent_role)
    finally:
        leave(token)


def _cover_tools(module: Any, kwargs: Kwargs) -> None:
    """Guard the tools a run works with that were made before install (see `_bodies`)."""
    from hookport.adapters.dspy._bodies import BODIES

    if BODIES.active:
        tools = getattr(module, "tools", None)
        BODIES.cover_all([*kwargs.values(), *(tools.values() if isinstance(tools, dict) else ())])


async def amodule_call(wrapped: Callable[..., Awaitable[Any]], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``Module.acall``: `module_call` for async programs."""
    parent = current_scope()
    if parent is None:
        if not hooks_anywhere():
            return await wrapped(*args, **kwargs)
        _cover_tools(instance, kwargs)
        scope = RunScope(instance)
    else:
        nested = _nested_scope(instance, parent)
        if nested is None:
            return await wrapped(*args, **kwargs)
        scope = nested
    token = enter(scope)
    try:
        if parent is not None:
            return await _aturn(scope, lambda: wrapped(*args, **kwargs))
        register_answers()

        async def call(inputs: Any) -> Any:
            return await _aturn(scope, lambda: wrapped(*args, **_kwargs(inputs, kwargs)))

        return await boundary.arun_execution(FRAMEWORK, call, dict(kwargs), agent=instance,
                                             agent_role=scope.agent_role)
    finally:
        leave(token)


def _turns_hooked() -> bool:
    return has_hooks(boundary.TURN_START) or has_hooks(boundary.TURN_END)


def _turn(scope: RunScope, call: Callable[[], Any]) -> Any:
    """AGENT_TURN_START / AGENT_TURN_END around the run of the scope's module (outermost or named)."""
    if not _turns_hooked():
        return call()
    fields = {"agent": scope.agent, "agent_role": scope.agent_role}
    started = perf_counter()
    try:
        boundary.pre_step(FRAMEWORK, boundary.AGENT_TURN, scope.agent_role, None, point=boundary.TURN_START,
                          **fields)
        result = call()
        return boundary.post_step(FRAMEWORK, boundary.AGENT_TURN, scope.agent_role, result, started=started,
                                  point=boundary.TURN_END, **fields)
    except HookAborted as error:
        record(error)
        raise


async def _aturn(scope: RunScope, call: Callable[[], Awaitable[Any]]) -> Any:
    if not _turns_hooked():
        return await call()
    fields = {"agent": scope.agent, "agent_role": scope.agent_role}
    started = perf_counter()
    try:
        await boundary.apre_step(FRAMEWORK, boundary.AGENT_TURN, scope.agent_role, None,
                                 point=boundary.TURN_START, **fields)
        result = await call()
        return await boundary.apost_step(FRAMEWORK, boundary.AGENT_TURN, scope.agent_role, result,
                                         started=started, point=boundary.TURN_END, **fields)
    except HookAborted as error:
        record(error)
        raise


def module_acall(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    return amodule_call(wrapped, instance, args, kwargs)


def _kwargs(inputs: Any, original: Kwargs) -> Kwargs:
    """The keyword arguments the module gets: INPUT's replacement dict, else the caller's."""
    return inputs if isinstance(inputs, dict) else original


# -- ReAct iterations ------------------------------------------------------------------------


def _step_name(instance: Any, args: Args, kwargs: Kwargs) -> str:
    module = args[0] if args else kwargs.get("module")
    return "extract" if module is getattr(instance, "extract", None) else "react"


def _trajectory(args: Args, kwargs: Kwargs) -> Any:
    return args[1] if len(args) > 1 else kwargs.get("trajectory")


def _steps_hooked() -> bool:
    return has_hooks(P.PRE_STEP) or has_hooks(P.POST_STEP)


def react_step(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``ReAct._call_with_potential_trajectory_truncation``: one iteration's decision, or the extraction."""
    scope = current_scope()
    if scope is None:
        return wrapped(*args, **kwargs)
    check_latch()
    if not _steps_hooked():
        return wrapped(*args, **kwargs)
    name = _step_name(instance, args, kwargs)
    fields = {"agent": scope.agent, "agent_role": scope.agent_role}
    started = perf_counter()
    try:
        boundary.pre_step(FRAMEWORK, STEP_KIND, name, _trajectory(args, kwargs), **fields)
        result = wrapped(*args, **kwargs)
        return boundary.post_step(FRAMEWORK, STEP_KIND, name, result, started=started, **fields)
    except HookAborted as error:
        record(error)
        raise


async def _areact_step(wrapped: Callable[..., Awaitable[Any]], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    scope = current_scope()
    if scope is None:
        return await wrapped(*args, **kwargs)
    check_latch()
    if not _steps_hooked():
        return await wrapped(*args, **kwargs)
    name = _step_name(instance, args, kwargs)
    fields = {"agent": scope.agent, "agent_role": scope.agent_role}
    started = perf_counter()
    try:
        await boundary.apre_step(FRAMEWORK, STEP_KIND, name, _trajectory(args, kwargs), **fields)
        result = await wrapped(*args, **kwargs)
        return await boundary.apost_step(FRAMEWORK, STEP_KIND, name, result, started=started, **fields)
    except HookAborted as error:
        record(error)
        raise


def areact_step(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``ReAct._async_call_with_potential_trajectory_truncation``."""
    return _areact_step(wrapped, instance, args, kwargs)


# -- the answer's text ----------------------------------------------------------------------------


def _prediction_text(prediction: Any) -> str | None:
    """The last output field of a Prediction (``answer`` of ``question -> answer``), when text."""
    store = getattr(prediction, "_store", None)
    if not isinstance(store, dict):
        return None
    for key in reversed(list(store)):
        if key != "trajectory" and isinstance(store[key], str):
            return store[key]
    return None


def _with_prediction_text(prediction: Any, text: str) -> Any:
    store = getattr(prediction, "_store", None)
    if not isinstance(store, dict):
        return prediction
    clone = copy.copy(prediction)
    clone._store = dict(store)
    for key in reversed(list(store)):
        if key != "trajectory" and isinstance(store[key], str):
            clone._store[key] = text
            break
    return clone


_answers_registered = False


def register_answers() -> None:
    """Teach `OutputContext.text` DSPy's ``Prediction`` (once per process, on the first run)."""
    global _answers_registered
    if _answers_registered:
        return
    from dspy import Prediction

    register_answer_type(Prediction, _prediction_text, _with_prediction_text)
    _answers_registered = True
