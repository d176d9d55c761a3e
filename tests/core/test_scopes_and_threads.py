"""Execution-scoped hooks, and registration racing dispatch."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from hookport import (
    InputContext,
    InterceptionPoint,
    dispatch,
    get_scoped_hooks,
    on,
    register_hook,
    register_scoped,
    scoped_hooks,
    unregister_hook,
)

P = InterceptionPoint


def test_scoped_run_after_global_and_vanish_on_exit() -> None:
    order: list[str] = []
    with scoped_hooks({P.INPUT: [lambda ctx: order.append("scoped-initial")]}):
        register_scoped(P.INPUT, lambda ctx: order.append("scoped-added"))
        on(P.INPUT)(lambda ctx: order.append("global"))
        assert len(get_scoped_hooks(P.INPUT)) == 2
        dispatch(P.INPUT, InputContext({}))
    assert order == ["global", "scoped-initial", "scoped-added"]
    order.clear()
    dispatch(P.INPUT, InputContext({}))
    assert order == ["global"]
    assert get_scoped_hooks(P.INPUT) == []


def test_register_scoped_outside_a_block_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="outside of a scoped_hooks"):
        register_scoped(P.INPUT, lambda ctx: None)


def test_nested_scopes_inherit_and_unwind() -> None:
    order: list[str] = []
    with scoped_hooks({P.INPUT: [lambda ctx: order.append("outer")]}):
        with scoped_hooks({P.INPUT: [lambda ctx: order.append("inner")]}):
            dispatch(P.INPUT, InputContext({}))
        dispatch(P.INPUT, InputContext({}))
    assert order == ["outer", "inner", "outer"]


def test_scoped_hooks_follow_copied_contexts_into_threads() -> None:
    seen: list[str] = []
    with scoped_hooks({P.INPUT: [lambda ctx: seen.append(threading.current_thread().name)]}):
        with ThreadPoolExecutor(2, thread_name_prefix="worker") as pool:
            context = contextvars.copy_context()
            pool.submit(context.run, dispatch, P.INPUT, InputContext({})).result()
        plain = threading.Thread(target=dispatch, args=(P.INPUT, InputContext({})))
        plain.start()
        plain.join()
    assert len(seen) == 1 and seen[0].startswith("worker")


def test_scoped_hooks_follow_asyncio_tasks_and_stop_at_exit() -> None:
    seen: list[str] = []

    async def work(tag: str) -> None:
        await asyncio.sleep(0)
        dispatch(P.INPUT, InputContext({"tag": tag}))

    async def main() -> None:
        with scoped_hooks({P.INPUT: [lambda ctx: seen.append(ctx.payload["tag"])]}):
            await asyncio.gather(asyncio.create_task(work("a")), asyncio.create_task(work("b")))
            late = asyncio.create_task(work("after-exit"))
        await late

    asyncio.run(main())
    assert sorted(seen) == ["a", "b"]


def test_scopes_in_concurrent_tasks_are_isolated() -> None:
    seen: list[tuple[str, str]] = []

    async def request(name: str) -> None:
        with scoped_hooks({P.INPUT: [lambda ctx: seen.append((name, ctx.payload["who"]))]}):
            await asyncio.sleep(0.01)
            dispatch(P.INPUT, InputContext({"who": name}))

    async def main() -> None:
        await asyncio.gather(request("one"), request("two"))

    asyncio.run(main())
    assert sorted(seen) == [("one", "one"), ("two", "two")]


def test_concurrent_registration_and_dispatch_lose_nothing() -> None:
    """Registering and unregistering while other threads dispatch never raises,
    never loses and never duplicates a hook."""
    counter: list[int] = []
    permanent = [lambda ctx, i=i: counter.append(i) for i in range(5)]
    for hook in permanent:
        register_hook(P.INPUT, hook)
    stop = threading.Event()
    errors: list[BaseException] = []

    def churn(worker: int) -> None:
        try:
            for n in range(300):
                fn = lambda ctx: None  # noqa: E731
                register_hook(P.INPUT, fn)
                assert unregister_hook(P.INPUT, fn)
        except BaseException as error:
            errors.append(error)

    def dispatcher() -> None:
        try:
            while not stop.is_set():
                before = len(counter)
                dispatch(P.INPUT, InputContext({}))
                assert len(counter) - before >= 5
        except BaseException as error:
            errors.append(error)

    readers = [threading.Thread(target=dispatcher) for _ in range(3)]
    writers = [threading.Thread(target=churn, args=(i,)) for i in range(4)]
    for t in readers + writers:
        t.start()
    for t in writers:
        t.join()
    stop.set()
    for t in readers:
        t.join()
    assert errors == []
    from hookport import get_hooks

    assert get_hooks(P.INPUT) == permanent
