"""PRE_MODEL_CALL / POST_MODEL_CALL on every model request of a run, whatever the `Model`.

Both turn functions of the SDK (``run_single_turn`` through ``get_new_response``,
and ``run_single_turn_streamed``) get their model from
``agents.run_internal.run_loop.get_model`` and then call ``get_response`` or
``stream_response`` on it. Wrapping that one function and handing back a
`HookedModel` (a ``wrapt.ObjectProxy``: it passes ``isinstance(m, Model)`` and
forwards everything else) covers the Responses model, the Chat Completions
model, LiteLLM and any custom `Model`, streamed or not, sync-run or async.

- Hooks see ``instructions`` + ``input`` as OpenAI chat dicts (`_messages`);
  what they leave is what this request carries. The SDK's own items are not
  touched.
- A POST string replaces the answer's text (`ModelResponse.output`'s message
  items, copied).
- Streamed: PRE before the first event; the events pass through as they
  come; POST runs on the ``response.completed`` event, before it is passed on,
  so a replaced text is in the final response (and the run's final output),
  while the text deltas already streamed show the original. With wrap hooks
  the stream stays a stream (`_wrapped_stream`): the events pass through as they
  come, ``call_next`` returns once the stream ended (with the attempt's events),
  and the answer's completed event goes out after the chain returned. A wrap hook
  that replaces the answer changes that final event only (the deltas already
  streamed show the original); one answering without the model sends a
  completed event alone.
- The SDK's own retries (``ModelSettings.retry``) call ``get_response`` again:
  each real attempt is one PRE and one POST.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing
from time import perf_counter
from typing import Any

import wrapt

from hookport.calls import MODEL_LAYER, ResponseShape, amodel_call, model_call, model_hooks_active, \
    outer_layer_dispatched_model
from hookport.contexts import LazyMessagesContext, LazyView, LLMCallHookContext
from hookport.dispatch import adispatch
from hookport.errors import HookAborted
from hookport.points import ExtensionPoint, InterceptionPoint
from hookport.registry import has_hooks

from hookport.adapters._sync_wraps import first_done, on_worker, sync_wraps
from hookport.adapters.openai_agents._messages import Conversation, output_text, replace_response_text, \
    with_output_text
from hookport.adapters.openai_agents._state import FRAMEWORK, agent_name, check_latch, current_scope, record

PRE = InterceptionPoint.PRE_MODEL_CALL
POST = InterceptionPoint.POST_MODEL_CALL
WRAP = ExtensionPoint.WRAP_MODEL_CALL
Args = tuple[Any, ...]
Kwargs = dict[str, Any]
_NAMES = ("system_instructions", "input", "model_settings", "tools", "output_schema", "handoffs", "tracing")


class _Call:
    """The arguments of one ``get_response`` / ``stream_response`` call, positional or by name."""

    __slots__ = ("args", "kwargs")

    def __init__(self, args: Args, kwargs: Kwargs) -> None:
        self.args = args
        self.kwargs = kwargs

    def get(self, index: int) -> Any:
        return self.args[index] if len(self.args) > index else self.kwargs.get(_NAMES[index])

    def with_input(self, instructions: str | None, items: Any) -> tuple[Args, Kwargs]:
        args, kwargs = list(self.args), dict(self.kwargs)
        for index, value in ((0, instructions), (1, items)):
            if len(args) > index:
                args[index] = value
            else:
                kwargs[_NAMES[index]] = value
        return tuple(args), kwargs


def _context(model: Any, call: _Call, stream: bool) -> tuple[LazyMessagesContext, LazyView[Conversation]]:
    """The request's context; its `Conversation` (the dicts hooks see) is made when a hook reads them."""
    items = call.get(1) or []
    sent = items if isinstance(items, str) else list(items)  # as sent, should a hook first read them after the call
    lazy = LazyView(lambda: Conversation(call.get(0), sent))
    scope = current_scope()
    agent = scope.step_agent if scope is not None else None
    iterations = 0
    if scope is not None:
        iterations = scope.model_calls
        scope.model_calls += 1
    name = getattr(model, "model", None)
    ctx = LazyMessagesContext(
        lazy.build,
        keep_copy=False,
        llm=model,
        iterations=iterations,
        agent=agent,
        agent_role=agent_name(agent),
        framework=FRAMEWORK,
        metadata={
            "model": name if isinstance(name, str) else None,
            "model_class": type(model).__name__,
            "tools": [getattr(t, "name", None) for t in call.get(3) or ()],
            "stream": stream,
        },
    )
    return ctx, lazy


def _request(lazy: LazyView[Conversation], call: _Call, ctx: LLMCallHookContext) -> tuple[Args, Kwargs]:
    """The request's arguments: as they came unless hooks read and changed the messages."""
    edited = lazy.view.edited(ctx.messages) if lazy.view is not None else None
    if edited is None:
        return call.args, call.kwargs
    return call.with_input(*edited)


