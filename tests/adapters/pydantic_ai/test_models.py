"""Model calls on Pydantic AI: every Model, edits that never leak, async wrap hooks, streaming."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from hookport import ExtensionPoint, HookAborted, InterceptionPoint, on, register_hook
from tests.conformance.harness import Turn

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent  # noqa: E402
from pydantic_ai.models.test import TestModel  # noqa: E402

from hookport.adapters.pydantic_ai import buffered_streaming  # noqa: E402

P = InterceptionPoint
W = ExtensionPoint
MARKER = "HOOKPORT-MARKER-pai"


def test_edits_reach_the_model_but_not_the_run_history(harness: Any) -> None:
    @on(P.PRE_MODEL_CALL)
    def add_note(ctx: Any) -> None:
        ctx.messages.append({"role": "user", "content": MARKER})
        ctx.messages[0]["content"] = "What is 20 + 30?"

    from tests.adapters.pydantic_ai.harness import _Record, make_agent

    record = _Record([Turn.final("done")])
    result = make_agent(record, "alpha").run_sync("What is 2 + 3?")
    assert MARKER in str(record.model_inputs[0]) and "20 + 30" in str(record.model_inputs[0])
    history = str(result.all_messages())
    assert MARKER not in history and "20 + 30" not in history and "What is 2 + 3?" in history


def test_messages_are_openai_style_with_tool_calls_and_results(harness: Any) -> None:
    seen: list[list[dict[str, Any]]] = []
    on(P.PRE_MODEL_CALL)(lambda ctx: seen.append([dict(m) for m in ctx.messages]))
    harness.run([Turn.call("add_numbers", a=2, b=3), Turn.final("5")]).raise_error()
    second = seen[1]
    assert [m["role"] for m in second] == ["user", "assistant", "tool"]
    call = second[1]["tool_calls"][0]
    assert call["function"]["name"] == "add_numbers" and '"a":2' in call["function"]["arguments"].replace(" ", "")
    assert second[2]["tool_call_id"] == call["id"] and second[2]["content"] == "5"



def _test_model_agent(runs: list[str]) -> Agent[None, str]:
    agent: Agent[None, str] = Agent(TestModel(), name="tm")

    @agent.tool_plain
    def add_numbers(a: int, b: int) -> str:
        """Add."""
        runs.append("add")
        return str(a + b)

    return agent


def test_testmodel_sync_and_stream(pydantic_ai_adapter: Any) -> None:
    pre: list[Any] = []
    post: list[Any] = []
    on(P.PRE_MODEL_CALL)(pre.append)
    on(P.POST_MODEL_CALL)(post.append)
    runs: list[str] = []
    _test_model_agent(runs).run_sync("go")
    assert len(pre) == 2 and len(post) == 2 and runs == ["add"]

    async def streamed() -> Any:
        async with _test_model_agent(runs).run_stream("go") as result:
            return await result.get_output()

    pre.clear(), post.clear()
    asyncio.run(streamed())
    assert len(pre) == 2 and len(post) == 2
    assert all(ctx.duration_ms is not None for ctx in post)


def test_async_wrap_hook_retries_the_request(harness: Any) -> None:
    attempts: list[int] = []
    pre: list[Any] = []
    on(P.PRE_MODEL_CALL)(pre.append)

    @on(W.WRAP_MODEL_CALL)
    async def retry(ctx: Any, call_next: Any) -> Any:
        for attempt in (1, 2, 3):
            attempts.append(attempt)
            try:
                return await call_next(ctx)
            except RuntimeError:
                if attempt == 3:
                    raise

    result = harness.run([Turn.fail("model overloaded"), Turn.final("second time lucky")])
    result.raise_error()
    assert attempts == [1, 2] and len(result.model_inputs) == 2 and len(pre) == 1
    assert result.output == "second time lucky"


def test_async_wrap_hook_falls_back(harness: Any) -> None:
    @on(W.WRAP_MODEL_CALL)
    async def fallback(ctx: Any, call_next: Any) -> Any:
        try:
            return await call_next(ctx)
        except RuntimeError:
            return "the fallback answer"

    result = harness.run([Turn.fail("provider down")])
    result.raise_error()
    assert len(result.model_inputs) == 1 and result.output == "the fallback answer"


def test_stream_passthrough_post_sees_whole_answer(harness: Any) -> None:
    seen: list[str] = []

    @on(P.POST_MODEL_CALL)
    def replace(ctx: Any) -> str | None:
        seen.append(ctx.response)
        return None

    result = harness.run([Turn.final("the original answer")], entry="stream")
    result.raise_error()
    assert seen == ["the original answer"] and result.output == "the original answer"


def test_stream_buffered_replacement_reaches_the_consumer(harness: Any) -> None:
    on(P.POST_MODEL_CALL)(lambda ctx: (ctx.response or "").replace("original", "replaced"))
    with buffered_streaming():
        result = harness.run([Turn.call("add_numbers", a=2, b=3), Turn.final("the original answer")],
                             entry="stream")
    result.raise_error()
    assert result.output == "the replaced answer" and len(result.runs_of("add_numbers")) == 1


def test_abort_in_a_stream_leaves_run_stream(harness: Any) -> None:
    @on(P.PRE_MODEL_CALL)
    def stop(ctx: Any) -> None:
        raise HookAborted("no streaming today", source="guard")

    result = harness.run([Turn.final("never")], entry="stream")
    assert isinstance(result.error, HookAborted) and result.error.source == "guard"
    assert result.model_inputs == []


def test_wrap_hook_short_circuit_on_a_stream(harness: Any) -> None:
    register_hook(W.WRAP_MODEL_CALL, lambda ctx, call_next: "served from cache")
    result = harness.run([Turn.final("never asked")], entry="stream")
    result.raise_error()
    assert result.model_inputs == [] and result.output == "served from cache"
