"""Functions the concurrency tests run in other processes (importable by a spawned interpreter)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from hookport.approvals import open_store
from hookport.approvals.waiting import Call, wait


def the_call(lasts: str = "call") -> Call:
    return Call(digest="digest-of-one-call", tool="send_email", arguments={"to": "bob"}, agent="mailer",
                run_id="run-1", framework=None, rule="test", lasts=lasts)  # type: ignore[arg-type]


def wait_for_decision(url: str, prefix: str | None, lasts: str, timeout: float, ready: str) -> dict[str, Any]:
    """Wait on the call's request (saying so with a file in `ready` once bound to it); report the verdict
    and every request this waiter was bound to."""
    store = open_store(url)
    if prefix is not None:
        store.prefix = prefix  # type: ignore[attr-defined]
    seen: list[str] = []

    def bound(request: Any, created: bool) -> None:
        if not seen:
            Path(ready, uuid.uuid4().hex).touch()
        seen.append(request.id)

    verdict = wait(store, the_call(lasts), timeout, bound)
    first = store.get(seen[0])
    return {"outcome": verdict.outcome, "seen": seen, "first_state": first.state, "first_by": first.decided_by}
