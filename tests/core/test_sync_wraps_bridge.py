"""A plain ``def`` wrap hook on an async call site: the real call still behaves as if no hook were there.

`hookport.adapters._sync_wraps` runs the hook side on a worker thread and the real call in the
caller's own task; these tests drive it with the engine's `tool_call` exactly as the async
adapters do (google-adk, openai-agents, llama-index, strands, praisonai, autogen, dspy).
"""

from __future__ import annotations

import asyncio
import contextvars
import sys
import threading
import time
from typing import Any, NoReturn

import pytest

from hookport import ExtensionPoint, InterceptionPoint, ToolCallHookContext, on, register_hook
from hookport.adapters._sync_wraps import call_sequence
from hookport.calls import ToolShape, atool_call, tool_call
from hookport.decisions import body_layer, body_must_decide

W = ExtensionPoint.WRAP_TOOL_CALL
SHAPE: ToolShape[Any] = ToolShape()
set_by_tool: contextvars.ContextVar[str] = contextvars.ContextVar("set_by_tool", default="unset")
CANCEL_MESSAGE_REACHES_THE_AWAITER = sys.version_info >= (3, 11)
"""Python 3.10 delivers ``task.cancel(msg)``'s message to the cancelled coroutine but raises a bare
``CancelledError`` in the code awaiting the task; 3.11 carries the message there too."""


def passthrough(ctx: ToolCallHookContext, call_next: Any) -> Any:
    return call_next(ctx)


async def hooked(run: Any, name: str = "archive") -> Any:
    ctx = ToolCallHookContext(name, {}, framework="bridge")
    return await call_sequence(W, tool_call, atool_call, ctx, run, SHAPE)


@pytest.fixture(params=["no wrap hook", "plain wrap hook"])
def wrapped(request: pytest.FixtureRequest) -> bool:
    """Each behaviour holds with no hook (the reference) and through the bridge."""
    if request.param == "plain wrap hook":
        register_hook(W, passthrough)
    return request.param == "plain wrap hook"


def test_cancelling_the_caller_cancels_the_real_call(wrapped: bool) -> None:
    seen: list[str] = []

    async def tool(ctx: ToolCallHookContext) -> str:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError as error:
            seen.append(f"cancelled: {error.args}")
            raise
        return "finished"

    async def main() -> None:
        task = asyncio.ensure_future(hooked(tool))
        await asyncio.sleep(0.2)
        task.cancel("run stopped")
        with pytest.raises(asyncio.CancelledError) as raised:
            await task
        assert raised.value.args == (("run stopped",) if CANCEL_MESSAGE_REACHES_THE_AWAITER else ())

    asyncio.run(asyncio.wait_for(main(), 10))
    assert seen == ["cancelled: ('run stopped',)"]


def test_context_variables_the_call_sets_stay_set(wrapped: bool) -> None:
    async def tool(ctx: ToolCallHookContext) -> str:
        set_by_tool.set("by the tool")
        return "ok"

    async def main() -> str:
        await hooked(tool)
        return set_by_tool.get()

    assert asyncio.run(main()) == "by the tool"


class FalsyError(Exception):
    def __bool__(self) -> bool:
        return False


def test_a_falsy_exception_comes_back_as_itself(wrapped: bool) -> None:
    async def tool(ctx: ToolCallHookContext) -> str:
        raise FalsyError("no")

    with pytest.raises(FalsyError):
        asyncio.run(hooked(tool))


def test_a_cancelled_error_the_call_raises_propagates(wrapped: bool) -> None:
    async def tool(ctx: ToolCallHookContext) -> str:
        raise asyncio.CancelledError("sibling failed")

    async def main() -> None:
        with pytest.raises(asyncio.CancelledError) as raised:
            await hooked(tool)
        assert raised.value.args == ("sibling failed",)

    asyncio.run(asyncio.wait_for(main(), 10))


def test_the_tool_body_sees_the_call_sites_decision(wrapped: bool) -> None:
    pres: list[str] = []
    on(InterceptionPoint.PRE_TOOL_CALL)(lambda ctx: pres.append(ctx.tool_name))
    answers: list[bool] = []

    async def tool(ctx: ToolCallHookContext) -> str:
        answers.append(body_must_decide("archive", body_layer("bridge")))
        return "ok"

    asyncio.run(hooked(tool))
    assert answers == [False] and pres == ["archive"]


def test_the_loop_keeps_serving_while_a_plain_hook_waits() -> None:
    def slow(ctx: ToolCallHookContext, call_next: Any) -> Any:
        time.sleep(0.3)
        return call_next(ctx)

    register_hook(W, slow)
    ticks: list[float] = []

    async def ticker() -> None:
        for _ in range(5):
            ticks.append(time.perf_counter())
            await asyncio.sleep(0.02)

    async def tool(ctx: ToolCallHookContext) -> str:
        return "ok"

    async def main() -> None:
        await asyncio.gather(hooked(tool), ticker())

    asyncio.run(main())
    assert len(ticks) == 5 and ticks[-1] - ticks[0] < 0.3


