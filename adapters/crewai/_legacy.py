"""crewai 1.5.0 - 1.15.2: the legacy hook seams plus wrapt on the call sites crewai lacks.

These releases have only the four legacy hook families. hookport attaches:

- model calls of an agent: ``_calls`` (every release); direct model calls:
  the LLM layer's seams (``BaseLLM._invoke_before/after_llm_call_hooks``) where
  they exist, ``LLM.call`` and the providers' ``call`` before; hookport's chain
  runs after crewai's own hooks, on the same live message list;
- tool calls: crewai reads its tool-hook lists through ``get_*_tool_call_hooks()``
  (a ``.copy()`` of a module-level list) on every path, ReAct and native. The
  list is swapped for a `BridgedHookList` whose copy ends with a bridge while a
  hookport hook is registered for the point; crewai's loop then refuses a tool
  exactly as for its own ``return False``. On the ReAct sites, whose loop runs
  no after-hooks for a refusal, hookport fires POST_TOOL_CALL itself;
- crews, flows, tasks and flow methods: wrapt wrappers that fire the boundary
  and step points the way crewai >= 1.15.3 does natively.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import sys
from collections.abc import Callable
from contextvars import ContextVar
from time import perf_counter
from typing import Any

from hookport.adapters.crewai import _aborts
from hookport.adapters.crewai._contexts import (
    FRAMEWORK,
    crew_of_task,
    model_context,
)
from hookport.adapters.crewai._calls import inside_agent_model_call, post_after_refusal, post_tool, pre_tool, tool_points_active
from hookport.adapters.crewai._chain import run_chain
from hookport.boundary import ReentrancyGuard, apost_step, apre_step, open_execution, post_step, pre_step
from hookport.points import InterceptionPoint
from hookport.registry import has_hooks

P = InterceptionPoint
Wrapped = Callable[..., Any]


# -- model calls -----------------------------------------------------------------------------


def _arg(args: tuple[Any, ...], kwargs: dict[str, Any], index: int, name: str, default: Any = None) -> Any:
    if len(args) > index:
        return args[index]
    return kwargs.get(name, default)


def before_direct_llm(wrapped: Wrapped, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``BaseLLM._invoke_before_llm_call_hooks(messages, from_agent=None) -> bool`` (legacy mode).

    crewai runs it for direct calls only (``from_agent`` None); inside an agent
    the executor seam has dispatched already.
    """
    proceed = wrapped(*args, **kwargs)
    messages = _arg(args, kwargs, 0, "messages")
    if _arg(args, kwargs, 1, "from_agent") is not None or not proceed or inside_agent_model_call():
        return proceed
    if not isinstance(messages, list) or not has_hooks(P.PRE_MODEL_CALL):
        return proceed
    run_chain(P.PRE_MODEL_CALL, model_context(messages, llm=instance))
    return proceed


