"""The approval hook examples/policies/conditions.toml names (``finance_approvals:ask_finance``).

A real one asks a person (docs/policy.md#approvals); this one approves invoices from the
vendors finance already pays, so the example runs without anyone answering.
"""

from __future__ import annotations

from typing import Any

KNOWN_VENDORS = {"acme-supplies", "globex-print"}


def ask_finance(ctx: Any) -> bool:
    return ctx.tool_input.get("vendor") in KNOWN_VENDORS
