"""What the second line of defence costs a tool call: the body's check, measured against the bare body.

    python benchmarks/body_guard.py [--quick]

Every adapter wraps a tool's own body with the same check (`hookport.decisions.body_must_decide`).
Four cases, timed in interleaved rounds in one process (medians of per-round figures):

- idle: no hook registered; the body asks and runs (the issue's budget: <= 2 µs added per call);
- under a call site: a PRE_TOOL_CALL hook, the call decided by `tool_call` at the call site; the
  body claims that decision and stays silent (what the body adds to an ordinary hooked call);
- alone: a PRE_TOOL_CALL hook and no call site (a path nobody patched); the body dispatches itself;
- the call site alone, with the same hook, for comparison with "alone".
"""

from __future__ import annotations

import argparse
import statistics
import timeit
from collections.abc import Callable
from typing import Any

from hookport import InterceptionPoint, ToolCallHookContext, clear_all_hooks, register_hook
from hookport.calls import ToolShape, tool_call
from hookport.decisions import body_layer, body_must_decide

LAYER = body_layer("bench")
SHAPE: ToolShape[Any] = ToolShape()


def body(note: str) -> str:
    return note


def guarded_body(note: str) -> str:
    """A tool body behind the second line of defence, as adapters wrap it."""
    if body_must_decide("archive", LAYER):
        return tool_call(ToolCallHookContext("archive", {"note": note}, framework="bench"),
                         lambda c: body(**c.tool_input), SHAPE, layer=LAYER)
    return body(note)


def call_site(run: Callable[[str], str]) -> Callable[[], str]:
    def site() -> str:
        return tool_call(ToolCallHookContext("archive", {"note": "x"}, framework="bench"),
                         lambda c: run(**c.tool_input), SHAPE)

    return site


def per_call_us(fn: Callable[[], Any], number: int) -> float:
    return min(timeit.repeat(fn, number=number, repeat=3)) / number * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
    options = parser.parse_args()
    rounds, number = (3, 20_000) if options.quick else (15, 100_000)

    def noop(ctx: ToolCallHookContext) -> None:
        return None

    idle: list[tuple[float, float]] = []
    hooked: dict[str, list[float]] = {"site": [], "site+body": [], "body alone": []}
    for _ in range(rounds):
        clear_all_hooks()
        idle.append((per_call_us(lambda: body("x"), number), per_call_us(lambda: guarded_body("x"), number)))
        register_hook(InterceptionPoint.PRE_TOOL_CALL, noop)
        hooked["site"].append(per_call_us(call_site(body), number // 10))
        hooked["site+body"].append(per_call_us(call_site(guarded_body), number // 10))
        hooked["body alone"].append(per_call_us(lambda: guarded_body("x"), number // 10))
    clear_all_hooks()

    bare = statistics.median(b for b, _ in idle)
    added = statistics.median(g - b for b, g in idle)
    print(f"idle (no hook): bare body {bare:.3f} µs, guarded {bare + added:.3f} µs, added {added:.3f} µs per call")
    site = statistics.median(hooked["site"])
    for name, values in hooked.items():
        value = statistics.median(values)
        print(f"one no-op PRE hook, {name:>10}: {value:6.2f} µs per call ({value - site:+.2f} µs against the call site alone)")


if __name__ == "__main__":
    main()
