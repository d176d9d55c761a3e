"""Anthropic Messages (``messages.create``, ``create(stream=True)``, ``messages.stream()``) as a `Dialect`.

``ctx.messages`` maps the request to the OpenAI-style list every adapter gives:

| Anthropic request | ``ctx.messages`` |
|---|---|
| ``system`` (a string or text blocks) | a first ``{"role": "system"}`` message (written back to ``system``) |
| a message with string content | ``{"role", "content"}`` |
| text blocks | their text, joined, as ``content`` (other blocks, such as images, stay a list of blocks) |
| ``tool_use`` blocks of an assistant message | ``tool_calls`` (``id``, ``function.name``, ``function.arguments`` as JSON) |
| ``tool_result`` blocks of a user message | one ``{"role": "tool", "tool_call_id", "content"}`` message each |

The request is rebuilt from ``ctx.messages`` only when a hook changed them
(``tool`` messages and the user text after them go back into one user message,
``tool_result`` blocks first). The answer's text is its text blocks; its tool
calls are its ``tool_use`` blocks (``ctx.metadata["tool_use"]`` on POST lists
them). A refused call comes back to the model, in later requests, as the
``tool_use`` block in the assistant message that asked for it plus a
``tool_result`` block with ``is_error: true`` and the refusal text.
"""

from __future__ import annotations

import json
from typing import Any

from hookport.adapters._sdk_calls import Dialect, Kwargs
from hookport.adapters._sdk_data import content_text, dumps, field, plain
from hookport.adapters._sdk_streams import EventList, replay
from hookport.adapters._sdk_tools import AskedCall, RequestKeys, Review, ToolLedger

FRAMEWORK = "anthropic"


class MessagesAnswer:
    """A ``Message`` (non-streamed) or the raw events of a buffered stream."""

    __slots__ = ("result", "message", "stream", "events", "is_async")

    def __init__(self, result: Any, message: Any = None, stream: Any = None, events: list[Any] | None = None,
                 is_async: bool = False) -> None:
        self.result = result
        self.message = message
        self.stream = stream
        self.events = events
        self.is_async = is_async

    def streamed_blocks(self) -> dict[int, dict[str, Any]]:
        """index -> {"block": content_block_start's block, "deltas": [delta events]}."""
        blocks: dict[int, dict[str, Any]] = {}
        for event in self.events or ():
            kind = field(event, "type")
            if kind == "content_block_start":
                blocks[field(event, "index")] = {"block": field(event, "content_block"), "deltas": []}
            elif kind == "content_block_delta" and field(event, "index") in blocks:
                blocks[field(event, "index")]["deltas"].append(field(event, "delta"))
        return blocks


def _set(item: Any, name: str, value: Any) -> None:
    if isinstance(item, dict):
        item[name] = value
    else:
        setattr(item, name, value)


# -- request <-> messages ----------------------------------------------------------------------------


def to_messages(kwargs: Kwargs) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    system = kwargs.get("system")
    if isinstance(system, str) or isinstance(system, (list, tuple)):
        messages.append({"role": "system", "content": content_text(system)})
    for message in kwargs.get("messages") or ():
        if type(message) is dict:  # the usual request: dicts read without a call per field
            role, content = message.get("role"), message.get("content")
        else:
            role, content = field(message, "role"), field(message, "content")
        if isinstance(content, str):
            messages.append({"role": role, "content": content})
            continue
        # the blocks are read where they are (SDK objects or dicts); only what ctx.messages keeps as
        # blocks (images, documents...) is copied: this runs on every hooked request
        results, uses, others = _sorted_blocks(content if isinstance(content, (list, tuple)) else plain(content) or [])
        for block in results:
            if type(block) is not dict:
                block = {"tool_use_id": field(block, "tool_use_id"), "content": field(block, "content")}
            messages.append({"role": "tool", "tool_call_id": block.get("tool_use_id"),
                             "content": content_text(block.get("content"))})
        if others or not (results or uses):
            text_only = all(kind == "text" for kind, _ in others)
            messages.append({"role": role, "content": content_text([b for _, b in others]) if text_only
                             else [plain(b) for _, b in others]})
        if uses:
            calls = [_function_call(b) for b in uses]
            if messages and messages[-1]["role"] == "assistant" and "tool_calls" not in messages[-1] and others:
                messages[-1]["tool_calls"] = calls
            else:
                messages.append({"role": role, "content": None, "tool_calls": calls})
    return messages


