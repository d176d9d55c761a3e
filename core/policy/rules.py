"""The hooks a policy compiles to, besides its tool gate (`hookport.policy.gate`).

Each hook is a `PolicyHook` named after its rule's place in the file
(``policy.toml:4:approval[0]``), so `get_hooks` lists it under that name; every
decision names its rule: a refusal's `HookAborted.source` (hence the telemetry's
``abort_source``) and each reported outcome (`hookport.policy.verdicts`).

Every hook is registered fail-closed (``on_error="closed"``): a rule that
raises or runs past a timeout refuses, whatever the process-wide default
(``HOOKPORT_ON_ERROR``, ``HOOKPORT_STRICT``, ``HOOKPORT_HOOK_TIMEOUT``).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Optional

from hookport.points import InterceptionPoint
from hookport.policy.approval import Approver
from hookport.policy.conditions import Condition, EvaluationError
from hookport.policy.gate import Flow
from hookport.policy.offered import UnknownToolWarning
from hookport.policy.schema import ApprovalRule, RedactRule
from hookport.policy.tally import RunCounts
from hookport.policy.variables import Call, normalized
from hookport.policy.verdicts import condition_failed, decided, refuse


class PolicyHook:
    """A hook compiled from one rule; its name is the rule's source."""

    def __init__(self, source: str, body: Callable[[Any], Any]) -> None:
        self.source = source
        self.__name__ = self.__qualname__ = source
        self._body = body
        self.redaction: tuple[re.Pattern[str], str] | None = None

    def __call__(self, ctx: Any) -> Any:
        return self._body(ctx)

    def __repr__(self) -> str:
        return f"<policy hook {self.source}>"


class QuickPolicyHook(PolicyHook):
    """A `PolicyHook` for bookkeeping that never waits (forgetting a run, an advisory check).

    It is an ``async def`` so that a process-wide hook timeout never sends it to a worker
    thread, where a busy executor could time it out: on an async call site it runs on the
    loop at once, on a sync one on hookport's loop thread. Registered fail-open: forgetting
    a finished run must never abort it.
    """

    async def __call__(self, ctx: Any) -> Any:
        return self._body(ctx)


@dataclass(frozen=True)
class CompiledHook:
    """One registration: the point, the hook, the tools it is limited to (None = all), its own
    timeout (None = the process default) and failure policy (a policy's rules fail closed)."""

    point: InterceptionPoint
    hook: PolicyHook
    tools: tuple[str, ...] | None = None
    timeout: float | None = None
    on_error: Literal["open", "closed"] = "closed"


class Guard:
    """A rule's condition and mode, as the hooks of ``[[redact]]`` and ``[[approval]]`` apply them."""

    __slots__ = ("source", "condition", "audit", "counts")

    def __init__(self, source: str, condition: Optional[Condition] = None, audit: bool = False,
                 counts: Optional[RunCounts] = None) -> None:
        self.source, self.condition, self.audit, self.counts = source, condition, audit, counts

    def holds(self, ctx: Any) -> bool:
        """The condition on this call (True without one); raises `EvaluationError`."""
        if self.condition is None:
            return True
        call = Call(ctx, normalized(getattr(ctx, "tool_name", None)) or None, self.counts)
        return self.condition.holds(call.activation(self.condition))


def redact(rule: RedactRule, source: str, guard: Optional[Guard] = None) -> list[CompiledHook]:
    """One hook per place the rule redacts. With a `when`, a change is made only where it holds
    (a condition that fails redacts: the safe side); in audit mode, reported as ``would_redact``."""
    pattern, replacement = rule.compiled(), rule.replacement
    guard = guard or Guard(source)
    hooks: list[CompiledHook] = []

    def redacting(name: str, change: Callable[[Any], Any]) -> PolicyHook:
        where = f"{source}:{name}"

        def body(ctx: Any) -> Any:
            new = change(ctx)
            if new is None:
                return None
            reason = f"matches replaced with {replacement} in {name}"  # not the pattern: it may match itself
            try:
                if not guard.holds(ctx):
                    return None
            except EvaluationError as error:
                reason = condition_failed(source, error, "the text is redacted")
            decided(ctx, where, "redact", reason, guard.audit)
            return None if guard.audit else new

        hook = PolicyHook(where, body)
        if not guard.audit:
            hook.redaction = (pattern, replacement)  # read by hookport.redaction (exported texts)
        return hook

    if "model_answers" in rule.in_:

        def answer(ctx: Any) -> str | None:
            return changed_text(pattern, replacement, ctx.response)

        hooks.append(CompiledHook(InterceptionPoint.POST_MODEL_CALL, redacting("model_answers", answer)))
    if "tool_results" in rule.in_:

        def tool_result(ctx: Any) -> str | None:
            return changed_text(pattern, replacement, ctx.tool_result)

        hooks.append(CompiledHook(InterceptionPoint.POST_TOOL_CALL, redacting("tool_results", tool_result)))
    if "tool_args" in rule.in_:

        def tool_args(ctx: Any) -> dict[str, Any] | None:
            redacted, changed = redact_value(pattern, replacement, ctx.tool_input)
            return redacted if changed else None

        hooks.append(CompiledHook(InterceptionPoint.PRE_TOOL_CALL, redacting("tool_args", tool_args)))
    if "final_output" in rule.in_:

        def final_output(ctx: Any) -> Any:
            redacted, changed = redact_value(pattern, replacement, ctx.payload)
            return redacted if changed else None

        hooks.append(CompiledHook(InterceptionPoint.OUTPUT, redacting("final_output", final_output)))
    return hooks


