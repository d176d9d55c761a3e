"""Keep a hookport abort loud on every crewai version.

A `HookAborted` raised by a hookport hook must leave ``kickoff()`` at once.
crewai >= 1.15.19 lets its own `HookAborted` through every retry loop and
fail-open handler; older releases retry it (the agent's ``max_retry_limit``
loop), turn it into a ``ValueError`` (the model-call seams) or log and drop it
(the legacy tool-hook loops). Two mechanisms close that gap:

- `adopt()` gives the user's exception crewai's `HookAborted` as an extra base
  class (same object, same reason and source), so the handlers that crewai
  already has for its own aborts recognise it;
- an `AbortBox`, shared by one outermost run through a ContextVar, records the
  abort. `checkpoint` wrappers (entry points, ``Agent.execute_task``, the
  model-call seams) raise it again if crewai swallowed it, and refuse to start
  a retry after it.
"""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from hookport.errors import HookAborted, LLMCallBlockedError

__all__ = [
    "AbortBox",
    "adopt",
    "checkpoint",
    "current_box",
    "pending_abort",
    "raise_pending",
    "record",
    "set_crewai_bases",
]


class AbortBox:
    """The abort of one run, shared by every thread and task the run starts.

    `error` is a `HookAborted`, or in strict mode a hook's own exception.
    """

    __slots__ = ("error",)

    def __init__(self) -> None:
        self.error: BaseException | None = None


_box: ContextVar[AbortBox | None] = ContextVar("hookport_crewai_abort_box", default=None)
_crewai_bases: tuple[type[BaseException], ...] = ()
_adopted: dict[type[BaseException], type[BaseException]] = {}


def set_crewai_bases(bases: tuple[type[BaseException], ...]) -> None:
    """Which crewai exception classes an adopted abort also becomes (empty before 1.15.3)."""
    global _crewai_bases
    _crewai_bases = bases
    _adopted.clear()


def adopt(error: HookAborted) -> HookAborted:
    """Make `error` an instance of crewai's `HookAborted` too, in place.

    The object keeps its identity, reason, source and traceback, so what the
    caller of ``kickoff()`` catches is what the hook raised.
    """
    wanted = _crewai_bases
    if wanted and isinstance(error, LLMCallBlockedError):
        wanted = (*_crewai_llm_blocked(), *wanted)
    bases = tuple(b for b in wanted if not isinstance(error, b))
    if not bases:
        return error
    cls = type(error)
    adopted = _adopted.get(cls)
    if adopted is None:
        try:
            adopted = type(cls.__name__, (cls, *bases), {"__module__": cls.__module__, "__qualname__": cls.__qualname__})
        except TypeError:  # an incompatible layout: keep the plain class
            return error
        _adopted[cls] = adopted
    try:
        error.__class__ = adopted
    except TypeError:
        pass
    return error


def _crewai_llm_blocked() -> tuple[type[BaseException], ...]:
    """crewai's own ``LLMCallBlockedError`` (1.15.19+), so ``except`` clauses written for it still match."""
    module = sys.modules.get("crewai.llms.base_llm")
    found = getattr(module, "LLMCallBlockedError", None) if module is not None else None
    return (found,) if isinstance(found, type) and issubclass(found, BaseException) else ()


def current_box() -> AbortBox | None:
    return _box.get()


def pending_abort() -> BaseException | None:
    box = _box.get()
    return box.error if box is not None else None


def record(error: HookAborted) -> HookAborted:
    """Remember `error` as the abort of the current run (the first one wins)."""
    adopt(error)
    _remember(error)
    return error


def _remember(error: BaseException) -> None:
    box = _box.get()
    if box is not None and box.error is None:
        box.error = error


class StrictHookError(HookAborted):
    """Carries a hook's exception in strict mode through crewai's fail-open hook loop.

    crewai swallows every exception of a hook except its `HookAborted`; the
    carrier is one, and the run's checkpoints raise the hook's own exception
    (its ``__cause__``) to the caller.
    """


def carry(error: Exception) -> HookAborted:
    """Strict mode: remember the hook's exception for the run and return a carrier to raise."""
    _remember(error)
    carrier = StrictHookError(f"hook raised {type(error).__name__} in strict mode: {error}", source="hookport-strict")
    carrier.__cause__ = error
    return adopt(carrier)


def raise_pending() -> None:
    """Raise the run's abort if there is one (so a retry or a next step never starts)."""
    error = pending_abort()
    if error is not None:
        raise error


@contextmanager
def _scope() -> Iterator[tuple[AbortBox, bool]]:
    box = _box.get()
    if box is not None:
        yield box, False
        return
    box = AbortBox()
    token = _box.set(box)
    try:
        yield box, True
    finally:
        try:
            _box.reset(token)
        except ValueError:
            _box.set(None)


FailureHook = Callable[[Any, BaseException], None]


def _final_error(box: AbortBox, error: BaseException | None) -> BaseException | None:
    """What the call really ends with: the recorded abort wins over whatever hid it."""
    pending = box.error
    if pending is None or error is pending:
        return error
    if error is not None and not isinstance(error, Exception):
        return error  # KeyboardInterrupt, SystemExit: never masked
    return pending


def checkpoint(*, refuse_after_abort: bool = False, on_failure: FailureHook | None = None) -> Callable[..., Any]:
    """A wrapt wrapper: the abort recorded during the call leaves it, whatever crewai did with it.

    With `refuse_after_abort` the call does not even start once the run has
    aborted (``Agent.execute_task``: this is how a retry is refused).
    `on_failure(instance, error)` runs with the error the call ends with.
    """

    def fail(instance: Any, box: AbortBox, error: BaseException | None) -> None:
        final = _final_error(box, error)
        if final is None:
            return
        if on_failure is not None:
            on_failure(instance, final)
        if final is not error:
            raise final.with_traceback(final.__traceback__)

    def sync_wrapper(wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        with _scope() as (box, _owner):
            if refuse_after_abort:
                raise_pending()
            try:
                result = wrapped(*args, **kwargs)
            except BaseException as error:
                fail(instance, box, error)
                raise
            fail(instance, box, None)
            return result

    async def async_wrapper(
        wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        with _scope() as (box, _owner):
            if refuse_after_abort:
                raise_pending()
            try:
                result = await wrapped(*args, **kwargs)
            except BaseException as error:
                fail(instance, box, error)
                raise
            fail(instance, box, None)
            return result

    def choose(wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if inspect.iscoroutinefunction(wrapped):
            return async_wrapper(wrapped, instance, args, kwargs)
        return sync_wrapper(wrapped, instance, args, kwargs)

    return functools.update_wrapper(choose, sync_wrapper)


@contextmanager
def abort_scope() -> Iterator[AbortBox]:
    """Open (or join) the run's abort box around work that is not a wrapt call."""
    with _scope() as (box, _owner):
        yield box


def settle(box: AbortBox, error: BaseException | None) -> None:
    """After a call: re-raise the recorded abort in place of whatever hid it."""
    final = _final_error(box, error)
    if final is not None and final is not error:
        raise final.with_traceback(final.__traceback__)
