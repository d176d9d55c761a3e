"""What the bypass attempts share: a scripted model that answers with any Responses output items,
the entry points, and a deny whose twin is the same run without it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from agents import Agent, Runner
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import ResponseCustomToolCall, ResponseFunctionToolCall

from hookport import HookAborted, InterceptionPoint, register_hook
from hookport.contexts import ToolCallHookContext
from tests.conformance.harness import Turn
from tests.adapters.openai_agents.harness import drain, output_items, stream_events_of

ENTRIES = ("sync", "async", "stream")
REASON = "not allowed"


def refuse(ctx: ToolCallHookContext) -> None:
    raise HookAborted(reason=REASON, source="test")


def deny(tool: str, on: bool = True, **filters: Any) -> None:
    """The deny of a test (its twin passes ``on=False``: the same run, nothing registered)."""
    if on:
        register_hook(InterceptionPoint.PRE_TOOL_CALL, refuse, tools=[tool], **filters)


def function_call(name: str, call_id: str = "call_1", **args: Any) -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(type="function_call", id=f"fc_{call_id}", call_id=call_id, name=name,
                                    arguments=json.dumps(args), status="completed")


def custom_call(name: str, text: str, call_id: str = "call_1") -> ResponseCustomToolCall:
    return ResponseCustomToolCall(type="custom_tool_call", id=f"ct_{call_id}", call_id=call_id, name=name,
                                  input=text)


def _items(answer: Any) -> list[Any]:
    if isinstance(answer, str):
        return output_items(Turn.final(answer))
    if isinstance(answer, Turn):
        return output_items(answer)
    return list(answer)


class ItemsModel(Model):
    """Answers each request with the next scripted answer: output items, a `Turn` or a final text."""

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.inputs: list[Any] = []

    def _next(self, items: Any) -> list[Any]:
        self.inputs.append(items)
        if not self.answers:
            raise RuntimeError("the scripted model ran out of answers")
        return _items(self.answers.pop(0))

    async def get_response(self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any) -> Any:
        return ModelResponse(output=self._next(input), usage=Usage(), response_id=None)

    async def stream_response(self, system_instructions: Any, input: Any, *args: Any,
                              **kwargs: Any) -> AsyncIterator[Any]:
        async for event in stream_events_of(self._next(input)):
            yield event


def agent(name: str, tools: list[Any], *answers: Any, **options: Any) -> Agent:
    return Agent(name=name, instructions="Use the tools.", model=ItemsModel(*answers), tools=tools, **options)


def run(worker: Agent, entry: str = "sync", prompt: str = "go") -> Any:
    """One run of `worker` through `entry`; returns the final output."""
    if entry == "sync":
        return Runner.run_sync(worker, prompt).final_output
    if entry == "async":
        return asyncio.run(Runner.run(worker, prompt)).final_output
    if entry == "stream":
        return asyncio.run(_streamed(worker, prompt))
    raise ValueError(entry)


async def _streamed(worker: Agent, prompt: str) -> Any:
    return await drain(Runner.run_streamed(worker, prompt))


def outputs_sent(model: ItemsModel, request: int = 1) -> dict[str, str]:
    """The tool outputs (by call id) request `request` carried to the model."""
    found: dict[str, str] = {}
    for item in model.inputs[request]:
        plain = item.model_dump() if hasattr(item, "model_dump") else item
        if isinstance(plain, dict) and str(plain.get("type", "")).endswith("_output"):
            found[str(plain.get("call_id"))] = str(plain.get("output"))
    return found
