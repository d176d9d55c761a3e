"""What each installed adapter costs, measured the same way for every framework.

    python benchmarks/adapters.py [--only langchain,crewai] [--rounds 7] [--json out.json]

For every framework module in ``benchmarks/frameworks/<adapter>.py`` whose
framework is installed here, one representative run (an agent turn with a model
call and a tool call where the framework has them, driven offline) is timed in
four configurations, interleaved round by round (each taking the first place in
turn) so machine drift hits them alike:

- ``unpatched``: the adapter not installed (the baseline of every ratio);
- ``unpatched again``: the same, timed as one more configuration: its ratio (1.000
  on a perfectly quiet machine) shows how far this machine's noise moves a ratio;
- ``installed``: installed, no hook registered;
- ``pre+post``: no-op PRE+POST hooks on the model and tool points;
- ``native``: the framework's own hook system doing the same no-op work (where it has one).

Ratios are medians of per-round ratios to ``unpatched`` measured in the same process.
Time is this thread's CPU time (other processes on a busy machine do not count).
Beside them, ``calls added`` counts the Python and builtin function calls one run
makes more than the unpatched run (cProfile's count): a figure that does not move
with the machine's noise, so a change to an adapter's cost shows in it exactly.
``us per call`` is what each configuration adds per hooked call (a model or tool call the
no-op hooks saw, counted in the same run): the median of per-round differences to
``unpatched``, divided by the calls. It is the figure to read where a run is so short that
every microsecond is a percent.
Goals (docs/performance.md): installed <= 1.02x, pre+post <= 1.04x of the run or <= 5 us per
hooked call.

A framework module defines ``BENCH = FrameworkBench(...)``: how to build one run,
and optionally how to register the framework's native no-op hooks.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import json
import os
import pkgutil
import pstats
import statistics
import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
for _name, _value in {"OTEL_SDK_DISABLED": "true", "CREWAI_DISABLE_TELEMETRY": "true",
                      "CREWAI_TRACING_ENABLED": "false", "LANGSMITH_TRACING": "false",
                      "PRAISONAI_TELEMETRY_DISABLED": "true", "OPENAI_API_KEY": "sk-offline-dummy"}.items():
    os.environ.setdefault(_name, _value)

from benchmarks._timing import thread_time_per_call  # noqa: E402
from hookport import InterceptionPoint as P  # noqa: E402
from hookport import adapters, clear_all_hooks, register_hook  # noqa: E402

CONFIGS = ("unpatched", "unpatched again", "installed", "pre+post", "native")


@dataclass
class FrameworkBench:
    """One framework's benchmark: `make_run()` returns a zero-argument callable doing one run."""

    adapter: str
    make_run: Callable[[], Callable[[], Any]]
    describe: str
    native: Optional[Callable[[], AbstractContextManager[Any]]] = None
    """A context manager that registers the framework's own no-op model+tool hooks."""
    calls_per_round: int = 200
    setup: Callable[[], AbstractContextManager[Any]] = field(default=nullcontext)
    """Started once around the whole measurement (a local server, say)."""


class NativeSwitch:
    """A `FrameworkBench.native` for runs that pick their native hooks themselves: the switch is
    true while the ``native`` configuration is measured (``native=switch.on``, ``if switch: ...``)."""

    def __init__(self) -> None:
        self._on = False

    def __bool__(self) -> bool:
        return self._on

    @contextmanager
    def on(self) -> Iterator[None]:
        self._on = True
        try:
            yield
        finally:
            self._on = False


class _NoopCounter:
    """The no-op hook of ``pre+post``; it counts its calls so a run's hooked calls are known."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, ctx: Any) -> None:
        self.calls += 1
        return None


_noop = _NoopCounter()


def _configure(bench: FrameworkBench, config: str) -> AbstractContextManager[Any]:
    clear_all_hooks()
    if config in ("unpatched", "unpatched again", "native"):
        adapters.uninstall(bench.adapter)
    else:
        adapters.install(bench.adapter)
    if config == "pre+post":
        for point in (P.PRE_MODEL_CALL, P.POST_MODEL_CALL, P.PRE_TOOL_CALL, P.POST_TOOL_CALL):
            register_hook(point, _noop)
    if config == "native" and bench.native is not None:
        return bench.native()
    return nullcontext()


def _calls(run: Callable[[], Any], runs: int = 5) -> float:
    """Function calls per run (deterministic, unlike time): cProfile's count over `runs` runs."""
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(runs):
        run()
    profile.disable()
    return pstats.Stats(profile).total_calls / runs  # type: ignore[attr-defined]


