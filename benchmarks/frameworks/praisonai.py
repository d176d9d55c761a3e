"""PraisonAI: one ``Agent.chat`` turn (two model requests, one tool call), fully in process.

The agent's OpenAI clients answer through ``httpx.MockTransport`` (the first
request asks for ``add_numbers``, the second answers), so the run measures
PraisonAI and hookport, not a socket. Each turn is a fresh agent, so every
turn sends the same messages. ``native`` registers PraisonAI's
own no-op ``before_llm`` / ``after_llm`` / ``before_tool`` / ``after_tool`` hooks
on its default registry: the same work done by PraisonAI's hook runner.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

for _name, _value in {"PRAISONAI_TELEMETRY_DISABLED": "true", "PRAISONAI_DISABLE_TELEMETRY": "true",
                      "PRAISONAI_PERFORMANCE_DISABLED": "true", "DO_NOT_TRACK": "true",
                      "OPENAI_API_KEY": "sk-offline-dummy", "OPENAI_MAX_RETRIES": "0"}.items():
    os.environ.setdefault(_name, _value)
os.environ.pop("OPENAI_BASE_URL", None)
os.environ.pop("OPENAI_API_BASE", None)

try:  # openai 3.x speaks httpx2; older releases httpx (same API for what is used here)
    import httpx2 as httpx  # noqa: E402
except ImportError:
    import httpx  # type: ignore[no-redef]  # noqa: E402
import praisonaiagents  # noqa: E402,F401  (ImportError: the runner skips this framework)

from benchmarks.adapters import FrameworkBench  # noqa: E402

BASE_URL = "http://praisonai-bench.invalid/v1"


def _answer(request: httpx.Request) -> httpx.Response:
    body = json.loads(request.content or b"{}")
    answered = any(m.get("role") == "tool" for m in body.get("messages", []))
    message: dict[str, Any] = {"role": "assistant", "content": "The sum is 5." if answered else None}
    if not answered:
        message["tool_calls"] = [{"id": "call_1", "type": "function",
                                  "function": {"name": "add_numbers", "arguments": '{"a": 2, "b": 3}'}}]
    return httpx.Response(200, json={
        "id": "chatcmpl-bench", "object": "chat.completion", "created": 0, "model": "gpt-4o-mini",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop" if answered else "tool_calls"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    })


def _offline_clients() -> None:
    """Give PraisonAI's shared ``OpenAIClient`` SDK clients that answer in process."""
    from openai import AsyncOpenAI, OpenAI
    from praisonaiagents.llm import openai_client

    transport = httpx.MockTransport(_answer)
    client = openai_client.get_openai_client(api_key="sk-offline-dummy", base_url=BASE_URL)
    client._sync_client = OpenAI(api_key="sk-offline-dummy", base_url=BASE_URL, max_retries=0,
                                 http_client=httpx.Client(transport=transport))
    client._async_client = AsyncOpenAI(api_key="sk-offline-dummy", base_url=BASE_URL, max_retries=0,
                                       http_client=httpx.AsyncClient(transport=transport))
    client._async_client_owned = False  # an injected client: PraisonAI leaves it as it is


def add_numbers(a: int, b: int) -> str:
    """Add two integers and return the sum.

    Args:
        a: the first number
        b: the second number
    """
    return str(a + b)


def make_run() -> Callable[[], Any]:
    from praisonaiagents import Agent

    os.environ["OPENAI_BASE_URL"] = BASE_URL
    os.environ["OPENAI_API_BASE"] = BASE_URL
    _offline_clients()

    def run() -> Any:
        # a fresh agent per turn: PraisonAI's loop detector would stop an agent that asks
        # for the same tool call thirty times (Agent() itself costs ~0.1 ms of the ~10 ms)
        agent = Agent(name="bench", instructions="Use the tools.", model="gpt-4o-mini", tools=[add_numbers],
                      output="silent")
        answer = agent.chat("What is 2 + 3?")
        assert answer == "The sum is 5.", answer
        return answer

    return run


@contextmanager
def native_hooks() -> Iterator[None]:
    from praisonaiagents.hooks import add_hook, remove_hook

    ids = [add_hook(event, lambda data: None) for event in ("before_llm", "after_llm", "before_tool", "after_tool")]
    try:
        yield
    finally:
        for hook_id in ids:
            remove_hook(hook_id)


BENCH = FrameworkBench(
    adapter="praisonai",
    make_run=make_run,
    describe="Agent.chat: 2 model requests + 1 tool call (MockTransport)",
    native=native_hooks,
    calls_per_round=100,
)
