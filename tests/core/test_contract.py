"""The contract of the seeds: proceed, mutate, replace, abort; order; fail-open; strict."""

from __future__ import annotations

import logging

import pytest

from hookport import (
    HookAborted,
    InputContext,
    InterceptionPoint,
    LLMCallBlockedError,
    LLMCallHookContext,
    StepContext,
    ToolCallBlocked,
    ToolCallHookContext,
    dispatch,
    on,
    register_hook,
    set_strict,
)

P = InterceptionPoint


def test_no_hooks_returns_the_same_context() -> None:
    ctx = InputContext({"a": 1})
    assert dispatch(P.INPUT, ctx) is ctx
    assert ctx.payload == {"a": 1}


def test_proceed_mutate_replace_flow_in_registration_order() -> None:
    seen: list[object] = []

    @on(P.INPUT)
    def first(ctx):  # type: ignore[no-untyped-def]
        seen.append(("first", dict(ctx.payload)))
        ctx.payload["locale"] = "en-US"

    @on(P.INPUT)
    def second(ctx):  # type: ignore[no-untyped-def]
        seen.append(("second", dict(ctx.payload)))
        return {**ctx.payload, "topic": "ai"}

    @on(P.INPUT)
    def third(ctx):  # type: ignore[no-untyped-def]
        seen.append(("third", dict(ctx.payload)))

    original = {"q": 1}
    ctx = dispatch(P.INPUT, InputContext(original))
    assert ctx.payload == {"q": 1, "locale": "en-US", "topic": "ai"}
    assert seen == [
        ("first", {"q": 1}),
        ("second", {"q": 1, "locale": "en-US"}),
        ("third", {"q": 1, "locale": "en-US", "topic": "ai"}),
    ]
    assert ctx.inputs is original  # the alias keeps the original dict; only payload rebinds


