"""Gemini ``Content`` / ``Part`` <-> the OpenAI-style dicts hooks see, and back.

One request (``LlmRequest``) becomes a list of dicts:

- ``config.system_instruction`` -> ``{"role": "system", "content": ...}`` first;
- a ``user`` Content with text -> ``{"role": "user", "content": text}``;
- a ``model`` Content -> ``{"role": "assistant", "content": text or None, "tool_calls": [...]}``
  (``function_call`` parts as OpenAI tool calls, arguments as a JSON string);
- each ``function_response`` part -> ``{"role": "tool", "tool_call_id", "name", "content"}``.

After PRE_MODEL_CALL the dicts are turned back into Contents: an untouched dict gives
back the parts it came from (images, thoughts and other parts a dict cannot show
survive), an edited or new one is built from its fields. The request gets new
Content objects; the ones in ADK's session are never changed.
"""

from __future__ import annotations

import json
from typing import Any

from google.genai import types

Message = dict[str, Any]


class MessageView:
    """The dicts of one request, with the parts each came from."""

    __slots__ = ("messages", "_origins")

    def __init__(self, contents: list[types.Content], system: Any) -> None:
        self.messages: list[Message] = []
        self._origins: dict[int, tuple[Message, str, list[types.Part]]] = {}
        text = system_text(system)
        if text is not None:
            self._add({"role": "system", "content": text}, "system", [])
        for content in contents:
            for message, role, parts in _messages_of(content):
                self._add(message, role, parts)

    def _add(self, message: Message, role: str, parts: list[types.Part]) -> None:
        self._origins[id(message)] = (_snapshot(message), role, parts)
        self.messages.append(message)

    @property
    def dicts(self) -> list[Message]:
        """The dicts as made (`LazyView` hands hooks a copy of this list)."""
        return self.messages

    def changed(self) -> bool:
        """True when a hook edited, added, removed or reordered a message."""
        if len(self.messages) != len(self._origins):
            return True
        for message in self.messages:
            origin = self._origins.get(id(message))
            if origin is None or origin[0] != message:
                return True
        return False

    def to_request(self) -> tuple[list[types.Content], str | None]:
        """The edited messages as (contents, system instruction text)."""
        system: list[str] = []
        contents: list[types.Content] = []
        for message in self.messages:
            origin = self._origins.get(id(message))
            if origin is not None and origin[0] == message and origin[1] != "system":
                role, parts = origin[1], [p.model_copy(deep=True) for p in origin[2]]
            elif message.get("role") == "system":
                system.append(_text(message.get("content")))
                continue
            else:
                role, parts = _parts_of(message)
            if contents and contents[-1].role == role and _joinable(contents[-1], parts):
                contents[-1].parts = [*(contents[-1].parts or []), *parts]
            else:
                contents.append(types.Content(role=role, parts=parts))
        return contents, ("\n\n".join(system) if system else None)


def _snapshot(message: Message) -> Message:
    """A copy deep enough for the dicts built here (strings, and tool calls one level down);
    `copy.deepcopy` would cost more than the rest of the conversion."""
    calls = message.get("tool_calls")
    if calls is None:
        return dict(message)
    return {**message, "tool_calls": [{**call, "function": dict(call["function"])} for call in calls]}


def _joinable(previous: types.Content, parts: list[types.Part]) -> bool:
    """Function responses of one turn go back into one Content (parallel calls)."""
    return all(p.function_response is not None for p in [*(previous.parts or []), *parts])


def system_text(system: Any) -> str | None:
    """``GenerateContentConfig.system_instruction`` (a string, a Content or parts) as text."""
    if system is None:
        return None
    if isinstance(system, str):
        return system
    if isinstance(system, types.Content):
        return content_text(system)
    if isinstance(system, types.Part):
        return system.text
    if isinstance(system, list):
        return "\n".join(t for t in (system_text(s) for s in system) if t)
    return str(system)


def content_text(content: types.Content | None) -> str | None:
    """The text parts of a Content, joined (thoughts left out); None when it has none."""
    if content is None or not content.parts:
        return None
    texts = [p.text for p in content.parts if p.text is not None and not p.thought]
    return "".join(texts) if texts else None


def _messages_of(content: types.Content) -> list[tuple[Message, str, list[types.Part]]]:
    parts = list(content.parts or [])
    role = content.role or "user"
    if role == "model":
        return [(_assistant(parts), role, parts)]
    responses = [p for p in parts if p.function_response is not None]
    others = [p for p in parts if p.function_response is None]
    out: list[tuple[Message, str, list[types.Part]]] = []
    if others:
        out.append(({"role": "user", "content": _joined(others)}, role, others))
    for part in responses:
        response = part.function_response
        out.append(({"role": "tool", "tool_call_id": response.id, "name": response.name,
                     "content": _json(response.response)}, role, [part]))
    return out


def _assistant(parts: list[types.Part]) -> Message:
    message: Message = {"role": "assistant", "content": _joined(parts)}
    calls = [p.function_call for p in parts if p.function_call is not None]
    if calls:
        message["tool_calls"] = [
            {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": _json(call.args or {})}}
            for call in calls
        ]
    return message


def _joined(parts: list[types.Part]) -> str | None:
    texts = [p.text for p in parts if p.text is not None and not p.thought]
    return "".join(texts) if texts else None


def _parts_of(message: Message) -> tuple[str, list[types.Part]]:
    """A dict a hook wrote, as (Content role, parts)."""
    role = message.get("role")
    if role == "tool":
        response = _loaded(message.get("content"))
        return "user", [types.Part(function_response=types.FunctionResponse(
            id=message.get("tool_call_id"), name=message.get("name"),
            response=response if isinstance(response, dict) else {"result": response},
        ))]
    parts: list[types.Part] = []
    text = message.get("content")
    if text is not None:
        parts.append(types.Part(text=_text(text)))
    if role == "assistant":
        for call in message.get("tool_calls") or ():
            function = call.get("function", {})
            args = _loaded(function.get("arguments"))
            parts.append(types.Part(function_call=types.FunctionCall(
                id=call.get("id"), name=function.get("name"), args=args if isinstance(args, dict) else {},
            )))
        return "model", parts
    return "user", parts


def _text(content: Any) -> str:
    """OpenAI content (a string or a list of ``{"type": "text", "text": ...}`` blocks) as text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)
    return "" if content is None else str(content)


def _json(value: Any) -> str:
    try:
        return json.dumps(value, default=str)
    except (TypeError, ValueError):
        return str(value)


def _loaded(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value
