"""The store's transitions, on SQLite, Redis (a real redis-server) and memory: a request per call digest,
one decision, one consumption, expiry that never swallows a decision that landed first."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hookport.approvals import AlreadyDecided, ApprovalStore, StoreError, UnknownRequest, open_store
from hookport.approvals.sqlite import SQLiteStore


@pytest.fixture(params=["sqlite", "redis", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> ApprovalStore:
    if request.param == "sqlite":
        return open_store(f"sqlite:///{tmp_path / 'approvals.db'}")
    if request.param == "redis":
        url = request.getfixturevalue("redis_url")
        opened = open_store(url)
        opened.prefix = f"test:{tmp_path.name}:"  # type: ignore[attr-defined]  # one namespace per test
        return opened
    return open_store(f"memory://{tmp_path.name}")


def file(store: ApprovalStore, digest: str = "d1", **fields: object):  # type: ignore[no-untyped-def]
    return store.request(digest, tool="send_email", arguments={"to": "bob", "cc": []}, run_id="r1", **fields)  # type: ignore[arg-type]


def test_one_open_request_per_call(store: ApprovalStore) -> None:
    first, created = file(store)
    again, created_again = file(store)
    other, other_created = file(store, "d2")
    assert created and not created_again and other_created
    assert again.id == first.id and other.id != first.id
    assert first.state == "pending" and first.arguments == {"to": "bob", "cc": []}
    assert [r.id for r in store.list()] == [other.id, first.id]
    assert store.find("d1") == first and store.find("nope") is None


def test_a_decision_is_made_once(store: ApprovalStore) -> None:
    request, _ = file(store)
    decided = store.decide(request.id, True, by="alice", reason="ok")
    assert (decided.state, decided.decided_by, decided.decision_reason) == ("approved", "alice", "ok")
    with pytest.raises(AlreadyDecided, match="already approved by alice"):
        store.decide(request.id, False, by="mallory")
    assert store.get(request.id).state == "approved"
    with pytest.raises(UnknownRequest, match="no approval request 'nope'"):
        store.decide("nope", True, by="alice")
    with pytest.raises(UnknownRequest):
        store.get("nope")


def test_an_approval_is_consumed_once(store: ApprovalStore) -> None:
    request, _ = file(store)
    assert not store.consume(request.id)  # pending: nothing to consume
    store.decide(request.id, True, by="alice")
    assert store.consume(request.id)
    assert not store.consume(request.id)
    closed = store.get(request.id)
    assert closed.state == "consumed" and not closed.open
    fresh, created = file(store)
    assert created and fresh.id != request.id  # the same call again needs a new approval


def test_an_approval_that_lasts_for_the_run(store: ApprovalStore) -> None:
    request, _ = file(store, lasts="run")
    store.decide(request.id, True, by="alice")
    assert all(store.consume(request.id) for _ in range(3))
    assert file(store)[0].id == request.id


def test_a_denial_is_read_once(store: ApprovalStore) -> None:
    request, _ = file(store)
    store.decide(request.id, False, by="alice", reason="no")
    assert not store.consume(request.id)
    store.acknowledge(request.id)
    assert store.get(request.id).state == "denied" and not store.get(request.id).open
    assert file(store)[1]  # a new request


def test_expiry(store: ApprovalStore) -> None:
    request, _ = file(store)
    assert store.expire(request.id).state == "timed_out"
    with pytest.raises(AlreadyDecided, match="timed out"):
        store.decide(request.id, True, by="alice")
    late, _ = file(store, "d2")
    store.decide(late.id, True, by="alice")
    assert store.expire(late.id).state == "approved"  # the decision landed first: honoured


def test_list_all_states(store: ApprovalStore) -> None:
    a, _ = file(store, "a")
    b, _ = file(store, "b")
    store.decide(a.id, True, by="x")
    assert [r.id for r in store.list()] == [b.id]
    assert {r.id for r in store.list(states=None)} == {a.id, b.id}
    assert [r.id for r in store.list(("approved",))] == [a.id]


def test_survives_reopening(tmp_path: Path) -> None:
    """A restarted program opens the same file and finds the decision made while it was down."""
    url = f"sqlite:///{tmp_path / 'a.db'}"
    first = SQLiteStore(tmp_path / "a.db", url)
    request, _ = file(first)
    first.decide(request.id, True, by="alice")
    first.close()
    again = SQLiteStore(tmp_path / "a.db", url)
    assert again.find("d1") is not None and again.find("d1").state == "approved"  # type: ignore[union-attr]
    assert again.consume(request.id)


def test_bad_urls_and_files(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="directory .* does not exist"):
        open_store(f"sqlite:///{tmp_path / 'missing' / 'a.db'}")
    with pytest.raises(StoreError, match="not an approval store URL"):
        open_store("postgres://db/approvals")
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is not a database, " * 100)
    with pytest.raises(StoreError, match="cannot open the approval store .*garbage.db"):
        open_store(f"sqlite:///{garbage}")


def test_redis_that_is_not_there() -> None:
    pytest.importorskip("redis")
    from tests.approvals.conftest import free_port

    with pytest.raises(StoreError, match="cannot open the approval store redis://127.0.0.1"):
        open_store(f"redis://127.0.0.1:{free_port()}/0")


def test_a_locked_file_is_an_error_not_a_guess(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    store = SQLiteStore(path, busy_timeout=0.2)
    request, _ = file(store)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StoreError, match="is locked"):
            store.decide(request.id, True, by="alice")
        with pytest.raises(StoreError, match="is locked"):
            file(store, "d2")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert store.get(request.id).state == "pending"  # nothing was decided
