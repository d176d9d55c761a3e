"""``Agent.run``: execution boundaries, the agent's turn, and the run state the middleware reads.

Non-streamed, ``run`` returns an awaitable; streamed, a ``ResponseStream`` that does
the work while it is read. The streamed run ends (OUTPUT / AGENT_TURN_END /
EXECUTION_END) when its stream has been read to the end, or fails when it is closed
early or raises.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import contextmanager
from time import perf_counter
from typing import Any, Iterator

from hookport.boundary import (
    AGENT_TURN,
    TURN_END,
    TURN_START,
    Execution,
    apost_step,
    apre_step,
    entered,
    open_execution,
)
from hookport.calls import model_hooks_active
from hookport.errors import HookAborted
from hookport.points import ExtensionPoint, InterceptionPoint
from hookport import registry
from hookport.registry import has_hooks

from hookport.adapters.agent_framework._layers import check_client
from hookport.adapters.agent_framework._requests import close_step
from hookport.adapters.agent_framework._state import ACTIVE, FRAMEWORK, AbortEscape, RunState, current_run

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
    """One run's boundary (outermost only), turn and state."""

    def __init__(self, agent: Any) -> None:
        self.state = RunState(agent)
        self.execution: Execution | None = open_execution(FRAMEWORK, agent=agent, agent_role=self.state.name)
        self.turn_started: float | None = None

    @contextmanager
    def inside(self) -> Iterator[None]:
        token = current_run.set(self.state)
        try:
            with entered(self.execution):
                yield
        finally:
            try:
                current_run.reset(token)
            except ValueError:
                current_run.set(None)

    async def begin(self, inputs: Any) -> Any:
        check_client(getattr(self.state.agent, "client", None), model_hooks_active())
        if self.execution is not None:
            inputs = await self.execution.abegin(inputs)
        self.turn_started = perf_counter()
        return await apre_step(FRAMEWORK, AGENT_TURN, self.state.name, inputs, point=TURN_START,
                               agent=self.state.agent, agent_role=self.state.name)

    async def succeed(self, output: Any) -> Any:
        if self.state.abort is not None:
            raise self.state.abort
        await close_step(self.state, output)
        output = await apost_step(FRAMEWORK, AGENT_TURN, self.state.name, output, started=self.turn_started,
                                  point=TURN_END, agent=self.state.agent, agent_role=self.state.name)
        if self.execution is not None:
            output = await self.execution.asucceed(output)
        return output

    async def fail(self, error: BaseException) -> None:
        if self.execution is not None:
            await self.execution.afail(error)

    def close(self) -> None:
        if self.execution is not None:
            self.execution.close()


_ALL_POINTS = (*_RUN_POINTS, P.PRE_MODEL_CALL, P.POST_MODEL_CALL, ExtensionPoint.WRAP_MODEL_CALL,
               P.PRE_TOOL_CALL, P.POST_TOOL_CALL, ExtensionPoint.WRAP_TOOL_CALL)


def any_hooks() -> bool:
    """Whether a run here could dispatch anything (the run's state is only kept then);
    nothing registered anywhere is the engine's one-lookup check (as the CrewAI adapter does)."""
    if not registry._global and not registry._open_scopes:
        return False
    return any(has_hooks(point) for point in _ALL_POINTS)


def agent_run(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``AgentMiddlewareLayer.run(messages, *, stream=False, ...)``."""
    if not ACTIVE.on or current_run.get() is None and not any_hooks():
        return wrapped(*args, **kwargs)
    messages = args[0] if args else kwargs.pop("messages", None)
    rest = args[1:]
    if kwargs.get("stream"):
        return _stream_run(wrapped, instance, messages, rest, kwargs)
    return _arun(wrapped, instance, messages, rest, kwargs)


async def _arun(wrapped: Any, instance: Any, messages: Any, rest: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    run = _Run(instance)
    try:
        with run.inside():
            messages = await run.begin(messages)
            try:
                result = await wrapped(messages, *rest, **kwargs)
            except AbortEscape as escape:
                raise escape.aborted from None
            return await run.succeed(result)
    except BaseException as error:
        await run.fail(_unwrapped(error))
        raise
    finally:
        run.close()


def _stream_run(wrapped: Any, instance: Any, messages: Any, rest: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    from agent_framework import ResponseStream

    run = _Run(instance)
    final: list[Any] = []

    async def updates() -> AsyncIterator[Any]:
        finished = False
        try:
            with run.inside():
                begun = await run.begin(messages)
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
