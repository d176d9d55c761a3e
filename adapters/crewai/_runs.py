"""Runs, agent turns and the context that must follow crewai's threads.

- The outermost run. crewai >= 1.15.3 dispatches EXECUTION_START..END for
  every ``Crew.kickoff`` / Flow kickoff / standalone ``Agent.kickoff``, also
  for a crew started inside a Flow method or a tool. hookport's entry-point
  wrappers remember the outermost entry in a ContextVar (crewai copies the
  context into its worker threads and tasks); the boundary bridge skips the
  points of any other entry started inside it, so one outermost run is one
  execution.
- Agent turns. AGENT_TURN_START / AGENT_TURN_END fire once per agent task
  execution (``Agent.execute_task`` / ``aexecute_task``, crewai's retries of the
  same task included in the one turn) and once per standalone ``Agent.kickoff``,
  with the agent's role as `step_name`.
- ``Task(async_execution=True)`` on releases that start its thread without
  copying the context (1.5 - 1.13): the thread runs in the caller's context, so
  scoped hooks, the run's abort and the outermost run follow it.
"""

from __future__ import annotations

import contextvars
import inspect
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from time import perf_counter
from typing import Any

from hookport.adapters.crewai._aborts import checkpoint
from hookport.adapters.crewai._chain import arun_chain, run_chain
from hookport.adapters.crewai._contexts import FRAMEWORK
from hookport.boundary import AGENT_TURN, TURN_END, TURN_START, Execution, current_execution
from hookport.boundary import entered as entered_execution
from hookport.contexts import StepContext
from hookport.registry import has_hooks

Wrapped = Callable[..., Any]

# -- the outermost run ------------------------------------------------------------------------------

_outermost: ContextVar[Any] = ContextVar("hookport_crewai_outermost_entry", default=None)
_nested: ContextVar[bool] = ContextVar("hookport_crewai_nested_entry", default=False)


def nested_run() -> bool:
    """True inside an entry point started within another run (its boundaries are not its own)."""
    return _nested.get()


@contextmanager
def entered(instance: Any) -> Iterator[None]:
    """Mark `instance`'s kickoff as the outermost run, or as nested inside another one."""
    outer = _outermost.get()
    if outer is None:
        token = _outermost.set(instance)
        try:
            yield
        finally:
            _reset(_outermost, token, None)
    elif outer is instance or _nested.get():
        yield  # the same run re-entering itself (kickoff -> kickoff_async), or already nested
    else:
        token = _nested.set(True)
        try:
            yield
        finally:
            _reset(_nested, token, False)


def _reset(var: ContextVar[Any], token: contextvars.Token[Any], value: Any) -> None:
    try:
        var.reset(token)
    except ValueError:  # left in another context (an async generator)
        var.set(value)


_owned: weakref.WeakSet[Execution] = weakref.WeakSet()
"""Runs whose boundaries hookport dispatches itself (a standalone ``Agent.kickoff`` on crewai >= 1.15.19,
which dispatches none): the native boundary bridge leaves crewai's (older releases') dispatches of them alone."""


def owns_boundaries() -> bool:
    run = current_execution()
    return run is not None and run in _owned


