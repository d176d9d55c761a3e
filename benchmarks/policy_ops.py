"""What the policy's operations cost: a decision log line, and a reload's swap.

    python benchmarks/policy_ops.py [--quick]

Decisions: a refused tool call (one ``[[deny]]`` rule) dispatched with no
subscriber; with a subscriber that does nothing (the event alone); and with the
decision log on (``[audit] path`` in a temporary directory: the line, its hash,
the thread lock, ``flock`` and one ``O_APPEND`` write). Ratios are to the first,
in the same run. Reloads: `Policy.replace` of a 20-rule policy by another (the
one step in which every chain changes), and a whole reload (read, validate,
compile, swap) of the file.
"""

from __future__ import annotations

import argparse
import platform
import sys
import tempfile
import timeit
from pathlib import Path

import hookport
from hookport import HookAborted, InterceptionPoint, events
from hookport.contexts import ToolCallHookContext
from hookport.policy import load_policy
from hookport.policy.reload import PolicyWatcher

RULES = "".join(f'[[deny]]\ntools = ["tool_{n}"]\nreason = "rule {n}"\n' for n in range(19))


def refused_us(number: int, repeat: int = 5) -> float:
    ctx = ToolCallHookContext("delete_file", {"path": "notes.txt"}, framework="bench")
    point, dispatch = InterceptionPoint.PRE_TOOL_CALL, hookport.dispatch

    def once() -> None:
        try:
            dispatch(point, ctx)
        except HookAborted:
            pass

    return min(timeit.repeat(once, number=number, repeat=repeat)) / number * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer iterations (a smoke run)")
    args = parser.parse_args()
    number = 2_000 if args.quick else 20_000
    with tempfile.TemporaryDirectory() as directory:
        folder = Path(directory)
        policy = folder / "policy.toml"
        policy.write_text('[[deny]]\ntools = ["delete_file"]\nreason = "no deletes"\n')
        loaded = load_policy(policy)
        plain = refused_us(number)
        idle = events.subscribe(lambda event: None)
        subscribed = refused_us(number)
        events.unsubscribe(idle)
        loaded.unregister()
        (folder / "logged.toml").write_text(policy.read_text() + '\n[audit]\npath = "decisions.jsonl"\n')
        logged_policy = load_policy(folder / "logged.toml")
        logged = refused_us(number)
        lines = len((folder / "decisions.jsonl").read_text().splitlines())
        logged_policy.unregister()

        policy.write_text(RULES + '[[deny]]\ntools = ["delete_file"]\n')
        watcher = PolicyWatcher(policy, interval=3600)
        spares = [load_policy(policy, register=False) for _ in range(2)]
        swaps = 200 if args.quick else 2_000

        def swap() -> None:  # back and forth between two compiled copies of the file
            spares.append(watcher.policy)
            watcher.policy = watcher.policy.replace(spares.pop(0))

        swap_us = min(timeit.repeat(swap, number=swaps, repeat=3)) / swaps * 1e6
        edits = 20 if args.quick else 200
        flip = [RULES + '[[deny]]\ntools = ["delete_file"]\n', RULES + '[[deny]]\ntools = ["send_email"]\n']

        def reload() -> None:
            flip.reverse()
            policy.write_text(flip[0])
            assert watcher.check() is not None

        reload_us = min(timeit.repeat(reload, number=edits, repeat=3)) / edits * 1e6
        watcher.close()
    print(f"hookport {hookport.__version__}, Python {platform.python_version()}, {platform.machine()}")
    print("a refused tool call (one [[deny]] rule)")
    print(f"{'':<44} {'us/call':>10} {'x plain':>8}")
    for label, us in (("no subscriber", plain), ("a subscriber that does nothing", subscribed),
                      (f"decision log on ({lines} lines written)", logged)):
        print(f"{label:<44} {us:>10.2f} {us / plain:>8.1f}")
    print("a 20-rule policy")
    print(f"{'Policy.replace (the swap)':<44} {swap_us:>10.1f}")
    print(f"{'a reload: read, validate, compile, swap':<44} {reload_us:>10.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
