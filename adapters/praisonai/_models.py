"""PRE_MODEL_CALL / POST_MODEL_CALL on every request PraisonAI sends through its OpenAI clients.

PraisonAI's OpenAI-native path (the default, and any OpenAI-compatible
server) builds every request on the ``openai`` clients its ``OpenAIClient``
hands out through the ``sync_client`` / ``async_client`` properties, in a
dozen places (the tool loop, streaming, reflection, the sync path that runs
the async client). The narrowest point that sees them all is the client
itself, so this module

- replaces those two properties with ones that instrument the client they
  return: ``chat.completions.create`` / ``.parse`` and
  ``beta.chat.completions.parse`` get an instance attribute wrapping the
  bound method. Only those client objects are touched: the ``openai`` classes
  and every other client in the process stay as they are;
- wraps ``OpenAIClient._build_responses_input`` (PRE, with the chat-style
  messages) and the instrumented client's ``responses.create`` (POST), for the
  Responses API PraisonAI uses with OpenAI's own endpoint.

PraisonAI's LiteLLM path (``Agent(llm="provider/model")``, ``llm={...}``,
``base_url=``) sends every request through ``LLM._completion_with_retry`` /
``_acompletion_with_retry`` from 1.6 on; those two are wrapped the same way.

One request = one PRE and one POST, sync, async or streamed, with the wrap
hooks around the real request between them (`hookport.calls.model_call`): a
retry wrap re-sends it, a string a wrap hook returns becomes the answer (a
ChatCompletion, a LiteLLM ModelResponse, or a one-chunk stream) and the model
is never asked. POST carries `duration_ms`. Hooks see a deep copy of the
messages as OpenAI-style dicts, built the first time a hook reads them; what
they leave is what the request carries, and PraisonAI's own message list is
never touched. A streamed response is passed through untouched when no POST
hook is registered; with one, the stream is read to the end inside the call,
POST sees the whole text, and a replaced text goes out in the first content
chunk. On the Responses API, wrap hooks run around ``responses.create``; what
they return is passed on as it is (no string conversion there).
"""

from __future__ import annotations

import copy
import time
import weakref
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from time import perf_counter
from typing import Any

import wrapt

from hookport.calls import (
    MODEL_LAYER,
    ResponseShape,
    amodel_call,
    model_call,
    model_hooks_active,
    tool_hooks_active,
    outer_layer_dispatched_model,
)
from hookport.contexts import LazyModelContext, LLMCallHookContext, set_model_fields, set_shared_fields
from hookport.dispatch import dispatch
from hookport.points import ExtensionPoint, InterceptionPoint
from hookport.registry import has_hooks
from hookport.wrapping import arun_wrapped, run_wrapped

from hookport.adapters._sync_wraps import on_worker, sync_wraps
from hookport.adapters.praisonai._state import FRAMEWORK, check_latch, current_turn, record

PRE = InterceptionPoint.PRE_MODEL_CALL
POST = InterceptionPoint.POST_MODEL_CALL
WRAP = ExtensionPoint.WRAP_MODEL_CALL

_pending_responses: ContextVar[LLMCallHookContext | None] = ContextVar(
    "hookport_praisonai_responses_request", default=None
)

Args = tuple[Any, ...]
Kwargs = dict[str, Any]


# -- messages and contexts ---------------------------------------------------------------------


def as_message_dicts(messages: Any) -> list[dict[str, Any]]:
    """A deep copy of `messages` as plain OpenAI-style dicts.

    PraisonAI's list mixes dicts with SDK objects (an assistant turn's
    ``tool_calls`` are ``ChatCompletionMessageToolCall`` objects); those are
    dumped, so hooks see JSON-like data only.
    """
    converted: list[dict[str, Any]] = []
    for message in messages or ():
        plain = _plain(message)
        if not isinstance(plain, dict):
            plain = {"role": getattr(message, "role", "user"), "content": getattr(message, "content", None)}
        converted.append(plain)
    return converted


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if hasattr(value, "model_dump"):
        return value.model_dump(exclude_none=True)
    return copy.deepcopy(value)


