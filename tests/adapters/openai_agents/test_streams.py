"""A wrap hook sees a stream as a stream: a pass-through ``call_next`` changes neither what a
streamed run's consumer receives nor when (issue 29, "Installing hookport changes nothing else")."""

from __future__ import annotations

import asyncio
from importlib import metadata
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from hookport import ExtensionPoint, InterceptionPoint, on
from tests.support.hooks import collect

pytest.importorskip("agents")

from agents import Agent, Runner  # noqa: E402
from agents.models.interface import Model  # noqa: E402
from openai.types.responses import ResponseTextDeltaEvent  # noqa: E402

from tests.adapters.openai_agents.harness import stream_events_of  # noqa: E402
from tests.conformance.harness import Turn  # noqa: E402
from tests.adapters.openai_agents.harness import output_items  # noqa: E402

P = InterceptionPoint
W = ExtensionPoint
pytestmark = pytest.mark.usefixtures("openai_agents_adapter")


def _sync_passthrough(ctx: Any, call_next: Any) -> Any:
    return call_next(ctx)


async def _async_passthrough(ctx: Any, call_next: Any) -> Any:
    return await call_next(ctx)


WRAPS = pytest.mark.parametrize("wrap", [_sync_passthrough, _async_passthrough], ids=["def", "async-def"])


def _delta(index: int, text: str = "tok") -> ResponseTextDeltaEvent:
    return ResponseTextDeltaEvent(type="response.output_text.delta", delta=text, item_id="msg_1", output_index=0,
                                  content_index=0, sequence_number=index, logprobs=[])


