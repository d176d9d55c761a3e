"""Runs, agent turns and steps (event loop cycles) of Strands.

- ``Agent.stream_async`` is every run: ``agent(...)`` drives ``invoke_async`` on Strands'
  thread (with a copy of the caller's context), and ``invoke_async`` drains
  ``stream_async``. The outermost run is the execution: START/INPUT before the first
  event (INPUT may replace a text prompt), OUTPUT/END at the run's ``{"result": AgentResult}``
  event, before it is passed on (a replacement reaches the caller as a copy of that event;
  ``agent.messages`` keeps what the model said), while Strands' state is still the run's:
  an agent used as a tool reads its cancel signal as it takes that event, and Strands clears
  it once ``stream_async`` ends. END(failed) when the run raises or the caller closes it. A ``HookAborted`` that Strands wrapped in its ``EventLoopException``
  leaves the run as itself.
- Every ``stream_async`` (an agent used as a tool of another too) is one agent turn
  (AGENT_TURN_START / AGENT_TURN_END, named by the agent's ``name``).
- ``event_loop_cycle`` is one step (``kind="event_loop_cycle"``): one model request and
  the tools it asked for. Strands recurses into the next cycle from inside the last one;
  the adapter closes a cycle's step when the next one opens, so steps come in order and
  never nest. The first cycle is called through the name ``strands.agent.agent`` imported,
  the others through ``strands.event_loop.event_loop``: both names are patched.
"""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import AsyncIterator
from contextvars import ContextVar
from time import perf_counter
from typing import Any

from hookport import boundary, registry
from hookport.adapters.strands._messages import blocks_text, message_with_text
from hookport.adapters.strands._state import FRAMEWORK, agent_fields, new_invocation
from hookport.answers import register_answer_type
from hookport.boundary import Execution, boundary_hooks_active, current_execution, entered, open_execution
from hookport.errors import HookAborted
from hookport.points import EXECUTION_BOUNDARY_POINTS, InterceptionPoint
from hookport.registry import any_hooks, has_hooks

P = InterceptionPoint
STEP_KIND = "event_loop_cycle"
_STEP_POINTS = (P.PRE_STEP, P.POST_STEP)
_END_POINTS = (P.OUTPUT, P.EXECUTION_END)


# -- runs and turns -------------------------------------------------------------------------------


def _turn_hooks() -> bool:
    return has_hooks(boundary.TURN_START) or has_hooks(boundary.TURN_END)


_RUN_POINTS = (*EXECUTION_BOUNDARY_POINTS, boundary.TURN_START, boundary.TURN_END)

_UNWRAPPED_BY: ContextVar[list[Any] | None] = ContextVar("hookport_strands_unwrapped_by", default=None)
"""``[agent]``: the agent whose ``invoke_async`` is draining the ``stream_async`` it is about to start
(that coroutine leaves a ``HookAborted`` as itself, so the stream needs no generator of ours around
it). The stream empties the list as it starts: for that stream only, not for a later one of the same
agent inside it, and with no second context write per run."""