def retrying_once_on(kind: type[BaseException]) -> Any:
    """A plain wrap hook that makes the call once more when it raises `kind`."""

    def retry(ctx: ToolCallHookContext, call_next: Any) -> Any:
        try:
            return call_next(ctx)
        except kind:
            return call_next(ctx)

    return retry


def test_a_hook_that_retries_calls_the_real_call_again_in_the_callers_task() -> None:
    attempts: list[int] = []
    register_hook(W, retrying_once_on(RuntimeError))

    async def flaky(ctx: ToolCallHookContext) -> str:
        attempts.append(1)
        if len(attempts) == 1:
            raise RuntimeError("first attempt fails")
        return "second attempt"

    assert asyncio.run(hooked(flaky)) == "second attempt"
    assert len(attempts) == 2


def test_a_failure_after_a_cancel_the_call_took_back_still_reaches_the_hook() -> None:
    """A cancel scope inside the call (anyio's, httpx's: the call cancels its own task and takes the
    cancel back) is no cancel of the caller: a later, ordinary failure goes to the wrap hook, which
    retries, on every Python (3.10 has no ``Task.cancelling``, so the bridge tells the two apart by
    whether the failure was raised while handling that cancel)."""
    attempts: list[int] = []
    register_hook(W, retrying_once_on(ConnectionError))

    async def behind_a_cancel_scope(ctx: ToolCallHookContext) -> str:
        attempts.append(1)
        if len(attempts) == 1:
            own = asyncio.current_task()
            assert own is not None
            own.cancel()  # the scope's deadline passed: it cancels its own task ...
            try:
                await asyncio.sleep(1)
            except asyncio.CancelledError:
                if sys.version_info >= (3, 11):
                    own.uncancel()  # ... and takes the cancel back at its exit
            raise ConnectionError("provider down")
        return "second attempt"

    assert asyncio.run(asyncio.wait_for(hooked(behind_a_cancel_scope), 10)) == "second attempt"
    assert len(attempts) == 2


@pytest.mark.parametrize("denied", [False, True])
def test_a_refused_tool_never_runs_behind_a_plain_wrap_hook(denied: bool) -> None:
    """The bridge path of a refusal: PRE_TOOL_CALL runs on the worker, before any wrap hook, so a
    refused call never reaches the real call in the caller's task; the twin without the deny shows
    the path does reach the tool."""
    runs: list[str] = []
    register_hook(W, passthrough)
    if denied:
        register_hook(InterceptionPoint.PRE_TOOL_CALL, lambda ctx: False)

    async def archive(ctx: ToolCallHookContext) -> str:
        runs.append(ctx.tool_name)
        return "archived"

    result = asyncio.run(asyncio.wait_for(hooked(archive), 10))
    assert runs == ([] if denied else ["archive"])
    assert (result == "archived") is not denied


def test_a_hook_that_calls_again_after_the_cancel_is_refused_and_leaves_nothing_pending() -> None:
    attempts: list[str] = []

    def stubborn(ctx: ToolCallHookContext, call_next: Any) -> Any:
        try:
            return call_next(ctx)
        except BaseException:
            return call_next(ctx)  # a retry after the cancel: refused, never run

    register_hook(W, stubborn)

    async def tool(ctx: ToolCallHookContext) -> str:
        attempts.append("ran")
        await asyncio.sleep(30)
        return "finished"

    async def main() -> None:
        before = asyncio.all_tasks()
        task = asyncio.ensure_future(hooked(tool))
        await asyncio.sleep(0.2)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 10)
        await asyncio.sleep(0.2)
        assert asyncio.all_tasks() - before == set()

    asyncio.run(main())
    assert attempts == ["ran"]


def _filtered_passthrough(ctx: ToolCallHookContext, call_next: Any) -> Any:
    return call_next(ctx)


async def _async_passthrough(ctx: ToolCallHookContext, call_next: Any) -> Any:
    return await call_next(ctx)


@pytest.mark.parametrize("hook", ["none", "plain def", "def with a filter", "async def"])
def test_an_awaitable_the_call_returns_passes_through_unawaited(hook: str) -> None:
    """A tool whose result is itself an awaitable keeps it: no wrap hook's chain awaits it
    (the Agents SDK's ``test_sync_function_preserves_awaitable_result``)."""
    if hook == "plain def":
        register_hook(W, passthrough)
    elif hook == "def with a filter":
        register_hook(W, _filtered_passthrough, tools=["archive"])
    elif hook == "async def":
        register_hook(W, _async_passthrough)

    async def twelve() -> int:
        return 12

    async def main() -> None:
        awaitable = twelve()

        async def tool(ctx: ToolCallHookContext) -> Any:
            return awaitable

        returned = await hooked(tool)
        assert returned is awaitable
        assert await returned == 12

    asyncio.run(asyncio.wait_for(main(), 10))


class LateFailure(BaseException):
    """A tool's own fatal error, raised while it winds down after a cancel."""


