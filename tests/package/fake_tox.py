"""A stand-in for `tox run` / `tox run-parallel` in tests/package/test_matrix.py.

It writes what a real env leaves in .tox/results (the junit file, the matrix plugin's record,
tox's --result-json; for a `peer-` env, scripts/peer.py's record) and appends each env it was asked for to ``calls.log``. Environment
variables name envs that fail a scenario (FAKE_TOX_FAIL), cannot install (FAKE_TOX_UNINSTALLABLE)
or are interrupted before leaving anything (FAKE_TOX_DIE), each comma-separated.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

UNINSTALLABLE = (
    "  x No solution found when resolving dependencies:\n"
    "  cause: Because alpha==1.0.0 needs gamma>9, we can conclude ...\n"
)
SCENARIOS = (
    '<testcase classname="tests.conformance.test_scenarios" name="test_block__deny_stops_the_tool">{case}</testcase>'
    '<testcase classname="tests.conformance.test_scenarios" name="test_tool__pre_and_post"/>'
)


def named(variable: str) -> list[str]:
    return os.environ.get(variable, "").split(",")


def write_results(results: Path, env: str, failing: bool) -> None:
    case = '<failure message="AssertionError: the tool ran">x</failure>' if failing else ""
    junit = (
        f'<testsuites><testsuite timestamp="2026-12-02T00:00:00">{SCENARIOS.format(case=case)}</testsuite></testsuites>'
    )
    (results / f"{env}.xml").write_text(junit)
    record = {
        "distribution": env.split("-")[0],
        "version": env.split("-")[1] if "-" in env else None,
        "python": "3.12.1" if env.endswith("-py312") else "3.11.7",
        "packages": {"wrapt": "2.5.2"},
        "date": "2026-12-02T00:00:00+00:00",
    }
    (results / f"{env}.json").write_text(json.dumps(record))


def write_peer_record(results: Path, env: str, failing: bool) -> None:
    """What scripts/peer.py leaves: counts and every differing test id (one by design)."""
    differences = {"tests/test_x.py::test_design": {"without": "passed", "with": "failed", "by_design": "asserts on internals"}}
    if failing:
        differences["tests/test_x.py::test_stream[a]"] = {"without": "passed", "with": "failed", "by_design": None}
    record = {
        "framework": env.removeprefix("peer-"),
        "distribution": env.removeprefix("peer-"),
        "version": "1.0.0",
        "python": "3.11.7",
        "date": "2026-12-02T00:00:00+00:00",
        "tests": 1234,
        "passed_without_hookport": 1200,
        "differences": differences,
        "left_out": ["tests/voice"],
        "flaky": ["tests/test_x.py::test_once"],
    }
    (results / f"{env}.json").write_text(json.dumps(record))


def main(args: list[str]) -> int:
    envs = args[args.index("-e") + 1].split(",")
    result_json = Path(args[args.index("--result-json") + 1])
    results = Path.cwd() / ".tox" / "results"
    results.mkdir(parents=True, exist_ok=True)
    runs = {}
    for env in envs:
        with open(results / "calls.log", "a") as log:
            log.write(env + "\n")
        if env in named("FAKE_TOX_DIE"):
            return 130
        if env in named("FAKE_TOX_UNINSTALLABLE"):
            setup = [{"run_id": "install_deps", "retcode": 1, "err": UNINSTALLABLE}]
            runs[env] = {"result": {"exit_code": 1}, "setup": setup}
            continue
        failing = env in named("FAKE_TOX_FAIL")
        if env.startswith("peer-"):
            write_peer_record(results, env, failing)
        else:
            write_results(results, env, failing)
        runs[env] = {"result": {"exit_code": int(failing)}, "test": [{"retcode": 0}]}
    result_json.write_text(json.dumps({"testenvs": runs}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