class _ModelResponseShape(ResponseShape[Any]):
    def text(self, result: Any) -> str | None:
        return output_text(result.output) if result is not None else None

    def replace(self, result: Any, text: str) -> Any:
        return replace_response_text(result, text)


MODEL_RESPONSE = _ModelResponseShape()


class HookedModel(wrapt.ObjectProxy):  # type: ignore[misc]
    """The run's model, with the model points around each request.

    The attributes the run loop reads on every request are forwarded here: through the proxy's
    own lookup an attribute costs several raised ``AttributeError``s when the model lacks it
    (~17k instructions; the SDK asks ``getattr(model, "_supports_default_prompt_cache_key", None)``
    twice per request, and a custom `Model` has none) and ~7k when it has it."""

    @property
    def _supports_default_prompt_cache_key(self) -> Any:  # read with getattr(..., None): None is "none"
        return getattr(self.__wrapped__, "_supports_default_prompt_cache_key", None)

    @property
    def get_retry_advice(self) -> Any:
        return self.__wrapped__.get_retry_advice

    @property
    def _cleanup_on_run_end(self) -> Any:
        return self.__wrapped__._cleanup_on_run_end

    def get_response(self, *args: Any, **kwargs: Any) -> Any:
        check_latch()
        model = self.__wrapped__
        if not model_hooks_active() or outer_layer_dispatched_model():
            return model.get_response(*args, **kwargs)  # the model's own coroutine: no extra frame
        return _hooked_response(model, _Call(args, kwargs))

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        check_latch()
        model = self.__wrapped__
        if not model_hooks_active() or outer_layer_dispatched_model():
            return model.stream_response(*args, **kwargs)  # type: ignore[no-any-return]
        return _hooked_stream(model, _Call(args, kwargs))


async def _hooked_response(model: Any, call: _Call) -> Any:
    ctx, lazy = _context(model, call, stream=False)

    async def send(c: LLMCallHookContext) -> Any:
        request_args, request_kwargs = _request(lazy, call, c)
        return await model.get_response(*request_args, **request_kwargs)

    try:
        if sync_wraps(WRAP):
            return await on_worker(model_call, ctx, send, MODEL_RESPONSE)
        return await amodel_call(ctx, send, MODEL_RESPONSE)
    except HookAborted as error:
        record(error)
        raise


# -- streamed requests -----------------------------------------------------------------------------


def _completed(event: Any) -> bool:
    return getattr(event, "type", None) == "response.completed" and getattr(event, "response", None) is not None


class _StreamShape(ResponseShape[list[Any]]):
    """A streamed answer as the list of its events (what ``call_next`` returns to a wrap hook, once
    its events went to the consumer)."""

    def text(self, result: list[Any] | None) -> str | None:
        for event in reversed(result or ()):
            if _completed(event):
                return output_text(event.response.output)
        return None

    def replace(self, result: list[Any] | None, text: str) -> list[Any]:
        if result is None:
            return [_completed_event(text)]
        return [_with_text(event, text) if _completed(event) else event for event in result]


STREAM = _StreamShape()


def _with_text(event: Any, text: str) -> Any:
    response = event.response.model_copy(update={"output": with_output_text(event.response.output, text)})
    return event.model_copy(update={"response": response})


def _completed_event(text: str) -> Any:
    """A ``response.completed`` event carrying only `text` (a wrap hook answered without the model)."""
    from openai.types.responses import Response, ResponseCompletedEvent

    from hookport.adapters.openai_agents._messages import assistant_message

    response = Response.model_construct(
        id="resp_hookport", created_at=0, model="hookport", object="response", output=[assistant_message(text)],
        tool_choice="none", tools=[], parallel_tool_calls=False, status="completed", usage=None,
    )
    return ResponseCompletedEvent.model_construct(type="response.completed", response=response, sequence_number=0)


async def _hooked_stream(model: Any, call: _Call) -> AsyncIterator[Any]:
    try:
        async with aclosing(_stream_events(model, call)) as events:
            async for event in events:
                yield event
    except HookAborted as error:
        record(error)
        raise


async def _stream_events(model: Any, call: _Call) -> AsyncIterator[Any]:
    ctx, lazy = _context(model, call, stream=True)

    def open_stream(c: LLMCallHookContext) -> Any:
        request_args, request_kwargs = _request(lazy, call, c)
        return model.stream_response(*request_args, **request_kwargs)

    if has_hooks(WRAP):
        async with aclosing(_wrapped_stream(ctx, open_stream)) as wrapped:
            async for event in wrapped:
                yield event
        return

    # no wrap hooks: the events pass through as they come; POST runs on the completed event
    await adispatch(PRE, ctx)
    started = perf_counter()
    stream = open_stream(ctx)
    try:
        while (event := await _next_event(stream)) is not _END:
            if _completed(event):
                event = await _after_stream(ctx, event, started)
            yield event
    finally:
        await _closed(stream)


