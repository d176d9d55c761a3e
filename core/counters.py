"""Per-run counts that policy rules keep (call budgets, per-tool counts, repeats, flow marks).

Rules ask `counter_store()` rather than keeping dicts of their own, so that one
switch (`use_counter_store`) makes a run whose calls happen in several processes
count once: the default `LocalCounters` counts in this process; a shared store
(Redis, `hookport.fleet`) counts across workers. A store keys by the run's id
(`hookport.runs.current_run_id()`; calls outside any run share the run ``""``).
"""

from __future__ import annotations

import threading
from typing import Protocol, runtime_checkable

__all__ = ["CounterStore", "LocalCounters", "counter_store", "use_counter_store"]


@runtime_checkable
class CounterStore(Protocol):
    """Integer counters grouped by run."""

    def add(self, run: str, key: str, amount: int = 1) -> int:
        """Add `amount` to the counter and return its new value (atomically)."""
        ...

    def get(self, run: str, key: str) -> int:
        """The counter's value (0 if never added to)."""
        ...

    def forget(self, run: str) -> None:
        """Drop every counter of a finished run."""
        ...


class LocalCounters:
    """The in-process store: a dict per run, under one lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: dict[str, dict[str, int]] = {}

    def add(self, run: str, key: str, amount: int = 1) -> int:
        with self._lock:
            counts = self._runs.setdefault(run, {})
            value = counts.get(key, 0) + amount
            counts[key] = value
            return value

    def get(self, run: str, key: str) -> int:
        counts = self._runs.get(run)
        return counts.get(key, 0) if counts else 0

    def forget(self, run: str) -> None:
        with self._lock:
            self._runs.pop(run, None)

    def __repr__(self) -> str:
        return f"<LocalCounters: {len(self._runs)} runs>"


_store: CounterStore = LocalCounters()


def counter_store() -> CounterStore:
    """The store rules count in (process-wide)."""
    return _store


def use_counter_store(store: CounterStore) -> CounterStore:
    """Make `store` the process's counter store; returns the previous one."""
    global _store
    if not isinstance(store, CounterStore):
        raise TypeError(f"a counter store needs add, get and forget; got {type(store).__name__}")
    previous, _store = _store, store
    return previous
