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
    registered and ``idle()`` says the call has nothing else to do."""
    if idle is True:
        def method(self: Any, *args: Any, **kwargs: Any) -> Any:
            if not _registered and not registry._open_scopes:
                return original(self, *args, **kwargs)
            return wrapper(MethodType(original, self), self, args, kwargs)
    elif idle:
        def method(self: Any, *args: Any, **kwargs: Any) -> Any:
            if not _registered and not registry._open_scopes and idle():
                return original(self, *args, **kwargs)
            return wrapper(MethodType(original, self), self, args, kwargs)
    else:
        def method(self: Any, *args: Any, **kwargs: Any) -> Any:
            return wrapper(MethodType(original, self), self, args, kwargs)

    return functools.update_wrapper(method, original)


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
