"""What an adapter adds per run, counted in CPU instructions: a figure a busy machine does not move.

    python benchmarks/instructions.py --only strands [--runs 40] [--configs unpatched,installed,pre+post]

Time ratios (`benchmarks/adapters.py`) move by several percent when other work shares the cores;
instruction counts do not. For each configuration of `benchmarks/adapters.py` this runs one
framework benchmark twice under valgrind's cachegrind (no cache simulation), once with
``--runs`` runs and once with twice as many, both after the same warm-up: the difference of the
two totals, divided by ``--runs``, is the instructions of one steady-state run, with the
interpreter's start-up, the imports and the warm-up cancelled out. Ratios are to ``unpatched``.
``PYTHONHASHSEED=0`` keeps dict and set layouts the same from process to process.

Needs ``valgrind`` on PATH (Debian: ``apt-get install valgrind``). One configuration of a 5 ms
run takes a minute or two: valgrind runs Python about 50 times slower.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ("unpatched", "installed", "pre+post")
_TOTAL = re.compile(r"I\s+refs:\s+([\d,]+)")


def _child(adapter: str, config: str, runs: int, warm_up: int) -> None:
    """Inside valgrind: warm up, then do `runs` runs of the framework benchmark in `config`."""
    sys.path.insert(0, str(ROOT))
    import importlib

    from benchmarks import adapters as bench_adapters

    bench = importlib.import_module(f"benchmarks.frameworks.{adapter}").BENCH
    with bench.setup():
        run = bench.make_run()
        with bench_adapters._configure(bench, config):
            for _ in range(warm_up + runs):
                run()


def count(adapter: str, config: str, runs: int, warm_up: int) -> int:
    """Instructions of `runs` runs (valgrind's total, start-up included)."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "cachegrind.out"
        command = ["valgrind", "--tool=cachegrind", "--cache-sim=no", f"--cachegrind-out-file={out}",
                   sys.executable, __file__, "--child", adapter, config, str(runs), str(warm_up)]
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
        match = _TOTAL.search(done.stderr)
        if done.returncode != 0 or match is None:
            raise RuntimeError(f"{adapter} {config}: valgrind failed ({done.returncode}):\n{done.stderr[-3000:]}")
        return int(match.group(1).replace(",", ""))


def per_run(adapter: str, config: str, runs: int, warm_up: int) -> float:
    """Instructions of one steady-state run: the difference of `2 * runs` and `runs` runs."""
    return (count(adapter, config, 2 * runs, warm_up) - count(adapter, config, runs, warm_up)) / runs


def main(argv: Optional[list[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        _, adapter, config, runs, warm_up = argv
        _child(adapter, config, int(runs), int(warm_up))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", required=True, help="one adapter (module name in benchmarks/frameworks)")
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--warm-up", type=int, default=20)
    parser.add_argument("--configs", default=",".join(CONFIGS))
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        parser.error("valgrind is not on PATH (Debian: apt-get install valgrind)")
    adapter = args.only.replace("-", "_")
    counts = {c: per_run(adapter, c, args.runs, args.warm_up) for c in args.configs.split(",")}
    base = counts.get("unpatched")
    print(f"| adapter | configuration | instructions per run | ratio to unpatched |\n|---|---|---|---|")
    for config, value in counts.items():
        ratio = f"{value / base:.4f}x" if base else "n/a"
        print(f"| {adapter.replace('_', '-')} | {config} | {value / 1e6:.3f} M | {ratio} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
