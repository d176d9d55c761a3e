"""Policy tests: written cases run through the real engine, without any framework.

    [[case]]
    tool = "send_email"
    args = { to = "eve@elsewhere.org" }
    before = ["read_secrets"]          # tools already called in the run, in order
    expect = "deny"                    # allow, deny, approve, warn (or an outcome: would_deny, ...)
    rule = "flow[0]"                   # optional: which rule decided

Each case is one run (``hookport.execution(run_id=...)``) with the policy's hooks
registered in a scope (`hookport.scoped_hooks`, so nothing global changes): the
`before` calls go through PRE_TOOL_CALL and POST_TOOL_CALL, then the case's own
call through PRE_TOOL_CALL (and POST_TOOL_CALL with its `result`, when given).
What happened is read from the dispatches' events: a refusal (``abort_source``
names the rule) and every outcome a rule reported (`hookport.outcomes`). An
approval rule reports ``approve`` before it asks; the case stops right there
(`hookport.outcomes.stopping_at`), so no approver is ever called.
``hookport policy test POLICY CASES`` prints the table (`hookport.cli.policy_test`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

from pydantic import Field, ValidationError, field_validator

from hookport import events
from hookport.boundary import execution
from hookport.contexts import ToolCallHookContext
from hookport.dispatch import dispatch
from hookport.errors import HookAborted
from hookport.outcomes import DecisionReached, RuleOutcome, stopping_at
from hookport.points import InterceptionPoint
from hookport.policy import Policy, PolicyError, describe
from hookport.policy.lines import index_lines
from hookport.policy.schema import Rule
from hookport.registry import register_scoped, scoped_hooks

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

__all__ = ["Case", "CaseResult", "load_cases", "run_case", "run_cases"]

DECISIONS = ("allow", "deny", "approve", "warn")
OUTCOMES = ("redact", "rewrite", "would_deny", "would_warn", "would_redact", "would_rewrite", "would_approve")
"""Besides the four decisions, a case may expect any outcome a rule reports (audit mode, redaction)."""


class Before(Rule):
    """A call made earlier in the run: the tool, its arguments, what it returned."""

    tool: str = Field(min_length=1)
    args: dict[str, Any] = {}
    result: str = ""


class Case(Rule):
    """``[[case]]``: one call and what the policy should decide about it."""

    name: Optional[str] = None
    tool: str = Field(min_length=1)
    args: dict[str, Any] = {}
    agent: Optional[str] = None
    before: list[Union[str, Before]] = []
    result: Optional[str] = None
    """The tool's result text: the call then also goes through POST_TOOL_CALL (result rules)."""
    expect: str
    rule: Optional[str] = None

    @field_validator("expect")
    @classmethod
    def known(cls, expect: str) -> str:
        if expect not in (*DECISIONS, *OUTCOMES):
            raise ValueError(f"{expect!r} is not one of {', '.join(DECISIONS)} (or an outcome: {', '.join(OUTCOMES)})")
        return expect

    def label(self, index: int) -> str:
        return self.name or f"case[{index}] {self.tool}"


class CasesFile(Rule):
    case: list[Case] = Field(min_length=1)


def load_cases(path: str | Path) -> list[Case]:
    """The cases in `path`; a `PolicyError` naming the file and line of each problem."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as error:
        raise PolicyError(str(path), [f"cannot read it: {error.strerror or error}"]) from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise PolicyError(str(path), [f"not valid TOML: {error}"]) from None
    try:
        return CasesFile.model_validate(raw).case
    except ValidationError as error:
        lines = index_lines(text)
        raise PolicyError(str(path), [describe(e, lines) for e in error.errors()]) from None


@dataclass
class CaseResult:
    """What the policy decided about one case, and whether that is what the case expects."""

    case: Case
    index: int
    got: str
    rule: Optional[str]
    reason: Optional[str]
    outcomes: tuple[RuleOutcome, ...] = ()
    problem: Optional[str] = None
    """Why the case could not run as written (a `before` call was refused)."""
    passed: bool = field(init=False)

    def __post_init__(self) -> None:
        self.passed = self.problem is None and matches(self)


def matches(result: CaseResult) -> bool:
    case = result.case
    if case.expect in DECISIONS:
        if result.got != case.expect:
            return False
        if case.rule is None:
            return True
        if case.expect in ("deny", "approve") and result.rule is not None:
            return rule_matches(case.rule, result.rule)
        return any(o.outcome == case.expect and rule_matches(case.rule, o.rule) for o in result.outcomes)
    return any(o.outcome == case.expect and (case.rule is None or rule_matches(case.rule, o.rule)) for o in result.outcomes)


def rule_matches(expected: str, rule: str) -> bool:
    """``deny[0]``, ``policy.toml:deny[0]`` and ``policy.toml:12:deny[0]`` all name the rule
    ``policy.toml:12:deny[0]`` (and its hooks, ``...:approval[0]:myteam.approvals:ask``)."""
    parts = rule.split(":", 2)
    names = {rule}
    if len(parts) == 3 and parts[1].isdigit():
        names |= {parts[2], f"{parts[0]}:{parts[2]}"}
    return any(name == expected or name.startswith(f"{expected}:") for name in names)


@contextmanager
def scoped(policy: Policy) -> Iterator[None]:
    """The policy's hooks, for this block and this context only."""
    with scoped_hooks():
        for compiled in policy.hooks:
            register_scoped(compiled.point, compiled.hook, tools=compiled.tools, timeout=compiled.timeout,
                            on_error=compiled.on_error)
        yield


