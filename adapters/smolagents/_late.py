"""Modules the hot paths reach lazily (an import cycle, or smolagents not imported yet), kept once found.

An ``import`` statement inside a function runs the import machinery on every call (about 2 µs
here, for a module that is long imported); a model request made six of them. `late` resolves the
module on first use and hands back the same object afterwards.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType


def late(name: str) -> Callable[[], ModuleType]:
    """A function returning module `name`, imported on its first call."""
    found: list[ModuleType] = []

    def module() -> ModuleType:
        if not found:
            found.append(importlib.import_module(name))
        return found[0]

    return module


runs = late("hookport.adapters.smolagents._runs")
"""``_runs`` imports `_models` and `_tools` at its top; they reach it through this."""
messages = late("hookport.adapters.smolagents._messages")
"""``_messages`` imports smolagents itself: only once an agent runs."""
