"""The Responses API (``responses.create`` / ``parse``, also behind ``responses.stream()``) as a `Dialect`.

``ctx.messages`` maps the request to the OpenAI-style list every adapter gives:

| Responses request | ``ctx.messages`` |
|---|---|
| ``instructions`` | a first ``{"role": "system"}`` message (written back to ``instructions``) |
| ``input`` as a string | one ``{"role": "user"}`` message |
| a message item (``role`` + ``content``) | ``{"role", "content"}``; text parts are joined into a string |
| consecutive ``function_call`` items | one assistant message with ``tool_calls`` (``id`` = the ``call_id``) |
| a ``function_call_output`` item | ``{"role": "tool", "tool_call_id", "content"}`` |
| any other item (reasoning, ...) | ``{"role": "item", "content": None, "item": <the item>}``, sent back unchanged |

The request is rebuilt from ``ctx.messages`` only when a hook changed them.
The answer's text is its ``output_text`` (the ``output_text`` parts of its
``message`` items); its tool calls are its ``function_call`` items. A refused
call comes back to the model as the ``function_call`` item plus a
``function_call_output`` item carrying the refusal text, the same ``call_id``.
"""

from __future__ import annotations

import json
from typing import Any

from hookport.adapters._sdk_calls import Dialect, Kwargs
from hookport.adapters._sdk_streams import EventList, replay
from hookport.adapters._sdk_tools import AskedCall, Review, ToolLedger
from hookport.adapters._sdk_data import content_text, field, parse_arguments, plain
from hookport.adapters.openai_sdk._common import FRAMEWORK

_TEXT_PARTS = ("input_text", "output_text", "text")


class ResponsesAnswer:
    """What one Responses request returned: the ``Response`` (for a buffered stream, the one
    its ``response.completed`` event carries) and the stream's events."""

    __slots__ = ("result", "response", "stream", "events", "is_async")

    def __init__(self, result: Any, response: Any = None, stream: Any = None, events: list[Any] | None = None,
                 is_async: bool = False) -> None:
        self.result = result
        self.response = response
        self.stream = stream
        self.events = events
        self.is_async = is_async


# -- input items <-> messages ------------------------------------------------------------------------


def items_to_messages(kwargs: Kwargs) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    instructions = kwargs.get("instructions")
    if isinstance(instructions, str):
        messages.append({"role": "system", "content": instructions})
    items = kwargs.get("input")
    if isinstance(items, str):
        messages.append({"role": "user", "content": items})
        return messages
    for item in items or ():
        kind = field(item, "type")
        if kind == "function_call":
            call = {"id": field(item, "call_id"), "type": "function",
                    "function": {"name": field(item, "name"), "arguments": field(item, "arguments") or "{}"}}
            last = messages[-1] if messages else None
            if last is not None and last.get("role") == "assistant" and "tool_calls" in last:
                last["tool_calls"].append(call)
            else:
                messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif kind == "function_call_output":
            messages.append({"role": "tool", "tool_call_id": field(item, "call_id"),
                             "content": content_text(field(item, "output"))})
        elif field(item, "role") is not None and kind in (None, "message"):
            content = field(item, "content")
            if not isinstance(content, str):
                parts = plain(content) or []
                content = (content_text(parts) if all(field(p, "type") in _TEXT_PARTS for p in parts) else parts)
            messages.append({"role": field(item, "role"), "content": content})
        else:
            messages.append({"role": "item", "content": None, "item": plain(item)})
    return messages


def messages_to_items(kwargs: Kwargs, messages: list[dict[str, Any]]) -> Kwargs:
    sent = dict(kwargs)
    rest = list(messages)
    if isinstance(kwargs.get("instructions"), str) and rest and rest[0].get("role") == "system":
        sent["instructions"] = content_text(rest.pop(0).get("content"))
    items: list[Any] = []
    for message in rest:
        role = message.get("role")
        if role == "item":
            items.append(message.get("item"))
        elif role == "tool":
            items.append({"type": "function_call_output", "call_id": message.get("tool_call_id"),
                          "output": content_text(message.get("content"))})
        else:
            if message.get("content") not in (None, "", []):
                items.append({"role": role, "content": message.get("content")})
            for call in message.get("tool_calls") or ():
                function = call.get("function") or {}
                items.append({"type": "function_call", "call_id": call.get("id"), "name": function.get("name"),
                              "arguments": function.get("arguments") or "{}"})
    sent["input"] = items
    return sent


