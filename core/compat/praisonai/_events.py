"""PraisonAI's event names, the point each one maps to, and the ones not offered.

`EVENT_POINTS` is the published mapping (docs/dialects.md). `NOT_OFFERED`
names every other ``praisonaiagents.hooks.HookEvent`` value with the reason it
has no moment in an agent framework, so asking for one says why.
"""

from __future__ import annotations

import difflib
from enum import Enum
from typing import Optional, Union

from hookport.config import OnError
from hookport.points import ExtensionPoint, InterceptionPoint, Point

__all__ = [
    "EVENT_POINTS",
    "FAILURE_POLICY",
    "MATCHED_EVENTS",
    "NOT_OFFERED",
    "HookEvent",
    "resolve_event",
    "resolve_hook_event",
]


class HookEvent(str, Enum):
    """PraisonAI's lifecycle events that have a moment in hookport."""

    BEFORE_TOOL = "before_tool"
    AFTER_TOOL = "after_tool"
    BEFORE_TOOL_DEFINITIONS = "before_tool_definitions"
    BEFORE_AGENT = "before_agent"
    AFTER_AGENT = "after_agent"
    BEFORE_LLM = "before_llm"
    AFTER_LLM = "after_llm"
    SESSION_START = "session_start"
    SESSION_END = "session_end"
    ON_ERROR = "on_error"
    ON_RETRY = "on_retry"
    TOOL_RESULT_PERSIST = "after_tool"  # PraisonAI's alias of AFTER_TOOL (same value, same member)

    @classmethod
    def _missing_(cls, value: object) -> Optional[HookEvent]:
        """The legacy value ``tool_result_persist`` and any casing of a value or member name."""
        if isinstance(value, str):
            lowered = {"tool_result_persist": "after_tool"}.get(value.lower(), value.lower())
            for member in cls:
                if member.value == lowered:
                    return member
        return None


EVENT_POINTS: dict[HookEvent, Point] = {
    HookEvent.BEFORE_TOOL: InterceptionPoint.PRE_TOOL_CALL,
    HookEvent.AFTER_TOOL: InterceptionPoint.POST_TOOL_CALL,
    HookEvent.BEFORE_LLM: InterceptionPoint.PRE_MODEL_CALL,
    HookEvent.AFTER_LLM: InterceptionPoint.POST_MODEL_CALL,
    HookEvent.BEFORE_AGENT: ExtensionPoint.AGENT_TURN_START,
    HookEvent.AFTER_AGENT: ExtensionPoint.AGENT_TURN_END,
    HookEvent.SESSION_START: InterceptionPoint.EXECUTION_START,
    HookEvent.SESSION_END: InterceptionPoint.EXECUTION_END,
    HookEvent.ON_ERROR: InterceptionPoint.EXECUTION_END,  # only when status == "failed"
    HookEvent.BEFORE_TOOL_DEFINITIONS: ExtensionPoint.BEFORE_TOOL_DEFINITIONS,
    HookEvent.ON_RETRY: ExtensionPoint.ON_RETRY,
}

MATCHED_EVENTS = frozenset({HookEvent.BEFORE_TOOL, HookEvent.AFTER_TOOL, HookEvent.ON_RETRY})
"""The events whose ``matcher`` is tested against a tool name (the others ignore it, as in PraisonAI)."""

FAILURE_POLICY: dict[HookEvent, OnError] = {
    **{event: "closed" for event in (
        HookEvent.BEFORE_TOOL, HookEvent.AFTER_TOOL, HookEvent.BEFORE_LLM, HookEvent.BEFORE_AGENT,
        HookEvent.SESSION_START, HookEvent.BEFORE_TOOL_DEFINITIONS)},
    **{event: "open" for event in (
        HookEvent.AFTER_LLM, HookEvent.AFTER_AGENT, HookEvent.SESSION_END, HookEvent.ON_ERROR,
        HookEvent.ON_RETRY)},
}
"""A hook's default ``on_error``. PraisonAI 1.7 fails closed (a hook that raises or times out
denies); a deny only matters at the events that act on it, so those fail closed here and the
pure observers (whose verdict PraisonAI ignores) fail open."""

