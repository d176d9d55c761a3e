"""Cyclic garbage a hooked run leaves: the objects only the garbage collector can free.

A no-op hook pair must not add any: a cycle per request (a context holding a bound method of
the object that holds the context) makes the collector run more often on every hooked run."""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any


def cyclic_garbage(run: Callable[[], Any], runs: int = 5) -> list[str]:
    """The type names of the unreachable objects `runs` calls of `run` leave (the collector off meanwhile)."""
    run()  # first-run caches are not garbage
    gc.collect()
    gc.disable()
    try:
        for _ in range(runs):
            run()
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        found = [type(o).__name__ for o in gc.garbage]
    finally:
        gc.garbage.clear()
        gc.set_debug(0)
        gc.enable()
    return found


def hookport_garbage(run: Callable[[], Any], runs: int = 5) -> list[str]:
    """`cyclic_garbage` of hookport's own types (the framework's own cycles are its business)."""
    hookport_types = {"LazyMessagesContext", "LLMCallHookContext", "ToolCallHookContext", "Execution", "RunState",
                      "_Call", "_Request", "_Run", "_ToolRun", "Decision", "ChatContext", "ToolContext"}
    return [name for name in cyclic_garbage(run, runs) if name in hookport_types]
