"""One run traced across a process pool: the driver's span, and the worker's spans under it.

    python traced.py

The driver sets the fleet examples' guard up in code with OpenTelemetry export on
(`hookport.otel.instrument()`), calls `propagate()`, and inside a span of its own and
a run submits the agent to a spawned pool process, wrapped in `hookport.fleet.in_run`.
The worker sets up its own SDK tracer provider (as any worker exporting to a backend
does; here an in-memory exporter) and reports hookport's spans: their trace, their
parent, the process and the run. Prints the driver's span and the worker's report.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from tests.fleet.programs.agent_task import run_agent  # noqa: E402
from examples.fleet.guarding import set_up_guard  # noqa: E402


def in_memory_provider() -> Any:
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    return exporter


def traced_agent() -> dict[str, Any]:
    exporter = in_memory_provider()
    report = run_agent()
    report["spans"] = [
        {
            "name": span.name,
            "trace": f"{span.context.trace_id:032x}",
            "parent": f"{span.parent.span_id:016x}" if span.parent else None,
            "process.pid": span.resource.attributes.get("process.pid"),
            "run": span.attributes.get("hookport.run.id"),
        }
        for span in exporter.get_finished_spans()
        if span.name.startswith("hookport")
    ]
    return report


def main() -> None:
    from opentelemetry import trace

    import hookport
    from hookport import otel
    from hookport.fleet import in_run

    in_memory_provider()
    otel.instrument()
    set_up_guard()
    with trace.get_tracer("driver").start_as_current_span("driver") as span, hookport.execution("traced", run_id="ticket-5"):
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            report = pool.submit(in_run(traced_agent)).result(timeout=180)
        context = span.get_span_context()
    report["driver"] = {"trace": f"{context.trace_id:032x}", "span": f"{context.span_id:016x}", "pid": os.getpid()}
    print(json.dumps(report))


if __name__ == "__main__":
    main()
