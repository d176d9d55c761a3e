"""A Ray cluster for the session, started by the test as a separate cluster would be: ``ray start --head``.

It binds to and advertises 127.0.0.1 only (Ray uses the machine's own address by
default), with no dashboard, no usage stats, no auth token, two CPUs and a small
object store. ``--block`` keeps it in the foreground, so stopping that one process
(its id, never ``ray stop``, which stops every Ray on the machine) ends the cluster.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fleet.services import answers_tcp, free_port

RAY_ENV = {"RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0", "RAY_ENABLE_UV_RUN_RUNTIME_ENV": "0"}


@pytest.fixture(scope="session")
def ray_address(ray_cluster: tuple[str, Path]) -> str:
    return ray_cluster[0]


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[tuple[str, Path]]:
    """(address, Ray's temp dir with the session's logs)."""
    pytest.importorskip("ray")
    port = free_port()
    temp = Path(tempfile.mkdtemp(prefix="hpray-", dir="/tmp"))  # short: Ray's socket paths must fit in 107 bytes
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HOOKPORT_", "RAY_"))} | RAY_ENV
    ray = Path(sys.executable).parent / "ray"
    head = subprocess.Popen(
        [str(ray), "start", "--head", "--block", "--node-ip-address=127.0.0.1", f"--port={port}",
         "--include-dashboard=false", "--num-cpus=2", "--object-store-memory=100000000", "--disable-usage-stats",
         f"--temp-dir={temp}"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not answers_tcp(port):
            assert head.poll() is None, f"ray start exited with {head.returncode}: {head.stderr.read().decode()[-3000:]}"  # type: ignore[union-attr]
            assert time.monotonic() < deadline, "the Ray head did not listen within 120 s"
            time.sleep(0.5)
        yield f"127.0.0.1:{port}", temp
    finally:
        os.killpg(head.pid, signal.SIGTERM)  # ray start's own session: the head and the processes it started
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
            head.wait()
        shutil.rmtree(temp, ignore_errors=True)
