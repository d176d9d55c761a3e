"""policy.toml's approval hook, offline: it approves by rule instead of asking a person.

docs/policy.md shows one that asks an approval service and waits; this one lets a
payment of at most 100 through and refuses the rest, which is what a batch job that
must never wait would do.
"""

from __future__ import annotations

from typing import Any


def ask_on_call(ctx: Any) -> bool:
    return ctx.tool_input.get("amount", 0) <= 100
