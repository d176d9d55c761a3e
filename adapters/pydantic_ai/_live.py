"""A streamed model request under wrap hooks, the stream still a stream.

The wrap chain (PRE, the wrap hooks, POST) runs in a task of its own; its ``call_next`` asks the
consumer's task for the real stream, because Pydantic AI enters and exits a model's
``request_stream`` in the task that iterates it. The first attempt that opens is handed on as
it is: the consumer reads the model's own `StreamedResponse` (its chunking, token counts, parts,
a mid-stream error, an early ``break`` that closes it), so a wrap hook that passes the call
through changes nothing the consumer receives. ``call_next`` returns the answer once the
consumer is done with the stream.

- An attempt that fails to open reaches the hooks as its error: a retry opens the next attempt,
  a fallback or a cache answer is played back as a stream (nothing reached the consumer yet).
- A failure once the stream was handed on reached the consumer as itself: the hooks see it, and
  it stays the consumer's error (a hook that raises another error, an abort, replaces it).
  ``call_next`` raises it again if called after it.
- After a stream the consumer read to its end, a further ``call_next`` (a hook that re-asks) is a
  real request, read whole; an answer the chain ends with that is not the streamed one (a
  replacement, a re-asked answer) is what the stream's ``get()`` gives from then on, which is what
  Pydantic AI keeps in the run's history and returns as its output (the text already streamed
  shows the model's).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

from pydantic_ai.messages import ModelResponse
from pydantic_ai.models import StreamedResponse

from hookport.adapters._sync_wraps import first_done
from hookport.calls import MODEL_LAYER, ResponseShape, amodel_call
from hookport.contexts import LLMCallHookContext

Request = tuple[LLMCallHookContext, "asyncio.Future[ModelResponse]"]


async def drained(stream_context: Any) -> ModelResponse:
    """One streamed request read to its end, not handed on (buffered mode; a wrap hook's re-ask)."""
    with MODEL_LAYER.hold():
        async with stream_context as stream:
            async for _event in stream:
                pass
    return stream.get()  # type: ignore[no-any-return]


def answer_with(stream: StreamedResponse, answer: ModelResponse) -> None:
    """The answer hooks left for a stream the consumer has read: what its ``get()`` gives from now on
    (Pydantic AI reads it once the stream is closed, for the run's history and output)."""
    stream.get = lambda: answer  # type: ignore[method-assign]


class _Chain:
    """The wrap chain's task and the requests its ``call_next`` makes of the consumer's task."""

    def __init__(self, ctx: LLMCallHookContext, shape: ResponseShape[ModelResponse]) -> None:
        self.requests: asyncio.Queue[Request] = asyncio.Queue()
        self.task = asyncio.ensure_future(amodel_call(ctx, self._send, shape))
        self.task.add_done_callback(_collected)

    async def _send(self, ctx: LLMCallHookContext) -> ModelResponse:
        outcome: asyncio.Future[ModelResponse] = asyncio.get_running_loop().create_future()
        self.requests.put_nowait((ctx, outcome))
        return await outcome

    async def next_request(self) -> Request | None:
        """The chain's next ``call_next``, or None once it returned (or raised)."""
        asking = asyncio.ensure_future(self.requests.get())
        try:
            await first_done(self.task, asking)
        finally:
            if not asking.done():
                asking.cancel()
        if asking.done() and not asking.cancelled():
            return asking.result()
        return None

    async def finish(self, serve: Callable[[Request], Any]) -> Any:
        """Serve the chain's further requests with `serve` until it returns; its result."""
        while (request := await self.next_request()) is not None:
            await serve(request)
        return self.task.result()

    async def stop(self) -> None:
        if not self.task.done():
            self.task.cancel()
            await first_done(self.task)


@asynccontextmanager
async def live_stream(
    ctx: LLMCallHookContext,
    open_stream: Callable[[LLMCallHookContext], Any],
    replay: Callable[[ModelResponse], StreamedResponse],
    shape: ResponseShape[ModelResponse],
) -> AsyncIterator[StreamedResponse]:
    chain = _Chain(ctx, shape)
    try:
        opened = await _first_open(chain, open_stream)
        if opened is None:  # answered without streaming the model: a cache, a fallback
            yield replay(chain.task.result())
            return
        stack, stream, outcome = opened
        try:
            with MODEL_LAYER.hold():
                async with stack:  # the model's own stream, closed as the consumer leaves
                    yield stream
        except Exception as error:  # the consumer's iteration failed: the model's error, or its own
            outcome.set_exception(error)
            await chain.finish(_refused(error))  # an error the chain raises instead replaces it
            raise
        except BaseException:  # a cancel, a close: the hooks' call_next is cancelled
            outcome.cancel()
            raise
        streamed = stream.get()
        outcome.set_result(streamed)
        answer = await chain.finish(_read_whole(open_stream))
        if answer is not streamed:
            answer_with(stream, answer)
    finally:
        await chain.stop()


async def _first_open(chain: _Chain, open_stream: Callable[[LLMCallHookContext], Any]
                      ) -> tuple[AsyncExitStack, StreamedResponse, asyncio.Future[ModelResponse]] | None:
    """The first attempt of the chain that opens a stream (None if the chain returned first); an
    attempt that fails to open reaches the hooks as its error (they may retry or fall back)."""
    while (request := await chain.next_request()) is not None:
        attempt, outcome = request
        stack = AsyncExitStack()
        try:
            with MODEL_LAYER.hold():
                stream = await stack.enter_async_context(open_stream(attempt))
        except Exception as error:
            outcome.set_exception(error)
            continue
        return stack, stream, outcome
    return None


def _refused(error: BaseException) -> Callable[[Request], Any]:
    """A ``call_next`` after the handed-on stream failed: the same failure (it reached the consumer)."""
    async def refuse(request: Request) -> None:
        request[1].set_exception(error)

    return refuse


def _read_whole(open_stream: Callable[[LLMCallHookContext], Any]) -> Callable[[Request], Any]:
    """A ``call_next`` after the stream was read to its end: a real request, read whole."""
    async def serve(request: Request) -> None:
        attempt, outcome = request
        try:
            outcome.set_result(await drained(open_stream(attempt)))
        except Exception as error:
            outcome.set_exception(error)

    return serve


def _collected(task: asyncio.Future[Any]) -> None:
    """A chain ended by the consumer's cancellation: its outcome is not an unhandled error."""
    if not task.cancelled():
        task.exception()