def _function_call(block: Any) -> dict[str, Any]:
    """A ``tool_use`` block as an OpenAI-style tool call (its input as ``json.dumps``'s text)."""
    if type(block) is dict:
        call_id, name, value = block.get("id"), block.get("name"), block.get("input") or {}
    else:
        call_id, name, value = field(block, "id"), field(block, "name"), field(block, "input") or {}
    try:
        arguments = dumps(value)
    except TypeError:  # SDK objects inside the input: their dumped form
        arguments = dumps(plain(value))
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _sorted_blocks(blocks: list[Any]) -> tuple[list[Any], list[Any], list[tuple[Any, Any]]]:
    """A message's blocks as (tool results, tool uses, (type, block) of the others), each block's
    type read once (this runs on every hooked request)."""
    results, uses, others = [], [], []
    for block in blocks:
        kind = block.get("type") if type(block) is dict else field(block, "type")
        if kind == "tool_result":
            results.append(block)
        elif kind == "tool_use":
            uses.append(block)
        else:
            others.append((kind, block))
    return results, uses, others


def from_messages(kwargs: Kwargs, messages: list[dict[str, Any]]) -> Kwargs:
    sent = dict(kwargs)
    rest = list(messages)
    if rest and rest[0].get("role") == "system":
        sent["system"] = content_text(rest.pop(0).get("content"))
    native: list[dict[str, Any]] = []

    def turn(role: str) -> list[Any]:
        if not native or native[-1]["role"] != role:
            native.append({"role": role, "content": []})
        return native[-1]["content"]  # type: ignore[no-any-return]

    for message in rest:
        role = message.get("role")
        content = message.get("content")
        if role == "tool":
            turn("user").append({"type": "tool_result", "tool_use_id": message.get("tool_call_id"),
                                 "content": content_text(content)})
            continue
        blocks = turn("assistant" if role == "assistant" else "user")
        if isinstance(content, str) and content:
            blocks.append({"type": "text", "text": content})
        elif isinstance(content, list):
            blocks.extend(content)
        for call in message.get("tool_calls") or ():
            function = call.get("function") or {}
            blocks.append({"type": "tool_use", "id": call.get("id"), "name": function.get("name"),
                           "input": json.loads(function.get("arguments") or "{}")})
    sent["messages"] = native
    return sent


# -- the dialect --------------------------------------------------------------------------------------


