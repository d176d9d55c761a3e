"""A child given an environment of its own still starts the guard.

``subprocess.Popen(..., env={...})`` (and ``asyncio``'s subprocesses, which use
it), ``os.execve`` / ``os.exec*e`` and ``os.posix_spawn[p]`` hand the child
exactly the mapping they were given, so hookport's variables would be dropped and
the child would run unguarded without anyone being told. While a guard runs in
this process (`hookport run`, `hookport.propagate()`), these calls get the guard's
variables merged into the mapping (hookport.fleet.environment.merge_into): the
child's own entries stay, hookport's are the program's. Children that inherit
the environment (no ``env=``) need nothing: they have the variables already.
"""

from __future__ import annotations

import inspect
import os
import subprocess
from collections.abc import Callable
from typing import Any

import wrapt

from hookport.fleet.environment import is_guarded, merge_into

_followed = False


def guarded_env(env: Any) -> Any:
    """`env` with the guard's variables in it (None, the inherited environment, stays None)."""
    if env is None or not is_guarded():
        return env
    return merge_into(dict(env))


def follow() -> None:
    """Merge the guard into every child environment from now on (idempotent)."""
    global _followed
    if _followed:
        return
    _followed = True
    parameters = [name for name in inspect.signature(subprocess.Popen._execute_child).parameters if name != "self"]
    wrapt.wrap_function_wrapper(subprocess, "Popen._execute_child", env_at(parameters.index("env")))
    for name in ("execve", "posix_spawn", "posix_spawnp"):  # (path, argv, env, ...)
        if hasattr(os, name):
            wrapt.wrap_function_wrapper(os, name, env_at(2))


def env_at(position: int) -> Callable[..., Any]:
    """A wrapt wrapper passing the call's `env` (argument `position`, or ``env=``) through `guarded_env`."""

    def wrapper(wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if "env" in kwargs:
            kwargs["env"] = guarded_env(kwargs["env"])
        elif len(args) > position:
            args = (*args[:position], guarded_env(args[position]), *args[position + 1 :])
        return wrapped(*args, **kwargs)

    return wrapper