# -- text and calls of a Response --------------------------------------------------------------------


def _text_parts(response: Any) -> list[Any]:
    return [
        part
        for item in field(response, "output") or ()
        if field(item, "type") == "message"
        for part in field(item, "content") or ()
        if field(part, "type") == "output_text"
    ]


def _set(item: Any, name: str, value: Any) -> None:
    if isinstance(item, dict):
        item[name] = value
    else:
        setattr(item, name, value)


def _set_texts(parts: list[Any], text: str) -> None:
    for index, part in enumerate(parts):
        _set(part, "text", text if index == 0 else "")


class Responses(Dialect[ResponsesAnswer]):
    api = "responses"
    framework = FRAMEWORK
    whole_field = "output"

    # -- requests ---------------------------------------------------------------------------------------

    def messages(self, kwargs: Kwargs) -> list[dict[str, Any]]:
        return items_to_messages(kwargs)

    def with_messages(self, kwargs: Kwargs, messages: list[dict[str, Any]]) -> Kwargs:
        return messages_to_items(kwargs, messages)

    def results(self, kwargs: Kwargs) -> list[tuple[str, str]]:
        items = kwargs.get("input")
        if isinstance(items, str):
            return []
        return [(field(i, "call_id"), content_text(field(i, "output")))
                for i in items or () if field(i, "type") == "function_call_output"]

    def restore(self, kwargs: Kwargs, ledger: ToolLedger, settled: dict[str, str]) -> Kwargs:
        items = kwargs.get("input")
        if isinstance(items, str) or not items:
            return kwargs
        out: list[Any] = []
        changed = False
        for item in items:
            kind = field(item, "type")
            if kind == "function_call":
                call_id = field(item, "call_id")
                prelude = ledger.prelude_for(call_id)
                if prelude:
                    out.extend(prelude)
                    changed = True
                out.append(item)
                refusal = ledger.refusals_for(call_id)
                if refusal:
                    out.extend(refusal)
                    changed = True
                continue
            if kind == "function_call_output" and field(item, "call_id") in settled:
                copy = plain(item)
                copy["output"] = settled[field(item, "call_id")]
                out.append(copy)
                changed = True
                continue
            out.append(item)
        return {**kwargs, "input": out} if changed else kwargs

    def extend(self, kwargs: Kwargs, exchange: list[Any]) -> Kwargs:
        items = kwargs.get("input")
        if isinstance(items, str):
            items = [{"role": "user", "content": items}]
        return {**kwargs, "input": [*(items or ()), *exchange]}

    # -- answers ---------------------------------------------------------------------------------------------

    def answer(self, result: Any, whole: Any = None, stream: Any = None, events: list[Any] | None = None,
               is_async: bool = False) -> ResponsesAnswer:
        response = _completed(events) if events is not None else whole
        return ResponsesAnswer(result, response=response, stream=stream, events=events, is_async=is_async)

    def text(self, answer: ResponsesAnswer) -> str | None:
        if answer.response is None:
            return None
        return "".join(field(part, "text") or "" for part in _text_parts(answer.response))

    def replace_text(self, answer: ResponsesAnswer | None, text: str, kwargs: Kwargs) -> ResponsesAnswer:
        if answer is None:
            return _made_answer(text, kwargs)
        if answer.response is None:
            return answer
        parts = _text_parts(answer.response)
        if parts:
            _set_texts(parts, text)
        for event in answer.events or ():
            kind = field(event, "type")
            if kind == "response.output_text.delta":
                _set(event, "delta", "")
            elif kind == "response.output_text.done":
                _set(event, "text", text)
            elif kind == "response.content_part.done" and field(field(event, "part"), "type") == "output_text":
                _set(field(event, "part"), "text", text)
            elif kind == "response.output_item.done":
                _set_texts([p for p in field(field(event, "item"), "content") or ()
                            if field(p, "type") == "output_text"], text)
        first_delta = next((e for e in answer.events or () if field(e, "type") == "response.output_text.delta"), None)
        if first_delta is not None:
            _set(first_delta, "delta", text)
        return answer

    def calls(self, answer: ResponsesAnswer) -> list[AskedCall]:
        return [
            AskedCall(field(item, "call_id"), field(item, "name"), parse_arguments(field(item, "arguments")),
                      native=item)
            for item in field(answer.response, "output") or ()
            if field(item, "type") == "function_call"
        ]

    def apply(self, answer: ResponsesAnswer, review: Review, ledger: ToolLedger) -> None:
        for call, arguments in review.edited():
            self._set_arguments(answer, call, json.dumps(arguments))
        if not review.refused:
            return
        refused = {call.id for call, _ in review.refused}
        output = list(field(answer.response, "output") or ())
        dropped = {i for i, item in enumerate(output)
                   if field(item, "type") == "function_call" and field(item, "call_id") in refused}
        _set(answer.response, "output", [item for i, item in enumerate(output) if i not in dropped])
        if answer.events is not None:
            answer.events[:] = _without_items(answer.events, dropped)
        if review.allowed:
            # put back after the surviving call: the refused calls, then their outputs
            ledger.remember_refusals(review.allowed[0][0].id, [
                *(_call_item(call) for call, _ in review.refused),
                *({"type": "function_call_output", "call_id": call.id, "output": text}
                  for call, text in review.refused),
            ])

    def _set_arguments(self, answer: ResponsesAnswer, call: AskedCall, arguments: str) -> None:
        _set(call.native, "arguments", arguments)
        item_id = field(call.native, "id")
        first = True
        for event in answer.events or ():
            kind = field(event, "type")
            if kind == "response.function_call_arguments.delta" and field(event, "item_id") == item_id:
                _set(event, "delta", arguments if first else "")
                first = False
            elif kind == "response.function_call_arguments.done" and field(event, "item_id") == item_id:
                _set(event, "arguments", arguments)
            elif kind in ("response.output_item.done",) and field(field(event, "item"), "call_id") == call.id:
                _set(field(event, "item"), "arguments", arguments)

    def exchange(self, answer: ResponsesAnswer, review: Review) -> list[Any]:
        text = self.text(answer)
        items: list[Any] = [{"role": "assistant", "content": text}] if text else []
        items.extend(_call_item(call) for call, _ in review.refused)
        items.extend({"type": "function_call_output", "call_id": call.id, "output": refusal}
                     for call, refusal in review.refused)
        return items

    def deliver(self, answer: ResponsesAnswer) -> Any:
        if answer.events is not None:
            return replay(answer.stream, answer.events, answer.is_async)
        return answer.result


