"""Reading SDK objects and plain dicts alike, for the SDK adapters (``openai``, ``anthropic``, ``mcp``)."""

from __future__ import annotations

import copy
import inspect
import json
from typing import Any


def field(item: Any, name: str) -> Any:
    """`item[name]` for a dict, `item.name` for an SDK object."""
    return item.get(name) if isinstance(item, dict) else getattr(item, name, None)


def plain(value: Any) -> Any:
    """A deep copy of `value` as JSON-like data (SDK objects are dumped without their None fields)."""
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if hasattr(value, "model_dump"):
        return plain(value.model_dump(exclude_none=True))
    return copy.deepcopy(value)


def parse_arguments(arguments: Any) -> dict[str, Any]:
    """A tool call's arguments as a dict (a JSON string is parsed; anything unreadable gives {})."""
    if isinstance(arguments, dict):
        return dict(arguments)
    try:
        parsed = json.loads(arguments or "{}")
    except (TypeError, ValueError):
        return {}
    return parsed if isinstance(parsed, dict) else {}


def raw_parse(result: Any) -> Any:
    """The parsed body of a ``with_raw_response`` / ``with_streaming_response`` result.

    The SDK caches it, so the caller's own ``.parse()`` returns the object the
    adapter edited."""
    parse = getattr(result, "parse", None)
    return parse() if parse is not None else result


async def araw_parse(result: Any) -> Any:
    parse = getattr(result, "parse", None)
    if parse is None:
        return result
    parsed = parse()
    return await parsed if inspect.isawaitable(parsed) else parsed


def content_text(content: Any) -> str:
    """A message's content as text (a list of parts or blocks: their text, joined)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, (list, tuple)):
        return "".join(str(field(part, "text") or "") for part in content)
    return str(content)
