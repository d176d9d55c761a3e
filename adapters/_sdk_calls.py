"""One hooked SDK request, start to finish, for the ``openai`` and ``anthropic`` adapters.

Every API (Chat Completions, Responses, Anthropic Messages) is described by a
`Dialect`: how to read its request as OpenAI-style messages and write them
back, how to read an answer's text and tool calls and edit them, and how to
buffer a stream. `request` / `arequest` then run the same sequence for all:

1. a request carrying tool results back: POST_TOOL_CALL for the calls the
   adapter saw asked for (`ToolLedger.settle`), and what later requests must
   carry (replaced results, refused calls, preludes) is put back;
2. PRE_MODEL_CALL -> wrap hooks -> the real request -> POST_MODEL_CALL, by
   `hookport.calls.model_call` (a streamed answer is buffered first when a
   POST or tool hook is registered, so a replacement or a refusal reaches it);
3. PRE_TOOL_CALL for each call the answer asks for; edits and refusals are
   written into the answer; when every call was refused the exchange and the
   refusals are sent at once as the next request (step 2 again), so the
   application's loop goes on with the model's next answer.

An outer framework adapter that already dispatched the model call (LangChain's
``ChatOpenAI`` on the ``openai`` client) makes all of this silent:
`hookport.calls.outer_layer_dispatched_model()`.
"""

from __future__ import annotations

import abc
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

from hookport.calls import (
    ResponseShape,
    amodel_call,
    model_call,
    model_hooks_active,
    outer_layer_dispatched_model,
    tool_hooks_active,
)
from hookport.contexts import LazyMessagesContext
from hookport.points import InterceptionPoint
from hookport.reentry import is_suppressed
from hookport.registry import has_hooks

from hookport.adapters._sdk_data import araw_parse, raw_parse
from hookport.adapters._sdk_tools import AskedCall, Review, ToolLedger, run_fields

A = TypeVar("A")
Kwargs = dict[str, Any]
MAX_CONTINUATIONS = 8
"""How many times in a row the adapter answers an all-refused response itself."""


class Dialect(abc.ABC, Generic[A]):
    """How one API's requests and answers look. `A` is the adapter's answer holder."""

    api: str
    framework: str

    # -- requests ------------------------------------------------------------------------------------

    @abc.abstractmethod
    def messages(self, kwargs: Kwargs) -> list[dict[str, Any]]:
        """The request as OpenAI-style message dicts (a deep copy: hooks may edit it)."""

    @abc.abstractmethod
    def with_messages(self, kwargs: Kwargs, messages: list[dict[str, Any]]) -> Kwargs:
        """`kwargs` carrying `messages` (edited by PRE hooks) in the API's own shape."""

    @abc.abstractmethod
    def results(self, kwargs: Kwargs) -> list[tuple[str, str]]:
        """(call id, result text) of every tool result the request carries back."""

    @abc.abstractmethod
    def restore(self, kwargs: Kwargs, ledger: ToolLedger, settled: dict[str, str]) -> Kwargs:
        """`kwargs` with replaced results (`settled`), refused calls and preludes put back."""

    @abc.abstractmethod
    def extend(self, kwargs: Kwargs, exchange: list[Any]) -> Kwargs:
        """`kwargs` with `exchange` (what the adapter itself added) appended to the conversation."""

    # -- answers -----------------------------------------------------------------------------------------

    whole_field: str
    """An attribute the API's whole answer has and its stream has not (``choices``, ``output``, ``content``)."""

    @abc.abstractmethod
    def answer(self, result: Any, whole: Any = None, stream: Any = None, events: list[Any] | None = None,
               is_async: bool = False) -> A:
        """The answer holder: `whole` is the complete answer object, `events` a buffered stream's."""

    def is_stream(self, result: Any) -> bool:
        return hasattr(result, "response") and not hasattr(result, self.whole_field) and (
            hasattr(result, "__iter__") or hasattr(result, "__aiter__"))

    def receive(self, result: Any, kwargs: Kwargs, buffer: bool) -> A:
        """The SDK's return value as an answer holder (a stream is read to the end when `buffer`;
        a raw response is parsed, and the SDK caches what the caller's ``.parse()`` returns)."""
        if is_raw(kwargs):
            parsed = raw_parse(result)
            return self.answer(result, whole=None if self.is_stream(parsed) else parsed)
        if self.is_stream(result):
            return self.answer(result, stream=result, events=list(result) if buffer else None)
        return self.answer(result, whole=result)

    async def areceive(self, result: Any, kwargs: Kwargs, buffer: bool) -> A:
        """`receive` for async clients (an async stream is read with ``async for``)."""
        if is_raw(kwargs):
            parsed = await araw_parse(result)
            return self.answer(result, whole=None if self.is_stream(parsed) else parsed, is_async=True)
        if self.is_stream(result):
            events = [event async for event in result] if buffer else None
            return self.answer(result, stream=result, events=events, is_async=True)
        return self.answer(result, whole=result, is_async=True)

    @abc.abstractmethod
    def text(self, answer: A) -> str | None: ...

    @abc.abstractmethod
    def replace_text(self, answer: A | None, text: str, kwargs: Kwargs) -> A:
        """`answer` with its text replaced (None: an answer made from `text` alone)."""

    @abc.abstractmethod
    def calls(self, answer: A) -> list[AskedCall]: ...

    @abc.abstractmethod
    def apply(self, answer: A, review: Review, ledger: ToolLedger) -> None:
        """Write edited arguments into `answer`, remove refused calls, remember the refusals."""

    @abc.abstractmethod
    def exchange(self, answer: A, review: Review) -> list[Any]:
        """An all-refused answer and its refusals, as conversation items to send next."""

    @abc.abstractmethod
    def deliver(self, answer: A) -> Any:
        """What the caller receives."""

    def model_of(self, kwargs: Kwargs) -> Any:
        return kwargs.get("model")

    def describe(self, answer: A) -> dict[str, Any]:
        """What POST hooks find in ``ctx.metadata`` about the answer: the tool calls it asks for."""
        return {"tool_calls": [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in self.calls(answer)]}


