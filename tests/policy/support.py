"""What the policy tests share: a tool call the way an adapter makes it, and the outcomes reported."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hookport import HookAborted, InterceptionPoint, dispatch, events
from hookport.contexts import ToolCallHookContext
from hookport.outcomes import RuleOutcome

P = InterceptionPoint
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "policies"


class Tools:
    """Runs tool calls through PRE hooks, the tool's body (only if not refused) and POST hooks,
    recording each real execution with the arguments it received."""

    def __init__(self, results: dict[str, str] | None = None) -> None:
        self.ran: list[tuple[str, dict[str, Any]]] = []
        self.results = results or {}

    def call(self, name: str, **args: Any) -> str:
        ctx = ToolCallHookContext(name, dict(args))
        try:
            dispatch(P.PRE_TOOL_CALL, ctx)
        except HookAborted as refused:
            return f"refused: {refused.reason} ({refused.source_name})"
        self.ran.append((name, dict(ctx.tool_input)))
        ctx.tool_result = self.results.get(name, f"{name} done")
        dispatch(P.POST_TOOL_CALL, ctx)
        return ctx.tool_result

    def runs_of(self, name: str) -> list[dict[str, Any]]:
        return [args for tool, args in self.ran if tool == name]


@contextmanager
def outcomes() -> Iterator[list[RuleOutcome]]:
    """Every rule outcome reported while the block runs (an event subscriber)."""
    seen: list[RuleOutcome] = []

    def collect(event: events.HookDispatchedEvent) -> None:
        seen.extend(event.outcomes)

    events.subscribe(collect)
    try:
        yield seen
    finally:
        events.unsubscribe(collect)


def named(seen: list[RuleOutcome]) -> list[tuple[str, str]]:
    """(rule, outcome) pairs, the rule's line dropped (``p.toml:deny[0]``), for short assertions."""
    return [(_without_line(o.rule), o.outcome) for o in seen]


def _without_line(rule: str) -> str:
    label, _, rest = rule.partition(":")
    line, _, where = rest.partition(":")
    return f"{label}:{where}" if line.isdigit() else rule


def load_error(text: str) -> str:
    """The `PolicyError` message that loading `text` raises."""
    import pytest

    from hookport.policy import PolicyError, parse_policy

    with pytest.raises(PolicyError) as caught:
        parse_policy(text, "bad.toml")
    return str(caught.value)


def in_run(work: Callable[[], Any], run_id: str | None = None, **fields: Any) -> Any:
    """`work()` inside one execution (one run)."""
    from hookport import execution

    with execution("test", run_id=run_id, **fields) as run:
        run.output = work()
    return run.output
