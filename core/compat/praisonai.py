"""The PraisonAI dialect: ``add_hook``, ``HookRegistry``, ``HookEvent``, ``HookResult``.

A hook written for ``praisonaiagents.hooks`` runs here unchanged: it receives
PraisonAI's own input shapes (``event_data.tool_name``, ``.tool_input``, ...)
built from the engine's context, and its return value keeps PraisonAI's
meaning: ``None`` / ``True`` allow, ``False`` denies, a string denies with
that reason, a `HookResult` (or a dict with ``decision``) decides. Every deny
becomes a `HookAborted` carrying the reason, so adapters handle one signal.
The event -> point mapping is `EVENT_POINTS` (published in docs/dialects.md).
"""

from __future__ import annotations

import asyncio
import inspect
import os
import re
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Literal, Optional, Union

from pydantic import BaseModel

from hookport.contexts import ExecutionEndContext, InterceptionContext, LLMCallHookContext, ToolCallHookContext
from hookport.errors import HookAborted
from hookport.points import ExtensionPoint, InterceptionPoint, Point
from hookport.registry import HookFn, get_hooks, make_entry, register_hook, scoped_hooks, unregister_hook

__all__ = [
    "EVENT_POINTS",
    "AfterAgentInput",
    "AfterLLMInput",
    "AfterToolInput",
    "BeforeAgentInput",
    "BeforeLLMInput",
    "BeforeToolDefinitionsInput",
    "BeforeToolInput",
    "HookDecision",
    "HookEvent",
    "HookInput",
    "HookRegistry",
    "HookResult",
    "HooksConfig",
    "OnErrorInput",
    "OnRetryInput",
    "SessionEndInput",
    "SessionStartInput",
    "ToolRequest",
    "add_hook",
    "get_default_registry",
    "has_hook",
    "remove_hook",
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

    @classmethod
    def _missing_(cls, value: object) -> HookEvent | None:
        if isinstance(value, str):
            aliases = {"tool_result_persist": "after_tool"}
            lowered = aliases.get(value.lower(), value.lower())
            for member in cls:
                if member.value == lowered:
                    return member
        return None


EVENT_POINTS: dict[HookEvent, Point] = {
    HookEvent.BEFORE_TOOL: InterceptionPoint.PRE_TOOL_CALL,
    HookEvent.AFTER_TOOL: InterceptionPoint.POST_TOOL_CALL,
    HookEvent.BEFORE_LLM: InterceptionPoint.PRE_MODEL_CALL,
    HookEvent.AFTER_LLM: InterceptionPoint.POST_MODEL_CALL,
    HookEvent.BEFORE_AGENT: InterceptionPoint.PRE_STEP,
    HookEvent.AFTER_AGENT: InterceptionPoint.POST_STEP,
    HookEvent.SESSION_START: InterceptionPoint.EXECUTION_START,
    HookEvent.SESSION_END: InterceptionPoint.EXECUTION_END,
    HookEvent.ON_ERROR: InterceptionPoint.EXECUTION_END,  # only when status == "failed"
    HookEvent.BEFORE_TOOL_DEFINITIONS: ExtensionPoint.BEFORE_TOOL_DEFINITIONS,
    HookEvent.ON_RETRY: ExtensionPoint.ON_RETRY,
}

_MATCHED_EVENTS = {HookEvent.BEFORE_TOOL, HookEvent.AFTER_TOOL, HookEvent.ON_RETRY}


def resolve_event(event: Union[str, HookEvent]) -> HookEvent:
    """The `HookEvent` named by a member or its value; a clear error otherwise."""
    if isinstance(event, HookEvent):
        return event
    if isinstance(event, str):
        try:
            return HookEvent(event)
        except ValueError:
            valid = ", ".join(e.value for e in HookEvent)
            raise ValueError(
                f"Unknown hook event: {event!r}. hookport maps these PraisonAI events: {valid}"
            ) from None
    raise TypeError(f"a hook event must be a HookEvent or its string value, not {type(event).__name__}")


# -- results ----------------------------------------------------------------------

HookDecision = Literal["allow", "deny", "block", "ask", None]


class HookResult(BaseModel):
    """A hook's verdict, as in PraisonAI: ``decision``, ``reason``, ``modified_input``, ..."""

    decision: HookDecision = "allow"
    reason: Optional[str] = None
    modified_input: Optional[dict[str, Any]] = None
    additional_context: Optional[str] = None
    suppress_output: bool = False

    @classmethod
    def allow(cls, reason: Optional[str] = None) -> HookResult:
        return cls(decision="allow", reason=reason)

    @classmethod
    def deny(cls, reason: str) -> HookResult:
        return cls(decision="deny", reason=reason)

    @classmethod
    def block(cls, reason: str) -> HookResult:
        return cls(decision="block", reason=reason)

    @classmethod
    def ask(cls, reason: str) -> HookResult:
        return cls(decision="ask", reason=reason)

    def is_allowed(self) -> bool:
        return self.decision in ("allow", None)

    def is_denied(self) -> bool:
        return self.decision in ("deny", "block")


def normalize_result(value: Any) -> HookResult:
    """PraisonAI's verdict rules: None/True allow, False deny, str deny, dict/HookResult decide."""
    if value is None or value is True:
        return HookResult()
    if value is False:
        return HookResult.deny("Denied by hook")
    if isinstance(value, str):
        return HookResult.deny(value)
    if isinstance(value, HookResult):
        return value
    if isinstance(value, dict) and "decision" in value:
        return HookResult(**value)
    if hasattr(value, "decision"):  # praisonaiagents' own HookResult dataclass
        return HookResult(
            decision=getattr(value, "decision", "allow"),
            reason=getattr(value, "reason", None),
            modified_input=getattr(value, "modified_input", None),
            additional_context=getattr(value, "additional_context", None),
        )
    return HookResult()


# -- inputs (PraisonAI's shapes) ---------------------------------------------------------


@dataclass
class HookInput:
    session_id: Optional[str] = None
    cwd: str = ""
    event_name: str = ""
    timestamp: str = ""
    agent_name: Optional[str] = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = {k: v for k, v in self.__dict__.items() if k != "extra"}
        data.update(self.extra)
        return data


@dataclass
class BeforeToolInput(HookInput):
    tool_name: str = ""
    tool_input: dict[str, Any] = field(default_factory=dict)
    tool_description: Optional[str] = None


@dataclass
class AfterToolInput(HookInput):
    tool_name: str = ""
    tool_input: dict[str, Any] = field(default_factory=dict)
    tool_output: Any = None
    tool_error: Optional[str] = None
    execution_time_ms: float = 0.0


@dataclass
class BeforeToolDefinitionsInput(HookInput):
    tool_definitions: list[dict[str, Any]] = field(default_factory=list)
    model: str = ""


@dataclass
class BeforeAgentInput(HookInput):
    prompt: Any = ""
    conversation_history: list[dict[str, Any]] = field(default_factory=list)
    tools_available: list[str] = field(default_factory=list)


@dataclass
class AfterAgentInput(HookInput):
    prompt: Any = ""
    response: Any = ""
    tools_used: list[str] = field(default_factory=list)
    total_tokens: int = 0
    execution_time_ms: float = 0.0


@dataclass
class BeforeLLMInput(HookInput):
    messages: list[dict[str, Any]] = field(default_factory=list)
    model: str = ""
    temperature: Optional[float] = None
    max_tokens: Optional[int] = None


@dataclass
class AfterLLMInput(HookInput):
    messages: list[dict[str, Any]] = field(default_factory=list)
    response: str = ""
    model: str = ""
    tokens_used: int = 0
    latency_ms: float = 0.0


@dataclass
class SessionStartInput(HookInput):
    source: str = "startup"
    session_name: Optional[str] = None


@dataclass
class SessionEndInput(HookInput):
    reason: str = "exit"
    total_turns: int = 0
    total_tokens: int = 0


@dataclass
class OnErrorInput(HookInput):
    error_type: str = ""
    error_message: str = ""
    stack_trace: Optional[str] = None
    context: dict[str, Any] = field(default_factory=dict)


@dataclass
class OnRetryInput(HookInput):
    tool_name: str = ""
    attempt: int = 1
    delay_ms: float = 0
    error: str = ""
    max_attempts: int = 0
    error_type: str = "unknown"
    operation: str = ""


@dataclass
class ToolRequest:
    """What a ``HooksConfig(on_tool_call=...)`` observer receives."""

    tool_name: str
    arguments: dict[str, Any]
    context: Any = None
    extra: dict[str, Any] = field(default_factory=dict)


def _base(event: HookEvent, ctx: InterceptionContext) -> dict[str, Any]:
    return {
        "session_id": ctx.metadata.get("session_id"),
        "cwd": os.getcwd(),
        "event_name": event.value,
        "timestamp": str(time.time()),
        "agent_name": ctx.agent_role,
        "extra": {"framework": ctx.framework},
    }


def _model_name(ctx: LLMCallHookContext) -> str:
    name = ctx.metadata.get("model")
    if name is None and ctx.llm is not None:
        name = getattr(ctx.llm, "model", None) or getattr(ctx.llm, "model_name", None)
    return name if isinstance(name, str) else ""


def build_input(event: HookEvent, ctx: Any) -> HookInput:
    """PraisonAI's input object for `event`, built from the engine's context."""
    base = _base(event, ctx)
    meta = ctx.metadata
    if event is HookEvent.BEFORE_TOOL:
        return BeforeToolInput(**base, tool_name=ctx.tool_name, tool_input=ctx.tool_input)
    if event is HookEvent.AFTER_TOOL:
        return AfterToolInput(
            **base,
            tool_name=ctx.tool_name,
            tool_input=ctx.tool_input,
            tool_output=ctx.tool_result,
            tool_error=meta.get("tool_error"),
            execution_time_ms=meta.get("execution_time_ms", 0.0),
        )
    if event is HookEvent.BEFORE_LLM:
        return BeforeLLMInput(
            **base, messages=ctx.messages, model=_model_name(ctx), temperature=meta.get("temperature")
        )
    if event is HookEvent.AFTER_LLM:
        return AfterLLMInput(**base, messages=ctx.messages, response=ctx.response or "", model=_model_name(ctx))
    if event is HookEvent.BEFORE_AGENT:
        return BeforeAgentInput(
            **base,
            prompt=ctx.payload,
            conversation_history=meta.get("conversation_history", []),
            tools_available=meta.get("tools_available", []),
        )
    if event is HookEvent.AFTER_AGENT:
        return AfterAgentInput(
            **base,
            prompt=meta.get("prompt", ""),
            response=ctx.payload,
            tools_used=meta.get("tools_used", []),
            execution_time_ms=meta.get("execution_time_ms", 0.0),
        )
    if event is HookEvent.SESSION_START:
        return SessionStartInput(**base, session_name=meta.get("session_name"))
    if event is HookEvent.SESSION_END:
        return SessionEndInput(**base, reason="error" if ctx.status == "failed" else "exit")
    if event is HookEvent.ON_ERROR:
        error = ctx.error
        return OnErrorInput(
            **base,
            error_type=type(error).__name__,
            error_message=str(error),
            stack_trace="".join(traceback.format_exception(error)) if error is not None else None,
        )
    if event is HookEvent.BEFORE_TOOL_DEFINITIONS:
        return BeforeToolDefinitionsInput(**base, tool_definitions=ctx.payload, model=meta.get("model", ""))
    payload = ctx.payload if isinstance(ctx.payload, dict) else {}
    known = OnRetryInput.__dataclass_fields__
    return OnRetryInput(**base, **{k: v for k, v in payload.items() if k in known and k not in base})


# -- applying a verdict ------------------------------------------------------------------


def _source(callback: Callable[..., Any]) -> str:
    return getattr(callback, "__name__", type(callback).__name__)


def apply_result(event: HookEvent, ctx: Any, data: HookInput, verdict: HookResult, callback: Callable[..., Any]) -> Any:
    """Carry PraisonAI's meaning of a verdict onto the engine's context."""
    denied = verdict.is_denied()
    changes = verdict.modified_input or {}
    if event is HookEvent.BEFORE_TOOL:
        if denied:
            raise HookAborted(verdict.reason or "Denied by hook", source=_source(callback))
        if changes:
            ctx.tool_input.update(changes)
        return None
    if event is HookEvent.AFTER_TOOL:
        result = ctx.tool_result
        if isinstance(data, AfterToolInput) and data.tool_output is not ctx.tool_result:
            result = data.tool_output  # a hook that assigned event_data.tool_output
        if "tool_output" in changes:
            result = changes["tool_output"]
        if denied:
            result = verdict.reason or f"Result of {ctx.tool_name} was blocked by security policy."
        if verdict.additional_context:
            if isinstance(result, dict):
                result = {**result, "_additional_context": verdict.additional_context}
            else:
                result = f"{result}\n{verdict.additional_context}"
        if result is not ctx.tool_result:
            ctx.tool_result = result if isinstance(result, str) else str(result)
        return None
    if event is HookEvent.BEFORE_LLM:
        if denied:
            raise HookAborted(verdict.reason or "Denied by hook", source=_source(callback))
        if isinstance(changes.get("messages"), list):
            ctx.messages[:] = changes["messages"]
        return None
    if event is HookEvent.BEFORE_AGENT:
        if denied:
            raise HookAborted(verdict.reason or "Denied by hook", source=_source(callback))
        return changes.get("prompt")
    if event is HookEvent.SESSION_START and denied:
        raise HookAborted(verdict.reason or "Denied by hook", source=_source(callback))
    if event is HookEvent.BEFORE_TOOL_DEFINITIONS:
        if denied:
            return []  # PraisonAI's meaning: send no tools at all
        return changes.get("tool_definitions")
    return None  # after_llm, after_agent, session_end, on_error, on_retry only observe


def _call(callback: Callable[..., Any], data: HookInput) -> Any:
    result = callback(data)
    if inspect.isawaitable(result):
        return _await_anywhere(result)
    return result


def _await_anywhere(awaitable: Any) -> Any:
    """Run an async hook to completion from sync dispatch, inside a loop or not."""

    async def runner() -> Any:
        return await awaitable

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(runner())
    box: dict[str, Any] = {}

    def in_thread() -> None:
        try:
            box["value"] = asyncio.run(runner())
        except BaseException as error:  # re-raised in the caller's thread
            box["error"] = error

    worker = threading.Thread(target=in_thread, name="hookport-async-hook")
    worker.start()
    worker.join()
    if "error" in box:
        raise box["error"]
    return box.get("value")


def make_engine_hook(
    event: HookEvent,
    callback: Callable[..., Any],
    matcher: Optional[str] = None,
    registry: Optional[HookRegistry] = None,
) -> HookFn:
    """Wrap a PraisonAI-style callback into an engine hook for `event`'s point."""
    if not callable(callback):
        raise TypeError(f"a hook must be callable, got {type(callback).__name__}: {callback!r}")
    matches = _matcher(matcher) if matcher and event in _MATCHED_EVENTS else None

    def praisonai_hook(ctx: Any) -> Any:
        if registry is not None and not registry.enabled:
            return None
        if event is HookEvent.ON_ERROR and getattr(ctx, "status", None) != "failed":
            return None
        if matches is not None and not matches(getattr(ctx, "tool_name", None) or ""):
            return None
        data = build_input(event, ctx)
        return apply_result(event, ctx, data, normalize_result(_call(callback, data)), callback)

    praisonai_hook.__name__ = _source(callback)
    praisonai_hook.__qualname__ = getattr(callback, "__qualname__", praisonai_hook.__name__)
    praisonai_hook.__hookport_original__ = callback  # type: ignore[attr-defined]
    return praisonai_hook


def _matcher(pattern: str) -> Callable[[str], bool]:
    try:
        compiled = re.compile(pattern)
    except re.error:
        return lambda name: pattern in name
    return lambda name: compiled.match(name) is not None


# -- registries -------------------------------------------------------------------------


@dataclass
class _Definition:
    id: str
    event: HookEvent
    callback: Callable[..., Any]
    engine_hook: HookFn
    matcher: Optional[str]
    priority: int
    name: str


class HookRegistry:
    """PraisonAI's registry. The default one writes into hookport's global hooks;
    any other holds its hooks until `activate()` scopes them to a block."""

    def __init__(self, enabled: bool = True, *, _is_default: bool = False) -> None:
        self.enabled = enabled
        self._is_default = _is_default
        self._hooks: dict[str, _Definition] = {}
        self._lock = threading.Lock()

    def register_function(
        self,
        event: Union[str, HookEvent],
        func: Callable[..., Any],
        matcher: Optional[str] = None,
        name: Optional[str] = None,
        description: Optional[str] = None,
        sequential: bool = False,
        timeout: float = 60.0,
        is_async: bool = False,
        priority: int = 100,
    ) -> str:
        """Register `func` for `event`; returns its id. `priority` is recorded, not used:
        hooks run in registration order (the CrewAI contract)."""
        resolved = resolve_event(event)
        hook_id = uuid.uuid4().hex[:8]
        engine_hook = make_engine_hook(resolved, func, matcher, registry=self)
        definition = _Definition(hook_id, resolved, func, engine_hook, matcher, priority, name or _source(func))
        with self._lock:
            self._hooks[hook_id] = definition
        if self._is_default:
            register_hook(EVENT_POINTS[resolved], engine_hook)
        return hook_id

    def on(
        self, event: Union[str, HookEvent], matcher: Optional[str] = None, sequential: bool = False,
        timeout: float = 60.0, priority: int = 100,
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def decorator(func: Callable[..., Any]) -> Callable[..., Any]:
            self.register_function(event, func, matcher=matcher, priority=priority)
            return func

        return decorator

    def unregister(self, hook_id: str) -> bool:
        with self._lock:
            definition = self._hooks.pop(hook_id, None)
        if definition is None:
            return False
        if self._is_default:
            unregister_hook(EVENT_POINTS[definition.event], definition.engine_hook)
        return True

    def get_hooks(self, event: Union[str, HookEvent], target: Optional[str] = None) -> list[_Definition]:
        resolved = resolve_event(event)
        if not self.enabled:
            return []
        self._forget_cleared()
        found = [d for d in self._hooks.values() if d.event is resolved]
        if target is not None:
            found = [d for d in found if d.matcher is None or _matcher(d.matcher)(target)]
        return found

    def _forget_cleared(self) -> None:
        """The default registry mirrors the engine: hooks cleared there (``clear_all_hooks``) are gone here."""
        if not self._is_default:
            return
        with self._lock:
            for hook_id, d in list(self._hooks.items()):
                if d.engine_hook not in get_hooks(EVENT_POINTS[d.event]):
                    del self._hooks[hook_id]

    def has_hooks(self, event: Union[str, HookEvent]) -> bool:
        return bool(self.get_hooks(event))

    def clear(self, event: Union[str, HookEvent, None] = None) -> None:
        resolved = resolve_event(event) if event is not None else None
        for definition in list(self._hooks.values()):
            if resolved is None or definition.event is resolved:
                self.unregister(definition.id)

    def list_hooks(self) -> dict[str, list[dict[str, Any]]]:
        self._forget_cleared()
        listing: dict[str, list[dict[str, Any]]] = {}
        for d in self._hooks.values():
            listing.setdefault(d.event.value, []).append(
                {"id": d.id, "name": d.name, "type": "function", "matcher": d.matcher,
                 "enabled": self.enabled, "priority": d.priority}
            )
        return listing

    @contextmanager
    def activate(self) -> Iterator[None]:
        """Run this registry's hooks for the work inside the block (execution-scoped)."""
        grouped: dict[Point, list[HookFn]] = {}
        for d in self._hooks.values():
            grouped.setdefault(EVENT_POINTS[d.event], []).append(d.engine_hook)
        with scoped_hooks(grouped):
            yield

    def __len__(self) -> int:
        self._forget_cleared()
        return len(self._hooks)

    def __repr__(self) -> str:
        return f"HookRegistry(hooks={len(self)}, enabled={self.enabled}, default={self._is_default})"


_default_registry = HookRegistry(_is_default=True)


def get_default_registry() -> HookRegistry:
    return _default_registry


def add_hook(
    event: Union[str, HookEvent],
    callback: Optional[Callable[..., Any]] = None,
    priority: int = 100,
    matcher: Optional[str] = None,
) -> Any:
    """Register a global hook. Direct call returns its id; as a decorator returns the function."""
    resolved = resolve_event(event)
    if callback is not None:
        return _default_registry.register_function(resolved, callback, matcher=matcher, priority=priority)

    def decorator(func: Callable[..., Any]) -> Callable[..., Any]:
        _default_registry.register_function(resolved, func, matcher=matcher, priority=priority)
        return func

    return decorator


def remove_hook(hook_id: str) -> bool:
    return _default_registry.unregister(hook_id)


def has_hook(event: Union[str, HookEvent]) -> bool:
    return _default_registry.has_hooks(event)


@dataclass
class HooksConfig:
    """PraisonAI's per-agent hook bundle; `register()` makes it global in hookport.

    `on_step` observes every finished step (POST_STEP); `on_tool_call` observes
    every tool call before it runs with a `ToolRequest`; `registry` hooks are
    registered as they are. PraisonAI middleware has no hookport equivalent.
    """

    on_step: Optional[Callable[..., Any]] = None
    on_tool_call: Optional[Callable[..., Any]] = None
    middleware: list[Any] = field(default_factory=list)
    registry: Optional[HookRegistry] = None
    _registered: list[tuple[Point, HookFn]] = field(default_factory=list, repr=False)

    def register(self) -> None:
        if self.middleware:
            raise ValueError("HooksConfig.middleware is PraisonAI-only; write it as a hookport hook instead")
        if self.on_step is not None:
            step = make_entry(self.on_step)
            self._add(InterceptionPoint.POST_STEP, lambda ctx: (step(ctx.payload), None)[1])
        if self.on_tool_call is not None:
            observer = make_entry(self.on_tool_call)
            self._add(
                InterceptionPoint.PRE_TOOL_CALL,
                lambda ctx: (observer(ToolRequest(ctx.tool_name, ctx.tool_input)), None)[1],
            )
        if self.registry is not None:
            for d in self.registry._hooks.values():
                self._add(EVENT_POINTS[d.event], d.engine_hook)

    def unregister(self) -> None:
        for point, hook in self._registered:
            unregister_hook(point, hook)
        self._registered.clear()

    def to_dict(self) -> dict[str, Any]:
        return {"on_step": self.on_step, "on_tool_call": self.on_tool_call,
                "middleware": list(self.middleware), "registry": self.registry}

    def _add(self, point: Point, hook: HookFn) -> None:
        register_hook(point, hook)
        self._registered.append((point, hook))
