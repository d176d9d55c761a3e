"""examples/fleet/processes.py, as docs/fleet.md runs it."""

from __future__ import annotations

import pytest

from tests.fleet.conftest import assert_guarded, run_program

pytest.importorskip("langchain_core")


def test_the_processes_example() -> None:
    results = run_program("examples/fleet/processes.py")
    for place in ("pool", "own_env"):
        assert_guarded(results[place], results["driver"])
