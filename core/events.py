"""Telemetry: one `HookDispatchedEvent` per dispatch that reached a hook.

A tiny synchronous bus. Subscribers are called in the dispatching thread; an
exception in a subscriber is logged and never reaches the framework.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict

from hookport.outcomes import RuleOutcome

logger = logging.getLogger("hookport")

Outcome = Literal["proceeded", "modified", "aborted", "failed"]
"""`failed`: strict mode let a hook's exception propagate."""


class HookDispatchedEvent(BaseModel):
    """What one dispatch did: which point, what came of it, how long it took."""

    model_config = ConfigDict(frozen=True)

    point: str
    outcome: Outcome
    hook_count: int
    duration_ms: float
    abort_reason: Optional[str] = None
    abort_source: Optional[str] = None
    framework: Optional[str] = None
    agent_role: Optional[str] = None
    tool_name: Optional[str] = None
    failed_hooks: tuple[str, ...] = ()
    """Hooks whose exception was ignored (fail-open) or turned into the abort (fail-closed)."""
    timed_out_hooks: tuple[str, ...] = ()
    """Hooks that ran past their timeout (a failure too, under the same policy)."""
    error: Optional[str] = None
    """The last hook failure, as ``Type: message``."""
    outcomes: tuple[RuleOutcome, ...] = ()
    """What each rule decided during this dispatch (`hookport.outcomes`): a redaction, a warning,
    an audit-mode ``would_deny``, a refusal, each with the rule's name."""
    run_id: Optional[str] = None
    """The run the call belongs to (`hookport.runs`), or None outside any run."""
    modified_by: tuple[str, ...] = ()
    """The hooks whose return changed the call (a policy rule's source, or a hook's name), in order."""


Subscriber = Callable[[HookDispatchedEvent], object]

_lock = threading.Lock()
subscribers: tuple[Subscriber, ...] = ()


def subscribe(fn: Subscriber) -> Subscriber:
    """Call `fn(event)` after every dispatch that reached a hook; usable as a decorator."""
    global subscribers
    if not callable(fn):
        raise TypeError(f"a subscriber must be callable, got {type(fn).__name__}")
    with _lock:
        subscribers = (*subscribers, fn)
    return fn


def unsubscribe(fn: Subscriber) -> bool:
    """Stop calling `fn`; returns whether it was subscribed."""
    global subscribers
    with _lock:
        if fn not in subscribers:
            return False
        index = subscribers.index(fn)
        subscribers = subscribers[:index] + subscribers[index + 1 :]
        return True


def emit(event: HookDispatchedEvent) -> None:
    event = _scrubbed(event)
    for fn in subscribers:
        try:
            fn(event)
        except Exception:  # a telemetry sink must never break a run
            logger.exception("hookport event subscriber %r failed", fn)


def _scrubbed(event: HookDispatchedEvent) -> HookDispatchedEvent:
    """The event with every registered redaction applied to its texts (a reason, an error, a
    hook's or tool's name): subscribers, the OpenTelemetry exporter among them, never receive
    a value a rule redacts."""
    from hookport.redaction import active_redactions, scrub

    rules = active_redactions()
    if not rules:
        return event
    updates: dict[str, Any] = {}
    for name, value in event:
        if isinstance(value, str):
            cleaned: Any = scrub(value, rules)
        elif isinstance(value, tuple) and value and all(isinstance(item, str) for item in value):
            cleaned = tuple(scrub(item, rules) for item in value)
        elif name == "outcomes" and value:
            cleaned = tuple(
                outcome.model_copy(update={"rule": scrub(outcome.rule, rules),
                                           "reason": scrub(outcome.reason, rules) if outcome.reason else None})
                for outcome in value
            )
        else:
            continue
        if cleaned != value:
            updates[name] = cleaned
    return event.model_copy(update=updates) if updates else event