class Messages(Dialect[MessagesAnswer]):
    api = "messages"
    framework = FRAMEWORK
    whole_field = "content"

    def messages(self, kwargs: Kwargs) -> list[dict[str, Any]]:
        return to_messages(kwargs)

    def with_messages(self, kwargs: Kwargs, messages: list[dict[str, Any]]) -> Kwargs:
        return from_messages(kwargs, messages)

    def results(self, kwargs: Kwargs, keys: RequestKeys) -> list[tuple[str | None, str]]:
        found = []
        for message in kwargs.get("messages") or ():
            content = message.get("content") if type(message) is dict else field(message, "content")
            for block in () if isinstance(content, str) else content or ():
                if type(block) is not dict:
                    block = {name: field(block, name) for name in ("type", "id", "tool_use_id", "content")}
                kind = block.get("type")
                if kind == "tool_use":
                    keys.call(block.get("id"))
                elif kind == "tool_result":
                    found.append((keys.result(block.get("tool_use_id")), content_text(block.get("content"))))
        return found

    def restore(self, kwargs: Kwargs, ledger: ToolLedger, settled: dict[str, str], keys: RequestKeys) -> Kwargs:
        out: list[Any] = []
        changed = False
        owed: list[dict[str, Any]] = []  # refusal results for the next user message
        for message in kwargs.get("messages") or ():
            content = field(message, "content")
            blocks = [] if isinstance(content, str) else [(field(b, "type"), b) for b in content or ()]
            role = field(message, "role")
            if role == "assistant":
                call_keys = [keys.call(field(b, "id")) for kind, b in blocks if kind == "tool_use"]
                prelude = ledger.prelude_for(call_keys[0]) if call_keys and call_keys[0] else None
                if isinstance(prelude, list):
                    out.extend(prelude)
                    changed = True
                refusals = [r for k in call_keys if k and isinstance(r := ledger.refusals_for(k), dict)]
                if refusals:
                    copy = plain(message)
                    copy["content"] = [*copy["content"], *(c for r in refusals for c in r["calls"])]
                    owed = [res for r in refusals for res in r["results"]]
                    out.append(copy)
                    changed = True
                    continue
            result_keys = {field(b, "tool_use_id"): keys.result(field(b, "tool_use_id"))
                           for kind, b in blocks if kind == "tool_result"}
            if role == "user" and (owed or any(k in settled for k in result_keys.values())):
                copy = plain(message)
                new_blocks = [] if isinstance(copy["content"], str) else copy["content"]
                for block in new_blocks:
                    key = result_keys.get(block.get("tool_use_id"))
                    if block.get("type") == "tool_result" and key in settled:
                        block["content"] = settled[key]  # type: ignore[index]
                if isinstance(copy["content"], str):
                    new_blocks = [{"type": "text", "text": copy["content"]}]
                results = [b for b in new_blocks if b.get("type") == "tool_result"]
                copy["content"] = [*results, *owed, *(b for b in new_blocks if b.get("type") != "tool_result")]
                owed = []
                out.append(copy)
                changed = True
                continue
            out.append(message)
        if owed:
            out.append({"role": "user", "content": owed})
        return {**kwargs, "messages": out} if changed else kwargs

    def extend(self, kwargs: Kwargs, exchange: list[Any]) -> Kwargs:
        return {**kwargs, "messages": [*(kwargs.get("messages") or ()), *exchange]}

    # -- answers -------------------------------------------------------------------------------------------

    def answer(self, result: Any, whole: Any = None, stream: Any = None, events: list[Any] | None = None,
               is_async: bool = False) -> MessagesAnswer:
        return MessagesAnswer(result, whole, stream, events, is_async)

    def describe(self, answer: MessagesAnswer, calls: list[AskedCall] | None = None) -> dict[str, Any]:
        """`Dialect.describe`, and ``tool_use``: the same calls as the API's blocks."""
        described = super().describe(answer, calls)
        described["tool_use"] = [{"type": "tool_use", "id": c["id"], "name": c["name"], "input": c["arguments"]}
                                 for c in described["tool_calls"]]
        return described

    def text(self, answer: MessagesAnswer) -> str | None:
        if answer.events is not None:
            return "".join(field(d, "text") or "" for d in self._text_deltas(answer))
        if answer.message is None:
            return None
        return "".join([field(b, "text") or "" for b in _content(answer.message) if field(b, "type") == "text"])

    @staticmethod
    def _text_deltas(answer: MessagesAnswer) -> list[Any]:
        return [d for entry in answer.streamed_blocks().values() for d in entry["deltas"]
                if field(d, "type") == "text_delta"]

    def replace_text(self, answer: MessagesAnswer | None, text: str, kwargs: Kwargs) -> MessagesAnswer:
        if answer is None:
            return _made_answer(text, kwargs)
        if answer.events is not None:
            carriers = self._text_deltas(answer)
        elif answer.message is not None:
            carriers = [b for b in field(answer.message, "content") or () if field(b, "type") == "text"]
        else:
            return answer
        for index, carrier in enumerate(carriers):
            _set(carrier, "text", text if index == 0 else "")
        return answer

    def calls(self, answer: MessagesAnswer) -> list[AskedCall]:
        if answer.events is not None:
            found = []
            for index, entry in sorted(answer.streamed_blocks().items()):
                block = entry["block"]
                if field(block, "type") != "tool_use":
                    continue
                raw = "".join(field(d, "partial_json") or "" for d in entry["deltas"])
                arguments = json.loads(raw) if raw.strip() else dict(field(block, "input") or {})
                found.append(AskedCall(field(block, "id"), field(block, "name"), arguments, native=("stream", index)))
            return found
        found = []
        for b in _content(answer.message):
            if isinstance(b, dict):
                b_type, b_id, b_name, b_input = b.get("type"), b.get("id"), b.get("name"), b.get("input")
            else:  # the SDK's blocks: their attributes read directly
                b_type = getattr(b, "type", None)
                if b_type != "tool_use":
                    continue
                b_id, b_name, b_input = getattr(b, "id", None), getattr(b, "name", None), getattr(b, "input", None)
            if b_type == "tool_use":
                found.append(AskedCall(b_id, b_name, dict(b_input or {}), b))
        return found

    def apply(self, answer: MessagesAnswer, review: Review, ledger: ToolLedger) -> None:
        for call, arguments in review.edited():
            self._set_input(answer, call, arguments)
        if not review.refused:
            return
        refused = {call.id for call, _ in review.refused}
        if answer.events is not None:
            answer.events[:] = _without_blocks(answer, refused)
        else:
            _set(answer.message, "content", [b for b in field(answer.message, "content") or ()
                                             if not (field(b, "type") == "tool_use" and field(b, "id") in refused)])
        anchor = review.anchor()
        if anchor is not None:
            ledger.remember_refusals(review.key(anchor), {
                "calls": [_use_block(call) for call, _ in review.refused],
                "results": [_result_block(call, text) for call, text in review.refused],
            })

    def _set_input(self, answer: MessagesAnswer, call: AskedCall, arguments: dict[str, Any]) -> None:
        if answer.events is None:
            _set(call.native, "input", arguments)
            return
        deltas = [d for d in answer.streamed_blocks()[call.native[1]]["deltas"]
                  if field(d, "type") == "input_json_delta"]
        for index, delta in enumerate(deltas):
            _set(delta, "partial_json", json.dumps(arguments) if index == 0 else "")

    def exchange(self, answer: MessagesAnswer, review: Review) -> list[Any]:
        text = self.text(answer)
        blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        blocks.extend(_use_block(call) for call, _ in review.refused)
        return [{"role": "assistant", "content": blocks},
                {"role": "user", "content": [_result_block(call, text) for call, text in review.refused]}]

    def whole(self, answer: MessagesAnswer) -> Any:
        return answer.message if answer.events is None else None

    def deliver(self, answer: MessagesAnswer) -> Any:
        if answer.events is not None:
            return replay(answer.stream, answer.events, answer.is_async)
        return answer.result