class PraisonAIModelContext(LazyModelContext):
    """An `LLMCallHookContext` whose `messages` are converted on first read.

    Copying the whole conversation into OpenAI-style dicts costs more than the
    rest of a no-op hook pair, and most hooks never look at it. The first read
    of `messages` (or `payload` before the call) builds the deep copy; from then
    on it is an ordinary list that hooks edit in place or replace, and it is
    what the request carries. Never read: the request goes out with PraisonAI's
    own list, untouched.
    """

    __slots__ = ("_native",)

    def __init__(self, native: Any, *, llm: Any, iterations: int, agent: Any, agent_role: str | None,
                 framework: str, metadata: dict[str, Any]) -> None:
        self._native = native
        set_model_fields(self, llm, iterations)
        set_shared_fields(self, agent, agent_role, None, None, None, framework, metadata)

    def _build_messages(self) -> list[dict[str, Any]]:
        return as_message_dicts(self._native)

    def request_messages(self) -> Any:
        """What the request sends: the hooks' list once anyone read or set it, else PraisonAI's own."""
        held = self.held_messages()
        return self._native if held is None else held


def _context(messages: Any, params: Kwargs, api: str) -> PraisonAIModelContext:
    turn = current_turn()
    iterations = 0
    if turn is not None:
        iterations = turn.model_calls
        turn.model_calls += 1
    model = params.get("model")
    return PraisonAIModelContext(
        messages,
        llm=model,
        iterations=iterations,
        agent=turn.agent if turn is not None else None,
        agent_role=turn.name if turn is not None else None,
        framework=FRAMEWORK,
        metadata={
            "model": model if isinstance(model, str) else None,
            "temperature": params.get("temperature"),
            "tools": params.get("tools"),
            "stream": bool(params.get("stream")),
            "api": api,
        },
    )


def _dispatch(point: InterceptionPoint, ctx: LLMCallHookContext) -> None:
    try:
        dispatch(point, ctx)
    except Exception as error:  # HookAborted, or a broken hook in strict mode: the run ends
        raise record(error) from None


# -- chat completion answers --------------------------------------------------------------------


def _completion_text(response: Any) -> str | None:
    """The assistant text of a ChatCompletion (None for anything else, e.g. a raw response)."""
    choices = getattr(response, "choices", None)
    if not choices:
        return None
    message = getattr(choices[0], "message", None)
    if message is None:
        return None
    return getattr(message, "content", None) or ""


def _delta(chunk: Any) -> Any:
    choices = getattr(chunk, "choices", None)
    return getattr(choices[0], "delta", None) if choices else None


def _chunks_text(chunks: list[Any]) -> str:
    return "".join(getattr(d, "content", None) or "" for d in (_delta(c) for c in chunks) if d is not None)


def _replace_chunks_text(chunks: list[Any], text: str) -> None:
    """A replaced text goes out in the first content chunk; the other chunks carry none."""
    deltas = [d for d in (_delta(c) for c in chunks) if d is not None]
    if not deltas:
        return
    carriers = [d for d in deltas if getattr(d, "content", None)] or deltas[:1]
    carriers[0].content = text
    for other in carriers[1:]:
        other.content = ""


class _BufferedStream(wrapt.ObjectProxy):  # type: ignore[misc]
    """A ``Stream`` already read to the end, so POST saw (and may have replaced) the whole text."""

    def __init__(self, stream: Any, chunks: list[Any]) -> None:
        super().__init__(stream)
        self._self_chunks = chunks
        self._self_iter: Iterator[Any] | None = None

    def __enter__(self) -> _BufferedStream:
        self.__wrapped__.__enter__()
        return self

    def __exit__(self, *exc: Any) -> Any:
        return self.__wrapped__.__exit__(*exc)

    def __iter__(self) -> _BufferedStream:
        return self

    def __next__(self) -> Any:
        if self._self_iter is None:
            self._self_iter = iter(self._self_chunks)
        return next(self._self_iter)


class _BufferedAsyncStream(wrapt.ObjectProxy):  # type: ignore[misc]
    """The ``AsyncStream`` counterpart of `_BufferedStream`."""

    def __init__(self, stream: Any, chunks: list[Any]) -> None:
        super().__init__(stream)
        self._self_chunks = chunks
        self._self_iter: Iterator[Any] | None = None

    async def __aenter__(self) -> _BufferedAsyncStream:
        await self.__wrapped__.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self.__wrapped__.__aexit__(*exc)

    def __aiter__(self) -> _BufferedAsyncStream:
        return self

    async def __anext__(self) -> Any:
        if self._self_iter is None:
            self._self_iter = iter(self._self_chunks)
        try:
            return next(self._self_iter)
        except StopIteration:
            raise StopAsyncIteration from None


