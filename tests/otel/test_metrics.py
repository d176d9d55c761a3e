"""hookport.otel's metrics: decisions by point, decision and rule; hook time; failures and timeouts."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from hookport import HookAborted, InterceptionPoint, dispatch, otel, register_hook
from hookport.contexts import ToolCallHookContext
from hookport.policy import parse_policy
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider

P = InterceptionPoint
CARD = "4111 1111 1111 1111"


@pytest.fixture
def reader(provider: TracerProvider) -> Iterator[InMemoryMetricReader]:
    reader = InMemoryMetricReader()
    otel.instrument(tracer_provider=provider, meter_provider=MeterProvider(metric_readers=[reader]))
    yield reader
    otel.uninstrument()


def points(reader: InMemoryMetricReader, name: str) -> list[Any]:
    data = reader.get_metrics_data()
    found = []
    for resource in data.resource_metrics if data else ():
        for scope in resource.scope_metrics:
            found.extend(p for m in scope.metrics if m.name == name for p in m.data.data_points)
    return found


def counts(reader: InMemoryMetricReader, name: str, *keys: str) -> dict[tuple[Any, ...], int]:
    return {tuple(p.attributes.get(k) for k in keys): p.value for p in points(reader, name)}


def call(name: str = "send_email", **args: Any) -> ToolCallHookContext:
    return ToolCallHookContext(name, args or {"to": "a@example.com"}, framework="langchain")


def test_decisions_by_point_decision_and_rule(reader: InMemoryMetricReader) -> None:
    parse_policy('[[deny]]\ntools = ["delete_file"]\nreason = "no"\n'
                 "[[redact]]\npattern = 'secret'\nreplacement = '[X]'\nin = ['tool_args']\n", "team.toml").register()
    for _ in range(2):
        with pytest.raises(HookAborted):
            dispatch(P.PRE_TOOL_CALL, call("delete_file"))
    dispatch(P.PRE_TOOL_CALL, call(body="a secret"))
    dispatch(P.PRE_TOOL_CALL, call(body="nothing to hide"))
    found = counts(reader, "hookport.decisions", "hookport.point", "gen_ai.security.decision.type", "hookport.rule")
    redactor = next(rule for _, kind, rule in found if kind == "modify")
    assert redactor.startswith("team.toml:4:redact[0]")
    assert found == {
        ("pre_tool_call", "deny", "team.toml:1:deny[0]"): 2,
        ("pre_tool_call", "modify", redactor): 1,
        ("pre_tool_call", "allow", None): 1,
    }


def test_hook_time_is_a_histogram_in_seconds(reader: InMemoryMetricReader) -> None:
    register_hook(P.PRE_TOOL_CALL, lambda ctx: time.sleep(0.02))
    dispatch(P.PRE_TOOL_CALL, call())
    dispatch(P.PRE_TOOL_CALL, call())
    (histogram,) = points(reader, "hookport.hook.duration")
    assert histogram.count == 2 and dict(histogram.attributes) == {"hookport.point": "pre_tool_call",
                                                                   "hookport.framework": "langchain"}
    assert 0.04 <= histogram.sum < 5


def test_failures_and_timeouts_are_counted_by_hook(reader: InMemoryMetricReader) -> None:
    def broken(ctx: object) -> None:
        raise RuntimeError("down")

    def slow(ctx: object) -> None:
        time.sleep(0.5)

    register_hook(P.PRE_TOOL_CALL, broken)
    register_hook(P.PRE_TOOL_CALL, slow, timeout=0.05)
    dispatch(P.PRE_TOOL_CALL, call())
    assert counts(reader, "hookport.hook.failures", "hookport.hook") == {
        ("test_failures_and_timeouts_are_counted_by_hook.<locals>.broken",): 1}
    assert counts(reader, "hookport.hook.timeouts", "hookport.hook") == {
        ("test_failures_and_timeouts_are_counted_by_hook.<locals>.slow",): 1}


def test_no_label_carries_a_redacted_value(reader: InMemoryMetricReader) -> None:
    """A hook named after what it saw (a factory's closure) is redacted in labels like in spans."""
    parse_policy(f"[[redact]]\npattern = '{CARD}'\nreplacement = '[CARD]'\n", "team.toml").register()

    def failing(ctx: object) -> None:
        raise RuntimeError("down")

    failing.__qualname__ = f"check_card_{CARD}"
    register_hook(P.PRE_TOOL_CALL, failing)
    dispatch(P.PRE_TOOL_CALL, call())
    labels = [str(v) for name in ("hookport.decisions", "hookport.hook.failures", "hookport.hook.duration")
              for p in points(reader, name) for v in p.attributes.values()]
    assert "check_card_[CARD]" in labels and not any(CARD in label for label in labels)


def test_no_metrics_once_uninstrumented(reader: InMemoryMetricReader) -> None:
    register_hook(P.PRE_TOOL_CALL, lambda ctx: None)
    dispatch(P.PRE_TOOL_CALL, call())
    otel.uninstrument()
    dispatch(P.PRE_TOOL_CALL, call())
    assert [p.value for p in points(reader, "hookport.decisions")] == [1]
