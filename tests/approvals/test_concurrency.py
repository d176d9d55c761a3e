"""Several waiters on one request, in threads and in processes, on SQLite and on Redis: one decision
reaches them all, and one approval lets exactly one call through (``lasts = "run"``: all of them)."""

from __future__ import annotations

import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from hookport.approvals import ApprovalStore, open_store
from hookport.approvals.waiting import ask
from tests.approvals.workers import the_call, wait_for_decision

WAITERS = 4


@pytest.fixture(params=["sqlite", "redis"])
def url_and_prefix(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, str | None]:
    (tmp_path / "ready").mkdir()
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'approvals.db'}", None
    return request.getfixturevalue("redis_url"), f"concurrency:{tmp_path.name}:"


def run_waiters(pool: Any, url: str, prefix: str | None, lasts: str, timeout: float, ready: Path) -> tuple[str, list[dict[str, Any]]]:
    """File the request, start the waiters, and approve it once every one of them is bound to it."""
    store = open_store(url)
    if prefix is not None:
        store.prefix = prefix  # type: ignore[attr-defined]
    request, _ = ask(store, the_call(lasts))
    futures = [pool.submit(wait_for_decision, url, prefix, lasts, timeout, str(ready)) for _ in range(WAITERS)]
    deadline = time.monotonic() + 60
    while len(list(ready.iterdir())) < WAITERS:
        assert time.monotonic() < deadline, "the waiters did not start"
        assert not any(f.done() for f in futures), [f.result() for f in futures if f.done()]
        time.sleep(0.02)
    store.decide(request.id, True, by="main")
    return request.id, [f.result(timeout=60) for f in futures]


def pools() -> list[Any]:
    return [
        pytest.param(lambda: ThreadPoolExecutor(WAITERS), id="threads"),
        pytest.param(lambda: ProcessPoolExecutor(WAITERS, mp_context=multiprocessing.get_context("spawn")), id="processes"),
    ]


@pytest.mark.parametrize("make_pool", pools())
def test_one_approval_lets_one_call_through(make_pool: Any, url_and_prefix: tuple[str, str | None], tmp_path: Path) -> None:
    url, prefix = url_and_prefix
    with make_pool() as pool:
        request_id, results = run_waiters(pool, url, prefix, "call", 3, tmp_path / "ready")
    outcomes = sorted(r["outcome"] for r in results)
    assert outcomes == ["approval_timeout"] * (WAITERS - 1) + ["approved"], results
    for result in results:  # every waiter was bound to the one request and saw it decided
        assert result["seen"][0] == request_id and result["first_by"] == "main" and result["first_state"] == "consumed"
    losers = [r for r in results if r["outcome"] != "approved"]
    assert all(len(r["seen"]) >= 2 for r in losers)  # each asked anew after the approval was used


@pytest.mark.parametrize("make_pool", pools())
def test_an_approval_for_the_run_reaches_every_waiter(make_pool: Any, url_and_prefix: tuple[str, str | None], tmp_path: Path) -> None:
    url, prefix = url_and_prefix
    with make_pool() as pool:
        request_id, results = run_waiters(pool, url, prefix, "run", 30, tmp_path / "ready")
    assert [r["outcome"] for r in results] == ["approved"] * WAITERS, results
    assert all(r["seen"] == [request_id] for r in results)
