"""Chat Completions on a bare loop: helpers, raw responses, Azure, refusals on the wire."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from hookport import HookAborted, InterceptionPoint, adapters, on
from tests.conformance.harness import ToolCall, Turn
from tests.support.openai_server import request_messages

P = InterceptionPoint
MODEL = "scripted-model"
TOOLS = [{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
         for n in ("add_numbers", "purge_records")]
USER = [{"role": "user", "content": "go"}]


def two_calls() -> Turn:
    return Turn(tool_calls=[ToolCall("add_numbers", {"a": 2, "b": 3}), ToolCall("purge_records", {"table": "users"})])


def guard_purge() -> None:
    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def guard(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("purging is not allowed", source="policy")


def test_stream_helper_replacement_and_one_pre_post(client: Any, server: Any) -> None:
    server.script([Turn.final("the original answer")])
    seen: list[str] = []
    on(P.PRE_MODEL_CALL)(lambda ctx: seen.append("pre"))

    @on(P.POST_MODEL_CALL)
    def replace(ctx):  # type: ignore[no-untyped-def]
        seen.append("post")
        return ctx.response.replace("original", "replaced")

    with client.chat.completions.stream(model=MODEL, messages=USER) as stream:
        deltas = [e.delta for e in stream if e.type == "content.delta"]
        final = stream.get_final_completion()
    assert seen == ["pre", "post"]
    assert "".join(deltas) == "the replaced answer"
    assert final.choices[0].message.content == "the replaced answer"


def test_stream_helper_refused_call_never_reaches_the_caller(client: Any, server: Any) -> None:
    server.script([two_calls(), Turn.final("done")])
    guard_purge()
    with client.chat.completions.stream(model=MODEL, messages=USER, tools=TOOLS) as stream:
        final = stream.get_final_completion()
    calls = final.choices[0].message.tool_calls
    assert [c.function.name for c in calls] == ["add_numbers"]
    assert len(server.requests) == 1


def test_partial_refusal_goes_back_to_the_model_in_the_next_request(client: Any, server: Any) -> None:
    server.script([two_calls(), Turn.final("done")])
    guard_purge()
    messages: list[Any] = list(USER)
    first = client.chat.completions.create(model=MODEL, messages=messages, tools=TOOLS).choices[0].message
    assert [c.function.name for c in first.tool_calls] == ["add_numbers"]
    messages += [first, {"role": "tool", "tool_call_id": first.tool_calls[0].id, "content": "5"}]
    assert client.chat.completions.create(model=MODEL, messages=messages, tools=TOOLS).choices[0].message.content \
        == "done"
    sent = server.requests[1]["messages"]
    assistant = next(m for m in sent if m["role"] == "assistant")
    assert [c["function"]["name"] for c in assistant["tool_calls"]] == ["add_numbers", "purge_records"]
    tool_results = {m["tool_call_id"]: m["content"] for m in sent if m["role"] == "tool"}
    assert tool_results[first.tool_calls[0].id] == "5"
    refused_id = assistant["tool_calls"][1]["id"]
    assert tool_results[refused_id] == "Tool call purge_records was refused: purging is not allowed"
    assert len(messages) == 3, "the application's own history was edited"


def test_all_refused_prelude_is_put_back_in_later_requests(client: Any, server: Any) -> None:
    server.script([Turn.call("purge_records", table="users"), Turn.call("add_numbers", a=1, b=2),
                   Turn.final("done")])
    guard_purge()
    messages: list[Any] = list(USER)
    answer = client.chat.completions.create(model=MODEL, messages=messages, tools=TOOLS).choices[0].message
    assert [c.function.name for c in answer.tool_calls] == ["add_numbers"]  # the adapter asked again itself
    assert len(server.requests) == 2
    messages += [answer, {"role": "tool", "tool_call_id": answer.tool_calls[0].id, "content": "3"}]
    client.chat.completions.create(model=MODEL, messages=messages, tools=TOOLS)
    third = json.dumps(server.requests[2]["messages"])
    assert "Tool call purge_records was refused: purging is not allowed" in third
    roles = [m["role"] for m in server.requests[2]["messages"]]
    assert roles == ["user", "assistant", "tool", "assistant", "tool"]


def test_replaced_result_stays_replaced_in_later_requests(client: Any, server: Any) -> None:
    server.script([Turn.call("add_numbers", a=1, b=1), Turn.call("add_numbers", a=2, b=2), Turn.final("done")])
    on(P.POST_TOOL_CALL)(lambda ctx: "REDACTED" if ctx.tool_result == "secret" else None)
    messages: list[Any] = list(USER)
    for result in ("secret", "4"):
        message = client.chat.completions.create(model=MODEL, messages=messages, tools=TOOLS).choices[0].message
        messages += [message, {"role": "tool", "tool_call_id": message.tool_calls[0].id, "content": result}]
    client.chat.completions.create(model=MODEL, messages=messages, tools=TOOLS)
    for body in server.requests[1:]:
        results = [m["content"] for m in body["messages"] if m["role"] == "tool"]
        assert results[0] == "REDACTED" and "secret" not in json.dumps(body)
    assert messages[2]["content"] == "secret", "the application's own message was edited"


def test_edited_messages_reach_the_request_not_the_caller(client: Any, server: Any) -> None:
    server.script([Turn.final("ok")])
    on(P.PRE_MODEL_CALL)(lambda ctx: ctx.messages.append({"role": "user", "content": "MARKER"}))
    messages = list(USER)
    client.chat.completions.create(model=MODEL, messages=messages)
    assert request_messages(server.requests[0])[-1] == {"role": "user", "content": "MARKER"}
    assert messages == USER


def test_abort_sends_nothing(client: Any, server: Any) -> None:
    server.script([Turn.final("never")])

    @on(P.PRE_MODEL_CALL)
    def stop(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("budget exhausted", source="cost")

    with pytest.raises(HookAborted, match="budget exhausted"):
        client.chat.completions.create(model=MODEL, messages=USER, stream=True)
    assert server.requests == []


def test_with_raw_response_parse_sees_the_replacement(client: Any, server: Any) -> None:
    server.script([Turn.final("raw answer")])
    fired: list[str] = []

    @on(P.POST_MODEL_CALL)
    def replace(ctx):  # type: ignore[no-untyped-def]
        fired.append(ctx.response)
        return "replaced raw answer"

    raw = client.chat.completions.with_raw_response.create(model=MODEL, messages=USER)
    assert raw.http_response.status_code == 200
    assert raw.parse().choices[0].message.content == "replaced raw answer"
    with client.chat.completions.with_streaming_response.create(model=MODEL, messages=USER) as response:
        assert response.parse().choices[0].message.content == "replaced raw answer"
    assert fired == ["raw answer", "raw answer"]


def test_azure_client(server: Any) -> None:
    import openai

    server.script([Turn.final("from azure")])
    seen: list[Any] = []
    on(P.PRE_MODEL_CALL)(lambda ctx: seen.append(ctx.framework))
    client = openai.AzureOpenAI(azure_endpoint=server.base_url.removesuffix("/v1"), api_key="sk-offline",
                                api_version="2024-10-21", max_retries=0)
    answer = client.chat.completions.create(model="deployment", messages=USER)
    assert answer.choices[0].message.content == "from azure"
    assert seen == ["openai"]


def test_client_created_before_install(server: Any) -> None:
    import openai

    adapters.uninstall("openai")
    try:
        client = openai.OpenAI(base_url=server.base_url, api_key="sk-offline", max_retries=0)
        client.chat.completions  # noqa: B018 - the resource exists before install
    finally:
        adapters.install("openai")
    server.script([Turn.final("ok")])
    seen: list[str] = []
    on(P.PRE_MODEL_CALL)(lambda ctx: seen.append("pre"))
    client.chat.completions.create(model=MODEL, messages=USER)
    assert seen == ["pre"]


def test_async_stream_refusal_and_replacement(aclient: Any, server: Any) -> None:
    server.script([two_calls(), Turn.final("the original answer")])
    guard_purge()
    on(P.POST_MODEL_CALL)(lambda ctx: ctx.response.replace("original", "replaced") if ctx.response else None)

    async def main() -> tuple[list[str], str]:
        names: list[str] = []
        stream = await aclient.chat.completions.create(model=MODEL, messages=USER, tools=TOOLS, stream=True)
        async for chunk in stream:
            for part in chunk.choices[0].delta.tool_calls or ():
                names.append(part.function.name)
        text = ""
        stream = await aclient.chat.completions.create(model=MODEL, messages=USER, stream=True)
        async for chunk in stream:
            text += chunk.choices[0].delta.content or ""
        return names, text

    names, text = asyncio.run(main())
    assert names == ["add_numbers"]
    assert text == "the replaced answer"


def test_no_hooks_leaves_the_stream_alone(client: Any, server: Any) -> None:
    import openai

    server.script([Turn.final("plain")])
    stream = client.chat.completions.create(model=MODEL, messages=USER, stream=True)
    assert type(stream) is openai.Stream
    assert "".join(c.choices[0].delta.content or "" for c in stream) == "plain"


def test_post_model_hook_editing_metadata_arguments_does_not_move_the_tool_decision(client: Any, server: Any) -> None:
    """POST_MODEL_CALL's ``ctx.metadata["tool_calls"]`` is a copy: the adapter reads an answer's calls once
    for POST and PRE_TOOL_CALL, and PRE must still review (and the caller receive) what the model asked."""
    server.script([two_calls(), Turn.final("done")])
    reviewed: list[Any] = []

    @on(P.POST_MODEL_CALL)
    def scribble(ctx):  # type: ignore[no-untyped-def]
        for call in ctx.metadata["tool_calls"]:
            call["arguments"]["table"] = "audit_log"

    @on(P.PRE_TOOL_CALL)
    def seen(ctx):  # type: ignore[no-untyped-def]
        reviewed.append((ctx.tool_name, dict(ctx.tool_input)))

    message = client.chat.completions.create(model=MODEL, messages=USER, tools=TOOLS).choices[0].message
    assert reviewed == [("add_numbers", {"a": 2, "b": 3}), ("purge_records", {"table": "users"})]
    assert [json.loads(c.function.arguments) for c in message.tool_calls] == [{"a": 2, "b": 3}, {"table": "users"}]
