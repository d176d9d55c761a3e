"""Agent Framework ``Message`` / ``Content`` <-> the OpenAI-style dicts of ``ctx.messages``.

A request's messages become one dict per message (a ``tool`` message with several
function results becomes one dict per result). Going back, a dict that no hook
changed gives back the framework's own ``Message`` object; an edited or new dict
becomes a new ``Message``, so the framework's session and history objects never
see an edit.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any


def _result_text(result: Any) -> str:
    if isinstance(result, str):
        return result
    if isinstance(result, list):
        return "".join(_result_text(item) for item in result)
    text = getattr(result, "text", None)
    if isinstance(text, str):
        return text
    inner = getattr(result, "result", None)
    if inner is not None and inner is not result:
        return _result_text(inner)
    return "" if result is None else str(result)


def _arguments_json(arguments: Any) -> str:
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments if arguments is not None else {}, default=str)


def message_dicts(message: Any) -> list[dict[str, Any]]:
    """One framework ``Message`` as OpenAI-style dicts."""
    role = str(getattr(message.role, "value", message.role))
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    for content in message.contents or ():
        kind = getattr(content, "type", None)
        if kind == "text":
            texts.append(content.text or "")
        elif kind == "function_call":
            calls.append({"id": content.call_id, "type": "function",
                          "function": {"name": content.name, "arguments": _arguments_json(content.arguments)}})
        elif kind == "function_result":
            results.append({"role": "tool", "tool_call_id": content.call_id, "content": _result_text(content.result)})
    if results:
        return results
    entry: dict[str, Any] = {"role": role, "content": "".join(texts) if texts or not calls else None}
    if calls:
        entry["tool_calls"] = calls
    return [entry]


class MessageView:
    """The dicts a hook sees for one request, and the way back to framework messages."""

    __slots__ = ("dicts", "_sources")

    def __init__(self, messages: Sequence[Any]) -> None:
        self.dicts: list[dict[str, Any]] = []
        self._sources: dict[int, tuple[dict[str, Any], Any]] = {}
        for message in messages:
            for entry in message_dicts(message):
                self.dicts.append(entry)
                self._sources[id(entry)] = (_snapshot(entry), message)

    def changed(self, dicts: list[dict[str, Any]]) -> bool:
        if len(dicts) != len(self._sources):
            return True
        return any(id(d) not in self._sources or d != self._sources[id(d)][0] for d in dicts)

    def to_messages(self, dicts: list[dict[str, Any]]) -> list[Any]:
        """Framework messages for `dicts`: untouched ones are the originals, others are new."""
        out: list[Any] = []
        for entry in dicts:
            source = self._sources.get(id(entry))
            if source is not None and entry == source[0]:
                if not out or out[-1] is not source[1]:
                    out.append(source[1])
                continue
            out.append(message_from_dict(entry))
        return out


def _snapshot(entry: dict[str, Any]) -> dict[str, Any]:
    """A copy of one of our own dicts deep enough to see any edit (their values are str, None or
    the ``tool_calls`` list); much cheaper than ``copy.deepcopy``."""
    copied = dict(entry)
    calls = entry.get("tool_calls")
    if calls is not None:
        copied["tool_calls"] = [{**call, "function": dict(call["function"])} for call in calls]
    return copied


def message_from_dict(entry: dict[str, Any]) -> Any:
    """A new framework ``Message`` from an OpenAI-style dict."""
    from agent_framework import Content, Message

    role = entry.get("role", "user")
    if role == "tool":
        return Message(role="tool", contents=[Content.from_function_result(
            call_id=entry.get("tool_call_id") or "", result=_content_text(entry.get("content")))])
    contents = []
    text = _content_text(entry.get("content"))
    if text:
        contents.append(Content.from_text(text))
    for call in entry.get("tool_calls") or ():
        function = call.get("function", {})
        contents.append(Content.from_function_call(call_id=call.get("id") or "", name=function.get("name", ""),
                                                   arguments=function.get("arguments") or "{}"))
    if not contents:
        contents.append(Content.from_text(""))
    return Message(role=role, contents=contents)


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # OpenAI content parts
        return "".join(str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in content)
    return str(content)


# -- answers ---------------------------------------------------------------------------------


def response_text(response: Any) -> str | None:
    """The text of a ``ChatResponse`` / ``AgentResponse`` (None when it has only tool calls)."""
    if response is None or isinstance(response, str):
        return response
    text = getattr(response, "text", None)
    return text if isinstance(text, str) else None


def with_response_text(response: Any, text: str, kind: str = "chat") -> Any:
    """A copy of a ``ChatResponse`` / ``AgentResponse`` whose answer text is `text`
    (its tool calls kept); `response` None: a new one made of `text` alone."""
    from agent_framework import AgentResponse, ChatResponse, Content, Message

    if response is None:
        message = Message(role="assistant", contents=[Content.from_text(text)])
        return ChatResponse(messages=[message]) if kind == "chat" else AgentResponse(messages=[message])
    messages = list(response.messages or ())
    index = next((i for i in range(len(messages) - 1, -1, -1)
                  if str(getattr(messages[i].role, "value", messages[i].role)) == "assistant"), None)
    if index is None:
        messages.append(Message(role="assistant", contents=[Content.from_text(text)]))
    else:
        old = messages[index]
        kept = [c for c in old.contents if getattr(c, "type", None) != "text"]
        messages[index] = Message(role="assistant", contents=[Content.from_text(text), *kept],
                                  author_name=getattr(old, "author_name", None))
    replaced = copy.copy(response)
    replaced.messages = messages
    return replaced
