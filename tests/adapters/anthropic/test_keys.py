"""The conversation keys' shortcuts (issue #29) give exactly the text and keys of the long way:
a digest or key that moved would lose POST_TOOL_CALL and put-back refusals (issue #22)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hookport.adapters._sdk_data import dumps, parse_arguments
from hookport.adapters._sdk_tools import RequestKeys, _canonical, _canonical_message, call_key, conversation
from hookport.adapters.anthropic_sdk._messages import to_messages

MESSAGES: list[dict[str, Any]] = [
    {"role": "user", "content": "What is 2 + 3?"},
    {"role": "user", "content": 'quotes " and \\ back\nslash, tab\t, é, 漢字, emoji \U0001F600, \x00'},
    {"content": "keys the other way round", "role": "assistant"},
    {"role": "user", "content": None},
    {"role": "user", "content": ["a", "list"]},
    {"role": "tool", "tool_call_id": "t", "content": "5"},
    {"role": 1, "content": "not a string role"},
]


@pytest.mark.parametrize("message", MESSAGES)
def test_a_plain_message_has_the_canonical_text(message: dict[str, Any]) -> None:
    assert _canonical_message(message) == _canonical(message)
    assert _canonical(message) == json.dumps(message, sort_keys=True, default=str, separators=(",", ":"))


@pytest.mark.parametrize("value", [{"a": 2, "b": 3.5}, {"é": ["x", None, True]}, {}, {"n": float("nan")}, "text"])
def test_the_prebuilt_encoder_writes_what_json_dumps_writes(value: Any) -> None:
    assert dumps(value) == json.dumps(value)


@pytest.mark.parametrize("text", ['{"a": 2}', '{"a": 2} ', ' {"a": 2}', '{"a": ', '{"a": 2}x', "[1]", "", None,
                                  '{"a": {"b": [1, 2]}}', "{}"])
def test_arguments_are_parsed_as_json_loads_parses_them(text: Any) -> None:
    try:
        expected = json.loads(text or "{}")
    except (TypeError, ValueError):
        expected = {}
    assert parse_arguments(text) == (expected if isinstance(expected, dict) else {})


def test_sdk_blocks_and_their_dicts_read_alike() -> None:
    """The request is read where it is (no copy first): SDK blocks give the messages their dumps give."""
    from anthropic.types import TextBlock, ToolResultBlockParam, ToolUseBlock

    use = ToolUseBlock(id="toolu_1", name="add", input={"b": 3, "a": 2}, type="tool_use")
    text = TextBlock(text="adding", type="text")
    result: ToolResultBlockParam = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "5"}
    native = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [text, use]},
                           {"role": "user", "content": [result, {"type": "text", "text": "go on"}]}]}
    dumped = {"messages": [{"role": "user", "content": "hi"},
                           {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in (text, use)]},
                           native["messages"][2]]}
    assert to_messages(native) == to_messages(dumped)
    assert to_messages(native)[1]["tool_calls"][0]["function"]["arguments"] == json.dumps({"b": 3, "a": 2})


def test_a_call_s_key_is_the_digest_of_what_came_before_its_answer() -> None:
    """RequestKeys hashes only where an answer starts: each call's key is still the digest of all
    messages before its answer, as `conversation` gave for that answer's request."""
    first = [{"role": "system", "content": "s"}, {"role": "user", "content": "one"}]
    asked = {"role": "assistant", "content": None,
             "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}}]}
    later = [*first, asked, {"role": "tool", "tool_call_id": "c1", "content": "r"}, {"role": "user", "content": "two"}]
    again = {"role": "assistant", "content": None,
             "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"x": 2}'}}]}
    keys = RequestKeys("api", [*later, again, {"role": "tool", "tool_call_id": "c1", "content": "r2"}])
    assert keys.call("c1") == call_key("api", conversation(first), "c1", "f", {"x": 1})
    assert keys.call("c1") == call_key("api", conversation(later), "c1", "f", {"x": 2})
    opening = RequestKeys("api", [asked])  # an answer first: the digest of no messages
    assert opening.call("c1") == call_key("api", conversation([]), "c1", "f", {"x": 1})
