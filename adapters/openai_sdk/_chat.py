"""Chat Completions (``chat.completions.create`` / ``parse``, also behind ``.stream()``) as a `Dialect`.

``ctx.messages`` is the request's ``messages`` as plain dicts (SDK objects the
application appended, such as a ``ChatCompletionMessage``, are dumped). The
answer's text is ``choices[0].message.content``; its tool calls are
``choices[0].message.tool_calls`` (or the ``tool_calls`` deltas of a stream).
A refused call comes back to the model, in later requests, as the call in the
assistant message that asked for it plus a ``{"role": "tool"}`` message with the
refusal text, the same ``tool_call_id``.
"""

from __future__ import annotations

import json
from typing import Any

from hookport.adapters._sdk_calls import Dialect, Kwargs
from hookport.adapters._sdk_streams import EventList, replay
from hookport.adapters._sdk_tools import AskedCall, Review, ToolLedger
from hookport.adapters._sdk_data import content_text, field, parse_arguments, plain
from hookport.adapters.openai_sdk._common import FRAMEWORK


class ChatAnswer:
    """What one Chat Completions request returned, as the adapter reads and edits it."""

    __slots__ = ("result", "completion", "stream", "chunks", "is_async")

    def __init__(self, result: Any, completion: Any = None, stream: Any = None, chunks: list[Any] | None = None,
                 is_async: bool = False) -> None:
        self.result = result
        self.completion = completion
        self.stream = stream
        self.chunks = chunks
        self.is_async = is_async

    # -- the message of a whole completion, or the deltas of a buffered stream ---------------------------

    def message(self) -> Any:
        choices = getattr(self.completion, "choices", None)
        return getattr(choices[0], "message", None) if choices else None

    def deltas(self) -> list[Any]:
        found = []
        for chunk in self.chunks or ():
            choices = getattr(chunk, "choices", None)
            if choices and getattr(choices[0], "delta", None) is not None:
                found.append(choices[0].delta)
        return found

    def streamed_calls(self) -> dict[int, dict[str, Any]]:
        """index -> {"id", "name", "arguments", "parts"}, assembled from the deltas."""
        calls: dict[int, dict[str, Any]] = {}
        for delta in self.deltas():
            for part in getattr(delta, "tool_calls", None) or ():
                entry = calls.setdefault(part.index, {"id": None, "name": "", "arguments": "", "parts": []})
                entry["parts"].append(part)
                if part.id:
                    entry["id"] = part.id
                function = getattr(part, "function", None)
                if function is not None:
                    entry["name"] += function.name or ""
                    entry["arguments"] += function.arguments or ""
        return calls


