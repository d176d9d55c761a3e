"""What an adapter adds per run, counted in CPU instructions: a figure a busy machine does not move.

    python benchmarks/instructions.py --only strands [--runs 20] [--configs unpatched,installed,pre+post]
    python benchmarks/instructions.py --only strands --source /path/to/other/checkout   # before/after

Time ratios (`benchmarks/adapters.py`) move by several percent when other work shares the cores;
instruction counts do not. For each configuration of `benchmarks/adapters.py` one process runs the
framework benchmark under valgrind's callgrind with instrumentation off until the framework is
imported and warmed up (so start-up costs little), then counts ``--runs`` runs and, separately,
twice as many: the difference of the two counts, divided by ``--runs``, is the instructions of
one steady-state run, with the cost of asking callgrind for each count cancelled out. Before each
count the heap is collected and frozen (`gc.freeze`), so a collection during the count walks only
what the counted runs allocated: otherwise one full collection of a framework's whole heap lands
in one count or the other and moves a run's figure by millions. Ratios are to ``unpatched``. ``PYTHONHASHSEED=0`` keeps dict and set layouts the same from process to process.

``--source`` measures the hookport of another checkout of this repository (the same framework env,
its editable install pointed there for the child process only), so a change is counted before and
after in the same environment.

Needs ``valgrind`` (with ``callgrind_control``) on PATH (Debian: ``apt-get install valgrind``).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ("unpatched", "installed", "pre+post")
END_ONLY = "end-only"
"""An extra configuration (``--configs ...,end-only``): installed with one no-op EXECUTION_END hook,
what an adapter pays as soon as any hook is registered."""


def _point_editable_install_at(source: str) -> None:
    """Make this process import hookport from `source` (another checkout) instead of the checkout
    the env's editable install names: its finder's package map is rewritten in place."""
    for name, module in list(sys.modules.items()):
        mapping = getattr(module, "MAPPING", None) if name.startswith("__editable___hookport") else None
        if isinstance(mapping, dict):
            for package, folder in mapping.items():
                mapping[package] = str(Path(source) / Path(folder).name)
            return
    raise RuntimeError("--source needs an env with hookport installed in editable mode (tox's envs are)")


def _callgrind(*command: str) -> None:
    """Ask the callgrind running this process to do something (``-i on``, ``-z``, ``-d``)."""
    subprocess.run(["callgrind_control", *command, str(os.getpid())], check=True, capture_output=True)


def _child(adapter: str, config: str, runs: int, warm_up: int, source: str) -> None:
    """Inside callgrind: warm up uncounted, then count `runs` runs and `2 * runs` runs, each
    into a dump of its own."""
    if source:
        _point_editable_install_at(source)
    sys.path.insert(0, str(ROOT))
    import importlib

    from benchmarks import adapters as bench_adapters

    bench = importlib.import_module(f"benchmarks.frameworks.{adapter}").BENCH
    with bench.setup():
        run = bench.make_run()
        with bench_adapters._configure(bench, "installed" if config == END_ONLY else config):
            if config == END_ONLY:
                from hookport import InterceptionPoint, register_hook

                register_hook(InterceptionPoint.EXECUTION_END, bench_adapters._noop)
            for _ in range(warm_up):
                run()
            _callgrind("-i", "on")
            for count in (runs, 2 * runs):
                gc.collect()
                gc.freeze()  # what the runs allocate is all a collection in the window walks
                _callgrind("-z")
                for _ in range(count):
                    run()
                _callgrind("-d")


def per_run(adapter: str, config: str, runs: int, warm_up: int, source: str = "") -> float:
    """Instructions of one steady-state run of `adapter`'s benchmark in `config`."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        command = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}",
                   sys.executable, __file__, "--child", adapter, config, str(runs), str(warm_up), source]
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
        dumps = sorted(Path(folder).glob("callgrind.out.*"), key=lambda p: int(p.suffix[1:]))
        totals = [_total(p) for p in dumps]
        if done.returncode != 0 or len(totals) != 2:
            raise RuntimeError(f"{adapter} {config}: callgrind failed ({done.returncode}):\n{done.stderr[-3000:]}")
        return (totals[1] - totals[0]) / runs


def _total(dump: Path) -> int:
    for line in dump.read_text().splitlines():
        if line.startswith("totals:"):
            return int(line.split()[1])
    raise RuntimeError(f"{dump}: no totals line")


def main(argv: Optional[list[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        _, adapter, config, runs, warm_up, source = argv
        _child(adapter, config, int(runs), int(warm_up), source)
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", required=True, help="one adapter (module name in benchmarks/frameworks)")
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--warm-up", type=int, default=20)
    parser.add_argument("--configs", default=",".join(CONFIGS))
    parser.add_argument("--source", default="", help="measure the hookport of this checkout instead")
    parser.add_argument("--json", help="also write the counts to this file")
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        parser.error("valgrind and callgrind_control are not on PATH (Debian: apt-get install valgrind)")
    adapter = args.only.replace("-", "_")
    counts = {c: per_run(adapter, c, args.runs, args.warm_up, args.source) for c in args.configs.split(",")}
    base = counts.get("unpatched")
    print(f"| adapter | configuration | instructions per run | ratio to unpatched |\n|---|---|---|---|")
    for config, value in counts.items():
        ratio = f"{value / base:.4f}x" if base else "n/a"
        print(f"| {adapter.replace('_', '-')} | {config} | {value / 1e6:.3f} M | {ratio} |")
    if args.json:
        Path(args.json).write_text(json.dumps({"adapter": adapter.replace("_", "-"), "runs": args.runs,
                                               "source": args.source or None, "instructions": counts}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
