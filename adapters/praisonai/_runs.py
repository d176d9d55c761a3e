"""Execution boundaries, agent turns and steps on PraisonAI's entry points.

- ``Agent.start / astart / run / arun / chat / achat``: the outermost call is
  one execution (EXECUTION_START, INPUT ... OUTPUT, EXECUTION_END, with
  `duration_ms`); every new turn fires AGENT_TURN_START / AGENT_TURN_END and
  one step of kind ``"agent"`` (PRE_STEP / POST_STEP) with the agent's name.
  A call that continues a turn (``start()`` calling ``chat()`` inside) stays
  that turn; a call made from inside a tool (an agent used as a tool, or a
  tool that calls its own agent again) is a new turn.
- ``AgentTeam.start / astart`` (also reached as ``Agents`` and
  ``PraisonAIAgents``): the outermost call is one execution with
  ``crew=<the team>``.
- ``AgentTeam.execute_task / aexecute_task``: one step of kind ``"task"`` per
  task run.

An abort at a turn or step point, like one at a model or tool point, is
sticky for the run: it is kept in the run's latch, every later turn, request
or tool call of the run raises it at once (so PraisonAI's tool retries do not
run the hook again), and the outermost entry point raises it.

``Agent(hooks=<hookport HookRegistry>)`` (or a list holding hookport-dialect
middleware, or a PraisonAI ``HooksConfig(registry=...)`` holding one) gives
that agent private hooks: they are scoped to that agent's turns
(`HookRegistry.activate()`), and an agent of another name run inside them
(from a tool) does not see them.

``start(stream=True)`` hands back a generator: the execution and the turn stay
open until it is exhausted or closed, and every chunk is produced inside the
call's context (so nested calls stay nested). OUTPUT cannot replace what was
already streamed; its hooks still see the joined text.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
from collections.abc import AsyncIterator, Callable, Generator, Iterator
from contextlib import AbstractContextManager, contextmanager
from time import perf_counter
from typing import Any

from hookport import registry as _registry
from hookport.boundary import (
    AGENT_TURN,
    TURN_END,
    TURN_START,
    Execution,
    apost_step,
    apre_step,
    open_execution,
    post_step,
    pre_step,
)
from hookport.contexts import StepContext
from hookport.dispatch import adispatch, dispatch
from hookport.points import InterceptionPoint, Point
from hookport.registry import has_hooks, scoped_hooks

from hookport.adapters.praisonai._state import (
    FRAMEWORK,
    AgentTurn,
    agent_name,
    check_latch,
    close_latch,
    continues_turn,
    current_latch,
    enter_turn,
    hooks_anywhere,
    leave_turn,
    open_latch,
    record,
    run_scope,
)

P = InterceptionPoint
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


# -- an agent's private hooks --------------------------------------------------------------


_registry_type: list[Any] = []


def _hookport_registry_type() -> Any:
    """hookport's dialect `HookRegistry` (imported on first use: most runs never need the dialect)."""
    if not _registry_type:
        from hookport.compat.praisonai import HookRegistry

        _registry_type.append(HookRegistry)
    return _registry_type[0]


def private_hooks(agent: Any) -> AbstractContextManager[Any] | None:
    """The block that scopes `agent`'s own hookport hooks, or None when it has none.

    ``Agent(hooks=...)`` keeps the value as ``_hooks_registry_param`` (every
    supported release; a ``HooksConfig``'s registry on 1.7, the ``HooksConfig``
    itself before) and a list as ``_hooks``. A hookport `HookRegistry` is activated; list items that carry
    ``__hookport_point__`` (hookport-dialect middleware) are scoped hooks of that point.
    """
    param = getattr(agent, "_hooks_registry_param", None)
    if param is None:
        return None
    registry_type = _hookport_registry_type()
    if isinstance(param, registry_type):
        return param.activate()  # type: ignore[no-any-return]
    nested = getattr(param, "registry", None)  # a HooksConfig kept whole (1.5, 1.6)
    if isinstance(nested, registry_type):
        return nested.activate()  # type: ignore[no-any-return]
    items = getattr(agent, "_hooks", None)
    if not isinstance(items, list):
        items = param if isinstance(param, list) else ()
    grouped: dict[Point, list[Any]] = {}
    for item in items:
        point = getattr(item, "__hookport_point__", None)
        if point is not None:
            grouped.setdefault(point, []).append(item)
        elif isinstance(item, registry_type):
            return item.activate()  # type: ignore[no-any-return]
    return scoped_hooks(grouped) if grouped else None


