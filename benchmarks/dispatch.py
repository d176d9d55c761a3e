"""The cost of a dispatch, per point, against a bare Python call measured in the same run.

    python benchmarks/dispatch.py [--quick]

For every catalog point: dispatch with 0, 1 and 5 no-op hooks, without and with
an event subscriber, in microseconds and as a ratio to calling a no-op Python
function. If crewai or praisonaiagents is installed, their native dispatch of
the same hooks is measured alongside. Goals (from the engine issue): the empty
fast path within 2.5x of a bare call; one no-op hook within 6x; at least 10x
faster than crewai's native dispatch of one hook.

The headline figures come from interleaved rounds (bare call, empty dispatch,
one hook, and the floor a chain cannot go below: the one `ContextVar` write of
the re-entrancy flag around a bare call), as medians of per-round ratios.
"""

from __future__ import annotations

import argparse
import contextvars
import os
import platform
import statistics
import sys
import timeit
from collections.abc import Callable
from typing import Any

os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")
os.environ.setdefault("CREWAI_DISABLE_VERSION_CHECK", "true")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")

import hookport  # noqa: E402
from hookport import InterceptionPoint, events  # noqa: E402
from hookport.contexts import (  # noqa: E402
    ExecutionEndContext,
    ExecutionStartContext,
    InputContext,
    LLMCallHookContext,
    OutputContext,
    StepContext,
    ToolCallHookContext,
)

P = InterceptionPoint


def context_for(point: InterceptionPoint) -> Any:
    if point in (P.PRE_MODEL_CALL, P.POST_MODEL_CALL):
        return LLMCallHookContext([{"role": "user", "content": "hi"}], response="ok" if point is P.POST_MODEL_CALL else None)
    if point in (P.PRE_TOOL_CALL, P.POST_TOOL_CALL):
        return ToolCallHookContext("add_numbers", {"a": 1}, tool_result="2" if point is P.POST_TOOL_CALL else None)
    if point in (P.PRE_STEP, P.POST_STEP):
        return StepContext("step input", kind="task", step_name="t")
    return {P.EXECUTION_START: ExecutionStartContext, P.INPUT: InputContext, P.OUTPUT: OutputContext,
            P.EXECUTION_END: ExecutionEndContext}[point]({"q": 1})


def noop_hook(ctx: Any) -> None:
    return None


def per_call_us(fn: Callable[[], Any], number: int, repeat: int = 5) -> float:
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def bare_call_us(number: int) -> float:
    ctx = context_for(P.PRE_TOOL_CALL)
    return per_call_us(lambda: noop_hook(ctx), number)


def hookport_us(point: InterceptionPoint, hooks: int, subscriber: bool, number: int) -> float:
    hookport.clear_all_hooks()
    events.subscribers = ()
    for _ in range(hooks):
        hookport.register_hook(point, lambda ctx: None)
    if subscriber:
        events.subscribe(lambda event: None)
    ctx = context_for(point)
    dispatch = hookport.dispatch
    try:
        return per_call_us(lambda: dispatch(point, ctx), number)
    finally:
        hookport.clear_all_hooks()
        events.subscribers = ()


def _context_write(ctx: Any) -> None:
    """The floor of a chain: the one context write the re-entrancy flag needs, around the hook."""
    flag = [True]
    _FLOOR_VAR.set(flag)
    try:
        noop_hook(ctx)
    finally:
        flag[0] = False


_FLOOR_VAR: contextvars.ContextVar[list[bool]] = contextvars.ContextVar("floor", default=[False])


