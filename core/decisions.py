"""Which tool call was decided: one PRE_TOOL_CALL per call, whichever line of defence sees it first.

A tool call can pass several adapted layers on its way to the tool's code: a
framework's call site, the tool's own body (the second line of defence, wrapped
wherever a framework hands hookport a tool object), an SDK underneath (``mcp``),
another framework's tool wrapped as this one's. The first layer that dispatches
PRE_TOOL_CALL and lets the call through opens a `Decision` for the work of that
call. Every inner layer asks `decided_outside(name, layer)`:

- True (stay silent) when the innermost open decision is for a tool of that name,
  with the same arguments where both sides know them, and this layer has not
  claimed it yet; the layer claims it;
- False otherwise: the layer dispatches PRE_TOOL_CALL itself (and opens its own
  decision, through `hookport.calls.tool_call`).

So a decision is bound to one call, never to a tool's name alone: a second entry of
the same layer under one decision is a new call (a nested tool that shares the
name, a tool that calls itself, an agent used as a tool whose sub-agent calls a
same-named tool), and is dispatched. A body reached with no decision open (a call
site nobody patched, generated code, a workflow node, a thread that did not copy
the context) dispatches too: the guarantee never depends on finding every call site.

The mark is a `ContextVar`, so it follows the call's work into tasks and copied
contexts and never leaks into sibling calls or other requests.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar, Token
from typing import Any

from hookport.points import ExtensionPoint, InterceptionPoint
from hookport.registry import any_hooks
from hookport.reentry import hooks_off

__all__ = ["Decision", "decided", "decided_outside", "in_decided_call", "body_must_decide", "body_layer", "tool_hooks_active",
           "open_decision", "close_decision"]


class Decision:
    """One tool call that a PRE_TOOL_CALL dispatch let through, while its work runs."""

    __slots__ = ("name", "args", "layers", "_token")
    _token: Token[Decision | None]
    """Set by `open_decision`: what `close_decision` resets."""

    def __init__(self, name: str, layer: str, args: Mapping[str, Any] | None) -> None:
        self.name = name
        self.args = args
        """The arguments as the call was decided (the context's dict: rewrites by hooks included)."""
        self.layers = {layer}
        """The layers that have met this call: the one that decided it and those that claimed it."""

    def matches(self, name: str, layer: str, args: Mapping[str, Any] | None) -> bool:
        if name != self.name or layer in self.layers:
            return False
        return args is None or self.args is None or _same_arguments(args, self.args)


_TOOL_POINTS = (InterceptionPoint.PRE_TOOL_CALL, InterceptionPoint.POST_TOOL_CALL, ExtensionPoint.WRAP_TOOL_CALL)

_current: ContextVar[Decision | None] = ContextVar("hookport_tool_decision", default=None)


def decided_outside(name: str | None, layer: str, args: Mapping[str, Any] | None = None) -> bool:
    """True when an outer layer already decided this very call; this layer then claims it.

    `layer` names the asking layer (``"langchain"``, ``"langchain:body"``, ``"mcp"``):
    a layer claims a decision once, so its second entry under the same decision is
    another call. `args`, where the layer knows them, must equal the decided ones.
    """
    decision = _current.get()
    if decision is None or name is None or not decision.matches(name, layer, args):
        return False
    decision.layers.add(layer)
    return True


def in_decided_call() -> bool:
    """True inside the work of any decided tool call (an SDK's tool listing made by a tool)."""
    return _current.get() is not None


def body_must_decide(name: str | None, layer: str, args: Mapping[str, Any] | None = None) -> bool:
    """For a tool's own body: True when it must dispatch PRE_TOOL_CALL itself.

    False when no tool hook would run (the idle path: two lookups) or when a call
    site outside already decided this call (which this body then claims).
    """
    if not tool_hooks_active():
        return False
    return not decided_outside(name, layer, args)


def tool_hooks_active() -> bool:
    """True when a tool call here would run a hook (the idle check of call sites and bodies alike:
    the re-entrancy flag and one registry call): build a context only then."""
    return not hooks_off.get()[0] and any_hooks(_TOOL_POINTS)


def body_layer(framework: str) -> str:
    """The layer name of a framework's tool bodies (its call sites use the framework's name)."""
    return f"{framework}:body"


def open_decision(name: str, layer: str, args: Mapping[str, Any] | None = None) -> Decision:
    """Mark the work that follows as a call a PRE_TOOL_CALL let through, until `close_decision`.

    `decided` as two calls, for the engine's hooked tool call (a ``with`` block costs twice that):
    ``decision = open_decision(...)`` ... ``finally: close_decision(decision)``."""
    decision = Decision(name, layer, args)
    decision._token = _current.set(decision)
    return decision


def close_decision(decision: Decision) -> None:
    """End the mark `open_decision` made."""
    try:
        _current.reset(decision._token)
    except ValueError:  # left in another context (an async generator): drop only this mark
        if _current.get() is decision:
            _current.set(None)


class decided:
    """``with decided(name, layer, args):`` marks the work of a call a PRE_TOOL_CALL let through."""

    __slots__ = ("_name", "_layer", "_args", "_decision")

    def __init__(self, name: str, layer: str, args: Mapping[str, Any] | None = None) -> None:
        self._name, self._layer, self._args = name, layer, args

    def __enter__(self) -> Decision:
        self._decision = open_decision(self._name, self._layer, self._args)
        return self._decision

    def __exit__(self, *exc: object) -> None:
        close_decision(self._decision)


def _same_arguments(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    try:
        return bool(a == b)
    except Exception:  # values whose comparison raises: not provably the same call
        return False
