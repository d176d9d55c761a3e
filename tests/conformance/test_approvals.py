"""Human approvals on every adapter: a policy's ``[[approval]]`` rule with a store, no hook.

Block mode: the agent's run waits in the tool call while a person (a thread here) decides
in the store; the tool runs only after the approval, exactly once. Defer mode: the call is
refused at once with ``approval pending: <id>``; once approved, the same call in the same
run goes through, once. A denied or timed-out request never runs the tool, and each of those
tests has an approved twin on the same path, so it is the approval that decides.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hookport import runs
from hookport.approvals import ApprovalRequest, ApprovalStore, forget_stores, open_store
from hookport.policy import parse_policy
from tests.conformance.harness import Harness, Turn

PURGE = [Turn.call("purge_records", table="users"), Turn.final("done")]


@pytest.fixture
def store_url(tmp_path: Path) -> Iterator[str]:
    yield f"sqlite:///{tmp_path / 'approvals.db'}"
    forget_stores()


def policy(url: str, wait: str, timeout: float | None = 60) -> ApprovalStore:
    text = f'[[approval]]\ntools = ["purge_records"]\nstore = "{url}"\nwait = "{wait}"\nreason = "purges need a yes"\n'
    if timeout is not None:
        text += f"timeout = {timeout}\n"
    parse_policy(text, "policy.toml").register()
    return open_store(url)


class Person(threading.Thread):
    """Decides the first pending request as soon as it appears (after checking the tool has not run)."""

    def __init__(self, store: ApprovalStore, approve: bool) -> None:
        super().__init__(daemon=True)
        self.store, self.approve = store, approve
        self.decided: ApprovalRequest | None = None

    def run(self) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            pending = self.store.list()
            if pending:
                self.decided = self.store.decide(pending[0].id, self.approve, by="conformance", reason="not today")
                return
            time.sleep(0.02)


@pytest.mark.parametrize("approve", [True, False], ids=["approved", "denied"])
def test_approvals__block(harness: Harness, store_url: str, approve: bool) -> None:
    store = policy(store_url, "block")
    person = Person(store, approve)
    person.start()
    result = harness.run(PURGE)
    person.join(5)
    assert person.decided is not None, f"no request was filed ({result.error!r})"
    assert person.decided.tool == "purge_records" and person.decided.arguments == {"table": "users"}
    assert len(result.runs_of("purge_records")) == (1 if approve else 0), result.error
    after = store.get(person.decided.id)
    assert after.state == ("consumed" if approve else "denied") and not after.open


def test_approvals__block_timeout(harness: Harness, store_url: str) -> None:
    store = policy(store_url, "block", timeout=0.4)
    result = harness.run(PURGE)
    assert result.runs_of("purge_records") == [], result.error
    [request] = store.list(states=None)
    assert request.state == "timed_out"
    assert f"approval {request.id} timed out" in result.seen_by_model() or result.error is not None


@pytest.mark.parametrize("approve", [True, False], ids=["approved", "denied"])
def test_approvals__defer(harness: Harness, store_url: str, approve: bool) -> None:
    store = policy(store_url, "defer")
    run_id = f"conformance-defer-{harness.framework}-{approve}"
    with runs.bind_run(run_id):
        first = harness.run(PURGE)
    assert first.runs_of("purge_records") == [], first.error
    [request] = store.list()
    assert request.run_id == run_id
    assert f"approval pending: {request.id}" in first.seen_by_model(), first.error
    store.decide(request.id, approve, by="conformance")
    with runs.bind_run(run_id):
        second = harness.run(PURGE)
    assert len(second.runs_of("purge_records")) == (1 if approve else 0), second.error
    assert not store.get(request.id).open
    if approve:  # consumed: the same call once more needs a new approval
        with runs.bind_run(run_id):
            third = harness.run(PURGE)
        assert third.runs_of("purge_records") == [], third.error
        [again] = store.list()
        assert again.id != request.id


def test_approvals__block_async(harness: Harness, store_url: str) -> None:
    """The async entry point: the wait polls between ``asyncio.sleep``s on the framework's loop."""
    if "async" not in harness.entries:
        pytest.skip(f"not offered by {harness.framework}: no async entry point")
    store = policy(store_url, "block")
    person = Person(store, True)
    person.start()
    result = harness.run(PURGE, entry="async")
    person.join(5)
    assert person.decided is not None, f"no request was filed ({result.error!r})"
    assert len(result.runs_of("purge_records")) == 1, result.error
