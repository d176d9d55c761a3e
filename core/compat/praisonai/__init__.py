"""The PraisonAI dialect: ``praisonaiagents.hooks`` on hookport's engine.

A hook module written for ``praisonaiagents.hooks`` runs here with only the
import line changed. Event hooks (``add_hook``, `HookRegistry`, `HookRunner`,
command hooks) receive PraisonAI's own input shapes built from the engine's
context, and their return values keep PraisonAI's meaning: ``None`` /
``True`` allow, ``False`` denies, a string denies with that reason, a
`HookResult` (or a dict with ``decision``) decides. Every deny that stops
something becomes a `HookAborted` carrying the reason, so adapters handle one
signal. The middleware API (``@before_model`` ... ``@wrap_tool_call``) maps
onto the engine's PRE/POST and wrap hooks.

The event -> point mapping is `EVENT_POINTS`; the PraisonAI names hookport
does not offer, and why, are in `NOT_OFFERED` / `NOT_OFFERED_NAMES` (both
published in docs/dialects.md).
"""

from __future__ import annotations

from typing import Any

from hookport.compat.praisonai._config import HooksConfig, engine_hooks_for
from hookport.compat.praisonai._engine import engine_entry, engine_policy, engine_timeout, make_engine_hook  # noqa: F401
from hookport.compat.praisonai._events import (
    EVENT_POINTS,
    FAILURE_POLICY,
    NOT_OFFERED,
    HookEvent,
    resolve_event,  # noqa: F401
    resolve_hook_event,
)
from hookport.compat.praisonai._inputs import (
    AfterAgentInput,
    AfterLLMInput,
    AfterToolInput,
    BeforeAgentInput,
    BeforeLLMInput,
    BeforeToolDefinitionsInput,
    BeforeToolInput,
    HookInput,
    OnErrorInput,
    OnRetryInput,
    SessionEndInput,
    SessionStartInput,
    build_input,  # noqa: F401
)
from hookport.compat.praisonai._middleware import (
    AsyncMiddlewareChain,
    InvocationContext,
    MiddlewareChain,
    MiddlewareManager,
    ModelRequest,
    ModelResponse,
    ToolRequest,
    ToolResponse,
    after_model,
    after_tool,
    before_model,
    before_tool,
    middleware_hooks,
    wrap_model_call,
    wrap_tool_call,
)
from hookport.compat.praisonai._registry import (
    HookRegistry,
    add_hook,
    get_default_registry,
    has_hook,
    remove_hook,
    set_default_registry,
)
from hookport.compat.praisonai._runner import HookRunner, fire_hook
from hookport.compat.praisonai._types import (
    DEFAULT_TIMEOUT,  # noqa: F401
    CommandHook,
    FunctionHook,
    HookDecision,
    HookDefinition,
    HookExecutionResult,
    HookOutput,
    HookResult,
)
from hookport.compat.praisonai._verdicts import apply_result, normalize_result  # noqa: F401

__all__ = [
    # praisonaiagents.hooks.__all__ (1.7.17), the names that concern agents, models and tools
    "HookEvent",
    "HookDecision",
    "HookResult",
    "HookInput",
    "HookOutput",
    "HookDefinition",
    "CommandHook",
    "FunctionHook",
    "HookRegistry",
    "HookRunner",
    "BeforeToolInput",
    "AfterToolInput",
    "BeforeToolDefinitionsInput",
    "BeforeAgentInput",
    "AfterAgentInput",
    "BeforeLLMInput",
    "AfterLLMInput",
    "SessionStartInput",
    "SessionEndInput",
    "OnErrorInput",
    "OnRetryInput",
    "InvocationContext",
    "ModelRequest",
    "ModelResponse",
    "ToolRequest",
    "ToolResponse",
    "before_model",
    "after_model",
    "wrap_model_call",
    "before_tool",
    "after_tool",
    "wrap_tool_call",
    "MiddlewareChain",
    "AsyncMiddlewareChain",
    "MiddlewareManager",
    "add_hook",
    "remove_hook",
    "has_hook",
    "fire_hook",
    "resolve_hook_event",
    "get_default_registry",
    # praisonaiagents' HooksConfig, and hookport's own
    "HooksConfig",
    "EVENT_POINTS",
    "FAILURE_POLICY",
    "NOT_OFFERED",
    "NOT_OFFERED_NAMES",
    "HookExecutionResult",
    "engine_hooks_for",
    "middleware_hooks",
    "set_default_registry",
]

_PLATFORM_INPUT = "the input of a PraisonAI platform event hookport does not offer"
NOT_OFFERED_NAMES: dict[str, str] = {
    "KanbanHookInput": _PLATFORM_INPUT + " (the PraisonAI wrapper's kanban store)",
    "SessionPersistFailedInput": _PLATFORM_INPUT + " (PraisonAI's session store)",
    "ModelFallbackInput": _PLATFORM_INPUT + " (PraisonAI's fallback_models switch; "
                                            "a wrap_model_call hook falls back on every framework)",
    "MessageReceivedInput": _PLATFORM_INPUT + " (bots and gateway)",
    "MessageSendingInput": _PLATFORM_INPUT + " (bots and gateway)",
    "MessageSentInput": _PLATFORM_INPUT + " (bots and gateway)",
    "MessageUndeliveredInput": _PLATFORM_INPUT + " (bots and gateway)",
    "PlatformEventInput": _PLATFORM_INPUT + " (bots and gateway)",
    "GatewayStartInput": _PLATFORM_INPUT + " (gateway)",
    "GatewayStopInput": _PLATFORM_INPUT + " (gateway)",
    "ScheduleTriggerInput": _PLATFORM_INPUT + " (scheduler)",
    "ScheduleAddInput": _PLATFORM_INPUT + " (scheduler)",
    "ScheduleRemoveInput": _PLATFORM_INPUT + " (scheduler)",
    "JobCompletedInput": _PLATFORM_INPUT + " (background jobs)",
    "PluginLifecycleInput": _PLATFORM_INPUT + " (plugin manager)",
    "SubagentStopInput": _PLATFORM_INPUT + " (PraisonAI's spawn_subagent tool)",
    "VerificationHook": "PraisonAI's autonomy loop runs verification hooks on its own output "
                        "(Agent(autonomy=...)); they are not lifecycle hooks and have no hookport moment",
    "VerificationResult": "part of PraisonAI's autonomy verification (see VerificationHook)",
    "BaseVerificationHook": "part of PraisonAI's autonomy verification (see VerificationHook)",
    "CommandVerificationHook": "part of PraisonAI's autonomy verification (see VerificationHook)",
    "FileCheckHook": "part of PraisonAI's autonomy verification (see VerificationHook)",
}
"""The rest of ``praisonaiagents.hooks.__all__`` (1.7.17): names hookport does not offer, and why."""


def __getattr__(name: str) -> Any:
    if name in NOT_OFFERED_NAMES:
        raise AttributeError(f"hookport.compat.praisonai does not offer {name}: {NOT_OFFERED_NAMES[name]}")
    raise AttributeError(f"module 'hookport.compat.praisonai' has no attribute {name!r}")

