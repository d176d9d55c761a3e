"""Dask on a cluster that was already running (``dask scheduler`` + ``dask worker``, started by the test).

The driver (tests/fleet/programs/dask_driver.py) sets its guard up in code and calls
`hookport.propagate()`; its unchanged ``Client(address)`` registers hookport's worker
plugin, which starts the guard in the worker process. The twin has no hookport.
"""

from __future__ import annotations

import pytest

from tests.fleet.conftest import run_program

pytest.importorskip("distributed")
pytest.importorskip("langchain_core")


def test_the_refused_tool_never_runs_on_the_worker(dask_address: str) -> None:
    report = run_program("tests/fleet/programs/dask_driver.py", dask_address, "propagate", timeout=400)
    agent = report["agent"]
    assert agent["pid"] != report["driver_pid"]
    assert agent["ran"] == {"read_file": 1, "delete_file": 0}
    assert "file deletion is not allowed" in agent["told"]
    assert agent["answer"] == "Paid with card [CARD]."
    assert report["run_seen"] == "ticket-9"  # a task submitted inside a run continues it


def test_the_twin_without_hookport_deletes(dask_address: str) -> None:
    agent = run_program("tests/fleet/programs/dask_driver.py", dask_address, "none", timeout=400)["agent"]
    assert agent["ran"] == {"read_file": 1, "delete_file": 1}
    assert "4111 1111 1111 1111" in agent["answer"]
    assert agent["guarded"] is False
