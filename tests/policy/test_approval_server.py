"""A sync approver on an async call site runs off the event loop: a real uvicorn server on
127.0.0.1, whose endpoint runs a LangChain agent with ``ainvoke``, keeps answering /health
while one approval waits for a person.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("langchain_core")
uvicorn = pytest.importorskip("uvicorn")

from hookport.policy import parse_policy  # noqa: E402

from tests.policy import approvals  # noqa: E402
from tests.policy.agents import Toolbox, ask, build_agent, call, langchain_installed, told  # noqa: E402,F401

pytestmark = pytest.mark.usefixtures("langchain_installed")

box = Toolbox()


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """A plain ASGI app: /health answers at once, /run runs the agent."""
    if scope["type"] != "http":
        return
    if scope["path"] == "/run":
        state = await build_agent(box, call("send_email", to="a@example.com", body="hi")).ainvoke(ask())
        body = json.dumps({"told": told(state, "send_email")}).encode()
    else:
        body = b'{"ok": true}'
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})


@pytest.fixture
def server() -> Iterator[str]:
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off")
    running = uvicorn.Server(config)
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not running.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert running.started, "uvicorn did not start"
    port = running.servers[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}"
    running.should_exit = True
    thread.join(10)


def get(url: str, timeout: float) -> dict[str, Any]:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # 127.0.0.1 only, never a proxy
    with opener.open(url, timeout=timeout) as response:
        return json.loads(response.read())


def test_health_answers_while_an_approval_waits(server: str) -> None:
    box.ran["send_email"] = 0
    approvals.person = approvals.Person()
    parse_policy('[[approval]]\nhook = "tests.policy.approvals:person"\ntools = ["send_email"]\n', "p.toml").register()
    result: dict[str, Any] = {}
    running = threading.Thread(target=lambda: result.update(get(f"{server}/run", timeout=30)), daemon=True)
    running.start()
    assert approvals.person.asking.wait(15), "the approval was never asked"
    started = time.perf_counter()
    assert get(f"{server}/health", timeout=3) == {"ok": True}  # the loop is free while the person thinks
    assert time.perf_counter() - started < 2
    assert box.ran["send_email"] == 0  # still waiting for the answer
    approvals.person.answered.set()
    running.join(30)
    assert result == {"told": "sent"} and box.ran["send_email"] == 1
