"""PraisonAI's event inputs, built from the engine's contexts.

A PraisonAI-style hook receives these (``event_data.tool_name``,
``.tool_input``, ``.execution_time_ms``, ...). `to_dict` is PraisonAI's JSON
form, which command hooks read on stdin (truncations and ``*_count`` fields
included).
"""

from __future__ import annotations

import dataclasses
import os
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Optional

from hookport.answers import text_of
from hookport.contexts import InterceptionContext

from hookport.compat.praisonai._events import HookEvent

__all__ = [
    "AfterAgentInput",
    "AfterLLMInput",
    "AfterToolInput",
    "BeforeAgentInput",
    "BeforeLLMInput",
    "BeforeToolDefinitionsInput",
    "BeforeToolInput",
    "HookInput",
    "OnErrorInput",
    "OnRetryInput",
    "SessionEndInput",
    "SessionStartInput",
    "build_input",
    "input_from_dict",
    "model_name",
]


@dataclass
class HookInput:
    session_id: Optional[str] = None
    cwd: str = ""
    event_name: str = ""
    timestamp: str = ""
    agent_name: Optional[str] = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"session_id": self.session_id, "cwd": self.cwd, "event_name": self.event_name,
                "timestamp": self.timestamp, "agent_name": self.agent_name, **self.extra}


@dataclass
class BeforeToolInput(HookInput):
    tool_name: str = ""
    tool_input: dict[str, Any] = field(default_factory=dict)
    tool_description: Optional[str] = None

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "tool_name": self.tool_name, "tool_input": self.tool_input,
                "tool_description": self.tool_description}


@dataclass
class AfterToolInput(HookInput):
    tool_name: str = ""
    tool_input: dict[str, Any] = field(default_factory=dict)
    tool_output: Any = None
    tool_error: Optional[str] = None
    execution_time_ms: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "tool_name": self.tool_name, "tool_input": self.tool_input,
                "tool_output": str(self.tool_output) if self.tool_output else None,
                "tool_error": self.tool_error, "execution_time_ms": self.execution_time_ms}


@dataclass
class BeforeToolDefinitionsInput(HookInput):
    tool_definitions: list[dict[str, Any]] = field(default_factory=list)
    model: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "tool_definitions_count": len(self.tool_definitions), "model": self.model}


@dataclass
class BeforeAgentInput(HookInput):
    prompt: Any = ""
    conversation_history: list[dict[str, Any]] = field(default_factory=list)
    tools_available: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "prompt": self.prompt,
                "conversation_history_length": len(self.conversation_history),
                "tools_available": self.tools_available}


@dataclass
class AfterAgentInput(HookInput):
    prompt: Any = ""
    response: Any = ""
    tools_used: list[str] = field(default_factory=list)
    total_tokens: int = 0
    execution_time_ms: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        response = self.response[:500] if isinstance(self.response, str) else (self.response or "")
        return {**super().to_dict(), "prompt": self.prompt, "response": response, "tools_used": self.tools_used,
                "total_tokens": self.total_tokens, "execution_time_ms": self.execution_time_ms}


@dataclass
class BeforeLLMInput(HookInput):
    messages: list[dict[str, Any]] = field(default_factory=list)
    model: str = ""
    temperature: Optional[float] = None
    max_tokens: Optional[int] = None

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "messages_count": len(self.messages), "model": self.model,
                "temperature": self.temperature, "max_tokens": self.max_tokens}


@dataclass
class AfterLLMInput(HookInput):
    messages: list[dict[str, Any]] = field(default_factory=list)
    response: str = ""
    model: str = ""
    tokens_used: int = 0
    latency_ms: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "messages_count": len(self.messages), "response_length": len(self.response),
                "model": self.model, "tokens_used": self.tokens_used, "latency_ms": self.latency_ms}


@dataclass
class SessionStartInput(HookInput):
    source: str = "startup"
    session_name: Optional[str] = None

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "source": self.source, "session_name": self.session_name}


@dataclass
class SessionEndInput(HookInput):
    reason: str = "exit"
    total_turns: int = 0
    total_tokens: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "reason": self.reason, "total_turns": self.total_turns,
                "total_tokens": self.total_tokens}


@dataclass
class OnErrorInput(HookInput):
    error_type: str = ""
    error_message: str = ""
    stack_trace: Optional[str] = None
    context: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "error_type": self.error_type, "error_message": self.error_message,
                "stack_trace": self.stack_trace, "context": self.context}


@dataclass
class OnRetryInput(HookInput):
    tool_name: str = ""
    attempt: int = 1
    delay_ms: float = 0
    error: str = ""
    max_attempts: int = 0
    error_type: str = "unknown"
    retry_count: int = 0
    max_retries: int = 3
    error_message: str = ""
    operation: str = ""
    delay_seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        own = {f.name: getattr(self, f.name) for f in dataclasses.fields(OnRetryInput)
               if f.name not in {g.name for g in dataclasses.fields(HookInput)}}
        return {**super().to_dict(), **own}


