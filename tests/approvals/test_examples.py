"""docs/approvals.md's three walk-throughs, run as the page runs them: real processes, the real CLI.

- terminal: examples/approvals/terminal.py is refused (``approval pending: <id>``), ``hookport approvals
  approve <id>``, the same command sends the email once; once more needs a new approval;
- web server: examples/approvals/web_app.py answers 202 with the pending id, the person approves in
  ``hookport approvals serve`` (the page's own form), the same request answers 200 ``sent``;
- worker fleet: two examples/approvals/fleet.py workers on one Redis wait in their tool calls; one
  approval and one denial from the CLI release them (one email sent, one refused).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("langchain_core")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "approvals"


def environment(store: str) -> dict[str, str]:
    return {**os.environ, "HOOKPORT_APPROVALS": store, "PYTHONUNBUFFERED": "1"}


def run(args: list[str], store: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=120, env=environment(store),
                            cwd=ROOT)
    assert result.returncode == 0, result.stderr
    return result


def approvals(*args: str, store: str) -> subprocess.CompletedProcess[str]:
    return run(["-m", "hookport.cli", "approvals", *args], store)


def pending_id(text: str) -> str:
    found = re.search(r"approval pending: ([0-9a-f]+)", text)
    assert found, text
    return found.group(1)


def test_terminal(sqlite_url: str) -> None:
    first = run([str(EXAMPLES / "terminal.py"), "ticket-42"], sqlite_url).stdout
    request_id = pending_id(first)
    assert request_id in approvals("list", store=sqlite_url).stdout
    approvals("approve", request_id, store=sqlite_url)
    assert run([str(EXAMPLES / "terminal.py"), "ticket-42"], sqlite_url).stdout == "send_email: sent\n"
    again = run([str(EXAMPLES / "terminal.py"), "ticket-42"], sqlite_url).stdout
    assert pending_id(again) != request_id  # consumed: the same email again needs a new yes


class Started:
    """A long-running process whose first output line names its URL; stopped at the end."""

    def __init__(self, args: list[str], store: str) -> None:
        self.process = subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True, env=environment(store), cwd=ROOT)
        line = self.process.stdout.readline()  # type: ignore[union-attr]
        found = re.search(r"http://[\d.]+:\d+/", line)
        assert found, line + self.process.stderr.read()  # type: ignore[union-attr]
        self.url = found.group(0)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)


@pytest.fixture
def started() -> Iterator[list[Started]]:
    running: list[Started] = []
    yield running
    for process in running:
        process.stop()


def fetch(url: str, data: dict[str, str] | None = None) -> tuple[int, str]:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    body = urllib.parse.urlencode(data).encode() if data is not None else None
    try:
        with opener.open(urllib.request.Request(url, data=body), timeout=60) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_web_server(sqlite_url: str, started: list[Started]) -> None:
    inbox = Started(["-m", "hookport.cli", "approvals", "serve", "--port", "0"], sqlite_url)
    started.append(inbox)
    app = Started([str(EXAMPLES / "web_app.py"), "0"], sqlite_url)
    started.append(app)
    status, text = fetch(f"{app.url}send?ticket=T-9&to=bob@example.com")
    request_id = pending_id(text)
    assert status == 202
    _, page = fetch(inbox.url)
    assert request_id in page and "T-9" in page
    _, detail = fetch(f"{inbox.url}requests/{request_id}")
    csrf = re.search(r'name=csrf value="([0-9a-f]+)"', detail).group(1)  # type: ignore[union-attr]
    fetch(f"{inbox.url}requests/{request_id}/approve", {"csrf": csrf, "by": "alice"})
    assert fetch(f"{app.url}send?ticket=T-9&to=bob@example.com") == (200, "send_email: sent\n")
    assert fetch(f"{app.url}send?ticket=T-10&to=bob@example.com")[0] == 202  # another ticket, another request


def test_worker_fleet(redis_url: str, tmp_path: Path) -> None:
    store = f"{redis_url.rsplit('/', 1)[0]}/3"  # a database of its own on the test server
    import redis

    redis.Redis.from_url(store).flushdb()
    workers = [subprocess.Popen([sys.executable, str(EXAMPLES / "fleet.py"), job, to], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=environment(store), cwd=ROOT)
               for job, to in (("job-1", "bob@example.com"), ("job-2", "eve@example.com"))]
    try:
        deadline = time.monotonic() + 90
        pending: list[dict[str, str]] = []
        while len(pending) < 2 and time.monotonic() < deadline:
            pending = json.loads(approvals("list", "--json", store=store).stdout)
            time.sleep(0.2)
        assert len(pending) == 2, [w.stderr.read() for w in workers if w.poll() is not None]  # type: ignore[union-attr]
        by_job = {row["run_id"]: row["id"] for row in pending}
        approvals("approve", by_job["job-1"], store=store)
        approvals("deny", by_job["job-2"], "--reason", "not to Eve", store=store)
        outputs = [w.communicate(timeout=60)[0] for w in workers]
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
    assert outputs[0] == "job-1 send_email: sent\n"
    assert "job-2 send_email:" in outputs[1] and "denied by cli:" in outputs[1] and "not to Eve" in outputs[1]
