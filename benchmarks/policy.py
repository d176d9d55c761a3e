"""What a policy file costs a tool call: µs per PRE_TOOL_CALL decision, and ratios in one run.

    python benchmarks/policy.py [--quick]

Cases, timed in interleaved rounds in one process (medians of per-round figures), each the
time of ``dispatch(PRE_TOOL_CALL, ctx)`` for one call inside a run:

- engine: one no-op hook (what any hook costs; the ratios' baseline);
- names-as-hooks: 20 name-only deny rules registered as 20 filtered hooks (how policies compiled
  before the gate: each hook normalised the tool's name again);
- names: the same 20 rules as a policy file (one gate, the name normalised once, rules by tool);
- no match: the 20-rule file with conditions and a flow rule, a call of a tool no rule names
  (budget: <= 2 µs);
- match: the same file, a call one conditional deny and the flow rule apply to: the condition is
  evaluated and does not hold, the flow is checked (budget: <= 10 µs);
- match, 2 conditions: a call two conditional rules and the flow apply to, one of the conditions
  reading a 2 kB argument (converting a long string for the evaluator is most of its cost);
- one CEL evaluation through each evaluator, common-expression-language and cel-python.
"""

from __future__ import annotations

import argparse
import statistics
import time
import timeit
from collections.abc import Callable
from typing import Any

from hookport import HookAborted, InterceptionPoint, ToolCallHookContext, clear_all_hooks, dispatch, register_hook
from hookport.policy import parse_policy
from hookport.runs import bind_run

P = InterceptionPoint
OTHER_TOOLS = [f"tool_{n:02d}" for n in range(16)]

NAMES_ONLY = "".join(f'[[deny]]\ntools = ["{tool}"]\nreason = "no"\n\n' for tool in [*OTHER_TOOLS, "a", "b", "c", "d"])

CONDITIONS = (
    "".join(
        f'[[deny]]\ntools = ["{tool}"]\nwhen = \'args.path.startsWith("/etc")\'\n\n' for tool in OTHER_TOOLS[:14]
    )
    + """
[[deny]]
tools = ["send_email", "post_message"]
when = '!args.to.endsWith("@example.com")'
reason = "mail leaves the company"

[[warn]]
tools = ["post_message"]
when = 'size(args.to) > 60 || args.body.contains("password")'

[[warn]]
tools = ["pay_invoice"]
when = "args.amount > 1000"

[[rewrite]]
tools = ["http_get"]
remove_args = ["cookie"]

[[deny]]
tools = ["shell"]
reason = "no shell"

[[flow]]
after = ["read_secrets", "fetch_url"]
deny = ["send_email", "post_message", "http_post"]
reason = "private data and untrusted content must not leave the run"
"""
)


def per_call_us(fn: Callable[[], Any], number: int) -> float:
    """CPU time of this thread per call: the machine is shared, and waiting for a core is not our cost."""
    return min(timeit.repeat(fn, number=number, repeat=3, timer=time.thread_time)) / number * 1e6


def decide(tool: str, args: dict[str, Any]) -> Callable[[], Any]:
    ctx = ToolCallHookContext(tool, args, framework="bench")

    def one() -> Any:
        return dispatch(P.PRE_TOOL_CALL, ctx)

    return one


def cel_us(module: str, number: int) -> float:
    """One evaluation of a typical condition through one evaluator, its context converted."""
    if module == "cel":
        import cel

        program = cel.compile('!args.to.endsWith("@example.com")')
        return per_call_us(lambda: program.execute({"args": {"to": "a@example.com"}}), number)
    import logging

    logging.getLogger("celpy").setLevel(logging.ERROR)
    import celpy

    environment = celpy.Environment()
    runner = environment.program(environment.compile('!args.to.endsWith("@example.com")'))
    return per_call_us(lambda: runner.evaluate({"args": celpy.json_to_cel({"to": "a@example.com"})}), number)


def noop(ctx: Any) -> None:
    return None


def refuse(ctx: Any) -> None:
    raise HookAborted("no", source="bench")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
    options = parser.parse_args()
    rounds, number = (3, 5_000) if options.quick else (11, 30_000)

    conditions = parse_policy(CONDITIONS, "bench.toml")
    names = parse_policy(NAMES_ONLY, "names.toml")
    rules = len(conditions.rules())
    figures: dict[str, list[float]] = {"engine": [], "names-as-hooks": [], "names": [], "no match": [], "match": [], "match, 2 conditions": []}
    with bind_run("bench-run"):
        for _ in range(rounds):
            clear_all_hooks()
            register_hook(P.PRE_TOOL_CALL, noop)
            figures["engine"].append(per_call_us(decide("read_file", {"path": "/tmp/x"}), number))
            clear_all_hooks()
            for tool in [*OTHER_TOOLS, "a", "b", "c", "d"]:
                register_hook(P.PRE_TOOL_CALL, refuse, tools=[tool])
            figures["names-as-hooks"].append(per_call_us(decide("read_file", {"path": "/tmp/x"}), number))
            clear_all_hooks()
            names.registered = False
            names.register()
            figures["names"].append(per_call_us(decide("read_file", {"path": "/tmp/x"}), number))
            names.unregister()
            conditions.registered = False
            conditions.register()
            figures["no match"].append(per_call_us(decide("read_file", {"path": "/tmp/x"}), number))
            figures["match"].append(per_call_us(
                decide("send_email", {"to": "ana@example.com", "body": "the report " * 200}), number))
            figures["match, 2 conditions"].append(per_call_us(
                decide("post_message", {"to": "ana@example.com", "body": "the report " * 200}), number))
            conditions.unregister()
    clear_all_hooks()

    engine = statistics.median(figures["engine"])
    print(f"a {rules}-rule file with conditions and a flow rule ({len(figures['engine'])} rounds)")
    for name, values in figures.items():
        value = statistics.median(values)
        print(f"  {name:<20} {value:6.2f} µs per decision   {value / engine:5.2f} x engine")
    for module, label in (("cel", "common-expression-language"), ("celpy", "cel-python")):
        try:
            print(f"  one CEL evaluation, {label}: {cel_us(module, number // (100 if module == 'celpy' else 1)):.2f} µs")
        except ImportError:
            print(f"  one CEL evaluation, {label}: not installed")


if __name__ == "__main__":
    main()
