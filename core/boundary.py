"""Helpers every adapter shares: execution boundaries, steps, re-entrancy.

`Execution` fires EXECUTION_START -> INPUT ... OUTPUT -> EXECUTION_END for the
outermost run only: a graph that invokes a chain that invokes a graph is one
execution. EXECUTION_END fires exactly once, also on failure (status
"failed", the error attached, the original exception still propagating), and
never when EXECUTION_START itself aborted.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable, Iterator
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar, Token
from time import perf_counter
from typing import Any, TypeVar

from hookport.contexts import (
    ExecutionEndContext,
    ExecutionStartContext,
    InputContext,
    OutputContext,
    StepContext,
)
from hookport.dispatch import adispatch, dispatch
from hookport.errors import HookAborted
from hookport.points import EXECUTION_BOUNDARY_POINTS, ExtensionPoint, InterceptionPoint, Point
from hookport.registry import has_hooks

from hookport.runs import _current_execution, bound_run, current_execution, current_run_id, new_run_id

T = TypeVar("T")

__all__ = ["Execution", "current_execution", "execution", "open_execution"]

# The boundary's points as module constants (see `hookport.calls`: an Enum member read through its
# class costs a metaclass hook per read on Python 3.10 and 3.11; every run reads four or more).
_START, _INPUT = InterceptionPoint.EXECUTION_START, InterceptionPoint.INPUT
_OUTPUT, _END = InterceptionPoint.OUTPUT, InterceptionPoint.EXECUTION_END


class Execution:
    """One outermost run of a framework entry point.

    Use `open_execution()` to get one (it returns None for a nested run), then
    `begin(inputs)`, and `succeed(output)` or `fail(error)`, and `close()`.
    """

    __slots__ = ("framework", "fields", "run_id", "owns_run", "started", "ended", "_token", "_clock", "__weakref__")

    def __init__(self, framework: str, fields: dict[str, Any], run_id: str | None = None) -> None:
        self.framework = framework
        bound = bound_run() if run_id is None else None
        self.run_id: str = run_id or (bound.run_id if bound else new_run_id())
        """The run's id (`hookport.runs`): named by `execution(run_id=...)` or `bind_run`, else fresh."""
        self.owns_run: bool = bound.owner if bound else True
        """False when the run belongs to another process (`bind_run(..., owner=False)`)."""
        self.fields = fields
        self.started = False
        self.ended = False
        self._token: Token[Execution | None] | None = None
        self._clock = perf_counter()

    def elapsed_ms(self) -> float:
        """How long this execution has run (OUTPUT / EXECUTION_END carry it as `duration_ms`)."""
        return (perf_counter() - self._clock) * 1000.0

    def begin(self, inputs: Any) -> Any:
        """Dispatch EXECUTION_START then INPUT; returns the (possibly replaced) inputs."""
        self._token = _current_execution.set(self)
        if has_hooks(_START):
            try:
                ctx = dispatch(
                    _START,
                    ExecutionStartContext(inputs, framework=self.framework, **self.fields),
                )
            except HookAborted:
                self.ended = True  # the boundary never opened: no END to pair
                self.close()
                raise
            inputs = ctx.payload
        self.started = True
        if has_hooks(_INPUT):
            inputs = dispatch(
                _INPUT, InputContext(inputs, framework=self.framework, **self.fields)
            ).payload
        return inputs

    async def abegin(self, inputs: Any) -> Any:
        """`begin` for async entry points: async boundary hooks are awaited."""
        self._token = _current_execution.set(self)
        if has_hooks(_START):
            try:
                ctx = await adispatch(
                    _START,
                    ExecutionStartContext(inputs, framework=self.framework, **self.fields),
                )
            except HookAborted:
                self.ended = True
                self.close()
                raise
            inputs = ctx.payload
        self.started = True
        if has_hooks(_INPUT):
            inputs = (await adispatch(
                _INPUT, InputContext(inputs, framework=self.framework, **self.fields)
            )).payload
        return inputs

    def _output_context(self, output: Any) -> OutputContext:
        return OutputContext(output, output=output, duration_ms=self.elapsed_ms(), framework=self.framework,
                             **self.fields)

    def _end_context(self, output: Any, status: str, error: BaseException | None = None) -> ExecutionEndContext:
        return ExecutionEndContext(output, output=output, status=status, error=error, duration_ms=self.elapsed_ms(),
                                   framework=self.framework, **self.fields)

    def succeed(self, output: Any) -> Any:
        """Dispatch OUTPUT then EXECUTION_END(completed); returns the final output."""
        if has_hooks(_OUTPUT):
            output = dispatch(_OUTPUT, self._output_context(output)).payload
        self.ended = True
        if has_hooks(_END):
            output = dispatch(_END, self._end_context(output, "completed")).payload
        return output

    async def asucceed(self, output: Any) -> Any:
        """`succeed` for async entry points."""
        if has_hooks(_OUTPUT):
            output = (await adispatch(_OUTPUT, self._output_context(output))).payload
        self.ended = True
        if has_hooks(_END):
            output = (await adispatch(_END, self._end_context(output, "completed"))).payload
        return output

    def fail(self, error: BaseException) -> None:
        """Dispatch EXECUTION_END(failed) once; nothing it raises replaces `error`."""
        if not self.started or self.ended:
            return
        self.ended = True
        if not has_hooks(_END):
            return
        try:
            dispatch(_END, self._end_context(None, "failed", error))
        except Exception:  # HookAborted included: nothing is left to abort
            pass

    async def afail(self, error: BaseException) -> None:
        """`fail` for async entry points."""
        if not self.started or self.ended:
            return
        self.ended = True
        if not has_hooks(_END):
            return
        try:
            await adispatch(_END, self._end_context(None, "failed", error))
        except Exception:  # HookAborted included: nothing is left to abort
            pass

    def close(self) -> None:
        token, self._token = self._token, None
        if token is None:
            return
        try:
            _current_execution.reset(token)
        except ValueError:  # closed from another context (async generators)
            _current_execution.set(None)


