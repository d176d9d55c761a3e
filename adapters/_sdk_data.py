"""Reading SDK objects and plain dicts alike, for the SDK adapters (``openai``, ``anthropic``, ``mcp``)."""

from __future__ import annotations

import copy
import inspect
import json
from collections.abc import Callable
from json import decoder as _decoder, encoder as _encoder
from typing import Any


def field(item: Any, name: str) -> Any:
    """`item[name]` for a dict, `item.name` for an SDK object."""
    return item.get(name) if isinstance(item, dict) else getattr(item, name, None)


_SCALARS = frozenset({str, int, float, bool, type(None)})
"""The exact types `plain` returns as they are without a call (subclasses take the long way)."""


def plain(value: Any) -> Any:
    """A deep copy of `value` as JSON-like data (SDK objects are dumped without their None fields).

    Scalars inside a dict or list are kept inline, not recursed into: a conversation is mostly
    strings, and this runs on every hooked request."""
    if isinstance(value, dict):
        return {key: item if type(item) in _SCALARS else plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [item if type(item) in _SCALARS else plain(item) for item in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if hasattr(value, "model_dump"):
        return plain(value.model_dump(exclude_none=True))
    return copy.deepcopy(value)


def json_encoder(**options: Any) -> Callable[[Any], str]:
    """``json.dumps(value, **options)`` as one prebuilt encoder: the C encoder called directly, not
    rebuilt per call through ``JSONEncoder.encode`` (about half the cost of encoding a small dict).
    Without a circular-reference check (a cyclic value raises RecursionError, not ValueError)."""
    coder = json.JSONEncoder(**options)
    make = _encoder.c_make_encoder
    if make is None:  # pragma: no cover - CPython without its _json module
        return coder.encode
    escape = _encoder.encode_basestring_ascii if coder.ensure_ascii else _encoder.encode_basestring
    iterencode = make(None, coder.default, escape, None, coder.key_separator, coder.item_separator,
                      coder.sort_keys, coder.skipkeys, coder.allow_nan)

    def encode(value: Any) -> str:
        return "".join(iterencode(value, 0))

    return encode


dumps = json_encoder()
"""``json.dumps(value)`` with its default options (the text ``ctx.messages`` shows for arguments)."""

_SCAN = json.JSONDecoder().scan_once


def parse_arguments(arguments: Any) -> dict[str, Any]:
    """A tool call's arguments as a dict (a JSON string is parsed; anything unreadable gives {})."""
    if isinstance(arguments, dict):
        return dict(arguments)
    if type(arguments) is str and arguments[:1] == "{":  # the usual case, without json.loads' checks
        try:
            parsed, end = _SCAN(arguments, 0)
        except (StopIteration, ValueError):
            return {}
        if end == len(arguments):
            return parsed if isinstance(parsed, dict) else {}
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


def cache_parsed(result: Any, parsed: Any, replacement: Any) -> None:
    """Make a raw response's ``.parse()`` return `replacement` where it cached `parsed`."""
    cache = getattr(result, "_parsed_by_type", None)
    if isinstance(cache, dict):
        for key, value in list(cache.items()):
            if value is parsed:
                cache[key] = replacement


def rewrite_raw_body(result: Any, parsed: Any) -> None:
    """A raw response's HTTP body made the edited `parsed` object's JSON, so ``http_response.json()``,
    ``.text`` and ``.parse(to=...)`` agree with what the caller's ``.parse()`` returns (a refused call
    is gone from all of them). A stream's body was read by the adapter already: nothing to rewrite."""
    http = getattr(result, "http_response", None)
    dump = getattr(parsed, "model_dump_json", None)
    if http is None or dump is None or not hasattr(http, "_content"):
        return
    http._content = dump(exclude_unset=True).encode()
    if "_text" in vars(http):
        del http._text
