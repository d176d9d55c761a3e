"""``memory://``: requests kept in this process only (tests, and an app that serves its own inbox)."""

from __future__ import annotations

import threading
from typing import Any, Optional

from hookport.approvals.model import ApprovalRequest, State
from hookport.approvals.store import ApprovalStore

__all__ = ["MemoryStore"]


class MemoryStore(ApprovalStore):
    """A dict under one lock; gone when the process ends."""

    def __init__(self, url: str = "memory://") -> None:
        self.url = url
        self._lock = threading.Lock()
        self._requests: dict[str, ApprovalRequest] = {}
        self._open_ids: dict[str, str] = {}

    def _open(self, new: ApprovalRequest) -> tuple[ApprovalRequest, bool]:
        with self._lock:
            known = self._open_ids.get(new.digest)
            if known is not None:
                return self._requests[known], False
            self._requests[new.id] = new
            self._open_ids[new.digest] = new.id
            return new, True

    def _find(self, digest: str) -> Optional[ApprovalRequest]:
        known = self._open_ids.get(digest)
        return None if known is None else self._requests.get(known)

    def _get(self, request_id: str) -> Optional[ApprovalRequest]:
        return self._requests.get(request_id)

    def _list(self, states: Optional[tuple[State, ...]], limit: int) -> list[ApprovalRequest]:
        with self._lock:
            found = [r for r in self._requests.values() if states is None or r.state in states]
        return sorted(found, key=lambda r: r.created_at, reverse=True)[:limit]

    def _transition(
        self, request_id: str, sources: tuple[State, ...], changes: dict[str, Any], close: bool
    ) -> tuple[bool, Optional[ApprovalRequest]]:
        with self._lock:
            current = self._requests.get(request_id)
            if current is None or current.state not in sources or not current.open:
                return False, current
            updated = self._requests[request_id] = current.model_copy(update=changes)
            if close and self._open_ids.get(current.digest) == request_id:
                del self._open_ids[current.digest]
            return True, updated
