"""Streamed model requests under wrap hooks stay streams: a wrap hook that passes the call through
changes nothing the consumer of ``run_stream`` receives (its chunks, token counts, a mid-stream
error, an early ``break`` closing the model's stream); each test compares with the same run and
no hook (its twin)."""

from __future__ import annotations

import asyncio
import importlib
import inspect
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from hookport import ExtensionPoint, InterceptionPoint, on, register_hook

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent  # noqa: E402
from pydantic_ai.messages import ModelMessage  # noqa: E402
from pydantic_ai.models.function import AgentInfo, FunctionModel  # noqa: E402
from pydantic_ai.models.wrapper import WrapperModel  # noqa: E402

from hookport.adapters.pydantic_ai import buffered_streaming  # noqa: E402

P = InterceptionPoint
W = ExtensionPoint
pytestmark = pytest.mark.usefixtures("pydantic_ai_adapter")
CHUNKS = ["The ", "answer ", "is ", "four", "."]
CONSUMER_OPENS_THE_STREAM = hasattr(importlib.import_module("pydantic_ai._agent_graph"), "model_request_stream")
"""Whether Pydantic AI enters a model's ``request_stream`` in the task that reads it and keeps the
stream's ``get()`` once it is closed (2.x), or in its ``wrap_model_request`` task, keeping what
``run_stream`` read (1.x: a replaced answer is not kept there)."""


