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
import threading
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar
from weakref import WeakKeyDictionary

from pydantic import BaseModel

from hookport.boundary import Execution, current_execution
from hookport.calls import (
    ResponseShape,
    amodel_call,
    model_call,
    model_hooks_active,
    outer_layer_dispatched_model,
    tool_hooks_active,
)
from hookport.contexts import LazyMessagesContext
from hookport.points import ExtensionPoint, InterceptionPoint
from hookport.reentry import is_suppressed
from hookport.registry import has_hooks

from hookport.adapters._sdk_data import araw_parse, cache_parsed, plain, raw_parse, rewrite_raw_body
from hookport.adapters._sdk_tools import (
    AskedCall,
    CallParts,
    RequestKeys,
    Review,
    ToolLedger,
    conversation,
    message_calls,
    run_fields,
)

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
    def results(self, kwargs: Kwargs, keys: RequestKeys) -> list[tuple[str | None, str]]:
        """(call key, result text) of every tool result the request carries back."""

    @abc.abstractmethod
    def restore(self, kwargs: Kwargs, ledger: ToolLedger, settled: dict[str, str], keys: RequestKeys) -> Kwargs:
        """`kwargs` with replaced results (`settled`, by key), refused calls and preludes put back."""

    def calls_of(self, message: dict[str, Any]) -> list[CallParts]:
        """The tool calls of one of `messages`' messages, as `RequestKeys` reads them."""
        return message_calls(message)

    def keys(self, kwargs: Kwargs, messages: list[dict[str, Any]] | None = None) -> RequestKeys:
        """The conversation key of every call the request carries (see `hookport.adapters._sdk_tools`);
        `messages`: `messages(kwargs)`, when the caller read them already."""
        return RequestKeys(self.api, self.messages(kwargs) if messages is None else messages, self.calls_of)

    def conversation(self, kwargs: Kwargs, messages: list[dict[str, Any]] | None = None) -> str:
        """The digest of the application's conversation an answer to `kwargs` continues (`messages`:
        `messages(kwargs)`, when the caller read them already)."""
        return conversation(self.messages(kwargs) if messages is None else messages)

    def answered(self, kwargs: Kwargs, answer: A) -> None:
        """Called with each answer the caller receives and the application's request (Responses
        remembers the conversation of a background response, for its ``retrieve``)."""

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
        # the whole answer's field first: a pydantic model's missing attribute costs an exception
        return not hasattr(result, self.whole_field) and hasattr(result, "response") and (
            hasattr(result, "__iter__") or hasattr(result, "__aiter__"))

    def receive(self, result: Any, kwargs: Kwargs, buffer: bool) -> A:
        """The SDK's return value as an answer holder (a stream is read to the end when `buffer`;
        a raw response is parsed, and the SDK caches what the caller's ``.parse()`` returns)."""
        if is_raw(kwargs):
            parsed = raw_parse(result)
            if self.is_stream(parsed):  # the caller's .parse() gets the buffered, edited stream
                answer = self.answer(result, stream=parsed, events=list(parsed) if buffer else None)
                return self._raw_stream(answer, result, parsed)
            return self.answer(result, whole=parsed)
        if self.is_stream(result):
            return self.answer(result, stream=result, events=list(result) if buffer else None)
        return self.answer(result, whole=result)

    async def areceive(self, result: Any, kwargs: Kwargs, buffer: bool) -> A:
        """`receive` for async clients (an async stream is read with ``async for``)."""
        if is_raw(kwargs):
            parsed = await araw_parse(result)
            if self.is_stream(parsed):
                events = [event async for event in parsed] if buffer else None
                answer = self.answer(result, stream=parsed, events=events, is_async=True)
                return self._raw_stream(answer, result, parsed)
            return self.answer(result, whole=parsed, is_async=True)
        if self.is_stream(result):
            events = [event async for event in result] if buffer else None
            return self.answer(result, stream=result, events=events, is_async=True)
        return self.answer(result, whole=result, is_async=True)

    def _raw_stream(self, answer: A, result: Any, parsed: Any) -> A:
        """A raw response's stream, read already: its ``.parse()`` returns the replay (edited later)."""
        if getattr(answer, "events", getattr(answer, "chunks", None)) is not None:
            cache_parsed(result, parsed, self.deliver(answer))
        return answer

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

    def whole(self, answer: A) -> Any:
        """The answer's complete (non-streamed) object, None for a stream: a raw response's body."""
        return None

    def model_of(self, kwargs: Kwargs) -> Any:
        return kwargs.get("model")

    def describe(self, answer: A, calls: list[AskedCall] | None = None) -> dict[str, Any]:
        """What POST hooks find in ``ctx.metadata`` about the answer: the tool calls it asks for
        (`calls`: `calls(answer)`, when the caller read them already; the hooks get copies of their
        arguments, which PRE_TOOL_CALL reviews)."""
        return {"tool_calls": [{"id": c.id, "name": c.name, "arguments": plain(c.arguments)}
                               for c in (self.calls(answer) if calls is None else calls)]}


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


