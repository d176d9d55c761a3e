"""Wrap hooks and the shared model/tool call sequence (`hookport.calls`)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from hookport import (
    ExtensionPoint,
    HookAborted,
    InterceptionPoint,
    LLMCallHookContext,
    OutputContext,
    ToolCallHookContext,
    on,
    register_hook,
)
from hookport.calls import (
    ResponseShape,
    ToolShape,
    amodel_call,
    atool_call,
    model_call,
    outer_layer_dispatched_model,
    tool_call,
)

P = InterceptionPoint
W = ExtensionPoint


class Answer:
    """A framework's own answer type, to show conversions go through the shape."""

    def __init__(self, text: str) -> None:
        self.text = text


class AnswerShape(ResponseShape[Answer]):
    def text(self, result: Answer) -> str | None:
        return result.text

    def replace(self, result: Answer | None, text: str) -> Answer:
        return Answer(text)


class FlakyModel:
    def __init__(self, failures: int = 0) -> None:
        self.calls = 0
        self.failures = failures
        self.layer_seen: list[bool] = []

    def send(self, ctx: LLMCallHookContext) -> Answer:
        self.calls += 1
        self.layer_seen.append(outer_layer_dispatched_model())
        if self.calls <= self.failures:
            raise ConnectionError("model unavailable")
        return Answer(f"answer {self.calls} to {ctx.messages[-1]['content']}")

    async def asend(self, ctx: LLMCallHookContext) -> Answer:
        await asyncio.sleep(0)
        return self.send(ctx)


def llm_ctx() -> LLMCallHookContext:
    return LLMCallHookContext([{"role": "user", "content": "hi"}])


def test_retry_wrap_hook_reissues_the_call_with_pre_and_post_once() -> None:
    model = FlakyModel(failures=1)
    counts = {"pre": 0, "post": 0}
    register_hook(P.PRE_MODEL_CALL, lambda ctx: counts.__setitem__("pre", counts["pre"] + 1))
    register_hook(P.POST_MODEL_CALL, lambda ctx: counts.__setitem__("post", counts["post"] + 1))

    @on(W.WRAP_MODEL_CALL)
    def retry(ctx, call_next):  # type: ignore[no-untyped-def]
        for attempt in range(3):
            try:
                return call_next(ctx)
            except ConnectionError:
                if attempt == 2:
                    raise

    ctx = llm_ctx()
    result = model_call(ctx, model.send, AnswerShape())
    assert model.calls == 2 and result.text == "answer 2 to hi"
    assert counts == {"pre": 1, "post": 1}
    assert model.layer_seen == [True, True]
    assert ctx.duration_ms is not None and ctx.duration_ms >= 0


def test_short_circuit_never_calls_the_model_and_post_sees_the_answer() -> None:
    model = FlakyModel()
    seen: list[str | None] = []
    register_hook(W.WRAP_MODEL_CALL, lambda ctx, call_next: "cached answer")
    register_hook(P.POST_MODEL_CALL, lambda ctx: seen.append(ctx.response))
    result = model_call(llm_ctx(), model.send, AnswerShape())
    assert model.calls == 0 and isinstance(result, Answer) and result.text == "cached answer"
    assert seen == ["cached answer"]


async def test_async_wrap_hooks_nest_in_registration_order() -> None:
    model = FlakyModel()
    order: list[str] = []

    async def outer(ctx, call_next):  # type: ignore[no-untyped-def]
        order.append("outer in")
        result = await call_next(ctx)
        order.append("outer out")
        return result

    async def inner(ctx, call_next):  # type: ignore[no-untyped-def]
        order.append("inner in")
        result = await call_next(ctx)
        order.append("inner out")
        return result

    register_hook(W.WRAP_MODEL_CALL, outer)
    register_hook(W.WRAP_MODEL_CALL, inner)
    result = await amodel_call(llm_ctx(), model.asend, AnswerShape())
    assert order == ["outer in", "inner in", "inner out", "outer out"]
    assert result.text == "answer 1 to hi"


def test_a_failing_wrap_hook_fails_open_as_if_absent_but_real_errors_pass_through() -> None:
    model = FlakyModel()
    register_hook(W.WRAP_MODEL_CALL, lambda ctx, call_next: 1 / 0)
    assert model_call(llm_ctx(), model.send, AnswerShape()).text == "answer 1 to hi"
    broken = FlakyModel(failures=5)
    with pytest.raises(ConnectionError):
        model_call(llm_ctx(), broken.send, AnswerShape())


def test_a_wrap_hook_needs_two_parameters() -> None:
    with pytest.raises(TypeError, match=r"hook\(ctx, call_next\)"):
        register_hook(W.WRAP_TOOL_CALL, lambda ctx: None)


def test_post_replacement_goes_back_into_the_framework_answer() -> None:
    register_hook(P.POST_MODEL_CALL, lambda ctx: ctx.response.replace("hi", "[redacted]"))
    assert model_call(llm_ctx(), FlakyModel().send, AnswerShape()).text == "answer 1 to [redacted]"


class Tool:
    def __init__(self) -> None:
        self.runs: list[dict[str, Any]] = []

    def run(self, ctx: ToolCallHookContext) -> str:
        self.runs.append(dict(ctx.tool_input))
        return f"deleted {ctx.tool_input['path']}"

    async def arun(self, ctx: ToolCallHookContext) -> str:
        return self.run(ctx)


def test_a_refused_tool_never_runs_and_post_tool_call_sees_the_refusal() -> None:
    tool = Tool()
    audit: list[tuple[bool, str, float | None]] = []
    register_hook(P.PRE_TOOL_CALL, lambda ctx: (_ for _ in ()).throw(HookAborted("no deletes", "policy")))
    register_hook(P.POST_TOOL_CALL, lambda ctx: audit.append((ctx.refused, ctx.tool_result, ctx.duration_ms)))
    result = tool_call(ToolCallHookContext("delete_file", {"path": "/"}), tool.run, ToolShape())
    assert tool.runs == []
    assert audit == [(True, "Tool call delete_file was refused: no deletes", 0.0)]
    assert result == "Tool call delete_file was refused: no deletes"


async def test_tool_calls_time_edit_and_replace_on_the_async_path() -> None:
    tool = Tool()
    register_hook(P.PRE_TOOL_CALL, lambda ctx: {"path": "/tmp/x"})
    register_hook(P.POST_TOOL_CALL, lambda ctx: ctx.tool_result.upper())
    ctx = ToolCallHookContext("delete_file", {"path": "/"})
    result = await atool_call(ctx, tool.arun, ToolShape())
    assert tool.runs == [{"path": "/tmp/x"}] and result == "DELETED /TMP/X"
    assert ctx.duration_ms is not None and ctx.refused is False


def test_output_context_text_reads_and_replaces_common_answer_shapes() -> None:
    class CrewOutput:
        def __init__(self, raw: str) -> None:
            self.raw = raw

    original = CrewOutput("card 4111 1111 1111 1111")
    ctx = OutputContext(original)
    assert ctx.text == "card 4111 1111 1111 1111"
    ctx.text = "card [CARD]"
    assert ctx.payload.raw == "card [CARD]" and original.raw == "card 4111 1111 1111 1111"
    state = {"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "secret"}]}
    ctx = OutputContext(state)
    ctx.text = "[redacted]"
    assert ctx.payload["messages"][-1]["content"] == "[redacted]" and state["messages"][-1]["content"] == "secret"
