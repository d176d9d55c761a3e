"""One approval request, as every store keeps it and every inbox shows it."""

from __future__ import annotations

import time
import uuid
from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict

__all__ = ["ApprovalRequest", "Lasts", "State", "new_request_id"]

State = Literal["pending", "approved", "denied", "consumed", "timed_out"]
"""``pending`` until a person decides; ``approved`` until the call it was asked for goes through
(then ``consumed``, unless it lasts for the run); ``denied``; ``timed_out`` when the waiting call
gave up first (a later decision is refused: nothing waits for it)."""

Lasts = Literal["call", "run"]

OPEN_STATES: tuple[State, ...] = ("pending", "approved", "denied")
"""States in which a request still answers its call (at most one such request per call digest)."""


def new_request_id() -> str:
    """A short id a person can type: 12 hex digits, random."""
    return uuid.uuid4().hex[:12]


class ApprovalRequest(BaseModel):
    """A call waiting for (or given) a person's decision; bound to the call by `digest`."""

    model_config = ConfigDict(frozen=True)

    id: str
    digest: str
    """`hookport.canonical.call_digest(tool, arguments, run_id)`: the exact call this request is for."""
    tool: str
    arguments: Any = None
    """The arguments as the inbox shows them: after every registered redaction."""
    agent: Optional[str] = None
    run_id: Optional[str] = None
    framework: Optional[str] = None
    rule: str = ""
    """The rule that asked (``policy.toml:24:approval[0]``)."""
    lasts: Lasts = "call"
    state: State = "pending"
    created_at: float = 0.0
    decided_at: Optional[float] = None
    decided_by: Optional[str] = None
    decision_reason: Optional[str] = None
    closed_at: Optional[float] = None
    """When the request stopped answering its call: consumed, a denial read by the call, a timeout."""

    @property
    def open(self) -> bool:
        return self.closed_at is None

    def age(self, now: float | None = None) -> float:
        return (time.time() if now is None else now) - self.created_at

    def row(self) -> dict[str, Any]:
        """The request as plain JSON-able data (``hookport approvals list --json``)."""
        return self.model_dump(mode="json")
