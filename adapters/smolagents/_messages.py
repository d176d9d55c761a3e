"""smolagents ``ChatMessage`` lists <-> the OpenAI-style dicts hooks see as ``ctx.messages``.

A request's messages become one dict per message, with the roles smolagents
itself sends to chat APIs (``tool-call`` -> ``assistant``, ``tool-response`` ->
``user``) and text content. When hooks change the list, a new list goes to the
model: a dict that is still the one hookport made, unchanged, stands for its
original message (images and all); anything else becomes a new ``ChatMessage``.
The agent's memory builds its messages afresh for every request and is never
touched.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from smolagents.models import ChatMessage, MessageRole

from hookport.adapters._sdk_data import content_text, field, parse_arguments

_API_ROLES = {"tool-call": "assistant", "tool-response": "user"}
_NATIVE_ROLES = {"tool": "tool-response"}


def _role(message: Any) -> str:
    role = field(message, "role")
    role = getattr(role, "value", role)
    return _API_ROLES.get(str(role), str(role))


class Conversation:
    """The messages of one model request as dicts, and the way back to native messages."""

    __slots__ = ("native", "dicts", "_snapshots", "_as_dicts")

    def __init__(self, native: list[Any]) -> None:
        self.native = native
        self._as_dicts = any(isinstance(m, dict) for m in native)  # 1.15's memory speaks dicts
        self.dicts = [{"role": _role(m), "content": content_text(field(m, "content"))} for m in native]
        for m, d in zip(native, self.dicts):
            calls = field(m, "tool_calls")
            if calls:
                d["tool_calls"] = [_call_dict(c) for c in calls]
        self._snapshots = [_snapshot(d) for d in self.dicts]

    def messages_for(self, edited: list[dict[str, Any]]) -> list[Any]:
        """The native list for `edited` (the original list itself when nothing changed)."""
        if edited is self.dicts and edited == self._snapshots:
            return self.native
        originals = {id(d): (snap, m) for d, snap, m in zip(self.dicts, self._snapshots, self.native)}
        out: list[Any] = []
        for message in edited:
            known = originals.get(id(message))
            out.append(known[1] if known is not None and message == known[0] else to_native(message, self._as_dicts))
        return out


def _snapshot(message: dict[str, Any]) -> dict[str, Any]:
    """A copy to tell edits by (content is a string: a shallow copy is enough, but for tool calls)."""
    snapshot = dict(message)
    if "tool_calls" in message:
        snapshot["tool_calls"] = copy.deepcopy(message["tool_calls"])
    return snapshot


def _call_dict(call: Any) -> dict[str, Any]:
    function = field(call, "function")
    arguments = field(function, "arguments")
    return {"id": field(call, "id"), "type": "function",
            "function": {"name": field(function, "name"),
                         "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments, default=str)}}


def to_native(message: Any, as_dict: bool = False) -> Any:
    """A hook's dict as a smolagents message: a ``ChatMessage`` (a dict with a ``MessageRole``
    where the request's messages are dicts); text content; unknown roles as user."""
    if not isinstance(message, dict):
        return message
    role = _NATIVE_ROLES.get(str(message.get("role")), str(message.get("role")))
    if role not in MessageRole.roles():
        role = "user"
    content = message.get("content")
    if not isinstance(content, list):
        content = [{"type": "text", "text": content_text(content)}]
    if as_dict:
        return {"role": MessageRole(role), "content": content}
    return ChatMessage(role=MessageRole(role), content=content)


# -- answers -----------------------------------------------------------------------------


def _final_answer_call(message: Any) -> Any:
    calls = field(message, "tool_calls") or []
    if len(calls) == 1 and field(field(calls[0], "function"), "name") == "final_answer":
        return calls[0]
    return None


def answer_text(message: Any) -> str | None:
    """The text of a model answer: its content, or the answer of its ``final_answer`` call
    (how a ToolCallingAgent answers)."""
    if isinstance(message, str) or message is None:
        return message
    content = content_text(field(message, "content"))
    if content:
        return content
    call = _final_answer_call(message)
    if call is None:
        return None
    answer = parse_arguments(field(call, "function").arguments).get("answer")
    return None if answer is None else str(answer)


def with_answer_text(message: Any, text: str, final_answer: bool = False) -> Any:
    """`message` (a ``ChatMessage``) with its text replaced, where `answer_text` read it.

    Without a message (a wrap hook answered instead of the model), the answer is text,
    or, for a request that offered the ``final_answer`` tool (ToolCallingAgent), a call
    of it: the way that agent answers."""
    if message is None or isinstance(message, str):
        if final_answer:
            return ChatMessage(role=MessageRole.ASSISTANT, content=None, tool_calls=[final_answer_call(text)])
        return ChatMessage(role=MessageRole.ASSISTANT, content=text)
    if not content_text(field(message, "content")):
        call = _final_answer_call(message)
        if call is not None:
            arguments = parse_arguments(call.function.arguments)
            arguments["answer"] = text
            call.function.arguments = arguments
            return message
    message.content = text
    return message


def final_answer_call(text: str) -> Any:
    from smolagents import models

    function = getattr(models, "ChatMessageToolCallFunction", None) or models.ChatMessageToolCallDefinition
    return models.ChatMessageToolCall(id="call_hookport_answer", type="function",
                                      function=function(name="final_answer", arguments={"answer": text}))


def offers_final_answer(kwargs: dict[str, Any]) -> bool:
    """True when the request lets the model call ``final_answer`` (a ToolCallingAgent's requests)."""
    tools = kwargs.get("tools_to_call_from") or ()
    return any(getattr(t, "name", None) == "final_answer" for t in tools)


# -- streamed answers ------------------------------------------------------------------------


def joined(deltas: list[Any]) -> Any:
    """The answer a list of stream deltas makes, as smolagents itself joins them."""
    from smolagents import models

    agglomerate = getattr(models, "agglomerate_stream_deltas", None)
    if agglomerate is not None:
        return agglomerate(deltas)
    return ChatMessage(role=MessageRole.ASSISTANT, content="".join(str(d.content or "") for d in deltas))


def as_deltas(message: Any, original: list[Any]) -> list[Any]:
    """`message` (a replaced answer) as the stream deltas the agent joins back into it."""
    from smolagents import models

    usage = next((d.token_usage for d in reversed(original) if getattr(d, "token_usage", None)), None)
    content = message.content if isinstance(message.content, str) else content_text(message.content)
    if not hasattr(models, "ChatMessageToolCallStreamDelta"):  # 1.15: text deltas only
        return [models.ChatMessageStreamDelta(content=content)]
    calls = [
        models.ChatMessageToolCallStreamDelta(
            index=index, id=call.id, type=call.type,
            function=models.ChatMessageToolCallFunction(
                name=call.function.name,
                arguments=call.function.arguments if isinstance(call.function.arguments, str)
                else json.dumps(call.function.arguments, default=str)))
        for index, call in enumerate(message.tool_calls or [])
    ]
    return [models.ChatMessageStreamDelta(content=content or None, tool_calls=calls or None, token_usage=usage)]
