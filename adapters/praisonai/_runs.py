"""Execution boundaries and steps on PraisonAI's entry points.

- ``Agent.start / astart / run / arun / chat / achat``: the outermost call is
  one execution (EXECUTION_START, INPUT ... OUTPUT, EXECUTION_END); every call
  is an agent turn, one step of kind ``"agent"`` (a turn that calls ``chat()``
  again inside, as ``start()`` does, stays one step).
- ``AgentTeam.start / astart`` (also reached as ``Agents`` and
  ``PraisonAIAgents``): the outermost call is one execution with
  ``crew=<the team>``.
- ``AgentTeam.execute_task / aexecute_task``: one step of kind ``"task"`` per
  task run.

``start(stream=True)`` hands back a generator: the execution and the step stay
open until it is exhausted or closed, and every chunk is produced inside the
call's context (so nested calls stay nested). OUTPUT cannot replace what was
already streamed; its hooks still see the joined text.
"""

from __future__ import annotations

import contextvars
import inspect
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import ExitStack
from typing import Any

from hookport.boundary import Execution, ReentrancyGuard, open_execution, post_step, pre_step

from hookport.adapters.praisonai._state import (
    FRAMEWORK,
    Latch,
    agent_name,
    agent_turn,
    run_scope,
)

_agent_steps = ReentrancyGuard("praisonai_agent_step")

Args = tuple[Any, ...]
Kwargs = dict[str, Any]


# -- the first argument of an entry point ------------------------------------------------


def _first_argument(args: Args, kwargs: Kwargs, name: str) -> Any:
    if args:
        return args[0]
    return kwargs.get(name)


def _with_first_argument(args: Args, kwargs: Kwargs, name: str, value: Any) -> tuple[Args, Kwargs]:
    if args:
        return (value, *args[1:]), kwargs
    if name in kwargs or value is not None:
        return args, {**kwargs, name: value}
    return args, kwargs


# -- one call, start to end ---------------------------------------------------------------


class _Call:
    """The execution (when outermost) and the step (when not already in one) of one call."""

    def __init__(self, stack: ExitStack, latch: Latch, *, step_kind: str | None, step_key: Any,
                 step_name: str | None, fields: dict[str, Any], execution_fields: dict[str, Any]) -> None:
        self.stack = stack
        self.latch = latch
        self.step_kind = step_kind
        self.step_key = step_key
        self.step_name = step_name
        self.fields = fields
        self.execution_fields = execution_fields
        self.run: Execution | None = None
        self.in_step = False

    def open(self, inputs: Any) -> Any:
        """EXECUTION_START + INPUT (outermost only), then PRE_STEP; returns the inputs to use."""
        self.run = open_execution(FRAMEWORK, **self.execution_fields)
        if self.run is not None:
            self.stack.callback(self.run.close)
            inputs = self.run.begin(inputs)
        if self.step_kind is not None and not _agent_steps.held(self.step_key):
            self.stack.enter_context(_agent_steps.hold(self.step_key))
            self.in_step = True
            inputs = pre_step(FRAMEWORK, self.step_kind, self.step_name, inputs, **self.fields)
        return inputs

    def finish(self, output: Any) -> Any:
        """POST_STEP, then OUTPUT + EXECUTION_END; raises the run's abort instead when there is one."""
        self.latch.check()
        if self.in_step:
            output = post_step(FRAMEWORK, self.step_kind, self.step_name, output, **self.fields)  # type: ignore[arg-type]
        if self.run is not None:
            output = self.run.succeed(output)
        return output

    def fail(self, error: BaseException) -> BaseException:
        """EXECUTION_END(failed); returns the error to raise (the run's abort wins)."""
        kept = self.latch.error if self.latch.error is not None else error
        if self.run is not None:
            self.run.fail(kept)
        return kept


def _raise(kept: BaseException, error: BaseException) -> None:
    if kept is error:
        raise error
    raise kept from error


def run_sync(wrapped: Callable[..., Any], args: Args, kwargs: Kwargs, arg_name: str,
             make_call: Callable[[ExitStack, Latch], _Call], enter: Callable[[ExitStack], None]) -> Any:
    with ExitStack() as stack:
        latch = stack.enter_context(run_scope())
        enter(stack)
        call = make_call(stack, latch)
        try:
            inputs = call.open(_first_argument(args, kwargs, arg_name))
            args, kwargs = _with_first_argument(args, kwargs, arg_name, inputs)
            result = wrapped(*args, **kwargs)
            if inspect.isgenerator(result):
                return _stream(result, call, contextvars.copy_context())
            return call.finish(result)
        except BaseException as error:
            _raise(call.fail(error), error)


async def run_async(wrapped: Callable[..., Any], args: Args, kwargs: Kwargs, arg_name: str,
                    make_call: Callable[[ExitStack, Latch], _Call], enter: Callable[[ExitStack], None]) -> Any:
    with ExitStack() as stack:
        latch = stack.enter_context(run_scope())
        enter(stack)
        call = make_call(stack, latch)
        try:
            inputs = call.open(_first_argument(args, kwargs, arg_name))
            args, kwargs = _with_first_argument(args, kwargs, arg_name, inputs)
            result = await wrapped(*args, **kwargs)
            if inspect.isasyncgen(result):
                return _astream(result, call, contextvars.copy_context())
            return call.finish(result)
        except BaseException as error:
            _raise(call.fail(error), error)


def _stream(chunks: Iterator[Any], call: _Call, context: contextvars.Context) -> Iterator[Any]:
    """Yield the framework's chunks, each produced inside the call's context; end the call at the end."""
    seen: list[str] = []
    try:
        while True:
            try:
                chunk = context.run(next, chunks)
            except StopIteration:
                break
            if isinstance(chunk, str):
                seen.append(chunk)
            yield chunk
    except BaseException as error:
        if isinstance(error, GeneratorExit):
            chunks.close()
        kept = context.run(call.fail, error)
        if isinstance(error, GeneratorExit):
            raise
        _raise(kept, error)
    else:
        _finish_in(context, call, "".join(seen))


