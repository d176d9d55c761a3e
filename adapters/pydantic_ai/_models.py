"""PRE_MODEL_CALL / POST_MODEL_CALL (and the wrap hooks) around the real model request.

`HookedModel` is a Pydantic AI `WrapperModel` that the innermost handler of the run's
``CombinedCapability.wrap_model_request`` (`_joins`) puts in front of whatever model serves a
request (``request_context.model`` is writable), so every `Model` is covered -- providers,
`FunctionModel`, `TestModel`, fallback models -- and hooks run around the model's
own ``request`` / ``request_stream``, once per request:

- PRE hooks see the request's history as OpenAI-style dicts, converted when a hook first
  reads them (a hook that never does costs no conversion); edits reach the model as new
  message objects, never in the run's history;
- wrap hooks sit around the real call (a retry re-issues it, a cache answers instead);
- POST hooks see the answer's text; a returned string replaces the text parts.

Streaming (``run_stream``): the consumer reads the model's own `StreamedResponse`, as
it comes. PRE runs before the stream opens, POST once the consumer is done with it; a
POST replacement is what the stream's ``get()`` gives from then on (the run's history and
output), while the text already streamed shows the model's. With wrap hooks the stream
stays a stream (`_live`): a wrap hook that passes the call through changes nothing the
consumer receives. `buffered_streaming()` (asked for by the user) drains the request first
and replays the final answer, so replacements and retries reach the streamed text too.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models import Model, ModelRequestParameters, StreamedResponse
from pydantic_ai.models.test import TestStreamedResponse
from pydantic_ai.models.wrapper import WrapperModel

from hookport.calls import MODEL_LAYER, ResponseShape, amodel_call, model_hooks_active
from hookport.contexts import LazyMessagesContext, LazyView, LLMCallHookContext
from hookport.dispatch import adispatch
from hookport.points import ExtensionPoint, InterceptionPoint
from hookport.registry import has_hooks

from hookport.adapters.pydantic_ai._messages import Conversation, instructions, response_text, with_text
from hookport.adapters.pydantic_ai._live import answer_with, drained, live_stream
from hookport.adapters.pydantic_ai._state import stream_mode

P = InterceptionPoint


class _ResponseShape(ResponseShape[ModelResponse]):
    def text(self, result: ModelResponse) -> str | None:
        return response_text(result) if isinstance(result, ModelResponse) else super().text(result)

    def replace(self, result: ModelResponse | None, text: str) -> ModelResponse:
        return with_text(result, text)


SHAPE = _ResponseShape()


class HookedModel(WrapperModel):
    """The model of one request, with hookport's model points around it."""

    def __init__(self, wrapped: Model, fields: dict[str, Any], iterations: int = 0, request_context: Any = None) -> None:
        super().__init__(wrapped)
        self.fields = fields
        self.iterations = iterations
        self.request_context = request_context

    def _served(self) -> None:
        """The request is answered: the request context shows the model that served it again, so the
        ``after_model_request`` hooks (and anything after) see the model a capability swapped in, not hookport's."""
        request_context = self.request_context
        if request_context is not None and request_context.model is self:
            request_context.model = self.wrapped

    def _context(self, messages: list[ModelMessage], streamed: bool) -> tuple[LLMCallHookContext, LazyView[Conversation]]:
        """The request's context; its `Conversation` (the dicts hooks see) is made when a hook reads them."""
        lazy: LazyView[Conversation] = LazyView(lambda: Conversation(messages))
        metadata = {"instructions": instructions(messages), "model": self.wrapped, "stream": streamed}
        ctx = LazyMessagesContext(lazy.build, keep_copy=False, llm=self.wrapped, metadata=metadata,
                                  iterations=self.iterations, **self.fields)
        return ctx, lazy

    async def _request(
        self,
        messages: list[ModelMessage],
        model_settings: Any,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        try:
            if not model_hooks_active():
                return await self.wrapped.request(messages, model_settings, model_request_parameters)
            ctx, lazy = self._context(messages, streamed=False)

            def send(c: LLMCallHookContext) -> Awaitable[ModelResponse]:
                return self.wrapped.request(_sent(messages, lazy, c), model_settings, model_request_parameters)

            return await amodel_call(ctx, send, SHAPE)
        finally:
            self._served()

    @asynccontextmanager
    async def _request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: Any,
        model_request_parameters: ModelRequestParameters,
        run_context: Any = None,
    ) -> AsyncIterator[StreamedResponse]:
        try:
            async with self._stream(messages, model_settings, model_request_parameters, run_context) as stream:
                yield stream
        finally:
            self._served()

    @asynccontextmanager
    async def _stream(
        self,
        messages: list[ModelMessage],
        model_settings: Any,
        model_request_parameters: ModelRequestParameters,
        run_context: Any = None,
    ) -> AsyncIterator[StreamedResponse]:
        if not model_hooks_active():
            async with self.wrapped.request_stream(messages, model_settings, model_request_parameters,
                                                   run_context) as stream:
                yield stream
            return
        ctx, lazy = self._context(messages, streamed=True)

        def open_stream(c: LLMCallHookContext) -> Any:
            return self.wrapped.request_stream(_sent(messages, lazy, c), model_settings,
                                               model_request_parameters, run_context)

        def replay(answer: ModelResponse) -> StreamedResponse:
            return _replay(answer, messages, model_request_parameters)

        if stream_mode() == "buffered":
            answer = await amodel_call(ctx, lambda c: drained(open_stream(c)), SHAPE)
            yield replay(answer)
        elif has_hooks(ExtensionPoint.WRAP_MODEL_CALL):
            async with live_stream(ctx, open_stream, replay, SHAPE) as stream:
                yield stream
        else:
            async with _observed_stream(ctx, open_stream) as stream:
                yield stream


