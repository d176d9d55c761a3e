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
``message`` items); its tool calls are every output item the application runs
or approves (`CALL_ITEMS`: ``function_call``, ``custom_tool_call``,
``local_shell_call``, ``shell_call``, ``apply_patch_call``, ``computer_call``,
``mcp_approval_request``). A refused call comes back to the model as the call
item plus its output item carrying the refusal text, the same ``call_id`` (an
MCP approval request: an ``mcp_approval_response`` with ``approve: false``; a
computer call, whose output is a screenshot, is only removed). A background
response fetched with ``responses.retrieve`` (also streamed, and the
``responses.stream(response_id=...)`` helper) gets the same review.
"""

from __future__ import annotations

import json
from typing import Any

from hookport.adapters._sdk_calls import Dialect, Kwargs
from hookport.adapters._sdk_streams import EventList, replay
from hookport.adapters._sdk_tools import (
    AskedCall,
    CallParts,
    RequestKeys,
    Review,
    ToolLedger,
    _Bounded,
    conversation,
    message_calls,
)
from hookport.adapters._sdk_data import content_text, field, parse_arguments, plain
from hookport.adapters.openai_sdk._common import FRAMEWORK

_TEXT_PARTS = ("input_text", "output_text", "text")

CALL_ITEMS = {
    "function_call": "function_call_output",
    "custom_tool_call": "custom_tool_call_output",
    "local_shell_call": "local_shell_call_output",
    "shell_call": "shell_call_output",
    "apply_patch_call": "apply_patch_call_output",
    "computer_call": "computer_call_output",
    "mcp_approval_request": "mcp_approval_response",
}
"""Every output item that asks the application to run (or approve) a tool, and its answer's type."""
_OUTPUTS = {output: call for call, output in CALL_ITEMS.items()}
_ARGUMENT_FIELDS = {"local_shell_call": ("action",), "shell_call": ("action",), "apply_patch_call": ("operation",),
                    "computer_call": ("action", "actions")}


def item_call(item: Any) -> CallParts | None:
    """(id, name, arguments) of a call item; None for any other item."""
    kind = field(item, "type")
    if kind in ("function_call", "mcp_approval_request"):
        call_id = field(item, "call_id") if kind == "function_call" else field(item, "id")
        return call_id, field(item, "name"), parse_arguments(field(item, "arguments"))
    if kind == "custom_tool_call":
        return field(item, "call_id"), field(item, "name"), {"input": field(item, "input") or ""}
    if kind in _ARGUMENT_FIELDS:
        arguments = {name: plain(field(item, name)) for name in _ARGUMENT_FIELDS[kind]
                     if field(item, name) is not None}
        return field(item, "call_id"), kind.removesuffix("_call"), arguments
    return None


def _output_id(item: Any) -> Any:
    """The call an output item answers."""
    if field(item, "type") == "mcp_approval_response":
        return field(item, "approval_request_id")
    if field(item, "type") == "local_shell_call_output":
        return field(item, "call_id") or field(item, "id")
    return field(item, "call_id")


def _refusal_output(kind: str, call_id: str, text: str) -> dict[str, Any] | None:
    """A refused call's answer in the API's own shape; None where no text answer exists (a computer call)."""
    if kind in ("function_call", "custom_tool_call"):
        return {"type": CALL_ITEMS[kind], "call_id": call_id, "output": text}
    if kind == "local_shell_call":
        return {"type": "local_shell_call_output", "id": call_id, "output": text}
    if kind == "apply_patch_call":
        return {"type": "apply_patch_call_output", "call_id": call_id, "status": "failed", "output": text}
    if kind == "shell_call":
        return {"type": "shell_call_output", "call_id": call_id, "output": [
            {"stdout": "", "stderr": text, "outcome": {"type": "exit", "exit_code": 1}}]}
    if kind == "mcp_approval_request":
        return {"type": "mcp_approval_response", "approval_request_id": call_id, "approve": False, "reason": text}
    return None


