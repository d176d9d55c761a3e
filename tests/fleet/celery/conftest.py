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
from tests.fleet.services import stop


EXAMPLES = ROOT / "examples" / "fleet"


def start_worker(app: str, cwd: Path, env: dict[str, str], log: Path, pool: str = "prefork") -> subprocess.Popen[bytes]:
    """``celery -A app worker`` with a pool of one process (prefork) or none (solo), from `cwd`, with none of
    hookport's variables."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("HOOKPORT_")}
    celery = str(Path(sys.executable).parent / "celery")
    return subprocess.Popen(
        [celery, "-A", app, "worker", "--pool", pool, "--concurrency", "1",
         "--loglevel", "INFO", "--without-heartbeat", "--without-mingle", "--without-gossip"],
        env={**clean, **env}, cwd=cwd, stdout=log.open("wb"), stderr=subprocess.STDOUT,
    )


def wait_until_ready(worker: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 120
    while b"ready." not in log.read_bytes():
        assert worker.poll() is None, log.read_text()[-4000:]
        assert time.monotonic() < deadline, "the Celery worker was not ready within 120 s:\n" + log.read_text()[-4000:]
        time.sleep(0.2)


@pytest.fixture
def example_worker(redis_url: str, tmp_path: Path) -> Iterator[str]:
    """A worker of examples/fleet/celery_tasks.py, started from that directory as its docs say; yields the broker."""
    pytest.importorskip("celery")
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    log = tmp_path / "worker.log"
    worker = start_worker("celery_tasks", EXAMPLES, {"BROKER": redis_url}, log)
    try:
        wait_until_ready(worker, log)
        yield redis_url
    finally:
        stop(worker)


@pytest.fixture
def celery_worker(request: pytest.FixtureRequest, redis_url: str, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """(broker URL, worker log) of a worker that is ready; ``request.param``: ``guard`` (bool), ``hooks``
    (the hook modules it is guarded with, default the examples' ``guards``), ``pool`` (default prefork)."""
    pytest.importorskip("celery")
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    log = tmp_path / "worker.log"
    settings = request.param
    env = {"FLEET_BROKER": redis_url, "PYTHONPATH": str(ROOT)}
    if settings["guard"]:
        env["FLEET_GUARD"] = "1"
    if settings.get("hooks"):
        env["FLEET_GUARD_HOOKS"] = settings["hooks"]
    worker = start_worker("tests.fleet.programs.celery_app", ROOT, env, log, settings.get("pool", "prefork"))
    try:
        wait_until_ready(worker, log)
        yield redis_url, log
    finally:
        stop(worker)
