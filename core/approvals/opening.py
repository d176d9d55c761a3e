"""A store from its URL: ``sqlite:///path.db``, ``redis://host:port/db``, ``memory://``.

`open_store` keeps one store per URL per process, so every rule naming a file shares one
connection pool. `store_url` says which URL applies when a rule names none: the policy's
``[approvals] store``, else ``HOOKPORT_APPROVALS``.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Optional

from hookport.approvals.errors import StoreError
from hookport.approvals.store import ApprovalStore

__all__ = ["ENV", "check_url", "forget_stores", "open_store", "store_url"]

ENV = "HOOKPORT_APPROVALS"
SCHEMES = ("sqlite:///", "redis://", "rediss://", "unix://", "memory://")

_lock = threading.Lock()
_stores: dict[str, ApprovalStore] = {}


def check_url(url: str) -> str:
    """`url` if it names a store kind hookport has; else ValueError saying which kinds there are."""
    if not isinstance(url, str) or not url.startswith(SCHEMES):
        raise ValueError(
            f"{url!r} is not an approval store URL: use \"sqlite:///path/approvals.db\" (a file; four slashes for an "
            f"absolute path), \"redis://host:6379/0\" (pip install 'hookport[redis]') or \"memory://\" (this process only)"
        )
    if url.startswith("sqlite:///") and not url.removeprefix("sqlite:///"):
        raise ValueError(f"{url!r} names no file: \"sqlite:///approvals.db\"")
    return url


def store_url(configured: Optional[str] = None) -> Optional[str]:
    """The URL in force: `configured` (a rule's or the policy's), else ``$HOOKPORT_APPROVALS``, else None."""
    return configured or os.environ.get(ENV) or None


def open_store(url: str) -> ApprovalStore:
    """The store at `url` (opened once per process); `StoreError` if it cannot be opened."""
    with _lock:
        store = _stores.get(url)
        if store is None:
            store = _stores[url] = _open(url)
        return store


def _open(url: str) -> ApprovalStore:
    try:
        check_url(url)
    except ValueError as error:
        raise StoreError(str(error)) from None
    if url.startswith("sqlite:///"):
        from hookport.approvals.sqlite import SQLiteStore

        return SQLiteStore(Path(url.removeprefix("sqlite:///")), url)
    if url.startswith("memory://"):
        from hookport.approvals.memory import MemoryStore

        return MemoryStore(url)
    from hookport.approvals.redis_store import RedisStore

    return RedisStore(url)


def forget_stores() -> None:
    """Close every store opened so far (tests; a process that changes its stores)."""
    with _lock:
        for store in _stores.values():
            store.close()
        _stores.clear()