def _finish_in(context: contextvars.Context, call: _Call, output: str) -> None:
    """POST_STEP, OUTPUT, END after the last chunk; an abort there still ends the run as failed."""
    try:
        context.run(call.finish, output)
    except BaseException as error:
        _raise(context.run(call.fail, error), error)


async def _astream(chunks: AsyncIterator[Any], call: _Call, context: contextvars.Context) -> AsyncIterator[Any]:
    seen: list[str] = []
    try:
        while True:
            try:
                chunk = await _in_context(chunks.__anext__(), context)
            except StopAsyncIteration:
                break
            if isinstance(chunk, str):
                seen.append(chunk)
            yield chunk
    except BaseException as error:
        kept = context.run(call.fail, error)
        if isinstance(error, GeneratorExit):
            raise
        _raise(kept, error)
    else:
        _finish_in(context, call, "".join(seen))


async def _in_context(step: Any, context: contextvars.Context) -> Any:
    import asyncio

    loop = asyncio.get_running_loop()
    try:
        task = loop.create_task(step, context=context)  # type: ignore[call-arg]
    except TypeError:  # Python 3.10 has no context= here
        task = loop.create_task(step)
    return await task


# -- wrappers ---------------------------------------------------------------------------------


def _agent_call(agent: Any) -> Callable[[ExitStack, Latch], _Call]:
    name = agent_name(agent)
    fields = {"agent": agent, "agent_role": name}

    def make(stack: ExitStack, latch: Latch) -> _Call:
        return _Call(stack, latch, step_kind="agent", step_key=id(agent), step_name=name,
                     fields=fields, execution_fields=fields)

    return make


def _enter_turn(agent: Any) -> Callable[[ExitStack], None]:
    return lambda stack: stack.enter_context(agent_turn(agent))  # type: ignore[func-returns-value]


def agent_entry(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``Agent.start / run / chat``."""
    if instance is None:
        return wrapped(*args, **kwargs)
    return run_sync(wrapped, args, kwargs, "prompt", _agent_call(instance), _enter_turn(instance))


def agent_aentry(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``Agent.astart / arun / achat``."""
    if instance is None:
        return wrapped(*args, **kwargs)
    return run_async(wrapped, args, kwargs, "prompt", _agent_call(instance), _enter_turn(instance))


def _team_call(team: Any) -> Callable[[ExitStack, Latch], _Call]:
    def make(stack: ExitStack, latch: Latch) -> _Call:
        return _Call(stack, latch, step_kind=None, step_key=None, step_name=None,
                     fields={"crew": team}, execution_fields={"crew": team})

    return make


def _no_turn(stack: ExitStack) -> None:
    return None


def team_entry(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``AgentTeam.start``."""
    if instance is None:
        return wrapped(*args, **kwargs)
    return run_sync(wrapped, args, kwargs, "content", _team_call(instance), _no_turn)


def team_aentry(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``AgentTeam.astart``."""
    if instance is None:
        return wrapped(*args, **kwargs)
    return run_async(wrapped, args, kwargs, "content", _team_call(instance), _no_turn)


# -- task steps ---------------------------------------------------------------------------------


def _task_of(team: Any, args: Args, kwargs: Kwargs) -> Any:
    task_id = _first_argument(args, kwargs, "task_id")
    tasks = getattr(team, "tasks", None)
    try:
        return tasks[task_id] if tasks is not None else None
    except (KeyError, IndexError, TypeError):
        return None


def _task_name(task: Any, args: Args, kwargs: Kwargs) -> str:
    name = getattr(task, "name", None)
    if isinstance(name, str) and name:
        return name
    return f"task {_first_argument(args, kwargs, 'task_id')}"


class _TaskStep:
    """PRE_STEP with the task's description (a replaced one is used for this run only), POST_STEP with its output."""

    def __init__(self, team: Any, args: Args, kwargs: Kwargs) -> None:
        self.task = _task_of(team, args, kwargs)
        self.name = _task_name(self.task, args, kwargs)
        agent = getattr(self.task, "agent", None)
        self.fields = {"task": self.task, "crew": team, "agent": agent, "agent_role": agent_name(agent)}
        self.original = getattr(self.task, "description", None)

    def begin(self) -> None:
        replaced = pre_step(FRAMEWORK, "task", self.name, self.original, **self.fields)
        if self.task is not None and replaced is not self.original and isinstance(replaced, str):
            self.task.description = replaced

    def restore(self) -> None:
        if self.task is not None and getattr(self.task, "description", None) is not self.original:
            self.task.description = self.original

    def end(self, output: Any) -> Any:
        return post_step(FRAMEWORK, "task", self.name, output, **self.fields)


def task_step(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``AgentTeam.execute_task``."""
    if instance is None:
        return wrapped(*args, **kwargs)
    with run_scope() as latch:
        step = _TaskStep(instance, args, kwargs)
        step.begin()
        try:
            output = wrapped(*args, **kwargs)
        finally:
            step.restore()
        latch.check()
        return step.end(output)


async def _atask_step(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    with run_scope() as latch:
        step = _TaskStep(instance, args, kwargs)
        step.begin()
        try:
            output = await wrapped(*args, **kwargs)
        finally:
            step.restore()
        latch.check()
        return step.end(output)


def task_astep(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``AgentTeam.aexecute_task``."""
    if instance is None:
        return wrapped(*args, **kwargs)
    return _atask_step(wrapped, instance, args, kwargs)
