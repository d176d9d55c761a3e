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

import pytest

from tests.fleet.conftest import ROOT
from tests.fleet.services import answers_tcp, free_port, stop


@pytest.fixture
def dask_address(tmp_path: Path) -> Iterator[str]:
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
    worker = None
    try:
        deadline = time.monotonic() + 60
        while not answers_tcp(port):
            assert scheduler.poll() is None and time.monotonic() < deadline, (tmp_path / "dask.log").read_text()[-3000:]
            time.sleep(0.2)
        worker = subprocess.Popen(
            [dask, "worker", address, "--host", "127.0.0.1", "--nworkers", "1", "--nthreads", "1", "--no-dashboard",
             "--local-directory", str(tmp_path / "worker")],
            env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
        )
        yield address
    finally:
        for process in (worker, scheduler):
            if process is not None:
                stop(process)
        log.close()
