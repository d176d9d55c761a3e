"""The openai adapter: one bare tool-loop turn (a request that asks for a tool, the tool, the
answer) with the ``openai`` client on the scripted server on 127.0.0.1. The SDK has no hook
system of its own, so there is no native row."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from typing import Any

import openai

from benchmarks.adapters import FrameworkBench
from tests.conformance.harness import Turn
from tests.support.openai_server import ScriptedOpenAIServer

_SERVER = ScriptedOpenAIServer()
TOOLS = [{"type": "function", "function": {"name": "add_numbers", "parameters": {"type": "object"}}}]


@contextlib.contextmanager
def _server() -> Iterator[None]:
    with _SERVER:
        _SERVER.script([Turn.call("add_numbers", a=2, b=3), Turn.final("done")])
        yield


def make_run() -> Callable[[], Any]:
    client = openai.OpenAI(base_url=_SERVER.base_url, api_key="sk-offline-dummy", max_retries=0)

    def run() -> Any:
        messages: list[Any] = [{"role": "user", "content": "What is 2 + 3?"}]
        message = client.chat.completions.create(model="m", messages=messages, tools=TOOLS).choices[0].message
        messages.append(message)
        for call in message.tool_calls or ():
            args = json.loads(call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": str(args["a"] + args["b"])})
        _SERVER.requests.clear()
        return client.chat.completions.create(model="m", messages=messages, tools=TOOLS).choices[0].message.content

    return run


BENCH = FrameworkBench(
    adapter="openai",
    make_run=make_run,
    describe="bare loop: chat.completions.create x2 + a tool, local server",
    calls_per_round=40,
    setup=_server,
)
