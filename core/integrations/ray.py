"""Ray: the guard in every worker process of the job, also on a cluster that was already running.

    hookport.propagate()                       # or run the driver under `hookport run`
    ray.init(address="ray://head:10001")        # the job's runtime_env now carries the guard

`instrument` (switched on by `propagate()` / `hookport run` when ray is imported)
merges into the job's ``runtime_env``: the guard's variables into ``env_vars``
(hookport.fleet.environment.worker_variables), and `setup_worker`, named by
module path, as the ``worker_process_setup_hook``; a setup hook of the
program's own still runs, after hookport's. Ray merges the job's ``env_vars``
with a task's or actor's own ``runtime_env``, and the setup hook travels in them,
so a task started with ``runtime_env={"env_vars": {...}}`` is guarded too. A
worker whose guard cannot start (a hook module missing on that node) exits
before it runs a task, and the task fails (``WorkerCrashedError``, the reason in
the worker's log).

Each task submitted inside a run carries the run id and trace context (a
keyword argument hookport adds to the remote function and removes before your
function runs); actor method calls do not (an actor counts under the run it
binds itself: `hookport.fleet.continue_run(carrier)` with a `carry()` passed in).
"""

from __future__ import annotations

import functools
import importlib
import inspect
import os
from collections.abc import Callable, Mapping
from contextlib import nullcontext
from typing import Any, Optional

import wrapt

from hookport.fleet.carrier import carry, continue_run
from hookport.fleet.environment import worker_variables
from hookport.fleet.worker import start_worker
from hookport.integrations._requires import require

ray = require("ray", "ray", "hookport.integrations.ray")

SETUP_HOOK = "hookport.integrations.ray.setup_worker"
NEXT_HOOK_VARIABLE = "HOOKPORT_RAY_NEXT_SETUP_HOOK"
"""The program's own ``worker_process_setup_hook`` (a module path), run after hookport's."""
CARRIER_ARGUMENT = "_hookport_run"

_instrumented = False


def setup_worker() -> None:
    """Ray's worker process setup hook: start the guard from the job's ``env_vars``, then the program's hook."""
    start_worker(where=f"Ray worker process {os.getpid()}")
    following = os.environ.get(NEXT_HOOK_VARIABLE)
    if following:
        module, _, name = following.rpartition(".")
        getattr(importlib.import_module(module), name)()


class ChainedSetup:
    """hookport's setup, then a setup hook the program gave as a callable (Ray pickles both)."""

    def __init__(self, following: Callable[[], Any]) -> None:
        self.following = following
        self.__name__ = getattr(following, "__name__", "setup")

    def __call__(self) -> Any:
        setup_worker()
        return self.following()


def runtime_env(existing: Optional[Mapping[str, Any]] = None, variables: Optional[Mapping[str, str]] = None) -> dict[str, Any]:
    """`existing` (a job's runtime_env, or None) with the guard merged in; unchanged when no guard runs here."""
    merged: dict[str, Any] = dict(existing or {})
    guard = worker_variables() if variables is None else dict(variables)
    if not guard:
        return merged
    env_vars = {**dict(merged.get("env_vars") or {}), **guard}
    own = merged.get("worker_process_setup_hook")
    if own is None or own == SETUP_HOOK or isinstance(own, ChainedSetup):
        merged["worker_process_setup_hook"] = own or SETUP_HOOK
    elif isinstance(own, str):
        env_vars[NEXT_HOOK_VARIABLE] = own
        merged["worker_process_setup_hook"] = SETUP_HOOK
    else:
        merged["worker_process_setup_hook"] = ChainedSetup(own)
    merged["env_vars"] = env_vars
    return merged


def instrument() -> None:
    """Guard every job this process starts with ``ray.init`` and carry runs into tasks; idempotent."""
    global _instrumented
    if _instrumented:
        return
    _instrumented = True
    wrapt.wrap_function_wrapper(ray, "init", _init)
    wrapt.wrap_function_wrapper("ray.remote_function", "RemoteFunction._remote", _remote)


def _init(wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    job_config = kwargs.get("job_config")
    if job_config is not None and getattr(job_config, "runtime_env", None) and kwargs.get("runtime_env") is None:
        job_config.set_runtime_env(runtime_env(job_config.runtime_env))
    else:
        kwargs["runtime_env"] = runtime_env(kwargs.get("runtime_env"))
    return wrapped(*args, **kwargs)


def _remote(wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    if not getattr(instance, "_is_cross_language", False):
        with getattr(instance, "_inject_lock", None) or nullcontext():
            if getattr(instance, "_function_signature", None) is None and not getattr(instance, "_hookport_carries_run", False):
                instance._function = accepting_carrier(instance._function)  # before Ray reads its signature
                instance._hookport_carries_run = True
    carrier = carry() if getattr(instance, "_hookport_carries_run", False) else None
    if carrier:
        kwargs["kwargs"] = {**(kwargs.get("kwargs") or {}), CARRIER_ARGUMENT: carrier}
    return wrapped(*args, **kwargs)


def accepting_carrier(function: Callable[..., Any]) -> Callable[..., Any]:
    """`function` with one more keyword-only argument, the carrier, which it runs inside and never sees."""
    if inspect.isgeneratorfunction(function):

        @functools.wraps(function)
        def carrying(*args: Any, _hookport_run: Optional[dict[str, str]] = None, **kwargs: Any) -> Any:
            with continue_run(_hookport_run):
                yield from function(*args, **kwargs)

    else:

        @functools.wraps(function)
        def carrying(*args: Any, _hookport_run: Optional[dict[str, str]] = None, **kwargs: Any) -> Any:
            with continue_run(_hookport_run):
                return function(*args, **kwargs)

    signature = inspect.signature(function)
    parameters = list(signature.parameters.values())
    extra = inspect.Parameter(CARRIER_ARGUMENT, inspect.Parameter.KEYWORD_ONLY, default=None)
    at = next((i for i, p in enumerate(parameters) if p.kind is p.VAR_KEYWORD), len(parameters))
    carrying.__signature__ = signature.replace(parameters=[*parameters[:at], extra, *parameters[at:]])  # type: ignore[attr-defined]
    return carrying
