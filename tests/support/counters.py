"""The counter stores' threaded check, written once for both stores.

`assert_concurrent_adds_all_count` runs in tests/core (the local store, in every core env)
and in tests/fleet/counters (the Redis store, on the real redis-server the fleet tests
start): each env has the store it tests, so each calls the check with its own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from hookport.counters import CounterStore


def in_threads(work: Callable[[], object], count: int) -> None:
    """Run `work` in `count` threads at once and wait for them all."""
    threads = [threading.Thread(target=work) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def assert_concurrent_adds_all_count(store: CounterStore, client: Callable[[], CounterStore], run: str, key: str,
                                     *, threads: int, adds: int) -> None:
    """`threads` threads add 1 to one counter `adds` times each, each through `client()` (the store
    itself, or a client of its own as another process has): `store` reads every add, none lost."""

    def add_many() -> None:
        own = client()
        for _ in range(adds):
            own.add(run, key)

    in_threads(add_many, threads)
    assert store.get(run, key) == threads * adds
