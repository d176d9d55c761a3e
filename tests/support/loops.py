"""Running a coroutine to its end from sync code, for harnesses of async-only frameworks."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
from collections.abc import Coroutine
from typing import Any


def run_coroutine(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """Run `coroutine` to the end from sync code, also when called inside a running loop (a hook):
    there it runs on a fresh loop in a worker thread, in a copy of the caller's context (the hook's
    context, so the calls it makes are not hooked again)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    context = contextvars.copy_context()
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(context.run, asyncio.run, coroutine).result()
