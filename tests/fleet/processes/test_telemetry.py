"""One place to look: a worker's decisions are spans of the driver's trace, tagged with the worker's process.

tests/fleet/programs/traced.py: the driver turns export on and propagates its guard;
a spawned pool worker makes its own SDK provider and runs the agent inside the
driver's run (`hookport.fleet.in_run`).
"""

from __future__ import annotations

import pytest

from tests.fleet.conftest import run_program

pytest.importorskip("langchain_core")
pytest.importorskip("opentelemetry.sdk")


def test_worker_spans_join_the_drivers_trace_with_their_process() -> None:
    report = run_program("tests/fleet/programs/traced.py", OTEL_SDK_DISABLED="false")
    assert report["ran"] == {"read_file": 1, "delete_file": 0}
    spans = report["spans"]
    assert any(span["name"].startswith("hookport pre_tool_call") for span in spans), spans
    driver = report["driver"]
    for span in spans:
        assert span["trace"] == driver["trace"]  # the trace context crossed with the task
        assert int(span["process.pid"]) == report["pid"] != driver["pid"]  # the worker's own process (a resource attribute)
        assert span["run"] == "ticket-5"  # the driver's run, continued in the worker
    assert any(span["parent"] == driver["span"] for span in spans)  # under the span that sent the task
