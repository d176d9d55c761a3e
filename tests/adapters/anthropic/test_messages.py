"""Anthropic Messages on a bare loop: system and blocks as ctx.messages, streams, refusals on the wire."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from hookport import HookAborted, InterceptionPoint, on
from hookport.adapters.anthropic_sdk._messages import from_messages, to_messages
from tests.conformance.harness import ToolCall, Turn

P = InterceptionPoint
MODEL = "claude-scripted"
TOOLS = [{"name": n, "input_schema": {"type": "object"}} for n in ("add_numbers", "purge_records")]


def two_calls(text: str | None = None) -> Turn:
    return Turn(text=text, tool_calls=[ToolCall("add_numbers", {"a": 2, "b": 3}),
                                       ToolCall("purge_records", {"table": "users"})])


def guard_purge() -> None:
    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def guard(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("purging is not allowed", source="policy")


def test_system_and_blocks_map_to_messages_and_back() -> None:
    kwargs = {"system": [{"type": "text", "text": "be brief"}], "messages": [
        {"role": "user", "content": "add"},
        {"role": "assistant", "content": [{"type": "text", "text": "sure"},
                                          {"type": "tool_use", "id": "t1", "name": "add_numbers", "input": {"a": 1}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "1"},
                                     {"type": "text", "text": "and now?"}]},
    ]}
    messages = to_messages(kwargs)
    assert messages == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "add"},
        {"role": "assistant", "content": "sure", "tool_calls": [
            {"id": "t1", "type": "function", "function": {"name": "add_numbers", "arguments": '{"a": 1}'}}]},
        {"role": "tool", "tool_call_id": "t1", "content": "1"},
        {"role": "user", "content": "and now?"},
    ]
    messages[0]["content"] = "be very brief"
    back = from_messages(kwargs, messages)
    assert back["system"] == "be very brief"
    assert back["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "add"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "sure"},
                                          {"type": "tool_use", "id": "t1", "name": "add_numbers", "input": {"a": 1}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "1"},
                                     {"type": "text", "text": "and now?"}]},
    ]


def test_an_edited_system_prompt_reaches_the_request(client: Any, server: Any) -> None:
    server.script([Turn.final("ok")])

    @on(P.PRE_MODEL_CALL)
    def edit(ctx):  # type: ignore[no-untyped-def]
        assert ctx.messages[0] == {"role": "system", "content": "You are alpha."}
        ctx.messages[0]["content"] = "You are careful."

    messages = [{"role": "user", "content": "hi"}]
    client.messages.create(model=MODEL, max_tokens=16, system="You are alpha.", messages=messages)
    assert server.requests[0]["system"] == "You are careful."
    assert messages == [{"role": "user", "content": "hi"}]


def test_post_sees_tool_use_blocks_in_metadata(client: Any, server: Any) -> None:
    server.script([two_calls("let me see")])
    seen: list[Any] = []
    on(P.POST_MODEL_CALL)(lambda ctx: seen.append((ctx.response, ctx.metadata["tool_use"])))
    client.messages.create(model=MODEL, max_tokens=16, messages=[{"role": "user", "content": "go"}], tools=TOOLS)
    assert seen[0][0] == "let me see"
    assert [(b["name"], b["input"]) for b in seen[0][1]] == [("add_numbers", {"a": 2, "b": 3}),
                                                           ("purge_records", {"table": "users"})]


def test_partial_refusal_goes_back_as_an_error_tool_result(client: Any, server: Any) -> None:
    server.script([two_calls(), Turn.final("done")])
    guard_purge()
    messages: list[Any] = [{"role": "user", "content": "go"}]
    first = client.messages.create(model=MODEL, max_tokens=16, messages=messages, tools=TOOLS)
    assert [b.name for b in first.content if b.type == "tool_use"] == ["add_numbers"]
    use = first.content[0]
    messages += [{"role": "assistant", "content": [b.model_dump() for b in first.content]},
                 {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use.id, "content": "5"}]}]
    assert client.messages.create(model=MODEL, max_tokens=16, messages=messages, tools=TOOLS).content[0].text == "done"
    sent = server.requests[1]["messages"]
    assert [b["name"] for b in sent[1]["content"] if b["type"] == "tool_use"] == ["add_numbers", "purge_records"]
    results = sent[2]["content"]
    assert [r["type"] for r in results] == ["tool_result", "tool_result"]
    refused = results[1]
    assert refused["is_error"] is True
    assert refused["content"] == "Tool call purge_records was refused: purging is not allowed"
    assert len(messages) == 3


def test_stream_helper_edits_replacement_and_refusal(client: Any, server: Any) -> None:
    server.script([two_calls("the original answer")])
    guard_purge()

    @on(P.PRE_TOOL_CALL, tools=["add_numbers"])
    def edit(ctx):  # type: ignore[no-untyped-def]
        ctx.tool_input["b"] = 40

    on(P.POST_MODEL_CALL)(lambda ctx: ctx.response.replace("original", "replaced"))
    with client.messages.stream(model=MODEL, max_tokens=16, messages=[{"role": "user", "content": "go"}],
                                tools=TOOLS) as stream:
        text = "".join(stream.text_stream)
        final = stream.get_final_message()
    assert text == "the replaced answer"
    assert final.content[0].text == "the replaced answer"
    assert [(b.name, b.input) for b in final.content if b.type == "tool_use"] == [("add_numbers", {"a": 2, "b": 40})]


def test_create_stream_true_and_async_stream_helper(client: Any, server: Any) -> None:
    import anthropic

    server.script([Turn.final("the original answer")])
    on(P.POST_MODEL_CALL)(lambda ctx: ctx.response.replace("original", "replaced"))
    events = client.messages.create(model=MODEL, max_tokens=16, messages=[{"role": "user", "content": "go"}],
                                    stream=True)
    text = "".join(e.delta.text for e in events if e.type == "content_block_delta")
    assert text == "the replaced answer"

    async def main() -> str:
        aclient = anthropic.AsyncAnthropic(base_url=server.base_url, api_key="sk-offline", max_retries=0)
        async with aclient.messages.stream(model=MODEL, max_tokens=16,
                                           messages=[{"role": "user", "content": "go"}]) as stream:
            return (await stream.get_final_message()).content[0].text

    assert asyncio.run(main()) == "the replaced answer"


def test_abort_sends_nothing(client: Any, server: Any) -> None:
    @on(P.PRE_MODEL_CALL)
    def stop(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("budget exhausted")

    with pytest.raises(HookAborted):
        with client.messages.stream(model=MODEL, max_tokens=16, messages=[{"role": "user", "content": "go"}]):
            pass
    assert server.requests == []


def test_with_raw_response_parse_sees_the_replacement(client: Any, server: Any) -> None:
    server.script([Turn.final("raw answer")])
    on(P.POST_MODEL_CALL)(lambda ctx: "replaced raw answer")
    raw = client.messages.with_raw_response.create(model=MODEL, max_tokens=16,
                                                   messages=[{"role": "user", "content": "go"}])
    assert raw.parse().content[0].text == "replaced raw answer"
