"""hookport's guard in execution engines whose workers the program does not start itself.

========================  ==================================================  =====================
module                    how a worker gets the guard                          extra
========================  ==================================================  =====================
hookport.integrations.ray     the job's ``runtime_env``: a worker process      ``hookport[ray]``
                              setup hook named by module path, the guard's
                              variables merged into ``env_vars``
hookport.integrations.dask    a worker plugin the client registers on the      ``hookport[dask]``
                              (running) cluster
hookport.integrations.celery  ``worker_process_init``, in each pool process    ``hookport[celery]``
                              after the fork
========================  ==================================================  =====================

Each also carries the driver's run and trace context with every task
(hookport.fleet.carrier). While a guard runs in a process (`hookport run`,
`hookport.propagate()`), `follow` switches each on when its engine is imported,
so ``ray.init(address=...)`` or ``Client("tcp://...")`` needs no change.
"""

from __future__ import annotations

from typing import Any

import wrapt

ENGINES = {"ray": "hookport.integrations.ray", "distributed": "hookport.integrations.dask", "celery": "hookport.integrations.celery"}
"""The engine's top-level module -> the integration that guards its workers."""

_following = False


def follow() -> None:
    """Instrument each engine when (or if already) imported; idempotent."""
    global _following
    if _following:
        return
    _following = True
    for engine, integration in ENGINES.items():
        wrapt.register_post_import_hook(_instrumenter(integration), engine)


def _instrumenter(integration: str) -> Any:
    def instrument(module: Any) -> None:
        import importlib

        importlib.import_module(integration).instrument()

    return instrument
