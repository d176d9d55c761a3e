"""A real Celery prefork worker per test, on a real redis-server, not started under `hookport run`."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fleet.conftest import ROOT


def start_worker(broker: str, guarded: bool | str, log: Path) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOOKPORT_")}
    env.update(FLEET_BROKER=broker, PYTHONPATH=str(ROOT))
    if guarded:
        env["FLEET_GUARD"] = "1"
    if isinstance(guarded, str):
        env["FLEET_GUARD_HOOKS"] = guarded
    celery = str(Path(sys.executable).parent / "celery")
    return subprocess.Popen(
        [celery, "-A", "tests.fleet.programs.celery_app", "worker", "--pool", "prefork", "--concurrency", "1",
         "--loglevel", "INFO", "--without-heartbeat", "--without-mingle", "--without-gossip"],
        env=env, cwd=ROOT, stdout=log.open("wb"), stderr=subprocess.STDOUT,
    )


@pytest.fixture
def celery_worker(request: pytest.FixtureRequest, redis_url: str, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """(broker URL, worker log) of a worker that is ready; ``request.param`` says whether it is guarded
    (a string: guarded with these hook modules)."""
    pytest.importorskip("celery")
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    log = tmp_path / "worker.log"
    worker = start_worker(redis_url, request.param, log)
    try:
        deadline = time.monotonic() + 120
        while b"ready." not in log.read_bytes():
            assert worker.poll() is None, log.read_text()[-4000:]
            assert time.monotonic() < deadline, "the Celery worker was not ready within 120 s:\n" + log.read_text()[-4000:]
            time.sleep(0.2)
        yield redis_url, log
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=60)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
