"""AutoGen's ``LLMMessage`` list <-> the OpenAI chat dicts hooks see, and `CreateResult` text.

| AutoGen (``autogen_core.models``) | OpenAI chat dict |
|---|---|
| ``SystemMessage(content)`` | ``{"role": "system", "content": ...}`` |
| ``UserMessage(content, source)`` | ``{"role": "user", "content": str or [text / image_url parts]}`` |
| ``AssistantMessage(content=str)`` | ``{"role": "assistant", "content": ...}`` |
| ``AssistantMessage(content=[FunctionCall])`` | ``{"role": "assistant", "content": thought or None, "tool_calls": [...]}`` |
| ``FunctionExecutionResultMessage`` | one ``{"role": "tool", "tool_call_id", "content"}`` per result |

After PRE_MODEL_CALL the dicts go back to messages: an untouched dict gives back
AutoGen's own message object (no copy on the common path), an edited or new one
a new object. The list the request carries is a new list; the agent's model
context (``ChatCompletionContext``) and its messages are never changed, so an
edit reaches this one request and nothing of the agent's memory.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any


def _snapshot(message: dict[str, Any]) -> dict[str, Any]:
    """A copy deep enough to tell later whether a hook edited `message` in place."""
    copied = message.copy()
    calls = message.get("tool_calls")
    if calls is not None:  # the shape `to_dicts` builds: copy each call and its function
        copied["tool_calls"] = [{**call, "function": dict(call["function"])} for call in calls]
    if not isinstance(message.get("content"), (str, type(None))):
        copied["content"] = copy.deepcopy(message["content"])
    return copied


def _user_content(content: Any) -> Any:
    if isinstance(content, str):
        return content
    parts: list[dict[str, Any]] = []
    for part in content:
        if isinstance(part, str):
            parts.append({"type": "text", "text": part})
        else:
            to_openai = getattr(part, "to_openai_format", None)
            parts.append(to_openai() if to_openai is not None else {"type": "text", "text": str(part)})
    return parts


def _call_dict(call: Any) -> dict[str, Any]:
    return {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}


def to_dicts(message: Any) -> list[dict[str, Any]]:
    """The chat dicts one AutoGen message stands for (a result message gives one per result)."""
    kind = getattr(message, "type", None)
    if kind == "SystemMessage":
        return [{"role": "system", "content": message.content}]
    if kind == "UserMessage":
        return [{"role": "user", "content": _user_content(message.content)}]
    if kind == "AssistantMessage":
        if isinstance(message.content, str):
            return [{"role": "assistant", "content": message.content}]
        return [{"role": "assistant", "content": message.thought,
                 "tool_calls": [_call_dict(call) for call in message.content]}]
    if kind == "FunctionExecutionResultMessage":
        return [{"role": "tool", "tool_call_id": result.call_id, "content": result.content}
                for result in message.content]
    return [{"role": "user", "content": str(getattr(message, "content", message))}]


class Conversation:
    """One request's messages as chat dicts, remembering which message each dict came from."""

    __slots__ = ("messages", "dicts", "before", "sources")

    def __init__(self, messages: Sequence[Any]) -> None:
        self.messages = messages
        self.dicts: list[dict[str, Any]] = []
        self.sources: list[tuple[Any, int]] = []
        """For each dict: (its message, the dict's index among that message's dicts)."""
        for message in messages:
            for index, entry in enumerate(to_dicts(message)):
                self.dicts.append(entry)
                self.sources.append((message, index))
        self.before = [_snapshot(d) for d in self.dicts]

    def edited(self, dicts: list[Any]) -> list[Any] | None:
        """The messages after hooks edited `dicts`, or None when nothing changed."""
        if len(dicts) == len(self.dicts) and all(
            d is mine and d == before for d, mine, before in zip(dicts, self.dicts, self.before)
        ):
            return None
        position = {id(d): i for i, d in enumerate(self.dicts)}
        out: list[Any] = []
        results: list[Any] = []  # FunctionExecutionResults waiting to be grouped into one message
        last_source: Any = None
        for message in dicts:
            if not isinstance(message, dict):
                raise TypeError(f"a model message must be a dict, not {type(message).__name__}")
            known = position.get(id(message))
            untouched = known is not None and message == self.before[known]
            if message.get("role") == "tool":
                results.append(self.sources[known][0].content[self.sources[known][1]] if untouched
                               else _result(message))
                continue
            if results:
                out.append(_result_message(results))
                results = []
            if untouched:
                source = self.sources[known][0]
                if source is not last_source:
                    out.append(source)
                last_source = source
                continue
            last_source = None
            out.append(from_dict(message))
        if results:
            out.append(_result_message(results))
        return out


def _text(content: Any) -> str:
    if content is None or isinstance(content, str):
        return content or ""
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in content)
    return str(content)


def _result(message: dict[str, Any]) -> Any:
    from autogen_core.models import FunctionExecutionResult

    return FunctionExecutionResult(content=_text(message.get("content")), call_id=str(message.get("tool_call_id") or ""),
                                   name=str(message.get("name") or ""), is_error=False)


def _result_message(results: list[Any]) -> Any:
    from autogen_core.models import FunctionExecutionResultMessage

    return FunctionExecutionResultMessage(content=list(results))


def _user_parts(content: Any) -> Any:
    if content is None or isinstance(content, str):
        return content or ""
    from autogen_core import Image

    parts: list[Any] = []
    for part in content:
        if isinstance(part, str):
            parts.append(part)
        elif isinstance(part, dict) and part.get("type") == "image_url":
            url = part.get("image_url")
            parts.append(Image.from_uri(url.get("url") if isinstance(url, dict) else url))
        elif isinstance(part, dict):
            parts.append(str(part.get("text", "")))
        else:
            parts.append(part)
    return parts


def from_dict(message: dict[str, Any]) -> Any:
    """A new AutoGen message for one chat dict (a hook's new or edited message)."""
    from autogen_core import FunctionCall
    from autogen_core.models import AssistantMessage, SystemMessage, UserMessage

    role = message.get("role") or "user"
    content = message.get("content")
    if role in ("system", "developer"):
        return SystemMessage(content=_text(content))
    if role == "assistant":
        calls = message.get("tool_calls") or ()
        if calls:
            function_calls = []
            for call in calls:
                function = call.get("function") or {}
                arguments = function.get("arguments", "{}")
                function_calls.append(FunctionCall(
                    id=str(call.get("id") or ""), name=str(function.get("name") or ""),
                    arguments=arguments if isinstance(arguments, str) else json.dumps(arguments)))
            return AssistantMessage(content=function_calls, thought=_text(content) or None,
                                    source=str(message.get("name") or "assistant"))
        return AssistantMessage(content=_text(content), source=str(message.get("name") or "assistant"))
    return UserMessage(content=_user_parts(content), source=str(message.get("name") or "user"))


# -- the model's answer ------------------------------------------------------------------------------


def result_text(result: Any) -> str | None:
    """A ``CreateResult``'s answer text (None when it asks for tool calls)."""
    if result is None:
        return None
    content = getattr(result, "content", None)
    return content if isinstance(content, str) else None


def with_result_text(result: Any, text: str) -> Any:
    """A copy of `result` answering `text` (None: a new result made from `text` alone)."""
    if result is None:
        from autogen_core.models import CreateResult, RequestUsage

        return CreateResult(finish_reason="stop", content=text, usage=RequestUsage(prompt_tokens=0, completion_tokens=0),
                            cached=False)
    return result.model_copy(update={"content": text, "finish_reason": "stop"})
