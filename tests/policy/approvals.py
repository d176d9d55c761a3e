"""Approval hooks a policy names (``tests.policy.approvals:...``)."""

from __future__ import annotations

from typing import Any

asked: list[str] = []


def approve_small_payments(ctx: Any) -> bool:
    asked.append(ctx.tool_name)
    return ctx.tool_input.get("amount", 0) <= 100


not_a_function = 42