class _MadeStream:
    """A stream of one chunk made from a wrap hook's string (the model was never asked)."""

    def __init__(self, chunks: list[Any]) -> None:
        self._self_chunks = chunks
        self._iter = iter(chunks)

    def __iter__(self) -> _MadeStream:
        return self

    def __next__(self) -> Any:
        return next(self._iter)

    def __aiter__(self) -> _MadeStream:
        return self

    async def __anext__(self) -> Any:
        try:
            return next(self._iter)
        except StopIteration:
            raise StopAsyncIteration from None

    def __enter__(self) -> _MadeStream:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    async def __aenter__(self) -> _MadeStream:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        return None

    def close(self) -> None:
        return None


def _made_completion(text: str, model: Any, api: str) -> Any:
    """A ChatCompletion (LiteLLM: a ModelResponse) whose answer is `text`."""
    choice = {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}
    if api == "litellm":
        try:
            from litellm import ModelResponse

            return ModelResponse(choices=[choice], model=model if isinstance(model, str) else "hookport")
        except ImportError:  # pragma: no cover - the LiteLLM path needs litellm
            pass
    from openai.types.chat import ChatCompletion

    return ChatCompletion.model_validate({
        "id": "hookport-wrap", "object": "chat.completion", "created": int(time.time()),
        "model": model if isinstance(model, str) else "hookport", "choices": [choice],
    })


def _made_chunks(text: str, model: Any) -> _MadeStream:
    from openai.types.chat import ChatCompletionChunk

    chunk = ChatCompletionChunk.model_validate({
        "id": "hookport-wrap", "object": "chat.completion.chunk", "created": int(time.time()),
        "model": model if isinstance(model, str) else "hookport",
        "choices": [{"index": 0, "finish_reason": "stop", "delta": {"role": "assistant", "content": text}}],
    })
    return _MadeStream([chunk])


class CompletionShape(ResponseShape[Any]):
    """A ChatCompletion, a LiteLLM ModelResponse, or a stream buffered for POST hooks."""

    def text(self, result: Any) -> str | None:
        if type(result) in _BUFFERED:
            return _chunks_text(result._self_chunks)
        return _completion_text(result)

    def replace(self, result: Any, text: str) -> Any:
        if result is None:
            return _made_completion(text, None, "chat")
        if type(result) in _BUFFERED:
            _replace_chunks_text(result._self_chunks, text)
        elif _completion_text(result) is not None:
            result.choices[0].message.content = text
        return result

    def coerce(self, value: Any, ctx: Any) -> Any:
        if not isinstance(value, str):
            return value
        meta = ctx.metadata
        if meta.get("stream"):
            return _made_chunks(value, meta.get("model"))
        return _made_completion(value, meta.get("model"), meta.get("api", "chat"))


COMPLETION = CompletionShape()
_BUFFERED = (_BufferedStream, _BufferedAsyncStream, _MadeStream)


# -- chat.completions.create / parse, LiteLLM's completion helpers ----------------------------------


def _is_raw_stream(kwargs: Kwargs, response: Any) -> bool:
    return bool(kwargs.get("stream")) and not hasattr(response, "choices")


class _Request:
    """One request: what PraisonAI asked for, and what the model itself raised (not an abort)."""

    __slots__ = ("args", "kwargs", "error")

    def __init__(self, args: Args, kwargs: Kwargs) -> None:
        self.args = args
        self.kwargs = kwargs
        self.error: BaseException | None = None

    def _params(self, ctx: PraisonAIModelContext) -> Kwargs:
        messages = ctx.request_messages()
        if messages is self.kwargs.get("messages"):
            return self.kwargs
        return {**self.kwargs, "messages": messages}

    def sender(self, wrapped: Callable[..., Any]) -> Callable[[Any], Any]:
        def send(ctx: PraisonAIModelContext) -> Any:
            try:
                response = wrapped(*self.args, **self._params(ctx))
                if _is_raw_stream(self.kwargs, response) and hasattr(response, "__iter__") and has_hooks(POST):
                    response = _BufferedStream(response, list(response))
            except BaseException as error:
                self.error = error
                raise
            return response

        return send

    def asender(self, wrapped: Callable[..., Any]) -> Callable[[Any], Any]:
        async def send(ctx: PraisonAIModelContext) -> Any:
            try:
                response = await wrapped(*self.args, **self._params(ctx))
                if _is_raw_stream(self.kwargs, response) and hasattr(response, "__aiter__") and has_hooks(POST):
                    response = _BufferedAsyncStream(response, [chunk async for chunk in response])
            except BaseException as error:
                self.error = error
                raise
            return response

        return send

    def kept(self, error: BaseException) -> BaseException:
        """A hook's abort or failure becomes the run's abort; the model's own error stays PraisonAI's."""
        return error if error is self.error else record(error)


