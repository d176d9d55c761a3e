"""``Agent.run`` / ``Agent.arun`` / ``Team.run`` / ``Team.arun``: execution boundaries, the agent's
turn, and the run state the model and tool call sites read.

Agno returns a failed run instead of raising it (a ``RunOutput`` with ``status=ERROR``,
or a ``RunErrorEvent`` in a stream): the caller still gets that, and EXECUTION_END
fires with ``status="failed"`` and a `RunFailed` error. An exception a hook raised
inside the run (`Escape`) leaves the outermost run as itself (``HookAborted`` ...).

Streamed runs (``stream=True``, sync or async) end when the stream is read to the end
(OUTPUT's payload is the streamed answer text; a replacement cannot reach text already
streamed), or fail when it is closed early or raises. Member runs of a team are nested:
they fire their own agent turn and steps, not a second execution.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from time import perf_counter
from typing import Any

from hookport import registry
from hookport.answers import register_answer_type
from hookport.boundary import AGENT_TURN, TURN_END, TURN_START, Execution, entered, open_execution
from hookport.boundary import apost_step, apre_step, post_step, pre_step
from hookport.points import ExtensionPoint, InterceptionPoint
from hookport.registry import chains, has_hooks

from hookport.adapters.agno._state import FRAMEWORK, Escape, RunFailed, RunState, current_run, leave, running
from hookport.adapters.agno._steps import aclose_step, close_step

P = InterceptionPoint
_ERROR_EVENTS = ("RunErrorEvent", "TeamRunErrorEvent")


def _answer_text(output: Any) -> str | None:
    content = getattr(output, "content", None)
    return content if isinstance(content, str) else None


def _with_answer_text(output: Any, text: str) -> Any:
    import copy

    replaced = copy.copy(output)
    replaced.content = text
    return replaced


def register_answer_types() -> None:
    """``OutputContext.text`` reads and replaces the answer of a ``RunOutput`` / ``TeamRunOutput``."""
    from agno.run.agent import RunOutput
    from agno.run.team import TeamRunOutput

    for kind in (RunOutput, TeamRunOutput):
        register_answer_type(kind, _answer_text, _with_answer_text)


def any_hooks() -> bool:
    """Whether a run could dispatch anything; nothing registered anywhere is one lookup."""
    return bool(registry._global or registry._open_scopes)


def _failure(output: Any) -> RunFailed | None:
    status = getattr(output, "status", None)
    if (status if isinstance(status, str) else getattr(status, "value", status)) != "ERROR":  # RunStatus is a str
        return None
    return RunFailed(f"the Agno run ended with an error: {getattr(output, 'content', None)}", output)


class _Run:
    """One run's boundary (outermost only), turn and state."""

    __slots__ = ("state", "execution", "turn_started")

    def __init__(self, agent: Any) -> None:
        self.state = state = RunState(agent, current_run.get())
        self.execution: Execution | None = open_execution(FRAMEWORK, agent=agent, agent_role=state.name)
        self.turn_started: float | None = None

    @contextmanager
    def inside(self) -> Iterator[None]:
        """The run current for one piece of a streamed run (never kept across a ``yield``)."""
        with running(self.state), entered(self.execution):
            yield

    def unwrapped(self, error: BaseException) -> BaseException:
        """What leaves this run: an `Escape` stays one until the outermost Agno run."""
        if isinstance(error, Escape) and self.state.parent is None:
            return error.error
        return error

    def open(self, inputs: Any) -> Any:
        """START / INPUT (the execution then stays current until `close`), AGENT_TURN_START."""
        if self.execution is not None:
            inputs = self.execution.begin(inputs)
        self.turn_started = perf_counter()
        if not (chains[TURN_START] or registry._open_scopes and has_hooks(TURN_START)):  # two lookups
            return inputs
        state = self.state
        return pre_step(FRAMEWORK, AGENT_TURN, state.name, inputs, point=TURN_START, agent=state.agent,
                        agent_role=state.name)

    async def aopen(self, inputs: Any) -> Any:
        if self.execution is not None:
            inputs = await self.execution.abegin(inputs)
        self.turn_started = perf_counter()
        if not has_hooks(TURN_START):
            return inputs
        state = self.state
        return await apre_step(FRAMEWORK, AGENT_TURN, state.name, inputs, point=TURN_START, agent=state.agent,
                               agent_role=state.name)

    def begin(self, inputs: Any) -> Any:
        """`open` for a streamed run: its execution is current only `inside()` each piece."""
        try:
            return self.open(inputs)
        finally:
            self.close()

    async def abegin(self, inputs: Any) -> Any:
        try:
            return await self.aopen(inputs)
        finally:
            self.close()

    def finish(self, output: Any) -> Any:
        """The run returned `output`: a success, or Agno's errored run."""
        status = getattr(output, "status", None)
        if status is not None and (status if isinstance(status, str) else getattr(status, "value", status)) == "ERROR":
            self.fail(_failure(output))  # `_failure`, called only for an errored run
            return output
        state = self.state
        if state.step_started is not None:
            close_step(state, state.step_output)
        if chains[TURN_END] or registry._open_scopes and has_hooks(TURN_END):
            output = post_step(FRAMEWORK, AGENT_TURN, state.name, output, started=self.turn_started,
                               point=TURN_END, agent=state.agent, agent_role=state.name)
        return self.execution.succeed(output) if self.execution is not None else output

    async def afinish(self, output: Any) -> Any:
        failure = _failure(output)
        if failure is not None:
            await self.afail(failure)
            return output
        state = self.state
        if state.step_started is not None:
            await aclose_step(state, state.step_output)
        if has_hooks(TURN_END):
            output = await apost_step(FRAMEWORK, AGENT_TURN, state.name, output, started=self.turn_started,
                                      point=TURN_END, agent=state.agent, agent_role=state.name)
        return await self.execution.asucceed(output) if self.execution is not None else output

    def fail(self, error: BaseException) -> None:
        if self.execution is not None:
            self.execution.fail(error)

    async def afail(self, error: BaseException) -> None:
        if self.execution is not None:
            await self.execution.afail(error)

    def close(self) -> None:
        if self.execution is not None:
            self.execution.close()


