"""The numbers: decisions by point, decision and rule; hook time; timeouts and failures.

Made through the OpenTelemetry metrics API from the same (redacted) events as the spans, so
a label never carries more than a span does: points, decision types, rule and hook names.
"""

from __future__ import annotations

from typing import Any

from hookport import events
from hookport.otel.semconv import Decision

DURATION_BUCKETS = (0.00001, 0.00005, 0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 30.0)
"""Seconds: hooks run from microseconds (a check) to seconds (an approval, a remote guard)."""


class Metrics:
    """The instruments, made once per `instrument()`."""

    def __init__(self, meter: Any) -> None:
        self.decisions = meter.create_counter(
            "hookport.decisions", unit="{decision}",
            description="Decisions made by hookport's hooks, by point, decision type and rule",
        )
        self.failures = meter.create_counter(
            "hookport.hook.failures", unit="{failure}", description="Hooks that raised (fail-open or fail-closed)",
        )
        self.timeouts = meter.create_counter(
            "hookport.hook.timeouts", unit="{timeout}", description="Hooks that ran past their time limit",
        )
        try:
            self.duration = meter.create_histogram(
                "hookport.hook.duration", unit="s", description="How long a point's hooks ran, per dispatch",
                explicit_bucket_boundaries_advisory=DURATION_BUCKETS,
            )
        except TypeError:  # opentelemetry-api < 1.23 has no bucket advice
            self.duration = meter.create_histogram(
                "hookport.hook.duration", unit="s", description="How long a point's hooks ran, per dispatch",
            )

    def record(self, event: events.HookDispatchedEvent, decision: Decision) -> None:
        base = {"hookport.point": event.point}
        if event.framework:
            base["hookport.framework"] = event.framework
        self.duration.record(event.duration_ms / 1000.0, base)
        if decision.by_rule:
            for rule, kind in decision.by_rule:
                self.decisions.add(1, {**base, "gen_ai.security.decision.type": kind, "hookport.rule": rule})
        else:
            self.decisions.add(1, {**base, "gen_ai.security.decision.type": decision.type})
        for hook in event.failed_hooks:
            self.failures.add(1, {**base, "hookport.hook": hook})
        for hook in event.timed_out_hooks:
            self.timeouts.add(1, {**base, "hookport.hook": hook})
