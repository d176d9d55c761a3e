"""Executions, steps, agent turns and handoffs of the Agents SDK's run loop.

- ``AgentRunner.run`` is an execution (START / INPUT before the loop, OUTPUT /
  END after it, async hooks awaited on the run's loop). ``Runner.run_sync``
  runs ``AgentRunner.run_sync``, which runs ``self.run`` on its event loop, so
  it is the same execution, with the same async dispatch.
- ``AgentRunner.run_streamed`` returns at once and runs the loop in a
  background task (``agents.run.start_streaming``): START / INPUT fire in
  ``run_streamed`` (an abort raises there, and a replaced input is what the
  run starts from), OUTPUT / END when the loop task ends, i.e. when the
  caller has drained the stream (``stream_events`` waits for the task), or
  when it cancelled the run (END ``failed`` with the ``CancelledError``). An
  error the SDK stores for the stream (``_stored_exception``) ends the run as
  failed, and an abort at OUTPUT / END is stored there so the stream raises it.
- Every SDK turn (``run_single_turn`` / ``run_single_turn_streamed``: one model
  request and the tools it asked for) is a step, ``kind="turn"``, named after
  the agent; AGENT_TURN_START / AGENT_TURN_END bracket the turns of one agent
  (a run without handoffs is one agent turn). A handoff
  (``turn_resolution.execute_handoffs``) is a step ``kind="handoff"`` named
  after the agent taking over.
"""

from __future__ import annotations

from contextvars import ContextVar
from time import perf_counter
from typing import Any

from hookport.boundary import (
    AGENT_TURN,
    TURN_END,
    TURN_START,
    Execution,
    apost_step,
    apre_step,
    open_execution,
)
from hookport.errors import HookAborted
from hookport.points import InterceptionPoint
from hookport.registry import any_hooks, has_hooks

from hookport.adapters.openai_agents._state import (
    FRAMEWORK,
    RunScope,
    agent_name,
    check_latch,
    current_scope,
    record,
    reset,
    reset_scope,
    set_scope,
)

Args = tuple[Any, ...]
Kwargs = dict[str, Any]
PRE_STEP = InterceptionPoint.PRE_STEP
POST_STEP = InterceptionPoint.POST_STEP
TURN = "turn"
HANDOFF = "handoff"

_streamed: ContextVar[Execution | None] = ContextVar("hookport_openai_agents_streamed", default=None)
"""The execution a ``run_streamed`` call opened, for its loop task (``start_streaming``) to end."""


def _fields(agent: Any) -> dict[str, Any]:
    return {"agent": agent, "agent_role": agent_name(agent)}


def _argument(args: Args, kwargs: Kwargs, index: int, name: str) -> Any:
    return args[index] if len(args) > index else kwargs.get(name)


def _with_argument(args: Args, kwargs: Kwargs, index: int, name: str, value: Any) -> tuple[Args, Kwargs]:
    if len(args) > index:
        return (*args[:index], value, *args[index + 1:]), kwargs
    return args, {**kwargs, name: value}


def surfaced(error: BaseException) -> BaseException:
    """The hook abort behind `error`, when the SDK wrapped it (a tool's failure becomes
    ``UserError("Error running tool ...")`` raised from it); otherwise `error` itself."""
    current: BaseException | None = error
    for _ in range(8):
        if current is None:
            break
        if isinstance(current, HookAborted):
            return current
        current = current.__cause__
    return error


def _apply_output(result: Any, output: Any) -> Any:
    """What the caller gets after OUTPUT / END hooks returned `output` for `result`."""
    if output is result:
        return result
    if isinstance(output, str) and hasattr(result, "final_output"):
        result.final_output = output  # a result the SDK made for this call; the caller has not seen it
        return result
    return output


# -- agent turns ------------------------------------------------------------------------------------


