"""hookport.otel: each dispatch that ran hooks reaches an in-memory OpenTelemetry exporter as a decision span."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hookport import HookAborted, InterceptionPoint, dispatch, otel, register_hook
from hookport.contexts import ExecutionStartContext, LLMCallHookContext, StepContext, ToolCallHookContext
from hookport.policy import parse_policy
from hookport.runs import bind_run
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

P = InterceptionPoint


def finished(spans: InMemorySpanExporter) -> tuple:
    """The exported spans, after a flush: a PRE decision waits for its call's span to start."""
    otel.flush()
    return spans.get_finished_spans()


def tool_ctx(name: str = "read_file") -> ToolCallHookContext:
    return ToolCallHookContext(name, {"path": "notes.txt"}, framework="langchain", agent_role="assistant")


def test_a_dispatch_that_ran_hooks_is_one_span(spans: InMemorySpanExporter) -> None:
    register_hook(P.PRE_TOOL_CALL, lambda ctx: None)
    register_hook(P.PRE_TOOL_CALL, lambda ctx: {"path": "other.txt"})
    dispatch(P.PRE_TOOL_CALL, tool_ctx())
    (span,) = finished(spans)
    assert span.name == "hookport pre_tool_call"
    attributes = dict(span.attributes or {})
    assert attributes["hookport.point"] == "pre_tool_call"
    assert attributes["hookport.outcome"] == "modified"
    assert attributes["hookport.hook_count"] == 2
    assert attributes["hookport.framework"] == "langchain"
    assert attributes["gen_ai.security.target.type"] == "tool_call"
    assert attributes["gen_ai.security.decision.type"] == "modify"
    assert attributes["gen_ai.security.content.redacted"] is True
    assert attributes["hookport.tool.name"] == "read_file" and attributes["hookport.agent.role"] == "assistant"
    assert attributes["hookport.duration_ms"] >= 0
    assert span.end_time is not None and span.start_time is not None and span.end_time >= span.start_time
    assert span.status.status_code is not StatusCode.ERROR


def test_an_abort_is_a_deny_decision_not_an_error(spans: InMemorySpanExporter) -> None:
    def guard(ctx: object) -> None:
        raise HookAborted(reason="file deletion is not allowed", source="security-policy")

    register_hook(P.PRE_TOOL_CALL, guard)
    with pytest.raises(HookAborted):
        dispatch(P.PRE_TOOL_CALL, tool_ctx("delete_file"))
    (span,) = finished(spans)
    assert span.status.status_code is StatusCode.UNSET  # the guard worked: the GenAI draft's deny
    attributes = dict(span.attributes or {})
    assert attributes["gen_ai.security.decision.type"] == "deny"
    assert attributes["gen_ai.security.decision.reason"] == "file deletion is not allowed"
    assert attributes["gen_ai.security.policy.id"] == "security-policy"
    assert attributes["hookport.outcome"] == "aborted"
    assert attributes["hookport.abort.reason"] == "file deletion is not allowed"
    assert attributes["hookport.abort.source"] == "security-policy"
    assert "error.type" not in attributes


def test_a_failing_hook_is_an_error(spans: InMemorySpanExporter) -> None:
    def broken(ctx: object) -> None:
        raise RuntimeError("audit log is down")

    register_hook(P.PRE_TOOL_CALL, broken)
    dispatch(P.PRE_TOOL_CALL, tool_ctx())  # fail-open: the call goes on
    (span,) = finished(spans)
    assert span.status.status_code is StatusCode.ERROR
    attributes = dict(span.attributes or {})
    assert attributes["error.type"] == "RuntimeError"
    assert list(attributes["hookport.failed_hooks"]) == ["test_a_failing_hook_is_an_error.<locals>.broken"]
    assert attributes["gen_ai.security.decision.type"] == "allow"


def test_no_attribute_makes_the_decision_look_like_the_call(spans: InMemorySpanExporter) -> None:
    """Phoenix takes gen_ai.operation.name, gen_ai.tool.name, ... for a model, tool or agent span."""
    register_hook(P.PRE_TOOL_CALL, lambda ctx: None)
    register_hook(P.PRE_MODEL_CALL, lambda ctx: None)
    register_hook(P.EXECUTION_START, lambda ctx: None)
    dispatch(P.PRE_TOOL_CALL, tool_ctx())
    dispatch(P.PRE_MODEL_CALL, LLMCallHookContext([{"role": "user", "content": "hi"}], agent_role="assistant"))
    dispatch(P.EXECUTION_START, ExecutionStartContext({"q": "hi"}, agent_role="assistant"))
    exported = finished(spans)
    assert len(exported) == 3
    for span in exported:
        keys = set(span.attributes or {})
        assert not keys & {"gen_ai.operation.name", "gen_ai.tool.name", "gen_ai.agent.name", "gen_ai.request.model",
                           "gen_ai.tool.call.id", "gen_ai.input.messages", "openinference.span.kind"}, keys
        assert {k for k in keys if k.startswith("gen_ai.")} <= {
            "gen_ai.guardian.name", "gen_ai.security.target.type", "gen_ai.security.decision.type",
            "gen_ai.security.decision.reason", "gen_ai.security.policy.id", "gen_ai.security.content.redacted"}


