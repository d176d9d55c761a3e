"""Model calls on PraisonAI: one PRE/POST per HTTP request, copies of the messages, streaming."""

from __future__ import annotations

import openai
import pytest
import wrapt

from hookport import HookAborted, InterceptionPoint, on
from tests.adapters.praisonai.harness import PraisonAIHarness, build_agent, praisonai_version
from tests.conformance.harness import Turn
from tests.support.openai_server import ScriptedOpenAIServer

P = InterceptionPoint
MARKER = "HOOKPORT-PRAISONAI-MARKER"


def tool_then_answer(answer: str = "The answer is ready.") -> list[Turn]:
    return [Turn.call("add_numbers", a=2, b=3), Turn.final(answer)]


def test_one_pre_and_post_per_request_not_per_turn(harness: PraisonAIHarness) -> None:
    """PraisonAI's own before_llm fires once per turn; hookport's points fire once per request."""
    pre: list[int] = []
    post: list[str] = []
    on(P.PRE_MODEL_CALL)(lambda ctx: pre.append(ctx.iterations))
    on(P.POST_MODEL_CALL)(lambda ctx: post.append(ctx.response))
    result = harness.run([Turn.call("add_numbers", a=1, b=2), Turn.call("add_numbers", a=3, b=4), Turn.final("done")])
    result.raise_error()
    assert len(result.model_inputs) == 3
    assert pre == [0, 1, 2]
    assert post == ["", "", "done"]


def test_messages_are_openai_dicts_with_tool_turns(harness: PraisonAIHarness) -> None:
    seen: list[list[dict]] = []
    on(P.PRE_MODEL_CALL)(lambda ctx: seen.append(ctx.messages))
    harness.run(tool_then_answer()).raise_error()
    second = seen[1]
    assistant = next(m for m in second if m.get("role") == "assistant")
    assert assistant["tool_calls"][0]["function"]["name"] == "add_numbers"
    tool = next(m for m in second if m.get("role") == "tool")
    assert tool["tool_call_id"] == assistant["tool_calls"][0]["id"] and "5" in tool["content"]


def test_edits_reach_the_request_but_not_praisonai_history(harness: PraisonAIHarness) -> None:
    """A hook edits its copy: the marker goes out with the first request only."""

    @on(P.PRE_MODEL_CALL)
    def mark_first(ctx):  # type: ignore[no-untyped-def]
        if ctx.iterations == 0:
            ctx.messages[-1]["content"] += " " + MARKER

    result = harness.run(tool_then_answer())
    result.raise_error()
    assert MARKER in str(result.model_inputs[0])
    assert MARKER not in str(result.model_inputs[1]), "the edit leaked into PraisonAI's own message list"


def test_replaced_messages_list(harness: PraisonAIHarness) -> None:
    @on(P.PRE_MODEL_CALL)
    def only_system_and_marker(ctx):  # type: ignore[no-untyped-def]
        return [ctx.messages[0], {"role": "user", "content": MARKER}]

    result = harness.run([Turn.final("ok")])
    result.raise_error()
    assert [m["role"] for m in result.model_inputs[0]] == ["system", "user"]
    assert result.model_inputs[0][1]["content"] == MARKER


def test_abort_is_not_retried_and_leaves_chat(harness: PraisonAIHarness) -> None:
    calls: list[int] = []

    @on(P.PRE_MODEL_CALL)
    def stop(ctx):  # type: ignore[no-untyped-def]
        calls.append(1)
        raise HookAborted("no budget", source="budget")

    for entry in harness.entries:
        calls.clear()
        result = harness.run([Turn.final("never")], entry=entry)
        assert isinstance(result.error, HookAborted) and result.error.reason == "no budget", entry
        assert result.model_inputs == []
        assert calls == [1], f"{entry}: the hook ran {len(calls)} times (PraisonAI retried the call)"