async def _end_turn(scope: RunScope | None, output: Any = None, *, failed: bool = False) -> None:
    """AGENT_TURN_END for the agent holding the turn (at a handoff or the end of the run)."""
    if scope is None or scope.turn_agent is None:
        return
    agent, started = scope.turn_agent, scope.turn_started
    scope.turn_agent = None
    if not has_hooks(TURN_END):
        return
    try:
        await apost_step(FRAMEWORK, AGENT_TURN, agent_name(agent), output, started=started, point=TURN_END,
                         **_fields(agent))
    except Exception:
        if not failed:
            raise  # an abort at the end of a turn fails the run; on a failed run nothing is left to abort


async def _enter_turn(scope: RunScope, agent: Any, payload: Any) -> None:
    if scope.turn_agent is agent:
        return
    await _end_turn(scope)
    scope.take_turn(agent)
    if has_hooks(TURN_START):
        await apre_step(FRAMEWORK, AGENT_TURN, agent_name(agent), payload, point=TURN_START, **_fields(agent))


# -- AgentRunner.run (and run_sync, which runs it) ----------------------------------------------------

_BEGIN = (InterceptionPoint.EXECUTION_START, InterceptionPoint.INPUT)
_SUCCEED = (InterceptionPoint.OUTPUT, InterceptionPoint.EXECUTION_END)


async def _run(wrapped: Any, args: Args, kwargs: Kwargs) -> Any:
    agent = _argument(args, kwargs, 0, "starting_agent")
    scope = RunScope(current_scope())
    token = set_scope(scope)
    run = open_execution(FRAMEWORK, **_fields(agent))
    try:
        if run is None:  # nested in another execution (an agent used as a tool): turns and steps only
            try:
                result = await wrapped(*args, **kwargs)
            except BaseException as error:
                await _end_turn(scope, failed=True)
                kept = surfaced(error)
                if kept is not error:
                    raise kept from None
                raise
            await _end_turn(scope, result)
            return result
        try:
            given = _argument(args, kwargs, 1, "input")
            inputs = await run.abegin(given) if any_hooks(_BEGIN) else run.begin(given)  # no hook: no coroutine
            if inputs is not given:
                args, kwargs = _with_argument(args, kwargs, 1, "input", inputs)
            result = await wrapped(*args, **kwargs)
            check_latch()  # an abort a tool's error handling turned into a tool output
            await _end_turn(scope, result)
            output = await run.asucceed(result) if any_hooks(_SUCCEED) else run.succeed(result)
            return _apply_output(result, output)
        except BaseException as error:
            kept = surfaced(error)
            await _end_turn(scope, failed=True)
            await run.afail(kept)
            if kept is not error:
                raise kept from None
            raise
        finally:
            run.close()
    finally:
        reset_scope(token)


