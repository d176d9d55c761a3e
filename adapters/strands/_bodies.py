"""The second line of defence: a Strands tool's own ``stream(tool_use, invocation_state, ...)``.

Every tool Strands runs is an ``AgentTool`` whose ``stream`` the executor (or its
``ExecuteToolStage`` terminal) calls with the tool use as it stands after the app's own
``BeforeToolCallEvent`` callbacks and middleware. So the body decides on the tool that
really runs: a callback that renamed the call, swapped ``selected_tool`` or rewrote the
input reaches a body whose call was not decided (a different name or arguments than the
call site saw), and the body dispatches PRE_TOOL_CALL itself (a re-run of the decided use,
``AfterToolCallEvent.retry``, is the same call: ``DECIDED_USE``); a refusal is the same
``toolResult`` with ``status: "error"`` as at the call site. A body whose call the call
site decided claims it and stays silent (one PRE and one POST per call).

The built-in tool classes are patched by class (`BUILT_IN`); a class of the app's own
(an ``AgentTool`` subclass) is patched when a registry first registers one of its tools,
and unpatched when the last adapter instance that guards it is uninstalled (`AppToolClasses`).
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from typing import Any

import wrapt

from hookport import registry
from hookport.adapters.strands._events import drained
from hookport.adapters.strands._state import FRAMEWORK, agent_fields, agent_of
from hookport.adapters.strands._tools import DECIDED_USE, SHAPE, ToolOutcome, decided_use, hooked_input
from hookport.calls import atool_call
from hookport.contexts import ToolCallHookContext
from hookport.decisions import body_layer, decided_outside, tool_hooks_active

LAYER = body_layer(FRAMEWORK)
BUILT_IN = (
    ("strands.tools.decorator", "DecoratedFunctionTool.stream"),
    ("strands.tools.tools", "PythonAgentTool.stream"),
    ("strands.tools.mcp.mcp_agent_tool", "MCPAgentTool.stream"),
)
"""The ``stream`` of every tool class Strands ships in all supported releases, patched by the adapter's
targets (plain functions, not wrapt); ``_AgentAsTool`` (``agent.as_tool()``, 1.5x+) is guarded when its
module is imported, the app's own ``AgentTool`` classes when their first tool is registered."""
_BUILT_IN_OWNERS = frozenset((module, path.rpartition(".")[0]) for module, path in BUILT_IN)


def tool_body(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``AgentTool.stream(tool_use, invocation_state, ...)``: dispatch unless a call site decided this call."""
    if not registry._global and not registry._open_scopes or not tool_hooks_active():
        return wrapped(*args, **kwargs)  # the first test: nothing registered at all, no call
    tool_use = args[0] if args else kwargs.get("tool_use")
    given = tool_use.get("input") if isinstance(tool_use, dict) else None
    name = getattr(instance, "tool_name", None)
    if decided_outside(name, LAYER, given if isinstance(given, dict) else None) \
            or (isinstance(tool_use, dict) and DECIDED_USE.get() == (str(tool_use.get("toolUseId")), name, given)):
        return wrapped(*args, **kwargs)
    return _guarded(wrapped, str(name), tool_use, args, kwargs)


async def _guarded(wrapped: Any, name: str, tool_use: dict[str, Any], args: tuple[Any, ...],
                   kwargs: dict[str, Any]) -> AsyncIterator[Any]:
    state = args[1] if len(args) > 1 else kwargs.get("invocation_state")
    given = tool_use.get("input")
    call_id = str(tool_use.get("toolUseId"))
    ctx = ToolCallHookContext(name, hooked_input(given), tool_call_id=call_id,
                              framework=FRAMEWORK, **agent_fields(agent_of(state)))

    async def run(c: ToolCallHookContext) -> ToolOutcome:
        use = decided_use(tool_use, given, c.tool_input)
        token = DECIDED_USE.set((call_id, name, use.get("input")))
        try:
            events = wrapped(use, *args[1:], **kwargs) if args else wrapped(**{**kwargs, "tool_use": use})
            return ToolOutcome(await drained(events), call_id)
        finally:
            DECIDED_USE.reset(token)

    outcome = await atool_call(ctx, run, SHAPE, layer=LAYER)
    for event in outcome.events:
        yield event


class AppToolClasses:
    """The tool classes one adapter instance guards as they appear (the app's own ``AgentTool``
    subclasses, at registration; ``_AgentAsTool``, at its import on the releases that have it),
    until that instance is uninstalled.

    The patch itself is shared by every instance (`_HELD`: one wrapper per class, and who holds
    it): two adapters in one process guard a class once, and uninstalling one leaves the class
    guarded while the other still holds it.
    """

    def __init__(self) -> None:
        self._mine: set[type] = set()

    def guard(self, tool: Any) -> None:
        """Patch the ``stream`` of `tool`'s class where that class defines it, once (a subclass of a
        built-in tool class too: its ``super().stream`` sees the same decided use and stays silent)."""
        self.guard_class(type(tool))

    def guard_class(self, cls: type) -> None:
        owner = next((c for c in cls.__mro__ if "stream" in c.__dict__), None)
        if owner is None or owner in self._mine:
            return
        with _LOCK:
            held = _HELD.get(owner)
            if held is None:
                stream = owner.__dict__["stream"]
                if _patched_by_target(owner, stream) or getattr(stream, "__isabstractmethod__", False):
                    return  # a built-in class (patched by its target) or the abstract AgentTool
                held = _HELD[owner] = (stream, set())
                setattr(owner, "stream", wrapt.FunctionWrapper(stream, tool_body))
            held[1].add(self)
            self._mine.add(owner)

    def restore(self) -> None:
        """Let go of this instance's classes; a class no other instance holds gets its own ``stream`` back."""
        with _LOCK:
            for owner in self._mine:
                original, holders = _HELD[owner]
                holders.discard(self)
                if not holders:
                    setattr(owner, "stream", original)
                    del _HELD[owner]
            self._mine.clear()

    def register_tool(self, wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """``ToolRegistry.register_tool(tool)``: every tool an agent will run, its class guarded first."""
        tool = args[0] if args else kwargs.get("tool")
        if tool is not None:
            self.guard(tool)
        return wrapped(*args, **kwargs)


def _patched_by_target(owner: type, stream: Any) -> bool:
    """True for a class whose ``stream`` one of the adapter's targets patches (`BUILT_IN`)."""
    return isinstance(stream, wrapt.FunctionWrapper) or (owner.__module__, owner.__qualname__) in _BUILT_IN_OWNERS


_HELD: dict[type, tuple[Any, set[AppToolClasses]]] = {}
"""Each guarded class -> its own ``stream`` and the adapter instances that hold its guard."""
_LOCK = threading.Lock()
