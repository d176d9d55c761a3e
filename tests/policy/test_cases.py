"""Policy tests run through the real engine (`hookport.policy.cases`): what each case observes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hookport import HookAborted, InterceptionPoint, get_hooks, get_scoped_hooks
from hookport.outcomes import report
from hookport.policy import PolicyError, parse_policy
from hookport.policy.cases import Case, load_cases, rule_matches, run_case
from hookport.policy.rules import CompiledHook, PolicyHook

P = InterceptionPoint

POLICY = """\
[allow]
tools = ["read_file", "search", "send_email", "pay_invoice", "read_secrets", "delete_file"]

[[deny]]
tools = ["delete_file"]
reason = "no deletes"

[limits]
max_tool_calls = 3
"""


def policy(extra: list[CompiledHook] = ()):  # type: ignore[assignment]
    loaded = parse_policy(POLICY, "policy.toml")
    loaded.hooks = [*loaded.hooks, *extra]
    return loaded


def case(**fields: Any) -> Case:
    return Case.model_validate(fields)


def test_deny_allow_and_the_rule_that_decided() -> None:
    result = run_case(policy(), case(tool="delete_file", expect="deny", rule="deny[0]"))
    assert (result.got, result.rule, result.reason, result.passed) == ("deny", "policy.toml:4:deny[0]", "no deletes", True)
    assert run_case(policy(), case(tool="http_post", expect="deny", rule="allow")).passed
    assert run_case(policy(), case(tool="read_file", args={"path": "a"}, expect="allow")).passed
    wrong = run_case(policy(), case(tool="read_file", expect="deny"))
    assert (wrong.got, wrong.passed) == ("allow", False)
    wrong_rule = run_case(policy(), case(tool="delete_file", expect="deny", rule="allow"))
    assert (wrong_rule.got, wrong_rule.passed) == ("deny", False)


def test_calls_before_count_in_the_same_run() -> None:
    """`before` goes through the real chain: the limit counts it, and each case is a run of its own."""
    assert run_case(policy(), case(tool="search", before=["read_file", "read_file", "search"], expect="deny",
                                   rule="limits.max_tool_calls")).passed
    assert run_case(policy(), case(tool="search", before=["read_file", "read_file"], expect="allow")).passed


def test_a_refused_earlier_call_is_a_broken_case() -> None:
    result = run_case(policy(), case(tool="search", before=["delete_file"], expect="allow"))
    assert not result.passed and result.got == "error"
    assert result.problem == ("before[0] (delete_file) was refused by policy.toml:4:deny[0]: no deletes; "
                              "a case's earlier calls must be allowed")


class Approval:
    """A stand-in approval rule: it reports ``approve`` (as the policy's approval rules do) and asks."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def __call__(self, ctx: Any) -> None:
        if ctx.tool_input.get("amount", 0) > 1000:
            report(ctx, "policy.toml:20:approval[0]", "approve", "payments over 1000 need a person")
            self.asked.append(ctx.tool_name)  # the approver: a person, who must never be asked by a test
            raise HookAborted("nobody answered", source="policy.toml:20:approval[0]")


def test_an_approval_is_detected_without_asking_anyone() -> None:
    approval = Approval()
    hook = CompiledHook(P.PRE_TOOL_CALL, PolicyHook("policy.toml:20:approval[0]", approval), ("pay_invoice",))
    result = run_case(policy([hook]), case(tool="pay_invoice", args={"amount": 5000}, expect="approve", rule="approval[0]"))
    assert (result.got, result.rule, result.passed) == ("approve", "policy.toml:20:approval[0]", True)
    assert approval.asked == []
    assert run_case(policy([hook]), case(tool="pay_invoice", args={"amount": 10}, expect="allow")).passed


def test_warnings_and_audit_outcomes_are_read_from_the_event() -> None:
    def warn(ctx: Any) -> None:
        report(ctx, "policy.toml:30:warn[0]", "warn", "mail leaves the company")
        report(ctx, "policy.toml:33:deny[1]", "would_deny", "audit mode")

    hook = CompiledHook(P.PRE_TOOL_CALL, PolicyHook("policy.toml:30:warn[0]", warn), ("send_email",))
    result = run_case(policy([hook]), case(tool="send_email", expect="warn", rule="warn[0]"))
    assert (result.got, result.rule, result.reason, result.passed) == (
        "warn", "policy.toml:30:warn[0]", "mail leaves the company", True)
    assert run_case(policy([hook]), case(tool="send_email", expect="would_deny", rule="deny[1]")).passed
    assert not run_case(policy([hook]), case(tool="send_email", expect="would_deny", rule="deny[0]")).passed


def test_result_rules_see_the_tools_result() -> None:
    def no_secrets_out(ctx: Any) -> None:
        if "BEGIN PRIVATE KEY" in (ctx.tool_result or ""):
            raise HookAborted("a key in the result", source="policy.toml:40:deny[2]")

    hook = CompiledHook(P.POST_TOOL_CALL, PolicyHook("policy.toml:40:deny[2]", no_secrets_out))
    assert run_case(policy([hook]), case(tool="read_secrets", result="-----BEGIN PRIVATE KEY-----", expect="deny")).passed
    assert run_case(policy([hook]), case(tool="read_secrets", result="nothing", expect="allow")).passed


def test_nothing_stays_registered() -> None:
    run_case(policy(), case(tool="delete_file", expect="deny"))
    assert get_hooks(P.PRE_TOOL_CALL) == [] and get_scoped_hooks(P.PRE_TOOL_CALL) == []


def test_rule_names() -> None:
    full = "policy.toml:12:approval[0]:myteam.approvals:ask"
    assert all(rule_matches(name, full) for name in (full, "approval[0]", "policy.toml:approval[0]", "policy.toml:12:approval[0]"))
    assert not rule_matches("approval[1]", full) and not rule_matches("deny[0]", "base.toml:3:deny[0]x")


def test_a_bad_cases_file_names_the_line(tmp_path: Path) -> None:
    cases = tmp_path / "cases.toml"
    cases.write_text('[[case]]\ntool = "a"\nexpect = "allow"\n\n[[case]]\ntool = "b"\nexpect = "blocked"\nargz = {}\n')
    with pytest.raises(PolicyError) as raised:
        load_cases(cases)
    assert raised.value.problems == [
        "line 7: case[1].expect: 'blocked' is not one of allow, deny, approve, warn (or an outcome: redact, rewrite, "
        "would_deny, would_warn, would_redact, would_rewrite, would_approve)",
        "line 8: case[1].argz: unknown key 'argz'",
    ]
    cases.write_text("# no cases\n")
    with pytest.raises(PolicyError, match="case: Field required"):
        load_cases(cases)
