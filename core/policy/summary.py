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
    mode = document.policy.mode

    def add(where: str, kind: str, tools: object, detail: str, rule: object = None) -> None:
        when = getattr(rule, "when", None)
        audit = (getattr(rule, "mode", None) or mode) == "audit"
        detail += f" when {when}" if when else ""
        detail += " (audit: reported, not enforced)" if audit else ""
        rules.append(RuleSummary(where, kind, tuple(tools) if tools is not None else None, detail))  # type: ignore[arg-type]

    if document.allow is not None:
        add(source("allow"), "allow", document.allow.tools, "only these tools run", document.allow)
    for index, deny in enumerate(document.deny):
        add(source("deny", index), "deny", deny.tools, f"refused: {deny.reason}", deny)
    for index, flow in enumerate(document.flow):
        what = "refused" if flow.deny is not None else f"{flow.hook} decides"
        add(source("flow", index), "flow", [*flow.after, *(flow.deny or flow.approve or [])],
            f"after {', '.join(flow.after)} returned: {what}", flow)
    for index, warn in enumerate(document.warn):
        add(source("warn", index), "warn", warn.tools, f"reported: {warn.reason}", warn)
    for index, rewrite in enumerate(document.rewrite):
        changes = [f"drops {', '.join(rewrite.remove_args)}"] if rewrite.remove_args else []
        changes += [f"sets {', '.join(rewrite.set_args)}"] if rewrite.set_args else []
        add(source("rewrite", index), "rewrite", rewrite.tools, "; ".join(changes), rewrite)
    limits = document.limits
    for key, what in (("max_model_calls", "model calls"), ("max_tool_calls", "tool calls")):
        limit = getattr(limits, key)
        if limit is not None:
            add(source("limits", key), "limit", None, f"at most {limit} {what} per run", limits)
    for tool, most in limits.max_calls.items():
        add(source("limits", "max_calls", tool), "limit", (tool,), f"at most {most} calls per run", limits)
    if limits.max_repeats is not None:
        add(source("limits", "max_repeats"), "limit", None,
            f"the same call at most {limits.max_repeats} times per run", limits)
    for index, rule in enumerate(document.approval):
        timeout = f", refused after {rule.timeout:g}s" if rule.timeout is not None else ""
        add(source("approval", index), "approval", rule.tools, f"{rule.hook} decides{timeout}", rule)
    for index, redact in enumerate(document.redact):
        where = ", ".join(redact.in_)
        add(source("redact", index), "redact", None, f"'{redact.pattern}' -> '{redact.replacement}' in {where}", redact)
    return rules


def named_tools(rules: list[RuleSummary]) -> dict[str, list[str]]:
    """The rules that name tools, with those tools (what the unknown-tool check compares)."""
    return {rule.source: list(rule.tools) for rule in rules if rule.tools}