def headline(rounds: int, number: int) -> dict[str, float]:
    """Interleaved rounds (bare call, empty dispatch, one no-op hook, the context-write floor).

    Medians of per-round ratios to the bare call of the same round, so a slow
    spell of the machine moves numerator and denominator alike.
    """
    point = P.PRE_TOOL_CALL
    ctx = context_for(point)
    dispatch = hookport.dispatch
    hookport.clear_all_hooks()
    events.subscribers = ()
    samples: dict[str, list[float]] = {"bare": [], "empty": [], "one hook": [], "context write": []}
    for _ in range(rounds):
        samples["bare"].append(per_call_us(lambda: noop_hook(ctx), number, repeat=3))
        samples["empty"].append(per_call_us(lambda: dispatch(point, ctx), number, repeat=3))
        samples["context write"].append(per_call_us(lambda: _context_write(ctx), number, repeat=3))
        hookport.register_hook(point, noop_hook)
        samples["one hook"].append(per_call_us(lambda: dispatch(point, ctx), number, repeat=3))
        hookport.clear_all_hooks()
    bare = samples["bare"]
    return {name: statistics.median(s / b for s, b in zip(values, bare)) for name, values in samples.items()
            if name != "bare"} | {"bare_ns": statistics.median(bare) * 1000}


def crewai_us(point_value: str, hooks: int, number: int) -> float | None:
    try:
        import crewai.hooks as ch
        from crewai.hooks import dispatch as crew_dispatch
    except Exception:
        return None
    from crewai.hooks.contexts import InputContext as CrewInput
    from crewai.hooks.dispatch import InterceptionPoint as CrewPoint

    point = CrewPoint(point_value)
    ch.clear_all_hooks()
    for _ in range(hooks):
        ch.register_hook(point, lambda ctx: None)
    ctx = CrewInput(payload={"q": 1}, inputs={"q": 1})
    try:
        return per_call_us(lambda: crew_dispatch(point, ctx), number)
    finally:
        ch.clear_all_hooks()


def praisonai_us(hooks: int, number: int) -> float | None:
    try:
        from praisonaiagents.hooks import BeforeToolInput, HookEvent, HookRegistry, HookRunner
    except Exception:
        return None
    registry = HookRegistry()
    for _ in range(hooks):
        registry.register_function(HookEvent.BEFORE_TOOL, lambda data: None)
    runner = HookRunner(registry)
    data = BeforeToolInput(session_id="s", cwd=".", event_name="before_tool", timestamp="0", tool_name="t")
    return per_call_us(lambda: runner.execute_sync(HookEvent.BEFORE_TOOL, data, target="t"), number)


async def _anoop() -> None:
    return None


async def _async_noop_hook(ctx: Any) -> None:
    return None


def _loop_us(make_awaitable: Callable[[], Any], number: int) -> float:
    """Per-await cost of `make_awaitable()` inside one running event loop (best of 5)."""
    import asyncio

    async def body() -> float:
        import time

        best = float("inf")
        for _ in range(5):
            started = time.perf_counter()
            for _ in range(number):
                await make_awaitable()
            best = min(best, time.perf_counter() - started)
        return best / number * 1e6

    return asyncio.run(body())


