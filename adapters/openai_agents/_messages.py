"""The SDK's model input (instructions + Responses-style items) <-> the OpenAI chat dicts hooks see.

Hooks get ``[{"role": "system", ...}, {"role": "user", ...}, ...]``: the
instructions first, then one dict per message item, consecutive
``function_call`` items merged into one assistant message with
``tool_calls``, and each ``function_call_output`` as a ``tool`` message.
Items with no chat form (reasoning, hosted tool calls, images of a computer
tool...) are not shown; they stay in place, after the message they followed.

After PRE_MODEL_CALL the dicts are turned back into items: an untouched dict
gives back the SDK's own items (no copy on the common path), an edited or new
one gives new items. The SDK's own lists and items are never mutated, so an
edit reaches this one request and nothing of the run's history.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Sequence
from typing import Any

_TEXT_PARTS = frozenset({"input_text", "output_text", "text"})
_ROLES = frozenset({"user", "system", "developer", "assistant"})


def _plain(item: Any) -> dict[str, Any] | None:
    if isinstance(item, dict):
        return item
    dump = getattr(item, "model_dump", None)
    if dump is not None:
        dumped = dump(exclude_none=True)
        return dumped if isinstance(dumped, dict) else None
    return None


def _text_of_parts(parts: Any) -> str | None:
    """The joined text of content parts, or None when a part is not text (an image, a file)."""
    if isinstance(parts, str):
        return parts
    texts: list[str] = []
    for part in parts or ():
        plain = _plain(part)
        if plain is None or plain.get("type") not in _TEXT_PARTS:
            return None
        texts.append(str(plain.get("text") or ""))
    return "".join(texts)


def _chat_content(content: Any) -> Any:
    text = _text_of_parts(content)
    if text is not None:
        return text
    out: list[Any] = []
    for part in content or ():
        plain = copy.deepcopy(_plain(part)) or {}
        kind = plain.get("type")
        if kind in _TEXT_PARTS:
            out.append({"type": "text", "text": plain.get("text", "")})
        elif kind == "input_image" and plain.get("image_url"):
            out.append({"type": "image_url", "image_url": {"url": plain["image_url"]}})
        else:
            out.append(plain)
    return out


def _item_content(content: Any, role: str) -> Any:
    """Chat content back as item content (a string stays a string)."""
    if content is None or isinstance(content, str):
        return content or ""
    text_type = "output_text" if role == "assistant" else "input_text"
    out: list[Any] = []
    for part in content:
        if isinstance(part, str):
            out.append({"type": text_type, "text": part})
            continue
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text":
            out.append({"type": text_type, "text": part.get("text", "")})
        elif kind == "image_url":
            url = part.get("image_url")
            out.append({"type": "input_image", "image_url": url.get("url") if isinstance(url, dict) else url,
                        "detail": "auto"})
        else:
            out.append(part)
    return out


def _snapshot(message: dict[str, Any]) -> dict[str, Any]:
    """A copy deep enough to tell later whether a hook edited `message` in place."""
    if isinstance(message.get("content"), (str, type(None))) and "tool_calls" not in message:
        return message.copy()
    return copy.deepcopy(message)


# -- items -> dicts -------------------------------------------------------------------------------


class Conversation:
    """One request's input as chat dicts, remembering which items each dict came from."""

    __slots__ = ("instructions", "items", "dicts", "before", "sources", "hidden_at_start", "system", "_calls_open")

    def __init__(self, instructions: str | None, items: str | Sequence[Any]) -> None:
        self.instructions = instructions
        self.items = items
        self.dicts: list[dict[str, Any]] = []
        self.sources: list[list[Any]] = []
        """For each dict: the SDK items it stands for, then the hidden items that followed them."""
        self.hidden_at_start: list[Any] = []
        self.system: dict[str, Any] | None = None
        self._calls_open = False
        if instructions is not None:
            self.system = {"role": "system", "content": instructions}
            self.dicts.append(self.system)
            self.sources.append([])
        if isinstance(items, str):
            self._add({"role": "user", "content": items}, items)
        else:
            for item in items:
                self._take(item)
        self.before = [_snapshot(d) for d in self.dicts]

    def _add(self, message: dict[str, Any], item: Any) -> None:
        self._calls_open = False
        self.dicts.append(message)
        self.sources.append([item])

    def _take(self, item: Any) -> None:
        plain = _plain(item)
        kind = plain.get("type") if plain is not None else None
        role = plain.get("role") if plain is not None else None
        if plain is not None and kind in (None, "message") and role in _ROLES:
            self._add({"role": role, "content": _chat_content(plain.get("content"))}, item)
        elif plain is not None and kind == "function_call":
            call = {"id": plain.get("call_id"), "type": "function",
                    "function": {"name": plain.get("name"), "arguments": plain.get("arguments") or "{}"}}
            if self._calls_open:
                self.dicts[-1]["tool_calls"].append(call)
                self.sources[-1].append(item)
            else:
                self._add({"role": "assistant", "content": None, "tool_calls": [call]}, item)
            self._calls_open = True
            return
        elif plain is not None and kind == "function_call_output":
            output = plain.get("output")
            text = output if isinstance(output, str) else _text_of_parts(output)
            self._add({"role": "tool", "tool_call_id": plain.get("call_id"),
                       "content": text if text is not None else json.dumps(output, default=str)}, item)
        elif self.sources and len(self.sources) > (1 if self.system is not None else 0):
            self.sources[-1].append(_Hidden(item))
        else:
            self.hidden_at_start.append(item)

    # -- dicts -> items ----------------------------------------------------------------------------

    def edited(self, dicts: list[Any]) -> tuple[str | None, Any] | None:
        """(instructions, items) after hooks edited `dicts`, or None when nothing changed."""
        if len(dicts) == len(self.dicts) and all(
            d is mine and d == before for d, mine, before in zip(dicts, self.dicts, self.before)
        ):
            return None
        position = {id(d): i for i, d in enumerate(self.dicts)}
        instructions: str | None = None
        items: list[Any] = list(self.hidden_at_start)
        for index, message in enumerate(dicts):
            if index == 0 and message is self.system:
                content = message.get("content")
                instructions = content if isinstance(content, str) or content is None else _text_of_parts(
                    _item_content(content, "system")) or ""
                continue
            known = position.get(id(message)) if isinstance(message, dict) else None
            if known is not None and message == self.before[known] and message is not self.system:
                items.extend(_unhide(self.sources[known]))
                continue
            items.extend(from_chat(message))
            if known is not None:  # keep what was hidden behind an edited message
                items.extend(i.item for i in self.sources[known] if isinstance(i, _Hidden))
        return instructions, items


