"""What every adapter is made of: a declaration, its patch targets, install/uninstall.

An adapter subclasses `Adapter` and declares, in one place, the distribution
it covers, the version range it supports, the versions the matrix tests, and
its `Target`s (``module:Class.method`` plus a wrapt wrapper). The base class
does the rest the same way for every framework: it checks the version, patches
lazily through wrapt's post-import hooks (so installing before importing the
framework works), reports every target as patched, pending, skipped or
missing, and peels off only its own wrappers on uninstall.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import inspect
import logging
import os
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import wrapt
from pydantic import BaseModel, Field

from hookport.adapters._errors import (
    FrameworkNotInstalledError,
    TargetMissingError,
    UnsupportedVersionError,
)
from hookport.adapters._versions import in_range, installed_version
from hookport.points import InterceptionPoint, Point

logger = logging.getLogger("hookport")

Wrapper = Callable[[Callable[..., Any], Any, tuple[Any, ...], dict[str, Any]], Any]
Mode = Literal["sync", "async", "stream", "astream"]


@dataclass(frozen=True)
class Target:
    """One call site: ``module`` + ``path`` (``"Class.method"``) wrapped by ``wrapper``.

    `points` says which points the site serves, `mode` how it is called. A
    target whose `distribution` is not installed is skipped and reported (an
    optional piece such as langgraph); a target whose module is there but whose
    attribute is not is an error: the framework moved it.
    """

    module: str
    path: str
    wrapper: Wrapper
    points: tuple[Point, ...] = ()
    mode: Mode = "sync"
    distribution: str | None = None
    plain: bool = False
    """Patch this instance method with a plain function rather than a wrapt ``FunctionWrapper``: for
    methods a framework enumerates on every step (llama-index workflows' ``_get_steps`` runs
    ``inspect.getmembers`` and ``hasattr(method, "_step_config")`` on each method of the agent),
    where a failed attribute lookup through wrapt's bound proxy costs ~20k instructions against
    ~2k on a bound method. The wrapper is called the same way (``wrapped`` is the bound original)."""

    @property
    def name(self) -> str:
        return f"{self.module}:{self.path}"


_TARGET_LISTS = ("patched", "pending", "skipped", "missing", "not_offered", "native")
"""The report's lists, which its repr sums up in words rather than printing raw."""


class InstallReport(BaseModel):
    """What `install()` did, target by target."""

    adapter: str
    distribution: str
    version: str | None
    supported: str
    in_supported_range: bool
    patched: list[str] = Field(default_factory=list)
    pending: list[str] = Field(default_factory=list, description="waiting for their module's import")
    skipped: list[str] = Field(default_factory=list, description="optional pieces that are not installed")
    missing: list[str] = Field(default_factory=list, description="targets the framework no longer has")
    not_offered: list[str] = Field(default_factory=list, description="points this framework has no moment for")
    native: list[str] = Field(default_factory=list, description="points served by the framework's own hooks")

    @property
    def ok(self) -> bool:
        return not self.missing

    def __repr_args__(self) -> list[tuple[str | None, object]]:  # pydantic's repr, in words for the lists
        plain = [(k, v) for k, v in super().__repr_args__() if k not in _TARGET_LISTS]
        return [*plain, (None, self.summary())]

    def summary(self) -> str:
        """One line a newcomer reads right: pending targets are waiting, not failed."""
        parts = [f"{len(self.patched)} patched"]
        if self.pending:
            parts.append(
                f"{len(self.pending)} pending (waiting for the framework's import: they are patched "
                "as soon as it is imported; nothing is wrong)"
            )
        if self.skipped:
            parts.append(f"{len(self.skipped)} skipped (optional pieces not installed)")
        if self.missing:
            parts.append(f"{len(self.missing)} MISSING (the framework moved them: {', '.join(self.missing)})")
        if self.native:
            parts.append(f"{len(self.native)} points served by the framework's own hooks")
        if self.not_offered:
            parts.append(f"not offered: {', '.join(self.not_offered)}")
        return "; ".join(parts)

    def __str__(self) -> str:
        return f"{self.adapter} on {self.distribution} {self.version}: {self.summary()}"


class _Patch:
    __slots__ = ("target", "owner", "attribute", "original", "wrapper")

    def __init__(self, target: Target, owner: Any, attribute: str, original: Any, wrapper: Any) -> None:
        self.target = target
        self.owner = owner
        self.attribute = attribute
        self.original = original
        self.wrapper = wrapper


