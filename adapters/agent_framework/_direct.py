"""Plain functions in place of the base's wrapt proxies on the targets every run passes (issue #29).

A wrapt ``FunctionWrapper`` on a method builds a bound wrapper at every attribute read and
parses its arguments by keyword: about 7,000 CPU instructions per call before the adapter's
wrapper runs, against about 3,000 for a plain function (Python 3.11, wrapt 2.5). The base
still patches every `Target` with wrapt (the install report, the points each target serves and
`uninstall` stay the base's); once it has, `DirectPatches` puts a plain function over the proxy
that answers the idle case itself (one or two lookups) and hands any other call to the same
wrapper, with the original bound to the instance as wrapt would have given it. On uninstall the
proxy goes back first (also from under a wrapper someone put over ours), so the base peels it as usual.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from types import MethodType
from typing import Any

import wrapt

from hookport import registry

Wrapper = Callable[[Any, Any, tuple[Any, ...], dict[str, Any]], Any]
Idle = Callable[[], bool]
_registered = registry._global
"""The points with global hooks (changed in place): empty, with no scope open, is "nothing registered"."""


def direct(original: Any, wrapper: Wrapper, idle: Idle | bool = False) -> Any:
    """A plain method calling ``wrapper(bound original, self, args, kwargs)``; with `idle` True,
    ``original`` itself while nothing is registered; with `idle` a function, while nothing is
    registered and ``idle()`` says the call has nothing else to do.

    The method has the original's own parameters (names, kinds, the same default objects), so a
    call passes through without its keywords packed into a dict and unpacked again (the runs
    and requests here take seven to ten keywords); one whose signature cannot be read takes
    ``*args, **kwargs``. The wrapper gets the call's arguments as wrapt would give them after
    binding: positional parameters as ``args`` (by keyword when the function has no ``*args``),
    the rest as ``kwargs``."""
    source, names = _source(original, idle)
    namespace: dict[str, Any] = {"original": original, "wrapper": wrapper, "idle": idle, "MethodType": MethodType,
                                 "_registered": _registered, "registry": registry, **names}
    exec(compile(source, f"<hookport direct {original.__qualname__}>", "exec"), namespace)  # noqa: S102
    return functools.update_wrapper(namespace["method"], original)


def _source(original: Any, idle: Idle | bool) -> tuple[str, dict[str, Any]]:
    """The text of `direct`'s method, and the default objects it names."""
    try:
        parameters = list(inspect.signature(original, follow_wrapped=False).parameters.values())[1:]
    except (TypeError, ValueError):
        parameters = None
    names: dict[str, Any] = {}
    if parameters is None or any(p.name in _RESERVED for p in parameters):
        head, forward, args, kwargs = "*args, **kwargs", "*args, **kwargs", "args", "kwargs"
    else:
        head_parts: list[str] = []
        forward_parts: list[str] = []
        positional: list[str] = []
        keywords: list[str] = []
        extra_args = extra_kwargs = ""
        star = any(p.kind is p.VAR_POSITIONAL for p in parameters)
        for index, p in enumerate(parameters):
            default = ""
            if p.default is not p.empty:
                names[f"_default{index}"] = p.default
                default = f"=_default{index}"
            if p.kind is p.POSITIONAL_ONLY:
                head_parts.append(p.name + default)
                forward_parts.append(p.name)
                positional.append(p.name)
                if index + 1 == len(parameters) or parameters[index + 1].kind is not p.POSITIONAL_ONLY:
                    head_parts.append("/")
            elif p.kind is p.POSITIONAL_OR_KEYWORD:
                head_parts.append(p.name + default)
                if star:
                    forward_parts.append(p.name)
                    positional.append(p.name)
                else:
                    forward_parts.append(f"{p.name}={p.name}")
                    keywords.append(p.name)
            elif p.kind is p.VAR_POSITIONAL:
                head_parts.append(f"*{p.name}")
                forward_parts.append(f"*{p.name}")
                extra_args = p.name
            elif p.kind is p.KEYWORD_ONLY:
                if not star and "*" not in head_parts:
                    head_parts.append("*")
                head_parts.append(p.name + default)
                forward_parts.append(f"{p.name}={p.name}")
                keywords.append(p.name)
            else:
                head_parts.append(f"**{p.name}")
                forward_parts.append(f"**{p.name}")
                extra_kwargs = p.name
        head, forward = ", ".join(head_parts), ", ".join(forward_parts)
        args = "(" + "".join(f"{n}, " for n in positional) + ")"
        if extra_args:
            args = f"({args} + {extra_args})" if positional else extra_args
        kwargs = "{" + ", ".join([*(f"{n!r}: {n}" for n in keywords), *([f"**{extra_kwargs}"] if extra_kwargs else [])]) + "}"
    check = {True: "not _registered and not registry._open_scopes",
             False: ""}.get(idle, "not _registered and not registry._open_scopes and idle()")  # type: ignore[call-overload]
    lines = [f"def method(self{', ' if head else ''}{head}):"]
    if check:
        lines.append(f"    if {check}:")
        lines.append(f"        return original(self{', ' if forward else ''}{forward})")
    lines.append(f"    return wrapper(MethodType(original, self), self, {args}, {kwargs})")
    return "\n".join(lines) + "\n", names


_RESERVED = frozenset({"self", "original", "wrapper", "idle", "MethodType", "_registered", "registry"})
"""Names the generated method uses itself: a parameter with one of them gets ``*args, **kwargs``."""


class DirectPatches:
    """The plain functions placed over the base's proxies, and how to take them off."""

    def __init__(self) -> None:
        self._placed: list[tuple[type, str, Any, Any]] = []

    def place(self, owner: Any, attribute: str, wrapper: Wrapper, idle: Idle | bool = False) -> bool:
        """Put a plain function over ``owner.attribute`` when it is the base's proxy of `wrapper`."""
        proxy = getattr(owner, "__dict__", {}).get(attribute)
        if not isinstance(proxy, wrapt.FunctionWrapper) or getattr(proxy, "_self_wrapper", None) is not wrapper:
            return False
        if not inspect.isfunction(proxy.__wrapped__):  # a descriptor of another kind: wrapt binds it
            return False
        plain = direct(proxy.__wrapped__, wrapper, idle)
        setattr(owner, attribute, plain)
        self._placed.append((owner, attribute, proxy, plain))
        return True

    def remove(self) -> None:
        """Put the proxies back, also from under a wrapper someone put over ours (the base then
        removes them as usual)."""
        while self._placed:
            owner, attribute, proxy, plain = self._placed.pop()
            node = owner.__dict__.get(attribute)
            if node is plain:
                setattr(owner, attribute, proxy)
                continue
            for _ in range(16):
                inner = getattr(node, "__wrapped__", None)
                if inner is None:
                    break
                if inner is plain:
                    try:
                        node.__wrapped__ = proxy
                    except (AttributeError, TypeError):
                        pass
                    break
                node = inner