@contextmanager
def entered(run: Execution | None) -> Iterator[None]:
    """Make `run` the current execution for one block of work.

    Generator wrappers re-enter their execution around each step of the inner
    generator instead of keeping it set across a `yield` (a ContextVar set in
    one step and reset in another fails when the consumer moves between tasks).
    """
    if run is None:
        yield
        return
    token = _current_execution.set(run)
    try:
        yield
    finally:
        try:
            _current_execution.reset(token)
        except ValueError:
            _current_execution.set(None)


def boundary_hooks_active() -> bool:
    return any(has_hooks(point) for point in EXECUTION_BOUNDARY_POINTS)


def open_execution(framework: str, run_id: str | None = None, **fields: Any) -> Execution | None:
    """An `Execution` for an outermost run, or None when nested or unobserved.

    `fields` are the shared context fields (`agent`, `crew`, `flow`, ...); `run_id` names the run
    (`hookport.runs`; a nested execution's is ignored: the run already has one).
    """
    if _current_execution.get() is not None:
        return None
    if run_id is not None and (not isinstance(run_id, str) or not run_id):
        raise ValueError(f"a run id must be a non-empty string, got {run_id!r}")
    return Execution(framework, fields, run_id)


def run_execution(
    framework: str,
    call: Callable[[Any], T],
    inputs: Any,
    **fields: Any,
) -> T:
    """Run `call(inputs)` as one execution (sync entry points)."""
    run = open_execution(framework, **fields)
    if run is None:
        return call(inputs)
    try:
        inputs = run.begin(inputs)
        return run.succeed(call(inputs))
    except BaseException as error:
        run.fail(error)
        raise
    finally:
        run.close()


async def arun_execution(
    framework: str,
    call: Callable[[Any], Awaitable[T]],
    inputs: Any,
    **fields: Any,
) -> T:
    """Run `await call(inputs)` as one execution (async entry points)."""
    run = open_execution(framework, **fields)
    if run is None:
        return await call(inputs)
    try:
        inputs = await run.abegin(inputs)
        return await run.asucceed(await call(inputs))
    except BaseException as error:
        await run.afail(error)
        raise
    finally:
        run.close()


# -- steps ---------------------------------------------------------------------------


AGENT_TURN = "agent_turn"
"""`StepContext.kind` at AGENT_TURN_START / AGENT_TURN_END: one turn of one agent."""


def pre_step(framework: str, kind: str, step_name: str | None, payload: Any, *,
             point: Point = InterceptionPoint.PRE_STEP, **fields: Any) -> Any:
    """Dispatch PRE_STEP (or AGENT_TURN_START); returns the (possibly replaced) step input.

    Keep ``started = perf_counter()`` from before the step and give it to
    `post_step`, which reports the step's `duration_ms`.
    """
    if not has_hooks(point):
        return payload
    return dispatch(point, StepContext(payload, kind=kind, step_name=step_name, framework=framework, **fields)).payload


def post_step(framework: str, kind: str, step_name: str | None, output: Any, *, started: float | None = None,
              point: Point = InterceptionPoint.POST_STEP, **fields: Any) -> Any:
    """Dispatch POST_STEP (or AGENT_TURN_END); returns the (possibly replaced) step output."""
    if not has_hooks(point):
        return output
    return dispatch(point, _post_step_context(framework, kind, step_name, output, started, fields)).payload


async def apre_step(framework: str, kind: str, step_name: str | None, payload: Any, *,
                    point: Point = InterceptionPoint.PRE_STEP, **fields: Any) -> Any:
    """`pre_step` for async call sites."""
    if not has_hooks(point):
        return payload
    ctx = StepContext(payload, kind=kind, step_name=step_name, framework=framework, **fields)
    return (await adispatch(point, ctx)).payload