def _inputs(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
    if args:
        return args[0], args[1:], kwargs
    kwargs = dict(kwargs)
    return kwargs.pop("input", None), (), kwargs


def _streamed(instance: Any, kwargs: dict[str, Any]) -> bool:
    stream = kwargs.get("stream")
    return bool(getattr(instance, "stream", False) if stream is None else stream)


def agent_run(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``Agent.run`` / ``Team.run(input, *, stream=..., ...)``."""
    if not (registry._global or registry._open_scopes):  # `any_hooks()`, without its frame
        return wrapped(*args, **kwargs)
    if args:  # `_inputs` and `_streamed`, without their frames
        inputs, rest = args[0], args[1:]
    else:
        inputs, rest, kwargs = _inputs(args, kwargs)
    stream = kwargs.get("stream")
    if stream or stream is None and getattr(instance, "stream", False):
        return _stream_run(wrapped, instance, inputs, rest, kwargs)
    run = _Run(instance)
    state = run.state
    token = current_run.set(state)  # current for the whole run: no yield in between
    try:
        return run.finish(wrapped(run.open(inputs), *rest, **kwargs))
    except BaseException as error:
        error = run.unwrapped(error)
        run.fail(error)
        raise error from None
    finally:
        if run.execution is not None:
            run.execution.close()
        try:  # `leave(token, state)`, without its frame
            current_run.reset(token)
        except ValueError:
            current_run.set(state.parent)


def agent_arun(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``Agent.arun`` / ``Team.arun``: a plain method returning a coroutine, or an async iterator
    when streamed; a ``background=True`` run is Agno's own task and passes untouched."""
    if not any_hooks() or kwargs.get("background"):
        return wrapped(*args, **kwargs)
    inputs, rest, kwargs = _inputs(args, kwargs)
    if _streamed(instance, kwargs):
        return _astream_run(wrapped, instance, inputs, rest, kwargs)
    return _arun(wrapped, instance, inputs, rest, kwargs)


async def _arun(wrapped: Any, instance: Any, inputs: Any, rest: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    run = _Run(instance)
    token = current_run.set(run.state)
    try:
        begun = await run.aopen(inputs)
        return await run.afinish(await wrapped(begun, *rest, **kwargs))
    except BaseException as error:
        error = run.unwrapped(error)
        await run.afail(error)
        raise error from None
    finally:
        run.close()
        leave(token, run.state)


class _Streamed:
    """What a streamed run produced: its answer text, and whether Agno reported an error."""

    def __init__(self, instance: Any) -> None:
        self.content_event = "TeamRunContentEvent" if type(instance).__name__ == "Team" or \
            hasattr(instance, "members") else "RunContentEvent"
        self.parts: list[str] = []
        self.error: Any = None

    def saw(self, event: Any) -> None:
        kind = type(event).__name__
        if kind == self.content_event and isinstance(getattr(event, "content", None), str):
            self.parts.append(event.content)
        elif kind in _ERROR_EVENTS:
            self.error = event

    def output(self) -> Any:
        """What ``Run.finish`` reads: an errored run's status, or the answer text."""
        if self.error is not None:
            return self.error if getattr(self.error, "status", None) else _ErroredStream(self.error)
        return "".join(self.parts)


class _ErroredStream:
    status = "ERROR"

    def __init__(self, event: Any) -> None:
        self.content = getattr(event, "content", None)


def _stream_run(wrapped: Any, instance: Any, inputs: Any, rest: tuple[Any, ...],
                kwargs: dict[str, Any]) -> Iterator[Any]:
    run = _Run(instance)
    seen = _Streamed(instance)
    finished = False
    try:
        with run.inside():
            begun = run.begin(inputs)
            iterator = iter(wrapped(begun, *rest, **kwargs))
        while True:
            with run.inside():
                try:
                    event = next(iterator)
                except StopIteration:
                    break
            seen.saw(event)
            yield event
        with run.inside():
            run.finish(seen.output())
        finished = True
    except BaseException as error:
        error = run.unwrapped(error)
        with run.inside():
            run.fail(error)
        raise error from None
    finally:
        if not finished and run.execution is not None and not run.execution.ended:
            with run.inside():
                run.fail(GeneratorExit("the stream was closed before its end"))
        run.close()


async def _astream_run(wrapped: Any, instance: Any, inputs: Any, rest: tuple[Any, ...],
                       kwargs: dict[str, Any]) -> AsyncIterator[Any]:
    run = _Run(instance)
    seen = _Streamed(instance)
    finished = False
    try:
        with run.inside():
            begun = await run.abegin(inputs)
            iterator = wrapped(begun, *rest, **kwargs).__aiter__()
        while True:
            with run.inside():
                try:
                    event = await iterator.__anext__()
                except StopAsyncIteration:
                    break
            seen.saw(event)
            yield event
        with run.inside():
            await run.afinish(seen.output())
        finished = True
    except BaseException as error:
        error = run.unwrapped(error)
        with run.inside():
            await run.afail(error)
        raise error from None
    finally:
        if not finished and run.execution is not None and not run.execution.ended:
            with run.inside():
                await run.afail(GeneratorExit("the stream was closed before its end"))
        run.close()