class _Hidden:
    """An item with no chat form, kept behind the message it followed."""

    __slots__ = ("item",)

    def __init__(self, item: Any) -> None:
        self.item = item


def _unhide(sources: list[Any]) -> list[Any]:
    return [s.item if isinstance(s, _Hidden) else s for s in sources]


def from_chat(message: Any) -> list[Any]:
    """New SDK input items for one chat dict (a hook's new or edited message)."""
    if not isinstance(message, dict):
        plain = _plain(message)
        if plain is None:
            raise TypeError(f"a model message must be a dict, not {type(message).__name__}")
        message = plain
    role = message.get("role") or "user"
    content = message.get("content")
    if role == "tool":
        text = content if isinstance(content, str) else _text_of_parts(_item_content(content, "user"))
        return [{"type": "function_call_output", "call_id": message.get("tool_call_id") or "",
                 "output": text if text is not None else json.dumps(content, default=str)}]
    items: list[Any] = []
    if role == "assistant":
        if content:
            items.append({"role": "assistant", "content": _item_content(content, "assistant")})
        for call in message.get("tool_calls") or ():
            function = call.get("function") or {}
            arguments = function.get("arguments", "{}")
            items.append({"type": "function_call", "call_id": call.get("id") or "", "name": function.get("name"),
                          "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments)})
        return items
    return [{"role": role if role in _ROLES else "user", "content": _item_content(content, role)}]


# -- the model's answer ------------------------------------------------------------------------------


def _is_message(item: Any) -> bool:
    return getattr(item, "type", None) == "message" and getattr(item, "role", "assistant") == "assistant"


def output_text(output: Sequence[Any]) -> str:
    """The assistant text of a response's output items ("" for tool calls only).

    Read on every hooked request (POST's ``response``): one loop, no call per item."""
    texts: list[str] = []
    for item in output or ():
        if getattr(item, "type", None) == "message" and getattr(item, "role", "assistant") == "assistant":
            for part in item.content:
                if getattr(part, "type", None) == "output_text":
                    texts.append(getattr(part, "text", "") or "")
    return "".join(texts)


def with_output_text(output: Sequence[Any], text: str) -> list[Any]:
    """A new output list whose assistant text is `text` (the first text part carries it, the
    others are emptied; tool calls and other items stay). The items given are not changed."""
    out: list[Any] = []
    placed = False
    for item in output or ():
        if not _is_message(item):
            out.append(item)
            continue
        parts = []
        for part in item.content:
            if getattr(part, "type", None) != "output_text":
                parts.append(part)
            elif not placed:
                parts.append(part.model_copy(update={"text": text}))
                placed = True
            else:
                parts.append(part.model_copy(update={"text": ""}))
        out.append(item.model_copy(update={"content": parts}))
    if not placed:
        out.append(assistant_message(text))
    return out


def assistant_message(text: str) -> Any:
    from openai.types.responses import ResponseOutputMessage, ResponseOutputText

    return ResponseOutputMessage(
        id="msg_hookport", type="message", role="assistant", status="completed",
        content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
    )


def replace_response_text(response: Any, text: str) -> Any:
    """A `ModelResponse` like `response` whose text is `text` (None: a new one with only it)."""
    if response is None:
        from agents.items import ModelResponse
        from agents.usage import Usage

        return ModelResponse(output=[assistant_message(text)], usage=Usage(), response_id=None)
    return dataclasses.replace(response, output=with_output_text(response.output, text))
