"""Shared by the fleet tests: run a program in a clean child process and read its JSON line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = Path(__file__).parent / "programs"


def clean_environment(**extra: str) -> dict[str, str]:
    """This environment without any hookport setting (each test's program sets up its own guard)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOOKPORT_")}
    env.update(extra)
    return env


def run_program(*args: str, timeout: float = 240, **env: str) -> dict[str, Any]:
    """Run ``python <args>`` from the repository root; its last stdout line, parsed (stderr on failure)."""
    done = subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=clean_environment(**env), capture_output=True, text=True,
        timeout=timeout, check=False,
    )
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 0 and lines, f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr[-4000:]}"
    return json.loads(lines[-1])


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One real redis-server for the session (tests/fleet/services.py)."""
    from tests.fleet.services import redis_server

    with redis_server(tmp_path_factory.mktemp("redis")) as url:
        yield url


def assert_guarded(worker: dict[str, Any], driver_pid: int) -> None:
    """The agent ran in a process of its own, delete_file never ran there, and the driver got the redacted answer."""
    assert worker["pid"] != driver_pid
    assert worker["ran"] == {"read_file": 1, "delete_file": 0}
    assert "file deletion is not allowed" in worker["told"]
    assert worker["answer"] == "Paid with card [CARD]."
    assert worker["guarded"] is True


def assert_unguarded(worker: dict[str, Any], driver_pid: int) -> None:
    """The twin: the same path in another process reaches the tool, and the card goes out."""
    assert worker["pid"] != driver_pid
    assert worker["ran"] == {"read_file": 1, "delete_file": 1}
    assert "4111 1111 1111 1111" in worker["answer"]
    assert worker["guarded"] is False
