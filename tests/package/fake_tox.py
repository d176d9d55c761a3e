"""A stand-in for `tox run` / `tox run-parallel` in tests/package/test_matrix.py.

It writes what a real env leaves in .tox/results (the junit file, the matrix plugin's record,
tox's --result-json; for a `peer-` env, scripts/peer.py's record) and appends each env it was asked for to ``calls.log``. Environment
variables name envs that fail a scenario (FAKE_TOX_FAIL), cannot install (FAKE_TOX_UNINSTALLABLE)
or are interrupted before leaving anything (FAKE_TOX_DIE), each comma-separated.

``FAKE_TOX_REAL=<env>:<how>`` runs a real pytest for that env instead (a small test file, the real
matrix plugin, ``--junitxml``), as tox's test command would, and stops it mid-way: ``complete``
lets it finish; ``interrupt`` sends its pytest SIGINT after the first test (pytest writes a partial
junit file and ends its session as INTERRUPTED); ``kill`` SIGKILLs that pytest mid-test, then this
tox itself dies of SIGTERM, leaving no --result-json (a CI timeout, a ``kill`` of the run).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REAL_TESTS = """
import os, pathlib, signal, time

def test_first():
    pass

def test_second():
    how = os.environ["FAKE_PYTEST_STOP"]
    if how == "interrupt":
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(30)
    elif how == "kill":
        pathlib.Path("started").write_text("the second test is running")
        time.sleep(30)

def test_third():
    pass
"""

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
        "exitstatus": int(failing),
    }
    (results / f"{env}.json").write_text(json.dumps(record))


def real_pytest(results: Path, env: str, how: str) -> int:
    """Run a real pytest with the matrix plugin as `env`'s test command, stopped as `how` says; its return code."""
    work = results.parent / f"pytest-{env}"
    work.mkdir(parents=True, exist_ok=True)
    (work / "test_partial.py").write_text(REAL_TESTS)
    (work / "started").unlink(missing_ok=True)
    command = [sys.executable, "-m", "pytest", "test_partial.py", "-p", "tests.matrix_plugin", "-p", "no:cacheprovider",
               "-q", f"--junitxml={results / (env + '.xml')}"]
    outer = {k: v for k, v in os.environ.items() if not k.startswith("TOX_")}  # as run from tox's own env (CI)
    variables = {**outer, "PYTHONPATH": str(ROOT), "HOOKPORT_HARNESS": "", "HOOKPORT_MATRIX_PINS": "",
                 "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",  # only the matrix plugin: a quick start
                 "FAKE_PYTEST_STOP": how}
    pytest = subprocess.Popen(command, cwd=work, env=variables, stdout=subprocess.DEVNULL)
    if how == "kill":
        while not (work / "started").exists() and pytest.poll() is None:
            time.sleep(0.05)
        pytest.kill()
        pytest.wait()
        os.kill(os.getpid(), signal.SIGTERM)  # tox itself is killed: no --result-json
        time.sleep(30)
    return pytest.wait()


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
        real = dict(item.split(":", 1) for item in named("FAKE_TOX_REAL") if ":" in item)
        if env in real:
            code = real_pytest(results, env, real[env])
            runs[env] = {"result": {"exit_code": int(code != 0)}, "test": [{"retcode": code}]}
            continue
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
