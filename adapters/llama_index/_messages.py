"""LlamaIndex ``ChatMessage`` lists <-> the OpenAI-style dicts of `LLMCallHookContext.messages`.

Every message becomes one dict (``role``, ``content``; an assistant message's tool calls as
``tool_calls``, read through the LLM's own ``get_tool_calls_from_response``; a tool message's
``tool_call_id``). `Conversation` remembers which message each dict came from, so after the
PRE_MODEL_CALL hooks it rebuilds only what they changed: an unchanged dict gives back the very
message it came from, an edited one a new message. The agent's memory and scratchpad hold the
original messages, which are never modified, so edits reach the model only.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the framework is imported when a request is made, not with the adapter
    from llama_index.core.base.llms.types import ChatMessage

Dict = dict[str, Any]


def message_text(message: Any) -> str | None:
    try:
        return message.content
    except Exception:  # noqa: BLE001 - a message with blocks only some LLMs understand
        return None


def with_text(message: ChatMessage, text: str) -> ChatMessage:
    """A copy of `message` whose text blocks are one block holding `text` (other blocks stay)."""
    from llama_index.core.base.llms.types import TextBlock

    others = [block for block in getattr(message, "blocks", []) if not isinstance(block, TextBlock)]
    clone = message.model_copy()
    clone.blocks = [TextBlock(text=text), *others]
    return clone


def _tool_calls(message: ChatMessage, llm: Any) -> list[Dict]:
    read = getattr(llm, "get_tool_calls_from_response", None)
    if read is None:
        return []
    from llama_index.core.base.llms.types import ChatResponse

    try:
        calls = read(ChatResponse(message=message), error_on_no_tool_call=False) or []
    except Exception:  # noqa: BLE001 - an LLM that cannot read this message has no calls in it
        return []
    return [
        {"id": call.tool_id, "type": "function",
         "function": {"name": call.tool_name, "arguments": json.dumps(call.tool_kwargs, default=str)}}
        for call in calls
    ]


def _as_dict(message: ChatMessage, llm: Any) -> Dict:
    role = str(getattr(message.role, "value", message.role))
    as_dict: Dict = {"role": role, "content": message_text(message)}
    if role == "assistant":
        calls = _tool_calls(message, llm)
        if calls:
            as_dict["tool_calls"] = calls
    elif role == "tool":
        call_id = message.additional_kwargs.get("tool_call_id")
        if call_id is not None:
            as_dict["tool_call_id"] = call_id
    return as_dict


def _from_dict(as_dict: Dict, origin: ChatMessage | None) -> ChatMessage:
    """A message for an edited or added dict (the origin's extra fields kept when the role is the same)."""
    content = as_dict.get("content")
    text = content if isinstance(content, str) else json.dumps(content, default=str) if content else ""
    role = as_dict.get("role", "user")
    if origin is not None and str(getattr(origin.role, "value", origin.role)) == role:
        return with_text(origin, text)
    from llama_index.core.base.llms.types import ChatMessage

    extra = {"tool_call_id": as_dict["tool_call_id"]} if as_dict.get("tool_call_id") else {}
    return ChatMessage(role=role, content=text, additional_kwargs=extra)


class Conversation:
    """One request's messages as dicts, and the way back."""

    __slots__ = ("messages", "dicts", "originals", "snapshots")

    def __init__(self, messages: list[ChatMessage], llm: Any) -> None:
        self.messages = list(messages)
        self.dicts = [_as_dict(message, llm) for message in self.messages]
        self.originals = list(self.dicts)
        """The dicts as made (hooks may insert into or delete from `dicts` in place)."""
        self.snapshots = copy.deepcopy(self.dicts)

    def rebuilt(self, dicts: list[Dict]) -> list[ChatMessage]:
        """The messages to send for `dicts` (the hooks' list): the originals where nothing changed."""
        if dicts == self.snapshots and all(a is b for a, b in zip(dicts, self.originals)):
            return self.messages
        by_id = {id(d): i for i, d in enumerate(self.originals)}
        out: list[ChatMessage] = []
        for as_dict in dicts:
            index = by_id.get(id(as_dict))
            if index is not None and as_dict == self.snapshots[index]:
                out.append(self.messages[index])
            else:
                out.append(_from_dict(as_dict, self.messages[index] if index is not None else None))
        return out
