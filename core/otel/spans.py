"""The event-bus subscriber: each `HookDispatchedEvent` becomes one finished decision span.

The span is named ``hookport <point>``, has kind INTERNAL, lasts as long as the hooks ran
(its start is taken back by the measured duration) and carries `hookport.otel.semconv`;
each rule outcome is a ``gen_ai.security.finding`` event on it. Where it goes is
`hookport.otel.placement`'s business. A refusal is a decision, not an error: the status is
ERROR only when a hook failed (``error.type``), as the GenAI security draft has it.
"""

from __future__ import annotations

from time import time_ns
from typing import Any, Optional

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.trace import SpanKind, Status, StatusCode

from hookport import events
from hookport.otel.semconv import attributes, decide, findings
from hookport.otel.metrics import Metrics


class DecisionSpans:
    """Subscriber: makes the decision span (placed by `placement`) and records the metrics."""

    def __init__(self, tracer: Any, metrics: Optional[Metrics]) -> None:
        self.tracer = tracer
        self.metrics = metrics
        self.placement: Any = None

    def __call__(self, event: events.HookDispatchedEvent) -> None:
        end = time_ns()
        if self.metrics is not None:
            self.metrics.record(event, decide(event))
        self.placement.place(event, end - int(event.duration_ms * 1_000_000), end)

    def emit(self, event: events.HookDispatchedEvent, parent: Any, start: int, end: int) -> None:
        context = trace.set_span_in_context(parent) if parent is not None else Context()
        name = f"hookport {event.point}"
        if isinstance(getattr(self.tracer, "_tracer", self.tracer), trace.NoOpTracer):
            self.tracer.start_span(name, context=context, start_time=start).end(end_time=end)
            return  # no SDK behind the API: a no-op span, so nothing to describe
        attrs = attributes(event, decide(event))
        span = self.tracer.start_span(name, context=context, kind=SpanKind.INTERNAL, start_time=start, attributes=attrs)
        for event_name, finding in findings(event):
            span.add_event(event_name, finding, timestamp=end)
        if "error.type" in attrs:
            span.set_status(Status(StatusCode.ERROR, str(attrs.get("hookport.error"))))
        span.end(end_time=end)
        if parent is None:
            self.placement.remember_root(event.run_id, span)
