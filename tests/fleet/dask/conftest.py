"""A running Dask cluster per test: ``dask scheduler`` and ``dask worker`` (with its nanny), on 127.0.0.1.

Started as someone else would have started them, before the client connects, with
none of hookport's variables (the program's code is on their path, as a deployment has it); each test gets its own, since a worker once guarded
stays guarded. Stopped by their process ids.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fleet.conftest import ROOT
from tests.fleet.services import answers_tcp, free_port, stop


class DaskCluster:
    """A scheduler and the workers the test started into it."""

    def __init__(self, address: str, env: dict[str, str], log: Any, directory: Path) -> None:
        self.address, self.env, self.log, self.directory = address, env, log, directory
        self.processes: list[subprocess.Popen[bytes]] = []

    def add_worker(self) -> None:
        """Start one more ``dask worker`` (with its nanny) into the scheduler."""
        dask = str(Path(sys.executable).parent / "dask")
        self.processes.append(subprocess.Popen(
            [dask, "worker", self.address, "--host", "127.0.0.1", "--nworkers", "1", "--nthreads", "1", "--no-dashboard",
             "--local-directory", str(self.directory / f"worker-{len(self.processes)}")],
            env=self.env, cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT,
        ))


@pytest.fixture
def dask_address(dask_cluster: DaskCluster) -> str:
    return dask_cluster.address


@pytest.fixture
def dask_cluster(tmp_path: Path) -> Iterator[DaskCluster]:
    pytest.importorskip("distributed")
    dask = str(Path(sys.executable).parent / "dask")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOOKPORT_")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "examples" / "fleet")])  # the programs' code is deployed there
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    log = (tmp_path / "dask.log").open("wb")
    scheduler = subprocess.Popen(
        [dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
        env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
    )
    cluster = DaskCluster(address, env, log, tmp_path)
    try:
        deadline = time.monotonic() + 60
        while not answers_tcp(port):
            assert scheduler.poll() is None and time.monotonic() < deadline, (tmp_path / "dask.log").read_text()[-3000:]
            time.sleep(0.2)
        cluster.add_worker()
        yield cluster
    finally:
        for process in [*cluster.processes, scheduler]:
            stop(process)
        log.close()
