"""Methods hookport wraps class by class, where smolagents has no base-class choke point.

Every ``Model`` subclass implements its own ``generate``; every ``Tool`` subclass its
own ``forward`` (``@tool`` assigns it after the class is made). `CoveredClasses` wraps
the named methods where a class's MRO defines them, once per class, and restores each
one on uninstall.

Only smolagents' own classes and the user's subclasses of them are ever patched: a class
that is not a subclass of the family's base (``Model``, ``Tool``) is left alone (a
``MagicMock`` model: its MRO's ``__call__`` is ``unittest.mock.CallableMixin``'s, which
every mock in the process shares), and a method the class inherits from a class outside
the family (a mixin of the user's, a third-party base) is wrapped on the covered class
itself, never on that foreign class; uninstall deletes it there again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

import wrapt

Wrapper = Callable[[Any, Any, tuple[Any, ...], dict[str, Any]], Any]


class CoveredClasses:
    """The methods wrapped so far, with the originals uninstall puts back."""

    def __init__(self, wrappers: Mapping[str, Wrapper], marker: type[wrapt.FunctionWrapper],
                 base: Callable[[], type], make: Callable[[Any, Wrapper], Any] | None = None,
                 ours: tuple[type, ...] = ()) -> None:
        self._wrappers = dict(wrappers)
        self._base = base
        """The family's base class (imported on first use): only it and its subclasses are patched."""
        self._make = make or marker
        """What a method becomes (by default `marker` around it)."""
        self._marker: tuple[type, ...] = (marker, *ours)
        """hookport's wrapper types for these methods: a method already of one is never wrapped again."""
        self._lock = threading.Lock()
        self._seen: set[type] = set()
        self._patched: list[tuple[type, str, Any, bool]] = []
        """(class, method, original, whether the class defined it itself) per wrapped method."""
        self.active = False

    def cover(self, cls: type) -> None:
        """Wrap the methods `cls` uses (where its MRO defines them), once."""
        if cls in self._seen or not self.active:
            return
        with self._lock:
            if cls in self._seen or not self.active:
                return
            self._seen.add(cls)
            base = self._base()
            if not (isinstance(cls, type) and issubclass(cls, base)):
                return  # not smolagents' nor a subclass of it (a MagicMock, a duck-typed object): left alone
            for name, wrapper in self._wrappers.items():
                owner = next((k for k in cls.__mro__ if name in k.__dict__), object)
                if owner.__module__ == "builtins" or isinstance(owner.__dict__[name], self._marker):
                    continue  # e.g. a plain function given as the model: nothing of ours to wrap
                original = owner.__dict__[name]
                if not issubclass(owner, base):
                    owner = cls  # inherited from outside the family: wrapped here, the foreign class untouched
                defined = name in owner.__dict__
                try:
                    setattr(owner, name, self._make(original, wrapper))
                except (AttributeError, TypeError):  # a class that refuses new attributes
                    continue
                self._patched.append((owner, name, original, defined))

    def cover_all(self, base: type) -> None:
        """`base` and every subclass defined so far."""
        pending = [base]
        while pending:
            cls = pending.pop()
            self.cover(cls)
            pending.extend(cls.__subclasses__())

    def restore(self) -> None:
        with self._lock:
            self.active = False
            while self._patched:
                owner, name, original, defined = self._patched.pop()
                if isinstance(owner.__dict__.get(name), self._marker):
                    if defined:
                        setattr(owner, name, original)
                    else:
                        delattr(owner, name)
            self._seen.clear()

    def patched(self) -> list[str]:
        return [f"{o.__module__}:{o.__qualname__}.{n}" for o, n, _, _ in self._patched]
