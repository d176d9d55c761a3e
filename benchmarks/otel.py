"""What OpenTelemetry export adds to a dispatch, as a ratio to the same dispatch with it off.

    python benchmarks/otel.py [--quick]

One no-op hook on pre_tool_call, dispatched: with export off; with
`hookport.otel.instrument()` on the API's default provider (no SDK configured:
spans are no-ops); and on an SDK `TracerProvider` with a `BatchSpanProcessor`
whose exporter drops the spans (the real cost of making and queueing a span,
without any I/O). Needs ``hookport[otel]`` and opentelemetry-sdk.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import timeit
from collections.abc import Sequence
from typing import Any

os.environ.pop("OTEL_SDK_DISABLED", None)

import hookport  # noqa: E402
from hookport import InterceptionPoint, otel  # noqa: E402
from hookport.contexts import ToolCallHookContext  # noqa: E402


def per_dispatch_us(number: int, repeat: int = 5) -> float:
    ctx = ToolCallHookContext("read_file", {"path": "notes.txt"}, framework="bench")
    point, dispatch = InterceptionPoint.PRE_TOOL_CALL, hookport.dispatch
    return min(timeit.repeat(lambda: dispatch(point, ctx), number=number, repeat=repeat)) / number * 1e6


def sdk_provider() -> Any:
    from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

    class Drop(SpanExporter):
        def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
            return SpanExportResult.SUCCESS

    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(Drop(), max_queue_size=65536))
    return provider


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer iterations (a smoke run)")
    args = parser.parse_args()
    number = 5_000 if args.quick else 50_000
    hookport.register_hook(InterceptionPoint.PRE_TOOL_CALL, lambda ctx: None)
    off = per_dispatch_us(number)
    otel.instrument()
    api_only = per_dispatch_us(number)
    provider = sdk_provider()
    otel.instrument(tracer_provider=provider)
    sdk = per_dispatch_us(number)
    otel.uninstrument()
    provider.shutdown()
    print(f"hookport {hookport.__version__}, Python {platform.python_version()}, {platform.machine()}")
    print("one no-op hook on pre_tool_call")
    print(f"{'export':<44} {'us/dispatch':>12} {'x off':>7}")
    for label, us in (
        ("off", off),
        ("on, no SDK configured (no-op spans)", api_only),
        ("on, SDK + BatchSpanProcessor (spans dropped)", sdk),
    ):
        print(f"{label:<44} {us:>12.3f} {us / off:>7.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
