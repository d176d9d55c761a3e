"""Chat Completions (``chat.completions.create`` / ``parse``, also behind ``.stream()``) as a `Dialect`.

``ctx.messages`` is the request's ``messages`` as plain dicts (SDK objects the
application appended, such as a ``ChatCompletionMessage``, are dumped). The
answer's text is ``choices[0].message.content``; its tool calls are every
choice's (``n`` > 1) ``tool_calls``, function and custom ones (a custom call's
raw input is ``ctx.tool_input["input"]``), and the legacy ``function_call``
(or the same deltas of a stream).
A refused call comes back to the model, in later requests, as the call in the
assistant message that asked for it plus a ``{"role": "tool"}`` message with the
refusal text, the same ``tool_call_id``.
"""

from __future__ import annotations

import json
from typing import Any

from hookport.adapters._sdk_calls import Dialect, Kwargs
from hookport.adapters._sdk_streams import EventList, replay
from hookport.adapters._sdk_tools import LEGACY_ID, AskedCall, RequestKeys, Review, ToolLedger
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

    # -- the messages of a whole completion (every choice), or the deltas of a buffered stream ----------

    def message(self) -> Any:
        choices = getattr(self.completion, "choices", None)
        return getattr(choices[0], "message", None) if choices else None

    def messages(self) -> list[tuple[int, Any]]:
        """(choice index, message) of every choice (``n`` > 1 asks for several)."""
        return [(getattr(c, "index", i) or i, c.message) for i, c in enumerate(getattr(self.completion, "choices", None)
                                                                                or ()) if getattr(c, "message", None)]

    def deltas(self, group: int | None = 0) -> list[Any]:
        """The deltas of choice `group` (None: of every choice)."""
        found = []
        for chunk in self.chunks or ():
            for choice in getattr(chunk, "choices", None) or ():
                if (group is None or (getattr(choice, "index", 0) or 0) == group) and \
                        getattr(choice, "delta", None) is not None:
                    found.append(choice.delta)
        return found

    def groups(self) -> list[int]:
        return sorted({getattr(c, "index", 0) or 0 for chunk in self.chunks or ()
                       for c in getattr(chunk, "choices", None) or ()})

    def streamed_calls(self, group: int = 0) -> dict[Any, dict[str, Any]]:
        """index -> {"id", "name", "arguments", "custom", "parts"}, assembled from choice `group`'s deltas
        (the legacy ``function_call`` deltas under the index ``LEGACY_ID``)."""
        calls: dict[Any, dict[str, Any]] = {}
        for delta in self.deltas(group):
            for part in getattr(delta, "tool_calls", None) or ():
                entry = calls.setdefault(part.index, {"id": None, "name": "", "arguments": "", "custom": False,
                                                      "parts": []})
                entry["parts"].append(part)
                if part.id:
                    entry["id"] = part.id
                function = getattr(part, "function", None)
                custom = field(part, "custom")
                if function is not None:
                    entry["name"] += function.name or ""
                    entry["arguments"] += function.arguments or ""
                elif custom is not None:
                    entry["custom"] = True
                    entry["name"] += field(custom, "name") or ""
                    entry["arguments"] += field(custom, "input") or ""
            legacy = getattr(delta, "function_call", None)
            if legacy is not None:
                entry = calls.setdefault(LEGACY_ID, {"id": LEGACY_ID, "name": "", "arguments": "", "custom": False,
                                                     "parts": []})
                entry["parts"].append(delta)
                entry["name"] += legacy.name or ""
                entry["arguments"] += legacy.arguments or ""
        return calls


def _arguments(custom: bool, text: str | None) -> dict[str, Any]:
    """A streamed call's arguments: a custom tool's raw input, or the parsed JSON."""
    return {"input": text or ""} if custom else parse_arguments(text)