class _Private:
    """Whose private hooks are active, and the scope that was current before them."""

    __slots__ = ("agent", "base")

    def __init__(self, agent: Any, base: Any) -> None:
        self.agent = agent
        self.base = base


_private: contextvars.ContextVar[_Private | None] = contextvars.ContextVar("hookport_praisonai_private",
                                                                          default=None)


@contextmanager
def _private_scope(agent: Any, private: AbstractContextManager[Any] | None) -> Iterator[None]:
    """A new turn of `agent`: drop another agent's private hooks, then activate its own."""
    tokens: list[tuple[contextvars.ContextVar[Any], contextvars.Token[Any]]] = []
    outer = _private.get()
    if outer is not None and outer.agent is not agent:
        tokens.append((_registry._scope, _registry._scope.set(outer.base)))
        tokens.append((_private, _private.set(None)))
    try:
        if private is None:
            yield
        else:
            base = _registry._scope.get()
            with private:
                token = _private.set(_Private(agent, base))
                try:
                    yield
                finally:
                    _reset(_private, token)
    finally:
        for var, token in reversed(tokens):
            _reset(var, token)


def _reset(var: contextvars.ContextVar[Any], token: contextvars.Token[Any]) -> None:
    try:
        var.reset(token)
    except ValueError:  # left in another context (a generator closed elsewhere)
        pass


# -- one call, start to end ---------------------------------------------------------------


def _guarded(step: Callable[[], Any]) -> Any:
    """Run a turn/step dispatch; its abort (or strict-mode failure) becomes the run's abort."""
    try:
        return step()
    except Exception as error:
        raise record(error) from None


async def _aguarded(step: Any) -> Any:
    try:
        return await step
    except Exception as error:
        raise record(error) from None


class _Call:
    """One call of an entry point: the run's latch, the execution (when outermost), the agent turn."""

    def __init__(self, execution_fields: dict[str, Any], agent: Any = None) -> None:
        self.latch, self._latch_token = open_latch()
        self.execution_fields = execution_fields
        self.turn = AgentTurn(agent) if agent is not None else None
        self._turn_token = enter_turn(self.turn) if self.turn is not None else None
        self.run: Execution | None = None

    def close(self) -> None:
        """Put back what the call set: the current execution, turn and latch."""
        if self.run is not None:
            self.run.close()
        if self._turn_token is not None:
            leave_turn(self._turn_token)
        close_latch(self._latch_token)

    # -- turn and step points: built only when the point has hooks; an abort is the run's

    def _turn_context(self, point: Point, payload: Any, end: bool) -> StepContext:
        turn = self.turn
        assert turn is not None
        agent = turn.agent
        if end:
            metadata = {"prompt": turn.prompt, "tools_used": list(turn.tools_used)}
            return StepContext(payload, kind=_KINDS[point], step_name=turn.name, output=payload,
                               duration_ms=(perf_counter() - turn.started) * 1000.0, framework=FRAMEWORK,
                               agent=agent, agent_role=turn.name, metadata=metadata)
        metadata = {
            "prompt": turn.prompt,
            "conversation_history": getattr(agent, "chat_history", None) or [],
            "tools_available": [_tool_name(t) for t in getattr(agent, "tools", None) or ()],
        }
        return StepContext(payload, kind=_KINDS[point], step_name=turn.name, framework=FRAMEWORK, agent=agent,
                           agent_role=turn.name, metadata=metadata)

    def _turn_point(self, point: Point, payload: Any, end: bool = False) -> Any:
        if not has_hooks(point):
            return payload
        try:
            return dispatch(point, self._turn_context(point, payload, end)).payload
        except Exception as error:
            raise record(error) from None

    async def _aturn_point(self, point: Point, payload: Any, end: bool = False) -> Any:
        if not has_hooks(point):
            return payload
        try:
            return (await adispatch(point, self._turn_context(point, payload, end))).payload
        except Exception as error:
            raise record(error) from None

    # -- sync

    def open(self, inputs: Any) -> Any:
        """EXECUTION_START + INPUT (outermost only), AGENT_TURN_START, PRE_STEP; returns the inputs."""
        self.run = open_execution(FRAMEWORK, **self.execution_fields)
        if self.run is not None:
            inputs = self.run.begin(inputs)
        if self.turn is not None:
            self.turn.prompt = inputs
            inputs = self._turn_point(TURN_START, inputs)
            inputs = self._turn_point(P.PRE_STEP, inputs)
        return inputs

    def finish(self, output: Any) -> Any:
        """POST_STEP, AGENT_TURN_END, then OUTPUT + EXECUTION_END; raises the run's abort instead."""
        self.latch.check()
        if self.turn is not None:
            output = self._turn_point(P.POST_STEP, output, end=True)
            output = self._turn_point(TURN_END, output, end=True)
        if self.run is not None:
            output = self.run.succeed(output)
        return output

    def fail(self, error: BaseException) -> BaseException:
        """EXECUTION_END(failed); returns the error to raise (the run's abort wins)."""
        kept = self.latch.error if self.latch.error is not None else error
        if self.run is not None:
            self.run.fail(kept)
        return kept

    # -- async: async hooks are awaited on the running loop

    async def aopen(self, inputs: Any) -> Any:
        self.run = open_execution(FRAMEWORK, **self.execution_fields)
        if self.run is not None:
            inputs = await self.run.abegin(inputs)
        if self.turn is not None:
            self.turn.prompt = inputs
            inputs = await self._aturn_point(TURN_START, inputs)
            inputs = await self._aturn_point(P.PRE_STEP, inputs)
        return inputs

    async def afinish(self, output: Any) -> Any:
        self.latch.check()
        if self.turn is not None:
            output = await self._aturn_point(P.POST_STEP, output, end=True)
            output = await self._aturn_point(TURN_END, output, end=True)
        if self.run is not None:
            output = await self.run.asucceed(output)
        return output

    async def afail(self, error: BaseException) -> BaseException:
        kept = self.latch.error if self.latch.error is not None else error
        if self.run is not None:
            await self.run.afail(kept)
        return kept


