"""PRE_MODEL_CALL / POST_MODEL_CALL (and the wrap hooks) around the real model request.

`HookedModel` is a Pydantic AI `WrapperModel` that the adapter's capability puts
in front of whatever model serves a request (``wrap_model_request`` may change
``request_context.model``), so every `Model` is covered -- providers,
`FunctionModel`, `TestModel`, fallback models -- and hooks run around the model's
own ``request`` / ``request_stream``, once per request:

- PRE hooks see the request's history as OpenAI-style dicts; edits reach the model
  as new message objects, never in the run's history;
- wrap hooks sit around the real call (a retry re-issues it, a cache answers instead);
- POST hooks see the answer's text; a returned string replaces the text parts.

Streaming (``run_stream``): PRE runs before the stream opens and POST after its last
event. In the default passthrough mode the consumer sees the model's events as they
come, so a POST replacement changes the answer kept in the run's history but not the
text already streamed; with `buffered_streaming()` (or any wrap hook registered) the
stream is drained first and the final answer is replayed, so replacements and retries
reach the consumer.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models import Model, ModelRequestParameters, StreamedResponse
from pydantic_ai.models.test import TestStreamedResponse
from pydantic_ai.models.wrapper import WrapperModel

from hookport.calls import MODEL_LAYER, ResponseShape, amodel_call, model_hooks_active
from hookport.contexts import LLMCallHookContext
from hookport.dispatch import adispatch
from hookport.points import ExtensionPoint, InterceptionPoint
from hookport.registry import has_hooks

from hookport.adapters.pydantic_ai._messages import Conversation, response_text, with_text
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

    def _context(self, conversation: Conversation, streamed: bool) -> LLMCallHookContext:
        metadata = {"instructions": conversation.instructions(), "model": self.wrapped, "stream": streamed}
        return LLMCallHookContext(conversation.dicts, llm=self.wrapped, metadata=metadata,
                                  iterations=self.iterations, **self.fields)

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: Any,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        try:
            if not model_hooks_active():
                return await self.wrapped.request(messages, model_settings, model_request_parameters)
            conversation = Conversation(messages)

            async def send(ctx: LLMCallHookContext) -> ModelResponse:
                return await self.wrapped.request(conversation.rebuilt(ctx.messages), model_settings,
                                                  model_request_parameters)

            return await amodel_call(self._context(conversation, streamed=False), send, SHAPE)
        finally:
            self._served()

    @asynccontextmanager
    async def request_stream(
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
        conversation = Conversation(messages)
        ctx = self._context(conversation, streamed=True)
        if stream_mode() == "buffered" or has_hooks(ExtensionPoint.WRAP_MODEL_CALL):
            async def drain(c: LLMCallHookContext) -> ModelResponse:
                async with self.wrapped.request_stream(conversation.rebuilt(c.messages), model_settings,
                                                       model_request_parameters, run_context) as stream:
                    async for _event in stream:
                        pass
                return stream.get()

            answer = await amodel_call(ctx, drain, SHAPE)
            yield _replay(answer, messages, model_request_parameters)
            return
        await adispatch(P.PRE_MODEL_CALL, ctx)
        started = time.perf_counter()
        with MODEL_LAYER.hold():
            async with self.wrapped.request_stream(conversation.rebuilt(ctx.messages), model_settings,
                                                   model_request_parameters, run_context) as stream:
                yield stream
        ctx.duration_ms = (time.perf_counter() - started) * 1000.0
        ctx.response = response_text(stream.get())
        ctx.metadata["original_response"] = ctx.response
        await adispatch(P.POST_MODEL_CALL, ctx)


def _replay(answer: ModelResponse, messages: list[ModelMessage], parameters: ModelRequestParameters) -> StreamedResponse:
    """A stream that plays back a finished answer (buffered mode)."""
    replay = TestStreamedResponse(
        model_request_parameters=parameters,
        _model_name=answer.model_name or "hookport-buffered",
        _structured_response=answer,
        _messages=messages,
        _provider_name=getattr(answer, "provider_name", None) or "hookport",
    )
    replay._usage = answer.usage  # the real usage, not TestModel's estimate
    return replay