class _Shape(ResponseShape[Any]):
    def __init__(self, dialect: Dialect[Any], kwargs: Kwargs) -> None:
        self.dialect = dialect
        self.kwargs = kwargs

    def text(self, result: Any) -> str | None:
        return self.dialect.text(result)

    def replace(self, result: Any, text: str) -> Any:
        return self.dialect.replace_text(result, text, self.kwargs)

    def coerce(self, value: Any, ctx: Any) -> Any:
        return self.replace(None, value) if isinstance(value, str) else value


def is_raw(kwargs: Kwargs) -> bool:
    """A ``with_raw_response`` / ``with_streaming_response`` call (the SDKs mark it with a header)."""
    headers = kwargs.get("extra_headers") or {}
    return bool(isinstance(headers, dict) and headers.get("X-Stainless-Raw-Response"))


def _quiet() -> bool:
    return is_suppressed() or outer_layer_dispatched_model()


def _context(dialect: Dialect[Any], kwargs: Kwargs, continuation: int) -> LazyMessagesContext:
    """The request's context; its messages are converted only if a hook reads them."""
    model = dialect.model_of(kwargs)
    return LazyMessagesContext(
        lambda: dialect.messages(kwargs), llm=model, iterations=continuation, framework=dialect.framework,
        metadata={"api": dialect.api, "model": model if isinstance(model, str) else None,
                  "stream": bool(kwargs.get("stream")), "tools": kwargs.get("tools"), "kwargs": kwargs},
        **run_fields(),
    )


def _needs_buffer() -> bool:
    return has_hooks(InterceptionPoint.POST_MODEL_CALL) or tool_hooks_active()


def _sender(dialect: Dialect[Any], call: Callable[..., Any], args: tuple[Any, ...], kwargs: Kwargs,
            buffer: bool) -> Callable[[LazyMessagesContext], Any]:
    def send(ctx: LazyMessagesContext) -> Any:
        sent = dialect.with_messages(kwargs, ctx.messages) if ctx.edited() else kwargs
        answer = dialect.receive(call(*args, **sent), sent, buffer)
        ctx.metadata.update(dialect.describe(answer))
        return answer

    return send


def _asender(dialect: Dialect[Any], call: Callable[..., Awaitable[Any]], args: tuple[Any, ...], kwargs: Kwargs,
             buffer: bool) -> Callable[[LazyMessagesContext], Awaitable[Any]]:
    async def send(ctx: LazyMessagesContext) -> Any:
        sent = dialect.with_messages(kwargs, ctx.messages) if ctx.edited() else kwargs
        answer = await dialect.areceive(await call(*args, **sent), sent, buffer)
        ctx.metadata.update(dialect.describe(answer))
        return answer

    return send