def run_entry(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``Agent.stream_async(prompt, ...)``: a turn of `instance`; the outermost one is the execution."""
    new_invocation(instance)
    if not registry._global and not registry._open_scopes:  # nothing registered: straight through
        return wrapped(*args, **kwargs)
    invoking = _UNWRAPPED_BY.get()
    drained_by_invoke = invoking is not None and invoking[0] is instance
    if drained_by_invoke:
        invoking[0] = None
    observed = any_hooks(_RUN_POINTS)  # no run or turn hook (a model or tool policy): one registry call, not seven
    outer = observed and current_execution() is None and boundary_hooks_active()
    if not outer and not (observed and _turn_hooks()):
        if drained_by_invoke:  # invoke_async unwraps an abort itself: one frame per run, not one per event
            return wrapped(*args, **kwargs)
        return _unwrapping(wrapped(*args, **kwargs))
    return _run(wrapped, instance, args, kwargs, outer)


def invoke_entry(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``Agent.invoke_async(prompt, ...)`` (``agent(...)`` runs it too): it drains ``stream_async``,
    and a hook's ``HookAborted`` leaves it as itself."""
    if not registry._global and not registry._open_scopes:
        return wrapped(*args, **kwargs)
    return _invoking(wrapped, instance, args, kwargs)


async def _invoking(wrapped: Any, agent: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    token = _UNWRAPPED_BY.set([agent])
    try:
        return await wrapped(*args, **kwargs)
    except Exception as error:
        if _unwrapped(error) is not error:
            raise _unwrapped(error) from None
        raise
    finally:
        _UNWRAPPED_BY.reset(token)


async def _unwrapping(events: Any) -> AsyncIterator[Any]:
    """The run's events; a hook's ``HookAborted`` leaves the run as itself."""
    try:
        async for event in events:
            yield event
    except Exception as error:
        if _unwrapped(error) is not error:
            raise _unwrapped(error) from None
        raise
    finally:
        await events.aclose()


async def _run(wrapped: Any, agent: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
               outer: bool) -> AsyncIterator[Any]:
    run = open_execution(FRAMEWORK, **agent_fields(agent)) if outer else None
    if run is not None:
        try:
            args, kwargs = await _begin(run, args, kwargs)
        except BaseException as error:
            await run.afail(error)  # INPUT aborted after START: END pairs it
            raise
        finally:
            run.close()
    name, fields = getattr(agent, "name", None), agent_fields(agent)
    turn_started = perf_counter()
    with entered(run):
        await boundary.apre_step(FRAMEWORK, boundary.AGENT_TURN, name, _prompt(args, kwargs),
                                 point=boundary.TURN_START, **fields)
    ended = False
    events = wrapped(*args, **kwargs)
    try:
        while True:
            with entered(run):
                try:
                    event = await events.__anext__()
                except StopAsyncIteration:
                    break
            if not ended and _is_result(event):
                # the run ends at its result event, while Strands' own state is still the run's (the cancel
                # signal an agent-as-tool reads next is cleared once stream_async ends)
                ended = True
                event = await _end(run, name, fields, turn_started, event)
            yield event
        if not ended:  # a stream with no result event
            final = await _end(run, name, fields, turn_started, None)
            if final is not None:
                yield final
    except GeneratorExit:
        with entered(run):
            await events.aclose()
            if run is not None:
                await run.afail(GeneratorExit("the caller closed the event stream"))
        raise
    except BaseException as error:
        with entered(run):
            await events.aclose()
            if run is not None:
                await run.afail(_unwrapped(error))
        if _unwrapped(error) is not error:
            raise _unwrapped(error) from None
        raise


async def _end(run: Execution | None, name: Any, fields: dict[str, Any], started: float, held: Any) -> Any:
    """AGENT_TURN_END, then OUTPUT / END for an execution: the result event the caller gets (a replaced
    result becomes a copy of the event), or None for a stream without one and nothing to end."""
    result = held.get("result") if held is not None else None
    with entered(run):
        await boundary.apost_step(FRAMEWORK, boundary.AGENT_TURN, name, result, started=started,
                                  point=boundary.TURN_END, **fields)
        if run is None:
            return held
        final = await run.asucceed(result)
    if held is None and not any(has_hooks(p) for p in _END_POINTS):
        return None
    return _as_result_event(final, held)


def _unwrapped(error: BaseException) -> BaseException:
    """A hook's ``HookAborted`` that Strands wrapped in an ``EventLoopException``, as itself."""
    original = getattr(error, "original_exception", None)
    return original if isinstance(original, HookAborted) else error


def _prompt(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    return args[0] if args else kwargs.get("prompt")


async def _begin(run: Execution, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """START / INPUT with the prompt (a string, content blocks or messages); a replacement becomes the prompt."""
    given = _prompt(args, kwargs)
    replaced = await run.abegin(given)
    if replaced is given:
        return args, kwargs
    if args:
        return (replaced, *args[1:]), kwargs
    return args, {**kwargs, "prompt": replaced}


def _is_result(event: Any) -> bool:
    return isinstance(event, dict) and "result" in event and _is_agent_result(event["result"])


def _is_agent_result(value: Any) -> bool:
    return type(value).__name__ == "AgentResult" and hasattr(value, "message")


def _as_result_event(final: Any, held: Any) -> Any:
    """What OUTPUT / END left, as the stream's result event (a string becomes a copy of the result)."""
    if held is None:
        return {"result": final}
    result = held["result"]
    if final is result:
        return held
    if isinstance(final, str):
        final = result_with_text(result, final)
    return {**held, "result": final}


def result_text(result: Any) -> str | None:
    message = getattr(result, "message", None) or {}
    return blocks_text(list(message.get("content") or ()))


def result_with_text(result: Any, text: str) -> Any:
    """A copy of an ``AgentResult`` whose message text is `text`; the agent's history keeps the original."""
    return dataclasses.replace(result, message=message_with_text(result.message, text))


_answers_registered = False


def register_answers(module: Any) -> None:
    """`OutputContext.text` reads and replaces an ``AgentResult``'s text (once per process)."""
    global _answers_registered
    if not _answers_registered:
        register_answer_type(module.AgentResult, result_text, result_with_text)
        _answers_registered = True


# -- steps: one per event loop cycle ------------------------------------------------------------


class _OpenStep:
    __slots__ = ("name", "started")

    def __init__(self, name: str, started: float) -> None:
        self.name = name
        self.started = started


_open_steps: weakref.WeakKeyDictionary[Any, _OpenStep] = weakref.WeakKeyDictionary()
_cycles: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()


def event_loop_step(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``event_loop_cycle(agent=..., invocation_state=..., ...)``: one step."""
    if not registry._global and not registry._open_scopes or not any_hooks(_STEP_POINTS):
        return wrapped(*args, **kwargs)  # the first test: nothing registered at all, no call
    agent = kwargs.get("agent", args[0] if args else None)
    return _step(wrapped(*args, **kwargs), agent)


async def _step(events: Any, agent: Any) -> AsyncIterator[Any]:
    count = _cycles.get(agent, 0) + 1 if agent in _open_steps else 1
    await _close_step(agent)  # the cycle this one recursed from is done: its tools have run
    _cycles[agent] = count
    fields = agent_fields(agent)
    name = f"{fields['agent_role']} cycle {count}"
    started = perf_counter()
    await boundary.apre_step(FRAMEWORK, STEP_KIND, name, _last_text(agent), **fields)
    step = _open_steps[agent] = _OpenStep(name, started)
    try:
        async for event in events:
            yield event
    except BaseException:
        if _open_steps.get(agent) is step:
            del _open_steps[agent]
        raise
    finally:
        await events.aclose()
    if _open_steps.get(agent) is step:
        await _close_step(agent)


async def _close_step(agent: Any) -> None:
    step = _open_steps.pop(agent, None)
    if step is not None:
        await boundary.apost_step(FRAMEWORK, STEP_KIND, step.name, _last_text(agent), started=step.started,
                                  **agent_fields(agent))


def _last_text(agent: Any) -> str | None:
    messages = getattr(agent, "messages", None) or []
    return blocks_text(list(messages[-1].get("content") or ())) if messages else None
