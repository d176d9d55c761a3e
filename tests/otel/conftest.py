"""An OpenTelemetry SDK provider with an in-memory exporter, and hookport's export on it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402


@pytest.fixture
def provider(monkeypatch: pytest.MonkeyPatch) -> TracerProvider:
    monkeypatch.delenv("OTEL_SDK_DISABLED", raising=False)  # the root conftest turns the SDK off for frameworks
    return TracerProvider()


@pytest.fixture
def spans(provider: TracerProvider) -> Iterator[InMemorySpanExporter]:
    from hookport import otel

    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    otel.instrument(tracer_provider=provider)
    try:
        yield exporter
    finally:
        otel.uninstrument()