def _restored(dialect: Dialect[Any], ledger: ToolLedger, kwargs: Kwargs,
              settle: Callable[[str, str], str | None]) -> Kwargs:
    if ledger.empty:
        return kwargs
    settled: dict[str, str] = {}
    for call_id, text in dialect.results(kwargs):
        replacement = settle(call_id, text)
        if replacement is not None:
            settled[call_id] = replacement
    return dialect.restore(kwargs, ledger, settled)


def passthrough(ledger: ToolLedger) -> bool:
    """True when a request needs nothing from the adapter: no hook would run, nothing to put back."""
    return _quiet() or (ledger.empty and not (model_hooks_active() or tool_hooks_active()))


def request(dialect: Dialect[Any], ledger: ToolLedger, call: Callable[..., Any], args: tuple[Any, ...],
            kwargs: Kwargs) -> Any:
    """One hooked request on a sync client; `call(*args, **kwargs)` is the SDK's method."""
    if passthrough(ledger):
        return call(*args, **kwargs)
    kwargs = _restored(dialect, ledger, kwargs, ledger.settle)
    exchange: list[Any] = []
    for continuation in range(MAX_CONTINUATIONS + 1):
        sent = dialect.extend(kwargs, exchange) if exchange else kwargs
        ctx = _context(dialect, sent, continuation)
        answer = model_call(ctx, _sender(dialect, call, args, sent, _needs_buffer()), _Shape(dialect, sent))
        review = ledger.review(dialect.calls(answer), dialect.api)
        if review.all_refused and continuation < MAX_CONTINUATIONS:
            exchange = exchange + dialect.exchange(answer, review)
            continue
        return _settle_answer(dialect, ledger, answer, review, exchange)
    raise AssertionError("unreachable")  # pragma: no cover


async def arequest(dialect: Dialect[Any], ledger: ToolLedger, call: Callable[..., Awaitable[Any]],
                   args: tuple[Any, ...], kwargs: Kwargs) -> Any:
    """`request` for async clients: async hooks are awaited on the running loop."""
    if passthrough(ledger):
        return await call(*args, **kwargs)
    if not ledger.empty:
        settled: dict[str, str] = {}
        for call_id, text in dialect.results(kwargs):
            replacement = await ledger.asettle(call_id, text)
            if replacement is not None:
                settled[call_id] = replacement
        kwargs = dialect.restore(kwargs, ledger, settled)
    exchange: list[Any] = []
    for continuation in range(MAX_CONTINUATIONS + 1):
        sent = dialect.extend(kwargs, exchange) if exchange else kwargs
        ctx = _context(dialect, sent, continuation)
        answer = await amodel_call(ctx, _asender(dialect, call, args, sent, _needs_buffer()),
                                   _Shape(dialect, sent))
        review = await ledger.areview(dialect.calls(answer), dialect.api)
        if review.all_refused and continuation < MAX_CONTINUATIONS:
            exchange = exchange + dialect.exchange(answer, review)
            continue
        return _settle_answer(dialect, ledger, answer, review, exchange)
    raise AssertionError("unreachable")  # pragma: no cover


def _settle_answer(dialect: Dialect[Any], ledger: ToolLedger, answer: Any, review: Review,
                   exchange: list[Any]) -> Any:
    dialect.apply(answer, review, ledger)
    if exchange and review.allowed:
        ledger.remember_prelude(review.allowed[0][0].id, exchange)
    return dialect.deliver(answer)


def sync_wrapper(dialect: Dialect[Any], ledger: ToolLedger) -> Callable[..., Any]:
    """The wrapt wrapper of a sync client method: one hooked `request`."""
    def wrapper(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: Kwargs) -> Any:
        return request(dialect, ledger, wrapped, args, kwargs)

    return wrapper


def async_wrapper(dialect: Dialect[Any], ledger: ToolLedger) -> Callable[..., Any]:
    """The wrapt wrapper of an async client method: the SDK's own coroutine when nothing would run."""
    def wrapper(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: Kwargs) -> Any:
        if passthrough(ledger):
            return wrapped(*args, **kwargs)
        return arequest(dialect, ledger, wrapped, args, kwargs)

    return wrapper