def test_post_abort_stops_the_loop(harness: PraisonAIHarness) -> None:
    @on(P.POST_MODEL_CALL)
    def stop(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("unsafe answer")

    result = harness.run(tool_then_answer())
    assert isinstance(result.error, HookAborted) and result.error.reason == "unsafe answer"
    assert len(result.model_inputs) == 1
    assert result.tool_runs == [], "a tool ran after the model call was aborted"


def test_streamed_answer_replaced_by_post_hook(harness: PraisonAIHarness) -> None:
    if "stream" not in harness.entries:
        pytest.skip(f"PraisonAI {praisonai_version()} streams no tool loop")
    seen: list[str] = []

    @on(P.POST_MODEL_CALL)
    def redact(ctx):  # type: ignore[no-untyped-def]
        seen.append(ctx.response)
        return ctx.response.replace("secret", "[redacted]")

    result = harness.run(tool_then_answer("the secret is 42"), entry="stream")
    result.raise_error()
    assert seen == ["", "the secret is 42"]
    assert result.output == "the [redacted] is 42"
    assert all(body.get("stream") for body in harness.server.requests)


def test_streamed_requests_pass_through_without_post_hooks(harness: PraisonAIHarness) -> None:
    if "stream" not in harness.entries:
        pytest.skip(f"PraisonAI {praisonai_version()} streams no tool loop")
    pre: list[bool] = []
    on(P.PRE_MODEL_CALL)(lambda ctx: pre.append(ctx.metadata["stream"]))
    result = harness.run(tool_then_answer("streamed words arrive"), entry="stream")
    result.raise_error()
    assert pre == [True, True]
    assert result.output == "streamed words arrive"


def test_model_context_fields(harness: PraisonAIHarness) -> None:
    seen: list[object] = []
    on(P.PRE_MODEL_CALL)(seen.append)
    harness.run([Turn.final("ok")], agent="gamma").raise_error()
    ctx = seen[0]
    assert ctx.agent_role == "gamma"  # type: ignore[attr-defined]
    assert ctx.agent.name == "gamma"  # type: ignore[attr-defined]
    assert ctx.llm == "gpt-4o-mini" and ctx.metadata["model"] == "gpt-4o-mini"  # type: ignore[attr-defined]
    assert [t["function"]["name"] for t in ctx.metadata["tools"]] == ["add_numbers", "purge_records"]  # type: ignore[attr-defined]


def test_only_praisonai_clients_are_instrumented(server: ScriptedOpenAIServer) -> None:
    """The openai classes stay untouched; a client of the user's own is not intercepted."""
    fired: list[str] = []
    on(P.PRE_MODEL_CALL)(lambda ctx: fired.append("pre"))
    server.script([Turn.final("direct")])
    client = openai.OpenAI(base_url=server.base_url, api_key="sk-offline", max_retries=0)
    answer = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    assert answer.choices[0].message.content == "direct"
    assert fired == []
    assert "create" not in vars(client.chat.completions)
    from openai.resources.chat.completions.completions import AsyncCompletions, Completions

    assert not isinstance(vars(Completions)["create"], wrapt.ObjectProxy)
    assert not isinstance(vars(AsyncCompletions)["create"], wrapt.ObjectProxy)


def test_agents_filter_matches_the_agent_name(harness: PraisonAIHarness) -> None:
    """PraisonAI agents have a role ("Assistant" by default) and a name; filters match the name."""
    fired: list[str] = []
    on(P.PRE_MODEL_CALL, agents=["alpha"])(lambda ctx: fired.append(ctx.agent_role))
    on(P.PRE_TOOL_CALL, agents=["beta"])(lambda ctx: fired.append(f"tool:{ctx.agent_role}"))
    harness.run(tool_then_answer(), agent="alpha").raise_error()
    harness.run(tool_then_answer(), agent="beta").raise_error()
    assert fired == ["alpha", "alpha", "tool:beta"]


def test_second_turn_carries_the_first(server: ScriptedOpenAIServer) -> None:
    """Two turns of one agent: the second request carries the first turn (PraisonAI's history)."""
    if praisonai_version() < (1, 7, 12):
        pytest.skip("before 1.7.12 an Agent's second sync chat() fails with 'Event loop is closed' (PraisonAI bug)")
    seen: list[int] = []
    on(P.PRE_MODEL_CALL)(lambda ctx: seen.append(len(ctx.messages)))
    server.script([Turn.final("first")])
    runs: list = []
    agent = build_agent("alpha", runs)
    assert agent.chat("one") == "first"
    server.script([Turn.final("second")])
    assert agent.chat("two") == "second"
    assert seen[1] > seen[0]