async def _wrapped_stream(ctx: LLMCallHookContext, open_stream: Callable[[LLMCallHookContext], Any]) -> AsyncIterator[Any]:
    """The wrap chain around a streamed request, the stream still a stream.

    The chain (PRE, the wrap hooks, POST) runs in a task of its own; its ``call_next`` asks this
    generator for the real stream, which is read here, in the consumer's task, each event passed on
    as it comes (a consumer's timeout or cancellation reaches the real stream; events before a
    mid-stream failure are delivered, the failure reaches the hooks as itself). ``call_next``
    returns the attempt's events as a list once the stream ended. An attempt's
    ``response.completed`` event is held until the chain returned, then the answer's completed
    event goes out, with POST's or a wrap hook's replaced text. A later attempt (a retry) streams
    its own events; the earlier attempt's completed event is dropped.
    """
    loop = asyncio.get_running_loop()
    requests: asyncio.Queue[tuple[LLMCallHookContext, asyncio.Future[list[Any]]]] = asyncio.Queue()

    async def send(c: LLMCallHookContext) -> list[Any]:
        outcome: asyncio.Future[list[Any]] = loop.create_future()
        requests.put_nowait((c, outcome))
        return await outcome

    chain = on_worker(model_call, ctx, send, STREAM) if sync_wraps(WRAP) else amodel_call(ctx, send, STREAM)
    task = asyncio.ensure_future(chain)
    task.add_done_callback(_collected)
    passed: set[int] = set()  # ids of the events already passed on
    outcome: asyncio.Future[list[Any]] | None = None
    stream: Any = None
    try:
        while True:
            asking = asyncio.ensure_future(requests.get())
            try:
                await first_done(task, asking)
            finally:
                if not asking.done():
                    asking.cancel()
            if not asking.done() or asking.cancelled():
                break  # the chain returned (or raised)
            request, outcome = asking.result()
            events: list[Any] = []
            held: Any = None
            stream = open_stream(request)
            try:
                while (event := await _next_event(stream)) is not _END:
                    events.append(event)
                    if held is not None:
                        passed.add(id(held))
                        yield held
                        held = None
                    if _completed(event):
                        held = event
                        continue
                    passed.add(id(event))
                    yield event
            except (asyncio.CancelledError, GeneratorExit):
                raise
            except Exception as error:  # the attempt failed: its hooks see the error as itself
                await _closed(stream)
                stream = None
                if not outcome.done():
                    outcome.set_exception(error)
                continue
            await _closed(stream)
            stream = None
            if not outcome.done():
                outcome.set_result(events)
        for event in task.result():
            if id(event) not in passed:
                yield event
    finally:
        if stream is not None:
            await _closed(stream)
        if outcome is not None and not outcome.done():
            outcome.cancel()
        if not task.done():
            task.cancel()
            await first_done(task)


async def _closed(stream: Any) -> None:
    close = getattr(stream, "aclose", None)
    if close is not None:
        await close()


_END = object()


async def _next_event(stream: Any) -> Any:
    """The stream's next event (`_END` after the last), read with the model layer held (an SDK
    adapter beneath stays silent)."""
    with MODEL_LAYER.hold():
        try:
            return await stream.__anext__()
        except StopAsyncIteration:
            return _END


def _collected(task: asyncio.Future[Any]) -> None:
    """A chain ended by the consumer's cancellation: its outcome is not an unhandled error."""
    if not task.cancelled():
        task.exception()


async def _after_stream(ctx: LLMCallHookContext, event: Any, started: float) -> Any:
    """POST_MODEL_CALL on the completed response; a replaced text goes out in that event."""
    ctx.duration_ms = (perf_counter() - started) * 1000.0
    ctx.response = output_text(event.response.output)
    original = ctx.response
    await adispatch(POST, ctx)
    if ctx.response is not None and ctx.response != original:
        return _with_text(event, ctx.response)
    return event


# -- the call site -------------------------------------------------------------------------------------

_proxies: weakref.WeakValueDictionary[int, HookedModel] = weakref.WeakValueDictionary()
"""id(model) -> its proxy, while the proxy lives (it keeps the model alive, so the id stays its own)."""


def hooked(model: Any) -> Any:
    """The one `HookedModel` of `model` (the SDK tracks the run's models by identity)."""
    if isinstance(model, HookedModel) or model is None:
        return model
    proxy = _proxies.get(id(model))
    if proxy is None or proxy.__wrapped__ is not model:
        proxy = HookedModel(model)
        _proxies[id(model)] = proxy
    return proxy


def get_model(wrapped: Any, instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``run_loop.get_model``: the agent's model, behind a `HookedModel`."""
    return hooked(wrapped(*args, **kwargs))
