"""The re-entrancy flag: one context write per chain, and who sees it.

A chain raises a fresh flag in its own context and lowers it in place when it
ends. Work the hook starts (threads in a copied context, tasks) is quiet while
the hook runs; contexts copied before the chain, sibling tasks and concurrent
threads never are.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time

from hookport import (
    InterceptionPoint,
    ToolCallHookContext,
    adispatch,
    configure,
    dispatch,
    is_suppressed,
    register_hook,
)

P = InterceptionPoint


def tool_ctx(name: str = "lookup") -> ToolCallHookContext:
    return ToolCallHookContext(name, {"q": 1})


def test_a_thread_the_hook_starts_in_a_copied_context_is_quiet() -> None:
    inner_runs: list[str] = []

    def guard(ctx: ToolCallHookContext) -> None:
        inner_runs.append(ctx.tool_name)
        if ctx.tool_name == "outer":
            context = contextvars.copy_context()
            worker = threading.Thread(target=context.run, args=(dispatch, P.PRE_TOOL_CALL, tool_ctx("inner")))
            worker.start()
            worker.join()

    register_hook(P.PRE_TOOL_CALL, guard)
    dispatch(P.PRE_TOOL_CALL, tool_ctx("outer"))
    assert inner_runs == ["outer"]  # the worker's own tool call ran no hook


def test_a_context_copied_before_the_chain_is_not_quieted_by_it() -> None:
    """A worker started earlier (a request thread, a pool) dispatches while this thread runs a hook."""
    in_hook = threading.Event()
    worker_done = threading.Event()
    worker_saw: list[str] = []
    before = contextvars.copy_context()

    def guard(ctx: ToolCallHookContext) -> None:
        worker_saw.append(ctx.tool_name)
        if ctx.tool_name == "main":
            in_hook.set()
            assert worker_done.wait(5)

    def worker() -> None:
        in_hook.wait(5)
        dispatch(P.PRE_TOOL_CALL, tool_ctx("worker"))
        worker_done.set()

    register_hook(P.PRE_TOOL_CALL, guard)
    thread = threading.Thread(target=before.run, args=(worker,))
    thread.start()
    dispatch(P.PRE_TOOL_CALL, tool_ctx("main"))
    thread.join()
    assert worker_saw == ["main", "worker"]


async def test_sibling_tasks_run_their_hooks_while_one_task_awaits_inside_a_hook() -> None:
    seen: list[str] = []
    gate = asyncio.Event()

    async def guard(ctx: ToolCallHookContext) -> None:
        seen.append(ctx.tool_name)
        if ctx.tool_name == "slow":
            await gate.wait()  # the sibling runs now, on the same thread

    async def sibling() -> None:
        await adispatch(P.PRE_TOOL_CALL, tool_ctx("sibling"))
        gate.set()

    register_hook(P.PRE_TOOL_CALL, guard)
    await asyncio.gather(adispatch(P.PRE_TOOL_CALL, tool_ctx("slow")), sibling())
    assert sorted(seen) == ["sibling", "slow"]
    assert not is_suppressed()


def test_the_flag_is_lowered_after_the_chain_even_when_a_hook_fails() -> None:
    def broken(ctx: ToolCallHookContext) -> None:
        raise RuntimeError("boom")

    register_hook(P.PRE_TOOL_CALL, broken)
    dispatch(P.PRE_TOOL_CALL, tool_ctx())  # fail-open: logged, ignored
    assert not is_suppressed()


def test_a_hook_abandoned_past_its_timeout_stays_quiet() -> None:
    """Its thread goes on after the chain ended; its own calls must still run no hook."""
    later_calls: list[str] = []
    finished = threading.Event()

    def slow_judge(ctx: ToolCallHookContext) -> None:
        later_calls.append(ctx.tool_name)
        if ctx.tool_name == "outer":
            time.sleep(0.3)  # past the timeout: the chain goes on without it
            dispatch(P.PRE_TOOL_CALL, tool_ctx("from the abandoned hook"))
            finished.set()

    configure(timeout=0.05)
    try:
        register_hook(P.PRE_TOOL_CALL, slow_judge)
        dispatch(P.PRE_TOOL_CALL, tool_ctx("outer"))
        assert not is_suppressed()
        assert finished.wait(5)
    finally:
        configure(timeout=None)
    assert later_calls == ["outer"]
