"""Async hooks, timeouts and the per-hook failure policy."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from hookport import (
    HookAborted,
    HookDispatchedEvent,
    InterceptionPoint,
    LLMCallHookContext,
    ToolCallHookContext,
    adispatch,
    configure,
    dispatch,
    is_suppressed,
    on,
    register_hook,
    scoped_hooks,
    register_scoped,
    subscribe,
)
from hookport.compat import crewai as crewai_dialect
from hookport.compat import praisonai as praisonai_dialect

P = InterceptionPoint


def tool_ctx(name: str = "delete_file") -> ToolCallHookContext:
    return ToolCallHookContext(name, {"path": "/etc"})


def register_async_guard(dialect: str) -> None:
    if dialect == "on":
        @on(P.PRE_TOOL_CALL, tools=["delete_file"])
        async def guard(ctx):  # type: ignore[no-untyped-def]
            await asyncio.sleep(0)
            raise HookAborted("no deletes", source="policy")
    elif dialect == "crewai":
        @crewai_dialect.before_tool_call
        async def guard(ctx):  # type: ignore[no-untyped-def]
            await asyncio.sleep(0)
            return False if ctx.tool_name == "delete_file" else None
    else:
        @praisonai_dialect.add_hook("before_tool")
        async def guard(event):  # type: ignore[no-untyped-def]
            await asyncio.sleep(0)
            return False if event.tool_name == "delete_file" else None


@pytest.mark.parametrize("dialect", ["on", "crewai", "praisonai"])
def test_an_async_guard_blocks_on_a_sync_call_site(dialect: str) -> None:
    register_async_guard(dialect)
    with pytest.raises(HookAborted):
        dispatch(P.PRE_TOOL_CALL, tool_ctx())
    dispatch(P.PRE_TOOL_CALL, tool_ctx("read_file"))


@pytest.mark.parametrize("dialect", ["on", "crewai", "praisonai"])
async def test_an_async_guard_blocks_on_an_async_call_site(dialect: str) -> None:
    register_async_guard(dialect)
    with pytest.raises(HookAborted):
        await adispatch(P.PRE_TOOL_CALL, tool_ctx())
    await adispatch(P.PRE_TOOL_CALL, tool_ctx("read_file"))


async def test_a_sync_dispatch_inside_a_running_loop_runs_async_hooks_without_deadlock() -> None:
    async def edit(ctx):  # type: ignore[no-untyped-def]
        await asyncio.sleep(0.01)
        ctx.messages.append({"role": "user", "content": "edited"})

    register_hook(P.PRE_MODEL_CALL, edit)
    ctx = dispatch(P.PRE_MODEL_CALL, LLMCallHookContext([]))  # a sync framework call inside async code
    assert ctx.messages == [{"role": "user", "content": "edited"}]


async def test_async_and_sync_hooks_keep_their_order_and_replace() -> None:
    order: list[str] = []

    def first(ctx):  # type: ignore[no-untyped-def]
        order.append("sync")
        return "from sync"

    async def second(ctx):  # type: ignore[no-untyped-def]
        order.append(f"async saw {ctx.response}")
        return ctx.response + " + async"

    register_hook(P.POST_MODEL_CALL, first)
    register_hook(P.POST_MODEL_CALL, second)
    ctx = await adispatch(P.POST_MODEL_CALL, LLMCallHookContext([], response="raw"))
    assert order == ["sync", "async saw from sync"]
    assert ctx.response == "from sync + async"


async def test_scoped_async_hooks_run_on_async_call_sites() -> None:
    seen: list[str] = []

    async def note(ctx):  # type: ignore[no-untyped-def]
        seen.append(ctx.tool_name)

    with scoped_hooks():
        register_scoped(P.PRE_TOOL_CALL, note)
        await adispatch(P.PRE_TOOL_CALL, tool_ctx("x"))
    await adispatch(P.PRE_TOOL_CALL, tool_ctx("y"))
    assert seen == ["x"]


async def test_the_loop_keeps_serving_other_tasks_while_an_async_hook_waits() -> None:
    ticks = 0
    done = asyncio.Event()

    async def ticker() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            await asyncio.sleep(0.001)

    async def slow_moderation(ctx):  # type: ignore[no-untyped-def]
        await asyncio.sleep(0.2)

    register_hook(P.PRE_MODEL_CALL, slow_moderation)
    task = asyncio.create_task(ticker())
    await adispatch(P.PRE_MODEL_CALL, LLMCallHookContext([]))
    done.set()
    await task
    assert ticks >= 10  # a blocked loop would have ticked once or twice


# -- timeouts and failure policy ------------------------------------------------------------


def sleeper_sync(ctx):  # type: ignore[no-untyped-def]
    time.sleep(0.5)
    ctx.metadata["finished"] = True


async def sleeper_async(ctx):  # type: ignore[no-untyped-def]
    await asyncio.sleep(0.5)
    ctx.metadata["finished"] = True


@pytest.mark.parametrize("hook", [sleeper_sync, sleeper_async])
def test_a_timed_out_hook_fails_open_by_default_sync_path(hook) -> None:  # type: ignore[no-untyped-def]
    events: list[HookDispatchedEvent] = []
    subscribe(events.append)
    register_hook(P.PRE_TOOL_CALL, hook, timeout=0.05)
    ctx = dispatch(P.PRE_TOOL_CALL, tool_ctx())
    assert "finished" not in ctx.metadata
    assert events[-1].timed_out_hooks == (hook.__qualname__,)
    assert events[-1].outcome == "proceeded"


@pytest.mark.parametrize("hook", [sleeper_sync, sleeper_async])
async def test_a_timed_out_hook_fails_closed_when_asked_async_path(hook) -> None:  # type: ignore[no-untyped-def]
    register_hook(P.PRE_TOOL_CALL, hook, timeout=0.05, on_error="closed")
    with pytest.raises(HookAborted, match="timed out") as caught:
        await adispatch(P.PRE_TOOL_CALL, tool_ctx())
    assert caught.value.source is hook


@pytest.mark.parametrize("hook", [sleeper_sync, sleeper_async])
async def test_a_timed_out_hook_fails_open_on_the_async_path(hook) -> None:  # type: ignore[no-untyped-def]
    register_hook(P.PRE_TOOL_CALL, hook, timeout=0.05)
    ctx = await adispatch(P.PRE_TOOL_CALL, tool_ctx())
    assert "finished" not in ctx.metadata


@pytest.mark.parametrize("hook", [sleeper_sync, sleeper_async])
def test_a_timed_out_hook_fails_closed_on_the_sync_path(hook) -> None:  # type: ignore[no-untyped-def]
    register_hook(P.PRE_TOOL_CALL, hook, timeout=0.05, on_error="closed")
    with pytest.raises(HookAborted, match="timed out"):
        dispatch(P.PRE_TOOL_CALL, tool_ctx())


def test_the_process_default_timeout_and_policy_apply_to_hooks_without_their_own() -> None:
    configure(timeout=0.05, on_error="closed")
    register_hook(P.PRE_TOOL_CALL, sleeper_sync)
    with pytest.raises(HookAborted, match="timed out"):
        dispatch(P.PRE_TOOL_CALL, tool_ctx())


def test_a_crashing_hook_fails_closed_with_its_error_as_cause() -> None:
    events: list[HookDispatchedEvent] = []
    subscribe(events.append)

    def broken(ctx):  # type: ignore[no-untyped-def]
        raise RuntimeError("policy server down")

    register_hook(P.PRE_TOOL_CALL, broken, on_error="closed")
    with pytest.raises(HookAborted, match="policy server down") as caught:
        dispatch(P.PRE_TOOL_CALL, tool_ctx())
    assert isinstance(caught.value.__cause__, RuntimeError)
    assert events[-1].outcome == "aborted" and events[-1].failed_hooks == ("test_a_crashing_hook_fails_closed_with_its_error_as_cause.<locals>.broken",)


def test_a_crashing_hook_fails_open_and_telemetry_names_it() -> None:
    events: list[HookDispatchedEvent] = []
    subscribe(events.append)
    register_hook(P.PRE_TOOL_CALL, lambda ctx: 1 / 0)
    dispatch(P.PRE_TOOL_CALL, tool_ctx())
    assert events[-1].failed_hooks[0].endswith("<lambda>") and "ZeroDivisionError" in (events[-1].error or "")


def test_bad_options_are_errors_at_registration() -> None:
    with pytest.raises(ValueError, match="timeout"):
        register_hook(P.PRE_TOOL_CALL, lambda ctx: None, timeout=-1)
    with pytest.raises(ValueError, match="on_error"):
        register_hook(P.PRE_TOOL_CALL, lambda ctx: None, on_error="sometimes")  # type: ignore[arg-type]


async def test_adispatch_with_no_hook_gives_back_the_context_untouched() -> None:
    ctx = tool_ctx()
    before = dict(ctx.tool_input)
    assert await adispatch(P.PRE_TOOL_CALL, ctx) is ctx
    assert ctx.tool_input == before and not is_suppressed()


async def test_a_chain_of_plain_hooks_runs_at_the_call_and_an_async_hook_after_it_at_the_await() -> None:
    order: list[str] = []

    def plain(ctx: ToolCallHookContext) -> None:
        order.append("plain")
        assert is_suppressed()  # the re-entrancy flag is up while it runs

    async def later(ctx: ToolCallHookContext) -> dict[str, Any]:
        order.append("async")
        assert is_suppressed()
        return {"path": "/tmp/rewritten"}

    register_hook(P.PRE_TOOL_CALL, plain)
    ctx = tool_ctx()
    assert await adispatch(P.PRE_TOOL_CALL, ctx) is ctx and order == ["plain"]
    register_hook(P.PRE_TOOL_CALL, later)
    pending = adispatch(P.PRE_TOOL_CALL, ctx)
    assert order == ["plain", "plain"]  # the plain hook ran at the call ...
    assert await pending is ctx  # ... the async one when awaited, with the flag raised again
    assert order == ["plain", "plain", "async"]
    assert ctx.tool_input == {"path": "/tmp/rewritten"} and not is_suppressed()


async def test_a_plain_hook_that_hands_back_a_coroutine_has_it_awaited_and_applied() -> None:
    async def rewrite() -> dict[str, Any]:
        return {"path": "/safe"}

    register_hook(P.PRE_TOOL_CALL, lambda ctx: rewrite())  # a sync callable, so stored as it is
    seen: list[dict[str, Any]] = []
    register_hook(P.PRE_TOOL_CALL, lambda ctx: seen.append(dict(ctx.tool_input)))
    ctx = await adispatch(P.PRE_TOOL_CALL, tool_ctx())
    assert ctx.tool_input == {"path": "/safe"} and seen == [{"path": "/safe"}]
