"""The store protocol: a request per call digest, and the few atomic transitions a decision makes.

Every backend implements four primitives (`_open`, `_get`, `_list`, `_transition`); the
transitions themselves are written once here, so SQLite, Redis and the in-process store
agree on what "decide", "consume" and "expire" mean:

    pending --decide--> approved --consume--> consumed      (lasts = "run": stays approved)
    pending --decide--> denied   --acknowledge--> (closed)
    pending --expire--> timed_out

Each transition is conditional on the state it starts from and happens in one atomic step
in the store, so two processes racing to consume one approval cannot both win, and a
decision racing a timeout either lands before it (the call goes through) or is refused.
"""

from __future__ import annotations

import abc
import time
from typing import Any, Optional

from hookport.approvals.errors import AlreadyDecided, UnknownRequest
from hookport.approvals.model import ApprovalRequest, Lasts, State, new_request_id

__all__ = ["ApprovalStore"]


class ApprovalStore(abc.ABC):
    """Requests and decisions, shared by every process that opens the same `url`."""

    url: str

    # -- the primitives each backend implements -------------------------------------------

    @abc.abstractmethod
    def _open(self, new: ApprovalRequest) -> tuple[ApprovalRequest, bool]:
        """The open request for ``new.digest``, or `new` stored (then True), atomically."""

    @abc.abstractmethod
    def _find(self, digest: str) -> Optional[ApprovalRequest]:
        """The open request for this call digest, or None."""

    @abc.abstractmethod
    def _get(self, request_id: str) -> Optional[ApprovalRequest]:
        """The request, or None."""

    @abc.abstractmethod
    def _list(self, states: Optional[tuple[State, ...]], limit: int) -> list[ApprovalRequest]:
        """Requests in these states (all when None), newest first."""

    @abc.abstractmethod
    def _transition(
        self, request_id: str, sources: tuple[State, ...], changes: dict[str, Any], close: bool
    ) -> tuple[bool, Optional[ApprovalRequest]]:
        """If the request is in one of `sources` (and open), apply `changes` (and close it when
        `close`: it no longer answers its digest). Returns (applied, the request as it is now)."""

    def close(self) -> None:
        """Release connections (the store may be opened again)."""

    # -- what callers use ---------------------------------------------------------------

    def request(
        self, digest: str, *, tool: str, arguments: Any = None, agent: str | None = None,
        run_id: str | None = None, framework: str | None = None, rule: str = "", lasts: Lasts = "call",
    ) -> tuple[ApprovalRequest, bool]:
        """The open request for this call, or a new pending one; True when it was created now."""
        new = ApprovalRequest(
            id=new_request_id(), digest=digest, tool=tool, arguments=arguments, agent=agent, run_id=run_id,
            framework=framework, rule=rule, lasts=lasts, created_at=time.time(),
        )
        return self._open(new)

    def find(self, digest: str) -> Optional[ApprovalRequest]:
        """The open request of this call (pending, approved and not yet used, or denied and not yet read)."""
        return self._find(digest)

    def get(self, request_id: str) -> ApprovalRequest:
        found = self._get(request_id)
        if found is None:
            raise UnknownRequest(request_id, self.url)
        return found

    def list(self, states: Optional[tuple[State, ...]] = ("pending",), limit: int = 200) -> list[ApprovalRequest]:
        """Pending requests by default; ``states=None`` for all of them."""
        return self._list(states, limit)

    def decide(self, request_id: str, approve: bool, *, by: str, reason: str | None = None) -> ApprovalRequest:
        """Approve or deny a pending request; refuses an unknown id and any second decision."""
        changes = {"state": "approved" if approve else "denied", "decided_at": time.time(),
                   "decided_by": by, "decision_reason": reason}
        applied, now = self._transition(request_id, ("pending",), changes, close=False)
        if now is None:
            raise UnknownRequest(request_id, self.url)
        if not applied:
            raise AlreadyDecided(request_id, now.state, now.decided_by)
        return now

    def consume(self, request_id: str) -> bool:
        """Let the call through on this approval: True for exactly one caller (for a ``lasts = "run"``
        approval, for every caller while it stays approved)."""
        current = self._get(request_id)
        if current is None or current.state != "approved" or not current.open:
            return False
        if current.lasts == "run":
            return True
        applied, _ = self._transition(request_id, ("approved",), {"state": "consumed", "closed_at": time.time()}, True)
        return applied

    def acknowledge(self, request_id: str) -> None:
        """A denial reached its call: the next identical call asks again."""
        self._transition(request_id, ("denied",), {"closed_at": time.time()}, close=True)

    def expire(self, request_id: str) -> ApprovalRequest:
        """The waiting call gives up. Returns the request as it is now: ``timed_out``, or decided (a
        decision that landed first is honoured)."""
        _, now = self._transition(request_id, ("pending",), {"state": "timed_out", "closed_at": time.time()}, True)
        if now is None:
            raise UnknownRequest(request_id, self.url)
        return now

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.url}>"
