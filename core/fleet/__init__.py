"""Guards that follow the work into the processes a program starts (docs/fleet.md).

    adapters.install("langchain")
    hookport.load_policy("policy.toml")
    import team_guards                     # registers hooks at import
    hookport.propagate()                   # every Python process started from now on: the same guard

`propagate` writes the guard set up in code (the installed adapters, the modules
that registered hooks, the policies in force, OpenTelemetry export, a shared
counter store) into the ``HOOKPORT_*`` variables `hookport run` uses
(hookport.cli.launch), so every child Python starts hookport before its own code:
subprocesses (also those given an ``env=`` of their own: the guard's variables
are merged in, `hookport.fleet.children`), ``multiprocessing`` with any start
method, process pools. Engines whose workers someone else started get the guard
through their own mechanisms (`hookport.integrations`: Ray's
``worker_process_setup_hook``, a Dask worker plugin, Celery's
``worker_process_init``), and the driver's run id and trace context travel with
each task (`hookport.fleet.carrier`).

A hook travels as the importable module that registers it; one that cannot (a
lambda, a function defined in ``__main__``, a closure) is a `HookCannotTravel`
error at `propagate()` time, naming it. A worker that cannot start the guard
(a module missing there, a hook its module does not register) refuses to start.

This layer sits above the engine and the adapters (it installs adapters in a
worker, as the launcher does); the engine never imports it.
"""

from __future__ import annotations

from hookport.fleet.carrier import carry, continue_run, in_run
from hookport.fleet.propagate import Propagation, propagate
from hookport.fleet.travel import HookCannotTravel
from hookport.fleet.worker import WorkerStartError, start_worker

__all__ = [
    "HookCannotTravel",
    "Propagation",
    "WorkerStartError",
    "carry",
    "continue_run",
    "in_run",
    "propagate",
    "start_worker",
]
