"""CodeAgent's code runs on a thread smolagents starts: carry the run's context there.

From 1.2x ``evaluate_python_code`` wraps the code in ``timeout(seconds)``, which runs it
on a fresh ``ThreadPoolExecutor`` thread without copying the context: scoped hooks,
the running agent (``agent_role``) and the tool decision mark would all be gone there
(a scoped deny lost, ``agents=[...]`` filters refusing every CodeAgent's calls). The
wrapper on ``timeout`` hands smolagents a function that runs the code in a copy of the
caller's context instead; the timeout itself is smolagents' own, unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import copy_context
from functools import wraps
from typing import Any


def timeout_entry(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``smolagents.local_python_executor.timeout(seconds)``: its decorator, running in the caller's context."""
    decorator = wrapped(*args, **kwargs)

    def in_context(func: Callable[..., Any]) -> Callable[..., Any]:
        @wraps(func)
        def call(*a: Any, **k: Any) -> Any:
            context = copy_context()  # taken on the calling thread, entered on smolagents' worker
            return decorator(lambda *aa, **kk: context.run(func, *aa, **kk))(*a, **k)

        return call

    return in_context