# -- ctx.iterations ---------------------------------------------------------------------------------

_CALLS: WeakKeyDictionary[Execution, int] = WeakKeyDictionary()
"""How many model calls each running execution (``hookport.execution(...)``) has made."""
_CALLS_LOCK = threading.Lock()
_INPUT_ITEMS = ("_output", "mcp_approval_response", "item_reference")
"""Responses items the application sends (tool outputs, approvals, references), not the model's."""


def _said_by_model(message: dict[str, Any]) -> bool:
    role = message.get("role")
    if role == "item":  # a Responses item kept as it is: reasoning, a built-in tool's call, ...
        kind = str((message.get("item") or {}).get("type") or "") if isinstance(message.get("item"), dict) else ""
        return bool(kind) and not kind.endswith(_INPUT_ITEMS)
    return role == "assistant"


def assistant_turns(messages: list[dict[str, Any]]) -> int:
    """The model's answers a conversation already holds: each run of consecutive assistant
    messages (and Responses output items: reasoning, calls) is one answer, one model call."""
    turns, inside = 0, False
    for message in messages:
        role = message.get("role")
        said = role == "assistant" or (role == "item" and _said_by_model(message))
        turns += said and not inside
        inside = said
    return turns


def _iterations(run: Execution | None, read: _Read, kwargs: Kwargs) -> int:
    """`ctx.iterations` of the next model call.

    Inside ``hookport.execution(...)`` (the application's run: its agent's execution) it is the
    number of model calls the execution has made before this one, counted here; without one, the
    model's answers the request's own conversation holds (stateless: the same for a resumed
    conversation, in any process), `read.messages(kwargs)`; `run`: `current_execution()`."""
    if run is None:
        return assistant_turns(read.messages(kwargs))
    with _CALLS_LOCK:
        made = _CALLS.get(run, 0)
        _CALLS[run] = made + 1
    return made


class _Read:
    """The application's request read once as OpenAI-style dicts (`Dialect.messages`), on first
    need: the ledger's keys, the conversation digest and ``ctx.iterations`` share it. Hooks never
    get this list (they get a copy), so the digest reads what the application sent."""

    __slots__ = ("dialect", "kwargs", "_messages")

    def __init__(self, dialect: Dialect[Any], kwargs: Kwargs) -> None:
        self.dialect, self.kwargs = dialect, kwargs
        self._messages: list[dict[str, Any]] | None = None

    def messages(self, kwargs: Kwargs | None = None) -> list[dict[str, Any]]:
        """The messages of `kwargs` (default: the application's request; another request, one the
        adapter restored or extended, is read afresh)."""
        if kwargs is not None and kwargs is not self.kwargs:
            return self.dialect.messages(kwargs)
        if self._messages is None:
            self._messages = self.dialect.messages(self.kwargs)
        return self._messages

    def conversation(self, calls: list[AskedCall]) -> str:
        """The digest of the application's conversation, needed only when the answer asks for calls."""
        return self.dialect.conversation(self.kwargs, self.messages()) if calls else ""


def _context(dialect: Dialect[Any], kwargs: Kwargs, read: _Read) -> LazyMessagesContext:
    """The request's context: hooks get its messages (a copy of what `read` holds) only if one reads
    them; with no execution, `iterations` counts the turns of `read`'s own list."""
    model = dialect.model_of(kwargs)
    own = kwargs is read.kwargs
    run = current_execution()
    return LazyMessagesContext(
        (lambda: plain(read.messages())) if own else (lambda: dialect.messages(kwargs)),
        llm=model, iterations=_iterations(run, read, kwargs), framework=dialect.framework,
        metadata={"api": dialect.api, "model": model if isinstance(model, str) else None,
                  "stream": bool(kwargs.get("stream")), "tools": kwargs.get("tools"), "kwargs": kwargs},
        **run_fields(run),
    )


_POST_MODEL = InterceptionPoint.POST_MODEL_CALL  # a module constant: no Enum metaclass hook per request on 3.10/3.11
_WRAP = ExtensionPoint.WRAP_MODEL_CALL


