"""What of this process's guard can travel to another process, and what cannot.

A worker rebuilds the guard the way `hookport run` builds it: it installs the
adapters by name, imports modules (importing one registers its hooks) and loads
policy files by path. So a hook travels as the module that defines it at its top
level, and a policy as the file it was loaded from. Anything else has no name a
worker could find (a lambda, a function defined in ``__main__`` or inside another
function, a policy parsed from a string): `HookCannotTravel`, naming each one,
rather than a worker that silently runs without it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hookport.hooks import original_of
from hookport.points import InterceptionPoint
from hookport.registry import get_hooks

MAIN_MODULES = ("__main__", "__mp_main__")


class HookCannotTravel(ValueError):
    """Part of the guard has no name another process could load it by; the message says which and why."""

    def __init__(self, problems: Sequence[str]) -> None:
        super().__init__(
            "hookport.propagate(): these cannot be started in another process, so workers would run without them: "
            + "; ".join(problems)
        )
        self.problems = list(problems)


@dataclass
class Travel:
    """The guard as names: hook modules (in registration order), policy files, hooks a worker must end up with."""

    modules: list[str] = field(default_factory=list)
    policies: list[str] = field(default_factory=list)
    expected: list[str] = field(default_factory=list)
    """``point=module:qualname`` of each hook, checked in the worker after its modules are imported."""
    paths: list[str] = field(default_factory=list)
    """Directories the hook modules were imported from (a worker on this machine may not have them on its path)."""


def policy_hook_types() -> tuple[type, ...]:
    """The classes of hooks a policy compiles; such hooks travel with their policy's file."""
    if "hookport.policy.rules" not in sys.modules:
        return ()
    from hookport.policy.rules import PolicyHook

    return (PolicyHook,)


def registered_policies() -> list[Any]:
    """The policies whose hooks are registered in this process (none when the policy layer was never loaded);
    a policy whose hooks were cleared (``clear_all_hooks``) is not in force any more."""
    if "hookport.policy" not in sys.modules:
        return []
    from hookport.policy import policies_in_force

    registered = {id(original_of(entry)) for point in InterceptionPoint for entry in get_hooks(point)}
    return [p for p in policies_in_force() if any(id(compiled.hook) in registered for compiled in p.hooks)]


def why_not(hook: Any) -> str | None:
    """Why `hook` cannot be imported by name in another process, or None when it can."""
    module = getattr(hook, "__module__", None)
    qualname = getattr(hook, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str):
        return "it has no module and name (an object made at run time); register a function defined at the top of a module"
    if "<lambda>" in qualname:
        return f"it is a lambda in {module}; define it with def at the top of a module"
    if "<locals>" in qualname:
        return f"it is defined inside {qualname.split('.<locals>')[0]}() in {module}; define it at the top of a module"
    if module in MAIN_MODULES:
        return "it is defined in __main__, which a worker does not import; move it to a module the program imports"
    found = sys.modules.get(module)
    target: Any = found
    for part in qualname.split("."):
        target = getattr(target, part, None)
    if found is None or target is None or original_of(target) is not hook:
        return f"{module}.{qualname} does not name it (a hook made at run time); register a function defined at the top of a module"
    return None


def label(hook: Any) -> str:
    module = getattr(hook, "__module__", "?")
    return f"{module}:{getattr(hook, '__qualname__', None) or getattr(hook, '__name__', None) or type(hook).__name__}"


def module_directory(module: str) -> str | None:
    """The sys.path entry `module` was imported from, if it has a file."""
    found = sys.modules.get(module)
    location = getattr(found, "__file__", None)
    if not location:
        return None
    path = Path(location).resolve().parent
    if Path(location).name == "__init__.py":
        path = path.parent
    for _ in range(module.count(".")):
        path = path.parent
    return str(path)


def what_travels(extra_modules: Iterable[str] = (), extra_policies: Iterable[str | os.PathLike[str]] = ()) -> Travel:
    """Collect the registered hooks and policies as names; raise `HookCannotTravel` for any that has none."""
    travel = Travel(modules=list(dict.fromkeys(extra_modules)))
    problems: list[str] = []
    compiled = policy_hook_types()
    for point in InterceptionPoint:
        for entry in get_hooks(point):
            hook = original_of(entry)
            if compiled and isinstance(hook, compiled):
                continue  # travels with its policy file
            problem = why_not(hook)
            module = getattr(hook, "__module__", None)
            if problem is not None:
                if module in travel.modules and module not in MAIN_MODULES:
                    continue  # a module named explicitly registers it there
                problems.append(f"the {point.value} hook {label(hook)}: {problem}")
                continue
            if module not in travel.modules:
                travel.modules.append(module)
            travel.expected.append(f"{point.value}={label(hook)}")
    for policy in registered_policies():
        path = Path(policy.path)
        if not path.is_file():
            problems.append(f"the policy {policy.name!r}: it was not loaded from a file; load it with hookport.load_policy(path)")
        else:
            travel.policies.append(str(path.resolve()))
    travel.policies.extend(str(Path(p).resolve()) for p in extra_policies)
    travel.policies = list(dict.fromkeys(travel.policies))
    if problems:
        raise HookCannotTravel(problems)
    travel.paths = list(dict.fromkeys(d for d in map(module_directory, travel.modules) if d and not installed(d)))
    return travel


def installed(directory: str) -> bool:
    """True for a directory of the interpreter's own (site-packages, the standard library): every worker has it."""
    prefixes = {str(Path(p).resolve()) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    return any(directory == p or directory.startswith(p + os.sep) for p in prefixes)
