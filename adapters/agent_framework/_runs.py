"""``Agent.run``: execution boundaries, the agent's turn, and the run state the middleware reads.

Non-streamed, ``run`` returns an awaitable; streamed, a ``ResponseStream`` that does
the work while it is read. The streamed run ends (OUTPUT / AGENT_TURN_END /
EXECUTION_END) when its stream has been read to the end, or fails when it is closed
early or raises.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
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
from hookport.points import ExtensionPoint, InterceptionPoint
from hookport import registry
from hookport.registry import any_hooks, chains, has_hooks
from hookport.runs import _current_execution

from hookport.adapters.agent_framework._layers import check_client
from hookport.adapters.agent_framework._requests import close_step
from hookport.adapters.agent_framework._state import FRAMEWORK, AbortEscape, RunState, current_run

from hookport.adapters.agent_framework._messages import response_text, with_response_text
from hookport.answers import register_answer_type


def _register_answer_type() -> None:
    """``OutputContext.text`` reads and replaces an ``AgentResponse``'s answer text (once, on the first run)."""
    from agent_framework import AgentResponse

    register_answer_type(AgentResponse, response_text, lambda value, text: with_response_text(value, text, "agent"))


_register_answer_type()

P = InterceptionPoint
_RUN_POINTS = (P.EXECUTION_START, P.INPUT, P.OUTPUT, P.EXECUTION_END, ExtensionPoint.AGENT_TURN_START,
               ExtensionPoint.AGENT_TURN_END, P.PRE_STEP, P.POST_STEP)


def _unwrapped(error: BaseException) -> BaseException:
    return error.aborted if isinstance(error, AbortEscape) else error


class _Run:
    """One run's boundary (outermost only), turn and state. Each of its points that has no hook
    is skipped with a lookup (no context, no coroutine): a run with model and tool hooks only pays
    for little more than its `RunState`."""

    __slots__ = ("state", "execution", "turn_started")

    def __init__(self, agent: Any) -> None:
        self.state = RunState(agent)
        self.execution: Execution | None = open_execution(FRAMEWORK, agent=agent, agent_role=self.state.name)
        self.turn_started: float | None = None

    def inside(self) -> "_Inside":
        """This run as the current one (and its execution) for one block of work."""
        return _Inside(self)

    def quiet_begin(self) -> bool:
        """No hook at the run's start (nor a scope that could hold one): `start` does `begin`'s
        work without a coroutine to await."""
        return not (registry._open_scopes or chains[P.EXECUTION_START] or chains[P.INPUT] or chains[TURN_START])

    def start(self, inputs: Any) -> Any:
        """`begin` when `quiet_begin`: the same bookkeeping, nothing dispatched."""
        check_client(getattr(self.state.agent, "client", None))
        if self.execution is not None:
            inputs = self.execution.begin(inputs)
        self.turn_started = perf_counter()
        return inputs

    async def begin(self, inputs: Any) -> Any:
        check_client(getattr(self.state.agent, "client", None))
        scoped = registry._open_scopes
        if self.execution is not None:
            if chains[P.EXECUTION_START] or chains[P.INPUT] or scoped:
                inputs = await self.execution.abegin(inputs)
            else:  # the same bookkeeping, with no hook to await
                inputs = self.execution.begin(inputs)
        self.turn_started = perf_counter()
        if not (chains[TURN_START] or scoped and has_hooks(TURN_START)):
            return inputs
        return await apre_step(FRAMEWORK, AGENT_TURN, self.state.name, inputs, point=TURN_START,
                               agent=self.state.agent, agent_role=self.state.name)

    def quiet_end(self) -> bool:
        """No step to close and no hook at the run's end (nor a scope): `end` does `succeed`'s work."""
        return self.state.step_started is None and not (
            registry._open_scopes or chains[P.OUTPUT] or chains[P.EXECUTION_END] or chains[TURN_END])

    def end(self, output: Any) -> Any:
        """`succeed` when `quiet_end`: the same bookkeeping, nothing dispatched."""
        if self.state.abort is not None:
            raise self.state.abort
        return output if self.execution is None else self.execution.succeed(output)

    async def succeed(self, output: Any) -> Any:
        if self.state.abort is not None:
            raise self.state.abort
        if self.state.step_started is not None:
            await close_step(self.state, output)
        scoped = registry._open_scopes
        if chains[TURN_END] or scoped and has_hooks(TURN_END):
            output = await apost_step(FRAMEWORK, AGENT_TURN, self.state.name, output, started=self.turn_started,
                                      point=TURN_END, agent=self.state.agent, agent_role=self.state.name)
        if self.execution is not None:
            if chains[P.OUTPUT] or chains[P.EXECUTION_END] or scoped:
                output = await self.execution.asucceed(output)
            else:
                output = self.execution.succeed(output)
        return output

    async def fail(self, error: BaseException) -> None:
        if self.execution is not None:
            await self.execution.afail(error)

    def close(self) -> None:
        if self.execution is not None:
            self.execution.close()


