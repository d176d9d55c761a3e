"""Sync wrap hooks on PraisonAI's async call sites.

PraisonAI 1.7 runs even a sync ``chat()`` on its async client, inside an
event loop of its own. A sync wrap hook written the usual way,

    def retry(ctx, call_next):
        try:
            return call_next(ctx)
        except Exception: ...

needs ``call_next`` to return the answer (or raise) right there; on an async
call site the engine's `arun_wrapped` hands it an awaitable instead, so the
try/except never sees the failure. When the wrap chain of a point holds a
sync hook, the whole call sequence (`hookport.calls.model_call` /
`tool_call`) runs on a worker thread in a copy of the caller's context, and
its ``call_next`` sends the real (async) call back to the caller's loop and
waits for it: the loop keeps serving while the hook waits, and the request
runs on the loop its client belongs to. Chains of async wrap hooks stay on
the loop (`amodel_call` / `atool_call`).
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from hookport.hooks import HookEntry
from hookport.points import Point
from hookport.reentry import hooks_off
from hookport.registry import has_hooks, hooks_for

R = TypeVar("R")


def _is_async(hook: Any) -> bool:
    if type(hook) is HookEntry:
        return bool(hook.is_async)
    return inspect.iscoroutinefunction(hook)


def sync_wraps(point: Point) -> bool:
    """True when `point` has a sync wrap hook that would run here."""
    if hooks_off.get() or not has_hooks(point):
        return False
    return any(not _is_async(hook) for hook in hooks_for(point))


async def on_worker(sequence: Callable[[Callable[[Any], Any]], R], send: Callable[[Any], Awaitable[Any]]) -> R:
    """Run ``sequence(blocking_send)`` on a worker thread; ``blocking_send(ctx)`` awaits
    ``send(ctx)`` on this loop and returns its result (or raises its error)."""
    loop = asyncio.get_running_loop()

    def blocking_send(ctx: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(_awaited(send(ctx)), loop).result()

    context = contextvars.copy_context()
    return await loop.run_in_executor(None, context.run, sequence, blocking_send)


async def _awaited(awaitable: Awaitable[Any]) -> Any:
    return await awaitable
