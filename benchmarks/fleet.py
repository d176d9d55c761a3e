"""What carrying the guard costs a worker's start-up, as a ratio to the same worker without it.

    python benchmarks/fleet.py [--rounds N]

A worker here is a fresh Python that does what an agent worker does first (imports
langchain_core and langgraph) and exits. Three configurations, interleaved round by
round (each takes the first place in turn), the median of each: CPU time (user +
system, of the process and every process it started; on a shared machine wall time
moves by hundreds of milliseconds) and wall time:

- **bare**: no hookport variable;
- **autostart only**: ``HOOKPORT_AUTOSTART=1`` and nothing to start (the ``.pth`` look-up);
- **propagated**: the variables `hookport.propagate()` writes for the fleet examples'
  guard (examples/fleet: the langchain adapter, a deny and a redaction rule, one hook module),
  so the worker installs the adapter, imports the module and loads the policy before
  its own code, and checks that the driver's hooks are all there.

Also `propagate()` itself, in the driver (median of repeated calls), and a program
that starts a ``multiprocessing`` spawn pool and runs one task in it, bare and with
the guard set up and propagated first. Needs the
``langchain`` extra.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
POLICY = ROOT / "examples" / "fleet" / "policy.toml"
WORKER = "import langchain_core.tools, langgraph.graph"
POOL = (
    "import multiprocessing, sys\n"
    "sys.path.insert(0, {root!r})\n"
    "{setup}\n"
    "from tests.fleet.programs.pool_work import nothing\n"
    "with multiprocessing.get_context('spawn').Pool(1) as pool:\n"
    "    pool.apply(nothing)\n"
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


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(CPU seconds of the process and its descendants, wall seconds) of one run of `command`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, wall


def interleaved(configs: dict[str, tuple[list[str], dict[str, str]]], rounds: int) -> dict[str, tuple[float, float]]:
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in configs}
    names = list(configs)
    for index in range(rounds):
        for name in names[index % len(names):] + names[: index % len(names)]:
            samples[name].append(timed(*configs[name]))
    return {name: (statistics.median(s[0] for s in runs), statistics.median(s[1] for s in runs)) for name, runs in samples.items()}


def show(title: str, results: dict[str, tuple[float, float]]) -> None:
    print(title)
    base_cpu, base_wall = results["bare"]
    for name, (cpu, wall) in results.items():
        print(f"  {name:<16} cpu {cpu * 1000:7.0f} ms  {cpu / base_cpu:.2f}x  (+{(cpu - base_cpu) * 1000:4.0f} ms)"
              f"   wall {wall * 1000:7.0f} ms  (+{(wall - base_wall) * 1000:4.0f} ms)")


def propagate_cost() -> float:
    code = (
        f"import sys, time, statistics; sys.path.insert(0, {str(ROOT)!r}); {SETUP.format(policy=str(POLICY), examples=str(POLICY.parent))}\n"
        "samples = []\n"
        "for _ in range(50):\n"
        "    start = time.perf_counter(); hookport.propagate(); samples.append(time.perf_counter() - start)\n"
        "print(statistics.median(samples))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], env=clean(), check=True, cwd=ROOT, capture_output=True, text=True)
    return float(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    guard = propagated_environment()
    autostart = {**clean(), "HOOKPORT_AUTOSTART": "1"}
    worker = [sys.executable, "-c", WORKER]
    start_up = interleaved(
        {"bare": (worker, clean()), "autostart only": (worker, autostart), "propagated": (worker, guard)}, args.rounds
    )
    setup = SETUP.format(policy=str(POLICY), examples=str(POLICY.parent))
    pool = interleaved(
        {
            "bare": ([sys.executable, "-c", POOL.format(root=str(ROOT), setup="")], clean()),
            "propagated": ([sys.executable, "-c", POOL.format(root=str(ROOT), setup=setup)], clean()),
        },
        args.rounds,
    )
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores, {args.rounds} rounds, medians")
    show("a worker's start-up (import langchain_core + langgraph, then exit):", start_up)
    show("a program that runs one task in a spawn pool (its worker's start-up included):", pool)
    print(f"propagate() in the driver: {propagate_cost() * 1000:.2f} ms per call (median of 50)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