async def apost_step(framework: str, kind: str, step_name: str | None, output: Any, *, started: float | None = None,
                     point: Point = InterceptionPoint.POST_STEP, **fields: Any) -> Any:
    """`post_step` for async call sites."""
    if not has_hooks(point):
        return output
    return (await adispatch(point, _post_step_context(framework, kind, step_name, output, started, fields))).payload


def _post_step_context(framework: str, kind: str, step_name: str | None, output: Any, started: float | None,
                       fields: dict[str, Any]) -> StepContext:
    duration = (perf_counter() - started) * 1000.0 if started is not None else None
    return StepContext(output, kind=kind, step_name=step_name, output=output, duration_ms=duration,
                       framework=framework, **fields)


TURN_START: Point = ExtensionPoint.AGENT_TURN_START
TURN_END: Point = ExtensionPoint.AGENT_TURN_END
"""Agent turns are steps fired at these points with ``kind=AGENT_TURN`` and the agent's name
as `step_name`: ``pre_step(fw, AGENT_TURN, name, prompt, point=TURN_START)``."""


# -- re-entrancy -------------------------------------------------------------------------


_NONE_ONLY: frozenset[Hashable] = frozenset((None,))
"""The commonest mark (the model layer's, on an empty guard), made once."""


class ReentrancyGuard:
    """Marks a logical call as dispatched so an inner adapted layer does not dispatch it again.

    `with guard.hold(key): ...` marks `key` (an object id, a call id) for the
    work inside; `guard.held(key)` asks. It is a ContextVar, so it follows the
    work into tasks and copied contexts and never leaks across requests.
    """

    __slots__ = ("_held",)

    def __init__(self, name: str) -> None:
        self._held: ContextVar[frozenset[Hashable]] = ContextVar(f"hookport_guard_{name}", default=frozenset())

    def held(self, key: Hashable = None) -> bool:
        return key in self._held.get()

    def any_held(self) -> bool:
        return bool(self._held.get())

    def hold(self, key: Hashable = None) -> AbstractContextManager[None]:
        """Mark `key` for the work of a ``with`` block (a plain object, not a generator: it is
        entered on every hooked call)."""
        return _Hold(self._held, key)

    def mark(self, key: Hashable = None) -> Token[frozenset[Hashable]]:
        """`hold` for the engine's hottest paths, as two calls instead of a context manager's four:
        ``token = guard.mark()`` ... ``finally: guard.unmark(token)``."""
        held = self._held.get()
        return self._held.set(held | {key} if held else (_NONE_ONLY if key is None else frozenset((key,))))

    def unmark(self, token: Token[frozenset[Hashable]], key: Hashable = None) -> None:
        try:
            self._held.reset(token)
        except ValueError:  # left in another context (an async generator): take the key out
            self._held.set(self._held.get() - {key})


class _Hold:
    """`ReentrancyGuard.hold`'s context manager."""

    __slots__ = ("_var", "_key", "_token")

    def __init__(self, var: ContextVar[frozenset[Hashable]], key: Hashable) -> None:
        self._var = var
        self._key = key

    def __enter__(self) -> None:
        self._token = self._var.set(self._var.get() | {self._key})

    def __exit__(self, *exc: object) -> None:
        try:
            self._var.reset(self._token)
        except ValueError:  # left in another context (an async generator): take the key out
            self._var.set(self._var.get() - {self._key})


# -- a run of the user's own loop ---------------------------------------------------------


class RunHandle:
    """What `execution()` yields: the (possibly replaced) inputs and the run's id; set `output`
    before leaving."""

    __slots__ = ("inputs", "output", "run_id")

    def __init__(self, inputs: Any, run_id: str | None) -> None:
        self.inputs = inputs
        self.output: Any = None
        self.run_id = run_id


@contextmanager
def execution(
    framework: str = "app", inputs: Any = None, *, run_id: str | None = None, **fields: Any
) -> Iterator[RunHandle]:
    """Mark one run of code that has no framework (a loop around an SDK) as an execution.

        with hookport.execution("support-bot", inputs={"question": q}) as run:
            run.output = my_agent_loop(run.inputs)
        answer = run.output        # after OUTPUT hooks

    START / INPUT fire on entry, OUTPUT / END(completed) on a normal exit, END(failed)
    when the block raises; nested inside another execution it fires nothing. `run_id`
    names the run, so that approvals and shared counters find it again after a restart
    or in another process (`hookport.runs`).
    """
    run = open_execution(framework, run_id, **fields)
    handle = RunHandle(inputs, run.run_id if run is not None else current_run_id())
    if run is None:
        yield handle
        return
    try:
        handle.inputs = run.begin(inputs)
        yield handle
        handle.output = run.succeed(handle.output)
    except BaseException as error:
        run.fail(error)
        raise
    finally:
        run.close()