@contextmanager
def collected() -> Iterator[list[events.HookDispatchedEvent]]:
    seen: list[events.HookDispatchedEvent] = []
    subscriber = events.subscribe(seen.append)
    try:
        yield seen
    finally:
        events.unsubscribe(subscriber)


def call(tool: str, args: dict[str, Any], agent: Optional[str], result: Optional[str]) -> None:
    """One tool call as an adapter makes it: PRE_TOOL_CALL, then (if it ran) POST_TOOL_CALL."""
    ctx = ToolCallHookContext(tool, dict(args), agent_role=agent, framework="policy-test")
    dispatch(InterceptionPoint.PRE_TOOL_CALL, ctx)
    if result is not None:
        ctx.tool_result = ctx.raw_tool_result = result
        dispatch(InterceptionPoint.POST_TOOL_CALL, ctx)


def run_case(policy: Policy, case: Case, index: int = 0) -> CaseResult:
    """Run one case in a run of its own; never raises for what the policy decides."""
    with scoped(policy), stopping_at("approve"), collected() as seen:
        try:
            with execution("policy-test", {"case": case.label(index)}, run_id=f"policy-test-{index}"):
                for position, earlier in enumerate(case.before):
                    before = Before(tool=earlier) if isinstance(earlier, str) else earlier
                    try:
                        call(before.tool, before.args, case.agent, before.result)
                    except HookAborted as refused:
                        return CaseResult(case, index, "error", refused.source_name, refused.reason, problem=(
                            f"before[{position}] ({before.tool}) was refused by {refused.source_name}: "
                            f"{refused.reason}; a case's earlier calls must be allowed"))
                seen.clear()
                try:
                    call(case.tool, case.args, case.agent, case.result)
                except DecisionReached as stopped:
                    return decided(case, index, "approve", stopped, seen)
                except HookAborted as refused:
                    return decided(case, index, "deny", refused, seen)
                return decided(case, index, None, None, seen)
        except HookAborted as refused:  # a run-level rule refused the run itself
            return CaseResult(case, index, "error", refused.source_name, refused.reason,
                              problem=f"the run was refused by {refused.source_name}: {refused.reason}")


def decided(
    case: Case, index: int, got: Optional[str], aborted: Optional[HookAborted], seen: list[events.HookDispatchedEvent]
) -> CaseResult:
    outcomes = tuple(outcome for event in seen for outcome in event.outcomes)
    if got is None:
        warned = [o for o in outcomes if o.outcome == "warn"]
        shown = warned or [o for o in outcomes if o.outcome == case.expect] or list(outcomes)
        first = shown[0] if shown else None
        reason = None if first is None else first.reason if warned else f"{first.outcome}: {first.reason or ''}".rstrip(": ")
        return CaseResult(case, index, "warn" if warned else "allow", first.rule if first else None, reason, outcomes)
    assert aborted is not None
    if isinstance(aborted, DecisionReached):  # the approval rule's own words, not the dry run's
        asked = next((o for o in outcomes if o.outcome == "approve"), None)
        return CaseResult(case, index, got, aborted.source_name, asked.reason if asked else None, outcomes)
    return CaseResult(case, index, got, aborted.source_name, aborted.reason, outcomes)


def run_cases(policy: Policy, cases: list[Case]) -> list[CaseResult]:
    return [run_case(policy, case, index) for index, case in enumerate(cases)]
