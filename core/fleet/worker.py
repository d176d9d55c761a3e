"""Start the guard inside a worker process from its variables, once, or refuse to run the worker.

Every way into a worker ends here: `hookport run`'s bootstrap (after
hookport.cli.launch.start it calls `after_start`), Ray's worker setup hook, the
Dask worker plugin and Celery's ``worker_process_init`` (they call `start_worker`
with the variables the driver sent). A worker is guarded once: a second start with
the same guard does nothing, one with a different guard is refused.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from hookport.cli.launch import AUTOSTART_VARIABLE, HOOK_PATH_VARIABLE, LaunchSettings
from hookport.fleet.environment import EXPECT_VARIABLE, OTEL_PREFIX, guard_variables, with_paths
from hookport.hooks import original_of
from hookport.registry import get_hooks

_started: tuple[tuple[str, str], ...] | None = None
"""The guard variables this process started with (None: not started by hookport.fleet or the launcher)."""


class WorkerStartError(RuntimeError):
    """The worker cannot have the driver's guard; it must not run unguarded."""


NOT_THE_GUARD = (AUTOSTART_VARIABLE, HOOK_PATH_VARIABLE)
"""How a guard reached a process, not what it is: left out when two guards are compared."""


def fingerprint(environ: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((k, v) for k, v in guard_variables(environ).items() if k not in NOT_THE_GUARD))


def start_worker(environ: Mapping[str, str] | None = None, *, where: str = "this worker") -> bool:
    """Start the guard described by `environ`'s ``HOOKPORT_*`` variables; False when it already runs here.

    The variables are also copied into ``os.environ``, so the worker's own child
    processes start the same guard. Raises `WorkerStartError` (or the launcher's
    errors) when the guard cannot start: callers let it stop the worker.
    """
    global _started
    from hookport.cli.launch import start

    env = dict(os.environ if environ is None else environ)
    wanted = fingerprint(env)
    if _started is not None:
        if _started == wanted:
            return False
        raise WorkerStartError(
            f"{where} already runs a hookport guard ({dict(_started)}); refusing to add a different one ({dict(wanted)})"
        )
    os.environ.update(guard_variables(env))  # the hook path too: the launcher's start reads it from here
    if environ is not None:  # the driver's OpenTelemetry settings, so this worker exports where the driver does
        os.environ.update({k: v for k, v in environ.items() if k.startswith(OTEL_PREFIX)})
    os.environ[AUTOSTART_VARIABLE] = "1"  # the worker's own children start it too
    os.environ["PYTHONPATH"] = with_paths(os.environ.get("PYTHONPATH"))
    start(LaunchSettings.from_environment(env))  # calls after_start
    _started = wanted  # the guard asked for (the worker's own extra HOOKPORT_* settings are not part of it)
    return True


def after_start(environ: Mapping[str, str] | None = None) -> None:
    """What the fleet adds once the launcher's start has run: the hooks check, children, engines, the process on spans."""
    global _started
    env = os.environ if environ is None else environ
    check_expected(env.get(EXPECT_VARIABLE, ""))
    _started = fingerprint(env)
    from hookport import integrations
    from hookport.fleet import children, telemetry

    children.follow()
    integrations.follow()
    if LaunchSettings.from_environment(env).otel:
        telemetry.mark_process()


def check_expected(expected: str) -> None:
    """Refuse a worker in which a hook the driver had is missing after its modules were imported."""
    registered: dict[str, set[str]] = {}
    missing = []
    for item in filter(None, (part.strip() for part in expected.split(","))):
        point, _, name = item.partition("=")
        if point not in registered:
            registered[point] = {label_of(original_of(entry)) for entry in get_hooks(point)}
        if name not in registered[point]:
            missing.append(f"{name} at {point}")
    if missing:
        raise WorkerStartError(
            "the driver's hooks " + ", ".join(missing) + " are not registered in this worker after importing their "
            "modules; register them when the module is imported (a decorator or a call at the module's top level)"
        )


def label_of(hook: Any) -> str:
    return f"{getattr(hook, '__module__', '?')}:{getattr(hook, '__qualname__', '?')}"


def mark_started(environ: Mapping[str, str]) -> None:
    """The driver that called `propagate()` runs the guard it sends (a worker plugin sent back to it does nothing)."""
    global _started
    _started = fingerprint(environ)


def started() -> bool:
    """True once a guard runs in this process (started by the launcher's bootstrap or by `start_worker`)."""
    return _started is not None