def changed_text(pattern: re.Pattern[str], replacement: str, text: Any) -> str | None:
    """The redacted text, or None (proceed) when it is not text or nothing matched."""
    if not isinstance(text, str):
        return None
    new, count = pattern.subn(replacement, text)
    return new if count else None


def redact_value(pattern: re.Pattern[str], replacement: str, value: Any, depth: int = 0) -> tuple[Any, bool]:
    """Redact strings inside a final output or a tool's arguments: text, lists, tuples, dicts, and chat
    messages (their text `content` and their `tool_calls` arguments), copied rather than changed in
    place. Returns (value, whether anything changed)."""
    if depth > 20:
        return value, False
    if isinstance(value, str):
        new = changed_text(pattern, replacement, value)
        return (new, True) if new is not None else (value, False)
    if isinstance(value, (list, tuple)):
        items = [redact_value(pattern, replacement, item, depth + 1) for item in value]
        if not any(changed for _, changed in items):
            return value, False
        return type(value)(item for item, _ in items) if isinstance(value, tuple) else [i for i, _ in items], True
    if isinstance(value, dict):
        entries = {key: redact_value(pattern, replacement, item, depth + 1) for key, item in value.items()}
        if not any(changed for _, changed in entries.values()):
            return value, False
        return {key: item for key, (item, _) in entries.items()}, True
    copy = getattr(value, "model_copy", None)
    if not callable(copy):
        return value, False
    update: dict[str, Any] = {}
    content = getattr(value, "content", None)
    new = changed_text(pattern, replacement, content) if isinstance(content, str) else None
    if new is not None:
        update["content"] = new
    calls = getattr(value, "tool_calls", None)  # the arguments an AI message asked tools for
    if isinstance(calls, list) and calls:
        redacted = [redact_value(pattern, replacement, call.get("args"), depth + 1) if isinstance(call, dict) else (None, False) for call in calls]
        if any(changed for _, changed in redacted):
            update["tool_calls"] = [{**call, "args": args} if changed else call for call, (args, changed) in zip(calls, redacted)]
    return (copy(update=update), True) if update else (value, False)


def forgetting(source: str, forget: Callable[[Any], None]) -> CompiledHook:
    """The EXECUTION_END hook that drops a finished run's state."""
    return CompiledHook(InterceptionPoint.EXECUTION_END, QuickPolicyHook(f"{source}:end_of_run", forget), on_error="open")


def approval(rule: ApprovalRule, source: str, guard: Optional[Guard] = None,
             flow: Optional[Flow] = None) -> list[CompiledHook]:
    """The rule's `Approver`, asked only where the rule applies: its `when` holds (a condition that
    fails refuses, without asking) and, for a ``[[flow]]``, its trigger has returned in the run."""
    approver = Approver(rule, source, import_object(rule.hook))
    guard = guard or Guard(source)

    def ask(ctx: Any) -> Any:
        if flow is not None and not flow.triggered(Call(ctx, None, None)):
            return None
        try:
            if not guard.holds(ctx):
                return None
        except EvaluationError as error:
            refuse(ctx, source, condition_failed(source, error, "the call is refused"), guard.audit)
            return None
        decided(ctx, source, "approve", f"asks {rule.hook}", guard.audit)
        return None if guard.audit else approver(ctx)

    tools = tuple(rule.tools) if rule.tools is not None else None
    return [CompiledHook(InterceptionPoint.PRE_TOOL_CALL, PolicyHook(source, ask), tools, rule.timeout)]


def unknown_tools(named: dict[str, list[str]], source: str) -> list[CompiledHook]:
    """The advisory check of `hookport.policy.offered` (fail-open: it only ever warns)."""
    warning = UnknownToolWarning(named)
    return [
        CompiledHook(InterceptionPoint.PRE_MODEL_CALL, QuickPolicyHook(source, warning.check), on_error="open"),
        forgetting(source, warning.forget),
    ]


def import_object(spec: str) -> Callable[[Any], Any]:
    """``"package.module:function"`` -> the function; errors say which part is wrong."""
    module_name, _, attribute = spec.partition(":")
    try:
        target: Any = importlib.import_module(module_name)
    except ImportError as error:
        raise LookupError(f"cannot import {module_name!r}: {error}") from None
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise LookupError(f"{module_name!r} has no {attribute!r}")
        target = getattr(target, part)
    if not callable(target):
        raise LookupError(f"{spec!r} is not callable")
    return target

