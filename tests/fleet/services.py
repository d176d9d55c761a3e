"""The real services the fleet tests start on 127.0.0.1: a free port, waiting for it, stopping by process id,
and a redis-server (no persistence, stopped at the end).

Debian's ``redis-server`` package provides the binary (.ci/run installs it when it
is missing; tox cannot). Without it the fixture fails, never skips: the fleet's
shared counters and its Celery broker need it.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def answers_tcp(port: int) -> bool:
    """True once something accepts connections on 127.0.0.1:`port`."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as connection:
            connection.sendall(b"PING\r\n")
            return connection.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@contextmanager
def redis_server(directory: Path) -> Iterator[str]:
    """Start redis-server; yields its URL (``redis://127.0.0.1:<port>/0``)."""
    binary = shutil.which("redis-server")
    assert binary, "redis-server is not installed: apt-get install redis-server (.ci/run does)"
    port = free_port()
    process = subprocess.Popen(
        [binary, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no", "--dir", str(directory)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while not answers(port):
            assert process.poll() is None, f"redis-server exited with {process.returncode}"
            assert time.monotonic() < deadline, "redis-server did not answer within 20 s"
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        stop(process)


def stop(process: subprocess.Popen[bytes]) -> None:
    """Terminate `process` (one the test started), killing it if it has not exited within 60 s."""
    process.terminate()
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
