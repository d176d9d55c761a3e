"""Which run a call belongs to: the run id every layer above the engine keys its state by.

A run is the outermost execution (`hookport.boundary.Execution`). Its id is a
string that is stable for as long as the run lasts, and that a program can name
itself so that state kept outside the process (approvals, shared counters, the
decision log) finds the same run again after a restart or in another process:

    with hookport.execution("support-bot", run_id=ticket.id):
        ...
    with hookport.runs.bind_run(ticket.id):   # a framework's own entry point inside
        agent.invoke(...)

Without a name a run gets a fresh random id. `bind_run(id, owner=False)` is how
a worker continues a run that another process owns: its executions take the id,
but their end does not end the run (shared state is the owner's to drop).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, NamedTuple, Optional

if TYPE_CHECKING:
    from hookport.boundary import Execution

__all__ = ["BoundRun", "bind_run", "bound_run", "current_execution", "current_run_id", "new_run_id"]

_current_execution: ContextVar[Optional[Execution]] = ContextVar("hookport_execution", default=None)


class BoundRun(NamedTuple):
    """A run named by `bind_run`: its id, and whether this process owns it."""

    run_id: str
    owner: bool


_bound: ContextVar[Optional[BoundRun]] = ContextVar("hookport_bound_run", default=None)


def current_execution() -> Optional[Execution]:
    """The outermost execution running in this context, if any."""
    return _current_execution.get()


def current_run_id() -> Optional[str]:
    """The id of the run this code belongs to: the current execution's, else the one `bind_run`
    named, else None (a call outside any run)."""
    run = _current_execution.get()
    if run is not None:
        return run.run_id
    bound = _bound.get()
    return bound.run_id if bound is not None else None


def bound_run() -> Optional[BoundRun]:
    """The run `bind_run` named for this context, if any (an execution opened now adopts it)."""
    return _bound.get()


class _RunIds:
    """Fresh run ids without a `uuid4` per run (about 2-7 µs, as much as a hooked call).

    An id is this process's 64 random bits (drawn once, and again in a forked child) and a
    64-bit counter: 32 hex digits, unique across processes and hosts as a uuid4 is, at
    the cost of one counter step.
    """

    def __init__(self) -> None:
        self.reseed()

    def reseed(self) -> None:
        self.prefix = os.urandom(8).hex()
        self.counter = itertools.count(int.from_bytes(os.urandom(4), "big"))

    def new(self) -> str:
        return f"{self.prefix}{next(self.counter) & 0xFFFF_FFFF_FFFF_FFFF:016x}"


_run_ids = _RunIds()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_run_ids.reseed)


def new_run_id() -> str:
    """A fresh run id: 32 hex digits, unique across processes and hosts."""
    return _run_ids.new()


@contextmanager
def bind_run(run_id: str, *, owner: bool = True) -> Iterator[str]:
    """Name the run for the code in this block: an execution opened inside takes `run_id`.

    ``owner=False`` (a worker doing part of another process's run) keeps the run's shared state
    when the local execution ends. Raises ValueError for an empty or non-string id.
    """
    if not isinstance(run_id, str) or not run_id:
        raise ValueError(f"a run id must be a non-empty string, got {run_id!r}")
    token = _bound.set(BoundRun(run_id, owner))
    try:
        yield run_id
    finally:
        try:
            _bound.reset(token)
        except ValueError:  # left in another context (an async generator)
            _bound.set(None)