async def fail_when_cancelled(cancelled: asyncio.Event, ticks: int, error: BaseException) -> NoReturn:
    """A tool's endless wait that, once cancelled, takes `ticks` loop steps to wind down and then
    fails with `error` (the Agents SDK's late fatal sibling; tests/adapters/openai_agents uses it too)."""
    try:
        await asyncio.Future()
    except asyncio.CancelledError as cancel:
        cancelled.set()
        for _ in range(ticks):
            await asyncio.sleep(0)
        raise error from cancel
    raise AssertionError("unreachable")


@pytest.mark.parametrize("ticks", [1, 20])
@pytest.mark.parametrize("hook", ["none", "plain def"])
def test_a_failure_the_call_raises_after_a_cancel_ends_the_task_at_once(hook: str, ticks: int) -> None:
    """A cancelled call that raises its own error while winding down ends the caller's task as
    soon as it raises, whatever the hooks still do on their worker: the framework waiting for its
    cancelled siblings (the Agents SDK only waits while they make progress on the loop) sees that
    error, not a task waiting for a thread."""
    lingering = threading.Event()

    def lingers(ctx: ToolCallHookContext, call_next: Any) -> Any:
        try:
            return call_next(ctx)
        finally:
            lingering.wait(10)  # the hook's own work after the call, on the worker

    if hook == "plain def":
        register_hook(W, lingers)
    cancelled = asyncio.Event()

    async def tool(ctx: ToolCallHookContext) -> str:
        await fail_when_cancelled(cancelled, ticks, LateFailure(f"late-{ticks}"))

    async def main() -> None:
        task = asyncio.ensure_future(hooked(tool))
        await asyncio.sleep(0.2)
        task.cancel()
        for _ in range(ticks + 10):
            if task.done():
                break
            await asyncio.sleep(0)
        ended_at_once = task.done()
        lingering.set()
        assert cancelled.is_set()
        assert ended_at_once  # on 3.10 too, which has no Task.cancelling (the bridge watches for the cancel)
        with pytest.raises(LateFailure, match=f"late-{ticks}"):
            await asyncio.wait_for(task, 5)

    asyncio.run(asyncio.wait_for(main(), 10))


def test_a_cancel_while_the_hooks_finish_lands_at_the_callers_next_await() -> None:
    """A cancel that comes after the real call returned, while a plain hook still works on the
    worker, waits for the hooks, hands the answer back and then cancels the caller at its next
    await, with its message: with the hooks on the loop no cancel could come in between, and a
    framework that keeps a call's outcome once it returned (the Agents SDK's tool outputs) keeps it."""
    finishing, finished = threading.Event(), threading.Event()

    def lingers(ctx: ToolCallHookContext, call_next: Any) -> Any:
        answer = call_next(ctx)
        finishing.set()
        time.sleep(0.2)  # the hook's own work after the call
        finished.set()
        return answer

    register_hook(W, lingers)
    after: list[Any] = []

    async def tool(ctx: ToolCallHookContext) -> str:
        return "done"

    async def caller() -> None:
        after.append(await hooked(tool))
        await asyncio.sleep(30)
        after.append("not cancelled")

    async def main() -> None:
        before = asyncio.all_tasks()
        task = asyncio.ensure_future(caller())
        while not finishing.is_set():
            await asyncio.sleep(0.001)
        task.cancel("run stopped")
        with pytest.raises(asyncio.CancelledError) as raised:
            await asyncio.wait_for(task, 10)
        assert raised.value.args == (("run stopped",) if CANCEL_MESSAGE_REACHES_THE_AWAITER else ())
        assert asyncio.all_tasks() - before == set()

    asyncio.run(main())
    assert finished.is_set() and after == ["done"]


def test_a_retry_after_a_cancel_while_the_hooks_finish_is_refused() -> None:
    attempts: list[str] = []
    finishing = threading.Event()

    def retries_slowly(ctx: ToolCallHookContext, call_next: Any) -> Any:
        call_next(ctx)
        finishing.set()
        time.sleep(0.2)  # a back-off before the retry
        return call_next(ctx)

    register_hook(W, retries_slowly)

    async def tool(ctx: ToolCallHookContext) -> str:
        attempts.append("ran")
        return "done"

    async def main() -> None:
        task = asyncio.ensure_future(hooked(tool))
        while not finishing.is_set():
            await asyncio.sleep(0.001)
        task.cancel("run stopped")
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 10)

    asyncio.run(main())
    assert attempts == ["ran"]


def test_a_second_cancel_while_the_hooks_finish_ends_the_caller_at_once() -> None:
    finishing, release = threading.Event(), threading.Event()

    def lingers(ctx: ToolCallHookContext, call_next: Any) -> Any:
        answer = call_next(ctx)
        finishing.set()
        release.wait(10)
        return answer

    register_hook(W, lingers)

    async def tool(ctx: ToolCallHookContext) -> str:
        return "done"

    async def main() -> None:
        task = asyncio.ensure_future(hooked(tool))
        while not finishing.is_set():
            await asyncio.sleep(0.001)
        task.cancel()
        await asyncio.sleep(0.05)
        assert not task.done()  # the first cancel waits for the hooks
        task.cancel()
        await asyncio.sleep(0.05)
        ended_at_once = task.done()
        release.set()
        assert ended_at_once and task.cancelled()

    asyncio.run(asyncio.wait_for(main(), 10))
