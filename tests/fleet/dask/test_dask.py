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


def test_a_worker_that_cannot_start_the_guard_closes(dask_cluster: DaskCluster) -> None:
    """A hook module the workers cannot import: connecting raises, naming it, and the worker goes away; so does
    one that joins later. No worker is left to run a task unguarded."""
    code = (
        "import json, sys, time\nsys.path.insert(0, 'examples/fleet')\n"
        "from distributed import Client\n"
        f"watcher = Client({dask_cluster.address!r}, timeout=60)  # before the guard: a plain client\n"
        "watcher.wait_for_workers(1, timeout=120)\n"
        "import hookport\nfrom hookport import adapters\nadapters.install('langchain')\n"
        "hookport.propagate(hooks=['not_on_the_workers'])\n"
        "try:\n"
        f"    Client({dask_cluster.address!r}, timeout=60)\n"
        "    outcome = 'connected'\n"
        "except Exception as error:\n"
        "    outcome = f'{type(error).__name__}: {error}'\n"
        "time.sleep(5)\n"
        "print(json.dumps({'outcome': outcome, 'workers': len(watcher.scheduler_info()['workers'])}))\n"
    )
    results = run_program("-c", code, timeout=400)
    assert "the hook module 'not_on_the_workers' cannot be found" in results["outcome"]
    assert results["workers"] == 0
    dask_cluster.add_worker()  # joins, gets the registered plugin, fails to start the guard, closes
    later = dask_cluster.processes[-1]
    assert later.wait(timeout=120) is not None
    assert "hookport: the guard could not start" in (dask_cluster.directory / "dask.log").read_text()
