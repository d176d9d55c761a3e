"""The tool rules of one policy file as one PRE_TOOL_CALL hook, indexed by tool.

A file of twenty ``[[deny]]`` rules used to be twenty hooks, each normalising the tool's
name again to see whether it applied. The gate normalises the name once per call, looks
up the rules that can apply to that tool (those naming it, and those naming no tool, in
the order below), and evaluates only them; a call no rule names costs one dict lookup.

Order at PRE_TOOL_CALL: ``[allow]``, ``[[deny]]``, ``[[flow]]`` (deny), ``[[warn]]``,
``[[rewrite]]``, then the counts and ``[limits]`` (so a refused call is not counted).
Approvals and argument redaction are hooks of their own, after the gate (their waits and
timeouts are per rule). At POST_TOOL_CALL a second gate marks the tools a flow waits for
as returned, and runs the ``[[warn]]`` rules that read ``result``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Optional

from hookport.counters import counter_store
from hookport.policy.conditions import Condition, EvaluationError
from hookport.policy.tally import RunCounts, ToolTally
from hookport.policy.variables import Call, normalized
from hookport.policy.verdicts import condition_failed, decided, refuse, warn


class ToolRule:
    """A rule that decides tool calls: its source, the tools it covers (None: all), its condition."""

    __slots__ = ("source", "tools", "condition", "audit", "reason")

    def __init__(self, source: str, tools: Optional[Iterable[str]], condition: Optional[Condition],
                 audit: bool, reason: str) -> None:
        self.source = source
        self.tools = frozenset(normalized(tool) for tool in tools) if tools is not None else None
        self.condition = condition
        self.audit = audit
        self.reason = reason

    def holds(self, call: Call) -> bool:
        """Whether the condition holds (True without one); raises `EvaluationError`."""
        return self.condition is None or self.condition.holds(call.activation(self.condition))

    failing: str = "the call is refused"
    """What a condition that fails while it runs leads to (each kind acts as if it held)."""

    def check(self, call: Call) -> None:
        try:
            hit = self.holds(call)
        except EvaluationError as error:
            self.act(call.ctx, condition_failed(self.source, error, self.failing))
            return
        if hit:
            self.act(call.ctx, self.reason)

    def act(self, ctx: Any, reason: str) -> None:
        raise NotImplementedError


class Deny(ToolRule):
    """``[[deny]]``: refuse; a condition that fails refuses too (fail closed)."""

    __slots__ = ()

    def act(self, ctx: Any, reason: str) -> None:
        refuse(ctx, self.source, reason, self.audit)


class Flow:
    """What a ``[[flow]]`` waits for: a tool of `after` returning in the run (a mark in the store)."""

    __slots__ = ("after", "key")

    def __init__(self, counts: RunCounts, after: Iterable[str]) -> None:
        self.after = frozenset(normalized(tool) for tool in after)
        self.key = f"{counts.prefix}returned:{','.join(sorted(self.after))}"

    def triggered(self, call: Call) -> bool:
        return counter_store().get(call.run(), self.key) > 0


class FlowDeny(Deny):
    """``[[flow]]`` with ``deny``: refuse once the flow's trigger has returned in this run."""

    __slots__ = ("flow",)

    def __init__(self, flow: Flow, *rule: Any) -> None:
        super().__init__(*rule)
        self.flow = flow

    def check(self, call: Call) -> None:
        if self.flow.triggered(call):
            super().check(call)


class Warn(ToolRule):
    """``[[warn]]``: report and let the call go on; a condition that fails warns too."""

    __slots__ = ()
    failing = "the call is flagged"

    def act(self, ctx: Any, reason: str) -> None:
        warn(ctx, self.source, reason, self.audit)


class Rewrite(ToolRule):
    """``[[rewrite]]``: drop and set arguments; a condition that fails rewrites too (the safe side
    of a rule that removes a field)."""

    __slots__ = ("remove", "set")

    def __init__(self, remove: Iterable[str], set_args: dict[str, Any], *rule: Any) -> None:
        super().__init__(*rule)
        self.remove = tuple(remove)
        self.set = dict(set_args)

    failing = "the arguments are rewritten"

    def act(self, ctx: Any, reason: str) -> None:
        arguments = ctx.tool_input
        changes = [key for key in self.remove if key in arguments]
        changes += [key for key, value in self.set.items() if arguments.get(key, _ABSENT) != value]
        if not changes:
            return
        decided(ctx, self.source, "rewrite", reason, self.audit)
        if not self.audit:
            for key in self.remove:
                arguments.pop(key, None)
            arguments.update(self.set)


_ABSENT = object()


class AllowList:
    """``[allow]``: only these tools run."""

    __slots__ = ("tools", "source", "reason", "audit")

    def __init__(self, tools: Iterable[str], source: str, reason: str, audit: bool) -> None:
        self.tools = frozenset(normalized(tool) for tool in tools)
        self.source, self.reason, self.audit = source, reason, audit


def index(rules: list[ToolRule]) -> tuple[dict[str, tuple[ToolRule, ...]], tuple[ToolRule, ...]]:
    """Per tool named by some rule, the rules that apply to it in order; and the rules for any tool."""
    named = {tool for rule in rules if rule.tools for tool in rule.tools}
    by_tool = {tool: tuple(r for r in rules if r.tools is None or tool in r.tools) for tool in named}
    return by_tool, tuple(r for r in rules if r.tools is None)


class ToolGate:
    """The PRE_TOOL_CALL hook of a policy's tool rules."""

    def __init__(self, rules: list[ToolRule], allowed: Optional[AllowList], tally: Optional[ToolTally],
                 counts: Optional[RunCounts]) -> None:
        self.by_tool, self.any_tool = index(rules)
        self.allowed = allowed
        self.tally = tally
        self.counts = counts

    def __call__(self, ctx: Any) -> None:
        name = normalized(ctx.tool_name)
        allowed = self.allowed
        if allowed is not None and name not in allowed.tools:
            refuse(ctx, allowed.source, allowed.reason, allowed.audit)
        rules = self.by_tool.get(name, self.any_tool)
        if not rules and self.tally is None:
            return
        call = Call(ctx, name, self.counts)
        for rule in rules:
            rule.check(call)
        if self.tally is not None:
            self.tally.check(call)


class ResultGate:
    """The POST_TOOL_CALL hook: mark flow triggers as returned, run the ``[[warn]]`` rules on `result`."""

    def __init__(self, flows: list[Flow], rules: list[ToolRule], counts: Optional[RunCounts]) -> None:
        self.marks: dict[str, tuple[str, ...]] = {}
        for flow in flows:
            for tool in flow.after:
                self.marks[tool] = (*self.marks.get(tool, ()), flow.key)
        self.by_tool, self.any_tool = index(rules)
        self.counts = counts

    def __call__(self, ctx: Any) -> None:
        if getattr(ctx, "refused", False):
            return  # a refused call returned nothing
        name = normalized(ctx.tool_name)
        marks = self.marks.get(name)
        rules = self.by_tool.get(name, self.any_tool)
        if not marks and not rules:
            return
        call = Call(ctx, name, self.counts)
        if marks:
            store, run = counter_store(), call.run()
            for key in marks:
                store.add(run, key)
        for rule in rules:
            rule.check(call)