def _content(message: Any) -> Any:
    """A ``Message``'s content blocks (a dict's too)."""
    content = message.get("content") if isinstance(message, dict) else getattr(message, "content", None)
    return content or ()


def _use_block(call: AskedCall) -> dict[str, Any]:
    return {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}


def _result_block(call: AskedCall, text: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call.id, "content": text, "is_error": True}


def _without_blocks(answer: MessagesAnswer, refused: set[str]) -> list[Any]:
    blocks = answer.streamed_blocks()
    dropped = {i for i, entry in blocks.items()
               if field(entry["block"], "type") == "tool_use" and field(entry["block"], "id") in refused}
    renumber = {old: new for new, old in enumerate(i for i in sorted(blocks) if i not in dropped)}
    kept = []
    for event in answer.events or ():
        index = field(event, "index")
        if field(event, "type") in ("content_block_start", "content_block_delta", "content_block_stop"):
            if index in dropped:
                continue
            _set(event, "index", renumber.get(index, index))
        kept.append(event)
    return kept


def _made_answer(text: str, kwargs: Kwargs) -> MessagesAnswer:
    """An answer made from a wrap hook's string, shaped like the SDK's own."""
    from anthropic.types import Message

    message = {"id": "msg_hookport", "type": "message", "role": "assistant", "model": kwargs.get("model") or "hookport",
               "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "stop_sequence": None,
               "usage": {"input_tokens": 0, "output_tokens": 0}}
    if kwargs.get("stream") or kwargs.get("_hookport_stream"):
        from pydantic import TypeAdapter

        from anthropic.types import RawMessageStreamEvent

        adapter = TypeAdapter(RawMessageStreamEvent)
        events = [adapter.validate_python(e) for e in (
            {"type": "message_start", "message": {**message, "content": [], "stop_reason": None}},
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
             "usage": {"output_tokens": 0}},
            {"type": "message_stop"},
        )]
        stream = EventList(events)
        return MessagesAnswer(stream, stream=stream, events=events)
    built = Message.model_validate(message)
    return MessagesAnswer(built, message=built)
