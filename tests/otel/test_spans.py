"""hookport.otel: each dispatch that ran hooks reaches an in-memory OpenTelemetry exporter as a span."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hookport import HookAborted, InterceptionPoint, dispatch, otel, register_hook
from hookport.contexts import LLMCallHookContext, StepContext, ToolCallHookContext
from hookport.policy import parse_policy
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

P = InterceptionPoint


def tool_ctx(name: str = "read_file") -> ToolCallHookContext:
    return ToolCallHookContext(name, {"path": "notes.txt"}, framework="langchain", agent_role="assistant")


def test_a_dispatch_that_ran_hooks_is_one_span(spans: InMemorySpanExporter) -> None:
    register_hook(P.PRE_TOOL_CALL, lambda ctx: None)
    register_hook(P.PRE_TOOL_CALL, lambda ctx: {"path": "other.txt"})
    dispatch(P.PRE_TOOL_CALL, tool_ctx())
    (span,) = spans.get_finished_spans()
    assert span.name == "hookport pre_tool_call"
    attributes = dict(span.attributes or {})
    assert attributes["hookport.point"] == "pre_tool_call"
    assert attributes["hookport.outcome"] == "modified"
    assert attributes["hookport.hook_count"] == 2
    assert attributes["hookport.framework"] == "langchain"
    assert attributes["gen_ai.operation.name"] == "execute_tool"
    assert attributes["hookport.duration_ms"] >= 0
    assert span.end_time is not None and span.start_time is not None and span.end_time >= span.start_time
    assert span.status.status_code is not StatusCode.ERROR


def test_an_abort_marks_the_span_as_an_error(spans: InMemorySpanExporter) -> None:
    def guard(ctx: object) -> None:
        raise HookAborted(reason="file deletion is not allowed", source="security-policy")

    register_hook(P.PRE_TOOL_CALL, guard)
    with pytest.raises(HookAborted):
        dispatch(P.PRE_TOOL_CALL, tool_ctx("delete_file"))
    (span,) = spans.get_finished_spans()
    assert span.status.status_code is StatusCode.ERROR
    assert span.status.description == "file deletion is not allowed"
    attributes = dict(span.attributes or {})
    assert attributes["hookport.outcome"] == "aborted"
    assert attributes["hookport.abort.reason"] == "file deletion is not allowed"
    assert attributes["hookport.abort.source"] == "security-policy"
    assert attributes["error.type"] == "HookAborted"


def test_a_policy_rule_is_the_abort_source(spans: InMemorySpanExporter) -> None:
    parse_policy('[[deny]]\ntools = ["delete_file"]\nreason = "no"\n', "team.toml").register()
    with pytest.raises(HookAborted):
        dispatch(P.PRE_TOOL_CALL, tool_ctx("delete_file"))
    (span,) = spans.get_finished_spans()
    assert span.attributes["hookport.abort.source"] == "team.toml:1:deny[0]"  # type: ignore[index]


def test_nothing_for_points_without_hooks(spans: InMemorySpanExporter) -> None:
    register_hook(P.POST_TOOL_CALL, lambda ctx: None)
    dispatch(P.PRE_TOOL_CALL, tool_ctx())
    dispatch(P.PRE_MODEL_CALL, LLMCallHookContext([{"role": "user", "content": "hi"}]))
    assert spans.get_finished_spans() == ()


def test_the_span_nests_under_the_current_span(provider: TracerProvider, spans: InMemorySpanExporter) -> None:
    register_hook(P.PRE_STEP, lambda ctx: None)
    with provider.get_tracer("framework").start_as_current_span("agent step") as outer:
        dispatch(P.PRE_STEP, StepContext("input", kind="node", step_name="agent"))
    inner = next(s for s in spans.get_finished_spans() if s.name == "hookport pre_step")
    assert inner.parent is not None and inner.parent.span_id == outer.get_span_context().span_id
    assert "gen_ai.operation.name" not in (inner.attributes or {})  # steps have no GenAI operation name


def test_uninstrument_stops_the_export(spans: InMemorySpanExporter) -> None:
    register_hook(P.PRE_TOOL_CALL, lambda ctx: None)
    assert otel.is_instrumented()
    assert otel.uninstrument() is True
    dispatch(P.PRE_TOOL_CALL, tool_ctx())
    assert spans.get_finished_spans() == ()
    assert otel.uninstrument() is False


def test_instrument_twice_exports_once(provider: TracerProvider, spans: InMemorySpanExporter) -> None:
    otel.instrument(tracer_provider=provider)
    register_hook(P.PRE_TOOL_CALL, lambda ctx: None)
    dispatch(P.PRE_TOOL_CALL, tool_ctx())
    assert len(spans.get_finished_spans()) == 1


def test_fields_the_event_may_carry_later_are_read_when_present() -> None:
    """agent_role, tool_name, failed_hooks, timed_out_hooks and error are read with getattr."""
    from types import SimpleNamespace

    event = SimpleNamespace(
        point="pre_tool_call", outcome="proceeded", hook_count=3, duration_ms=0.5, abort_reason=None,
        abort_source=None, framework="crewai", agent_role="researcher", tool_name="search",
        failed_hooks=("broken_hook",), timed_out_hooks=(), error=None,
    )
    attributes = otel.attributes(event)  # type: ignore[arg-type]
    assert attributes["gen_ai.agent.name"] == "researcher"
    assert attributes["gen_ai.tool.name"] == "search"
    assert attributes["hookport.failed_hooks"] == ["broken_hook"]
    assert "hookport.timed_out_hooks" not in attributes


def test_hookport_otel_environment_variable_turns_it_on() -> None:
    env = dict(os.environ, HOOKPORT_OTEL="1")
    code = "import hookport.otel as o; print(o.is_instrumented())"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.stdout.strip() == "True", done.stderr
    env["HOOKPORT_OTEL"] = "0"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.stdout.strip() == "False", done.stderr
