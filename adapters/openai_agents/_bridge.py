"""Sync wrap hooks around the SDK's async model and tool calls.

Every model and tool call of the Agents SDK is a coroutine, even under
``Runner.run_sync``. A sync wrap hook (``def retry(ctx, call_next)``) expects
``call_next`` to return the answer, or to raise, there and then; on an async
call site it would get an un-awaited coroutine, so a ``try`` around it would
never see the call fail and a timer would measure nothing.

When a sync wrap hook is registered for the point, the whole sequence
(PRE, wrap hooks, POST) runs with the engine's sync `model_call` /
`tool_call` in a worker thread of hookport's own (with a copy of the context;
not the loop's default executor, which the SDK's plain ``def`` tools need),
and each ``call_next`` runs the real call as a task on the run's
own loop (``run_coroutine_threadsafe``) and waits for it. The run's loop is
not blocked, and the model's client stays on the loop it belongs to. With
only async wrap hooks (or none), the async `amodel_call` / `atool_call` are used.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import threading
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from hookport.points import Point
from hookport.registry import hooks_for

R = TypeVar("R")


def has_sync_wraps(point: Point) -> bool:
    """True when a wrap hook of `point` is a plain function (it needs a blocking ``call_next``)."""
    for hook in hooks_for(point):
        is_async = getattr(hook, "is_async", None)
        if is_async is None:
            is_async = inspect.iscoroutinefunction(hook)
        if not is_async:
            return True
    return False


async def in_worker(sequence: Callable[[Any, Callable[[Any], R], Any], R], ctx: Any,
                    call: Callable[[Any], Awaitable[R]], shape: Any) -> R:
    """``sequence(ctx, blocking_call, shape)`` in a worker thread; ``blocking_call`` runs
    ``call(ctx)`` on this loop and waits for it."""
    loop = asyncio.get_running_loop()

    def blocking(c: Any) -> R:
        return asyncio.run_coroutine_threadsafe(_as_coroutine(call(c)), loop).result()

    context = contextvars.copy_context()
    return await loop.run_in_executor(_workers(), context.run, sequence, ctx, blocking, shape)


_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _workers() -> ThreadPoolExecutor:
    """hookport's own threads: each one waits for a call that may itself need the loop's default
    executor (the SDK runs a plain ``def`` tool there), so they must not come from that pool."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=32, thread_name_prefix="hookport-wrap")
        return _pool


async def _as_coroutine(awaitable: Awaitable[R]) -> R:
    return await awaitable
