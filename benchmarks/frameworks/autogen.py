"""AutoGen: one ``AssistantAgent.run`` (a model request asking for a tool, the tool, the reflection answer).

The model client is a ``ChatCompletionClient`` (AutoGen's ``ReplayChatCompletionClient`` with a
``create`` that answers from the conversation), so the run is offline and the time is AutoGen's
own work (the agent's model context, its workbench, the tool call, the reflection request). Each
run resets the agent (``on_reset``) and all runs share one event loop, as an application's do.
AutoGen has no native hooks for model requests or tool calls, so there is no ``native`` row.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from autogen_agentchat.agents import AssistantAgent
from autogen_core import CancellationToken, FunctionCall
from autogen_core.models import CreateResult, ModelInfo, RequestUsage
from autogen_ext.models.replay import ReplayChatCompletionClient

from benchmarks.adapters import FrameworkBench

_USAGE = RequestUsage(prompt_tokens=0, completion_tokens=0)
_CALL = CreateResult(finish_reason="function_calls", usage=_USAGE, cached=False,
                     content=[FunctionCall(id="c1", name="add", arguments='{"a": 2, "b": 3}')])
_ANSWER = CreateResult(finish_reason="stop", content="5", usage=_USAGE, cached=False)


class ScriptedClient(ReplayChatCompletionClient):  # type: ignore[misc]
    async def create(self, messages: Any, *args: Any, **kwargs: Any) -> CreateResult:
        answered = any(type(m).__name__ == "FunctionExecutionResultMessage" for m in messages)
        return _ANSWER if answered else _CALL


async def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def make_run() -> Callable[[], Any]:
    loop = asyncio.new_event_loop()
    info = ModelInfo(vision=False, function_calling=True, json_output=False, family="unknown",
                     structured_output=False)
    agent = AssistantAgent("bench", model_client=ScriptedClient(["unused"], model_info=info), tools=[add],
                           reflect_on_tool_use=True)

    async def once() -> Any:
        await agent.on_reset(CancellationToken())
        return await agent.run(task="add 2 and 3")

    def run() -> Any:
        return loop.run_until_complete(once())

    return run


BENCH = FrameworkBench(
    adapter="autogen",
    make_run=make_run,
    describe="AssistantAgent.run: scripted ChatCompletionClient, 1 tool call + reflection",
    calls_per_round=100,
)
