"""From a tool call to a verdict: find or file its request, then wait for it or not.

`ask` binds the call to a request (the digest of the tool, its arguments as the hook
sees them, i.e. after earlier rewrites, and the run), `settle` turns a decided request
into a verdict (consuming an approval atomically), and `wait` / `await_decision` poll
the store until a decision, or expire the request at the deadline. A lost race (another
process consumed the approval first) files a new request: one approval, one call.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any, Literal, Optional

from hookport.approvals.model import ApprovalRequest, Lasts
from hookport.approvals.store import ApprovalStore
from hookport.canonical import call_digest, canonical_json
from hookport.redaction import active_redactions

__all__ = ["Call", "Verdict", "ask", "await_decision", "call_of", "settle", "wait"]

Outcome = Literal["approved", "approval_denied", "approval_pending", "approval_timeout"]

FIRST_POLL, LAST_POLL = 0.02, 0.5
"""Seconds between looks at the store: quick at first (a decision made at once lands at
once), then no more than two a second per waiting call."""


@dataclass(frozen=True)
class Call:
    """What a request is filed with."""

    digest: str
    tool: str
    arguments: Any
    """As the hook sees them (the request shows them redacted: `shown`)."""
    agent: Optional[str]
    run_id: Optional[str]
    framework: Optional[str]
    rule: str
    lasts: Lasts


@dataclass(frozen=True)
class Verdict:
    outcome: Outcome
    request: ApprovalRequest

    @property
    def approved(self) -> bool:
        return self.outcome == "approved"


def call_of(ctx: Any, rule: str, lasts: Lasts) -> Call:
    """The call a tool-call context is making, bound to its run (`ctx.run_id`)."""
    run_id = ctx.run_id
    arguments = ctx.tool_input
    return Call(
        digest=call_digest(ctx.tool_name or "", arguments, run_id),
        tool=ctx.tool_name or "", arguments=arguments, agent=getattr(ctx, "agent_role", None),
        run_id=run_id, framework=getattr(ctx, "framework", None), rule=rule, lasts=lasts,
    )


def shown(arguments: Any) -> Any:
    """The arguments as plain JSON with every registered redaction applied to each string."""
    plain = json.loads(canonical_json(arguments))
    redactions = active_redactions()
    if not redactions:
        return plain

    def scrub(value: Any) -> Any:
        if isinstance(value, str):
            for pattern, replacement in redactions:
                value = pattern.sub(replacement, value)
            return value
        if isinstance(value, list):
            return [scrub(item) for item in value]
        if isinstance(value, dict):
            return {key: scrub(item) for key, item in value.items()}
        return value

    return scrub(plain)


def ask(store: ApprovalStore, call: Call) -> tuple[ApprovalRequest, bool]:
    """The call's open request, or a new pending one (True when filed now) showing the arguments redacted."""
    found = store.find(call.digest)
    if found is not None:
        return found, False
    return store.request(call.digest, tool=call.tool, arguments=shown(call.arguments), agent=call.agent,
                         run_id=call.run_id, framework=call.framework, rule=call.rule, lasts=call.lasts)


def settle(store: ApprovalStore, request: ApprovalRequest) -> Optional[Verdict]:
    """The verdict of a decided request (an approval consumed here), or None while it is pending or
    when another call consumed the approval first."""
    if request.state == "approved":
        return Verdict("approved", request) if store.consume(request.id) else None
    if request.state == "denied":
        store.acknowledge(request.id)
        return Verdict("approval_denied", request)
    if request.state == "timed_out":
        return Verdict("approval_timeout", request)
    return None


def polling(store: ApprovalStore, call: Call, timeout: Optional[float],
            on_request: Callable[[ApprovalRequest, bool], None]) -> Generator[float, None, Verdict]:
    """The wait, written once: yields each pause (its driver sleeps or awaits), returns the verdict."""
    deadline = None if timeout is None else time.monotonic() + timeout
    request, created = ask(store, call)
    on_request(request, created)
    pause = FIRST_POLL
    while True:
        verdict = settle(store, request)
        if verdict is not None:
            return verdict
        if request.state != "pending":  # the approval went to another call: this one asks again
            request, created = ask(store, call)
            on_request(request, created)
            continue
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            return expired(store, request)
        yield pause if left is None else min(pause, left)
        pause = min(pause * 1.5, LAST_POLL)
        request = store.get(request.id)


def wait(store: ApprovalStore, call: Call, timeout: Optional[float],
         on_request: Callable[[ApprovalRequest, bool], None]) -> Verdict:
    """Block until the call's request is decided, or `timeout` seconds (None: for ever) pass."""
    steps = polling(store, call, timeout, on_request)
    try:
        while True:
            time.sleep(next(steps))
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


async def await_decision(store: ApprovalStore, call: Call, timeout: Optional[float],
                         on_request: Callable[[ApprovalRequest, bool], None]) -> Verdict:
    """`wait` for an async call site: the loop serves others between looks at the store (each look is
    short: a local file, or one round trip to Redis)."""
    steps = polling(store, call, timeout, on_request)
    try:
        while True:
            await asyncio.sleep(next(steps))
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


def expired(store: ApprovalStore, request: ApprovalRequest) -> Verdict:
    """Give up on `request`, unless a decision landed first (then honour it)."""
    now = store.expire(request.id)
    verdict = settle(store, now)
    return verdict if verdict is not None else Verdict("approval_timeout", now)