_KINDS: dict[Point, str] = {TURN_START: AGENT_TURN, TURN_END: AGENT_TURN, P.PRE_STEP: "agent", P.POST_STEP: "agent"}


def _tool_name(tool: Any) -> str:
    name = getattr(tool, "__name__", None) or getattr(tool, "name", None)
    return name if isinstance(name, str) else type(tool).__name__


def _raise(kept: BaseException, error: BaseException) -> None:
    if kept is error:
        raise error
    raise kept from error


def run_sync(wrapped: Callable[..., Any], args: Args, kwargs: Kwargs, arg_name: str, call: _Call) -> Any:
    try:
        inputs = call.open(_first_argument(args, kwargs, arg_name))
        args, kwargs = _with_first_argument(args, kwargs, arg_name, inputs)
        result = wrapped(*args, **kwargs)
        if inspect.isgenerator(result):
            return _stream(result, call, contextvars.copy_context())
        return call.finish(result)
    except BaseException as error:
        _raise(call.fail(error), error)
    finally:
        call.close()


async def run_async(wrapped: Callable[..., Any], args: Args, kwargs: Kwargs, arg_name: str,
                    make_call: Callable[[], _Call]) -> Any:
    call = make_call()  # here, not in the caller: the call's ContextVars belong to this task's context
    try:
        inputs = await call.aopen(_first_argument(args, kwargs, arg_name))
        args, kwargs = _with_first_argument(args, kwargs, arg_name, inputs)
        result = await wrapped(*args, **kwargs)
        if inspect.isasyncgen(result):
            return _astream(result, call, contextvars.copy_context())
        return await call.afinish(result)
    except BaseException as error:
        _raise(await call.afail(error), error)
    finally:
        call.close()


def _stream(chunks: Generator[Any, Any, Any], call: _Call, context: contextvars.Context) -> Iterator[Any]:
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
    """POST_STEP, AGENT_TURN_END, OUTPUT, END after the last chunk; an abort there still ends the run as failed."""
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
        kept = await _in_context(call.afail(error), context)
        if isinstance(error, GeneratorExit):
            raise
        _raise(kept, error)
    else:
        try:
            await _in_context(call.afinish("".join(seen)), context)
        except BaseException as error:
            _raise(await _in_context(call.afail(error), context), error)


async def _in_context(step: Any, context: contextvars.Context) -> Any:
    loop = asyncio.get_running_loop()
    task = context.run(loop.create_task, step)  # the task runs in (a copy of) the call's context
    return await task


# -- wrappers ---------------------------------------------------------------------------------


def _needs_nothing(agent: Any, private: AbstractContextManager[Any] | None) -> bool:
    """No hook anywhere, no run around this call, no private hooks: PraisonAI runs untouched."""
    return private is None and current_latch() is None and not hooks_anywhere()


def _agent_call(agent: Any) -> _Call:
    return _Call({"agent": agent, "agent_role": agent_name(agent)}, agent)