class ChatCompletions(Dialect[ChatAnswer]):
    api = "chat.completions"
    framework = FRAMEWORK
    whole_field = "choices"

    # -- requests --------------------------------------------------------------------------------------------

    def messages(self, kwargs: Kwargs) -> list[dict[str, Any]]:
        converted = []
        for message in kwargs.get("messages") or ():
            as_dict = plain(message)
            converted.append(as_dict if isinstance(as_dict, dict) else {"role": "user", "content": str(message)})
        return converted

    def with_messages(self, kwargs: Kwargs, messages: list[dict[str, Any]]) -> Kwargs:
        return {**kwargs, "messages": messages}

    def results(self, kwargs: Kwargs) -> list[tuple[str, str]]:
        return [
            (field(m, "tool_call_id"), content_text(field(m, "content")))
            for m in kwargs.get("messages") or ()
            if field(m, "role") == "tool" and field(m, "tool_call_id")
        ]

    def restore(self, kwargs: Kwargs, ledger: ToolLedger, settled: dict[str, str]) -> Kwargs:
        messages = list(kwargs.get("messages") or ())
        out: list[Any] = []
        changed = False
        for message in messages:
            role = field(message, "role")
            if role == "assistant":
                ids = [field(c, "id") for c in field(message, "tool_calls") or ()]
                for call_id in ids[:1]:
                    prelude = ledger.prelude_for(call_id)
                    if prelude:
                        out.extend(prelude)
                        changed = True
                refusals = [r for call_id in ids if (r := ledger.refusals_for(call_id))]
                if refusals:
                    copy = plain(message)
                    copy["tool_calls"] = list(copy.get("tool_calls") or ())
                    for refusal in refusals:
                        copy["tool_calls"].extend(refusal["calls"])
                    out.append(copy)
                    for refusal in refusals:
                        out.extend(refusal["results"])
                    changed = True
                    continue
            elif role == "tool" and field(message, "tool_call_id") in settled:
                copy = plain(message)
                copy["content"] = settled[field(message, "tool_call_id")]
                out.append(copy)
                changed = True
                continue
            out.append(message)
        return {**kwargs, "messages": out} if changed else kwargs

    def extend(self, kwargs: Kwargs, exchange: list[Any]) -> Kwargs:
        return {**kwargs, "messages": [*(kwargs.get("messages") or ()), *exchange]}

    # -- answers ------------------------------------------------------------------------------------------------

    def answer(self, result: Any, whole: Any = None, stream: Any = None, events: list[Any] | None = None,
               is_async: bool = False) -> ChatAnswer:
        return ChatAnswer(result, completion=whole, stream=stream, chunks=events, is_async=is_async)

    def text(self, answer: ChatAnswer) -> str | None:
        if answer.chunks is not None:
            return "".join(getattr(d, "content", None) or "" for d in answer.deltas())
        message = answer.message()
        if message is None:
            return None
        return getattr(message, "content", None) or ""

    def replace_text(self, answer: ChatAnswer | None, text: str, kwargs: Kwargs) -> ChatAnswer:
        if answer is None:
            return _made_answer(text, kwargs)
        if answer.chunks is not None:
            deltas = answer.deltas()
            carriers = [d for d in deltas if getattr(d, "content", None)] or deltas[:1]
            if carriers:
                carriers[0].content = text
                for other in carriers[1:]:
                    other.content = ""
        elif answer.message() is not None:
            answer.message().content = text
        return answer

    def calls(self, answer: ChatAnswer) -> list[AskedCall]:
        if answer.chunks is not None:
            return [
                AskedCall(entry["id"] or f"index_{index}", entry["name"], parse_arguments(entry["arguments"]),
                          native=("stream", index))
                for index, entry in sorted(answer.streamed_calls().items())
            ]
        message = answer.message()
        return [
            AskedCall(call.id, call.function.name, parse_arguments(call.function.arguments), native=call)
            for call in getattr(message, "tool_calls", None) or ()
            if getattr(call, "function", None) is not None
        ]

    def apply(self, answer: ChatAnswer, review: Review, ledger: ToolLedger) -> None:
        if not review.refused and not review.edited():
            return
        for call, arguments in review.edited():
            self._set_arguments(answer, call, json.dumps(arguments))
        if not review.refused:
            return
        refused_ids = {call.id for call, _ in review.refused}
        if answer.chunks is not None:
            self._drop_streamed(answer, refused_ids)
        else:
            message = answer.message()
            message.tool_calls = [c for c in message.tool_calls or () if c.id not in refused_ids] or None
        if review.allowed:
            ledger.remember_refusals(review.allowed[0][0].id, {
                "calls": [_call_dict(call) for call, _ in review.refused],
                "results": [{"role": "tool", "tool_call_id": call.id, "content": text} for call, text in review.refused],
            })

    def _set_arguments(self, answer: ChatAnswer, call: AskedCall, arguments: str) -> None:
        if answer.chunks is None:
            call.native.function.arguments = arguments
            return
        parts = answer.streamed_calls()[call.native[1]]["parts"]
        with_args = [p for p in parts if getattr(p, "function", None) is not None]
        for index, part in enumerate(with_args):
            part.function.arguments = arguments if index == 0 else ""

    @staticmethod
    def _drop_streamed(answer: ChatAnswer, refused_ids: set[str]) -> None:
        calls = answer.streamed_calls()
        dropped = {index for index, entry in calls.items() if (entry["id"] or f"index_{index}") in refused_ids}
        renumber = {old: new for new, old in enumerate(i for i in sorted(calls) if i not in dropped)}
        for delta in answer.deltas():
            parts = getattr(delta, "tool_calls", None)
            if not parts:
                continue
            kept = [p for p in parts if p.index not in dropped]
            for part in kept:
                part.index = renumber[part.index]
            delta.tool_calls = kept or None

    def exchange(self, answer: ChatAnswer, review: Review) -> list[Any]:
        text = self.text(answer)
        assistant = {"role": "assistant", "content": text or None,
                     "tool_calls": [_call_dict(call) for call, _ in review.refused]}
        return [assistant, *({"role": "tool", "tool_call_id": call.id, "content": refusal}
                             for call, refusal in review.refused)]

    def deliver(self, answer: ChatAnswer) -> Any:
        if answer.chunks is not None:
            return replay(answer.stream, answer.chunks, answer.is_async)
        return answer.result


def _call_dict(call: AskedCall) -> dict[str, Any]:
    native = call.native
    if native is not None and not isinstance(native, tuple) and hasattr(native, "model_dump"):
        dumped = native.model_dump(exclude_none=True)
        return dumped if isinstance(dumped, dict) else {}
    return {"id": call.id, "type": "function",
            "function": {"name": call.name, "arguments": json.dumps(call.arguments)}}


def _made_answer(text: str, kwargs: Kwargs) -> ChatAnswer:
    """An answer made from a wrap hook's string, shaped like the SDK's own."""
    from openai.types.chat import ChatCompletion, ChatCompletionChunk

    model = kwargs.get("model") or "hookport"
    if kwargs.get("stream"):
        chunk = ChatCompletionChunk.model_validate({
            "id": "hookport", "object": "chat.completion.chunk", "created": 0, "model": model,
            "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        })
        stream = EventList([chunk])
        return ChatAnswer(stream, stream=stream, chunks=[chunk])
    completion = ChatCompletion.model_validate({
        "id": "hookport", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
    })
    return ChatAnswer(completion, completion=completion)
