"""Plain ``def`` wrap hooks on async call sites, for adapters whose framework awaits every call.

A plain wrap hook (``def retry(ctx, call_next)``) needs ``call_next`` to return
the answer, or raise, right there; on an async call site the engine's
`arun_wrapped` hands it an awaitable, so a ``try`` around it never sees the call
fail and a timer times nothing. Frameworks that make every model request and run
every tool on an event loop (Google ADK, the OpenAI Agents SDK, PraisonAI's async
client) therefore need a bridge:

When the wrap chain of a point holds a plain hook (`sync_wraps`), the whole call
sequence (the engine's sync `model_call` / `tool_call`: PRE, wrap hooks, POST)
runs on a worker thread in a copy of the caller's context (`on_worker`), and its
``call_next`` sends the real (async) call back to the caller's loop and waits for
it. The loop keeps serving while the hook waits, and the call runs on the loop
its client belongs to. Chains of ``async def`` wrap hooks (or none) stay on the
loop (`amodel_call` / `atool_call`).

The workers are hookport's own threads, not the loop's default executor: each
waits for a call that may itself need that executor (frameworks run plain
``def`` tools there), so taking them from it could deadlock.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Optional, TypeVar

from hookport.hooks import HookEntry
from hookport.points import Point
from hookport.reentry import is_suppressed
from hookport.registry import has_hooks, hooks_for

R = TypeVar("R")


def _is_async(hook: Any) -> bool:
    if type(hook) is HookEntry:
        return bool(hook.is_async)
    return inspect.iscoroutinefunction(hook)


def sync_wraps(point: Point) -> bool:
    """True when `point` has a plain (sync) wrap hook that would run here."""
    if is_suppressed() or not has_hooks(point):
        return False
    return any(not _is_async(hook) for hook in hooks_for(point))


async def on_worker(sequence: Callable[[Any, Callable[[Any], R], Any], R], ctx: Any,
                    call: Callable[[Any], Awaitable[R]], shape: Any) -> R:
    """``sequence(ctx, blocking_call, shape)`` on a worker thread; ``blocking_call(c)`` runs
    ``call(c)`` on this loop and returns its result (or raises its error)."""
    loop = asyncio.get_running_loop()

    def blocking_call(c: Any) -> R:
        return asyncio.run_coroutine_threadsafe(_awaited(call(c)), loop).result()

    context = contextvars.copy_context()
    return await loop.run_in_executor(_workers(), context.run, sequence, ctx, blocking_call, shape)


async def call_sequence(point: Point, sequence: Callable[..., R], asequence: Callable[..., Awaitable[R]], ctx: Any,
                        call: Callable[[Any], Awaitable[R]], shape: Any) -> R:
    """One hooked call on an async call site: `sequence` (``model_call`` / ``tool_call``) on a
    worker when `point`'s wrap chain holds a plain hook, else `asequence` on this loop."""
    if sync_wraps(point):
        return await on_worker(sequence, ctx, call, shape)
    return await asequence(ctx, call, shape)


_pool: Optional[ThreadPoolExecutor] = None
_pool_lock = threading.Lock()


def _workers() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=32, thread_name_prefix="hookport-wrap")
        return _pool


async def _awaited(awaitable: Awaitable[R]) -> R:
    return await awaitable
