"""Telemetry: one HookDispatchedEvent per dispatch that reached a hook."""

from __future__ import annotations

import logging

import pytest

from hookport import (
    HookAborted,
    HookDispatchedEvent,
    InputContext,
    InterceptionPoint,
    ToolCallHookContext,
    dispatch,
    on,
    subscribe,
    unsubscribe,
)

P = InterceptionPoint


def test_no_event_on_the_fast_path() -> None:
    seen: list[HookDispatchedEvent] = []
    subscribe(seen.append)
    dispatch(P.INPUT, InputContext({}))
    assert seen == []


def test_outcomes_counts_and_abort_fields() -> None:
    seen: list[HookDispatchedEvent] = []
    subscribe(seen.append)
    on(P.INPUT)(lambda ctx: None)
    dispatch(P.INPUT, InputContext({}, framework="demo"))
    on(P.INPUT)(lambda ctx: {"new": 1})
    dispatch(P.INPUT, InputContext({}))

    @on(P.PRE_TOOL_CALL)
    def guard(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("denied", source="policy")

    with pytest.raises(HookAborted):
        dispatch(P.PRE_TOOL_CALL, ToolCallHookContext("t", {}))
    assert [(e.point, e.outcome, e.hook_count) for e in seen] == [
        ("input", "proceeded", 1),
        ("input", "modified", 2),
        ("pre_tool_call", "aborted", 1),
    ]
    assert seen[0].framework == "demo"
    assert (seen[2].abort_reason, seen[2].abort_source) == ("denied", "policy")
    assert all(e.duration_ms >= 0 for e in seen)


def test_abort_source_defaults_to_the_hook_name() -> None:
    seen: list[HookDispatchedEvent] = []
    subscribe(seen.append)

    @on(P.PRE_TOOL_CALL)
    def refuse_everything(ctx):  # type: ignore[no-untyped-def]
        return False

    with pytest.raises(HookAborted):
        dispatch(P.PRE_TOOL_CALL, ToolCallHookContext("t", {}))
    assert seen[0].abort_reason == "before_tool_call hook returned False"
    assert seen[0].abort_source is not None and seen[0].abort_source.endswith("refuse_everything")


def test_a_failing_subscriber_never_breaks_dispatch(caplog: pytest.LogCaptureFixture) -> None:
    def broken(event: HookDispatchedEvent) -> None:
        raise RuntimeError("sink down")

    good: list[HookDispatchedEvent] = []
    subscribe(broken)
    subscribe(good.append)
    on(P.INPUT)(lambda ctx: None)
    with caplog.at_level(logging.ERROR, logger="hookport"):
        dispatch(P.INPUT, InputContext({}))
    assert len(good) == 1 and "sink down" in caplog.text


def test_unsubscribe() -> None:
    seen: list[HookDispatchedEvent] = []
    subscribe(seen.append)
    assert unsubscribe(seen.append) is True
    assert unsubscribe(seen.append) is False
    on(P.INPUT)(lambda ctx: None)
    dispatch(P.INPUT, InputContext({}))
    assert seen == []
    with pytest.raises(TypeError):
        subscribe("nope")  # type: ignore[arg-type]


def test_event_is_a_frozen_pydantic_model() -> None:
    event = HookDispatchedEvent(point="input", outcome="proceeded", hook_count=1, duration_ms=0.1)
    assert event.model_dump()["point"] == "input"
    with pytest.raises(Exception):
        event.point = "x"  # type: ignore[misc]
