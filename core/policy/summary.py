"""What each rule of a policy does and which tools it names, for `hookport doctor --policy`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hookport.policy.schema import PolicyDocument


@dataclass(frozen=True)
class RuleSummary:
    """One rule: its source name (``policy.toml:4:deny[0]``), kind, the tools it names
    (None: every tool) and one line of what it does."""

    source: str
    kind: str
    tools: tuple[str, ...] | None
    detail: str


def summarize(document: PolicyDocument, source: Callable[..., str]) -> list[RuleSummary]:
    rules: list[RuleSummary] = []
    if document.allow is not None:
        rules.append(RuleSummary(source("allow"), "allow", tuple(document.allow.tools), "only these tools run"))
    for index, deny in enumerate(document.deny):
        rules.append(RuleSummary(source("deny", index), "deny", tuple(deny.tools), f"refused: {deny.reason}"))
    for key, what in (("max_model_calls", "model calls"), ("max_tool_calls", "tool calls")):
        limit = getattr(document.limits, key)
        if limit is not None:
            rules.append(RuleSummary(source("limits", key), "limit", None, f"at most {limit} {what} per run"))
    for index, rule in enumerate(document.approval):
        timeout = f", refused after {rule.timeout:g}s" if rule.timeout is not None else ""
        tools = tuple(rule.tools) if rule.tools is not None else None
        who = f"{rule.hook} decides" if rule.hook else f"a person decides in {rule.store or document.approvals.store or 'the approval store'} (wait = {rule.wait}, lasts = {rule.lasts})"
        rules.append(RuleSummary(source("approval", index), "approval", tools, f"{who}{timeout}"))
    for index, redact in enumerate(document.redact):
        where = ", ".join(redact.in_)
        rules.append(RuleSummary(source("redact", index), "redact", None, f"'{redact.pattern}' -> '{redact.replacement}' in {where}"))
    return rules


def named_tools(rules: list[RuleSummary]) -> dict[str, list[str]]:
    """The rules that name tools, with those tools (what the unknown-tool check compares)."""
    return {rule.source: list(rule.tools) for rule in rules if rule.tools}
