"""A validated policy document -> the hooks to register, and the problems found on the way.

Conditions are compiled here, once: a syntax error, an unknown field or a field the rule
cannot have (``result`` before the call) is a problem naming the file's line, the rule and
the position in the expression. The hooks, in registration order:

1. the tool gate (PRE_TOOL_CALL): allow, deny, flow denies, warn, rewrite, counts and limits;
2. the model-call count (PRE_MODEL_CALL), when a limit or a condition needs it;
3. one hook per approval (``[[approval]]``, then ``[[flow]]`` with ``approve``);
4. the result gate (POST_TOOL_CALL): flow triggers, ``[[warn]]`` rules reading ``result``;
5. one hook per place a ``[[redact]]`` rule redacts;
6. the end of a run (EXECUTION_END) drops its counts; the unknown-tool check.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Optional

from hookport.points import InterceptionPoint
from hookport.policy.conditions import Condition, ConditionError, MissingPackage, compile_condition
from hookport.policy.gate import AllowList, Deny, Flow, FlowDeny, ResultGate, Rewrite, ToolGate, ToolRule, Warn
from hookport.policy.lines import line_of
from hookport.policy.rules import CompiledHook, Guard, PolicyHook, approval, forgetting, redact, unknown_tools
from hookport.policy.schema import ApprovalRule, PolicyDocument
from hookport.policy.summary import named_tools, summarize
from hookport.policy.tally import Limit, ModelTally, RunCounts, ToolTally, forget_run
from hookport.policy.variables import normalized

Lines = dict[tuple[object, ...], int]

BEFORE_THE_CALL = ("deny", "approval", "flow", "rewrite")
"""Rule kinds that decide before the tool runs: their conditions cannot read ``result``."""


def source_namer(lines: Lines, label: str) -> Callable[..., str]:
    """``source("deny", 0)`` -> ``"policy.toml:4:deny[0]"``: a rule's name in hooks and telemetry."""

    def source(*location: object) -> str:
        where = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in location).lstrip(".")
        return f"{label}:{line_of(lines, location) or '?'}:{where}"

    return source


class Conditions:
    """Every rule's ``when``, compiled, with the problems found."""

    def __init__(self, document: PolicyDocument, lines: Lines) -> None:
        self.lines = lines
        self.problems: list[str] = []
        self.compiled: dict[tuple[str, int], Condition] = {}
        for kind in ("deny", "warn", "rewrite", "flow", "approval", "redact"):
            for index, rule in enumerate(getattr(document, kind)):
                if rule.when is not None:
                    self.add(kind, index, rule.when, before_call=kind in BEFORE_THE_CALL
                             or (kind == "redact" and "tool_args" in rule.in_))

    def add(self, kind: str, index: int, text: str, before_call: bool) -> None:
        try:
            condition = compile_condition(text)
        except MissingPackage as missing:
            self.problem(kind, index, str(missing))
            return
        except ConditionError as error:
            self.problem(kind, index, error.message, error.position, error.line)
            return
        if before_call and "result" in condition.fields:
            offset = text.find("result")
            self.problem(kind, index, f"`result` is known only after the call, and this rule decides before it "
                         f"(a [[warn]] or a [[redact]] of tool_results can read it)", offset + 1 if offset >= 0 else None)
            return
        self.compiled[(kind, index)] = condition

    def problem(self, kind: str, index: int, message: str, position: Optional[int] = None, line: int = 1) -> None:
        start = line_of(self.lines, (kind, index, "when"))
        where = f"line {start + line - 1 if start else '?'}: {kind}[{index}].when: "
        self.problems.append(where + (f"position {position}: " if position else "") + message)

    def get(self, kind: str, index: int) -> Optional[Condition]:
        return self.compiled.get((kind, index))

    def reads_calls(self, key: str) -> bool:
        """Whether some condition reads ``calls.<key>`` (or the whole ``calls``)."""
        return any("calls" in c.fields and (c.call_keys is None or key in c.call_keys) for c in self.compiled.values())

    def tools_counted(self) -> set[str]:
        return {normalized(key) for c in self.compiled.values() if "calls" in c.fields and c.call_keys
                for key in c.call_keys if key not in ("model", "tool")}


