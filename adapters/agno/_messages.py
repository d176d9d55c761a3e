"""Agno ``Message`` lists <-> the OpenAI-style dicts hooks see as ``ctx.messages``.

A hook edits a list of plain dicts; `Conversation.rebuilt` turns the edited list into
the list of ``Message`` objects sent to the model: a dict that is unchanged gives back
the original object (images, metrics and all), an edited one a copy of its original
with the edit, a new one a new ``Message``. The run's own list and its messages are
never touched, so Agno's run messages and session keep what the model really said.
"""

from __future__ import annotations

import copy
import json
from typing import Any


def _copied_calls(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tool calls (dicts of plain values and one ``function`` dict), copied without deepcopy's cost."""
    return [{key: dict(value) if isinstance(value, dict) else copy.copy(value) for key, value in call.items()}
            for call in calls]


def message_dict(message: Any, shared: bool = False) -> dict[str, Any]:
    """One Agno ``Message`` as an OpenAI-style chat message (`shared`: its tool calls not copied)."""
    content = message.content
    if content is not None and not isinstance(content, str):
        content = message.get_content_string()
    entry: dict[str, Any] = {"role": message.role, "content": content if content is not None else ""}
    if message.tool_calls:
        entry["tool_calls"] = message.tool_calls if shared else _copied_calls(message.tool_calls)
    if message.role == "tool" and message.tool_call_id is not None:
        entry["tool_call_id"] = message.tool_call_id
    if message.name:
        entry["name"] = message.name
    return entry


def _updates(entry: dict[str, Any]) -> dict[str, Any]:
    return {"role": entry.get("role", "user"), "content": entry.get("content"),
            "tool_calls": entry.get("tool_calls") or None, "tool_call_id": entry.get("tool_call_id"),
            "name": entry.get("name")}


class Conversation:
    """The messages of one model request, and their dict form for the hooks."""

    __slots__ = ("messages", "dicts", "_originals")

    def __init__(self, messages: list[Any]) -> None:
        self.messages = messages
        self._originals = [message_dict(m, shared=True) for m in messages]  # hooks edit copies only
        self.dicts = [{**d, "tool_calls": _copied_calls(d["tool_calls"])} if "tool_calls" in d else dict(d)
                      for d in self._originals]

    def rebuilt(self, dicts: list[dict[str, Any]]) -> list[Any]:
        """The messages to send for `dicts` (the run's own list when nothing changed)."""
        if dicts == self._originals:
            return self.messages
        from agno.models.message import Message

        unused = list(range(len(self.messages)))
        out: list[Any] = []
        for index, entry in enumerate(dicts):
            if not isinstance(entry, dict):
                raise TypeError(f"ctx.messages must hold dicts, not {type(entry).__name__}")
            same = index if index in unused and self._originals[index] == entry else \
                next((i for i in unused if self._originals[i] == entry), None)
            if same is not None:
                unused.remove(same)
                out.append(self.messages[same])
            elif index < len(self.messages) and self._originals[index].get("role") == entry.get("role"):
                out.append(self.messages[index].model_copy(update=_updates(entry)))
            else:
                out.append(Message(**{k: v for k, v in _updates(entry).items() if v is not None}))
        return out


def response_text(response: Any) -> str | None:
    """The text of a ``ModelResponse`` (None when it only asks for tools)."""
    content = getattr(response, "content", None)
    if content is None or isinstance(content, str):
        return content
    try:
        return json.dumps(content, default=str)
    except (TypeError, ValueError):
        return str(content)