def _needs_buffer() -> bool:
    return has_hooks(_POST_MODEL) or tool_hooks_active()


class _Asked:
    """The tool calls of the answer `send` last received, read once for POST's ``ctx.metadata`` and
    for PRE_TOOL_CALL. Only while no wrap hook ran: one holds the answer object after `send` and may
    edit it, so then the calls are read again from what `model_call` returned."""

    __slots__ = ("answer", "calls", "unwrapped")

    def __init__(self) -> None:
        self.answer: Any = None
        self.calls: list[AskedCall] = []
        self.unwrapped = not has_hooks(_WRAP)

    def note(self, dialect: Dialect[Any], answer: Any) -> list[AskedCall]:
        self.answer, self.calls = answer, dialect.calls(answer)
        return self.calls

    def of(self, dialect: Dialect[Any], answer: Any) -> list[AskedCall]:
        """The calls of `answer`, what `model_call` returned."""
        if answer is self.answer and self.unwrapped and not has_hooks(_WRAP):
            return self.calls
        return dialect.calls(answer)


def _sender(dialect: Dialect[Any], call: Callable[..., Any], args: tuple[Any, ...], kwargs: Kwargs,
            buffer: bool, asked: _Asked) -> Callable[[LazyMessagesContext], Any]:
    def send(ctx: LazyMessagesContext) -> Any:
        sent = dialect.with_messages(kwargs, ctx.messages) if ctx.edited() else kwargs
        answer = dialect.receive(call(*args, **sent), sent, buffer)
        ctx.metadata.update(dialect.describe(answer, asked.note(dialect, answer)))
        return answer

    return send


def _asender(dialect: Dialect[Any], call: Callable[..., Awaitable[Any]], args: tuple[Any, ...], kwargs: Kwargs,
             buffer: bool, asked: _Asked) -> Callable[[LazyMessagesContext], Awaitable[Any]]:
    async def send(ctx: LazyMessagesContext) -> Any:
        sent = dialect.with_messages(kwargs, ctx.messages) if ctx.edited() else kwargs
        answer = await dialect.areceive(await call(*args, **sent), sent, buffer)
        ctx.metadata.update(dialect.describe(answer, asked.note(dialect, answer)))
        return answer

    return send


def _restored(dialect: Dialect[Any], ledger: ToolLedger, read: _Read) -> Kwargs:
    kwargs = read.kwargs
    if ledger.empty:
        return kwargs
    keys = dialect.keys(kwargs, read.messages())
    settled: dict[str, str] = {}
    for key, text in dialect.results(kwargs, keys.walk()):
        replacement = ledger.settle(key, text) if key is not None else None
        if replacement is not None and key is not None:
            settled[key] = replacement
    return dialect.restore(kwargs, ledger, settled, keys.walk()) if settled or ledger.puts_back else kwargs


def _changed(ctx: LazyMessagesContext, review: Review) -> bool:
    return bool(review.refused or review.edited()) or ctx.response != ctx.metadata.get("original_response")


def passthrough(ledger: ToolLedger) -> bool:
    """True when a request needs nothing from the adapter: no hook would run, nothing to put back."""
    return _quiet() or (not (model_hooks_active() or tool_hooks_active()) and ledger.empty)


def request(dialect: Dialect[Any], ledger: ToolLedger, call: Callable[..., Any], args: tuple[Any, ...],
            kwargs: Kwargs) -> Any:
    """One hooked request on a sync client; `call(*args, **kwargs)` is the SDK's method."""
    if passthrough(ledger):
        return call(*args, **kwargs)
    read = _Read(dialect, kwargs)
    kwargs = _restored(dialect, ledger, read)
    exchange: list[Any] = []
    for continuation in range(MAX_CONTINUATIONS + 1):
        sent = dialect.extend(kwargs, exchange) if exchange else kwargs
        ctx = _context(dialect, sent, read)
        asked = _Asked()
        answer = model_call(ctx, _sender(dialect, call, args, sent, _needs_buffer(), asked), _Shape(dialect, sent))
        calls = asked.of(dialect, answer)
        review = ledger.review(calls, dialect.api, read.conversation(calls))
        if review.all_refused and continuation < MAX_CONTINUATIONS:
            exchange = exchange + dialect.exchange(answer, review)
            continue
        return _settle_answer(dialect, ledger, answer, review, exchange, _changed(ctx, review), read.kwargs)
    raise AssertionError("unreachable")  # pragma: no cover


