"""One method guarded on every class of a framework's hierarchy (a tool body's second line of defence).

Frameworks whose tool classes each define their own execution method (ADK's
``BaseTool.run_async``, Pydantic AI's ``AbstractToolset.call_tool``) cannot be
covered by patching the base class: every subclass overrides it. `MethodGuards`
replaces the method in the ``__dict__`` of each class that defines it, for the
classes that exist (`guard_tree`) and for each new one the adapter meets
(`guard_type`, or `watch` for every class defined later), and restores every one
on uninstall (`remove_all`).

A guard is a plain function (with ``__wrapped__``, the method it guards), not a wrapt wrapper: binding a wrapt wrapper costs
~3 µs per call, over the idle budget of a tool call. An override that calls
``super()`` meets two guards; `owner` names the class whose method the instance's
type resolves to, so only that guard acts.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from hookport.adapters._base import _peel

Guard = Callable[[type, Callable[..., Any]], Callable[..., Any]]
"""``guard(klass, original)``: the replacement of `klass`'s own method `original`."""

_MARK = "_hookport_method_guard"


class MethodGuards:
    """The classes whose `method` hookport guarded, and how to restore them."""

    def __init__(self, method: str, guard: Guard, wanted: Callable[[type], bool] = lambda cls: True) -> None:
        self.method = method
        self._guard = guard
        self._wanted = wanted
        self._lock = threading.Lock()
        self.active = False
        self.seen: set[type] = set()
        self._patched: list[tuple[type, Any, Any]] = []  # (class, original, guard)
        self._owner: dict[type, type | None] = {}
        self._watched: list[type] = []

    def guard_type(self, cls: type) -> None:
        """Guard every class of `cls`'s MRO that defines the method and is wanted (once per class)."""
        if cls in self.seen or not self.active:
            return
        with self._lock:
            for klass in cls.__mro__:
                original = klass.__dict__.get(self.method)
                if klass in self.seen or original is None or not callable(original) or not self._wanted(klass):
                    continue
                if getattr(original, _MARK, False):
                    if any(patched is klass for patched, _, _ in self._patched):
                        continue
                    original = original.__wrapped__  # a guarded class copied (``dataclass(slots=True)``)
                guarded = self._guard(klass, original)
                setattr(guarded, _MARK, True)
                setattr(klass, self.method, guarded)
                self._patched.append((klass, original, guarded))
            self.seen.update(cls.__mro__)

    def guard_tree(self, base: type) -> None:
        """Guard `base` and every subclass defined so far."""
        self.active = True
        pending = [base]
        while pending:
            cls = pending.pop()
            self.guard_type(cls)
            pending.extend(cls.__subclasses__())

    def watch(self, base: type) -> None:
        """Guard every class defined from now on under `base` as it is created (``__init_subclass__``):
        a framework whose tool objects do not all pass one constructor hookport could patch."""
        if "__init_subclass__" in base.__dict__:
            return  # the framework's own hook: not replaced (classes are then met by `guard_type`)
        guards = self

        def __init_subclass__(cls: type, **kwargs: Any) -> None:
            super(base, cls).__init_subclass__(**kwargs)  # type: ignore[misc]
            guards.guard_type(cls)

        base.__init_subclass__ = classmethod(__init_subclass__)  # type: ignore[assignment]
        self._watched.append(base)

    def owner(self, cls: type) -> type | None:
        """The class whose method `cls` resolves to (cached)."""
        found = self._owner.get(cls, False)
        if found is False:
            found = next((k for k in cls.__mro__ if self.method in k.__dict__), None)
            self._owner[cls] = found
        return found  # type: ignore[return-value]

    def remove_all(self) -> None:
        """Uninstall: every guarded class gets its own method back."""
        with self._lock:
            self.active = False
            while self._patched:
                klass, original, guarded = self._patched.pop()
                current = klass.__dict__.get(self.method)
                if current is guarded:
                    setattr(klass, self.method, original)
                elif current is not None:  # something wrapped it on top: unhook ours beneath
                    _peel(current, guarded, original)
            while self._watched:
                base = self._watched.pop()
                if "__init_subclass__" in base.__dict__:
                    delattr(base, "__init_subclass__")
            self.seen.clear()
            self._owner.clear()