INPUT_CLASSES: dict[HookEvent, type[HookInput]] = {
    HookEvent.BEFORE_TOOL: BeforeToolInput,
    HookEvent.AFTER_TOOL: AfterToolInput,
    HookEvent.BEFORE_TOOL_DEFINITIONS: BeforeToolDefinitionsInput,
    HookEvent.BEFORE_AGENT: BeforeAgentInput,
    HookEvent.AFTER_AGENT: AfterAgentInput,
    HookEvent.BEFORE_LLM: BeforeLLMInput,
    HookEvent.AFTER_LLM: AfterLLMInput,
    HookEvent.SESSION_START: SessionStartInput,
    HookEvent.SESSION_END: SessionEndInput,
    HookEvent.ON_ERROR: OnErrorInput,
    HookEvent.ON_RETRY: OnRetryInput,
}


def _base(event: HookEvent, ctx: InterceptionContext) -> dict[str, Any]:
    return {
        "session_id": ctx.metadata.get("session_id"),
        "cwd": os.getcwd(),
        "event_name": event.value,
        "timestamp": str(time.time()),
        "agent_name": ctx.agent_role,
        "extra": {"framework": ctx.framework},
    }


def model_name(ctx: Any) -> str:
    """The model's name as the adapter recorded it, or as the model object says."""
    name = ctx.metadata.get("model")
    llm = getattr(ctx, "llm", None)
    if name is None and llm is not None:
        name = getattr(llm, "model", None) or getattr(llm, "model_name", None)
    return name if isinstance(name, str) else ""


def _ms(ctx: Any) -> float:
    """The context's duration (set by the adapters on POST contexts), 0.0 when unknown."""
    value = getattr(ctx, "duration_ms", None)
    if value is None:
        value = ctx.metadata.get("execution_time_ms")
    return float(value) if isinstance(value, (int, float)) else 0.0


def build_input(event: HookEvent, ctx: Any) -> HookInput:
    """PraisonAI's input object for `event`, built from the engine's context."""
    base = _base(event, ctx)
    meta = ctx.metadata
    if event is HookEvent.BEFORE_TOOL:
        return BeforeToolInput(**base, tool_name=ctx.tool_name, tool_input=ctx.tool_input,
                               tool_description=getattr(ctx.tool, "description", None))
    if event is HookEvent.AFTER_TOOL:
        return AfterToolInput(**base, tool_name=ctx.tool_name, tool_input=ctx.tool_input,
                              tool_output=ctx.tool_result, tool_error=meta.get("tool_error"),
                              execution_time_ms=_ms(ctx))
    if event is HookEvent.BEFORE_LLM:
        return BeforeLLMInput(**base, messages=ctx.messages, model=model_name(ctx),
                              temperature=meta.get("temperature"), max_tokens=meta.get("max_tokens"))
    if event is HookEvent.AFTER_LLM:
        return AfterLLMInput(**base, messages=ctx.messages, response=ctx.response or "", model=model_name(ctx),
                             tokens_used=meta.get("tokens_used", 0), latency_ms=_ms(ctx))
    if event is HookEvent.BEFORE_AGENT:
        return BeforeAgentInput(**base, prompt=ctx.payload,
                                conversation_history=meta.get("conversation_history", []),
                                tools_available=meta.get("tools_available", []))
    if event is HookEvent.AFTER_AGENT:
        answer = text_of(ctx.payload)
        return AfterAgentInput(**base, prompt=meta.get("prompt", ""),
                               response=answer if answer is not None else ctx.payload,
                               tools_used=meta.get("tools_used", []), execution_time_ms=_ms(ctx))
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


def input_from_dict(event: HookEvent, data: Optional[dict[str, Any]]) -> HookInput:
    """PraisonAI's ``fire_hook`` payload rule: known keys fill the event's input, the rest go to ``extra``."""
    payload = dict(data or {})
    cls = INPUT_CLASSES[event]
    base = {
        "session_id": str(payload.pop("session_id", "") or ""),
        "cwd": str(payload.pop("cwd", "") or os.getcwd()),
        "event_name": event.value,
        "timestamp": str(payload.pop("timestamp", "") or time.time()),
        "agent_name": payload.pop("agent_name", None),
    }
    payload.pop("event_name", None)
    reserved = set(base) | {"extra"}
    specific = {f.name: payload.pop(f.name) for f in dataclasses.fields(cls)
                if f.name not in reserved and f.name in payload}
    return cls(**base, **specific, extra=payload)
