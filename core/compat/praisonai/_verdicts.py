"""PraisonAI's verdict rules, and what a verdict means at each event on the engine's context."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hookport.errors import HookAborted

from hookport.compat.praisonai._events import HookEvent
from hookport.compat.praisonai._inputs import AfterToolInput, HookInput
from hookport.compat.praisonai._types import HookResult

__all__ = ["apply_result", "normalize_result"]


def normalize_result(value: Any) -> HookResult:
    """None/True allow, False denies, a str denies with it, a dict with ``decision`` or a
    `HookResult` (hookport's or praisonaiagents' own) decides; anything else allows.

    A dict with a key `HookResult` does not have raises `TypeError`, as in PraisonAI
    (where the hook then fails closed).
    """
    if value is None or value is True:
        return HookResult()
    if value is False:
        return HookResult.deny("Denied by hook")
    if isinstance(value, str):
        return HookResult.deny(value)
    if isinstance(value, HookResult):
        return value
    if isinstance(value, dict):
        return HookResult(**value) if "decision" in value else HookResult()
    if hasattr(value, "decision") and hasattr(value, "modified_input"):  # praisonaiagents.hooks.HookResult
        return HookResult(
            decision=getattr(value, "decision", "allow"),
            reason=getattr(value, "reason", None),
            modified_input=getattr(value, "modified_input", None),
            additional_context=getattr(value, "additional_context", None),
        )
    return HookResult()


def _source(callback: Callable[..., Any]) -> str:
    return getattr(callback, "__name__", None) or type(callback).__name__


def _refuse(verdict: HookResult, callback: Callable[..., Any]) -> HookAborted:
    return HookAborted(verdict.reason or "Denied by hook", source=_source(callback))


def apply_result(event: HookEvent, ctx: Any, data: HookInput, verdict: HookResult, callback: Callable[..., Any]) -> Any:
    """Carry PraisonAI's meaning of a verdict onto the engine's context.

    Returns what the engine should treat as the hook's return value (a new
    step input for ``before_agent``, new tool definitions), or None.
    """
    denied = verdict.is_denied()
    changes = verdict.modified_input or {}
    if event is HookEvent.BEFORE_TOOL:
        if denied:
            raise _refuse(verdict, callback)
        if changes:
            ctx.tool_input.update(changes)
        return None
    if event is HookEvent.AFTER_TOOL:
        return _after_tool(ctx, data, verdict, changes)
    if event is HookEvent.BEFORE_LLM:
        if denied:
            raise _refuse(verdict, callback)
        if isinstance(changes.get("messages"), list):
            ctx.messages[:] = changes["messages"]
        elif data.messages is not ctx.messages:  # type: ignore[attr-defined]  # event_data.messages = [...]
            ctx.messages[:] = data.messages  # type: ignore[attr-defined]
        return None
    if event is HookEvent.BEFORE_AGENT:
        if denied:
            raise _refuse(verdict, callback)
        prompt = changes.get("prompt", data.prompt)  # type: ignore[attr-defined]
        return prompt if prompt is not ctx.payload else None
    if event is HookEvent.SESSION_START and denied:
        raise _refuse(verdict, callback)
    if event is HookEvent.BEFORE_TOOL_DEFINITIONS:
        if denied:
            return []  # PraisonAI's meaning: send no tools at all
        definitions = changes.get("tool_definitions", data.tool_definitions)  # type: ignore[attr-defined]
        return definitions if definitions is not ctx.payload else None
    return None  # after_llm, after_agent, session_end, on_error, on_retry only observe


def _after_tool(ctx: Any, data: HookInput, verdict: HookResult, changes: dict[str, Any]) -> None:
    result = ctx.tool_result
    if isinstance(data, AfterToolInput) and data.tool_output is not ctx.tool_result:
        result = data.tool_output  # a hook that assigned event_data.tool_output
    if "tool_output" in changes:
        result = changes["tool_output"]
    if verdict.is_denied():
        result = verdict.reason or f"Result of {ctx.tool_name} was blocked by security policy."
    if verdict.additional_context:
        if isinstance(result, dict):
            result = {**result, "_additional_context": verdict.additional_context}
        else:
            result = f"{result}\n\n{verdict.additional_context}"
    if result is not ctx.tool_result:
        ctx.tool_result = result if isinstance(result, str) else str(result)
    return None
