"""What the bypass suites share: the deny of ``purge_records`` and the execution count.

Framework-free, so each framework's env imports it without the others installed.
"""

from __future__ import annotations

from typing import Any

from hookport import HookAborted, InterceptionPoint, register_hook, register_scoped
from hookport.contexts import ToolCallHookContext

PURGE = "purge_records"
DENY = [False, True]
REASON = "purging is not allowed"


def deny(on_args: dict[str, Any] | None = None) -> None:
    """Refuse ``purge_records`` (only for these arguments, when given)."""

    def refuse(ctx: ToolCallHookContext) -> None:
        if on_args is None or all(ctx.tool_input.get(k) == v for k, v in on_args.items()):
            raise HookAborted(reason=REASON, source="adversarial")

    register_hook(InterceptionPoint.PRE_TOOL_CALL, refuse, tools=[PURGE])


class Runs:
    """The real executions of the tools a test built."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def note(self, **args: Any) -> str:
        self.calls.append(args)
        return f"purged {args}"


def deny_at_first_model_call(armed: bool, runs: Runs) -> None:
    """A model hook that registers the deny mid-run (no tool hook exists when the agent is built)."""

    def arm(ctx: Any) -> None:
        if armed and not runs.calls:
            deny()

    register_hook(InterceptionPoint.PRE_MODEL_CALL, arm)


def deny_scoped() -> None:
    """Refuse ``purge_records`` in the open `scoped_hooks()` block only."""

    def refuse(ctx: ToolCallHookContext) -> None:
        raise HookAborted(reason=REASON, source="adversarial")

    register_scoped(InterceptionPoint.PRE_TOOL_CALL, refuse, tools=[PURGE])