def measure(bench: FrameworkBench, rounds: int) -> dict[str, Any]:
    configs = [c for c in CONFIGS if c != "native" or bench.native is not None]
    samples: dict[str, list[float]] = {c: [] for c in configs}
    with bench.setup():
        run = bench.make_run()
        calls: dict[str, float] = {}
        for config in configs:  # warm every configuration once, and count its calls
            with _configure(bench, config):
                thread_time_per_call(run, max(1, bench.calls_per_round // 10))
                calls[config] = _calls(run)
                if config == "pre+post":
                    _noop.calls = 0
                    run()
                    hooked_calls = max(1, _noop.calls // 2)  # a PRE and a POST per model or tool call
        for round_number in range(rounds):
            shift = round_number % len(configs)  # each configuration takes each place in a round in turn
            for config in configs[shift:] + configs[:shift]:
                with _configure(bench, config):
                    thread_time_per_call(run, max(1, bench.calls_per_round // 20))  # steady state: not the first runs after install
                    samples[config].append(thread_time_per_call(run, bench.calls_per_round))
    clear_all_hooks()
    adapters.uninstall(bench.adapter)
    base = samples["unpatched"]
    return {
        "adapter": bench.adapter,
        "run": bench.describe,
        "unpatched_us": statistics.median(base) * 1e6,
        "hooked_calls": hooked_calls,
        **{f"{c}_ratio": statistics.median(s / b for s, b in zip(samples[c], base)) for c in configs if c != "unpatched"},
        **{f"{c}_us_per_call": statistics.median(s - b for s, b in zip(samples[c], base)) * 1e6 / hooked_calls
           for c in configs if c != "unpatched"},
        "unpatched_calls": calls["unpatched"],
        **{f"{c}_calls_added": calls[c] - calls["unpatched"] for c in configs if c != "unpatched"},
    }


def discover(only: Optional[set[str]] = None) -> Iterator[FrameworkBench]:
    """The framework benchmarks whose framework is importable here."""
    import benchmarks.frameworks as package

    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if only and info.name not in only and info.name.replace("_", "-") not in only:
            continue
        try:
            module = importlib.import_module(f"benchmarks.frameworks.{info.name}")
        except ImportError as missing:
            print(f"# {info.name}: skipped ({missing})", file=sys.stderr)
            continue
        yield module.BENCH


PAIR_RATIO_BUDGET = 1.04
PAIR_US_BUDGET = 5.0


def within_budget(row: dict[str, Any]) -> bool:
    """A no-op pair meets its budget by the ratio, or by the time per hooked call (short runs)."""
    return row["pre+post_ratio"] <= PAIR_RATIO_BUDGET or row["pre+post_us_per_call"] <= PAIR_US_BUDGET


def table(rows: list[dict[str, Any]]) -> str:
    lines = ["| adapter | run | unpatched | hooked calls | noise (A/A) | installed | pre+post | native hooks "
             "| calls added: installed / pre+post | budget |", "|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        native = f"{row['native_ratio']:.3f}x ({row['native_us_per_call']:+.1f} us)" if "native_ratio" in row else "n/a"
        lines.append(f"| {row['adapter']} | {row['run']} | {row['unpatched_us']:.0f} us | {row['hooked_calls']} | "
                     f"{row['unpatched again_ratio']:.3f}x | "
                     f"{row['installed_ratio']:.3f}x ({row['installed_us_per_call']:+.1f} us) | "
                     f"{row['pre+post_ratio']:.3f}x ({row['pre+post_us_per_call']:+.1f} us) | {native} | "
                     f"+{row['installed_calls_added']:.0f} / +{row['pre+post_calls_added']:.0f} "
                     f"of {row['unpatched_calls']:.0f} | {'met' if within_budget(row) else 'over'} |")
    return "\n".join(lines)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated adapter names")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls-per-round", type=int, help="runs timed per round (default: each framework's own); "
                        "many short rounds give steadier medians than a few long ones")
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args(argv)
    only = {n.strip().replace("-", "_") for n in args.only.split(",")} if args.only else None  # module names
    benches = list(discover(only))
    if args.calls_per_round:
        for bench in benches:
            bench.calls_per_round = args.calls_per_round
    rows = [measure(bench, args.rounds) for bench in benches]
    print(table(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
