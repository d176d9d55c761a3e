"""LangChain messages <-> the OpenAI-style dicts hooks see, without touching the caller's objects.

Hooks get fresh dicts (nested content lists deep-copied). After PRE_MODEL_CALL
the edited dicts are turned back into messages: an untouched dict gives back the
original message object (no copy on the common path), an edited one a
`model_copy` with the new fields, a new one a new message. The caller's
messages (a graph's state, a `create_agent` history) are never mutated.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any

_ROLES = {
    "human": "user",
    "ai": "assistant",
    "system": "system",
    "tool": "tool",
    "function": "function",
    "HumanMessageChunk": "user",
    "AIMessageChunk": "assistant",
    "SystemMessageChunk": "system",
    "ToolMessageChunk": "tool",
    "FunctionMessageChunk": "function",
}


def to_openai(message: Any) -> dict[str, Any]:
    """One LangChain message as an OpenAI-style chat message dict."""
    kind = message.type
    role = _ROLES.get(kind)
    if role is None:
        role = getattr(message, "role", None) or kind  # ChatMessage / ChatMessageChunk
    content = message.content
    out: dict[str, Any] = {"role": role, "content": content if isinstance(content, str) else copy.deepcopy(content)}
    if role == "assistant":
        tool_calls = getattr(message, "tool_calls", None)
        if tool_calls:
            out["tool_calls"] = [
                {
                    "id": call.get("id"),
                    "type": "function",
                    "function": {"name": call["name"], "arguments": json.dumps(call.get("args", {}), default=str)},
                }
                for call in tool_calls
            ]
    elif role == "tool":
        out["tool_call_id"] = message.tool_call_id
        status = getattr(message, "status", None)
        if status and status != "success":
            out["status"] = status
    name = message.name
    if name:
        out["name"] = name
    return out


def snapshot(dicts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A copy deep enough to tell later whether a hook edited a dict in place."""
    return [
        d.copy() if isinstance(d.get("content"), str) and "tool_calls" not in d else copy.deepcopy(d) for d in dicts
    ]


def carry_back(
    originals: Sequence[Any], dicts: list[dict[str, Any]], before: list[dict[str, Any]], edited: list[Any]
) -> list[Any] | None:
    """The messages to send after the hooks ran, or None when they changed nothing."""
    if len(edited) == len(dicts) and all(e is d and e == b for e, d, b in zip(edited, dicts, before)):
        return None
    position = {id(d): i for i, d in enumerate(dicts)}
    out: list[Any] = []
    for item in edited:
        if not isinstance(item, dict):
            out.append(_as_message(item))
            continue
        index = position.get(id(item))
        if index is None:
            out.append(from_openai(item))
        elif item == before[index]:
            out.append(originals[index])
        else:
            out.append(_updated(originals[index], before[index], item))
    return out


def _updated(original: Any, before: dict[str, Any], after: dict[str, Any]) -> Any:
    if after.get("role") != before.get("role") or after.get("tool_call_id") != before.get("tool_call_id"):
        return from_openai(after)
    update: dict[str, Any] = {}
    if after.get("content") != before.get("content"):
        update["content"] = after.get("content") if after.get("content") is not None else ""
    if after.get("name") != before.get("name"):
        update["name"] = after.get("name")
    if after.get("tool_calls") != before.get("tool_calls"):
        update["tool_calls"] = _tool_calls(after.get("tool_calls"))
    return original.model_copy(update=update)


def _tool_calls(raw: Any) -> list[dict[str, Any]]:
    calls = []
    for call in raw or []:
        if "function" in call:
            function = call["function"]
            arguments = function.get("arguments") or "{}"
            args = json.loads(arguments) if isinstance(arguments, str) else dict(arguments)
            calls.append({"name": function["name"], "args": args, "id": call.get("id"), "type": "tool_call"})
        else:
            calls.append({"name": call["name"], "args": call.get("args", {}), "id": call.get("id"), "type": "tool_call"})
    return calls


def from_openai(d: dict[str, Any]) -> Any:
    """A new LangChain message from an OpenAI-style dict (LangChain role names accepted too)."""
    from langchain_core.messages import (
        AIMessage,
        ChatMessage,
        FunctionMessage,
        HumanMessage,
        SystemMessage,
        ToolMessage,
    )

    role = d.get("role") or d.get("type") or "user"
    content = d.get("content")
    content = "" if content is None else content
    extra = {"name": d["name"]} if d.get("name") else {}
    if role in ("user", "human"):
        return HumanMessage(content=content, **extra)
    if role in ("assistant", "ai"):
        return AIMessage(content=content, tool_calls=_tool_calls(d.get("tool_calls")), **extra)
    if role in ("system", "developer"):
        return SystemMessage(content=content, **extra)
    if role == "tool":
        return ToolMessage(
            content=content, tool_call_id=d.get("tool_call_id") or "", status=d.get("status") or "success", **extra
        )
    if role == "function":
        return FunctionMessage(content=content, name=d.get("name") or "")
    return ChatMessage(role=role, content=content, **extra)


def _as_message(item: Any) -> Any:
    """A hook may put a native message or a (role, text) tuple in the list."""
    if hasattr(item, "type") and hasattr(item, "content"):
        return item
    from langchain_core.messages import convert_to_messages

    return convert_to_messages([item])[0]


# -- response text -------------------------------------------------------------------------


def text_of(message: Any) -> str:
    """The text of a model answer (text blocks joined when the content is a list)."""
    content = message.content
    if isinstance(content, str):
        return content
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text":
            parts.append(block.get("text", ""))
    return "".join(parts)


def with_text(message: Any, text: str) -> Any:
    """A copy of `message` whose text is `text`; reasoning, tool-use and other blocks stay."""
    content = message.content
    if isinstance(content, str):
        return message.model_copy(update={"content": text})
    blocks: list[Any] = []
    placed = False
    for block in content:
        is_text = isinstance(block, str) or (isinstance(block, dict) and block.get("type") == "text")
        if not is_text:
            blocks.append(block)
        elif not placed:
            blocks.append(text if isinstance(block, str) else {**block, "text": text})
            placed = True
    if not placed:
        blocks.insert(0, {"type": "text", "text": text})
    return message.model_copy(update={"content": blocks})


def prompt_from(dicts: list[dict[str, Any]]) -> str:
    """A completion prompt back from the dicts a legacy-LLM hook edited."""
    texts = [d.get("content") if isinstance(d.get("content"), str) else text_of(_Content(d.get("content"))) for d in dicts]
    return "\n\n".join(t for t in texts if t)


class _Content:
    __slots__ = ("content",)

    def __init__(self, content: Any) -> None:
        self.content = content or ""


# -- the final answer's text (OutputContext.text) ------------------------------------------------------

_answer_types_known = False


def know_answer_types() -> None:
    """Teach `OutputContext.text` LangChain's messages (content blocks included), once per process.

    Called when the first execution opens rather than at install, so installing imports no LangChain.
    """
    global _answer_types_known
    if _answer_types_known:
        return
    _answer_types_known = True
    from langchain_core.messages import BaseMessage

    from hookport.answers import register_answer_type

    register_answer_type(BaseMessage, text_of, with_text)