class Adapter:
    """Base class of all adapters; subclasses fill in the declaration."""

    name: ClassVar[str]
    distribution: ClassVar[str]
    """The distribution whose installed version decides support (``langchain-core``)."""
    extra: ClassVar[str]
    """The ``hookport[extra]`` that installs it."""
    supported: ClassVar[str]
    """The supported range, e.g. ``">=0.3,<2"``."""
    test_versions: ClassVar[tuple[str, ...]] = ()
    """What the matrix tests: oldest supported, the last of each line whose call sites differ, the latest."""
    not_offered: ClassVar[frozenset[InterceptionPoint]] = frozenset()

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._patches: list[_Patch] = []
        self._generation = 0
        self._active = False
        self.report: InstallReport | None = None
        self._awaiting: dict[str, list[Callable[[Any], None]]] = {}
        self._import_hooks: set[str] = set()

    # -- declaration -----------------------------------------------------------

    def targets(self) -> Sequence[Target]:
        """The call sites to wrap. Framework imports belong inside the wrappers."""
        return ()

    def activate(self, report: InstallReport) -> None:
        """Attach to the framework. The default patches `targets()`; adapters that
        use a framework's own hook system extend this."""
        self._patch_all(report)

    def deactivate(self) -> None:
        """Detach from the framework; the default peels off every wrapper."""
        self._unpatch_all()

    # -- lifecycle -----------------------------------------------------------------

    @property
    def active(self) -> bool:
        return self._active

    def check_version(self, force: bool = False) -> tuple[str, bool]:
        version = installed_version(self.distribution)
        if version is None:
            raise FrameworkNotInstalledError(self.name, self.distribution, self.extra)
        supported = in_range(version, self.supported)
        if not supported:
            error = UnsupportedVersionError(self.name, self.distribution, version, self.supported)
            if not (force or os.environ.get("HOOKPORT_FORCE_INSTALL") == "1"):
                raise error
            logger.warning("%s (forced)", error)
        return version, supported

    def install(self, force: bool = False) -> InstallReport:
        with self._lock:
            if self._active and self.report is not None:
                return self.report
            version, supported = self.check_version(force)
            report = InstallReport(
                adapter=self.name,
                distribution=self.distribution,
                version=version,
                supported=self.supported,
                in_supported_range=supported,
                not_offered=sorted(p.value for p in self.not_offered),
            )
            self._generation += 1
            self._active = True
            _note_active(self, True)
            self.report = report
            try:
                self.activate(report)
            except BaseException:
                self.uninstall()
                raise
            return report

    def uninstall(self) -> bool:
        with self._lock:
            if not self._active:
                return False
            self._generation += 1
            self._active = False
            _note_active(self, False)
            self._awaiting.clear()
            self.deactivate()
            return True

    def when_imported(self, module_name: str, callback: Callable[[Any], None]) -> None:
        """Call `callback(module)` when `module_name` is imported (now, if it already is).

        At most one wrapt post-import hook is registered per module for the
        adapter's lifetime: callbacks wait in `_awaiting` until the import, and
        uninstall drops them, so install/uninstall cycles leave nothing behind.
        """
        if module_name in sys.modules:
            callback(sys.modules[module_name])
            return
        with self._lock:
            self._awaiting.setdefault(module_name, []).append(callback)
            if module_name in self._import_hooks:
                return
            self._import_hooks.add(module_name)
        wrapt.register_post_import_hook(lambda module, name=module_name: self._imported(name, module), module_name)

    def _imported(self, module_name: str, module: Any) -> None:
        with self._lock:
            self._import_hooks.discard(module_name)  # wrapt fires a hook once
            callbacks = self._awaiting.pop(module_name, [])
        for callback in callbacks:
            callback(module)

    def dry_run(self) -> InstallReport:
        """Resolve every target without patching anything (for `hookport doctor`)."""
        version = installed_version(self.distribution)
        report = InstallReport(
            adapter=self.name,
            distribution=self.distribution,
            version=version,
            supported=self.supported,
            in_supported_range=version is not None and in_range(version, self.supported),
            not_offered=sorted(p.value for p in self.not_offered),
        )
        for target in self.targets():
            try:
                state = self._resolve(target, import_module=True)
            except ImportError:  # a module that is gone, or one needing an extra that is not installed
                state = "missing"
            getattr(report, "patched" if state == "found" else state).append(target.name)
        return report

    # -- patching ------------------------------------------------------------------------

    def _resolve(self, target: Target, import_module: bool) -> str:
        if target.distribution and installed_version(target.distribution) is None:
            return "skipped"
        if target.module not in sys.modules:
            if not import_module:
                return "pending"
            if importlib.util.find_spec(target.module.split(".")[0]) is None:
                return "skipped"
            importlib.import_module(target.module)
        try:
            wrapt.resolve_path(sys.modules[target.module], target.path)
        except AttributeError:
            return "missing"
        return "found"

    def _patch_all(self, report: InstallReport) -> None:
        by_module: dict[str, list[Target]] = {}
        for target in self.targets():
            if target.distribution and installed_version(target.distribution) is None:
                report.skipped.append(target.name)
                continue
            by_module.setdefault(target.module, []).append(target)
        generation = self._generation
        for module_name, targets in by_module.items():
            if module_name in sys.modules:
                self._patch_module(sys.modules[module_name], targets, generation, raise_missing=True)
            else:
                report.pending.extend(t.name for t in targets)
                self.when_imported(
                    module_name,
                    lambda module, ts=targets, g=generation: self._patch_module(module, ts, g, raise_missing=False),
                )

    def _patch_module(self, module: Any, targets: list[Target], generation: int, raise_missing: bool) -> None:
        with self._lock:
            if generation != self._generation or not self._active:
                return  # uninstalled (or reinstalled) before the framework was imported
            report = self.report
            assert report is not None
            for target in targets:
                if target.name in report.pending:
                    report.pending.remove(target.name)
                try:
                    owner, attribute, original = wrapt.resolve_path(module, target.path)
                except AttributeError:
                    report.missing.append(target.name)
                    error = TargetMissingError(self.name, target.name, report.version)
                    if raise_missing:
                        raise error from None
                    logger.error("%s", error)
                    continue
                wrapper = (_plain_method(original, target.wrapper) if target.plain and inspect.isfunction(original)
                           else wrapt.FunctionWrapper(original, target.wrapper))
                setattr(owner, attribute, wrapper)
                self._patches.append(_Patch(target, owner, attribute, original, wrapper))
                report.patched.append(target.name)

    def _unpatch_all(self) -> None:
        while self._patches:
            patch = self._patches.pop()
            current = patch.owner.__dict__.get(patch.attribute) if hasattr(patch.owner, "__dict__") else None
            if current is None:
                current = getattr(patch.owner, patch.attribute, None)
            if current is patch.wrapper:
                setattr(patch.owner, patch.attribute, patch.original)
                continue
            if not _peel(current, patch.wrapper, patch.original):
                logger.warning(
                    "could not remove hookport's wrapper from %s: something replaced it", patch.target.name
                )
        if self.report is not None:
            self.report.patched.clear()
            self.report.pending.clear()


