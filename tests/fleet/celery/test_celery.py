"""Celery: a worker that was not started under `hookport run` (its app module guards it).

The worker imports tests/fleet/programs/celery_app.py, which calls
`hookport.integrations.celery.guard(app, ...)`; each prefork pool process starts the
guard after the fork (a solo worker, which does not fork, at worker_init). The sender (tests/fleet/programs/celery_driver.py) runs the agent
task and reads its result. The twin worker's app module has no guard.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fleet.conftest import assert_guarded, assert_unguarded, run_program

pytest.importorskip("celery")
pytest.importorskip("langchain_core")


@pytest.mark.parametrize("celery_worker", [{"guard": True}, {"guard": True, "pool": "solo"}], indirect=True, ids=["prefork", "solo"])
def test_the_refused_tool_never_runs_in_the_pool_process(celery_worker: tuple[str, Path]) -> None:
    broker, _ = celery_worker
    report = run_program("tests/fleet/programs/celery_driver.py", "propagate", timeout=400, FLEET_BROKER=broker)
    assert_guarded(report["agent"], report["driver_pid"])
    assert report["run_seen"] == "ticket-11"  # the run id crossed in the task's header


@pytest.mark.parametrize("celery_worker", [{"guard": False}], indirect=True, ids=["unguarded"])
def test_the_twin_without_hookport_deletes(celery_worker: tuple[str, Path]) -> None:
    broker, _ = celery_worker
    report = run_program("tests/fleet/programs/celery_driver.py", "none", timeout=400, FLEET_BROKER=broker)
    assert_unguarded(report["agent"], report["driver_pid"])


@pytest.mark.parametrize("celery_worker", [{"guard": True, "hooks": "no_such_guards"}], indirect=True, ids=["hook-module-missing"])
def test_a_pool_process_that_cannot_start_the_guard_runs_no_task(celery_worker: tuple[str, Path], tmp_path: Path) -> None:
    """The hook module is missing in the worker: each pool process exits before it takes a task."""
    broker, log = celery_worker
    code = (
        "import json, sys\nsys.path.insert(0, '.')\n"
        "from celery.exceptions import TimeoutError\n"
        "from tests.fleet.programs.celery_app import agent\n"
        "try:\n    print(json.dumps(agent.delay().get(timeout=20)))\n"
        "except TimeoutError:\n    print(json.dumps('no result'))\n"
    )
    assert run_program("-c", code, FLEET_BROKER=broker) == "no result"
    assert "hookport: not running Celery pool process" in log.read_text()
    assert "the hook module 'no_such_guards' cannot be found" in log.read_text()
