"""One install-lifecycle scenario in a fresh interpreter.

    python -m tests.conformance.lifecycle_probe <harness> <scenario>

Prints one JSON object; the parent test asserts on it. A fresh process is the
only honest way to test "install before import".
"""

from __future__ import annotations

import importlib
import json
import sys
from typing import Any

import wrapt

from hookport import InterceptionPoint, adapters, clear_all_hooks, on
from tests.conformance.harness import Turn

SCENARIOS = ("import_then_install", "install_then_import", "double_install", "reinstall", "uninstall_twice",
             "cycles_leave_nothing")
CYCLES = 500
"""Install/uninstall cycles measured (each looks its framework's version up again)."""
WINDOWS = 5
"""The measured cycles are split into windows, and the growth counted is the median window's.
A leak grows in every window. What grows in one window only is the interpreter's own
housekeeping: on Python 3.13, whose pathlib interns each path part `importlib.metadata` looks
up at install, the table of interned strings is rebuilt every 300 or more cycles as those
strings come and go, and a rebuild whose old table was allocated before tracing began reads
as about 1.9 MB of growth."""
WARM_UP = CYCLES // WINDOWS
"""Cycles run before measuring: they fill `importlib.metadata`'s bounded lookup caches."""


def originals(adapter: adapters.Adapter) -> dict[str, int]:
    found: dict[str, int] = {}
    for target in adapter.targets():
        module = sys.modules.get(target.module)
        if module is None:
            continue
        try:
            _, _, value = wrapt.resolve_path(module, target.path)
        except AttributeError:
            continue
        found[target.name] = id(value)
    return found


def run_once(harness_name: str) -> dict[str, Any]:
    from tests.conformance.conftest import load_harness

    fired: list[str] = []
    clear_all_hooks()
    on(InterceptionPoint.PRE_TOOL_CALL)(lambda ctx: fired.append(ctx.tool_name))
    result = load_harness(harness_name).run([Turn.call("add_numbers", a=2, b=3), Turn.final("done")])
    clear_all_hooks()
    return {
        "hook_fired": len(fired),
        "tool_runs": len(result.runs_of("add_numbers")),
        "error": repr(result.error) if result.error else None,
    }


def main(harness_name: str, scenario: str) -> dict[str, Any]:
    from tests.conformance.conftest import FRAMEWORK_MODULES, HARNESS_MODULES

    harness_module = HARNESS_MODULES[harness_name]
    adapter = adapters.get(harness_name)
    out: dict[str, Any] = {"scenario": scenario}
    if scenario == "cycles_leave_nothing":
        return {**out, **_cycles(harness_name)}
    if scenario == "install_then_import":
        cls = adapters.adapter_class(harness_name)
        root = FRAMEWORK_MODULES[harness_name]
        out["imported_before_install"] = any(m == root or m.startswith(root + ".") for m in sys.modules)
        report = adapters.install(harness_name)
        out["pending_at_install"] = len(report.pending)
        out["run"] = run_once(harness_name)
        out["patched"] = len(adapters.installed()[cls.name].patched)
        out["missing"] = adapters.installed()[cls.name].missing
        return out
    importlib.import_module(harness_module)  # the framework, fully imported, before install
    before = originals(adapter)
    if scenario == "import_then_install":
        report = adapters.install(harness_name)
        out["patched"] = len(report.patched)
        out["missing"] = report.missing
        out["run"] = run_once(harness_name)
    elif scenario == "double_install":
        first = adapters.install(harness_name)
        second = adapters.install(harness_name)
        out["same_report"] = first is second
        out["run"] = run_once(harness_name)
    elif scenario == "reinstall":
        adapters.install(harness_name)
        adapters.uninstall(harness_name)
        adapters.install(harness_name)
        out["run"] = run_once(harness_name)
    elif scenario == "uninstall_twice":
        adapters.install(harness_name)
        out["first_uninstall"] = adapters.uninstall(harness_name)
        out["second_uninstall"] = adapters.uninstall(harness_name)
        out["run"] = run_once(harness_name)
        out["restored"] = originals(adapter) == before
        out["checked_targets"] = len(before)
        return out
    else:
        raise SystemExit(f"unknown scenario {scenario!r}; one of {SCENARIOS}")
    adapters.uninstall(harness_name)
    out["restored"] = originals(adapter) == before
    out["checked_targets"] = len(before)
    return out


def _cycles(harness_name: str) -> dict[str, Any]:
    """Install and uninstall CYCLES times before the framework is imported (after WARM_UP cycles), then once after.

    ``memory_growth`` is the median window's growth times WINDOWS: the growth of CYCLES cycles."""
    import gc
    import tracemalloc

    from wrapt import importer

    def hooks() -> int:
        return sum(len(v or ()) for v in importer._post_import_hooks.values())

    for _ in range(WARM_UP):
        adapters.install(harness_name)
        adapters.uninstall(harness_name)
    gc.collect()
    hooks_before = hooks()
    tracemalloc.start()
    windows = []
    for _ in range(WINDOWS):
        memory_before = tracemalloc.get_traced_memory()[0]
        for _ in range(CYCLES // WINDOWS):
            adapters.install(harness_name)
            adapters.uninstall(harness_name)
        gc.collect()
        windows.append(tracemalloc.get_traced_memory()[0] - memory_before)
    grown = sorted(windows)[WINDOWS // 2] * WINDOWS
    tracemalloc.stop()
    hooks_after = hooks()
    adapters.install(harness_name)
    run = run_once(harness_name)
    adapters.uninstall(harness_name)
    return {"hooks_before": hooks_before, "hooks_after": hooks_after, "memory_growth": grown, "windows": windows,
            "run": run}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[2])))
