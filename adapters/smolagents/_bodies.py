"""The second line of defence: every tool's own ``forward``, wrapped class by class.

``Tool.__call__`` (the call site) is how smolagents' agents reach a tool, but not the
only way code can: generated code may call ``some_tool.forward(...)``, a ``PipelineTool``
overrides ``__call__``, a future release may add a route. So ``forward`` is wrapped on
every ``Tool`` class: those that exist at install, and the class of each tool made
afterwards (``Tool.validate_arguments`` runs at the end of every tool's ``__init__``);
a ``forward`` assigned to one tool object is wrapped on that object when an agent that
holds it runs (`INSTANCES`).

Before the body runs it asks `body_must_decide`: idle (no tool hook) that is two
lookups; under a call the call site decided it claims the decision and stays silent;
otherwise it dispatches PRE_TOOL_CALL itself and a refusal returns the same refusal
text as the call site. A ``forward`` that calls ``super().forward`` is one call: the
body being run is kept in a ContextVar while hooks are active.
"""

from __future__ import annotations

import threading
import weakref
from functools import partial
from contextvars import ContextVar
from typing import Any

import wrapt

from hookport.decisions import body_layer, body_must_decide, tool_hooks_active

from hookport.adapters.smolagents._classes import CoveredClasses
from hookport.adapters.smolagents._tools import FINAL_ANSWER, FRAMEWORK, decide, tool_input, tool_name

LAYER = body_layer(FRAMEWORK)

_running: ContextVar[Any] = ContextVar("hookport_smolagents_tool_body", default=None)


def forward_entry(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``<Tool class>.forward``: decided at a call site, or decided here."""
    if instance is None or _running.get() is instance or _idle():
        return wrapped(*args, **kwargs)
    name = tool_name(instance)
    token = _running.set(instance)
    try:
        if name == FINAL_ANSWER or not body_must_decide(name, LAYER):
            return wrapped(*args, **kwargs)
        return decide(instance, tool_input(instance, args, kwargs), wrapped, layer=LAYER)
    finally:
        _running.reset(token)


def _idle() -> bool:
    """No tool hook would run (what `body_must_decide` checks first: this is every tool call)."""
    return not tool_hooks_active()


def new_tool(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``Tool.validate_arguments``, which ends every tool's ``__init__``: cover the new tool's class."""
    result = wrapped(*args, **kwargs)
    if instance is not None:
        BODIES.cover(type(instance))
    return result


class _Body(wrapt.FunctionWrapper):  # type: ignore[misc]
    """hookport's wrapper on one tool class's ``forward`` (a type, so it is never wrapped twice)."""


class _Guarded:
    """A ``staticmethod`` or ``classmethod`` ``forward`` (every ``@tool``'s is static), guarded: still
    that descriptor of the same function to whoever reads the class (``instance_to_source`` unwraps
    one ``__wrapped__`` and exports that function's ``__source__``), while ``tool.forward`` is a
    `_Body` that knows its tool (wrapt hands a wrapped ``staticmethod`` no instance)."""

    def __init__(self, original: Any, wrapper: Any) -> None:
        super().__init__(original.__func__)  # type: ignore[call-arg]

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        return _Body(super().__get__(instance, owner), partial(_of, instance))  # type: ignore[misc]


def _of(tool: Any, wrapped: Any, _instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """`forward_entry` for the tool a static or class ``forward`` was read from."""
    return forward_entry(wrapped, tool, args, kwargs)


class _Static(_Guarded, staticmethod):  # type: ignore[misc]
    pass


class _Class(_Guarded, classmethod):  # type: ignore[misc]
    pass


def _guard(original: Any, wrapper: Any) -> Any:
    """A tool class's ``forward`` guarded, of the same descriptor type as `original` so what
    smolagents exports from the class (``instance_to_source``, ``to_dict``, ``save``) is unchanged."""
    if type(original) is staticmethod:
        return _Static(original, wrapper)
    if type(original) is classmethod:
        return _Class(original, wrapper)
    return _Body(original, wrapper)


def _tool_base() -> type:
    from smolagents.tools import Tool

    return Tool


BODIES = CoveredClasses({"forward": forward_entry}, _Body, _tool_base, _guard, (_Static, _Class))
"""The ``forward`` methods hookport wrapped, class by class, so uninstall restores each one."""


class _Instances:
    """Tool objects whose own ``forward`` (assigned to the object, not its class) hookport wrapped."""

    def __init__(self) -> None:
        self._own: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def cover(self, tool: Any) -> None:
        own = vars(tool).get("forward") if hasattr(tool, "__dict__") else None
        if own is None or isinstance(own, _Body) or not callable(own):
            return
        ref = weakref.ref(tool)

        def bound(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
            return forward_entry(wrapped, ref(), args, kwargs)

        with self._lock:
            try:
                tool.forward = _Body(own, bound)
                self._own[tool] = own
            except (AttributeError, TypeError):  # a tool that refuses it: the call site remains
                pass

    def restore(self) -> None:
        with self._lock:
            for tool, own in list(self._own.items()):
                if isinstance(vars(tool).get("forward"), _Body):
                    tool.forward = own
            self._own = weakref.WeakKeyDictionary()


INSTANCES = _Instances()


def cover_tools(tools: Any) -> None:
    """Cover the tools an agent holds: their classes (made before hookport was installed) and a
    ``forward`` assigned to the object itself."""
    for tool in tools or ():
        BODIES.cover(type(tool))
        INSTANCES.cover(tool)
