"""Fixtures for the approval tests: a fresh SQLite store per test, a real redis-server on 127.0.0.1."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hookport.approvals import forget_stores


@pytest.fixture(autouse=True)
def _fresh_stores() -> Iterator[None]:
    yield
    forget_stores()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'approvals.db'}"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A redis-server of its own on a free port (Debian's ``redis-server``; .ci/run installs it)."""
    pytest.importorskip("redis")
    binary = shutil.which("redis-server")
    assert binary, "redis-server is not installed (apt-get install redis-server; .ci/run does)"
    port = free_port()
    folder = tmp_path_factory.mktemp("redis")
    server = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", str(folder)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        else:
            raise RuntimeError("redis-server did not start")
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        server.terminate()
        server.wait(10)
