"""Ray on a cluster that was already running (started by the test with ``ray start --head``).

examples/fleet/ray_job.py sets its guard up in code and calls `hookport.propagate()`;
its unchanged ``ray.init(address=...)`` then carries the guard to every worker of the
job through the runtime_env. The agent runs in a task, in a task with a runtime_env
of its own and in an actor; each reports how often its tools really executed in that
worker. The twin is the same job with ``--no-setup``.
"""

from __future__ import annotations

import sys

import pytest

from tests.fleet.conftest import assert_guarded, assert_unguarded, run_program
from tests.fleet.ray.conftest import RAY_ENV

pytest.importorskip("ray")
pytest.importorskip("langchain_core")

PLACES = ("task", "task_own_env", "actor")


@pytest.fixture(scope="module")
def guarded(ray_address: str) -> dict:
    return run_program("examples/fleet/ray_job.py", ray_address, timeout=600, **RAY_ENV)


@pytest.fixture(scope="module")
def unguarded(ray_address: str) -> dict:
    return run_program("examples/fleet/ray_job.py", ray_address, "--no-setup", timeout=600, **RAY_ENV)


@pytest.mark.parametrize("place", PLACES)
def test_the_refused_tool_never_runs_in_the_worker(guarded: dict, place: str) -> None:
    assert_guarded(guarded[place], guarded["driver"])  # the redaction made in the worker reaches the driver


@pytest.mark.parametrize("place", PLACES)
def test_the_twin_without_hookport_deletes(unguarded: dict, place: str) -> None:
    assert_unguarded(unguarded[place], unguarded["driver"])


def test_a_task_continues_the_drivers_run(guarded: dict) -> None:
    assert guarded["run"] == "ticket-7"


def test_hookport_run_reaches_a_running_cluster(ray_address: str) -> None:
    """No code at all: the job sets nothing up (``--no-setup``) and runs under `hookport run`."""
    results = run_program(
        "-m", "hookport.cli", "run", "--adapters", "langchain", "--policy", "examples/fleet/policy.toml", "--",
        sys.executable, "examples/fleet/ray_job.py", ray_address, "--no-setup", timeout=600, **RAY_ENV,
    )
    for place in PLACES:
        assert_guarded(results[place], results["driver"])
