"""The inbox end to end in a real headless Chromium: an agent waits, a person clicks approve, the tool runs once.

A real LangChain agent loop (scripted model) runs in a thread under a ``wait = "block"`` rule;
``hookport approvals serve`` (the real command, a subprocess) serves the store on 127.0.0.1; Playwright
drives Debian's ``/usr/bin/chromium`` (``executable_path``: no browser is downloaded, ``playwright
install`` is never run). The page lists the pending request, the test opens it and clicks Approve, and
the agent's tool runs exactly once; the twin clicks Deny and the tool never runs.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain_core")
playwright = pytest.importorskip("playwright.sync_api")

from hookport.approvals import forget_stores, open_store  # noqa: E402
from hookport.policy import parse_policy  # noqa: E402
from tests.policy.agents import Toolbox, ask, build_agent, call, langchain_installed, told  # noqa: E402,F401

pytestmark = pytest.mark.usefixtures("langchain_installed")

CHROMIUM = os.environ.get("HOOKPORT_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture
def store_url(tmp_path: Path) -> Iterator[str]:
    yield f"sqlite:///{tmp_path / 'approvals.db'}"
    forget_stores()


@pytest.fixture
def inbox(store_url: str) -> Iterator[str]:
    """``hookport approvals serve --port 0``: the URL it prints."""
    server = subprocess.Popen([sys.executable, "-m", "hookport.cli", "approvals", "serve", "--port", "0", "--store", store_url],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()  # type: ignore[union-attr]
        found = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert found, line + server.stderr.read()  # type: ignore[union-attr]
        yield found.group(0)
    finally:
        server.terminate()
        server.wait(10)


@pytest.fixture
def page(tmp_path: Path) -> Iterator[Any]:
    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is missing (apt-get install chromium; .ci/run does)"
    with playwright.sync_playwright() as driver:
        context = driver.chromium.launch_persistent_context(
            str(tmp_path / "profile"), executable_path=CHROMIUM, headless=True, args=FLAGS)
        try:
            yield context.new_page()
        finally:
            context.close()


def agent_waiting(store_url: str) -> tuple[Toolbox, threading.Thread, list[str]]:
    parse_policy(f'[[approval]]\ntools = ["send_email"]\nstore = "{store_url}"\nwait = "block"\ntimeout = 60\n',
                 "policy.toml").register()
    box = Toolbox()
    told_it: list[str] = []

    def work() -> None:
        state = build_agent(box, call("send_email", to="bob@example.com", body="quarterly report")).invoke(ask())
        told_it.append(told(state, "send_email"))

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    return box, thread, told_it


@pytest.mark.parametrize("verb", ["approve", "deny"])
def test_a_click_in_the_inbox_decides_the_waiting_call(store_url: str, inbox: str, page: Any, verb: str) -> None:
    box, thread, told_it = agent_waiting(store_url)
    page.goto(inbox)
    row = page.locator("tr.request")
    row.first.wait_for(timeout=30_000)  # the list page refreshes itself until the request is there
    assert row.count() == 1 and box.ran["send_email"] == 0
    text = row.first.inner_text()
    assert "send_email" in text and "bob@example.com" in text and "quarterly report" in text
    row.first.locator("a").click()
    page.fill("form[action$='/" + verb + "'] input[name=by]", "alice")
    page.click(f"#{verb}")
    page.wait_for_url(re.compile(r"/requests/[0-9a-f]+$"))
    thread.join(30)
    assert not thread.is_alive()
    [request] = open_store(store_url).list(states=None)
    assert request.decided_by == "web:alice"
    if verb == "approve":
        assert box.ran["send_email"] == 1 and told_it == ["sent"]
        assert request.state == "consumed"
    else:
        assert box.ran["send_email"] == 0 and "denied by web:alice" in told_it[0]
    page.reload()
    assert page.locator("#state").inner_text() == request.state  # the page shows what became of it