def run_entry(wrapped: Any, instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``AgentRunner.run``."""
    return _run(wrapped, args, kwargs)


# -- AgentRunner.run_streamed + start_streaming --------------------------------------------------------------


def run_streamed_entry(wrapped: Any, instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``AgentRunner.run_streamed``: START / INPUT now; the loop task ends the execution."""
    agent = _argument(args, kwargs, 0, "starting_agent")
    scope_token = set_scope(RunScope(current_scope()))  # the loop task copies this context
    run = open_execution(FRAMEWORK, **_fields(agent))
    streamed_token = None
    try:
        if run is not None:
            inputs = run.begin(_argument(args, kwargs, 1, "input"))
            args, kwargs = _with_argument(args, kwargs, 1, "input", inputs)
            streamed_token = _streamed.set(run)
        return wrapped(*args, **kwargs)
    except BaseException as error:
        if run is not None:
            run.fail(error)
        raise
    finally:
        if streamed_token is not None:
            reset(_streamed, streamed_token)
        if run is not None:
            run.close()  # the caller's context; the loop task keeps its copy
        reset_scope(scope_token)


def _streamed_result(args: Args, kwargs: Kwargs) -> Any:
    found = kwargs.get("streamed_result")
    if found is None:
        found = next((a for a in args if hasattr(a, "_event_queue")), None)
    return found


async def _stream_loop(wrapped: Any, args: Args, kwargs: Kwargs, run: Execution | None) -> Any:
    _streamed.set(None)  # this task's copy: a run nested in one of its tools is not ours to end
    scope = current_scope()
    result = _streamed_result(args, kwargs)
    try:
        value = await wrapped(*args, **kwargs)
    except BaseException as error:
        await _end_turn(scope, failed=True)
        if run is not None:
            await run.afail(error)
        raise
    stored = getattr(result, "_stored_exception", None)
    if stored is None and scope is not None and scope.latch.error is not None:
        stored = scope.latch.error  # an abort a tool's error handling turned into a tool output
    if stored is not None:
        stored = surfaced(stored)
        result._stored_exception = stored
        await _end_turn(scope, failed=True)
        if run is not None:
            await run.afail(stored)
        return value
    try:
        await _end_turn(scope, result)
        if run is not None:
            output = await run.asucceed(result)
            if output is not result and result is not None:
                final = output if isinstance(output, str) else getattr(output, "final_output", output)
                result.final_output = final
    except Exception as error:
        if run is not None:
            await run.afail(error)
        if result is not None and getattr(result, "_stored_exception", None) is None:
            result._stored_exception = error  # stream_events raises it once the stream is drained
        raise
    return value


def start_streaming(wrapped: Any, instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``agents.run.start_streaming`` (the loop of a streamed run, in its own task)."""
    return _stream_loop(wrapped, args, kwargs, _streamed.get())


# -- steps ---------------------------------------------------------------------------------------------------


def _bindings_agent(args: Args, kwargs: Kwargs) -> Any:
    bindings = kwargs.get("bindings")
    if bindings is None:
        bindings = next((a for a in args if hasattr(a, "public_agent")), None)
    return getattr(bindings, "public_agent", None)


_STEP_POINTS = (PRE_STEP, POST_STEP, TURN_START, TURN_END)


async def _turn(wrapped: Any, args: Args, kwargs: Kwargs, scope: RunScope, agent: Any) -> Any:
    try:
        return await _hooked_turn(wrapped, args, kwargs, scope, agent)
    except HookAborted as error:
        record(error)
        raise


async def _hooked_turn(wrapped: Any, args: Args, kwargs: Kwargs, scope: RunScope, agent: Any) -> Any:
    await _enter_turn(scope, agent, agent)
    name = agent_name(agent)
    await apre_step(FRAMEWORK, TURN, name, agent, **_fields(agent))
    started = perf_counter()
    result = await wrapped(*args, **kwargs)
    await apost_step(FRAMEWORK, TURN, name, result, started=started, **_fields(agent))
    return result


def turn_step(wrapped: Any, instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``run_single_turn`` / ``run_single_turn_streamed``."""
    scope = current_scope()
    if scope is None:  # a turn outside a run we saw (the SDK called it some other way)
        return wrapped(*args, **kwargs)
    agent = _bindings_agent(args, kwargs)
    scope.step_agent = agent
    if not any(has_hooks(point) for point in _STEP_POINTS):
        if scope.turn_agent is not agent:
            scope.take_turn(agent)
        return wrapped(*args, **kwargs)  # the SDK's own coroutine: no extra frame
    return _turn(wrapped, args, kwargs, scope, agent)


async def _handoff(wrapped: Any, args: Args, kwargs: Kwargs) -> Any:
    handoffs = kwargs.get("run_handoffs") or []
    handoff = getattr(handoffs[0], "handoff", None) if handoffs else None
    target = getattr(handoff, "agent_name", None)
    agent = kwargs.get("public_agent")
    await apre_step(FRAMEWORK, HANDOFF, target, handoff, **_fields(agent))
    started = perf_counter()
    result = await wrapped(*args, **kwargs)
    new_agent = getattr(getattr(result, "next_step", None), "new_agent", None)
    name = agent_name(new_agent) or target
    await apost_step(FRAMEWORK, HANDOFF, name, result, started=started, **_fields(agent))
    return result


def handoff_step(wrapped: Any, instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``turn_resolution.execute_handoffs``."""
    return _handoff(wrapped, args, kwargs)
