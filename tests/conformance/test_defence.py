"""A deny is a guarantee: the scenarios the second line of defence answers, on every adapter.

Each counts the refused tool's real executions and has a twin without the deny that shows
the same path really reaches the tool (a test that cannot fail proves nothing).
"""

from __future__ import annotations

import pytest

from hookport import HookAborted, InterceptionPoint, on, register_hook, register_scoped, scoped_hooks
from hookport.contexts import LLMCallHookContext, ToolCallHookContext
from tests.conformance.harness import Harness, Turn

P = InterceptionPoint
PURGE = [Turn.call("purge_records", table="users"), Turn.final("done")]


def refuse(ctx: ToolCallHookContext) -> None:
    raise HookAborted(reason="purging is not allowed", source="test")


def _register_deny_at_first_model_call(register: bool) -> list[int]:
    """A model hook (no tool hook exists when the agent is built) that registers the deny mid-run."""
    model_calls: list[int] = []

    @on(P.PRE_MODEL_CALL)
    def kill_switch(ctx: LLMCallHookContext) -> None:
        model_calls.append(1)
        if register and len(model_calls) == 1:
            register_hook(P.PRE_TOOL_CALL, refuse, tools=["purge_records"])

    return model_calls


@pytest.mark.parametrize("register", [False, True], ids=["twin", "deny"])
def test_defence__deny_registered_mid_run(harness: Harness, register: bool) -> None:
    model_calls = _register_deny_at_first_model_call(register)
    result = harness.run(PURGE)
    assert model_calls, "the run made no model call"
    assert len(result.runs_of("purge_records")) == (0 if register else 1), result.error


@pytest.mark.parametrize("deny", [False, True], ids=["twin", "deny"])
def test_defence__scoped_deny_reaches_framework_threads(harness: Harness, deny: bool) -> None:
    """A scoped deny opened around the run holds wherever the framework runs the tool."""
    with scoped_hooks():
        if deny:
            register_scoped(P.PRE_TOOL_CALL, refuse, tools=["purge_records"])
        result = harness.run(PURGE)
    assert len(result.runs_of("purge_records")) == (0 if deny else 1), result.error


def test_defence__scoped_agent_filter_does_not_over_refuse(harness: Harness) -> None:
    """The agent's role reaches the tool's thread: a deny for another agent leaves this one alone."""
    with scoped_hooks():
        register_scoped(P.PRE_TOOL_CALL, refuse, tools=["purge_records"], agents=["someone-else"])
        result = harness.run(PURGE, agent="alpha")
    assert len(result.runs_of("purge_records")) == 1, result.error


@pytest.mark.parametrize("deny", [False, True], ids=["twin", "deny"])
def test_defence__nested_same_named_tool(harness: Harness, deny: bool) -> None:
    """An outer tool whose body calls another tool of the same name: the inner call is a call of
    its own, and an argument-based deny refuses it although the outer call was allowed."""
    if deny:
        @on(P.PRE_TOOL_CALL, tools=["purge_records"])
        def no_secret_table(ctx: ToolCallHookContext) -> None:
            if ctx.tool_input.get("table") == "secret":
                raise HookAborted(reason="the secret table is protected", source="test")

    try:
        result = harness.run_nested({"table": "public"}, {"table": "secret"})
    except NotImplementedError:
        pytest.fail(f"{harness.framework}: run_nested is neither implemented nor declared not offered")
    assert len(result.runs_of("outer:purge_records")) == 1, result.error
    assert len(result.runs_of("purge_records")) == (0 if deny else 1), result.error
