"""The policy language on every adapter: a conditional deny, a flow rule and an audit-mode deny,
each loaded from a policy file and run through the framework's real agent loop.

Each counts the harness tool's real executions and has a twin that shows the same path reaches
the tool when the rule does not apply (other arguments, a fresh run, audit mode).
"""

from __future__ import annotations

import pytest

from hookport import HookDispatchedEvent, subscribe
from hookport.policy import parse_policy
from tests.conformance.harness import Harness, Turn

CONDITIONAL = """
[[deny]]
tools = ["purge_records"]
when = 'args.table == "secret"'
reason = "the secret table is protected"
"""

FLOW = """
[[flow]]
after = ["add_numbers"]
deny = ["purge_records"]
reason = "no purging after a sum came back"
"""

AUDIT = """
[[deny]]
tools = ["purge_records"]
mode = "audit"
reason = "purging will be refused"
"""


def purge(table: str) -> list[Turn]:
    return [Turn.call("purge_records", table=table), Turn.final("done")]


@pytest.mark.parametrize("table", ["secret", "users"], ids=["deny", "twin"])
def test_policy__conditional_deny(harness: Harness, table: str) -> None:
    parse_policy(CONDITIONAL, "conformance.toml").register()
    result = harness.run(purge(table))
    refused = table == "secret"
    assert len(result.runs_of("purge_records")) == (0 if refused else 1), result.error
    if refused:
        assert harness.refusal_text("purge_records", "the secret table is protected") in result.seen_by_model()


def test_policy__flow_rule(harness: Harness) -> None:
    parse_policy(FLOW, "conformance.toml").register()
    after_a_sum = harness.run([Turn.call("add_numbers", a=2, b=3), Turn.call("purge_records", table="users"),
                               Turn.final("done")])
    assert len(after_a_sum.runs_of("add_numbers")) == 1, after_a_sum.error
    assert after_a_sum.runs_of("purge_records") == [], after_a_sum.error
    assert harness.refusal_text("purge_records", "no purging after a sum came back") in after_a_sum.seen_by_model()
    fresh = harness.run(purge("users"))  # the twin: a new run, where no sum came back yet
    assert len(fresh.runs_of("purge_records")) == 1, fresh.error


def test_policy__audit_mode_deny(harness: Harness) -> None:
    events: list[HookDispatchedEvent] = []
    subscribe(events.append)
    parse_policy(AUDIT, "conformance.toml").register()
    result = harness.run(purge("users"))
    assert len(result.runs_of("purge_records")) == 1, result.error
    reported = [(o.rule, o.outcome, o.reason) for event in events for o in event.outcomes]
    assert reported == [("conformance.toml:2:deny[0]", "would_deny", "purging will be refused")]
