"""The guard as environment variables: what a child process needs to start it before its own code.

The same variables as `hookport run` (hookport.cli.launch: ``HOOKPORT_ADAPTERS``,
``HOOKPORT_HOOKS``, ``HOOKPORT_POLICY``, ``HOOKPORT_OTEL``, ``HOOKPORT_AUTOSTART``
and the bootstrap in front of ``PYTHONPATH``), ``HOOKPORT_HOOK_PATH`` (the directories the hook modules came from, for workers
whose ``sys.path`` lacks them: a spawned process, a Ray worker), plus one of the
fleet's own: ``HOOKPORT_EXPECT_HOOKS``, ``point=module:qualname,...``, the hooks
a worker must have once its modules are imported (else it refuses to start).

Every other ``HOOKPORT_*`` variable set in the driver (``HOOKPORT_COUNTERS``, the
decision log's, strict mode, timeouts) travels as it is.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, MutableMapping

from hookport.cli.launch import AUTOSTART_VARIABLE, bootstrap_path

PREFIX = "HOOKPORT_"
EXPECT_VARIABLE = "HOOKPORT_EXPECT_HOOKS"


def guard_variables(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Every ``HOOKPORT_*`` setting in `environ` (default: this process's)."""
    env = os.environ if environ is None else environ
    return {k: v for k, v in env.items() if k.startswith(PREFIX)}


OTEL_PREFIX = "OTEL_"


def worker_variables(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """What an engine sends to its workers: the guard (its autostart switch left to the worker's start-up)
    and the OpenTelemetry SDK's ``OTEL_*`` settings, so every worker exports to the same backend."""
    env = os.environ if environ is None else environ
    found = {k: v for k, v in env.items() if k.startswith(OTEL_PREFIX)}
    found.update(guard_variables(env))
    found.pop(AUTOSTART_VARIABLE, None)
    return found if any(k.startswith(PREFIX) for k in found) else {}


def is_guarded(environ: Mapping[str, str] | None = None) -> bool:
    """True when `environ` starts hookport in a Python that gets it (the autostart switch is on)."""
    env = os.environ if environ is None else environ
    return bool(env.get(AUTOSTART_VARIABLE))


def with_paths(pythonpath: str | None) -> str:
    """PYTHONPATH for a child: hookport's bootstrap first (as `hookport run` sets it), then the child's own entries."""
    entries = [bootstrap_path(), *(pythonpath or "").split(os.pathsep)]
    return os.pathsep.join(dict.fromkeys(e for e in entries if e))


def merge_into(env: MutableMapping[str, str], guard: Mapping[str, str] | None = None) -> MutableMapping[str, str]:
    """Put the guard's variables into a child's own environment (`env`), replacing any it set itself.

    A child started with ``env={...}`` gets the same guard as every other child: its
    own entries stay, except hookport's, which are the program's.
    """
    variables = guard_variables() if guard is None else dict(guard)
    for name in [k for k in env if k.startswith(PREFIX)]:
        del env[name]
    env.update(variables)
    env["PYTHONPATH"] = with_paths(env.get("PYTHONPATH"))
    return env
