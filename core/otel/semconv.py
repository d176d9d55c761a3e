"""What one decision says, in the GenAI security conventions' words where the draft has them.

The OpenTelemetry GenAI SIG's draft for guardrails (the ``apply_guardrail`` span and the
``gen_ai.security.finding`` event) names the decision, its target and the policy that made
it. hookport uses those names for what they describe, ``hookport.*`` for the rest, and never
an attribute of the call it decided (``gen_ai.operation.name``, ``gen_ai.tool.name``,
``gen_ai.agent.name``, ``openinference.span.kind``): backends such as Phoenix classify a span
by those, and a decision would then show as one more model, tool or agent call.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional

from hookport import events

GUARDIAN = "hookport"

TARGET_BY_POINT = {
    "pre_model_call": "llm_input",
    "post_model_call": "llm_output",
    "pre_tool_call": "tool_call",
    "post_tool_call": "tool_result",
    "input": "agent_input",
    "output": "agent_output",
    "execution_start": "agent_run",
    "execution_end": "agent_run",
    "pre_step": "agent_step",
    "post_step": "agent_step",
    "agent_turn_start": "agent_turn",
    "agent_turn_end": "agent_turn",
}
"""``gen_ai.security.target.type``: the draft's values for model input/output and tool calls,
hookport's own (free-form, as the draft allows) for the points it has no word for."""

DECISION_BY_OUTCOME = {
    "deny": "deny",
    "approval_denied": "deny",
    "approval_timeout": "deny",
    "redact": "modify",
    "rewrite": "modify",
    "warn": "warn",
    "approve": "warn",
    "approval_pending": "warn",
    "approved": "allow",
    "allow": "allow",
}
"""A rule outcome (`hookport.outcomes`) as the draft's ``gen_ai.security.decision.type``;
every ``would_*`` (audit mode) is ``audit``."""

SEVERITY = {"allow": 0, "audit": 1, "warn": 2, "modify": 3, "deny": 4}


def rule_decision(outcome: str) -> str:
    if outcome.startswith("would_"):
        return "audit"
    return DECISION_BY_OUTCOME.get(outcome, "allow")


class Decision(NamedTuple):
    """The dispatch summed up: its decision type, the rule that decided it, every rule that acted."""

    type: str
    rule: Optional[str]
    reason: Optional[str]
    rules: tuple[str, ...]
    by_rule: tuple[tuple[str, str], ...]
    """(rule, decision type) of every rule that acted, in order: the metrics count these."""


OVERALL = {"aborted": "deny", "failed": "deny", "modified": "modify"}
ALLOWED = Decision("allow", None, None, (), ())


def decide(event: events.HookDispatchedEvent) -> Decision:
    """Which decision the dispatch made and which rule made it.

    The rules that reported an outcome (`hookport.outcomes`) come first; a refusal's source
    and the hooks whose return changed the call (``modified_by``) are rules too, so a plain
    hook is named the same way a policy rule is.
    """
    if event.outcome == "proceeded" and not getattr(event, "outcomes", ()) and not getattr(event, "modified_by", ()):
        return ALLOWED  # the usual decision, made without looking further
    by_rule = [(outcome.rule, rule_decision(outcome.outcome)) for outcome in getattr(event, "outcomes", ())]
    reasons = {outcome.rule: outcome.reason for outcome in reversed(getattr(event, "outcomes", ()))}
    if OVERALL.get(event.outcome) == "deny" and event.abort_source and (event.abort_source, "deny") not in by_rule:
        by_rule.append((event.abort_source, "deny"))
    named = {rule for rule, _ in by_rule}
    by_rule.extend((hook, "modify") for hook in dict.fromkeys(getattr(event, "modified_by", ())) if hook not in named)
    overall = OVERALL.get(event.outcome, "allow")
    for _, kind in by_rule:
        if SEVERITY[kind] > SEVERITY[overall]:
            overall = kind
    rule = next((name for name, kind in by_rule if kind == overall), None)
    reason = event.abort_reason if overall == "deny" and event.abort_reason else reasons.get(rule or "")
    return Decision(overall, rule, reason, tuple(dict.fromkeys(name for name, _ in by_rule)), tuple(by_rule))


def attributes(event: events.HookDispatchedEvent, decision: Optional[Decision] = None) -> dict[str, Any]:
    """The decision span's attributes; absent values are left out (OpenTelemetry takes no None)."""
    decision = decision or decide(event)
    error = getattr(event, "error", None)
    found: dict[str, Any] = {
        "gen_ai.guardian.name": GUARDIAN,
        "gen_ai.security.target.type": TARGET_BY_POINT.get(event.point, event.point),
        "gen_ai.security.decision.type": decision.type,
        "gen_ai.security.decision.reason": decision.reason if decision.type != "allow" else None,
        "gen_ai.security.policy.id": decision.rule,
        "gen_ai.security.content.redacted": True if decision.type == "modify" else None,
        "hookport.point": event.point,
        "hookport.outcome": event.outcome,
        "hookport.hook_count": event.hook_count,
        "hookport.duration_ms": event.duration_ms,
        "hookport.framework": event.framework,
        "hookport.run.id": getattr(event, "run_id", None),
        "hookport.agent.role": getattr(event, "agent_role", None),
        "hookport.tool.name": getattr(event, "tool_name", None),
        "hookport.abort.reason": event.abort_reason,
        "hookport.abort.source": event.abort_source,
        "hookport.error": error,
    }
    for key, values in (
        ("hookport.rules", decision.rules),
        ("hookport.modified_by", getattr(event, "modified_by", ())),
        ("hookport.failed_hooks", getattr(event, "failed_hooks", ())),
        ("hookport.timed_out_hooks", getattr(event, "timed_out_hooks", ())),
    ):
        if values:
            found[key] = [str(value) for value in values]
    if error:
        found["error.type"] = str(error).split(":", 1)[0]
    return {key: value for key, value in found.items() if value is not None}


def findings(event: events.HookDispatchedEvent) -> list[tuple[str, dict[str, Any]]]:
    """One ``gen_ai.security.finding`` span event per rule outcome: which rule, what it did, why."""
    found = []
    for outcome in getattr(event, "outcomes", ()):
        attrs: dict[str, Any] = {
            "gen_ai.security.policy.id": outcome.rule,
            "gen_ai.security.decision.type": rule_decision(outcome.outcome),
            "hookport.rule.outcome": outcome.outcome,
        }
        if outcome.reason:
            attrs["gen_ai.security.decision.reason"] = outcome.reason
        found.append(("gen_ai.security.finding", attrs))
    return found
