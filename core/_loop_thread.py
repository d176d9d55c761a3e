"""Run an async hook to completion from synchronous code.

A sync call site (``invoke``, ``kickoff``, ``chat``) cannot await, and may
itself run inside an event loop's thread (a sync framework call made from an
``async def``). `asyncio.run` there would fail, and waiting on that loop would
deadlock. So coroutines go to one private event loop on a daemon thread of
hookport's own, started on first use; the caller's context variables go with
them (scoped hooks, the current execution, the re-entrancy flag).
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Coroutine
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, Optional

from hookport.reentry import fixed_flag, hooks_off

_lock = threading.Lock()
_loop: Optional[asyncio.AbstractEventLoop] = None
_thread: Optional[threading.Thread] = None


class HookTimeout(TimeoutError):
    """A hook ran past its timeout; dispatch treats it as that hook's failure."""

    def __init__(self, hook_name: str, timeout: float) -> None:
        super().__init__(f"hook {hook_name} timed out after {timeout:g}s")
        self.hook_name = hook_name
        self.timeout = timeout


def _start() -> asyncio.AbstractEventLoop:
    global _loop, _thread
    with _lock:
        if _loop is None or _thread is None or not _thread.is_alive():
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="hookport-async-hooks", daemon=True)
            thread.start()
            _loop, _thread = loop, thread
        return _loop


def run_coroutine(coro: Coroutine[Any, Any, Any], timeout: Optional[float], hook_name: str) -> Any:
    """Run `coro` on the private loop and wait for it; `HookTimeout` past `timeout`."""
    if _thread is not None and threading.current_thread() is _thread:
        return _run_on_fresh_thread(coro, timeout, hook_name)
    loop = _start()
    context = _fixed_copy()
    future: Future[Any] = Future()

    def start() -> None:
        task = context.run(loop.create_task, coro)  # the task copies `context`, the caller's
        task.add_done_callback(lambda t: _settle(future, t))
        future.task = task  # type: ignore[attr-defined]

    loop.call_soon_threadsafe(start)
    try:
        return future.result(timeout)
    except FutureTimeout:
        loop.call_soon_threadsafe(lambda: getattr(future, "task", None) and future.task.cancel())  # type: ignore[attr-defined]
        raise HookTimeout(hook_name, timeout or 0.0) from None


def _fixed_copy() -> contextvars.Context:
    """A copy of this context whose re-entrancy flag stays as it is now.

    The hook may outlive its chain (abandoned past a timeout); it stays quiet.
    """
    context = contextvars.copy_context()
    context.run(hooks_off.set, fixed_flag())
    return context


def _settle(future: Future[Any], task: asyncio.Task[Any]) -> None:
    if future.done():
        return
    if task.cancelled():
        future.cancel()
    elif task.exception() is not None:
        future.set_exception(task.exception())  # type: ignore[arg-type]
    else:
        future.set_result(task.result())


def _run_on_fresh_thread(coro: Coroutine[Any, Any, Any], timeout: Optional[float], hook_name: str) -> Any:
    """A sync dispatch from inside the private loop (a hook's own `reentrant()` call)."""
    return run_in_thread(lambda: asyncio.run(coro), timeout, hook_name)


def run_in_thread(call: Any, timeout: Optional[float], hook_name: str) -> Any:
    """Run `call()` on a daemon thread in a copy of this context, waiting at most `timeout`.

    A sync hook cannot be interrupted: past its timeout it is abandoned (it
    finishes in the background) and the caller goes on.
    """
    context = _fixed_copy()
    future: Future[Any] = Future()

    def work() -> None:
        try:
            future.set_result(context.run(call))
        except BaseException as error:  # handed to the waiting caller
            future.set_exception(error)

    threading.Thread(target=work, name=f"hookport-hook-{hook_name}", daemon=True).start()
    try:
        return future.result(timeout)
    except FutureTimeout:
        raise HookTimeout(hook_name, timeout or 0.0) from None