# Pydantic AI (2.x) wraps every Model class's own ``request`` / ``request_stream`` as the class is made
# (special-token restoring, a download budget per request); the model a HookedModel wraps has its own, so
# the two are set after the class exists: no second layer of each on every request.
HookedModel.request = HookedModel._request  # type: ignore[method-assign]
HookedModel.request_stream = HookedModel._request_stream  # type: ignore[method-assign]


def cannot_stream(request_context: Any, model: Model) -> bool:
    """A streamed request to a model with no ``request_stream`` of its own: left as it is, so Pydantic AI
    refuses it with its own ``UserError`` (it checks the serving model's class) and the model is never called."""
    return bool(getattr(request_context, "streaming", False)) and type(model).request_stream is Model.request_stream


def _sent(messages: list[ModelMessage], lazy: LazyView[Conversation], ctx: LLMCallHookContext) -> list[ModelMessage]:
    """The history the model receives: the request's own unless a hook read the messages and changed them."""
    return lazy.view.rebuilt(ctx.messages) if lazy.view is not None else messages


@asynccontextmanager
async def _observed_stream(ctx: LLMCallHookContext, open_stream: Callable[[LLMCallHookContext], Any]) -> AsyncIterator[StreamedResponse]:
    """PRE, the model's own stream handed on as it is, POST once the consumer is done with it."""
    await adispatch(P.PRE_MODEL_CALL, ctx)
    started = time.perf_counter()
    with MODEL_LAYER.hold():
        async with open_stream(ctx) as stream:
            yield stream
    ctx.duration_ms = (time.perf_counter() - started) * 1000.0
    streamed = stream.get()
    ctx.response = response_text(streamed)
    ctx.metadata["original_response"] = ctx.response
    await adispatch(P.POST_MODEL_CALL, ctx)
    if ctx.response is not None and ctx.response != ctx.metadata["original_response"]:
        answer_with(stream, SHAPE.replace(streamed, ctx.response))


def _replay(answer: ModelResponse, messages: list[ModelMessage], parameters: ModelRequestParameters) -> StreamedResponse:
    """A stream that plays back a finished answer (buffered mode; a wrap hook that answered without
    streaming the model)."""
    replay = TestStreamedResponse(
        model_request_parameters=parameters,
        _model_name=answer.model_name or "hookport-buffered",
        _structured_response=answer,
        _messages=messages,
        _provider_name=getattr(answer, "provider_name", None) or "hookport",
    )
    replay._usage = answer.usage  # the real usage, not TestModel's estimate
    return replay