def async_rows(number: int) -> None:
    """adispatch's fast path against a bare await, and async hooks against a sync one."""
    point = P.PRE_TOOL_CALL
    ctx = context_for(point)
    hookport.clear_all_hooks()
    bare_await = _loop_us(_anoop, number)
    empty = _loop_us(lambda: hookport.adispatch(point, ctx), number)
    hookport.register_hook(point, noop_hook)
    sync_hook_sync_path = per_call_us(lambda: hookport.dispatch(point, ctx), number)
    sync_hook_async_path = _loop_us(lambda: hookport.adispatch(point, ctx), number)
    hookport.clear_all_hooks()
    hookport.register_hook(point, _async_noop_hook)
    async_hook_async_path = _loop_us(lambda: hookport.adispatch(point, ctx), number)
    async_hook_sync_path = per_call_us(lambda: hookport.dispatch(point, ctx), max(number // 50, 500))
    hookport.clear_all_hooks()
    print(f"\nasync: a bare `await noop()` = {bare_await * 1000:.1f} ns")
    print(f"adispatch, no hook (fast path): {empty:.3f} us = {empty / bare_await:.2f}x a bare await (goal <= 3x)")
    print(f"one sync no-op hook: dispatch {sync_hook_sync_path:.3f} us, adispatch {sync_hook_async_path:.3f} us")
    print(f"one async no-op hook on an async path: {async_hook_async_path:.3f} us = "
          f"{async_hook_async_path / sync_hook_sync_path:.1f}x a sync no-op hook")
    print(f"one async no-op hook on a sync path (private loop thread): {async_hook_sync_path:.1f} us = "
          f"{async_hook_sync_path / sync_hook_sync_path:.0f}x a sync no-op hook")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer iterations (a smoke run)")
    args = parser.parse_args()
    number = 20_000 if args.quick else 200_000
    for point in InterceptionPoint:  # warm up: the first dispatches of a process run about 2x slower
        hookport_us(point, 1, False, number // 4)
    bare = bare_call_us(number)
    print(f"hookport {hookport.__version__}, Python {platform.python_version()}, {platform.machine()}")
    print(f"baseline: a bare no-op Python call = {bare * 1000:.1f} ns\n")
    header = f"{'point':<16} {'hooks':>5} {'subscriber':>10} {'us/dispatch':>12} {'x bare call':>12}"
    print(header)
    print("-" * len(header))
    for point in InterceptionPoint:
        for hooks in (0, 1, 5):
            for subscriber in (False, True):
                if hooks == 0 and subscriber:
                    continue
                us = hookport_us(point, hooks, subscriber, number)
                print(f"{point.value:<16} {hooks:>5} {'yes' if subscriber else 'no':>10} {us:>12.3f} {us / bare:>12.1f}")
    print()
    rounds = headline(7 if args.quick else 21, number // 10)
    print(f"headline, interleaved rounds (medians of per-round ratios to a bare call of {rounds['bare_ns']:.1f} ns; "
          f"the table above is one pass and moves with the machine):")
    print(f"  empty fast path: {rounds['empty']:.2f}x a bare call (goal <= 2.5x)")
    print(f"  one no-op hook:  {rounds['one hook']:.2f}x a bare call (goal <= 6x)")
    print(f"  the floor of a chain, the re-entrancy flag's one context write around a bare call: "
          f"{rounds['context write']:.2f}x")
    async_rows(number // 4)

    native_number = max(number // 20, 2_000)
    crew = [crewai_us("input", n, native_number) for n in (0, 1, 5)]
    if crew[0] is not None:
        import importlib.metadata as md

        print(f"\ncrewai {md.version('crewai')} native dispatch (point input), side by side:")
        print(f"{'hooks':>5} {'crewai us':>10} {'hookport us':>12} {'speed-up':>9}")
        for n, crew_us in zip((0, 1, 5), crew):
            ours = hookport_us(P.INPUT, n, False, number)
            print(f"{n:>5} {crew_us:>10.3f} {ours:>12.3f} {crew_us / ours:>8.1f}x")  # type: ignore[operator]
    else:
        print("\ncrewai not installed: native comparison skipped (run in a crewai env to see it)")
    prai = [praisonai_us(n, native_number) for n in (0, 1, 5)]
    if prai[0] is not None:
        import importlib.metadata as md

        print(f"\npraisonaiagents {md.version('praisonaiagents')} HookRunner.execute_sync (before_tool), side by side:")
        print(f"{'hooks':>5} {'praisonai us':>13} {'hookport us':>12} {'speed-up':>9}")
        for n, their in zip((0, 1, 5), prai):
            ours = hookport_us(P.PRE_TOOL_CALL, n, False, number)
            print(f"{n:>5} {their:>13.3f} {ours:>12.3f} {their / ours:>8.1f}x")  # type: ignore[operator]
    else:
        print("praisonaiagents not installed: native comparison skipped")


if __name__ == "__main__":
    sys.exit(main())
