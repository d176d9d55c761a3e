"""`hookport.propagate()`: the guard set up in code, carried into every process the program starts."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from hookport.cli.launch import AUTOSTART_VARIABLE, HOOK_PATH_VARIABLE
from hookport.fleet.environment import EXPECT_VARIABLE, guard_variables, with_paths
from hookport.fleet.travel import HookCannotTravel, what_travels


@dataclass(frozen=True)
class Propagation:
    """What `propagate` carries: the adapters, hook modules and policy, as the variables a child gets."""

    adapters: tuple[str, ...]
    modules: tuple[str, ...]
    policy: str | None
    environment: dict[str, str] = field(repr=False)
    """The ``HOOKPORT_*`` variables (the engines' integrations send exactly these to their workers)."""


_current: Propagation | None = None


def current() -> Propagation | None:
    """The last `propagate()` of this process, if any."""
    return _current


def propagate(
    *,
    adapters: Sequence[str] | None = None,
    hooks: Sequence[str] = (),
    policy: str | os.PathLike[str] | None = None,
) -> Propagation:
    """Start the guard of this process in every Python process it starts from now on.

    `adapters` defaults to the adapters installed here; hooks travel as the modules
    that define them (plus `hooks`, modules whose import registers hooks made by a
    helper); the policies registered here travel by path (plus `policy`). Raises
    `HookCannotTravel` naming each hook or policy a worker could not load, and
    ValueError when nothing would be guarded or when more than one policy file is in force.
    """
    global _current
    from hookport.cli.launch import LaunchSettings, check_before_launch

    travel = what_travels(hooks, [policy] if policy is not None else [])
    names = tuple(adapters) if adapters is not None else installed_adapters()
    if not names:
        raise ValueError("hookport.propagate(): no adapter is installed here; call adapters.install(...) first, or pass adapters=[...]")
    if len(travel.policies) > 1:
        raise HookCannotTravel([f"more than one policy file is in force ({', '.join(travel.policies)}); a worker loads one"])
    settings = LaunchSettings(
        adapters=names, hooks=tuple(travel.modules), policy=travel.policies[0] if travel.policies else None, otel=otel_on()
    )
    check_before_launch(settings)
    environment = {**guard_variables(), **settings.environment(), AUTOSTART_VARIABLE: "1"}
    for name, value in ((EXPECT_VARIABLE, ",".join(travel.expected)), (HOOK_PATH_VARIABLE, os.pathsep.join(travel.paths))):
        if value:
            environment[name] = value
        else:
            environment.pop(name, None)
    for name in [k for k in guard_variables() if k not in environment]:
        del os.environ[name]
    os.environ.update(environment)
    os.environ["PYTHONPATH"] = with_paths(os.environ.get("PYTHONPATH"))
    _current = Propagation(names, tuple(travel.modules), settings.policy, environment)
    from hookport import integrations
    from hookport.fleet import children, worker

    worker.mark_started(environment)
    children.follow()
    integrations.follow()
    return _current


def installed_adapters() -> tuple[str, ...]:
    from hookport import adapters

    return tuple(adapters.installed())


def otel_on() -> bool:
    import sys

    otel = sys.modules.get("hookport.otel")
    return bool(otel is not None and otel.is_instrumented())
