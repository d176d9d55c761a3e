"""Ray on a cluster that was already running (started by the test with ``ray start --head``).

examples/fleet/ray_job.py sets its guard up in code and calls `hookport.propagate()`;
its unchanged ``ray.init(address=...)`` then carries the guard to every worker of the
job through the runtime_env. The agent runs in a task, in a task with a runtime_env
of its own and in an actor; each reports how often its tools really executed in that
worker. The twin is the same job with ``--no-setup``.
"""

from __future__ import annotations

import sys
from pathlib import Path

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


def test_a_worker_that_cannot_start_the_guard_runs_no_task(ray_cluster: tuple[str, Path]) -> None:
    """A hook module the workers cannot import: the worker exits before the task (which fails), saying why in its log."""
    ray_address, temp = ray_cluster
    code = (
        "import json, sys\nsys.path.insert(0, 'examples/fleet')\n"
        "import hookport\nfrom hookport import adapters\nadapters.install('langchain')\n"
        "hookport.propagate(hooks=['not_on_the_workers'])\n"
        "import ray\n"
        f"ray.init(address={ray_address!r}, logging_level='ERROR', log_to_driver=False)\n"
        "from agent import run_agent\n"
        "try:\n"
        "    outcome = json.dumps(ray.get(ray.remote(run_agent).remote(), timeout=120))\n"
        "except Exception as error:\n"
        "    outcome = f'{type(error).__name__}: {error}'\n"
        "print(json.dumps(outcome))\n"
    )
    outcome = run_program("-c", code, timeout=400, **RAY_ENV)
    assert outcome.startswith("WorkerCrashedError") and '"ran"' not in outcome, outcome
    logs = "".join(p.read_text(errors="replace") for p in temp.glob("session_*/logs/*worker*"))
    assert "the hook module 'not_on_the_workers' cannot be found" in logs
