"""Dask: the guard in every worker of a cluster the client connects to, also one already running.

    hookport.propagate()                        # or run the client under `hookport run`
    client = Client("tcp://scheduler:8786")     # the client registers hookport's worker plugin

`instrument` (switched on by `propagate()` / `hookport run` when distributed is
imported) makes every synchronous `Client` register `GuardPlugin` with the
guard's variables: the scheduler hands it to each worker, now and as they
join, and its ``setup`` starts the guard in the worker process
(hookport.fleet.worker.start_worker). A worker that cannot start it closes itself and
its nanny, and the registration fails with the reason (the client raises); one joining later
closes itself too (Dask would only log a plugin's error and keep it). An
asynchronous client registers it itself: ``await client.register_plugin(guard_plugin())``.

A worker process is shared by every client of the cluster: once guarded, it stays
guarded for all of them. Tasks submitted with ``Client.submit`` / ``Client.map``
inside a run carry the run id and trace context (the function is wrapped in a
picklable carrier); futures of ``dask.delayed`` graphs and collections do not.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Optional

import wrapt

from hookport.fleet.carrier import RunCarried, carry
from hookport.fleet.environment import worker_variables
from hookport.fleet.worker import start_worker, started
from hookport.integrations._requires import require

distributed = require("distributed", "dask", "hookport.integrations.dask")

PLUGIN_NAME = "hookport-guard"

_instrumented = False


class GuardPlugin(distributed.WorkerPlugin):  # type: ignore[misc,name-defined]
    """Starts the driver's guard in each worker process it is set up in."""

    name = PLUGIN_NAME

    def __init__(self, variables: Mapping[str, str]) -> None:
        self.variables = dict(variables)

    def setup(self, worker: Any) -> None:
        try:
            start_worker(self.variables, where=f"Dask worker {getattr(worker, 'address', '?')}")
        except Exception:
            if not started():  # unguarded: a worker joining later only logs a plugin's error, so it must not stay
                close_soon(worker)
            raise  # (one already guarded by another client's guard keeps that one)


def close_soon(worker: Any) -> None:
    """Close the worker and its nanny (so it is not restarted) once the error has been reported."""
    import asyncio

    reason = "hookport: the guard could not start in this worker"
    asyncio.get_running_loop().call_later(1.0, lambda: asyncio.ensure_future(worker.close(nanny=True, reason=reason)))


def guard_plugin(variables: Optional[Mapping[str, str]] = None) -> GuardPlugin:
    """The plugin carrying this process's guard; ValueError when no guard runs here."""
    guard = worker_variables() if variables is None else dict(variables)
    if not guard:
        raise ValueError("no hookport guard runs in this process: call hookport.propagate() (or use hookport run) first")
    return GuardPlugin(guard)


def guard(client: Any) -> None:
    """Register the guard on `client`'s cluster (every worker, now and joining later)."""
    client.register_plugin(guard_plugin(), name=PLUGIN_NAME)


class DaskRunCarried(RunCarried):
    """A `RunCarried` Dask can name: the key says the function, the token includes the run."""

    def __dask_tokenize__(self) -> Any:
        from dask.base import tokenize

        return (tokenize(self.fn), sorted(self.carrier.items()))


def instrument() -> None:
    """Guard every synchronous client's cluster and carry runs into submitted tasks; idempotent."""
    global _instrumented
    if _instrumented:
        return
    _instrumented = True
    wrapt.wrap_function_wrapper("distributed", "Client.__init__", _client_init)
    wrapt.wrap_function_wrapper("distributed", "Client.submit", _carrying_first_argument)
    wrapt.wrap_function_wrapper("distributed", "Client.map", _carrying_first_argument)


def _client_init(wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    result = wrapped(*args, **kwargs)
    if worker_variables() and not instance.asynchronous and instance.status == "running":
        guard(instance)
    return result


def _carrying_first_argument(wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    carrier = carry()
    if carrier and args and callable(args[0]) and not isinstance(args[0], RunCarried):
        args = (DaskRunCarried(args[0], carrier), *args[1:])
    return wrapped(*args, **kwargs)
