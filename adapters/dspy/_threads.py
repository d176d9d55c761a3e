"""``dspy.Parallel`` / ``Module.batch`` / ``Evaluate`` run programs on threads of their own.

DSPy's ``ParallelExecutor`` carries its own settings to its worker threads but not the
caller's context, so scoped hooks (a scoped deny), the run's scope (``agent_role``) and
the tool decision mark were gone there. ``ParallelExecutor.execute`` wraps the function
with ``_wrap_function`` on the caller's thread: the wrapper takes the caller's context
there and runs each item in a copy of it.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import copy_context
from typing import Any


def wrap_function(wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``ParallelExecutor._wrap_function(user_function)``: each item runs in a copy of the caller's context."""
    safe = wrapped(*args, **kwargs)
    context = copy_context()

    def in_context(item: Any) -> Any:
        return context.copy().run(safe, item)

    return in_context
