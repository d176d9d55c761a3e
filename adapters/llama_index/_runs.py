"""Executions: ``Workflow.run`` (agents, ``AgentWorkflow`` and any workflow), ended by the handler.

``run()`` returns a ``WorkflowHandler`` before anything runs; the run ends when the handler
completes. The wrapper of ``workflows.workflow:Workflow.run`` therefore

- fires EXECUTION_START / INPUT in ``run()`` itself, for the outermost run only (a run started
  by a tool or step of another run is part of it); an INPUT hook's new prompt (an agent's
  ``user_msg``, or the start event / keyword arguments of another workflow) is what the run gets;
- sets the run's state (`_state.RunState`) around the call, so the step tasks the workflow
  creates there carry it (they copy the context of ``run()``);
- attaches to the handler: when the workflow has produced its ``StopEvent`` (or failed),
  AGENT_TURN_END for the last open turn, OUTPUT and EXECUTION_END(completed) run before the
  handler resolves, so an OUTPUT replacement is what ``await handler`` returns; a failure fires
  EXECUTION_END(failed) and the handler raises the error unchanged. This happens whether or not
  anybody awaits the handler (a caller that only streams events ends the run too).

The handler differs between llama-index-workflows 1.x (0.13: an ``asyncio.Future`` the workflow
completes with ``set_result``) and 2.x (0.14: a result task); `_attach` handles both.
"""

from __future__ import annotations

import asyncio
import copy
import functools
from typing import Any

from hookport import boundary
from hookport.answers import register_answer_type
from hookport.registry import has_hooks
from hookport.reentry import is_suppressed

from hookport.adapters.llama_index._state import FRAMEWORK, RunState, agent_fields, current_run, model_calls

_TURN_POINTS = (boundary.TURN_START, boundary.TURN_END)


