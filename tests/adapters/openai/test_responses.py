"""The Responses API on a bare loop: input items as messages, the stream helper, refusals."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hookport import HookAborted, InterceptionPoint, on
from hookport.adapters.openai_sdk._responses import items_to_messages, messages_to_items
from tests.conformance.harness import ToolCall, Turn

P = InterceptionPoint
MODEL = "scripted-model"
TOOLS = [{"type": "function", "name": n, "parameters": {"type": "object"}} for n in ("add_numbers", "purge_records")]


def test_items_map_to_messages_and_back() -> None:
    kwargs = {"instructions": "be brief", "input": [
        {"role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {"type": "function_call", "call_id": "c1", "name": "add_numbers", "arguments": '{"a": 1}'},
        {"type": "function_call_output", "call_id": "c1", "output": "1"},
        {"type": "reasoning", "id": "r1", "summary": []},
    ]}
    messages = items_to_messages(kwargs)
    assert messages == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "add_numbers", "arguments": '{"a": 1}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "1"},
        {"role": "item", "content": None, "item": {"type": "reasoning", "id": "r1", "summary": []}},
    ]
    messages[0]["content"] = "be very brief"
    back = messages_to_items(kwargs, messages)
    assert back["instructions"] == "be very brief"
    assert back["input"][1:] == kwargs["input"][1:]


def test_stream_helper_replacement_and_refusal(client: Any, server: Any) -> None:
    server.script([Turn(text="the original answer", tool_calls=[ToolCall("add_numbers", {"a": 1, "b": 2}),
                                                                 ToolCall("purge_records", {"table": "t"})])])

    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def guard(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("no purging")

    @on(P.PRE_TOOL_CALL, tools=["add_numbers"])
    def edit(ctx):  # type: ignore[no-untyped-def]
        ctx.tool_input["b"] = 40

    on(P.POST_MODEL_CALL)(lambda ctx: ctx.response.replace("original", "replaced"))
    with client.responses.stream(model=MODEL, input="go", tools=TOOLS) as stream:
        text = "".join(e.delta for e in stream if e.type == "response.output_text.delta")
        final = stream.get_final_response()
    assert text == "the replaced answer"
    assert final.output_text == "the replaced answer"
    calls = [item for item in final.output if item.type == "function_call"]
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [("add_numbers", {"a": 1, "b": 40})]


def test_refused_call_comes_back_as_a_function_call_output(client: Any, server: Any) -> None:
    server.script([Turn(tool_calls=[ToolCall("add_numbers", {"a": 1, "b": 2}),
                                    ToolCall("purge_records", {"table": "t"})]), Turn.final("done")])

    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def guard(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("no purging")

    items: list[Any] = [{"role": "user", "content": "go"}]
    response = client.responses.create(model=MODEL, input=items, tools=TOOLS)
    assert [i.name for i in response.output if i.type == "function_call"] == ["add_numbers"]
    items += [*response.output, {"type": "function_call_output", "call_id": response.output[0].call_id,
                                 "output": "3"}]
    assert client.responses.create(model=MODEL, input=items, tools=TOOLS).output_text == "done"
    sent = server.requests[1]["input"]
    outputs = {i["call_id"]: i["output"] for i in sent if i.get("type") == "function_call_output"}
    refused = next(i for i in sent if i.get("type") == "function_call" and i["name"] == "purge_records")
    assert outputs[refused["call_id"]] == "Tool call purge_records was refused: no purging"
    assert len(items) == 3


@pytest.mark.parametrize("entry", ["sync", "async", "stream"])
def test_the_responses_loop_once_and_refusal(server: Any, entry: str) -> None:
    """The conformance harness's own loop on the Responses API (HOOKPORT_OPENAI_API=responses runs
    the whole suite there): one PRE/POST per request and per call, a refusal the loop survives."""
    from tests.adapters.openai.harness import OpenAIHarness
    from tests.conformance.test_scenarios import Recorder, tool_then_answer

    harness = OpenAIHarness(api="responses")
    points = (P.PRE_MODEL_CALL, P.POST_MODEL_CALL, P.PRE_TOOL_CALL, P.POST_TOOL_CALL)
    recorder = Recorder(points)
    result = harness.run(tool_then_answer(), entry=entry)  # type: ignore[arg-type]
    result.raise_error()
    assert [recorder.count(p) for p in points] == [2, 2, 1, 1]
    assert result.runs_of("add_numbers") == [{"a": 2, "b": 3}]

    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def guard(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("no purging")

    refused = harness.run(tool_then_answer("purge_records"), entry=entry)  # type: ignore[arg-type]
    refused.raise_error()
    assert refused.runs_of("purge_records") == []
    assert "Tool call purge_records was refused: no purging" in refused.seen_by_model()
    assert refused.output == "The answer is ready."