class Stream:
    """A scripted streaming model that records how its stream ended."""

    def __init__(self, fail_after: int | None = None) -> None:
        self.fail_after = fail_after
        self.opened = 0
        self.closed = 0
        self.sent = 0

    async def answer(self, messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        self.opened += 1
        try:
            for index, chunk in enumerate(CHUNKS):
                if index == self.fail_after:
                    raise RuntimeError("the provider cut the stream")
                self.sent += 1
                yield chunk
        finally:
            self.closed += 1

    def agent(self) -> Agent[None, str]:
        return Agent(FunctionModel(stream_function=self.answer, model_name="scripted"), name="streamer")


def passthrough() -> list[Any]:
    """A wrap hook that passes every model call through, and what each ``call_next`` gave it."""
    seen: list[Any] = []

    @on(W.WRAP_MODEL_CALL)
    async def wrap(ctx: Any, call_next: Any) -> Any:
        try:
            answer = await call_next(ctx)
        except Exception as error:
            seen.append(error)
            raise
        seen.append(answer)
        return answer

    return seen


async def _consume(agent: Agent[None, str], stop_after: int | None = None) -> dict[str, Any]:
    got: dict[str, Any] = {"deltas": []}
    try:
        async with agent.run_stream("go") as result:
            async for delta in result.stream_text(delta=True, debounce_by=None):
                got["deltas"].append(delta)
                if stop_after is not None and len(got["deltas"]) >= stop_after:
                    break
            else:
                got["output"] = await result.get_output()
                usage = result.usage  # a property from 2.x on, a method before
                got["usage"] = usage() if inspect.ismethod(usage) else usage
    except Exception as error:
        got["error"] = error
    else:
        if "output" in got:
            got["kept"] = _last_answer(result.all_messages())
    return got


def _last_answer(messages: list[ModelMessage]) -> str:
    """The text of the last model response the run's history keeps."""
    from pydantic_ai.messages import ModelResponse, TextPart

    response = [m for m in messages if isinstance(m, ModelResponse)][-1]
    return "".join(part.content for part in response.parts if isinstance(part, TextPart))




def test_a_passthrough_wrap_hook_hands_on_the_models_own_chunks_and_usage() -> None:
    bare = asyncio.run(_consume(Stream().agent()))
    seen = passthrough()
    hooked = asyncio.run(_consume(Stream().agent()))
    assert len(seen) == 1 and "four" in str(seen[0])  # the hook saw the streamed answer, once
    assert bare["deltas"] == CHUNKS and hooked["deltas"] == bare["deltas"]
    assert hooked["output"] == bare["output"] == "".join(CHUNKS)
    assert hooked["usage"] == bare["usage"]


def test_a_mid_stream_failure_reaches_the_consumer_after_the_chunks_before_it() -> None:
    bare_model = Stream(fail_after=2)
    bare = asyncio.run(_consume(bare_model.agent()))
    seen = passthrough()
    model = Stream(fail_after=2)
    hooked = asyncio.run(_consume(model.agent()))
    assert bare["deltas"] == CHUNKS[:2] and isinstance(bare["error"], RuntimeError)
    assert hooked["deltas"] == bare["deltas"]
    assert type(hooked["error"]) is type(bare["error"]) and str(hooked["error"]) == str(bare["error"])
    if CONSUMER_OPENS_THE_STREAM:  # the hook saw the failure as itself
        assert len(seen) == 1 and seen[0] is hooked["error"]
    else:  # Pydantic AI cancels its wrap_model_request task on a consumer's error, and call_next with it
        assert seen == []
    assert model.opened == 1  # nothing re-asked the model


def test_an_early_break_closes_the_models_stream() -> None:
    bare_model = Stream()
    asyncio.run(_consume(bare_model.agent(), stop_after=2))
    passthrough()
    model = Stream()
    hooked = asyncio.run(_consume(model.agent(), stop_after=2))
    assert bare_model.closed == 1 and bare_model.sent < len(CHUNKS)
    assert hooked["deltas"] == CHUNKS[:2]
    assert model.closed == 1 and model.sent == bare_model.sent  # closed, not read to its end


def test_a_wrap_hooks_replacement_is_the_answer_the_run_keeps() -> None:
    @on(W.WRAP_MODEL_CALL)
    async def checked(ctx: Any, call_next: Any) -> Any:
        await call_next(ctx)
        return "the checked answer"

    got = asyncio.run(_consume(Stream().agent()))
    assert got["deltas"] == CHUNKS  # what was streamed stays streamed
    assert got["kept"] == ("the checked answer" if CONSUMER_OPENS_THE_STREAM else "".join(CHUNKS))


def test_a_post_replacement_is_the_answer_the_run_keeps() -> None:
    register_hook(P.POST_MODEL_CALL, lambda ctx: "the redacted answer")
    got = asyncio.run(_consume(Stream().agent()))
    assert got["deltas"] == CHUNKS
    assert got["kept"] == ("the redacted answer" if CONSUMER_OPENS_THE_STREAM else "".join(CHUNKS))


class _FailsToOpen(WrapperModel):
    """A model whose first streamed request fails before any event (a refused connection)."""

    def __init__(self, wrapped: Any) -> None:
        super().__init__(wrapped)
        self.attempts = 0

    @asynccontextmanager
    async def request_stream(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        self.attempts += 1
        if self.attempts == 1:
            raise ConnectionError("connection refused")
        async with self.wrapped.request_stream(*args, **kwargs) as stream:
            yield stream


def test_a_retry_after_a_stream_failed_to_open_streams_the_next_attempt() -> None:
    @on(W.WRAP_MODEL_CALL)
    async def retry(ctx: Any, call_next: Any) -> Any:
        try:
            return await call_next(ctx)
        except ConnectionError:
            return await call_next(ctx)

    scripted = Stream()
    model = _FailsToOpen(FunctionModel(stream_function=scripted.answer, model_name="scripted"))
    got = asyncio.run(_consume(Agent(model, name="streamer")))
    assert model.attempts == 2 and scripted.opened == 1
    assert got["deltas"] == CHUNKS and got["output"] == "".join(CHUNKS)


def test_buffered_streaming_is_asked_for() -> None:
    passthrough()
    register_hook(P.POST_MODEL_CALL, lambda ctx: "the replaced answer")
    with buffered_streaming():
        got = asyncio.run(_consume(Stream().agent()))
    assert got["output"] == "the replaced answer" and "".join(got["deltas"]) == "the replaced answer"


def test_a_wrap_hook_that_re_asks_after_the_stream_makes_a_real_request() -> None:
    @on(W.WRAP_MODEL_CALL)
    async def ask_twice(ctx: Any, call_next: Any) -> Any:
        await call_next(ctx)
        return await call_next(ctx)

    model = Stream()
    got = asyncio.run(_consume(model.agent()))
    assert model.opened == 2 and model.closed == 2  # the second request was really made, and read whole
    assert got["deltas"] == CHUNKS and got["kept"] == "".join(CHUNKS)