def _raise(kept: BaseException, error: BaseException) -> None:
    if kept is error:
        raise error
    raise kept from None


def _marked_idle(wrapped: Callable[..., Any], args: Args, kwargs: Kwargs) -> Any:
    """An unhooked request, with the model-call mark held when tool hooks are registered: this
    adapter serves the tool points of the calls the model asks for, so an SDK adapter underneath
    (openai) must not review them too."""
    if not tool_hooks_active():
        return wrapped(*args, **kwargs)
    with MODEL_LAYER.hold():
        return wrapped(*args, **kwargs)


async def _amarked_idle(wrapped: Callable[..., Any], args: Args, kwargs: Kwargs) -> Any:
    with MODEL_LAYER.hold():
        return await wrapped(*args, **kwargs)


def _request(wrapped: Callable[..., Any], args: Args, kwargs: Kwargs, api: str) -> Any:
    check_latch()
    if outer_layer_dispatched_model() or not model_hooks_active():
        return _marked_idle(wrapped, args, kwargs)
    request = _Request(args, kwargs)
    try:
        return model_call(_context(kwargs.get("messages"), kwargs, api), request.sender(wrapped), COMPLETION)
    except Exception as error:
        _raise(request.kept(error), error)


def chat_request(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """A sync client's ``chat.completions.create`` / ``parse``."""
    return _request(wrapped, args, kwargs, getattr(wrapped, "__name__", "create"))


def litellm_request(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``LLM._completion_with_retry(**params)``: every ``litellm.completion`` of PraisonAI's LLM class (1.6+)."""
    return _request(wrapped, args, kwargs, "litellm")


async def _arequest(wrapped: Callable[..., Any], args: Args, kwargs: Kwargs, api: str) -> Any:
    request = _Request(args, kwargs)
    ctx = _context(kwargs.get("messages"), kwargs, api)
    try:
        if sync_wraps(WRAP):  # see hookport.adapters._sync_wraps
            return await on_worker(model_call, ctx, request.asender(wrapped), COMPLETION)
        return await amodel_call(ctx, request.asender(wrapped), COMPLETION)
    except Exception as error:
        _raise(request.kept(error), error)


def achat_request(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """An async client's ``chat.completions.create`` / ``parse``."""
    check_latch()
    if outer_layer_dispatched_model() or not model_hooks_active():
        return _amarked_idle(wrapped, args, kwargs) if tool_hooks_active() else wrapped(*args, **kwargs)
    return _arequest(wrapped, args, kwargs, getattr(wrapped, "__name__", "create"))


def alitellm_request(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``LLM._acompletion_with_retry(**params)``: every ``litellm.acompletion`` (1.6+)."""
    check_latch()
    if outer_layer_dispatched_model() or not model_hooks_active():
        return wrapped(*args, **kwargs)
    return _arequest(wrapped, args, kwargs, "litellm")


# -- the Responses API ------------------------------------------------------------------------------


def responses_input(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``OpenAIClient._build_responses_input(messages, model, ...)`` and
    ``LLM._build_responses_params(messages=..., ...)``: PRE with the chat-style messages."""
    _pending_responses.set(None)
    if outer_layer_dispatched_model() or not model_hooks_active():
        return wrapped(*args, **kwargs)
    check_latch()
    messages = args[0] if args else kwargs.get("messages")
    model = args[1] if len(args) > 1 else kwargs.get("model", getattr(instance, "model", None))
    ctx = _context(messages, {**kwargs, "model": model}, "responses")
    _dispatch(PRE, ctx)
    if args:
        args = (ctx.request_messages(), *args[1:])
    else:
        kwargs = {**kwargs, "messages": ctx.request_messages()}
    params = wrapped(*args, **kwargs)
    ctx.metadata["started"] = perf_counter()
    _pending_responses.set(ctx)
    return params


def _field(item: Any, name: str) -> Any:
    return item.get(name) if isinstance(item, dict) else getattr(item, name, None)


def _text_blocks(response: Any) -> list[Any]:
    """The ``output_text`` blocks of the ``message`` items of a Responses API answer."""
    return [
        block
        for item in _field(response, "output") or ()
        if _field(item, "type") == "message"
        for block in _field(item, "content") or ()
        if _field(block, "type") == "output_text"
    ]


def _response_text(response: Any) -> str:
    text = getattr(response, "output_text", None)
    if isinstance(text, str):
        return text
    return "".join(_field(block, "text") or "" for block in _text_blocks(response))


def _set_text(block: Any, text: str) -> None:
    if isinstance(block, dict):
        block["text"] = text
    else:
        block.text = text


def _elapsed(ctx: LLMCallHookContext) -> None:
    started = ctx.metadata.pop("started", None)
    if started is not None:
        ctx.duration_ms = (perf_counter() - started) * 1000.0


def _after_response(ctx: LLMCallHookContext, response: Any) -> Any:
    _elapsed(ctx)
    text = _response_text(response)
    ctx.response = text
    _dispatch(POST, ctx)
    if ctx.response is text:
        return response
    blocks = _text_blocks(response)
    if blocks:
        _set_text(blocks[0], ctx.response)
        for other in blocks[1:]:
            _set_text(other, "")
    return response


def responses_stream(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``LLM._stream_responses_api(params, ...) -> (text, tool_calls, final)``: POST over the streamed text."""
    ctx = _pending_responses.get()
    _pending_responses.set(None)
    check_latch()
    return _after_streamed(ctx, wrapped(*args, **kwargs))


async def _aresponses_stream(wrapped: Callable[..., Any], args: Args, kwargs: Kwargs,
                             ctx: LLMCallHookContext | None) -> Any:
    return _after_streamed(ctx, await wrapped(*args, **kwargs))


def aresponses_stream(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``LLM._stream_responses_api_async``."""
    ctx = _pending_responses.get()
    _pending_responses.set(None)
    check_latch()
    return _aresponses_stream(wrapped, args, kwargs, ctx)


def _after_streamed(ctx: LLMCallHookContext | None, result: Any) -> Any:
    """The chunks already went out (PraisonAI displays them); a replaced text is what the agent keeps."""
    if ctx is None or not has_hooks(POST) or not (isinstance(result, tuple) and result):
        return result
    _elapsed(ctx)
    text = result[0] if isinstance(result[0], str) else ""
    ctx.response = text
    _dispatch(POST, ctx)
    if ctx.response is text:
        return result
    return (ctx.response, *result[1:])


def responses_request(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """A sync client's ``responses.create`` (or ``LLM._call_responses_api``): POST for the
    request `responses_input` opened."""
    ctx = _pending_responses.get()
    _pending_responses.set(None)
    check_latch()
    if ctx is None:
        return wrapped(*args, **kwargs)
    with MODEL_LAYER.hold():
        response = run_wrapped(WRAP, ctx, lambda _ctx: wrapped(*args, **kwargs))
    if ctx is None or not has_hooks(POST) or kwargs.get("stream"):
        return response
    return _after_response(ctx, response)


async def _aresponses_request(wrapped: Callable[..., Any], args: Args, kwargs: Kwargs,
                              ctx: LLMCallHookContext | None) -> Any:
    if ctx is None:
        return await wrapped(*args, **kwargs)
    with MODEL_LAYER.hold():
        response = await arun_wrapped(WRAP, ctx, lambda _ctx: wrapped(*args, **kwargs))
    if ctx is None or not has_hooks(POST) or kwargs.get("stream"):
        return response
    return _after_response(ctx, response)


def aresponses_request(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """An async client's ``responses.create``."""
    ctx = _pending_responses.get()
    _pending_responses.set(None)
    check_latch()
    return _aresponses_request(wrapped, args, kwargs, ctx)


# -- instrumenting the clients PraisonAI hands out -------------------------------------------------------


class ClientInstrumentation:
    """Instance attributes on the resources of the clients ``OpenAIClient`` returns, removable."""

    def __init__(self) -> None:
        self._wrapped: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()
        self._done: weakref.WeakSet[Any] = weakref.WeakSet()

    def instrument(self, client: Any, is_async: bool) -> None:
        """Wrap `client`'s request methods once (the property hands the same client out per request)."""
        try:
            if client in self._done:
                return
            self._done.add(client)
        except TypeError:  # not weak-referenceable: wrap (idempotently) every time
            pass
        chat_wrapper = achat_request if is_async else chat_request
        completions = _resource(client, "chat", "completions")
        self._wrap(completions, "create", chat_wrapper)
        self._wrap(completions, "parse", chat_wrapper)
        self._wrap(_resource(client, "beta", "chat", "completions"), "parse", chat_wrapper)
        self._wrap(_resource(client, "responses"), "create", aresponses_request if is_async else responses_request)

    def _wrap(self, resource: Any, attribute: str, wrapper: Callable[..., Any]) -> None:
        if resource is None or attribute in getattr(resource, "__dict__", {}):
            return
        method = getattr(resource, attribute, None)
        if method is None:
            return
        try:
            setattr(resource, attribute, wrapt.FunctionWrapper(method, wrapper))
            self._wrapped.setdefault(resource, set()).add(attribute)
        except (AttributeError, TypeError):  # a resource that takes no attributes: leave it
            return

    def instrumented(self, client: Any) -> bool:
        completions = _resource(client, "chat", "completions")
        return completions is not None and "create" in self._wrapped.get(completions, ())

    def remove_all(self) -> None:
        for resource, attributes in list(self._wrapped.items()):
            for attribute in attributes:
                resource.__dict__.pop(attribute, None)
        self._wrapped.clear()
        self._done.clear()


def _resource(client: Any, *path: str) -> Any:
    node = client
    for name in path:
        try:
            node = getattr(node, name, None)
        except Exception:  # an SDK without that resource, or one that warns on access
            return None
        if node is None:
            return None
    return node


class OpenAIClientPatch:
    """Swaps ``OpenAIClient.sync_client`` / ``async_client`` for instrumenting properties and
    wraps ``OpenAIClient._build_responses_input``; `remove()` puts the originals back."""

    TARGET = "praisonaiagents.llm.openai_client:OpenAIClient"

    def __init__(self, is_active: Callable[[], bool]) -> None:
        self._is_active = is_active
        self.clients = ClientInstrumentation()
        self._owner: Any = None
        self._originals: dict[str, Any] = {}

    @property
    def applied(self) -> bool:
        return self._owner is not None

    def apply(self, module: Any) -> list[str]:
        """Patch ``module.OpenAIClient``; returns what was patched (``module:Class.attribute``)."""
        owner = getattr(module, "OpenAIClient", None)
        if owner is None or self._owner is not None:
            return []
        patched: list[str] = []
        for name, is_async in (("sync_client", False), ("async_client", True)):
            original = owner.__dict__.get(name)
            if isinstance(original, property) and original.fget is not None:
                self._originals[name] = original
                setattr(owner, name, property(self._getter(original.fget, is_async), original.fset, original.fdel,
                                              original.__doc__))
                patched.append(f"{self.TARGET}.{name}")
        original = owner.__dict__.get("_build_responses_input")
        if callable(original):
            self._originals["_build_responses_input"] = original
            owner._build_responses_input = wrapt.FunctionWrapper(original, responses_input)
            patched.append(f"{self.TARGET}._build_responses_input")
        self._owner = owner
        return patched

    def _getter(self, fget: Callable[[Any], Any], is_async: bool) -> Callable[[Any], Any]:
        clients = self.clients
        is_active = self._is_active

        def instrumenting_getter(owner: Any) -> Any:
            client = fget(owner)
            if client is not None and is_active():
                clients.instrument(client, is_async)
            return client

        instrumenting_getter.__wrapped__ = fget  # type: ignore[attr-defined]
        return instrumenting_getter

    def remove(self) -> None:
        owner, self._owner = self._owner, None
        if owner is not None:
            for name, original in self._originals.items():
                setattr(owner, name, original)
        self._originals.clear()
        self.clients.remove_all()
