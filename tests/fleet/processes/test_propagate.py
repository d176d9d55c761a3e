"""`hookport.propagate()` into every kind of local worker process, with a real LangChain agent.

Each test runs tests/fleet/programs/driver.py in a fresh process: it installs the
langchain adapter, loads the launcher tests' policy (deny delete_file, redact card
numbers in model answers) and imports a hook module, in code, then calls
`propagate()` and runs the agent in a worker process. The worker reports how often
each tool really executed in it. The twin without hookport shows that the same path
reaches the tool.
"""

from __future__ import annotations

import pytest

pytest.importorskip("langchain_core")

from tests.fleet.conftest import assert_guarded, assert_unguarded, run_program  # noqa: E402

MODES = ["subprocess", "subprocess-own-env", "fork", "spawn", "forkserver", "pool"]


@pytest.mark.parametrize("mode", MODES)
def test_the_worker_is_guarded(mode: str) -> None:
    report = run_program("tests/fleet/programs/driver.py", mode, "propagate")
    assert_guarded(report, report["driver_pid"])  # the redaction made in the worker reaches the driver


@pytest.mark.parametrize("mode", MODES)
def test_the_twin_without_hookport_deletes(mode: str) -> None:
    report = run_program("tests/fleet/programs/driver.py", mode, "none")
    assert_unguarded(report, report["driver_pid"])
