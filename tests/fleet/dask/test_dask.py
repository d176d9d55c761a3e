"""Dask on a cluster that was already running (``dask scheduler`` + ``dask worker``, started by the test).

examples/fleet/dask_job.py sets its guard up in code and calls `hookport.propagate()`;
its unchanged ``Client(address)`` registers hookport's worker plugin, which starts the
guard in the worker process. The twin is the same job with ``--no-setup``, on
a cluster of its own (a worker once guarded stays guarded).
"""

from __future__ import annotations

import pytest

from tests.fleet.conftest import assert_guarded, assert_unguarded, run_program

pytest.importorskip("distributed")
pytest.importorskip("langchain_core")


def test_the_refused_tool_never_runs_on_the_worker(dask_address: str) -> None:
    results = run_program("examples/fleet/dask_job.py", dask_address, timeout=400)
    assert_guarded(results["worker"], results["driver"])
    assert results["run"] == "ticket-9"  # a task submitted inside a run continues it


def test_the_twin_without_hookport_deletes(dask_address: str) -> None:
    results = run_program("examples/fleet/dask_job.py", dask_address, "--no-setup", timeout=400)
    assert_unguarded(results["worker"], results["driver"])
