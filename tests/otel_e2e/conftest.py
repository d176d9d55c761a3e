"""A real Arize Phoenix (``phoenix serve``) on 127.0.0.1, started and stopped by the tests.

Phoenix takes OTLP over HTTP at ``/v1/traces`` and gives the spans back through its REST
API; its own telemetry is off (``PHOENIX_TELEMETRY_ENABLED=false``) and it needs no network.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("phoenix")

STARTUP_SECONDS = 180


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Phoenix:
    """A running server: where to export, and its spans by project."""

    def __init__(self, url: str) -> None:
        self.url = url

    @property
    def traces_endpoint(self) -> str:
        return f"{self.url}/v1/traces"

    def spans(self, project: str, expected: int, timeout: float = 60) -> list[dict[str, Any]]:
        """The project's spans once at least `expected` arrived and no more come (ingestion is batched)."""
        deadline, seen = time.monotonic() + timeout, -1
        while True:
            found = self._fetch(project)
            if len(found) >= expected and len(found) == seen:
                return found
            if time.monotonic() > deadline:
                raise AssertionError(f"Phoenix has {len(found)} spans for {project}, expected {expected}")
            seen = len(found)
            time.sleep(0.5)

    def _fetch(self, project: str) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        cursor = None
        while True:
            query = f"{self.url}/v1/projects/{project}/spans?limit=1000" + (f"&cursor={cursor}" if cursor else "")
            try:
                with urllib.request.urlopen(query, timeout=10) as answer:  # noqa: S310 (127.0.0.1)
                    page = json.load(answer)
            except urllib.error.HTTPError as error:
                if error.code == 404:  # the project does not exist until its first span
                    return []
                raise
            found.extend(page.get("data", []))
            cursor = page.get("next_cursor")
            if not cursor:
                return found


@pytest.fixture(scope="session")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Phoenix]:
    command = shutil.which("phoenix", path=str(Path(sys.executable).parent))
    assert command, "phoenix (arize-phoenix) is a dependency of the otel-e2e env (tox.ini)"
    port, grpc = free_port(), free_port()
    work = tmp_path_factory.mktemp("phoenix")
    env = dict(os.environ, PHOENIX_WORKING_DIR=str(work), PHOENIX_HOST="127.0.0.1", PHOENIX_PORT=str(port),
               PHOENIX_GRPC_PORT=str(grpc), PHOENIX_TELEMETRY_ENABLED="false")
    env.pop("OTEL_SDK_DISABLED", None)
    log = (work / "phoenix.log").open("w")
    server = subprocess.Popen([command, "serve"], env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:
            try:
                with urllib.request.urlopen(f"{url}/healthz", timeout=2):  # noqa: S310 (127.0.0.1)
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"phoenix serve did not start: {(work / 'phoenix.log').read_text()[-3000:]}")
                time.sleep(0.5)
        yield Phoenix(url)
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=30)
        log.close()
