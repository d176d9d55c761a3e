"""Strands' typed stream events, wherever the installed release keeps them
(``strands.types._events`` up to 1.4x, ``strands.types.events`` later for some)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import lru_cache
from typing import Any

_MODULES = ("strands.types.events", "strands.types._events")


@lru_cache(maxsize=None)
def event_class(name: str) -> Any:
    """The event class `name` (``ToolResultEvent``, ``ModelStopReason``...) of the installed Strands."""
    for module_name in _MODULES:
        try:
            found = getattr(importlib.import_module(module_name), name, None)
        except ImportError:
            continue
        if found is not None:
            return found
    raise ImportError(f"strands has no event class {name}")


async def drained(events: Any, then: Callable[[list[Any]], Any] | None = None) -> Any:
    """Every event of an async generator (or ``then(events)``: a model request's answer made here, not in
    a coroutine around this one), closed whatever happens (a drained one is closed already)."""
    seen: list[Any] = []
    try:
        async for event in events:
            seen.append(event)
    except BaseException:
        await events.aclose()
        raise
    return seen if then is None else then(seen)
