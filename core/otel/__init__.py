"""OpenTelemetry export: each decision hookport's hooks make is a span inside its call's span.

    pip install -e '.[otel]'        # in a clone; or pip install 'opentelemetry-api>=1.20'
    hookport.otel.instrument()      # or HOOKPORT_OTEL=1, or hookport run --otel
    hookport.otel.uninstrument()

It subscribes to hookport's event bus (`hookport.events`), so a point without hooks costs
nothing and emits nothing. Each dispatch that ran hooks becomes one span named
``hookport <point>`` (`hookport.otel.spans`), with the GenAI security draft's attributes
for a guardrail decision and ``hookport.*`` for the rest (`hookport.otel.semconv`),
placed under the span of the call it decided, whichever instrumentation made that span
(`hookport.otel.placement`), so one run is one trace. With a meter provider it also counts
decisions, failures and timeouts and times the hooks (`hookport.otel.metrics`).

Spans and metrics are made from the event bus's events, whose texts have been through the
registered ``[[redact]]`` rules (hookport.redaction, applied by `hookport.events`): a value
a policy redacts never leaves in a span or a metric label.
"""

from __future__ import annotations

import threading
from typing import Any, Optional

from hookport import events

INSTRUMENTATION_NAME = "hookport"

_lock = threading.Lock()
_subscriber: Any = None
_processors: dict[int, Any] = {}
"""The `CallSpans` added to each SDK provider (by id): the SDK cannot remove one, so it is reused."""


def instrument(tracer_provider: Any = None, meter_provider: Any = None, *, metrics: bool = True) -> None:
    """Export every dispatch that ran hooks as a decision span (and metrics); idempotent.

    `tracer_provider` and `meter_provider` default to the global ones, so a program that
    configured OpenTelemetry already needs nothing more. On an SDK tracer provider hookport
    adds one span processor of its own (`hookport.otel.placement.CallSpans`) to find each
    decision's call; set up after `instrument()`, the global provider gets it at the first
    decision.
    """
    global _subscriber
    try:
        from opentelemetry import trace
    except ImportError as error:
        from hookport._extras import install_hint

        raise ImportError(f"hookport.otel needs OpenTelemetry: {install_hint('otel')} ({error})") from None
    from hookport import __version__
    from hookport.otel.spans import DecisionSpans

    with _lock:
        _stop()
        tracer = trace.get_tracer(INSTRUMENTATION_NAME, __version__, tracer_provider=tracer_provider)
        subscriber = DecisionSpans(tracer, _metrics(meter_provider, __version__) if metrics else None)
        subscriber.placement = _placement(subscriber, tracer_provider)
        _subscriber = subscriber
        events.subscribe(subscriber)


def _metrics(meter_provider: Any, version: str) -> Any:
    from opentelemetry import metrics

    from hookport.otel.metrics import Metrics

    return Metrics(metrics.get_meter(INSTRUMENTATION_NAME, version, meter_provider=meter_provider))


def _placement(subscriber: Any, tracer_provider: Any) -> Any:
    """hookport's span processor on an SDK provider; until there is one, a placement that looks again."""
    from opentelemetry import trace

    provider = tracer_provider if tracer_provider is not None else trace.get_tracer_provider()
    if hasattr(provider, "add_span_processor"):
        return _call_spans(provider, subscriber)
    if tracer_provider is None:
        return _Deferred(subscriber)
    from hookport.otel.placement import NoSpans

    return NoSpans(subscriber.emit)


def _call_spans(provider: Any, subscriber: Any) -> Any:
    from hookport.otel.placement import CallSpans

    processor = _processors.get(id(provider))
    if processor is None:
        processor = CallSpans(subscriber.emit, INSTRUMENTATION_NAME)
        provider.add_span_processor(processor)
        _first(provider, processor)
        _processors[id(provider)] = processor
    processor.emit, processor.active = subscriber.emit, True
    return processor


def _first(provider: Any, processor: Any) -> None:
    """Put hookport's processor before the exporters' on the SDK provider: at shutdown and flush
    it emits the decisions still waiting while the exporters still take them."""
    multi = getattr(provider, "_active_span_processor", None)
    processors = getattr(multi, "_span_processors", None)
    lock = getattr(multi, "_lock", None)
    if not isinstance(processors, tuple) or lock is None:
        return
    with lock:
        multi._span_processors = (processor, *(p for p in processors if p is not processor))


class _Deferred:
    """The global provider was not configured yet at `instrument()`: look again at each decision."""

    def __init__(self, subscriber: Any) -> None:
        from opentelemetry import trace

        from hookport.otel.placement import NoSpans

        self.trace = trace

        self.subscriber = subscriber
        self.fallback = NoSpans(subscriber.emit)

    def place(self, event: events.HookDispatchedEvent, start: int, end: int) -> None:
        provider = getattr(self.trace, "_TRACER_PROVIDER", None)  # set_tracer_provider's; cheaper than asking
        if provider is not None and hasattr(provider, "add_span_processor"):
            self.subscriber.placement = placement = _call_spans(provider, self.subscriber)
            placement.place(event, start, end)
        else:
            self.fallback.place(event, start, end)

    def remember_root(self, run_id: Optional[str], span: Any) -> None:
        pass

    def flush_all(self) -> None:
        pass


def _stop() -> bool:
    global _subscriber
    if _subscriber is None:
        return False
    events.unsubscribe(_subscriber)
    placement = _subscriber.placement
    placement.flush_all()
    if hasattr(placement, "active"):
        placement.active = False
    _subscriber = None
    return True


def uninstrument() -> bool:
    """Stop exporting (decisions still waiting for their call's span are emitted); returns whether it was on."""
    with _lock:
        return _stop()


def flush() -> None:
    """Emit the decisions still waiting for their call's span, now (tests, before reading an exporter)."""
    subscriber = _subscriber
    if subscriber is not None:
        subscriber.placement.flush_all()


def is_instrumented() -> bool:
    return _subscriber is not None and _subscriber in events.subscribers


def instrument_from_environment() -> None:
    """``HOOKPORT_OTEL=1`` at import: turn export on, or warn (never fail the program) without the extra."""
    try:
        instrument()
    except ImportError as error:
        events.logger.warning("HOOKPORT_OTEL is set but %s", error)


def attributes(event: events.HookDispatchedEvent) -> dict[str, Any]:
    """The attributes of the span `event` becomes (`hookport.otel.semconv.attributes`)."""
    from hookport.otel.semconv import attributes as of

    return of(event)