def _refusal_items(call: AskedCall, text: str) -> list[Any]:
    """The refused call and its answer, as input items (nothing for a call no text can answer)."""
    kind = field(call.native, "type")
    output = _refusal_output(kind, call.id, text)
    return [] if output is None else [_call_item(call), output]


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

    def __init__(self) -> None:
        self._background: _Bounded[str] = _Bounded()
        """A background response's id -> the conversation of the request that started it."""

    # -- requests ---------------------------------------------------------------------------------------

    def messages(self, kwargs: Kwargs) -> list[dict[str, Any]]:
        return items_to_messages(kwargs)

    def with_messages(self, kwargs: Kwargs, messages: list[dict[str, Any]]) -> Kwargs:
        return messages_to_items(kwargs, messages)

    def calls_of(self, message: dict[str, Any]) -> list[CallParts]:
        if message.get("role") == "item":
            found = item_call(message.get("item"))
            return [found] if found is not None else []
        return message_calls(message)

    def conversation(self, kwargs: Kwargs, messages: list[dict[str, Any]] | None = None) -> str:
        if "response_id" in kwargs:  # a retrieve: the request that started the background response
            return self._background.get(str(kwargs["response_id"])) or conversation([])
        return super().conversation(kwargs, messages)

    def answered(self, kwargs: Kwargs, answer: ResponsesAnswer) -> None:
        response_id = field(answer.response, "id")
        if kwargs.get("background") and isinstance(response_id, str):
            self._background.remember(response_id, conversation(self.messages(kwargs)))

    def results(self, kwargs: Kwargs, keys: RequestKeys) -> list[tuple[str | None, str]]:
        items = kwargs.get("input")
        if isinstance(items, str):
            return []
        found = []
        for item in items or ():
            kind = field(item, "type")
            if kind in CALL_ITEMS:
                keys.call(item_call(item)[0])  # type: ignore[index]
            elif kind in _OUTPUTS:
                found.append((keys.result(_output_id(item)), content_text(field(item, "output"))))
        return found

    def restore(self, kwargs: Kwargs, ledger: ToolLedger, settled: dict[str, str], keys: RequestKeys) -> Kwargs:
        items = kwargs.get("input")
        if isinstance(items, str) or not items:
            return kwargs
        out: list[Any] = []
        changed = False
        for item in items:
            kind = field(item, "type")
            if kind in CALL_ITEMS:
                key = keys.call(item_call(item)[0])  # type: ignore[index]
                prelude = ledger.prelude_for(key) if key else None
                if isinstance(prelude, list):
                    out.extend(prelude)
                    changed = True
                out.append(item)
                refusal = ledger.refusals_for(key) if key else None
                if isinstance(refusal, list):
                    out.extend(refusal)
                    changed = True
                continue
            if kind in _OUTPUTS and (key := keys.result(_output_id(item))) in settled:
                copy = plain(item)
                copy["output"] = settled[key]  # type: ignore[index]
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
        found = []
        for item in field(answer.response, "output") or ():
            parts = item_call(item)
            if parts is not None:
                found.append(AskedCall(parts[0], parts[1], parts[2], native=item))
        return found

    def apply(self, answer: ResponsesAnswer, review: Review, ledger: ToolLedger) -> None:
        for call, arguments in review.edited():
            self._set_arguments(answer, call, json.dumps(arguments))
        if not review.refused:
            return
        refused = {id(call.native) for call, _ in review.refused}
        output = list(field(answer.response, "output") or ())
        dropped = {i for i, item in enumerate(output) if id(item) in refused}
        _set(answer.response, "output", [item for i, item in enumerate(output) if i not in dropped])
        if answer.events is not None:
            answer.events[:] = _without_items(answer.events, dropped)
        anchor = review.anchor()
        if anchor is not None:
            # put back after the surviving call: the refused calls, then their outputs
            pairs = [_refusal_items(call, text) for call, text in review.refused]
            ledger.remember_refusals(review.key(anchor), [*(p[0] for p in pairs if p), *(p[1] for p in pairs if p)])

    def _set_arguments(self, answer: ResponsesAnswer, call: AskedCall, arguments: str) -> None:
        kind = field(call.native, "type")
        if kind != "function_call":
            self._set_other(answer, call, json.loads(arguments))
            return
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

    @staticmethod
    def _set_other(answer: ResponsesAnswer, call: AskedCall, arguments: dict[str, Any]) -> None:
        """Edited arguments of a call item other than a function call, in the item and its stream events."""
        kind = field(call.native, "type")
        targets = [call.native, *(field(e, "item") for e in answer.events or ()
                                  if field(e, "type") == "response.output_item.done"
                                  and field(field(e, "item"), "type") == kind
                                  and item_call(field(e, "item"))[0] == call.id)]  # type: ignore[index]
        for target in targets:
            if kind == "custom_tool_call":
                _set(target, "input", str(arguments.get("input", "")))
            elif kind == "mcp_approval_request":
                _set(target, "arguments", json.dumps(arguments))
            else:
                for name in _ARGUMENT_FIELDS.get(kind, ()):
                    if name in arguments:
                        _set(target, name, arguments[name])

    def exchange(self, answer: ResponsesAnswer, review: Review) -> list[Any]:
        text = self.text(answer)
        items: list[Any] = [{"role": "assistant", "content": text}] if text else []
        pairs = [_refusal_items(call, refusal) for call, refusal in review.refused]
        items.extend(p[0] for p in pairs if p)
        items.extend(p[1] for p in pairs if p)
        return items

    def whole(self, answer: ResponsesAnswer) -> Any:
        return answer.response if answer.events is None else None

    def deliver(self, answer: ResponsesAnswer) -> Any:
        if answer.events is not None:
            return replay(answer.stream, answer.events, answer.is_async)
        return answer.result


def _call_item(call: AskedCall) -> dict[str, Any]:
    if field(call.native, "type") not in (None, "function_call"):
        item = plain(call.native)
        return {k: v for k, v in item.items() if k != "status"} if isinstance(item, dict) else item
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
