"""The mcp adapter: one ``ClientSession.call_tool`` on an in-process MCP server (memory streams),
the session kept open across calls and run on this thread's event loop, so its CPU time counts.
No native row: MCP has no client-side interception API."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from benchmarks.adapters import FrameworkBench
from tests.adapters.mcp.server import RUNS, session


class _OpenSession:
    """One session held open by a task; `call` runs one ``call_tool`` on it to completion."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        self.ready = self.loop.create_future()
        self.holder = self.loop.create_task(self._hold())
        self.loop.run_until_complete(self.ready)

    async def _hold(self) -> None:
        async with session() as tools:
            self.ready.set_result(None)
            while True:
                done, name, args = await self.queue.get()
                if done is None:
                    return
                try:
                    done.set_result(await tools.call_tool(name, args))
                except BaseException as error:  # noqa: BLE001 - handed to the caller
                    done.set_exception(error)

    def call(self, name: str, args: dict[str, Any]) -> Any:
        done = self.loop.create_future()
        self.queue.put_nowait((done, name, args))
        return self.loop.run_until_complete(done)

    def close(self) -> None:
        self.queue.put_nowait((None, None, None))
        self.loop.run_until_complete(self.holder)
        self.loop.close()


_OPEN: list[_OpenSession] = []


@contextlib.contextmanager
def _session() -> Iterator[None]:
    _OPEN.append(_OpenSession())
    try:
        yield
    finally:
        _OPEN.pop().close()


def make_run() -> Callable[[], Any]:
    held = _OPEN[-1]

    def run() -> Any:
        RUNS.clear()
        return held.call("add_numbers", {"a": 2, "b": 3})

    return run


BENCH = FrameworkBench(
    adapter="mcp",
    make_run=make_run,
    describe="ClientSession.call_tool on an in-process server",
    calls_per_round=100,
    setup=_session,
)