def _native_calls(group: int, message: Any) -> list[AskedCall]:
    """The calls one choice's message asks for: function and custom ``tool_calls``, the legacy
    ``function_call``."""
    found = []
    for call in getattr(message, "tool_calls", None) or ():
        kind = field(call, "type")  # read first: a pydantic model's missing attribute costs an exception
        function = field(call, "function") if kind != "custom" else None
        custom = field(call, "custom") if function is None else None
        if function is not None:
            found.append(AskedCall(call.id, field(function, "name"), parse_arguments(field(function, "arguments")),
                                   native=call, group=group))
        elif custom is not None:
            found.append(AskedCall(call.id, field(custom, "name"), {"input": field(custom, "input") or ""},
                                   native=call, group=group))
    legacy = getattr(message, "function_call", None)
    if legacy is not None:
        found.append(AskedCall(LEGACY_ID, field(legacy, "name"), parse_arguments(field(legacy, "arguments")),
                               native=legacy, group=group))
    return found


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

    def results(self, kwargs: Kwargs, keys: RequestKeys) -> list[tuple[str | None, str]]:
        found = []
        for message in kwargs.get("messages") or ():
            role = field(message, "role")
            if role == "assistant":
                for call_id in _ids(message):
                    keys.call(call_id)
            elif role == "tool" and field(message, "tool_call_id"):
                found.append((keys.result(field(message, "tool_call_id")), content_text(field(message, "content"))))
            elif role == "function":
                found.append((keys.result(LEGACY_ID), content_text(field(message, "content"))))
        return found

    def restore(self, kwargs: Kwargs, ledger: ToolLedger, settled: dict[str, str], keys: RequestKeys) -> Kwargs:
        out: list[Any] = []
        changed = False
        for message in kwargs.get("messages") or ():
            role = field(message, "role")
            if role == "assistant":
                call_keys = [keys.call(call_id) for call_id in _ids(message)]
                prelude = ledger.prelude_for(call_keys[0]) if call_keys and call_keys[0] else None
                if isinstance(prelude, list):
                    out.extend(prelude)
                    changed = True
                refusals = [r for key in call_keys if key and isinstance(r := ledger.refusals_for(key), dict)]
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
            elif role in ("tool", "function"):
                key = keys.result(field(message, "tool_call_id") if role == "tool" else LEGACY_ID)
                if key in settled:
                    copy = plain(message)
                    copy["content"] = settled[key]
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
        """Every call of every choice (an application may take any of them)."""
        if answer.chunks is not None:
            return [
                AskedCall(entry["id"] or f"index_{index}", entry["name"],
                          _arguments(entry["custom"], entry["arguments"]),
                          native=("stream", index, entry["custom"]), group=group)
                for group in answer.groups()
                for index, entry in sorted(answer.streamed_calls(group).items(), key=lambda kv: str(kv[0]))
            ]
        return [call for group, message in answer.messages() for call in _native_calls(group, message)]

    def apply(self, answer: ChatAnswer, review: Review, ledger: ToolLedger) -> None:
        if not review.refused and not review.edited():
            return
        for call, arguments in review.edited():
            self._set_arguments(answer, call, arguments)
        if not review.refused:
            return
        for group in review.groups():
            refused = [(call, text) for call, text in review.refused if call.group == group]
            refused_ids = {call.id for call, _ in refused}
            if answer.chunks is not None:
                self._drop_streamed(answer, group, refused_ids)
            else:
                message = dict(answer.messages())[group]
                message.tool_calls = [c for c in message.tool_calls or () if c.id not in refused_ids] or None
                if LEGACY_ID in refused_ids:
                    message.function_call = None
            anchor = review.anchor(group)
            if anchor is not None:
                ledger.remember_refusals(review.key(anchor), {
                    "calls": [_call_dict(call) for call, _ in refused if call.id != LEGACY_ID],
                    "results": [{"role": "tool", "tool_call_id": call.id, "content": text}
                                for call, text in refused if call.id != LEGACY_ID],
                })

    def _set_arguments(self, answer: ChatAnswer, call: AskedCall, arguments: dict[str, Any]) -> None:
        custom = call.native[2] if isinstance(call.native, tuple) else field(call.native, "custom") is not None
        text = str(arguments.get("input", "")) if custom else json.dumps(arguments)
        if answer.chunks is None:
            target = call.native if call.id == LEGACY_ID else (field(call.native, "custom") if custom
                                                                 else call.native.function)
            _set(target, "input" if custom else "arguments", text)
            return
        parts = answer.streamed_calls(call.group)[call.native[1]]["parts"]
        carriers = [field(p, "function_call") or field(p, "custom") or field(p, "function") for p in parts]
        carriers = [c for c in carriers if c is not None]
        for index, carrier in enumerate(carriers):
            _set(carrier, "input" if custom else "arguments", text if index == 0 else "")

    @staticmethod
    def _drop_streamed(answer: ChatAnswer, group: int, refused_ids: set[str]) -> None:
        calls = answer.streamed_calls(group)
        dropped = {index for index, entry in calls.items() if (entry["id"] or f"index_{index}") in refused_ids}
        numbered = sorted(i for i in calls if isinstance(i, int) and i not in dropped)
        renumber = {old: new for new, old in enumerate(numbered)}
        for delta in answer.deltas(group):
            if LEGACY_ID in dropped and getattr(delta, "function_call", None) is not None:
                delta.function_call = None
            parts = getattr(delta, "tool_calls", None)
            if not parts:
                continue
            kept = [p for p in parts if p.index not in dropped]
            for part in kept:
                part.index = renumber[part.index]
            delta.tool_calls = kept or None

    def exchange(self, answer: ChatAnswer, review: Review) -> list[Any]:
        """The first choice's refused calls and their refusals (a legacy ``function_call`` is answered
        by a ``function`` message)."""
        text = self.text(answer)
        refused = [(call, refusal) for call, refusal in review.refused if call.group == review.refused[0][0].group]
        legacy = [(call, refusal) for call, refusal in refused if call.id == LEGACY_ID]
        if legacy:
            call, refusal = legacy[0]
            return [{"role": "assistant", "content": text or None,
                     "function_call": {"name": call.name, "arguments": json.dumps(call.arguments)}},
                    {"role": "function", "name": call.name, "content": refusal}]
        assistant = {"role": "assistant", "content": text or None,
                     "tool_calls": [_call_dict(call) for call, _ in refused]}
        return [assistant, *({"role": "tool", "tool_call_id": call.id, "content": refusal}
                             for call, refusal in refused)]

    def whole(self, answer: ChatAnswer) -> Any:
        return answer.completion

    def deliver(self, answer: ChatAnswer) -> Any:
        if answer.chunks is not None:
            return replay(answer.stream, answer.chunks, answer.is_async)
        return answer.result


def _ids(message: Any) -> list[Any]:
    """The call ids of an assistant message, in order (the legacy ``function_call`` last)."""
    ids = [field(c, "id") for c in field(message, "tool_calls") or ()]
    return [*ids, LEGACY_ID] if field(message, "function_call") else ids


def _set(item: Any, name: str, value: Any) -> None:
    if isinstance(item, dict):
        item[name] = value
    else:
        setattr(item, name, value)


def _call_dict(call: AskedCall) -> dict[str, Any]:
    native = call.native
    if native is not None and not isinstance(native, tuple) and hasattr(native, "model_dump"):
        dumped = native.model_dump(exclude_none=True)
        return dumped if isinstance(dumped, dict) else {}
    if isinstance(native, tuple) and native[2]:
        return {"id": call.id, "type": "custom", "custom": {"name": call.name, "input": call.arguments.get("input")}}
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
