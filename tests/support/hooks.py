"""Small helpers adapter tests share."""

from __future__ import annotations

from typing import Any

from hookport.points import InterceptionPoint
from hookport.registry import register_hook


def collect(point: InterceptionPoint, result: Any = None, **filters: Any) -> list[Any]:
    """Register a hook that records each context it sees (and returns `result`)."""
    seen: list[Any] = []

    def hook(ctx: Any) -> Any:
        seen.append(ctx)
        return result(ctx) if callable(result) else result

    register_hook(point, hook, **filters)
    return seen
