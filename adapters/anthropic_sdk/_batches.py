"""Message batches: each result's ``tool_use`` blocks, reviewed as the application reads them.

A batch's results (``messages.batches.results(id)``, ``beta.messages.batches.results``,
sync and async) are model answers that reach the application outside any request the
adapter wraps: the loop reads them and runs the tools they ask for. So ``results`` is a
call site: the decoder it returns is wrapped, and each succeeded result's message is
reviewed as a ``create`` answer is -- PRE_TOOL_CALL per ``tool_use`` block, a refused
block removed before the application sees it, edited arguments written in.

The batch's requests are remembered at ``batches.create`` (by batch id and ``custom_id``),
so a later ``messages.create`` that continues one of those conversations gets the refused
calls back with their refusal, and POST_TOOL_CALL fires for the allowed ones, as for any
answer. Where that cannot happen -- every call of the result was refused (no call is left
to continue from), or the batch was made where this adapter did not see it (its
conversation is unknown) -- the refusals are written into the message as a text block,
and a message left with no call ends its turn (``stop_reason`` ``end_turn``).

``with_raw_response.results(...)``: the whole JSONL body is read and each line reviewed at
once, and the body is rewritten, so ``.parse()``, ``.text`` and ``http_response`` all hold
the reviewed results.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from hookport.calls import tool_hooks_active

from hookport.adapters._sdk_data import field
from hookport.adapters._sdk_tools import LIMIT, Review, ToolLedger
from hookport.adapters.anthropic_sdk._messages import Messages

Wrapper = Callable[[Any, Any, tuple[Any, ...], dict[str, Any]], Any]


class _Requests(OrderedDict[str, dict[str, Any]]):
    """batch id -> custom_id -> the request's params, for the last `LIMIT` batches."""

    def remember(self, batch: Any, requests: Any) -> None:
        batch_id = field(batch, "id")
        if not isinstance(batch_id, str):
            return
        self[batch_id] = {field(r, "custom_id"): dict(field(r, "params") or {}) for r in requests or ()}
        self.move_to_end(batch_id)
        while len(self) > LIMIT:
            self.popitem(last=False)


class _Reviewer:
    def __init__(self, dialect: Messages, ledger: ToolLedger) -> None:
        self.dialect, self.ledger, self.requests = dialect, ledger, _Requests()

    def _answer(self, item: Any, batch_id: Any) -> tuple[Any, Any, dict[str, Any] | None] | None:
        if not tool_hooks_active():
            return None
        result = field(item, "result")
        if field(result, "type") != "succeeded":
            return None
        answer = self.dialect.answer(None, whole=field(result, "message"))
        calls = self.dialect.calls(answer)
        if not calls:
            return None
        return answer, calls, self.requests.get(batch_id, {}).get(field(item, "custom_id"))

    def review(self, item: Any, batch_id: Any) -> None:
        found = self._answer(item, batch_id)
        if found is not None:
            answer, calls, params = found
            self._apply(answer, self.ledger.review(calls, self.dialect.api, self._conversation(params)), params)

    async def areview(self, item: Any, batch_id: Any) -> None:
        found = self._answer(item, batch_id)
        if found is not None:
            answer, calls, params = found
            self._apply(answer, await self.ledger.areview(calls, self.dialect.api, self._conversation(params)), params)

    def _conversation(self, params: dict[str, Any] | None) -> str:
        return self.dialect.conversation(params) if params else ""

    def _apply(self, answer: Any, review: Review, params: dict[str, Any] | None) -> None:
        self.dialect.apply(answer, review, self.ledger)
        if review.refused and (review.all_refused or params is None):
            _note_refusals(answer.message, review)


def _note_refusals(message: Any, review: Review) -> None:
    """The refusals as a text block of the message; a message with no call left ends its turn."""
    text = "\n".join(refusal for _, refusal in review.refused)
    content = list(field(message, "content") or ())
    if isinstance(message, dict):
        message["content"] = [*content, {"type": "text", "text": text}]
        if review.all_refused:
            message["stop_reason"] = "end_turn"
        return
    module = type(message).__module__
    if ".beta" in module:
        from anthropic.types.beta import BetaTextBlock as Block
    else:
        from anthropic.types import TextBlock as Block
    message.content = [*content, Block.model_construct(type="text", text=text, citations=None)]
    if review.all_refused:
        message.stop_reason = "end_turn"


class _Results:
    """A batch's results decoder, each result reviewed as it is read (everything else is the decoder's)."""

    def __init__(self, decoder: Any, batch_id: Any, reviewer: _Reviewer) -> None:
        self._decoder, self._batch_id, self._reviewer = decoder, batch_id, reviewer
        self._items: Iterator[Any] | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._decoder, name)

    def __iter__(self) -> Iterator[Any]:
        for item in self._decoder:
            self._reviewer.review(item, self._batch_id)
            yield item

    def __next__(self) -> Any:
        if self._items is None:
            self._items = iter(self)
        return next(self._items)


class _AsyncResults(_Results):
    async def __aiter__(self) -> AsyncIterator[Any]:  # type: ignore[override]
        async for item in self._decoder:
            await self._reviewer.areview(item, self._batch_id)
            yield item

    async def __anext__(self) -> Any:
        if self._items is None:
            self._items = self.__aiter__()  # type: ignore[assignment]
        return await self._items.__anext__()  # type: ignore[union-attr]


def _raw_lines(raw: Any) -> tuple[Any, bool]:
    """The HTTP response of a raw results response, if hooks may run (its JSONL body is rewritten)."""
    http = getattr(raw, "http_response", None)
    return http, http is not None and hasattr(http, "read") and tool_hooks_active()


def _write_back(http: Any, lines: list[Any]) -> None:
    http._content = "".join(json.dumps(item) + "\n" for item in lines).encode()
    if "_text" in vars(http):
        del http._text


def _lines(body: bytes) -> list[Any]:
    return [json.loads(line) for line in body.splitlines() if line.strip()]


def _batch_id(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    return args[0] if args else kwargs.get("message_batch_id")


def batch_wrappers(dialect: Messages, ledger: ToolLedger) -> tuple[Wrapper, Wrapper, Wrapper, Wrapper]:
    """The wrapt wrappers of ``Batches.create`` / ``AsyncBatches.create`` / ``Batches.results`` /
    ``AsyncBatches.results``."""
    reviewer = _Reviewer(dialect, ledger)

    def create(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        batch = wrapped(*args, **kwargs)
        reviewer.requests.remember(batch, kwargs.get("requests"))
        return batch

    async def acreate(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        batch = await wrapped(*args, **kwargs)
        reviewer.requests.remember(batch, kwargs.get("requests"))
        return batch

    def results(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        decoder = wrapped(*args, **kwargs)
        if hasattr(decoder, "__iter__"):
            return _Results(decoder, _batch_id(args, kwargs), reviewer)
        http, review = _raw_lines(decoder)  # a raw response (``with_raw_response``)
        if review:
            lines = _lines(http.read())
            for item in lines:
                reviewer.review(item, _batch_id(args, kwargs))
            _write_back(http, lines)
        return decoder

    async def aresults(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        decoder = await wrapped(*args, **kwargs)
        if hasattr(decoder, "__aiter__"):
            return _AsyncResults(decoder, _batch_id(args, kwargs), reviewer)
        http, review = _raw_lines(decoder)
        if review:
            lines = _lines(await http.aread())
            for item in lines:
                await reviewer.areview(item, _batch_id(args, kwargs))
            _write_back(http, lines)
        return decoder

    return create, acreate, results, aresults