class StreamingModel(Model):
    """A model whose one streamed answer is `events()` (an async generator the test scripts)."""

    def __init__(self, events: Callable[[], AsyncIterator[Any]]) -> None:
        self.events = events

    async def get_response(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("this model only streams")

    async def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        async for event in self.events():
            yield event


def _raw(event: Any) -> Any:
    return event.data if getattr(event, "type", None) == "raw_response_event" else None


@WRAPS
def test_events_reach_the_consumer_while_the_model_still_streams(wrap: Any) -> None:
    """Before: the wrap chain read the stream to its end, so the consumer saw nothing until then
    (here: never, as the model waits for the consumer to have seen its first delta)."""
    on(W.WRAP_MODEL_CALL)(wrap)
    posts = collect(P.POST_MODEL_CALL)
    seen = asyncio.Event()

    async def events() -> AsyncIterator[Any]:
        yield _delta(0, "hel")
        await seen.wait()
        yield _delta(1, "lo")
        async for event in stream_events_of(output_items(Turn.final("hello"))):
            yield event

    async def main() -> tuple[list[str], Any]:
        result = Runner.run_streamed(Agent(name="alpha", model=StreamingModel(events)), "go")
        deltas: list[str] = []
        async for event in result.stream_events():
            raw = _raw(event)
            if raw is not None and raw.type == "response.output_text.delta":
                deltas.append(raw.delta)
                seen.set()
        return deltas, result.final_output

    deltas, final = asyncio.run(asyncio.wait_for(main(), 10))
    assert deltas == ["hel", "lo"] and final == "hello"
    assert [c.response for c in posts] == ["hello"], "POST_MODEL_CALL did not run once, after the last event"


@WRAPS
def test_a_stream_events_timeout_fires_and_stops_the_model(wrap: Any) -> None:
    """Before: the first event waited for the model's end, so a consumer's timeout on a stream that
    stalls after its first event ended it having received nothing."""
    on(W.WRAP_MODEL_CALL)(wrap)
    stopped = asyncio.Event()

    async def events() -> AsyncIterator[Any]:
        try:
            yield _delta(0)
            await asyncio.Event().wait()
        finally:
            stopped.set()

    async def main() -> list[str]:
        result = Runner.run_streamed(Agent(name="alpha", model=StreamingModel(events)), "go")
        got: list[str] = []

        async def consume() -> None:
            async for event in result.stream_events():
                raw = _raw(event)
                if raw is not None:
                    got.append(raw.type)

        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(consume(), 0.5)
        result.cancel()
        await asyncio.wait_for(stopped.wait(), 5)
        return got

    assert asyncio.run(asyncio.wait_for(main(), 20)) == ["response.output_text.delta"]


@WRAPS
def test_events_before_a_mid_stream_failure_are_delivered(wrap: Any) -> None:
    """Before: the failure ended the buffering chain, and the deltas the model had sent were lost."""
    on(W.WRAP_MODEL_CALL)(wrap)

    async def events() -> AsyncIterator[Any]:
        yield _delta(0, "partial")
        raise RuntimeError("connection reset mid-stream")

    async def main() -> list[str]:
        result = Runner.run_streamed(Agent(name="alpha", model=StreamingModel(events)), "go")
        deltas: list[str] = []
        with pytest.raises(RuntimeError, match="connection reset mid-stream"):
            async for event in result.stream_events():
                raw = _raw(event)
                if raw is not None and raw.type == "response.output_text.delta":
                    deltas.append(raw.delta)
        return deltas

    assert asyncio.run(asyncio.wait_for(main(), 10)) == ["partial"]


class FalsyError(RuntimeError):
    def __bool__(self) -> bool:
        return False


SDK_RAISES_A_FALSY_ERROR = tuple(int(p) for p in metadata.version("openai-agents").split(".")[:2]) >= (0, 21)
"""openai-agents 0.19 ends a stream whose model raised an exception that is falsy without raising it
(checked without hookport on 0.19.4; 0.21.1 raises it): hookport must do what the SDK does."""


@WRAPS
def test_a_falsy_model_error_surfaces_as_itself(wrap: Any) -> None:
    """Before: an error whose ``__bool__`` is False came back as a None answer and
    `_StreamShape.text` raised ``TypeError: 'NoneType' object is not reversible``."""
    on(W.WRAP_MODEL_CALL)(wrap)

    async def events() -> AsyncIterator[Any]:
        raise FalsyError("the provider said no")
        yield  # pragma: no cover

    async def main() -> None:
        result = Runner.run_streamed(Agent(name="alpha", model=StreamingModel(events)), "go")
        async for _event in result.stream_events():
            pass

    if not SDK_RAISES_A_FALSY_ERROR:  # what the SDK itself does, with or without hookport
        asyncio.run(asyncio.wait_for(main(), 10))
        return
    with pytest.raises(FalsyError, match="the provider said no"):
        asyncio.run(asyncio.wait_for(main(), 10))


def test_the_stream_shape_reads_no_answer_as_no_text() -> None:
    from hookport.adapters.openai_agents._models import STREAM

    assert STREAM.text(None) is None  # type: ignore[arg-type]


def test_a_wrap_hook_replacing_the_answer_changes_the_final_response_only() -> None:
    """Documented: the deltas already streamed show the model's text; the final output is the hook's."""

    @on(W.WRAP_MODEL_CALL)
    async def redact(ctx: Any, call_next: Any) -> Any:
        await call_next(ctx)
        return "[redacted]"

    async def events() -> AsyncIterator[Any]:
        yield _delta(0, "secret")
        async for event in stream_events_of(output_items(Turn.final("secret"))):
            yield event

    async def main() -> tuple[list[str], Any]:
        result = Runner.run_streamed(Agent(name="alpha", model=StreamingModel(events)), "go")
        deltas = [raw.delta async for event in result.stream_events()
                  if (raw := _raw(event)) is not None and raw.type == "response.output_text.delta"]
        return deltas, result.final_output

    assert asyncio.run(asyncio.wait_for(main(), 10)) == (["secret"], "[redacted]")


@WRAPS
def test_an_agent_tools_stream_backlog_limit_stops_its_nested_run(wrap: Any) -> None:
    """Before: the nested run's model events came only when its model finished (here: never), so
    ``on_stream_max_pending_events`` never overflowed and the tool call hung."""
    import inspect

    from agents import RunContextWrapper
    from agents.tool_context import ToolContext

    if "on_stream_max_pending_events" not in inspect.signature(Agent.as_tool).parameters:
        pytest.skip("this SDK release has no on_stream_max_pending_events for agent tools")
    on(W.WRAP_MODEL_CALL)(wrap)
    errors: list[Exception] = []

    async def main() -> tuple[Any, bool]:
        handler_started = asyncio.Event()
        model_stopped = asyncio.Event()

        async def events() -> AsyncIterator[Any]:
            await handler_started.wait()
            try:
                for index in range(3):
                    yield _delta(index)
                await asyncio.Event().wait()
            finally:
                model_stopped.set()

        async def handler(payload: Any) -> None:
            handler_started.set()
            await asyncio.Event().wait()  # a stuck consumer of the nested run's events

        def overloaded(context: RunContextWrapper[Any], error: Exception) -> str:
            errors.append(error)
            return "stream callback overloaded"

        tool = Agent(name="streamer", model=StreamingModel(events)).as_tool(
            None, None, on_stream=handler, on_stream_max_pending_events=2, failure_error_function=overloaded)
        context = ToolContext(context=None, tool_name=tool.name, tool_call_id="call_overflow",
                              tool_arguments='{"input":"go"}')
        answer = await asyncio.wait_for(tool.on_invoke_tool(context, '{"input":"go"}'), 5)
        return answer, model_stopped.is_set()

    assert asyncio.run(asyncio.wait_for(main(), 20)) == ("stream callback overloaded", True)
    assert len(errors) == 1