def _call_item(call: AskedCall) -> dict[str, Any]:
    return {"type": "function_call", "call_id": call.id, "name": call.name,
            "arguments": field(call.native, "arguments") or json.dumps(call.arguments)}


def _completed(events: list[Any] | None) -> Any:
    for event in reversed(events or ()):
        if field(event, "type") in ("response.completed", "response.incomplete", "response.failed"):
            return field(event, "response")
    return None


def _without_items(events: list[Any], dropped: set[int]) -> list[Any]:
    """The stream's events without those of the `dropped` output items, the others renumbered."""
    if not dropped:
        return events
    total = max([field(e, "output_index") for e in events if field(e, "output_index") is not None] or [-1]) + 1
    renumber = {old: new for new, old in enumerate(i for i in range(total) if i not in dropped)}
    kept = []
    for event in events:
        index = field(event, "output_index")
        if index is None:
            kept.append(event)
        elif index not in dropped:
            _set(event, "output_index", renumber[index])
            kept.append(event)
    return kept


def _made_answer(text: str, kwargs: Kwargs) -> ResponsesAnswer:
    from openai.types.responses import Response

    response = Response.model_validate({
        "id": "resp_hookport", "object": "response", "created_at": 0, "model": kwargs.get("model") or "hookport",
        "status": "completed", "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
        "output": [{"type": "message", "id": "msg_hookport", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}]}],
    })
    if kwargs.get("stream"):
        from openai.types.responses import ResponseCompletedEvent

        event = ResponseCompletedEvent.model_validate(
            {"type": "response.completed", "sequence_number": 0, "response": response.model_dump()})
        stream = EventList([event])
        return ResponsesAnswer(stream, response=event.response, stream=stream, events=[event])
    return ResponsesAnswer(response, response=response)
