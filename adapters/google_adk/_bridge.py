"""Plain ``def`` wrap hooks around ADK's async model and tool calls.

ADK makes every model request and runs every tool on an event loop, also under
the sync ``Runner.run``. A plain wrap hook (``def retry(ctx, call_next)``)
expects ``call_next`` to return the answer or raise there and then; on an async
call site it would get an awaitable, so a ``try`` around it could not see the
call fail and a timer would time nothing.

So when a plain wrap hook is registered for the point, the whole sequence (PRE,
the wrap hooks, POST) runs with the engine's sync `model_call` / `tool_call` on
a worker thread (``asyncio.to_thread`` copies the context), and each
``call_next`` runs the real call on the run's own loop and waits for it. The
loop is not blocked and the model's client stays on the loop it belongs to.
With only ``async def`` wrap hooks (or none) the async `amodel_call` /
`atool_call` run on the loop itself.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from hookport.points import Point
from hookport.registry import hooks_for

R = TypeVar("R")


def has_plain_wraps(point: Point) -> bool:
    """True when a wrap hook of `point` is a plain function (it needs a blocking ``call_next``)."""
    for hook in hooks_for(point):
        is_async = getattr(hook, "is_async", None)
        if is_async is None:
            is_async = inspect.iscoroutinefunction(hook)
        if not is_async:
            return True
    return False


async def on_worker(sequence: Callable[[Any, Callable[[Any], R], Any], R], ctx: Any,
                    call: Callable[[Any], Awaitable[R]], shape: Any) -> R:
    """``sequence(ctx, blocking_call, shape)`` on a worker thread; ``blocking_call(c)`` runs
    ``call(c)`` on this loop and waits for it."""
    loop = asyncio.get_running_loop()

    def blocking(c: Any) -> R:
        return asyncio.run_coroutine_threadsafe(_coroutine(call(c)), loop).result()

    return await asyncio.to_thread(sequence, ctx, blocking, shape)


async def _coroutine(awaitable: Awaitable[R]) -> R:
    return await awaitable