def _with_messages(args: tuple[Any, ...], kwargs: dict[str, Any], messages: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    if args:
        return (messages, *args[1:]), kwargs
    return args, {**kwargs, "messages": messages}


def _messages(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    return args[0] if args else kwargs.get("messages")


def entry_point(on_failure: Callable[[Any, BaseException], None] | None = None, *,
                execution: str | None = None) -> Wrapped:
    """A kickoff: the outermost-run mark, and the abort checkpoint of `_aborts`.

    `execution` (crewai >= 1.15.3, where crewai dispatches the boundaries): ``"mark"`` makes the
    outermost run a hookport execution (per-run state, e.g. the LangChain dialect's ``run_limit``,
    is keyed by it) while crewai dispatches its boundaries; ``"own"`` (a standalone
    ``Agent.kickoff``, for which crewai dispatches none) also dispatches EXECUTION_START, INPUT,
    OUTPUT and EXECUTION_END (``failed`` once when the run raises)."""
    check = checkpoint(on_failure=on_failure)

    def _open(instance: Any) -> Execution | None:
        if execution is None or current_execution() is not None or nested_run():
            return None
        run = Execution(FRAMEWORK, {"agent": instance} if execution == "own" else {})
        if execution == "own":
            _owned.add(run)
        return run

    def sync_wrapper(wrapped: Wrapped, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        with entered(instance):
            run = _open(instance)
            if run is None:
                return check(wrapped, instance, args, kwargs)
            if execution == "mark":
                with entered_execution(run):
                    return check(wrapped, instance, args, kwargs)
            try:
                messages = run.begin(_messages(args, kwargs))
                args, kwargs = _with_messages(args, kwargs, messages)
                output = check(wrapped, instance, args, kwargs)
                return run.succeed(output)
            except BaseException as error:
                run.fail(error)
                raise
            finally:
                run.close()

    async def async_wrapper(wrapped: Wrapped, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        with entered(instance):
            run = _open(instance)
            if run is None:
                return await check(wrapped, instance, args, kwargs)
            if execution == "mark":
                with entered_execution(run):
                    return await check(wrapped, instance, args, kwargs)
            try:
                messages = await run.abegin(_messages(args, kwargs))
                args, kwargs = _with_messages(args, kwargs, messages)
                output = await check(wrapped, instance, args, kwargs)
                return await run.asucceed(output)
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


# -- agent turns ------------------------------------------------------------------------------------------

_in_turn: ContextVar[Any] = ContextVar("hookport_crewai_agent_turn", default=None)
_agent: ContextVar[Any] = ContextVar("hookport_crewai_agent", default=None)
"""The agent whose task or kickoff is running (what a tool body reports as its agent)."""


def current_agent() -> Any:
    return _agent.get()


def turn_hooks_active() -> bool:
    return has_hooks(TURN_START) or has_hooks(TURN_END)


def _turn_context(agent: Any, task: Any, payload: Any, output: Any = None,
                  started: float | None = None) -> StepContext:
    role = getattr(agent, "role", None)
    return StepContext(
        payload,
        kind=AGENT_TURN,
        step_name=role if isinstance(role, str) else None,
        output=output,
        duration_ms=(perf_counter() - started) * 1000.0 if started is not None else None,
        agent=agent,
        task=task,
        crew=getattr(agent, "crew", None),
        framework=FRAMEWORK,
    )


def _task_of(fn: Wrapped, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    if args:
        return args[0]
    return kwargs.get("task")


def agent_turn(check: Wrapped) -> Wrapped:
    """``Agent.execute_task`` / ``aexecute_task`` / ``kickoff``: one turn of that agent,
    around `check` (the abort checkpoint or entry-point wrapper of that method)."""

    def sync_turn(wrapped: Wrapped, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if _in_turn.get() is instance or not turn_hooks_active():
            return check(wrapped, instance, args, kwargs)
        task = _task_of(wrapped, args, kwargs)
        token = _in_turn.set(instance)
        try:
            run_chain(TURN_START, _turn_context(instance, task, task))
            started = perf_counter()
            result = check(wrapped, instance, args, kwargs)
            ctx = run_chain(TURN_END, _turn_context(instance, task, result, result, started))
            return ctx.payload
        finally:
            _reset(_in_turn, token, None)

    async def async_turn(wrapped: Wrapped, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if _in_turn.get() is instance or not turn_hooks_active():
            return await check(wrapped, instance, args, kwargs)
        task = _task_of(wrapped, args, kwargs)
        token = _in_turn.set(instance)
        try:
            await arun_chain(TURN_START, _turn_context(instance, task, task))
            started = perf_counter()
            result = await check(wrapped, instance, args, kwargs)
            ctx = await arun_chain(TURN_END, _turn_context(instance, task, result, result, started))
            return ctx.payload
        finally:
            _reset(_in_turn, token, None)

    async def async_wrapper(wrapped: Wrapped, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        token = _agent.set(instance)
        try:
            return await async_turn(wrapped, instance, args, kwargs)
        finally:
            _reset(_agent, token, None)

    def choose(wrapped: Wrapped, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if inspect.iscoroutinefunction(wrapped):
            return async_wrapper(wrapped, instance, args, kwargs)
        token = _agent.set(instance)
        try:
            return sync_turn(wrapped, instance, args, kwargs)
        finally:
            _reset(_agent, token, None)

    return choose


# -- Task(async_execution=True) on releases that drop the context ------------------------------------------

_handed_over: dict[int, list[contextvars.Context]] = {}
_handover_lock = threading.Lock()


def task_execute_async(wrapped: Wrapped, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``Task.execute_async``: hand the caller's context to the thread it starts."""
    with _handover_lock:
        _handed_over.setdefault(id(instance), []).append(contextvars.copy_context())
    return wrapped(*args, **kwargs)


def task_execute_in_thread(wrapped: Wrapped, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``Task._execute_task_async`` (the thread's body): run it in the handed-over context."""
    with _handover_lock:
        waiting = _handed_over.get(id(instance))
        context = waiting.pop(0) if waiting else None
        if waiting is not None and not waiting:
            del _handed_over[id(instance)]
    if context is None:
        return wrapped(*args, **kwargs)
    return context.run(wrapped, *args, **kwargs)
