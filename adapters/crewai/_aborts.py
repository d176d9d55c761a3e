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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from hookport.errors import HookAborted

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
    """The abort of one run, shared by every thread and task the run starts."""

    __slots__ = ("error",)

    def __init__(self) -> None:
        self.error: HookAborted | None = None


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
    bases = tuple(b for b in _crewai_bases if not isinstance(error, b))
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


def current_box() -> AbortBox | None:
    return _box.get()


def pending_abort() -> HookAborted | None:
    box = _box.get()
    return box.error if box is not None else None


def record(error: HookAborted) -> HookAborted:
    """Remember `error` as the abort of the current run (the first one wins)."""
    adopt(error)
    box = _box.get()
    if box is not None and box.error is None:
        box.error = error
    return error


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


def _settle(box: AbortBox, error: BaseException | None) -> None:
    """After the wrapped call: re-raise the recorded abort in place of whatever hid it."""
    pending = box.error
    if pending is None or error is pending:
        return
    if error is not None and not isinstance(error, Exception):
        return  # KeyboardInterrupt, SystemExit: never masked
    raise pending.with_traceback(pending.__traceback__)


def checkpoint(*, refuse_after_abort: bool = False) -> Callable[..., Any]:
    """A wrapt wrapper: the abort recorded during the call leaves it, whatever crewai did with it.

    With `refuse_after_abort` the call does not even start once the run has
    aborted (``Agent.execute_task``: this is how a retry is refused).
    """

    def sync_wrapper(wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        with _scope() as (box, _owner):
            if refuse_after_abort:
                raise_pending()
            try:
                result = wrapped(*args, **kwargs)
            except BaseException as error:
                _settle(box, error)
                raise
            _settle(box, None)
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
                _settle(box, error)
                raise
            _settle(box, None)
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
    _settle(box, error)
