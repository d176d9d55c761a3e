"""The driver's run and trace context, carried with a task into the worker that runs it.

`carry()` is a small dict of strings (the run id, and the W3C ``traceparent`` /
``tracestate`` of the current span when OpenTelemetry is installed) that an
engine can ship with a task: a Celery header, a keyword argument of a Ray task,
a Dask task's wrapper. In the worker, `continue_run(carrier)` binds the run
without owning it (`hookport.bind_run(id, owner=False)`: the worker's decisions
count in the driver's run, and its end does not end that run) and makes the
driver's span the parent of the worker's spans.

`in_run(fn)` does both for a callable handed to a process pool or
``multiprocessing``: it is picklable when `fn` is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from typing import Any, Optional

from hookport.runs import bind_run, current_run_id

RUN_KEY = "hookport_run_id"


def carry() -> dict[str, str]:
    """The current run and trace context as strings ({} outside any run and span)."""
    carrier: dict[str, str] = {}
    run_id = current_run_id()
    if run_id:
        carrier[RUN_KEY] = run_id
    inject = _otel("inject")
    if inject is not None:
        inject(carrier)
    return carrier


@contextmanager
def continue_run(carrier: Optional[Mapping[str, Any]]) -> Iterator[Optional[str]]:
    """Run the block inside the driver's run (and under its span) that `carrier` names; yields the run id."""
    if not carrier:
        yield None
        return
    with ExitStack() as stack:
        extract = _otel("extract")
        if extract is not None and "traceparent" in carrier:
            from opentelemetry import context

            token = context.attach(extract(dict(carrier)))
            stack.callback(context.detach, token)
        run_id = carrier.get(RUN_KEY)
        if isinstance(run_id, str) and run_id:
            stack.enter_context(bind_run(run_id, owner=False))
        yield run_id if isinstance(run_id, str) and run_id else None


class RunCarried:
    """`fn` called inside the run (and span) current when it was made; picklable when `fn` is."""

    def __init__(self, fn: Callable[..., Any], carrier: Mapping[str, str]) -> None:
        self.fn = fn
        self.carrier = dict(carrier)
        self.__name__ = getattr(fn, "__name__", type(fn).__name__)
        self.__qualname__ = getattr(fn, "__qualname__", self.__name__)
        self.__module__ = getattr(fn, "__module__", __name__)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        with continue_run(self.carrier):
            return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<{self.__qualname__} in run {self.carrier.get(RUN_KEY)}>"


def in_run(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn`, bound to the current run for wherever it is called (a pool's worker process)."""
    carrier = carry()
    return RunCarried(fn, carrier) if carrier else fn


def _otel(name: str) -> Optional[Callable[..., Any]]:
    """``opentelemetry.propagate.inject`` / ``extract`` when OpenTelemetry is installed and loaded."""
    import sys

    if "opentelemetry" not in sys.modules:
        return None
    try:
        from opentelemetry import propagate
    except ImportError:
        return None
    return getattr(propagate, name)
