"""The OpenAI Agents SDK: one ``Runner.run`` (a model call asking for a tool, the tool, a final model call).

The model is a custom ``agents.models.interface.Model`` that answers from the
input it gets (no network); the run is driven on one persistent event loop.
``native`` runs the same agent with the SDK's own ``RunHooks`` doing the same
no-op work (``on_llm_start`` / ``on_llm_end`` / ``on_tool_start`` / ``on_tool_end``).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

os.environ["OPENAI_AGENTS_DISABLE_TRACING"] = "1"

from agents import Agent, RunHooks, Runner, function_tool, set_tracing_disabled  # noqa: E402
from agents.items import ModelResponse  # noqa: E402
from agents.models.interface import Model  # noqa: E402
from agents.usage import Usage  # noqa: E402
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText  # noqa: E402

from benchmarks.adapters import FrameworkBench  # noqa: E402

set_tracing_disabled(True)

_CALL = ResponseFunctionToolCall(type="function_call", id="fc_1", call_id="call_1", name="add_numbers",
                                 arguments='{"a": 2, "b": 3}', status="completed")
_ANSWER = ResponseOutputMessage(id="msg_1", type="message", role="assistant", status="completed",
                                content=[ResponseOutputText(type="output_text", text="5", annotations=[])])


class _Model(Model):
    async def get_response(self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any) -> Any:
        answered = any(isinstance(i, dict) and i.get("type") == "function_call_output" for i in input)
        return ModelResponse(output=[_ANSWER if answered else _CALL], usage=Usage(), response_id=None)

    async def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError
        yield


@function_tool
def add_numbers(a: int, b: int) -> str:
    """Add two integers.

    Args:
        a: the first number
        b: the second number
    """
    return str(a + b)


class _NoopHooks(RunHooks):  # type: ignore[misc]
    async def on_llm_start(self, context: Any, agent: Any, system_prompt: Any, input_items: Any) -> None:
        return None

    async def on_llm_end(self, context: Any, agent: Any, response: Any) -> None:
        return None

    async def on_tool_start(self, context: Any, agent: Any, tool: Any) -> None:
        return None

    async def on_tool_end(self, context: Any, agent: Any, tool: Any, result: Any) -> None:
        return None


_hooks: list[RunHooks | None] = [None]


def make_run() -> Callable[[], Any]:
    agent = Agent(name="bench", instructions="Add.", model=_Model(), tools=[add_numbers])
    loop = asyncio.new_event_loop()

    def run() -> Any:
        return loop.run_until_complete(Runner.run(agent, "What is 2 + 3?", hooks=_hooks[0]))

    return run


@contextmanager
def native() -> Iterator[None]:
    _hooks[0] = _NoopHooks()
    try:
        yield
    finally:
        _hooks[0] = None


BENCH = FrameworkBench(
    adapter="openai-agents",
    make_run=make_run,
    describe="Runner.run: model -> tool -> model (custom Model)",
    native=native,
    calls_per_round=100,
)