def after_direct_llm(wrapped: Wrapped, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``BaseLLM._invoke_after_llm_call_hooks(messages, response, from_agent=None) -> str`` (legacy mode)."""
    answer = wrapped(*args, **kwargs)
    if _arg(args, kwargs, 2, "from_agent") is not None or not isinstance(answer, str) or inside_agent_model_call():
        return answer
    if not has_hooks(P.POST_MODEL_CALL):
        return answer
    messages = _arg(args, kwargs, 0, "messages")
    ctx = model_context(messages if isinstance(messages, list) else [], llm=instance, response=answer)
    ctx = run_chain(P.POST_MODEL_CALL, ctx)
    return ctx.response if isinstance(ctx.response, str) else answer


_direct_guard = ReentrancyGuard("crewai_direct_llm_call")


def _with_arg0(args: tuple[Any, ...], kwargs: dict[str, Any], value: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    if args:
        return (value, *args[1:]), kwargs
    return args, {**kwargs, "messages": value}


def direct_llm_call(wrapped: Wrapped, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``LLM.call`` / ``<Provider>Completion.call`` on releases whose LLM layer has no hook seam (1.5 - 1.9).

    Inside an agent (``from_agent`` set) the executor seam has dispatched; a
    direct call dispatches here, once, on a copy of the caller's messages.
    """
    if (
        _arg(args, kwargs, 5, "from_agent") is not None
        or _direct_guard.held(id(instance))
        or inside_agent_model_call()
        or not (has_hooks(P.PRE_MODEL_CALL) or has_hooks(P.POST_MODEL_CALL))
    ):
        return wrapped(*args, **kwargs)
    messages = _arg(args, kwargs, 0, "messages")
    if isinstance(messages, str):
        dicts = [{"role": "user", "content": messages}]
    elif isinstance(messages, list):
        dicts = [dict(m) if isinstance(m, dict) else m for m in messages]
    else:
        return wrapped(*args, **kwargs)
    ctx = model_context(dicts, llm=instance)
    if has_hooks(P.PRE_MODEL_CALL):
        run_chain(P.PRE_MODEL_CALL, ctx)
        args, kwargs = _with_arg0(args, kwargs, ctx.messages)
    with _direct_guard.hold(id(instance)):
        answer = wrapped(*args, **kwargs)
    if not isinstance(answer, str) or not has_hooks(P.POST_MODEL_CALL):
        return answer
    ctx.response = answer
    run_chain(P.POST_MODEL_CALL, ctx)
    return ctx.response if isinstance(ctx.response, str) else answer


# -- tool calls --------------------------------------------------------------------------------------


_REACT_TOOL_SITES = frozenset({"execute_tool_and_check_finality", "aexecute_tool_and_check_finality"})
"""The legacy ReAct tool sites: they return a refusal without running the after-tool hooks."""


_react_refusal: ContextVar[list[str | None] | None] = ContextVar("hookport_crewai_react_refusal", default=None)
"""While a ReAct tool site runs: the refusal text the model is to read instead of crewai's sentence."""


def _refused_on_react_site(native: Any) -> None:
    """A refusal on a ReAct site: POST_TOOL_CALL, and the text the site's result is to carry."""
    text = post_after_refusal(native)
    box = _react_refusal.get()
    if box is not None:
        box[0] = text


def _pre_tool_bridge(native: Any) -> Any:
    """Returns False to refuse: crewai answers "Tool execution blocked by hook. Tool: <name>"."""
    verdict = pre_tool(native)
    if verdict is False and sys._getframe(1).f_code.co_name in _REACT_TOOL_SITES:
        _refused_on_react_site(native)
    return verdict


def _watch_refusal(hook: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """One of crewai's own before-tool hooks: when it refuses on a ReAct site, hookport's
    POST_TOOL_CALL still sees the refusal (crewai's loop returns before any after-hook)."""

    @functools.wraps(hook)
    def watched(native: Any) -> Any:
        verdict = hook(native)
        if verdict is False and sys._getframe(1).f_code.co_name in _REACT_TOOL_SITES:
            _refused_on_react_site(native)
        return verdict

    return watched


def react_tool_site(wrapped: Wrapped, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``execute_tool_and_check_finality(...) -> ToolResult`` (the ReAct loop's tool call): crewai
    answers a refusal with its own sentence before any after-hook runs, so the result the model
    reads is made to carry hookport's (the reason, or what a POST hook left)."""
    if not tool_points_active():
        return wrapped(*args, **kwargs)
    box: list[str | None] = [None]
    token = _react_refusal.set(box)
    try:
        result = wrapped(*args, **kwargs)
    finally:
        _react_refusal.reset(token)
    return _carrying(result, box[0])


async def areact_tool_site(wrapped: Wrapped, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """`react_tool_site` for ``aexecute_tool_and_check_finality``."""
    if not tool_points_active():
        return await wrapped(*args, **kwargs)
    box: list[str | None] = [None]
    token = _react_refusal.set(box)
    try:
        result = await wrapped(*args, **kwargs)
    finally:
        _react_refusal.reset(token)
    return _carrying(result, box[0])


def _carrying(result: Any, text: str | None) -> Any:
    """crewai's ``ToolResult`` for a refused call, with `text` as what the model reads."""
    if text is None or not isinstance(getattr(result, "result", None), str):
        return result
    if not result.result.startswith("Tool execution blocked by hook."):
        return result
    try:
        return dataclasses.replace(result, result=text)
    except TypeError:  # not a dataclass on this release
        result.result = text
        return result


_pre_tool_bridge.__name__ = "hookport_pre_tool_call"


class BridgedHookList(list):  # type: ignore[type-arg]
    """crewai's module-level tool-hook list, whose `copy()` (what crewai reads) adds the bridge."""

    __slots__ = ("bridge", "point")

    def __init__(self, items: list[Any], bridge: Callable[[Any], Any], point: InterceptionPoint) -> None:
        super().__init__(items)
        self.bridge = bridge
        self.point = point

    def copy(self) -> list[Any]:  # type: ignore[override]
        items = list(self)
        if self.point is P.PRE_TOOL_CALL:
            if not tool_points_active():
                return items
            if items and has_hooks(P.POST_TOOL_CALL):
                items = [_watch_refusal(hook) for hook in items]
        elif not has_hooks(self.point):
            return items
        items.append(self.bridge)
        return items


TOOL_LISTS: dict[str, tuple[Callable[[Any], Any], InterceptionPoint]] = {
    "_before_tool_call_hooks": (_pre_tool_bridge, P.PRE_TOOL_CALL),
    "_after_tool_call_hooks": (post_tool, P.POST_TOOL_CALL),
}


def attach_tool_lists(module: Any) -> dict[str, list[Any]]:
    """Swap the lists in ``crewai.hooks.tool_hooks``; returns the originals to restore."""
    originals: dict[str, list[Any]] = {}
    for name, (bridge, point) in TOOL_LISTS.items():
        current = getattr(module, name, None)
        if not isinstance(current, list) or isinstance(current, BridgedHookList):
            continue
        originals[name] = current
        setattr(module, name, BridgedHookList(current, bridge, point))
    return originals


def detach_tool_lists(module: Any, originals: dict[str, list[Any]]) -> None:
    """Put crewai's own list objects back, with whatever hooks were registered meanwhile."""
    for name, original in originals.items():
        current = getattr(module, name, None)
        if isinstance(current, BridgedHookList):
            original[:] = list(current)
            setattr(module, name, original)


# -- execution boundaries ------------------------------------------------------------------------------


def _is_internal(instance: Any) -> bool:
    """crewai's own flows (agent executors, memory) are machinery, not the user's run."""
    return bool(getattr(instance, "is_crewai_internal", False)) or type(instance).__module__.startswith("crewai.")


def _inputs_binding(
    wrapped: Wrapped, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Any, Callable[[Any], tuple[tuple[Any, ...], dict[str, Any]]]]:
    """The ``inputs`` argument of a kickoff, and how to call again with new inputs."""
    if args:
        def rebuild(new: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
            return (new, *args[1:]), kwargs

        return args[0], rebuild

    def rebuild_kw(new: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
        return args, {**kwargs, "inputs": new}

    return kwargs.get("inputs"), rebuild_kw


def _settled(box: Any, wrapped: Wrapped, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Call the kickoff and settle the run's abort box with how it ended."""
    try:
        result = wrapped(*args, **kwargs)
    except BaseException as error:
        _aborts.settle(box, error)
        raise
    _aborts.settle(box, None)
    return result


async def _asettled(box: Any, wrapped: Wrapped, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The async twin of `_settled`."""
    try:
        result = await wrapped(*args, **kwargs)
    except BaseException as error:
        _aborts.settle(box, error)
        raise
    _aborts.settle(box, None)
    return result


def _execution_wrapper(owner_field: str, skip_internal: bool = False) -> Callable[..., Any]:
    """Boundaries for a kickoff: START/INPUT before, OUTPUT/END after, END(failed) on error."""

    def sync_wrapper(wrapped: Wrapped, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        with _aborts.abort_scope() as box:
            run = None if skip_internal and _is_internal(instance) else open_execution(FRAMEWORK, **{owner_field: instance})
            if run is None:
                return _settled(box, wrapped, args, kwargs)
            inputs, rebuild = _inputs_binding(wrapped, args, kwargs)
            try:
                inputs = run.begin(inputs if inputs is not None else {})
                call_args, call_kwargs = rebuild(inputs)
                return run.succeed(_settled(box, wrapped, call_args, call_kwargs))
            except BaseException as error:
                run.fail(error)
                raise
            finally:
                run.close()

    async def async_wrapper(wrapped: Wrapped, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        with _aborts.abort_scope() as box:
            run = None if skip_internal and _is_internal(instance) else open_execution(FRAMEWORK, **{owner_field: instance})
            if run is None:
                return await _asettled(box, wrapped, args, kwargs)
            inputs, rebuild = _inputs_binding(wrapped, args, kwargs)
            try:
                inputs = await run.abegin(inputs if inputs is not None else {})
                call_args, call_kwargs = rebuild(inputs)
                return await run.asucceed(await _asettled(box, wrapped, call_args, call_kwargs))
            except BaseException as error:
                await run.afail(error)
                raise
            finally:
                run.close()

    def choose(wrapped: Wrapped, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if inspect.iscoroutinefunction(wrapped):
            return async_wrapper(wrapped, instance, args, kwargs)
        return sync_wrapper(wrapped, instance, args, kwargs)

    return choose


crew_kickoff = _execution_wrapper("crew")
flow_kickoff = _execution_wrapper("flow", skip_internal=True)


# -- steps ---------------------------------------------------------------------------------------------------


def _task_step_fields(task: Any, agent: Any) -> dict[str, Any]:
    agent = agent or getattr(task, "agent", None)
    return {"agent": agent, "task": task, "crew": crew_of_task(task, agent)}


def _task_name(task: Any) -> str | None:
    return getattr(task, "name", None) or getattr(task, "description", None)


def _task_call(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any]:
    return _arg(args, kwargs, 0, "agent"), _arg(args, kwargs, 1, "context")


def _with_context(args: tuple[Any, ...], kwargs: dict[str, Any], context: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    if len(args) > 1:
        return (args[0], context, *args[2:]), kwargs
    return args, {**kwargs, "context": context}


def task_step(wrapped: Wrapped, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``Task._execute_core(agent, context, tools)``: PRE_STEP's payload is the context string."""
    if not (has_hooks(P.PRE_STEP) or has_hooks(P.POST_STEP)):
        return wrapped(*args, **kwargs)
    agent, context = _task_call(args, kwargs)
    fields = _task_step_fields(instance, agent)
    name = _task_name(instance)
    new_context = pre_step(FRAMEWORK, "task", name, context, **fields)
    if new_context is not context:
        args, kwargs = _with_context(args, kwargs, new_context)
    started = perf_counter()
    output = wrapped(*args, **kwargs)
    return post_step(FRAMEWORK, "task", name, output, started=started, **fields)


async def _atask_step(wrapped: Wrapped, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    agent, context = _task_call(args, kwargs)
    fields = _task_step_fields(instance, agent)
    name = _task_name(instance)
    new_context = await apre_step(FRAMEWORK, "task", name, context, **fields)
    if new_context is not context:
        args, kwargs = _with_context(args, kwargs, new_context)
    started = perf_counter()
    output = await wrapped(*args, **kwargs)
    return await apost_step(FRAMEWORK, "task", name, output, started=started, **fields)


def atask_step(wrapped: Wrapped, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``Task._aexecute_core``: the async twin."""
    if not (has_hooks(P.PRE_STEP) or has_hooks(P.POST_STEP)):
        return wrapped(*args, **kwargs)
    return _atask_step(wrapped, instance, args, kwargs)


def _params_payload(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    return {f"_{i}": value for i, value in enumerate(args)} | dict(kwargs)


def _params_back(payload: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    if not isinstance(payload, dict):
        return args, kwargs
    positional = [payload[f"_{i}"] for i in range(len(args)) if f"_{i}" in payload]
    if len(positional) != len(args):
        positional = list(args)
    named = {k: v for k, v in payload.items() if not (k.startswith("_") and k[1:].isdigit())}
    return tuple(positional), named


async def _flow_method_step(wrapped: Wrapped, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    method_name = _arg(args, kwargs, 0, "method_name")
    method = _arg(args, kwargs, 1, "method")
    params_args, params_kwargs = tuple(args[2:]), {k: v for k, v in kwargs.items() if k not in ("method_name", "method")}
    fields = {"flow": instance}
    payload = _params_payload(params_args, params_kwargs)
    new_payload = await apre_step(FRAMEWORK, "flow_method", str(method_name), payload, **fields)
    params_args, params_kwargs = _params_back(new_payload, params_args, params_kwargs)
    started = perf_counter()
    result = await wrapped(method_name, method, *params_args, **params_kwargs)
    return await apost_step(FRAMEWORK, "flow_method", str(method_name), result, started=started, **fields)


def flow_method_step(wrapped: Wrapped, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``Flow._execute_method(method_name, method, *args, **kwargs)`` of a user flow."""
    if _is_internal(instance) or not (has_hooks(P.PRE_STEP) or has_hooks(P.POST_STEP)):
        return wrapped(*args, **kwargs)
    return _flow_method_step(wrapped, instance, args, kwargs)

