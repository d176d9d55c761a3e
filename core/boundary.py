"""Helpers every adapter shares: execution boundaries, steps, re-entrancy.

`Execution` fires EXECUTION_START -> INPUT ... OUTPUT -> EXECUTION_END for the
outermost run only: a graph that invokes a chain that invokes a graph is one
execution. EXECUTION_END fires exactly once, also on failure (status
"failed", the error attached, the original exception still propagating), and
never when EXECUTION_START itself aborted.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from typing import Any, TypeVar

from hookport.contexts import (
    ExecutionEndContext,
    ExecutionStartContext,
    InputContext,
    OutputContext,
    StepContext,
)
from hookport.dispatch import dispatch
from hookport.errors import HookAborted
from hookport.points import EXECUTION_BOUNDARY_POINTS, InterceptionPoint
from hookport.registry import has_hooks

T = TypeVar("T")

_current_execution: ContextVar[Execution | None] = ContextVar("hookport_execution", default=None)


def current_execution() -> Execution | None:
    """The outermost execution running in this context, if any."""
    return _current_execution.get()


class Execution:
    """One outermost run of a framework entry point.

    Use `open_execution()` to get one (it returns None for a nested run), then
    `begin(inputs)`, and `succeed(output)` or `fail(error)`, and `close()`.
    """

    __slots__ = ("framework", "fields", "started", "ended", "_token")

    def __init__(self, framework: str, fields: dict[str, Any]) -> None:
        self.framework = framework
        self.fields = fields
        self.started = False
        self.ended = False
        self._token: Token[Execution | None] | None = None

    def begin(self, inputs: Any) -> Any:
        """Dispatch EXECUTION_START then INPUT; returns the (possibly replaced) inputs."""
        self._token = _current_execution.set(self)
        if has_hooks(InterceptionPoint.EXECUTION_START):
            try:
                ctx = dispatch(
                    InterceptionPoint.EXECUTION_START,
                    ExecutionStartContext(inputs, framework=self.framework, **self.fields),
                )
            except HookAborted:
                self.ended = True  # the boundary never opened: no END to pair
                self.close()
                raise
            inputs = ctx.payload
        self.started = True
        if has_hooks(InterceptionPoint.INPUT):
            inputs = dispatch(
                InterceptionPoint.INPUT, InputContext(inputs, framework=self.framework, **self.fields)
            ).payload
        return inputs

    def succeed(self, output: Any) -> Any:
        """Dispatch OUTPUT then EXECUTION_END(completed); returns the final output."""
        if has_hooks(InterceptionPoint.OUTPUT):
            output = dispatch(
                InterceptionPoint.OUTPUT,
                OutputContext(output, output=output, framework=self.framework, **self.fields),
            ).payload
        self.ended = True
        if has_hooks(InterceptionPoint.EXECUTION_END):
            output = dispatch(
                InterceptionPoint.EXECUTION_END,
                ExecutionEndContext(
                    output, output=output, status="completed", framework=self.framework, **self.fields
                ),
            ).payload
        return output

    def fail(self, error: BaseException) -> None:
        """Dispatch EXECUTION_END(failed) once; nothing it raises replaces `error`."""
        if not self.started or self.ended:
            return
        self.ended = True
        if not has_hooks(InterceptionPoint.EXECUTION_END):
            return
        try:
            dispatch(
                InterceptionPoint.EXECUTION_END,
                ExecutionEndContext(
                    None, output=None, status="failed", error=error, framework=self.framework, **self.fields
                ),
            )
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


def open_execution(framework: str, **fields: Any) -> Execution | None:
    """An `Execution` for an outermost run, or None when nested or unobserved.

    `fields` are the shared context fields (`agent`, `crew`, `flow`, ...).
    """
    if _current_execution.get() is not None:
        return None
    return Execution(framework, fields)


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
        inputs = run.begin(inputs)
        return run.succeed(await call(inputs))
    except BaseException as error:
        run.fail(error)
        raise
    finally:
        run.close()


# -- steps ---------------------------------------------------------------------------


def pre_step(framework: str, kind: str, step_name: str | None, payload: Any, **fields: Any) -> Any:
    """Dispatch PRE_STEP; returns the (possibly replaced) step input."""
    if not has_hooks(InterceptionPoint.PRE_STEP):
        return payload
    return dispatch(
        InterceptionPoint.PRE_STEP,
        StepContext(payload, kind=kind, step_name=step_name, framework=framework, **fields),
    ).payload


def post_step(framework: str, kind: str, step_name: str | None, output: Any, **fields: Any) -> Any:
    """Dispatch POST_STEP; returns the (possibly replaced) step output."""
    if not has_hooks(InterceptionPoint.POST_STEP):
        return output
    return dispatch(
        InterceptionPoint.POST_STEP,
        StepContext(output, kind=kind, step_name=step_name, output=output, framework=framework, **fields),
    ).payload


# -- re-entrancy -------------------------------------------------------------------------


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

    @contextmanager
    def hold(self, key: Hashable = None) -> Iterator[None]:
        token = self._held.set(self._held.get() | {key})
        try:
            yield
        finally:
            try:
                self._held.reset(token)
            except ValueError:
                self._held.set(self._held.get() - {key})