def agent_entry(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``Agent.start / run / chat``."""
    if instance is None:
        return wrapped(*args, **kwargs)
    private = private_hooks(instance)
    if _needs_nothing(instance, private):
        return wrapped(*args, **kwargs)
    check_latch()
    if continues_turn(instance):
        return wrapped(*args, **kwargs)
    if private is None and _private.get() is None:
        return run_sync(wrapped, args, kwargs, "prompt", _agent_call(instance))
    with _private_scope(instance, private):
        return run_sync(wrapped, args, kwargs, "prompt", _agent_call(instance))


async def _agent_aentry(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs,
                        private: AbstractContextManager[Any] | None) -> Any:
    with _private_scope(instance, private):
        return await run_async(wrapped, args, kwargs, "prompt", lambda: _agent_call(instance))


def agent_aentry(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``Agent.astart / arun / achat``."""
    if instance is None:
        return wrapped(*args, **kwargs)
    private = private_hooks(instance)
    if _needs_nothing(instance, private):
        return wrapped(*args, **kwargs)
    check_latch()
    if continues_turn(instance):
        return wrapped(*args, **kwargs)
    if private is None and _private.get() is None:
        return run_async(wrapped, args, kwargs, "prompt", lambda: _agent_call(instance))
    return _agent_aentry(wrapped, instance, args, kwargs, private)


def team_entry(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``AgentTeam.start``."""
    if instance is None or (current_latch() is None and not hooks_anywhere()):
        return wrapped(*args, **kwargs)
    check_latch()
    return run_sync(wrapped, args, kwargs, "content", _Call({"crew": instance}))


def team_aentry(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``AgentTeam.astart``."""
    if instance is None or (current_latch() is None and not hooks_anywhere()):
        return wrapped(*args, **kwargs)
    check_latch()
    return run_async(wrapped, args, kwargs, "content", lambda: _Call({"crew": instance}))


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
        self.started = perf_counter()

    def begin(self, replaced: Any) -> None:
        if self.task is not None and replaced is not self.original and isinstance(replaced, str):
            self.task.description = replaced

    def restore(self) -> None:
        if self.task is not None and getattr(self.task, "description", None) is not self.original:
            self.task.description = self.original


def task_step(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``AgentTeam.execute_task``."""
    if instance is None or (current_latch() is None and not hooks_anywhere()):
        return wrapped(*args, **kwargs)
    check_latch()
    with run_scope() as latch:
        step = _TaskStep(instance, args, kwargs)
        step.begin(_guarded(lambda: pre_step(FRAMEWORK, "task", step.name, step.original, **step.fields)))
        try:
            output = wrapped(*args, **kwargs)
        finally:
            step.restore()
        latch.check()
        return _guarded(lambda: post_step(FRAMEWORK, "task", step.name, output, started=step.started,
                                          **step.fields))


async def _atask_step(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    with run_scope() as latch:
        step = _TaskStep(instance, args, kwargs)
        step.begin(await _aguarded(apre_step(FRAMEWORK, "task", step.name, step.original, **step.fields)))
        try:
            output = await wrapped(*args, **kwargs)
        finally:
            step.restore()
        latch.check()
        return await _aguarded(apost_step(FRAMEWORK, "task", step.name, output, started=step.started,
                                          **step.fields))


def task_astep(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``AgentTeam.aexecute_task``."""
    if instance is None or (current_latch() is None and not hooks_anywhere()):
        return wrapped(*args, **kwargs)
    check_latch()
    return _atask_step(wrapped, instance, args, kwargs)


# -- achat() with PraisonAI model middleware ---------------------------------------------------


_REMEMBERED = "_hookport_achat_contexts"


def remember_context(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``ChatMixin._achat_completion_with_retry`` (1.7): keep the caller's context on the agent.

    With model middleware (``Agent(hooks=[before_model(...)])``) PraisonAI sends
    the request from ``run_in_executor`` without copying the context, then back
    on the loop through ``run_coroutine_threadsafe``: the run's state (its
    latch, the agent turn, scoped hooks) would be lost on the way.
    """
    if instance is None or not getattr(instance, "_hooks", None) or (current_latch() is None
                                                                     and not hooks_anywhere()):
        return wrapped(*args, **kwargs)
    return _remembering(wrapped, instance, args, kwargs)


async def _remembering(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    stack = instance.__dict__.setdefault(_REMEMBERED, [])
    stack.append(contextvars.copy_context())
    try:
        return await wrapped(*args, **kwargs)
    finally:
        stack.pop()


def in_remembered_context(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``ChatMixin._achat_completion_with_retry_core`` (1.7): reached from the middleware's
    executor without the run's context, it runs in the one `remember_context` kept."""
    remembered = getattr(instance, "__dict__", {}).get(_REMEMBERED) if instance is not None else None
    if not remembered or current_latch() is not None:
        return wrapped(*args, **kwargs)
    return _in_context(wrapped(*args, **kwargs), remembered[-1].copy())