_BOTS = "PraisonAI's bots and gateway deliver it; an agent framework has no such moment"
_NEVER = "PraisonAI itself never emits it (1.7.17)"
NOT_OFFERED: dict[str, str] = {
    "on_init": "PraisonAI's plugin manager fires it when a plugin registers",
    "on_shutdown": "PraisonAI's plugin manager fires it when a plugin unregisters",
    "session_persist_failed": "PraisonAI's session store fires it when a write fails",
    "model_fallback": "PraisonAI's fallback_models switch fires it; write a wrap_model_call hook "
                      "that falls back instead, which works on every framework",
    "prompt_prefix_invalidated": "PraisonAI's prompt-cache tracker; " + _NEVER,
    "before_compaction": "PraisonAI's own context compaction fires it",
    "after_compaction": "PraisonAI's own context compaction fires it",
    "message_received": _BOTS,
    "message_sending": _BOTS,
    "message_sent": _BOTS,
    "message_undelivered": _BOTS,
    "before_message": _BOTS,
    "after_message": _BOTS,
    "reaction_received": _BOTS,
    "message_edited": _BOTS,
    "message_deleted": _BOTS,
    "member_joined": _BOTS,
    "member_left": _BOTS,
    "thread_created": _BOTS,
    "gateway_start": "PraisonAI's gateway fires it",
    "gateway_stop": "PraisonAI's gateway fires it",
    "on_permission_ask": _NEVER,
    "on_config": _NEVER,
    "on_auth": _NEVER,
    "schedule_add": "PraisonAI's scheduler fires it",
    "schedule_remove": "PraisonAI's scheduler fires it",
    "schedule_trigger": "PraisonAI's scheduler; " + _NEVER,
    "cli_backend_execute": "PraisonAI's CLI-backend delegation fires it",
    "job_completed": "PraisonAI's background job manager fires it",
    "kanban_task_created": "the PraisonAI wrapper's kanban store fires it",
    "kanban_task_claimed": "the PraisonAI wrapper's kanban store fires it",
    "kanban_task_moved": "the PraisonAI wrapper's kanban store fires it",
    "kanban_task_done": "the PraisonAI wrapper's kanban store fires it",
    "kanban_task_blocked": "the PraisonAI wrapper's kanban store fires it",
    "kanban_task_failed": "the PraisonAI wrapper's kanban store fires it",
    "subagent_stop": "PraisonAI's spawn_subagent tool fires it",
}
"""PraisonAI 1.7.17 events hookport does not offer, with the reason."""


def resolve_event(event: Union[str, HookEvent]) -> HookEvent:
    """The `HookEvent` named by a member, its value or its name; a clear error otherwise."""
    if isinstance(event, HookEvent):
        return event
    if isinstance(event, str):
        try:
            return HookEvent(event)
        except ValueError:
            raise ValueError(unknown_event_message(event)) from None
    raise TypeError(f"a hook event must be a HookEvent or its string value, not {type(event).__name__}")


def resolve_hook_event(event: Union[str, HookEvent]) -> Optional[HookEvent]:
    """PraisonAI's lenient lookup: the event, or None when the name is unknown."""
    if isinstance(event, HookEvent):
        return event
    if not isinstance(event, str):
        value = getattr(event, "value", None)  # praisonaiagents' own HookEvent member
        if not isinstance(value, str):
            return None
        event = value
    try:
        return HookEvent(event)
    except ValueError:
        return None


def unknown_event_message(name: str) -> str:
    """Say what is wrong with an event name: not offered (and why), or the closest valid one."""
    valid = sorted({e.value for e in HookEvent})
    lowered = name.lower()
    if lowered in NOT_OFFERED:
        return (f"Unknown hook event: {name!r} is a PraisonAI event hookport does not offer: "
                f"{NOT_OFFERED[lowered]}. hookport maps these PraisonAI events: {', '.join(valid)}")
    close = difflib.get_close_matches(lowered, valid, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else "."
    return f"Unknown hook event: {name!r}{hint} hookport maps these PraisonAI events: {', '.join(valid)}"
