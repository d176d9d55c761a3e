"""Celery: the guard in each pool process of a worker that was not started under `hookport run`.

    # tasks.py, which the worker imports (celery -A tasks worker)
    app = Celery("tasks", broker="redis://127.0.0.1:6379/0")
    hookport.integrations.celery.guard(app, adapters=["langchain"], policy="policy.toml", hooks=["team_guards"])

`guard` checks the settings at once (an unknown adapter, a policy with a
mistake raise here, in every process that imports the module) and connects
``worker_process_init``: each prefork pool process starts the guard right after
the fork, before it takes a task (hookport.fleet.worker.start_worker: a process
that cannot start it exits, so no task runs unguarded). A worker with a pool that
does not fork (``--pool solo`` / ``threads``) starts it at ``worker_init``. A web
app that only sends tasks imports the module too, and stays as it is.

Every task sent inside a run carries the run id and trace context in a message
header (``before_task_publish``); the worker runs the task inside that run
(``task_prerun`` / ``task_postrun``), so the run's limits count its tool calls
(with a shared counter store, ``HOOKPORT_COUNTERS=redis://...``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from contextlib import ExitStack
from typing import Any, Optional

from hookport.cli.launch import EXIT_BAD_SETTINGS
from hookport.fleet.carrier import carry, continue_run
from hookport.fleet.environment import worker_variables
from hookport.fleet.worker import start_worker
from hookport.integrations._requires import require

celery = require("celery", "celery", "hookport.integrations.celery")
from celery import signals  # noqa: E402

HEADER = "hookport"
FORKING_POOLS = ("prefork", "processes")

_instrumented = False
_open_runs: dict[str, ExitStack] = {}
_guards: list[dict[str, str]] = []


def guard(
    app: Any = None,
    *,
    adapters: Optional[Sequence[str]] = None,
    hooks: Sequence[str] = (),
    policy: Optional[str | os.PathLike[str]] = None,
    otel: bool = False,
) -> dict[str, str]:
    """Start this guard in each pool process of a worker of `app`; returns the variables it starts from.

    With no settings, the guard running in this process (`hookport.propagate()`) is used.
    """
    from hookport.cli.launch import LaunchSettings, check_before_launch

    if adapters is None and not hooks and policy is None and not otel:
        variables = worker_variables()
        if not variables:
            raise ValueError("hookport.integrations.celery.guard(): name adapters, hooks or a policy, or call hookport.propagate() first")
    else:
        settings = LaunchSettings.from_options(",".join(adapters) if adapters is not None else None, ",".join(hooks), os.fspath(policy) if policy else None, otel)
        check_before_launch(settings)
        variables = {**worker_variables(), **settings.environment()}
    if app is not None:
        app.conf.hookport_guard = variables
    _guards[:] = [variables]
    instrument()
    return variables


def _start_in_pool_process(**_: Any) -> None:
    """Celery logs and ignores a signal handler's error, so a guard that fails to start ends the process here."""
    where = f"Celery pool process {os.getpid()}"
    try:
        for variables in _guards:
            start_worker(variables, where=where)
    except Exception as error:
        print(f"hookport: not running {where}: {error}", file=sys.stderr, flush=True)
        os._exit(EXIT_BAD_SETTINGS)


def _start_in_worker(sender: Any = None, **_: Any) -> None:
    pool = getattr(getattr(sender, "pool_cls", None), "__module__", "") or str(getattr(sender, "pool_cls", ""))
    if not any(name in pool for name in FORKING_POOLS):
        _start_in_pool_process()


def _publish(headers: Optional[dict[str, Any]] = None, **_: Any) -> None:
    carrier = carry()
    if carrier and headers is not None:
        headers[HEADER] = carrier


def _prerun(task_id: str = "", task: Any = None, **_: Any) -> None:
    carrier = getattr(getattr(task, "request", None), HEADER, None)
    if carrier:
        stack = ExitStack()
        stack.enter_context(continue_run(carrier))
        _open_runs[task_id] = stack


def _postrun(task_id: str = "", **_: Any) -> None:
    stack = _open_runs.pop(task_id, None)
    if stack is not None:
        stack.close()


def instrument() -> None:
    """Carry runs with every task sent and received here, and start guards from `guard`; idempotent."""
    global _instrumented
    if _instrumented:
        return
    _instrumented = True
    signals.worker_process_init.connect(_start_in_pool_process, weak=False)
    signals.worker_init.connect(_start_in_worker, weak=False)
    signals.before_task_publish.connect(_publish, weak=False)
    signals.task_prerun.connect(_prerun, weak=False)
    signals.task_postrun.connect(_postrun, weak=False)