def test_abort_stops_the_chain_and_defaults_source_to_the_hook() -> None:
    ran: list[str] = []

    @on(P.PRE_STEP)
    def deny(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("not now")

    on(P.PRE_STEP)(lambda ctx: ran.append("later"))
    with pytest.raises(HookAborted) as caught:
        dispatch(P.PRE_STEP, StepContext("x", kind="task", step_name="t"))
    assert caught.value.reason == "not now"
    assert caught.value.source is deny
    assert caught.value.source_name.endswith("deny")
    assert ran == []


def test_explicit_source_is_kept() -> None:
    @on(P.EXECUTION_START)
    def deny(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted(reason="unauthorized execution", source="access-control")

    with pytest.raises(HookAborted) as caught:
        dispatch(P.EXECUTION_START, InputContext({}))
    assert caught.value.source == "access-control"
    assert str(caught.value) == "unauthorized execution"


def test_fail_open_logs_and_continues(caplog: pytest.LogCaptureFixture) -> None:
    ran: list[str] = []

    @on(P.PRE_TOOL_CALL)
    def broken(ctx):  # type: ignore[no-untyped-def]
        raise ZeroDivisionError("oops")

    on(P.PRE_TOOL_CALL)(lambda ctx: ran.append(ctx.tool_name))
    with caplog.at_level(logging.WARNING, logger="hookport"):
        dispatch(P.PRE_TOOL_CALL, ToolCallHookContext("add", {}))
    assert ran == ["add"]
    assert "broken" in caplog.text and "pre_tool_call" in caplog.text and "fail-open" in caplog.text


def test_strict_mode_reraises() -> None:
    @on(P.PRE_TOOL_CALL)
    def broken(ctx):  # type: ignore[no-untyped-def]
        raise ZeroDivisionError("oops")

    set_strict(True)
    with pytest.raises(ZeroDivisionError):
        dispatch(P.PRE_TOOL_CALL, ToolCallHookContext("add", {}))


def test_strict_mode_from_environment() -> None:
    import os
    import subprocess
    import sys

    code = (
        "import hookport\n"
        "hookport.on('input')(lambda ctx: 1/0)\n"
        "try:\n    hookport.dispatch('input', hookport.InputContext({}))\nexcept ZeroDivisionError:\n"
        "    print('raised')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], env={**os.environ, "HOOKPORT_STRICT": "1"},
                          capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "raised"


def test_pre_model_call_false_is_llm_call_blocked() -> None:
    register_hook(P.PRE_MODEL_CALL, lambda ctx: False)
    with pytest.raises(LLMCallBlockedError) as caught:
        dispatch(P.PRE_MODEL_CALL, LLMCallHookContext([{"role": "user", "content": "hi"}]))
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, HookAborted)
    assert str(caught.value) == "LLM call blocked by before_llm_call hook"


def test_pre_model_call_messages_mutated_in_place() -> None:
    messages = [{"role": "user", "content": "hi"}]
    on(P.PRE_MODEL_CALL)(lambda ctx: ctx.messages.append({"role": "system", "content": "be brief"}))
    on(P.PRE_MODEL_CALL)(lambda ctx: [*ctx.messages, {"role": "user", "content": "again"}])
    ctx = dispatch(P.PRE_MODEL_CALL, LLMCallHookContext(messages))
    assert ctx.messages is messages
    assert [m["content"] for m in messages] == ["hi", "be brief", "again"]


def test_post_model_call_string_replaces_response_other_types_do_not() -> None:
    on(P.POST_MODEL_CALL)(lambda ctx: 123)
    ctx = dispatch(P.POST_MODEL_CALL, LLMCallHookContext([], response="abc"))
    assert ctx.response == "abc"
    on(P.POST_MODEL_CALL)(lambda ctx: ctx.response.upper())
    on(P.POST_MODEL_CALL)(lambda ctx: ctx.response + "!")
    assert dispatch(P.POST_MODEL_CALL, LLMCallHookContext([], response="abc")).response == "ABC!"


def test_pre_tool_call_false_blocks_with_crewai_reason() -> None:
    register_hook(P.PRE_TOOL_CALL, lambda ctx: "ignored")
    assert dispatch(P.PRE_TOOL_CALL, ToolCallHookContext("t", {})).tool_name == "t"
    register_hook(P.PRE_TOOL_CALL, lambda ctx: False)
    with pytest.raises(ToolCallBlocked) as caught:
        dispatch(P.PRE_TOOL_CALL, ToolCallHookContext("t", {}))
    assert caught.value.reason == "before_tool_call hook returned False"


def test_pre_tool_call_dict_replaces_input_in_place() -> None:
    live = {"a": 1}
    on(P.PRE_TOOL_CALL)(lambda ctx: {"a": 2, "b": 3})
    ctx = dispatch(P.PRE_TOOL_CALL, ToolCallHookContext("t", live))
    assert ctx.tool_input is live and live == {"a": 2, "b": 3}


def test_post_tool_call_string_replaces_result() -> None:
    on(P.POST_TOOL_CALL)(lambda ctx: f"[{ctx.tool_result}]")
    ctx = dispatch(P.POST_TOOL_CALL, ToolCallHookContext("t", {}, tool_result="5", raw_tool_result=5))
    assert ctx.tool_result == "[5]" and ctx.raw_tool_result == 5


def test_hook_aborted_needs_a_reason() -> None:
    with pytest.raises(ValueError):
        HookAborted("")
    with pytest.raises(ValueError):
        HookAborted(None)  # type: ignore[arg-type]


def test_hook_aborted_pickles() -> None:
    import pickle

    error = pickle.loads(pickle.dumps(HookAborted("why", source="policy")))
    assert (error.reason, error.source) == ("why", "policy")
    blocked = pickle.loads(pickle.dumps(LLMCallBlockedError()))
    assert isinstance(blocked, ValueError) and blocked.reason == LLMCallBlockedError.MESSAGE
