"""Dask on a cluster that was already running (``dask scheduler`` + ``dask worker``, started by the test).

examples/fleet/dask_job.py sets its guard up in code and calls `hookport.propagate()`;
its unchanged ``Client(address)`` registers hookport's worker plugin, which starts the
guard in the worker process. The twin is the same job with ``--no-setup``, on
a cluster of its own (a worker once guarded stays guarded).
"""

from __future__ import annotations

import pytest

from tests.fleet.conftest import assert_guarded, assert_unguarded, run_program
from tests.fleet.dask.conftest import DaskCluster

pytest.importorskip("distributed")
pytest.importorskip("langchain_core")


def test_the_refused_tool_never_runs_on_the_worker(dask_address: str) -> None:
    results = run_program("examples/fleet/dask_job.py", dask_address, timeout=400)
    assert_guarded(results["worker"], results["driver"])
    assert results["run"] == "ticket-9"  # a task submitted inside a run continues it


def test_the_twin_without_hookport_deletes(dask_address: str) -> None:
    results = run_program("examples/fleet/dask_job.py", dask_address, "--no-setup", timeout=400)
    assert_unguarded(results["worker"], results["driver"])


def test_a_worker_that_joins_later_is_guarded_too(dask_cluster: DaskCluster) -> None:
    """The plugin stays registered on the scheduler: a worker started after the guarded job gets it."""
    run_program("examples/fleet/dask_job.py", dask_cluster.address, timeout=400)
    dask_cluster.add_worker()
    code = (
        "import json, sys\nfrom distributed import Client\nfrom agent import run_agent\n"
        f"with Client({dask_cluster.address!r}) as client:\n"
        "    client.wait_for_workers(2, timeout=120)\n"
        "    first = client.submit(run_agent, pure=False).result()\n"
        "    others = [w for w, pid in client.run(__import__('os').getpid).items() if pid != first['pid']]\n"
        "    later = client.submit(run_agent, pure=False, workers=others).result()\n"
        "print(json.dumps({'first': first, 'later': later, 'driver': __import__('os').getpid()}))\n"
    )
    results = run_program("-c", code, timeout=400, PYTHONPATH="examples/fleet")
    assert results["first"]["pid"] != results["later"]["pid"]  # one ran on each worker, the new one included
    for worker in ("first", "later"):
        assert_guarded(results[worker], results["driver"])  # this client set nothing up: the plugin did it
