"""What carrying the guard costs a worker's start-up, as a ratio to the same worker without it.

    python benchmarks/fleet.py [--rounds N]

A worker here is a fresh Python that does what an agent worker does first (imports
langchain_core and langgraph) and exits. Three configurations, interleaved round by
round (each takes the first place in turn), median wall time of each:

- **bare**: no hookport variable;
- **autostart only**: ``HOOKPORT_AUTOSTART=1`` and nothing to start (the ``.pth`` look-up);
- **propagated**: the variables `hookport.propagate()` writes for the fleet examples'
  guard (examples/fleet: the langchain adapter, a deny and a redaction rule, one hook module),
  so the worker installs the adapter, imports the module and loads the policy before
  its own code, and checks that the driver's hooks are all there.

Also `propagate()` itself, in the driver (median of repeated calls), and a
``multiprocessing`` spawn pool's first result, bare and propagated. Needs the
``langchain`` extra.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
POLICY = ROOT / "examples" / "fleet" / "policy.toml"
WORKER = "import langchain_core.tools, langgraph.graph"
POOL = (
    "import multiprocessing, sys, time\n"
    "sys.path.insert(0, {root!r})\n"
    "{setup}\n"
    "from tests.fleet.programs.pool_work import nothing\n"
    "start = time.perf_counter()\n"
    "with multiprocessing.get_context('spawn').Pool(1) as pool:\n"
    "    pool.apply(nothing)\n"
    "print(time.perf_counter() - start)\n"
)
SETUP = (
    "sys.path.append({examples!r}); import hookport; from hookport import adapters; adapters.install('langchain'); "
    "hookport.load_policy({policy!r}); import guards; hookport.propagate()"
)


def clean() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("HOOKPORT_")}


def propagated_environment() -> dict[str, str]:
    """The variables propagate() writes, read from a driver that set its guard up in code."""
    code = f"import json, os, sys; sys.path.insert(0, {str(ROOT)!r}); {SETUP.format(policy=str(POLICY), examples=str(POLICY.parent))}; " \
        "print(json.dumps({k: v for k, v in os.environ.items() if k.startswith('HOOKPORT_') or k == 'PYTHONPATH'}))"
    import json

    done = subprocess.run([sys.executable, "-c", code], env=clean(), capture_output=True, text=True, check=True, cwd=ROOT)
    return {**clean(), **json.loads(done.stdout.strip().splitlines()[-1])}


def wall(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def reported(command: list[str], env: dict[str, str]) -> float:
    done = subprocess.run(command, env=env, check=True, cwd=ROOT, capture_output=True, text=True)
    return float(done.stdout.strip().splitlines()[-1])


def interleaved(configs: dict[str, object], rounds: int) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in configs}
    names = list(configs)
    for index in range(rounds):
        order = names[index % len(names):] + names[: index % len(names)]
        for name in order:
            times[name].append(configs[name]())  # type: ignore[operator]
    return {name: statistics.median(values) for name, values in times.items()}


def propagate_cost() -> float:
    code = (
        f"import sys, time, statistics; sys.path.insert(0, {str(ROOT)!r}); {SETUP.format(policy=str(POLICY), examples=str(POLICY.parent))}\n"
        "samples = []\n"
        "for _ in range(50):\n"
        "    start = time.perf_counter(); hookport.propagate(); samples.append(time.perf_counter() - start)\n"
        "print(statistics.median(samples))\n"
    )
    return reported([sys.executable, "-c", code], clean())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    guard = propagated_environment()
    autostart = {**clean(), "HOOKPORT_AUTOSTART": "1"}
    worker = [sys.executable, "-c", WORKER]
    start_up = interleaved(
        {
            "bare": lambda: wall(worker, clean()),
            "autostart only": lambda: wall(worker, autostart),
            "propagated": lambda: wall(worker, guard),
        },
        args.rounds,
    )
    pool_bare = [sys.executable, "-c", POOL.format(root=str(ROOT), setup="")]
    pool_guarded = [sys.executable, "-c", POOL.format(root=str(ROOT), setup=SETUP.format(policy=str(POLICY), examples=str(POLICY.parent)))]
    pool = interleaved(
        {"bare": lambda: reported(pool_bare, clean()), "propagated": lambda: reported(pool_guarded, clean())},
        max(3, args.rounds // 3),
    )
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores, {args.rounds} rounds")
    print("worker start-up (import langchain_core + langgraph, then exit), median wall time:")
    for name, seconds in start_up.items():
        print(f"  {name:<16} {seconds * 1000:8.1f} ms  {seconds / start_up['bare']:.2f}x  (+{(seconds - start_up['bare']) * 1000:.1f} ms)")
    print("a spawn pool's first result (the pool's process start included), median:")
    for name, seconds in pool.items():
        print(f"  {name:<16} {seconds * 1000:8.1f} ms  {seconds / pool['bare']:.2f}x  (+{(seconds - pool['bare']) * 1000:.1f} ms)")
    print(f"propagate() in the driver: {propagate_cost() * 1000:.2f} ms per call (median of 50)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