_active_adapters: set[Adapter] = set()
_active_names: frozenset[str] = frozenset()
"""The names of the adapters installed now, whoever installed them (`adapters.install` or an
instance of its own): read on hot paths, so rebuilt on each install and uninstall."""


def _note_active(adapter: Adapter, active: bool) -> None:
    global _active_names
    (_active_adapters.add if active else _active_adapters.discard)(adapter)
    _active_names = frozenset(a.name for a in _active_adapters)


def installed_alone(name: str) -> bool:
    """True when the adapter `name` is the only one installed: no adapter above or below it reads
    the layer marks (`hookport.calls.MODEL_LAYER`), so marks kept only for them can be skipped. An
    adapter installed during a call only misses the marks of that call: it then dispatches that
    call's tool calls itself too (one more dispatch, never one fewer)."""
    names = _active_names
    return len(names) == 1 and name in names


def lazy_wrapper(package: str, module: str, function: str) -> Wrapper:
    """A wrapper that imports ``<package>.<module>`` (and so the framework) on its first call and
    hands every call to its `function`, so installing before the framework's import works."""
    found: list[Wrapper] = []

    def wrapper(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if not found:
            found.append(getattr(importlib.import_module(f"{package}.{module}"), function))
        return found[0](wrapped, instance, args, kwargs)

    wrapper.__name__ = function
    return wrapper


def _plain_method(original: Callable[..., Any], wrapper: Wrapper) -> Callable[..., Any]:
    """`original` (a function in a class) patched by a plain function calling `wrapper` as wrapt would:
    bound, it is an ordinary bound method (see `Target.plain`)."""

    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        return wrapper(original.__get__(self, type(self)), self, args, kwargs)

    return functools.update_wrapper(method, original)


def _peel(outer: Any, ours: Any, original: Any) -> bool:
    """Remove `ours` from under other wrappers (another tool wrapped on top of us)."""
    node = outer
    for _ in range(16):
        inner = getattr(node, "__wrapped__", None)
        if inner is None:
            return False
        if inner is ours:
            try:
                node.__wrapped__ = original
            except (AttributeError, TypeError):
                return False
            return True
        node = inner
    return False