def run_workflow(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The wrapper of ``Workflow.run(ctx=None, start_event=None, **kwargs)``."""
    if is_suppressed() or _resumes(args, kwargs):
        return wrapped(*args, **kwargs)
    counts = model_calls.set({})  # this run's agents count their own model requests (`_state.next_model_call`)
    try:
        if current_run.get() is not None:  # a run nested in another: part of the outer execution
            return wrapped(*args, **kwargs)
        return _outermost(wrapped, instance, args, kwargs)
    finally:
        model_calls.reset(counts)


def _outermost(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    state = RunState()
    token = current_run.set(state)
    try:
        run = boundary.open_execution(FRAMEWORK, **agent_fields(instance)) \
            if boundary.boundary_hooks_active() else None
        if run is None:
            handler = wrapped(*args, **kwargs)
            if isinstance(handler, asyncio.Future) or any(has_hooks(p) for p in _TURN_POINTS):
                # 1.x: a hook's abort inside a step reaches the caller unwrapped (see `_hook_abort_in`)
                _attach(handler, lambda result: _finish(state, None, result), lambda error: _failed(state, None, error))
            return handler
        register_answers()
        try:
            prompt = run.begin(_prompt(args, kwargs))
            args, kwargs = _with_prompt(args, kwargs, prompt)
            handler = wrapped(*args, **kwargs)
        except BaseException as error:
            run.fail(error)
            raise
        finally:
            run.close()  # the caller's context: the run's tasks keep their own copy
        _attach(handler, lambda result: _finish(state, run, result), lambda error: _failed(state, run, error))
        return handler
    finally:
        current_run.reset(token)


def _resumes(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """A run resumed on a context that is already running belongs to that run."""
    ctx = kwargs.get("ctx", args[0] if args else None)
    return bool(getattr(ctx, "is_running", False))


# -- the prompt ------------------------------------------------------------------------------------


def _start_event(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    return kwargs.get("start_event", args[1] if len(args) > 1 else None)


def _prompt(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """An agent's ``user_msg``; for other workflows the start event, or the keyword arguments."""
    event = _start_event(args, kwargs)
    if event is not None:
        message = event.get("user_msg", None) if hasattr(event, "get") else None
        return message if message is not None else event
    return {k: v for k, v in kwargs.items() if k not in ("ctx", "start_event", "run_id")}


def _with_prompt(args: tuple[Any, ...], kwargs: dict[str, Any], prompt: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    event = _start_event(args, kwargs)
    if event is not None:
        if prompt is event or (hasattr(event, "get") and prompt is event.get("user_msg", None)):
            return args, kwargs
        from workflows.events import StartEvent

        if isinstance(prompt, StartEvent):
            new_event = prompt
        else:
            new_event = copy.copy(event)
            new_event._data = {**event._data, "user_msg": prompt}
        kwargs = {**kwargs, "start_event": new_event}
        return args[:1], kwargs
    if isinstance(prompt, dict):
        fixed = {k: v for k, v in kwargs.items() if k in ("ctx", "start_event", "run_id")}
        return args, {**fixed, **prompt}
    return args, kwargs


# -- the end of the run -------------------------------------------------------------------------------


async def close_turn(state: RunState, output: Any) -> None:
    """AGENT_TURN_END for the turn still open (the agent that answered)."""
    if not state.turn_fields:
        return
    fields, state.turn_fields = state.turn_fields, {}
    await boundary.apost_step(FRAMEWORK, boundary.AGENT_TURN, state.turn_agent, output, started=state.turn_started,
                              point=boundary.TURN_END, **fields)


async def _finish(state: RunState, run: boundary.Execution | None, result: Any) -> Any:
    try:
        await close_turn(state, result)
        return result if run is None else await run.asucceed(result)
    except BaseException as error:
        if run is not None:
            await run.afail(error)
        raise


async def _failed(state: RunState, run: boundary.Execution | None, error: BaseException) -> None:
    state.turn_fields = {}
    if run is not None:
        await run.afail(error)


def _attach(handler: Any, finish: Any, failed: Any) -> None:
    """Run `finish(result)` (its return is the run's result) or `failed(error)` before `handler` resolves."""
    if hasattr(handler, "_result_task"):
        _attach_task(handler, finish, failed)
    elif isinstance(handler, asyncio.Future):
        _attach_future(handler, finish, failed)


def _attach_task(handler: Any, finish: Any, failed: Any) -> None:
    """llama-index-workflows 2.x: the handler resolves with its ``_result_task`` (a ``StopEvent``)."""
    from workflows.events import StopEvent

    inner = handler._result_task

    async def ended() -> Any:
        try:
            stop = await inner
        except BaseException as error:
            await failed(error)
            raise
        if type(stop) is not StopEvent:
            return stop
        result = await finish(stop.result)
        if result is not stop.result:
            stop = StopEvent(result=result)
            handler._result = stop
        return stop

    task = asyncio.ensure_future(ended())
    task.add_done_callback(handler._handle_result_task_done)
    handler._result_task = task


def _attach_future(handler: asyncio.Future[Any], finish: Any, failed: Any) -> None:
    """llama-index-workflows 1.x: the workflow completes the handler with ``set_result`` / ``set_exception``."""
    set_result, set_exception = handler.set_result, handler.set_exception

    async def ended(result: Any) -> None:
        try:
            result = await finish(result)
        except BaseException as error:  # an OUTPUT hook's abort
            set_exception(error)
            return
        set_result(result)

    async def raised(error: BaseException) -> None:
        error = _hook_abort_in(error)
        await failed(error)
        set_exception(error)

    def on_result(result: Any) -> None:
        _keep(asyncio.ensure_future(ended(result)))

    def on_exception(error: BaseException) -> None:
        _keep(asyncio.ensure_future(raised(error)))

    handler.set_result = on_result  # type: ignore[method-assign]
    handler.set_exception = on_exception  # type: ignore[method-assign]


def _hook_abort_in(error: BaseException) -> BaseException:
    """The ``HookAborted`` that a 1.x workflow wrapped as ``WorkflowRuntimeError("Error in step ...")``
    (2.x raises it as it is): a hook's abort reaches the caller as itself on every release."""
    from hookport.errors import HookAborted

    cause: BaseException | None = error
    for _ in range(4):
        if cause is None or isinstance(cause, HookAborted):
            return cause or error
        cause = cause.__cause__
    return error


_pending: set[asyncio.Future[Any]] = set()


def _keep(task: asyncio.Future[Any]) -> None:
    """Hold a reference until the task is done (the loop keeps only weak ones)."""
    _pending.add(task)
    task.add_done_callback(_pending.discard)


# -- the answer's text ----------------------------------------------------------------------------------


def _output_text(output: Any) -> str | None:
    from hookport.adapters.llama_index._messages import message_text

    return message_text(output.response)


def _with_output_text(output: Any, text: str) -> Any:
    from hookport.adapters.llama_index._messages import with_text

    clone = output.model_copy()
    clone.response = with_text(output.response, text)
    return clone


@functools.cache
def register_answers() -> None:
    """Teach `OutputContext.text` an agent run's ``AgentOutput`` (once per process, on the first run)."""
    from llama_index.core.agent.workflow.workflow_events import AgentOutput

    register_answer_type(AgentOutput, _output_text, _with_output_text)
