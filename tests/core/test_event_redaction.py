"""Dispatch events never carry a value a registered redaction removes (what a subscriber exports)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from hookport import HookAborted, HookDispatchedEvent, InterceptionPoint, ToolCallHookContext, dispatch, register_hook, subscribe, unsubscribe

CARD = "4111 1111 1111 1111"
P = InterceptionPoint


def redact_cards(ctx: Any) -> None:
    """Stands for a compiled [[redact]] rule: it declares what it redacts."""


redact_cards.redaction = (re.compile(r"\b\d(?:[ -]?\d){12,15}\b"), "[CARD]")  # type: ignore[attr-defined]


@pytest.mark.parametrize("redacting", [False, True], ids=["twin", "redacted"])
def test_a_failed_hooks_error_and_an_abort_reason_are_scrubbed(redacting: bool) -> None:
    if redacting:
        register_hook(P.POST_TOOL_CALL, redact_cards)

    def choke(ctx: Any) -> None:
        raise ValueError(f"cannot parse {ctx.tool_input['body']}")

    def refuse(ctx: Any) -> None:
        raise HookAborted(reason=f"no card numbers: {ctx.tool_input['body']}")

    register_hook(P.PRE_TOOL_CALL, choke)
    register_hook(P.PRE_TOOL_CALL, refuse)
    seen: list[HookDispatchedEvent] = []
    subscribe(seen.append)
    try:
        with pytest.raises(HookAborted):
            dispatch(P.PRE_TOOL_CALL, ToolCallHookContext("send_email", {"body": f"card {CARD} ok"}))
    finally:
        unsubscribe(seen.append)
    exported = " ".join(f"{e.error} {e.abort_reason}" for e in seen)
    assert ("[CARD]" in exported and CARD not in exported) if redacting else CARD in exported