def test_every_rule_that_acted_is_named(spans: InMemorySpanExporter) -> None:
    """A redaction names its rule (file and line), a reported outcome becomes a finding event."""
    from hookport.outcomes import report

    def warn(ctx: object) -> None:
        report(ctx, "team.toml:9:warn[0]", "warn", "large transfer")

    register_hook(P.PRE_TOOL_CALL, warn)
    parse_policy("[[redact]]\npattern = 'secret'\nreplacement = '[X]'\nin = ['tool_args']\n", "team.toml").register()
    with bind_run("run-7"):
        dispatch(P.PRE_TOOL_CALL, ToolCallHookContext("send", {"body": "a secret"}, framework="langchain"))
    (span,) = finished(spans)
    attributes = dict(span.attributes or {})
    (redactor,) = attributes["hookport.modified_by"]
    assert redactor.startswith("team.toml:1:redact[0]")
    assert attributes["gen_ai.security.decision.type"] == "modify"
    assert attributes["gen_ai.security.policy.id"] == redactor
    assert list(attributes["hookport.rules"]) == ["team.toml:9:warn[0]", redactor]
    assert attributes["hookport.run.id"] == "run-7"
    finding, redaction = span.events  # each reported outcome: the hook's warn, the policy's redact
    assert finding.name == redaction.name == "gen_ai.security.finding"
    assert dict(finding.attributes or {}) == {
        "gen_ai.security.policy.id": "team.toml:9:warn[0]", "gen_ai.security.decision.type": "warn",
        "hookport.rule.outcome": "warn", "gen_ai.security.decision.reason": "large transfer"}
    assert dict(redaction.attributes or {}) == {
        "gen_ai.security.policy.id": redactor, "gen_ai.security.decision.type": "modify",
        "hookport.rule.outcome": "redact", "gen_ai.security.decision.reason": "matches replaced with [X] in tool_args"}


def test_a_policy_rule_is_the_abort_source(spans: InMemorySpanExporter) -> None:
    parse_policy('[[deny]]\ntools = ["delete_file"]\nreason = "no"\n', "team.toml").register()
    with pytest.raises(HookAborted):
        dispatch(P.PRE_TOOL_CALL, tool_ctx("delete_file"))
    (span,) = finished(spans)
    assert span.attributes["hookport.abort.source"] == "team.toml:1:deny[0]"  # type: ignore[index]


def test_nothing_for_points_without_hooks(spans: InMemorySpanExporter) -> None:
    register_hook(P.POST_TOOL_CALL, lambda ctx: None)
    dispatch(P.PRE_TOOL_CALL, tool_ctx())
    dispatch(P.PRE_MODEL_CALL, LLMCallHookContext([{"role": "user", "content": "hi"}]))
    assert finished(spans) == ()


def test_the_span_nests_under_the_current_span(provider: TracerProvider, spans: InMemorySpanExporter) -> None:
    register_hook(P.PRE_STEP, lambda ctx: None)
    with provider.get_tracer("framework").start_as_current_span("agent step") as outer:
        dispatch(P.PRE_STEP, StepContext("input", kind="node", step_name="agent"))
    inner = next(s for s in finished(spans) if s.name == "hookport pre_step")
    assert inner.parent is not None and inner.parent.span_id == outer.get_span_context().span_id
    assert inner.attributes["gen_ai.security.target.type"] == "agent_step"  # type: ignore[index]


def test_uninstrument_stops_the_export(spans: InMemorySpanExporter) -> None:
    register_hook(P.PRE_TOOL_CALL, lambda ctx: None)
    assert otel.is_instrumented()
    assert otel.uninstrument() is True
    dispatch(P.PRE_TOOL_CALL, tool_ctx())
    assert finished(spans) == ()
    assert otel.uninstrument() is False


def test_instrument_twice_exports_once(provider: TracerProvider, spans: InMemorySpanExporter) -> None:
    otel.instrument(tracer_provider=provider)
    register_hook(P.PRE_TOOL_CALL, lambda ctx: None)
    dispatch(P.PRE_TOOL_CALL, tool_ctx())
    assert len(finished(spans)) == 1


def test_an_event_without_the_newer_fields_still_makes_attributes() -> None:
    """outcomes, run_id and modified_by are read with getattr (a subscriber may replay older events)."""
    from types import SimpleNamespace

    event = SimpleNamespace(
        point="pre_tool_call", outcome="proceeded", hook_count=3, duration_ms=0.5, abort_reason=None,
        abort_source=None, framework="crewai", agent_role="researcher", tool_name="search",
        failed_hooks=("broken_hook",), timed_out_hooks=(), error=None,
    )
    attributes = otel.attributes(event)  # type: ignore[arg-type]
    assert attributes["hookport.agent.role"] == "researcher"
    assert attributes["hookport.tool.name"] == "search"
    assert list(attributes["hookport.failed_hooks"]) == ["broken_hook"]
    assert "hookport.timed_out_hooks" not in attributes and "hookport.run.id" not in attributes


def test_hookport_otel_environment_variable_turns_it_on() -> None:
    env = dict(os.environ, HOOKPORT_OTEL="1")
    code = "import hookport.otel as o; print(o.is_instrumented())"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.stdout.strip() == "True", done.stderr
    env["HOOKPORT_OTEL"] = "0"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.stdout.strip() == "False", done.stderr
