"""What an ``[[approval]]`` rule with a store costs a tool call, as a ratio to a deny rule's dispatch.

    python benchmarks/approvals.py [--quick]

One pre_tool_call dispatch of a call the rule covers, in the same run each time:

- baseline: a ``[[deny]]`` rule for another tool (one policy hook that lets the call by);
- an approval that lasts for the run, already granted (each call: digest, one look-up, no write),
  in the memory store and in SQLite;
- one approval per call (each call: file the request, decide it, consume it: three writes), in SQLite.

The SQLite file is in a temporary directory (the disk's speed matters: WAL, synchronous=NORMAL).
"""

from __future__ import annotations

import argparse
import platform
import sys
import tempfile
import timeit
from pathlib import Path
from typing import Any

import hookport
from hookport import InterceptionPoint, runs
from hookport.approvals import forget_stores, open_store
from hookport.approvals.waiting import call_of
from hookport.contexts import ToolCallHookContext
from hookport.policy import parse_policy
from hookport.registry import clear_all_hooks

POINT = InterceptionPoint.PRE_TOOL_CALL


def context() -> ToolCallHookContext:
    return ToolCallHookContext("send_email", {"to": "bob@example.com", "body": "hi"}, framework="bench")


def per_call_us(number: int, before: Any = None, repeat: int = 5) -> float:
    ctx = context()

    def one() -> None:
        if before is not None:
            before(ctx)
        hookport.dispatch(POINT, ctx)

    with runs.bind_run("bench-run"):
        return min(timeit.repeat(one, number=number, repeat=repeat)) / number * 1e6


def approved_for_the_run(url: str, number: int) -> float:
    clear_all_hooks()
    parse_policy(f'[[approval]]\ntools = ["send_email"]\nstore = "{url}"\nlasts = "run"\n', "bench.toml").register()
    store = open_store(url)
    with runs.bind_run("bench-run"):
        call = call_of(context(), "bench.toml:1:approval[0]", "run")
    request, _ = store.request(call.digest, tool=call.tool, arguments=call.arguments, run_id=call.run_id, lasts="run")
    store.decide(request.id, True, by="bench")
    return per_call_us(number)


def approved_per_call(url: str, number: int) -> float:
    """A person who approves each request the moment it is filed (the store's writes, no waiting)."""
    clear_all_hooks()
    parse_policy(f'[[approval]]\ntools = ["send_email"]\nstore = "{url}"\n', "bench.toml").register()
    store = open_store(url)

    def approve_ahead(ctx: Any) -> None:
        call = call_of(ctx, "bench.toml:1:approval[0]", "call")
        request, _ = store.request(call.digest, tool=call.tool, arguments=call.arguments, run_id=call.run_id)
        store.decide(request.id, True, by="bench")

    return per_call_us(number, approve_ahead)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer iterations (a smoke run)")
    number = 200 if parser.parse_args().quick else 2_000
    folder = Path(tempfile.mkdtemp(prefix="hookport-bench-"))
    parse_policy('[[deny]]\ntools = ["delete_file"]\n', "bench.toml").register()
    baseline = per_call_us(number)
    rows = [
        ("deny rule for another tool (baseline)", baseline),
        ("approval for the run, memory store", approved_for_the_run("memory://bench", number)),
        ("approval for the run, SQLite", approved_for_the_run(f"sqlite:///{folder / 'run.db'}", number)),
        ("approval per call (file, decide, consume), SQLite", approved_per_call(f"sqlite:///{folder / 'call.db'}", number // 4)),
    ]
    forget_stores()
    print(f"hookport {hookport.__version__}, Python {platform.python_version()}, {platform.machine()}")
    print("one pre_tool_call dispatch of send_email, under each rule")
    print(f"{'rule':<52} {'us/call':>10} {'x baseline':>11}")
    for label, us in rows:
        print(f"{label:<52} {us:>10.1f} {us / baseline:>11.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
