"""The text of a final answer, whatever object a framework returns.

`OutputContext.text` reads and replaces it, so an OUTPUT hook that redacts the
answer is written once. Adapters register their own result types with
`register_answer_type`; common shapes (a string, an object with a string
``raw`` / ``content`` / ``final_output`` / ``output`` / ``text`` field, a
graph state whose ``messages`` end with the answer) work without it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

_FIELDS = ("raw", "content", "final_output", "output", "text", "response")

Getter = Callable[[Any], "str | None"]
Replacer = Callable[[Any, str], Any]
_registered: list[tuple[type, Getter, Replacer]] = []


def register_answer_type(cls: type, get: Getter, replace: Replacer) -> None:
    """Teach `text_of` / `with_text` a framework's result type (newest registration wins;
    registering a type again replaces its entry, so adapter reinstalls add nothing)."""
    _registered[:] = [entry for entry in _registered if entry[0] is not cls]
    _registered.insert(0, (cls, get, replace))


def text_of(value: Any) -> str | None:
    """The answer text inside `value`, or None when it has none."""
    if value is None or isinstance(value, str):
        return value
    for cls, get, _ in _registered:
        if isinstance(value, cls):
            return get(value)
    if isinstance(value, dict):
        messages = value.get("messages")
        if isinstance(messages, list) and messages:
            return _content(messages[-1])
        for name in _FIELDS:
            if isinstance(value.get(name), str):
                return value[name]
        return None
    for name in _FIELDS:
        found = getattr(value, name, None)
        if isinstance(found, str):
            return found
    return None


def with_text(value: Any, text: str) -> Any:
    """`value` with its answer text replaced by `text`; the caller's object is not changed
    where a copy can be made."""
    if value is None or isinstance(value, str):
        return text
    for cls, _, replace in _registered:
        if isinstance(value, cls):
            return replace(value, text)
    if isinstance(value, dict):
        messages = value.get("messages")
        if isinstance(messages, list) and messages:
            return {**value, "messages": [*messages[:-1], _with_content(messages[-1], text)]}
        for name in _FIELDS:
            if isinstance(value.get(name), str):
                return {**value, name: text}
        return text
    for name in _FIELDS:
        if isinstance(getattr(value, name, None), str):
            return _set_field(value, name, text)
    return text


def _content(message: Any) -> str | None:
    content = message.get("content") if isinstance(message, dict) else getattr(message, "content", None)
    return content if isinstance(content, str) else None


def _with_content(message: Any, text: str) -> Any:
    if isinstance(message, dict):
        return {**message, "content": text}
    return _set_field(message, "content", text)


def _set_field(obj: Any, name: str, text: str) -> Any:
    model_copy = getattr(obj, "model_copy", None)
    if callable(model_copy):
        try:
            return model_copy(update={name: text})
        except Exception:  # a model that refuses the update: fall back to a shallow copy
            pass
    try:
        clone = copy.copy(obj)
        setattr(clone, name, text)
        return clone
    except Exception:  # some objects cannot be copied: change them in place
        setattr(obj, name, text)
        return obj
