"""The shared helpers adapters use: executions, steps, re-entrancy."""

from __future__ import annotations

import asyncio

import pytest

from hookport import HookAborted, InterceptionPoint, on
from hookport.boundary import (
    ReentrancyGuard,
    arun_execution,
    current_execution,
    open_execution,
    post_step,
    pre_step,
    run_execution,
)

P = InterceptionPoint
BOUNDARY = (P.EXECUTION_START, P.INPUT, P.OUTPUT, P.EXECUTION_END)


@pytest.fixture
def trace() -> list[tuple[str, object]]:
    seen: list[tuple[str, object]] = []
    for point in BOUNDARY:
        on(point)(lambda ctx, point=point: seen.append((point.value, ctx)))
    return seen


def test_order_and_rewrites(trace: list[tuple[str, object]]) -> None:
    on(P.INPUT)(lambda ctx: {**ctx.payload, "added": True})
    on(P.OUTPUT)(lambda ctx: ctx.payload.upper())
    result = run_execution("test", lambda inputs: f"got {sorted(inputs)}", {"q": 1})
    assert result == "GOT ['ADDED', 'Q']"
    assert [p for p, _ in trace] == ["execution_start", "input", "output", "execution_end"]
    end = trace[-1][1]
    assert end.status == "completed" and end.output == "GOT ['ADDED', 'Q']"  # type: ignore[attr-defined]
    assert all(ctx.framework == "test" for _, ctx in trace)  # type: ignore[attr-defined]


def test_end_once_on_failure_and_error_propagates(trace: list[tuple[str, object]]) -> None:
    boom = KeyError("boom")

    def fail(inputs: object) -> None:
        raise boom

    with pytest.raises(KeyError) as caught:
        run_execution("test", fail, {})
    assert caught.value is boom
    assert [p for p, _ in trace] == ["execution_start", "input", "execution_end"]
    end = trace[-1][1]
    assert end.status == "failed" and end.error is boom and end.payload is None  # type: ignore[attr-defined]


def test_no_end_when_start_aborted(trace: list[tuple[str, object]]) -> None:
    on(P.EXECUTION_START)(lambda ctx: (_ for _ in ()).throw(HookAborted("no")))
    with pytest.raises(HookAborted):
        run_execution("test", lambda inputs: "never", {})
    assert [p for p, _ in trace] == ["execution_start"]
    assert current_execution() is None


def test_end_abort_on_failure_path_is_ignored() -> None:
    on(P.EXECUTION_END)(lambda ctx: (_ for _ in ()).throw(HookAborted("from end")))
    with pytest.raises(RuntimeError, match="original"):
        run_execution("test", lambda inputs: (_ for _ in ()).throw(RuntimeError("original")), {})


def test_output_abort_gives_one_failed_end(trace: list[tuple[str, object]]) -> None:
    on(P.OUTPUT)(lambda ctx: (_ for _ in ()).throw(HookAborted("bad output")))
    with pytest.raises(HookAborted, match="bad output"):
        run_execution("test", lambda inputs: "x", {})
    assert [p for p, _ in trace] == ["execution_start", "input", "output", "execution_end"]
    assert trace[-1][1].status == "failed"  # type: ignore[attr-defined]


def test_end_abort_on_success_propagates_without_second_end(trace: list[tuple[str, object]]) -> None:
    on(P.EXECUTION_END)(lambda ctx: (_ for _ in ()).throw(HookAborted("end says no")))
    with pytest.raises(HookAborted, match="end says no"):
        run_execution("test", lambda inputs: "x", {})
    assert [p for p, _ in trace].count("execution_end") == 1


def test_only_the_outermost_run_dispatches(trace: list[tuple[str, object]]) -> None:
    def outer(inputs: object) -> object:
        assert open_execution("test") is None
        return run_execution("test", lambda i: "inner", {"nested": True})

    assert run_execution("test", outer, {}) == "inner"
    assert [p for p, _ in trace] == ["execution_start", "input", "output", "execution_end"]
    assert current_execution() is None


def test_async_execution(trace: list[tuple[str, object]]) -> None:
    async def call(inputs: object) -> str:
        await asyncio.sleep(0)
        return "done"

    assert asyncio.run(arun_execution("test", call, {})) == "done"
    assert [p for p, _ in trace] == ["execution_start", "input", "output", "execution_end"]


def test_concurrent_async_runs_are_each_outermost(trace: list[tuple[str, object]]) -> None:
    async def call(inputs: object) -> str:
        await asyncio.sleep(0.01)
        return "done"

    async def main() -> None:
        await asyncio.gather(*(arun_execution("test", call, {}) for _ in range(3)))

    asyncio.run(main())
    assert [p for p, _ in trace].count("execution_start") == 3
    assert [p for p, _ in trace].count("execution_end") == 3


def test_steps_rewrite_and_skip_when_idle() -> None:
    marker = object()
    assert pre_step("test", "node", "agent", marker) is marker
    seen: list[object] = []
    on(P.PRE_STEP)(lambda ctx: seen.append((ctx.kind, ctx.step_name)) or "rewritten")
    on(P.POST_STEP)(lambda ctx: f"{ctx.output}!")
    assert pre_step("test", "node", "agent", "input") == "rewritten"
    assert post_step("test", "node", "agent", "out") == "out!"
    assert seen == [("node", "agent")]


def test_reentrancy_guard() -> None:
    guard = ReentrancyGuard("model")
    assert not guard.held("m1")
    with guard.hold("m1"):
        assert guard.held("m1") and not guard.held("m2") and guard.any_held()
    assert not guard.held("m1") and not guard.any_held()
