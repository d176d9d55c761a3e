"""examples/fleet/celery_tasks.py and celery_send.py, as docs/fleet.md runs them, on a real worker."""

from __future__ import annotations

import pytest

from tests.fleet.conftest import assert_guarded, run_program

pytest.importorskip("celery")
pytest.importorskip("langchain_core")


def test_the_celery_example(example_worker: str) -> None:
    results = run_program("examples/fleet/celery_send.py", timeout=400, BROKER=example_worker)
    assert_guarded(results["worker"], results["driver"])
    assert results["run"] == "ticket-11"
