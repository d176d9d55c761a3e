"""Strands (Bedrock Converse) messages <-> the OpenAI-style dicts hooks see, and back.

A model request (``stream_messages(model, system_prompt, messages, ...)``) becomes a list of dicts:

- the system prompt -> ``{"role": "system", "content": ...}`` first;
- a ``user`` message -> ``{"role": "user", "content": text}`` for its text blocks, and one
  ``{"role": "tool", "tool_call_id", "name", "content"}`` per ``toolResult`` block;
- an ``assistant`` message -> ``{"role": "assistant", "content": text or None, "tool_calls": [...]}``
  (``toolUse`` blocks as OpenAI tool calls, ``input`` as a JSON string).

After PRE_MODEL_CALL the dicts become Strands messages again: an untouched dict gives back
the blocks it came from (images, documents, reasoning and cache points survive), an
edited or new one is built from its fields; neighbours of one role are joined into one
message, as Bedrock wants. The request gets new message dicts; ``agent.messages`` is never
changed.
"""

from __future__ import annotations

import json
from typing import Any

from hookport.adapters._sdk_data import content_text as as_text
from hookport.adapters._sdk_data import parse_arguments

Message = dict[str, Any]
Block = dict[str, Any]


class MessageView:
    """The dicts of one request, with the Strands blocks each came from."""

    __slots__ = ("messages", "_origins")

    def __init__(self, messages: list[Message], system_prompt: str | None) -> None:
        self.messages: list[Message] = []
        self._origins: dict[int, tuple[Message, str, list[Block]]] = {}
        if system_prompt is not None:
            self._keep({"role": "system", "content": system_prompt}, "system", [])
        names: dict[str, str] = {}
        for message in messages:
            role = message.get("role", "user")
            blocks = list(message.get("content") or ())
            if role == "assistant":
                for block in blocks:
                    if "toolUse" in block:
                        names[str(block["toolUse"].get("toolUseId"))] = block["toolUse"].get("name", "")
                self._keep(_assistant(blocks), role, blocks)
                continue
            others = [b for b in blocks if "toolResult" not in b]
            for block in blocks:
                if "toolResult" in block:
                    result = block["toolResult"]
                    call_id = str(result.get("toolUseId"))
                    self._keep({"role": "tool", "tool_call_id": call_id, "name": names.get(call_id),
                                "content": result_text(result)}, role, [block])
            if others or not blocks:
                self._keep({"role": "user", "content": blocks_text(others)}, role, others)

    def _keep(self, message: Message, role: str, blocks: list[Block]) -> None:
        self._origins[id(message)] = (_copy(message), role, blocks)
        self.messages.append(message)

    @property
    def dicts(self) -> list[Message]:
        """The dicts as made (`LazyView` hands hooks a copy of this list)."""
        return self.messages

    def changed(self) -> bool:
        """True when a hook edited, added, removed or reordered a message."""
        if len(self.messages) != len(self._origins):
            return True
        return any(self._origins.get(id(m), (None,))[0] != m for m in self.messages)

    def system_prompt(self) -> str | None:
        texts = [as_text(m.get("content")) for m in self.messages if m.get("role") == "system"]
        return "\n\n".join(texts) if texts else None

    def to_strands(self) -> list[Message]:
        """The edited dicts as Strands messages (the system prompt is left out: see `system_prompt`)."""
        out: list[Message] = []
        for message in self.messages:
            origin = self._origins.get(id(message))
            if origin is not None and origin[0] == message:
                role, blocks = origin[1], list(origin[2])
            else:
                role, blocks = _blocks_of(message)
            if role == "system":
                continue
            if out and out[-1]["role"] == role:
                out[-1]["content"].extend(blocks)
            else:
                out.append({"role": role, "content": blocks})
        return out


def _copy(message: Message) -> Message:
    """A copy deep enough for these dicts (tool calls one level down)."""
    calls = message.get("tool_calls")
    if calls is None:
        return dict(message)
    return {**message, "tool_calls": [{**c, "function": dict(c["function"])} for c in calls]}


def _assistant(blocks: list[Block]) -> Message:
    message: Message = {"role": "assistant", "content": blocks_text(blocks)}
    uses = [b["toolUse"] for b in blocks if "toolUse" in b]
    if uses:
        message["tool_calls"] = [
            {"id": u.get("toolUseId"), "type": "function",
             "function": {"name": u.get("name"), "arguments": as_json(u.get("input") or {})}}
            for u in uses
        ]
    return message


def blocks_text(blocks: list[Block]) -> str | None:
    """The text blocks of a message, joined; None when it has none."""
    texts = [b["text"] for b in blocks if isinstance(b.get("text"), str)]
    return "".join(texts) if texts else None


def result_text(result: dict[str, Any]) -> str:
    """A ``toolResult``'s content (text and json blocks) as one string."""
    parts: list[str] = []
    for block in result.get("content") or ():
        if "text" in block:
            parts.append(str(block["text"]))
        elif "json" in block:
            parts.append(as_json(block["json"]))
    return "".join(parts)


def _blocks_of(message: Message) -> tuple[str, list[Block]]:
    """A dict a hook wrote, as (Strands role, content blocks)."""
    role = message.get("role")
    if role == "system":
        return "system", []
    if role == "tool":
        content = as_text(message.get("content"))
        return "user", [{"toolResult": {"toolUseId": str(message.get("tool_call_id")),
                                        "status": message.get("status", "success"),
                                        "content": [{"text": content}]}}]
    blocks: list[Block] = []
    if message.get("content") is not None:
        blocks.append({"text": as_text(message.get("content"))})
    if role == "assistant":
        for call in message.get("tool_calls") or ():
            function = call.get("function", {})
            blocks.append({"toolUse": {"toolUseId": str(call.get("id")), "name": function.get("name"),
                                       "input": parse_arguments(function.get("arguments"))}})
        return "assistant", blocks
    return "user", blocks


def as_json(value: Any) -> str:
    try:
        return json.dumps(value, default=str)
    except (TypeError, ValueError):
        return str(value)


def message_with_text(message: Message, text: str) -> Message:
    """A copy of an assistant message whose text is `text` (its other blocks kept, text first)."""
    others = [b for b in message.get("content") or () if "text" not in b]
    return {**message, "content": [{"text": text}, *others]}
