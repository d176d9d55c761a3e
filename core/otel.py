"""OpenTelemetry export: each dispatch that ran hooks becomes a span.

    pip install -e '.[otel]'        # in a clone; or pip install 'opentelemetry-api>=1.20'
    hookport.otel.instrument()      # or HOOKPORT_OTEL=1, or hookport run --otel
    hookport.otel.uninstrument()

It subscribes to hookport's event bus (`hookport.events`), so a point without
hooks costs nothing and emits nothing. A span rather than an event on the
current span: every tracing backend shows a span, whether or not the framework
itself is instrumented, and when it is the span nests under the framework's
own (the current span is its parent). The span is named
``hookport <point>``, lasts as long as the hooks ran (the start time is taken
back by the measured duration), and carries:

==========================  ====================================================
gen_ai.operation.name       ``chat`` (model points), ``execute_tool`` (tool
                            points), ``invoke_agent`` (execution points)
gen_ai.agent.name           the agent's role, when the event carries it
gen_ai.tool.name            the tool, when the event carries it
error.type                  ``HookAborted`` on an abort (the span's status is
                            ERROR with the reason), else the error's type
hookport.point              the point, e.g. ``pre_tool_call``
hookport.outcome            ``proceeded`` / ``modified`` / ``aborted``
hookport.hook_count         how many hooks ran
hookport.duration_ms        how long they took
hookport.abort.reason       the abort's reason
hookport.abort.source       the aborting hook or policy rule
hookport.framework          the adapter that fired it (``langchain``)
hookport.failed_hooks       hooks that raised and were ignored (fail-open)
hookport.timed_out_hooks    hooks that ran past their time limit
==========================  ====================================================

Spans are made from the event bus's events, whose texts have been through the
registered ``[[redact]]`` rules (hookport.redaction, applied by `hookport.events`):
a value a policy redacts never leaves in a span.
"""

from __future__ import annotations

import threading
from time import time_ns
from typing import Any

from hookport import events
from hookport._extras import install_hint

OPERATION_BY_POINT = {
    "pre_model_call": "chat",
    "post_model_call": "chat",
    "pre_tool_call": "execute_tool",
    "post_tool_call": "execute_tool",
    "execution_start": "invoke_agent",
    "input": "invoke_agent",
    "output": "invoke_agent",
    "execution_end": "invoke_agent",
}
"""GenAI semantic-convention operation names for the points that have one (steps have none)."""

INSTRUMENTATION_NAME = "hookport"

_lock = threading.Lock()
_subscriber: SpanExporter | None = None


class SpanExporter:
    """The event-bus subscriber: turns one `HookDispatchedEvent` into one finished span."""

    def __init__(self, tracer: Any) -> None:
        from opentelemetry.trace import SpanKind, Status, StatusCode

        self.tracer = tracer
        self._kind = SpanKind.INTERNAL
        self._error = Status
        self._error_code = StatusCode.ERROR

    def __call__(self, event: events.HookDispatchedEvent) -> None:
        end = time_ns()
        start = end - int(event.duration_ms * 1_000_000)
        attrs = attributes(event)
        span = self.tracer.start_span(f"hookport {event.point}", kind=self._kind, start_time=start, attributes=attrs)
        if event.outcome == "aborted":
            span.set_status(self._error(self._error_code, event.abort_reason or "aborted by a hook"))
        elif "hookport.error" in attrs:
            span.set_status(self._error(self._error_code, str(attrs["hookport.error"])))
        span.end(end_time=end)


OPTIONAL_FIELDS = ("agent_role", "tool_name", "error", "failed_hooks", "timed_out_hooks")
"""Fields newer events carry; read only where the event's class has them."""

_fields_by_class: dict[type, tuple[str, ...]] = {}


def optional_fields(event: Any) -> dict[str, Any]:
    """`OPTIONAL_FIELDS` the event has (asking a pydantic model for a field it lacks is slow)."""
    cls = type(event)
    names = _fields_by_class.get(cls)
    if names is None:
        declared = getattr(cls, "model_fields", None)
        names = tuple(n for n in OPTIONAL_FIELDS if (n in declared if declared is not None else hasattr(event, n)))
        _fields_by_class[cls] = names
    return {name: getattr(event, name, None) for name in names}


def attributes(event: events.HookDispatchedEvent) -> dict[str, Any]:
    """The span's attributes; absent values are left out (OpenTelemetry takes no None)."""
    extra = optional_fields(event)
    found: dict[str, Any] = {
        "gen_ai.operation.name": OPERATION_BY_POINT.get(event.point),
        "gen_ai.agent.name": extra.get("agent_role"),
        "gen_ai.tool.name": extra.get("tool_name"),
        "hookport.point": event.point,
        "hookport.outcome": event.outcome,
        "hookport.hook_count": event.hook_count,
        "hookport.duration_ms": event.duration_ms,
        "hookport.abort.reason": event.abort_reason,
        "hookport.abort.source": event.abort_source,
        "hookport.framework": event.framework,
        "hookport.error": extra.get("error"),
    }
    for name in ("failed_hooks", "timed_out_hooks"):
        hooks = extra.get(name)
        if hooks:
            found[f"hookport.{name}"] = [str(hook) for hook in hooks]
    if event.outcome == "aborted":
        found["error.type"] = "HookAborted"
    elif found["hookport.error"]:
        found["error.type"] = str(found["hookport.error"]).split(":", 1)[0]
    return {key: value for key, value in found.items() if value is not None}


def instrument(tracer_provider: Any = None) -> None:
    """Export every dispatch that ran hooks as a span; idempotent.

    `tracer_provider` defaults to the global one (``opentelemetry.trace``), so a
    program that configured OpenTelemetry already needs nothing more.
    """
    global _subscriber
    try:
        from opentelemetry import trace
    except ImportError as error:
        raise ImportError(f"hookport.otel needs OpenTelemetry: {install_hint('otel')} ({error})") from None
    from hookport import __version__

    with _lock:
        if _subscriber is not None:
            events.unsubscribe(_subscriber)
        tracer = trace.get_tracer(INSTRUMENTATION_NAME, __version__, tracer_provider=tracer_provider)
        _subscriber = SpanExporter(tracer)
        events.subscribe(_subscriber)


def uninstrument() -> bool:
    """Stop exporting; returns whether it was on."""
    global _subscriber
    with _lock:
        if _subscriber is None:
            return False
        events.unsubscribe(_subscriber)
        _subscriber = None
        return True


def is_instrumented() -> bool:
    return _subscriber is not None and _subscriber in events.subscribers


def instrument_from_environment() -> None:
    """``HOOKPORT_OTEL=1`` at import: turn export on, or warn (never fail the program) without the extra."""
    try:
        instrument()
    except ImportError as error:
        events.logger.warning("HOOKPORT_OTEL is set but %s", error)