async def arequest(dialect: Dialect[Any], ledger: ToolLedger, call: Callable[..., Awaitable[Any]],
                   args: tuple[Any, ...], kwargs: Kwargs) -> Any:
    """`request` for async clients: async hooks are awaited on the running loop."""
    if passthrough(ledger):
        return await call(*args, **kwargs)
    read = _Read(dialect, kwargs)
    if not ledger.empty:
        keys = dialect.keys(kwargs, read.messages())
        settled: dict[str, str] = {}
        for key, text in dialect.results(kwargs, keys.walk()):
            replacement = await ledger.asettle(key, text) if key is not None else None
            if replacement is not None and key is not None:
                settled[key] = replacement
        if settled or ledger.puts_back:
            kwargs = dialect.restore(kwargs, ledger, settled, keys.walk())
    exchange: list[Any] = []
    for continuation in range(MAX_CONTINUATIONS + 1):
        sent = dialect.extend(kwargs, exchange) if exchange else kwargs
        ctx = _context(dialect, sent, read)
        asked = _Asked()
        answer = await amodel_call(ctx, _asender(dialect, call, args, sent, _needs_buffer(), asked),
                                   _Shape(dialect, sent))
        calls = asked.of(dialect, answer)
        review = await ledger.areview(calls, dialect.api, read.conversation(calls))
        if review.all_refused and continuation < MAX_CONTINUATIONS:
            exchange = exchange + dialect.exchange(answer, review)
            continue
        return _settle_answer(dialect, ledger, answer, review, exchange, _changed(ctx, review), read.kwargs)
    raise AssertionError("unreachable")  # pragma: no cover


def _settle_answer(dialect: Dialect[Any], ledger: ToolLedger, answer: Any, review: Review,
                   exchange: list[Any], changed: bool, app: Kwargs) -> Any:
    dialect.apply(answer, review, ledger)
    anchor = review.anchor() if exchange else None
    if anchor is not None:
        ledger.remember_prelude(review.key(anchor), exchange)
    dialect.answered(app, answer)
    result = getattr(answer, "result", None)
    if changed:
        rewrite_raw_body(result, dialect.whole(answer))
    if not isinstance(result, BaseModel) and hasattr(result, "http_response") and hasattr(result, "parse"):
        return result  # a raw response: its .parse() gives the edited answer (a stream: its replay)
    return dialect.deliver(answer)


# -- answers fetched again (``responses.retrieve``) ------------------------------------------------------


def fetched(dialect: Dialect[Any], ledger: ToolLedger, call: Callable[..., Any], args: tuple[Any, ...],
            kwargs: Kwargs) -> Any:
    """An answer fetched again, not asked for (a background response's ``retrieve``): PRE_TOOL_CALL
    for its calls and the refusals written into it, as for a fresh answer; no model points."""
    if _quiet() or not tool_hooks_active():
        return call(*args, **kwargs)
    answer = dialect.receive(call(*args, **kwargs), kwargs, buffer=True)
    calls = dialect.calls(answer)
    review = ledger.review(calls, dialect.api, dialect.conversation(kwargs) if calls else "")
    return _settle_answer(dialect, ledger, answer, review, [], bool(review.refused or review.edited()), kwargs)


async def afetched(dialect: Dialect[Any], ledger: ToolLedger, call: Callable[..., Awaitable[Any]],
                   args: tuple[Any, ...], kwargs: Kwargs) -> Any:
    """`fetched` for async clients."""
    if _quiet() or not tool_hooks_active():
        return await call(*args, **kwargs)
    answer = await dialect.areceive(await call(*args, **kwargs), kwargs, buffer=True)
    calls = dialect.calls(answer)
    review = await ledger.areview(calls, dialect.api, dialect.conversation(kwargs) if calls else "")
    return _settle_answer(dialect, ledger, answer, review, [], bool(review.refused or review.edited()), kwargs)


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


def fetch_wrappers(dialect: Dialect[Any], ledger: ToolLedger, key: str) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The sync and async wrapt wrappers of a ``retrieve(<key>, ...)`` method: `fetched` / `afetched`
    (the positional id is passed by name, so the dialect finds it in the kwargs)."""
    def named(args: tuple[Any, ...], kwargs: Kwargs) -> Kwargs:
        return {key: args[0], **kwargs} if args else kwargs

    def sync(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: Kwargs) -> Any:
        return fetched(dialect, ledger, wrapped, (), named(args, kwargs))

    def asynchronous(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: Kwargs) -> Any:
        if _quiet() or not tool_hooks_active():
            return wrapped(*args, **kwargs)
        return afetched(dialect, ledger, wrapped, (), named(args, kwargs))

    return sync, asynchronous
