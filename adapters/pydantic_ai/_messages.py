"""Pydantic AI messages <-> the OpenAI-style dicts of `LLMCallHookContext.messages`.

A Pydantic AI history is a list of `ModelRequest` (system, user, tool-return and
retry parts) and `ModelResponse` (text, tool-call and thinking parts). Each request
part becomes one dict; each response becomes one ``assistant`` dict carrying its
text and ``tool_calls``. `Conversation` remembers where every dict came from, so
after PRE_MODEL_CALL hooks ran it rebuilds only what they changed: unchanged
parts and responses are reused as they are, edited ones are new objects, and the
caller's history (the agent run's own message list) is never touched.

The agent's ``instructions`` are not part of the list (Pydantic AI sends them
beside the history); they are under ``ctx.metadata["instructions"]``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

Dict = dict[str, Any]


def response_text(response: ModelResponse) -> str | None:
    """The text of an answer (its text parts joined), None when it only calls tools."""
    texts = [part.content for part in response.parts if isinstance(part, TextPart)]
    return "".join(texts) if texts else None


def with_text(response: ModelResponse | None, text: str) -> ModelResponse:
    """A copy of `response` whose text parts are replaced by one part holding `text`."""
    if response is None:
        return ModelResponse(parts=[TextPart(content=text)])
    others = [part for part in response.parts if not isinstance(part, TextPart)]
    if not text and len(others) == len(response.parts):
        return response  # "" for an answer that only calls tools: nothing to replace
    return dataclasses.replace(response, parts=[TextPart(content=text), *others])


def instructions(messages: list[ModelMessage]) -> str | None:
    """The instructions the request is sent with (the last request's), beside the history."""
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            return getattr(message, "instructions", None)
    return None


def _user_content(content: Any) -> Any:
    if isinstance(content, str):
        return content
    texts = [item for item in content if isinstance(item, str)]
    return "\n".join(texts) if len(texts) == len(content) else [_content_item(item) for item in content]


def _content_item(item: Any) -> Dict:
    if isinstance(item, str):
        return {"type": "text", "text": item}
    url = getattr(item, "url", None)
    return {"type": getattr(item, "kind", type(item).__name__), **({"url": url} if url else {})}


def _arguments(part: ToolCallPart) -> str:
    return part.args_as_json_str()


def _response_dict(response: ModelResponse) -> Dict:
    calls = [part for part in response.parts if isinstance(part, ToolCallPart)]
    message: Dict = {"role": "assistant", "content": response_text(response)}
    if calls:
        message["tool_calls"] = [
            {"id": call.tool_call_id, "type": "function", "function": {"name": call.tool_name, "arguments": _arguments(call)}}
            for call in calls
        ]
    return message


def _part_dict(part: Any) -> Dict | None:
    if isinstance(part, SystemPromptPart):
        return {"role": "system", "content": part.content}
    if isinstance(part, UserPromptPart):
        return {"role": "user", "content": _user_content(part.content)}
    if isinstance(part, ToolReturnPart):
        return {"role": "tool", "tool_call_id": part.tool_call_id, "name": part.tool_name,
                "content": part.model_response_str()}
    if isinstance(part, RetryPromptPart):
        if part.tool_name is None:
            return {"role": "user", "content": part.model_response()}
        return {"role": "tool", "tool_call_id": part.tool_call_id, "name": part.tool_name,
                "content": part.model_response()}
    return None  # a part kind with no OpenAI equivalent stays as it is (see `_carried`)


class Conversation:
    """One request's history as dicts, and the way back."""

    __slots__ = ("messages", "dicts", "origins", "before", "carried")

    def __init__(self, messages: list[ModelMessage]) -> None:
        self.messages = messages
        self.dicts: list[Dict] = []
        self.origins: list[Any] = []
        self.carried: dict[int, list[Any]] = {}
        """Request parts with no dict form (kept with the request they came in)."""
        for message in messages:
            if isinstance(message, ModelResponse):
                self.dicts.append(_response_dict(message))
                self.origins.append(message)
                continue
            for part in message.parts:
                as_dict = _part_dict(part)
                if as_dict is None:
                    self.carried.setdefault(id(message), []).append(part)
                    continue
                self.dicts.append(as_dict)
                self.origins.append((message, part))
        self.before = [_copied(d) for d in self.dicts]
        """Each dict as it was built (`dicts` is the list hooks edit in place)."""

    def rebuilt(self, edited: list[Dict]) -> list[ModelMessage]:
        """The history for `edited` (the hooks' list): the original list when nothing changed."""
        if edited == self.before:
            return self.messages
        before = self.before
        unused = list(range(len(before)))
        out: list[ModelMessage] = []
        pending: list[Any] = []
        bases: list[ModelRequest] = []

        def flush() -> None:
            if not pending:
                return
            base = bases[0] if bases else self._last_request()
            parts = [*pending, *self.carried.get(id(base), ())] if base is not None else list(pending)
            out.append(dataclasses.replace(base, parts=parts) if base is not None else ModelRequest(parts=parts))
            pending.clear()
            bases.clear()

        for message in edited:
            found = next((i for i in unused if before[i] == message), None)
            if found is not None:
                unused.remove(found)
            origin = self.origins[found] if found is not None else None
            if message.get("role") == "assistant":
                flush()
                out.append(origin if isinstance(origin, ModelResponse) else _new_response(message))
                continue
            if isinstance(origin, tuple):
                request, part = origin
                if not bases:
                    bases.append(request)
                pending.append(part)
            else:
                pending.append(self._new_part(message))
        flush()
        return out

    def _last_request(self) -> ModelRequest | None:
        return next((m for m in reversed(self.messages) if isinstance(m, ModelRequest)), None)

    def _new_part(self, message: Dict) -> Any:
        role, content = message.get("role"), message.get("content")
        if role == "system":
            return SystemPromptPart(content=str(content or ""))
        if role == "tool":
            name = message.get("name") or self._tool_name(message.get("tool_call_id"))
            return ToolReturnPart(tool_name=name or "tool", content=content, tool_call_id=message.get("tool_call_id") or "")
        if isinstance(content, list):
            content = "\n".join(str(item.get("text", "")) if isinstance(item, dict) else str(item) for item in content)
        return UserPromptPart(content="" if content is None else content)

    def _tool_name(self, call_id: Any) -> str | None:
        for message in self.messages:
            if isinstance(message, ModelResponse):
                for part in message.parts:
                    if isinstance(part, ToolCallPart) and part.tool_call_id == call_id:
                        return part.tool_name
        return None


def _copied(value: Any) -> Any:
    """A copy of a message dict deep enough that in-place edits of the original do not reach it."""
    if isinstance(value, dict):
        return {k: _copied(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copied(v) for v in value]
    return value


def _new_response(message: Dict) -> ModelResponse:
    parts: list[Any] = []
    if message.get("content"):
        parts.append(TextPart(content=str(message["content"])))
    for call in message.get("tool_calls") or ():
        function = call.get("function", {})
        parts.append(ToolCallPart(tool_name=function.get("name", ""), args=function.get("arguments"),
                                  tool_call_id=call.get("id") or ""))
    return ModelResponse(parts=parts)
