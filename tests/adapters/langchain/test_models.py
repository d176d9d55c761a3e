"""PRE/POST_MODEL_CALL on chat models and legacy LLMs, every entry point."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.caches import InMemoryCache
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from hookport import HookAborted, InterceptionPoint as P, on
from hookport.adapters.langchain import buffered_streaming, get_stream_mode, set_stream_mode, stream_mode
from tests.support.hooks import collect
from tests.adapters.langchain.models import EchoChat, EchoLLM, StreamingEcho

pytestmark = pytest.mark.usefixtures("installed")


def _run(model: Any, entry: str) -> int:
    """Call `model` through `entry`; returns how many logical calls that was."""
    prompt = [HumanMessage("hello")]
    if entry == "invoke":
        model.invoke(prompt)
    elif entry == "ainvoke":
        asyncio.run(model.ainvoke(prompt))
    elif entry == "stream":
        list(model.stream(prompt))
    elif entry == "astream":

        async def consume() -> None:
            async for _ in model.astream(prompt):
                pass

        asyncio.run(consume())
    elif entry == "batch":
        model.batch([prompt, prompt])
        return 2
    elif entry == "abatch":
        asyncio.run(model.abatch([prompt, prompt]))
        return 2
    elif entry == "generate":
        model.generate([prompt, prompt])
        return 2
    elif entry == "agenerate":
        asyncio.run(model.agenerate([prompt, prompt]))
        return 2
    return 1


ENTRIES = ("invoke", "ainvoke", "stream", "astream", "batch", "abatch", "generate", "agenerate")


@pytest.mark.parametrize("model_class", [EchoChat, StreamingEcho], ids=["no-stream", "stream"])
@pytest.mark.parametrize("entry", ENTRIES)
def test_exactly_one_pre_and_post_per_logical_call(model_class: type, entry: str) -> None:
    pre = collect(P.PRE_MODEL_CALL)
    post = collect(P.POST_MODEL_CALL)
    model = model_class()
    calls = _run(model, entry)
    assert len(model.requests) == calls
    assert len(pre) == calls
    assert len(post) == calls
    assert all(ctx.response == "the original answer" for ctx in post)


def test_context_fields() -> None:
    pre = collect(P.PRE_MODEL_CALL)
    model = EchoChat()
    model.bind(tools=[{"type": "function", "function": {"name": "f", "parameters": {}}}]).invoke("hi")
    ctx = pre[0]
    assert ctx.framework == "langchain"
    assert ctx.llm is model
    assert ctx.messages == [{"role": "user", "content": "hi"}]
    assert ctx.metadata["call_kwargs"]["tools"][0]["function"]["name"] == "f"


def test_messages_are_openai_dicts_with_tool_calls() -> None:
    pre = collect(P.PRE_MODEL_CALL)
    history = [
        SystemMessage("be brief"),
        HumanMessage("add 2 and 3"),
        AIMessage(content="", tool_calls=[{"name": "add", "args": {"a": 2, "b": 3}, "id": "call_1", "type": "tool_call"}]),
        ToolMessage(content="5", tool_call_id="call_1", name="add"),
    ]
    EchoChat().invoke(history)
    assert pre[0].messages == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "add 2 and 3"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'}}],
        },
        {"role": "tool", "content": "5", "tool_call_id": "call_1", "name": "add"},
    ]


@pytest.mark.parametrize("entry", ["invoke", "ainvoke", "stream", "astream", "batch"])
def test_edits_reach_the_model_on_every_entry(entry: str) -> None:
    on(P.PRE_MODEL_CALL)(lambda ctx: ctx.messages[-1].update(content="EDITED"))
    model = StreamingEcho()
    calls = _run(model, entry)
    assert [[m.content for m in request] for request in model.requests] == [["EDITED"]] * calls


def test_in_place_edits_reach_the_model_but_not_the_caller() -> None:
    @on(P.PRE_MODEL_CALL)
    def redact(ctx: Any) -> None:
        ctx.messages[1]["content"] = ctx.messages[1]["content"].replace("4111", "[card]")
        ctx.messages.insert(0, {"role": "system", "content": "policy: never repeat card numbers"})

    caller = [SystemMessage("be brief"), HumanMessage("my card is 4111")]
    model = EchoChat()
    model.invoke(caller)
    sent = model.requests[0]
    assert [m.content for m in sent] == ["policy: never repeat card numbers", "be brief", "my card is [card]"]
    assert sent[1] is caller[0], "an untouched message should be passed as is"
    assert caller[1].content == "my card is 4111"
    assert len(caller) == 2


def test_returned_list_replaces_messages() -> None:
    on(P.PRE_MODEL_CALL)(lambda ctx: [{"role": "user", "content": "only this"}])
    model = EchoChat()
    model.invoke([HumanMessage("a"), HumanMessage("b")])
    assert [(m.type, m.content) for m in model.requests[0]] == [("human", "only this")]


def test_replacement_is_a_new_result_and_the_cache_keeps_the_original() -> None:
    on(P.POST_MODEL_CALL)(lambda ctx: ctx.response.replace("original", "replaced"))
    pre = collect(P.PRE_MODEL_CALL)
    cache = InMemoryCache()
    model = EchoChat(cache=cache)
    first = model.invoke("same prompt")
    second = model.invoke("same prompt")
    assert len(model.requests) == 1, "the second call should be a cache hit"
    assert len(pre) == 2, "PRE fires on cache hits too"
    assert first.content == second.content == "the replaced answer"
    cached = [gen.text for generations in cache._cache.values() for gen in generations]
    assert cached == ["the original answer"]


def test_replacement_keeps_non_text_blocks() -> None:
    blocks = [{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "secret 4111"}]
    post = collect(P.POST_MODEL_CALL, result=lambda ctx: ctx.response.replace("4111", "[card]"))
    answer = EchoChat(reply=blocks).invoke("hi")
    assert post[0].response == "secret [card]"
    assert answer.content == [{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "secret [card]"}]


def test_abort_is_raised_and_the_model_not_called() -> None:
    @on(P.PRE_MODEL_CALL)
    def stop(ctx: Any) -> None:
        raise HookAborted("budget exhausted", source="cost-guard")

    model = StreamingEcho()
    for call in (lambda: model.invoke("hi"), lambda: list(model.stream("hi")), lambda: model.batch(["a", "b"])):
        with pytest.raises(HookAborted, match="budget exhausted"):
            call()
    assert model.requests == []


def test_with_retry_does_not_retry_an_abort() -> None:
    pre = collect(P.PRE_MODEL_CALL)

    @on(P.PRE_MODEL_CALL)
    def stop(ctx: Any) -> None:
        raise HookAborted("no")

    model = EchoChat()
    with pytest.raises(HookAborted):
        model.with_retry(stop_after_attempt=3, wait_exponential_jitter=False).invoke("hi")
    with pytest.raises(HookAborted):
        asyncio.run(model.with_retry(stop_after_attempt=3, wait_exponential_jitter=False).ainvoke("hi"))
    assert len(pre) == 2, "with_retry retried an abort"


def test_with_retry_still_retries_other_errors() -> None:
    class Flaky(EchoChat):
        def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
            self.requests.append(messages)
            if len(self.requests) < 3:
                raise ConnectionError("try again")
            return super()._generate(messages, stop, run_manager, **kwargs)

    pre = collect(P.PRE_MODEL_CALL)
    model = Flaky()
    assert model.with_retry(stop_after_attempt=3, wait_exponential_jitter=False).invoke("hi").content
    assert len(pre) == 3


# -- streaming ----------------------------------------------------------------------------------------------


def _events_of_stream(model: Any, async_: bool = False) -> tuple[list[str], list[Any]]:
    order: list[str] = []
    chunks: list[Any] = []

    @on(P.POST_MODEL_CALL)
    def post(ctx: Any) -> str:
        order.append(f"post:{ctx.response}")
        return ctx.response.replace("original", "replaced")

    if async_:

        async def consume() -> None:
            async for chunk in model.astream("hi"):
                order.append("chunk")
                chunks.append(chunk)

        asyncio.run(consume())
    else:
        for chunk in model.stream("hi"):
            order.append("chunk")
            chunks.append(chunk)
    return order, chunks


@pytest.mark.parametrize("async_", [False, True], ids=["stream", "astream"])
def test_passthrough_streams_live_and_post_sees_the_whole_answer(async_: bool) -> None:
    order, chunks = _events_of_stream(StreamingEcho(), async_)
    assert order[-1] == "post:the original answer"
    assert len(order) >= 4 and set(order[:-1]) == {"chunk"}
    assert "".join(c.content for c in chunks) == "the original answer", "sent chunks cannot be taken back"


@pytest.mark.parametrize("async_", [False, True], ids=["stream", "astream"])
def test_buffered_mode_lets_post_replace_before_any_chunk_leaves(async_: bool) -> None:
    with buffered_streaming():
        order, chunks = _events_of_stream(StreamingEcho(), async_)
    assert order == ["post:the original answer", "chunk"]
    assert [c.content for c in chunks] == ["the replaced answer"]


def test_buffered_mode_releases_the_original_chunks_when_post_keeps_the_answer() -> None:
    post = collect(P.POST_MODEL_CALL)
    with stream_mode("buffered"):
        chunks = list(StreamingEcho().stream("hi"))
    assert [c.content for c in chunks if c.content] == ["the", " original", " answer"]
    assert len(post) == 1


def test_stream_mode_switches() -> None:
    assert get_stream_mode() == "passthrough"
    with buffered_streaming():
        assert get_stream_mode() == "buffered"
    set_stream_mode("buffered")
    try:
        assert get_stream_mode() == "buffered"
        with stream_mode("passthrough"):
            assert get_stream_mode() == "passthrough"
    finally:
        set_stream_mode("passthrough")
    with pytest.raises(ValueError):
        set_stream_mode("sometimes")  # type: ignore[arg-type]


def test_abandoned_stream_still_gets_post_marked_incomplete() -> None:
    post = collect(P.POST_MODEL_CALL)
    stream = StreamingEcho().stream("hi")
    first = next(stream)
    stream.close()
    assert first.content == "the"
    assert len(post) == 1
    assert post[0].metadata["incomplete"] is True and post[0].response == "the"


# -- legacy completion LLMs ------------------------------------------------------------------------------------


@pytest.mark.parametrize("entry", ["invoke", "ainvoke", "stream", "astream", "batch", "abatch"])
def test_llm_exactly_once_per_prompt(entry: str) -> None:
    pre = collect(P.PRE_MODEL_CALL)
    post = collect(P.POST_MODEL_CALL)
    llm = EchoLLM()
    if entry == "invoke":
        llm.invoke("q")
    elif entry == "ainvoke":
        asyncio.run(llm.ainvoke("q"))
    elif entry == "stream":
        list(llm.stream("q"))
    elif entry == "astream":

        async def consume() -> None:
            async for _ in llm.astream("q"):
                pass

        asyncio.run(consume())
    elif entry == "batch":
        llm.batch(["q1", "q2"])
    else:
        asyncio.run(llm.abatch(["q1", "q2"]))
    calls = 2 if entry in ("batch", "abatch") else 1
    assert len(llm.prompts) == len(pre) == len(post) == calls
    assert pre[0].messages[0]["role"] == "user"


def test_llm_prompt_edit_and_replacement() -> None:
    on(P.PRE_MODEL_CALL)(lambda ctx: ctx.messages[0].update(content=ctx.messages[0]["content"].upper()))
    on(P.POST_MODEL_CALL)(lambda ctx: "replaced")
    llm = EchoLLM()
    assert llm.batch(["first", "second"]) == ["replaced", "replaced"]
    assert llm.prompts == ["FIRST", "SECOND"]
    with buffered_streaming():
        assert list(llm.stream("third")) == ["replaced"]


def test_llm_abort() -> None:
    on(P.PRE_MODEL_CALL)(lambda ctx: False)
    llm = EchoLLM()
    with pytest.raises(HookAborted):
        llm.invoke("q")
    assert llm.prompts == []
