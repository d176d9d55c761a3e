"""What can go wrong with a request or a store; each message says what to do next."""

from __future__ import annotations

__all__ = ["AlreadyDecided", "ApprovalError", "StoreError", "UnknownRequest"]


class ApprovalError(Exception):
    """Base class: anything `hookport.approvals` refuses to do."""


class UnknownRequest(ApprovalError, LookupError):
    """No request has this id in this store."""

    def __init__(self, request_id: str, store: str) -> None:
        super().__init__(f"no approval request {request_id!r} in {store} (`hookport approvals list` shows the pending ones)")
        self.request_id = request_id


class AlreadyDecided(ApprovalError):
    """A decision for a request that is no longer pending: it was decided, or timed out."""

    def __init__(self, request_id: str, state: str, by: str | None) -> None:
        who = f" by {by}" if by else ""
        if state == "timed_out":
            detail = "timed out: the call stopped waiting, so a decision now would approve nothing"
        elif state == "consumed":
            detail = f"already approved{who}, and its call has gone through"
        else:
            detail = f"already {state}{who}"
        super().__init__(f"approval request {request_id} is {detail}")
        self.request_id, self.state, self.by = request_id, state, by


class StoreError(ApprovalError):
    """The store cannot be opened, read or written (a bad URL, a missing directory, a lock held too long)."""