class _Inside:
    """`_Run.inside`: a plain context manager (entered on every pull of a streamed run)."""

    __slots__ = ("_run", "_token", "_execution_token")

    def __init__(self, run: _Run) -> None:
        self._run = run

    def __enter__(self) -> None:
        self._token = current_run.set(self._run.state)
        execution = self._run.execution
        self._execution_token = None if execution is None else _current_execution.set(execution)

    def __exit__(self, *exc: object) -> None:
        if self._execution_token is not None:
            try:
                _current_execution.reset(self._execution_token)
            except ValueError:
                _current_execution.set(None)
        try:
            current_run.reset(self._token)
        except ValueError:
            current_run.set(None)


_ALL_POINTS = (P.PRE_MODEL_CALL, P.POST_MODEL_CALL, P.PRE_TOOL_CALL, P.POST_TOOL_CALL, ExtensionPoint.WRAP_MODEL_CALL,
               ExtensionPoint.WRAP_TOOL_CALL, *_RUN_POINTS)  # the usual hooks first: `any_hooks` stops at the first


def agent_run(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``AgentMiddlewareLayer.run(messages, *, stream=False, ...)``, when hookport follows the run:
    inside one it follows, or when a hook such a run could dispatch is registered (its state is
    only kept then). None: not followed."""
    if current_run.get() is None and not any_hooks(_ALL_POINTS):
        return None
    messages = args[0] if args else kwargs.pop("messages", None)
    rest = args[1:]
    if kwargs.get("stream"):
        return _stream_run(wrapped, instance, messages, rest, kwargs)
    return _arun(wrapped, instance, messages, rest, kwargs)


async def _arun(wrapped: Any, instance: Any, messages: Any, rest: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """A non-streamed run: the run is current for all of it, its execution from `begin` (which
    sets it) to `close` (which resets it, last in first out: before, the execution outlived the
    run in the caller's context and a second run awaited in the same task had no boundaries)."""
    run = _Run(instance)
    token = current_run.set(run.state)
    try:
        messages = run.start(messages) if run.quiet_begin() else await run.begin(messages)
        try:
            result = await wrapped(messages, *rest, **kwargs)
        except AbortEscape as escape:
            raise escape.aborted from None
        return run.end(result) if run.quiet_end() else await run.succeed(result)
    except BaseException as error:
        await run.fail(_unwrapped(error))
        raise
    finally:
        run.close()
        try:
            current_run.reset(token)
        except ValueError:
            current_run.set(None)


def _stream_run(wrapped: Any, instance: Any, messages: Any, rest: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    from agent_framework import ResponseStream

    run = _Run(instance)
    final: list[Any] = []

    async def updates() -> AsyncIterator[Any]:
        finished = False
        try:
            with run.inside():
                begun = await run.begin(messages)
                run.close()  # from here the execution is current per pull (`inside`), not by begin's token
                inner = wrapped(begun, *rest, **kwargs)
            iterator = inner.__aiter__()
            while True:
                with run.inside():
                    try:
                        update = await iterator.__anext__()
                    except StopAsyncIteration:
                        break
                    except AbortEscape as escape:
                        raise escape.aborted from None
                yield update
            with run.inside():
                final.append(await run.succeed(await inner.get_final_response()))
            finished = True
        except BaseException as error:
            with run.inside():
                await run.fail(_unwrapped(error))
            raise
        finally:
            if not finished and run.execution is not None and not run.execution.ended:
                with run.inside():  # closed before the end: the run ends here
                    await run.fail(GeneratorExit("the stream was closed before its end"))
            run.close()

    def finalize(_: Any) -> Any:
        return final[0] if final else None

    return ResponseStream(updates(), finalizer=finalize)
