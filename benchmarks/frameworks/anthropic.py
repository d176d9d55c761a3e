"""The anthropic adapter: one bare tool-loop turn (a ``tool_use`` answer, the tool, the final
answer) with the ``anthropic`` client on the scripted server on 127.0.0.1. No native row: the
SDK has no hook system of its own."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import anthropic

from benchmarks.adapters import FrameworkBench
from tests.conformance.harness import Turn
from tests.support.anthropic_server import ScriptedAnthropicServer

_SERVER = ScriptedAnthropicServer(by_conversation=True)
TOOLS = [{"name": "add_numbers", "input_schema": {"type": "object"}}]


@contextlib.contextmanager
def _server() -> Iterator[None]:
    with _SERVER:
        _SERVER.script([Turn.call("add_numbers", a=2, b=3), Turn.final("done")])
        yield


def make_run() -> Callable[[], Any]:
    client = anthropic.Anthropic(base_url=_SERVER.base_url, api_key="sk-offline-dummy", max_retries=0)

    def run() -> Any:
        messages: list[Any] = [{"role": "user", "content": "What is 2 + 3?"}]
        first = client.messages.create(model="m", max_tokens=64, messages=messages, tools=TOOLS)
        messages.append({"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]})
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": b.id, "content": str(b.input["a"] + b.input["b"])}
            for b in first.content if b.type == "tool_use"]})
        _SERVER.requests.clear()
        return client.messages.create(model="m", max_tokens=64, messages=messages, tools=TOOLS).content[0].text

    return run


BENCH = FrameworkBench(
    adapter="anthropic",
    make_run=make_run,
    describe="bare loop: messages.create x2 + a tool, local server",
    calls_per_round=40,
    setup=_server,
)