def compile_document(
    document: PolicyDocument, lines: Lines, label: str, import_hooks: bool = True
) -> tuple[list[CompiledHook], list[str]]:
    """The hooks of `document`, in registration order; plus the problems found (then nothing registers)."""
    source = source_namer(lines, label)
    default_mode = document.policy.mode

    def audit(rule: Any) -> bool:
        return (rule.mode or default_mode) == "audit"

    conditions = Conditions(document, lines)
    problems = conditions.problems
    limits = document.limits
    counts = RunCounts(document.policy.name or label, conditions.tools_counted() | {normalized(t) for t in limits.max_calls})

    flows = {index: Flow(counts, rule.after) for index, rule in enumerate(document.flow)}
    before, after = tool_rules(document, conditions, source, audit, flows)
    allowed = None
    if document.allow is not None:
        allowed = AllowList(document.allow.tools, source("allow"), document.allow.reason, audit(document.allow))
    tally = tool_tally(document, counts, conditions, source, audit(limits))
    hooks: list[CompiledHook] = []
    if before or allowed is not None or tally is not None:
        hooks.append(CompiledHook(InterceptionPoint.PRE_TOOL_CALL, PolicyHook(f"{label}:tool_rules", ToolGate(
            before, allowed, tally, counts))))
    counts_models = limits.max_model_calls is not None or conditions.reads_calls("model")
    if counts_models:
        limit = Limit(limits.max_model_calls, source("limits", "max_model_calls"),
                      f"the policy allows at most {limits.max_model_calls} model calls per run") \
            if limits.max_model_calls is not None else None
        hooks.append(CompiledHook(InterceptionPoint.PRE_MODEL_CALL, PolicyHook(
            f"{label}:model_calls", ModelTally(counts, limit, audit(limits)).check)))
    if import_hooks:
        hooks += approvals(document, source, conditions, counts, flows, audit, lines, problems)
    if flows or after:
        hooks.append(CompiledHook(InterceptionPoint.POST_TOOL_CALL, PolicyHook(
            f"{label}:result_rules", ResultGate(list(flows.values()), after, counts))))
    for index, redact_rule in enumerate(document.redact):
        guard = Guard(source("redact", index), conditions.get("redact", index), audit(redact_rule), counts)
        hooks += redact(redact_rule, source("redact", index), guard)
    if tally is not None or counts_models or flows:
        hooks.append(forgetting(f"{label}:counts", forget_run))
    named = named_tools(summarize(document, source))
    if named:
        hooks += unknown_tools(named, f"{label}:tools_offered")
    return hooks, problems


def tool_rules(document: PolicyDocument, conditions: Conditions, source: Callable[..., str],
               audit: Callable[[Any], bool], flows: dict[int, Flow]) -> tuple[list[ToolRule], list[ToolRule]]:
    """The gates' rules: those decided before the call (deny, flow denies, warn, rewrite, in that order)
    and the ``[[warn]]`` rules whose condition reads ``result`` (decided after it)."""

    def fields(kind: str, index: int, rule: Any, tools: Any = None) -> tuple[Any, ...]:
        return (source(kind, index), tools if tools is not None else rule.tools, conditions.get(kind, index),
                audit(rule), rule.reason)

    before: list[ToolRule] = [Deny(*fields("deny", i, rule)) for i, rule in enumerate(document.deny)]
    before += [FlowDeny(flows[i], *fields("flow", i, rule, rule.deny))
               for i, rule in enumerate(document.flow) if rule.deny is not None]
    after: list[ToolRule] = []
    for index, rule in enumerate(document.warn):
        condition = conditions.get("warn", index)
        (after if condition is not None and "result" in condition.fields else before).append(
            Warn(*fields("warn", index, rule)))
    before += [Rewrite(rule.remove_args, rule.set_args, *fields("rewrite", i, rule))
               for i, rule in enumerate(document.rewrite)]
    return before, after


def tool_tally(document: PolicyDocument, counts: RunCounts, conditions: Conditions,
               source: Callable[..., str], audit: bool) -> Optional[ToolTally]:
    """What the gate counts and limits last, or None when nothing needs counting."""
    limits = document.limits
    count_total = limits.max_tool_calls is not None or conditions.reads_calls("tool")
    if not (count_total or counts.tool_keys or limits.max_repeats):
        return None
    total = (Limit(limits.max_tool_calls, source("limits", "max_tool_calls"),
                   f"the policy allows at most {limits.max_tool_calls} tool calls per run")
             if limits.max_tool_calls is not None else None)
    per_tool = {normalized(tool): Limit(most, source("limits", "max_calls", tool),
                                        f"the policy allows at most {most} {{tool}} calls per run")
                for tool, most in limits.max_calls.items()}
    repeats = (Limit(limits.max_repeats, source("limits", "max_repeats"),
                     f"the policy allows the same {{tool}} call (the same arguments) at most "
                     f"{limits.max_repeats} times per run")
               if limits.max_repeats is not None else None)
    return ToolTally(counts, count_total, total, per_tool, repeats, audit)


def approvals(document: PolicyDocument, source: Callable[..., str], conditions: Conditions, counts: RunCounts,
              flows: dict[int, Flow], audit: Callable[[Any], bool], lines: Lines,
              problems: list[str]) -> list[CompiledHook]:
    """A hook per ``[[approval]]`` and per ``[[flow]]`` with ``approve``; an approval hook that does not
    import is a problem naming the line."""
    hooks: list[CompiledHook] = []
    wanted: list[tuple[str, int, ApprovalRule, Optional[Flow]]] = [
        ("approval", index, rule, None) for index, rule in enumerate(document.approval)]
    for index, flow in enumerate(document.flow):
        if flow.approve is not None and flow.hook is not None:
            rule = ApprovalRule(hook=flow.hook, tools=flow.approve, reason=flow.reason, timeout=flow.timeout)
            wanted.append(("flow", index, rule, flows[index]))
    for kind, index, rule, flow in wanted:
        original = getattr(document, kind)[index]
        guard = Guard(source(kind, index), conditions.get(kind, index), audit(original), counts)
        try:
            hooks += approval(rule, source(kind, index), guard, flow)
        except LookupError as error:  # the named approval hook cannot be imported
            line = line_of(lines, (kind, index, "hook"))
            problems.append(f"line {line or '?'}: {kind}[{index}].hook: {error}")
    return hooks

