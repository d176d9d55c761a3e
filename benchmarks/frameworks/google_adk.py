"""Google ADK: one ``Runner.run_async`` (a model request asking for a tool, the tool, the answer).

The model is a scripted ``BaseLlm``, so the run is offline and the time is ADK's own work (a
fresh in-memory session per run, so every run does the same work). The runs are driven on one
event loop in this thread (``Runner.run`` would do the work on a thread of its own, which a CPU
clock of this thread does not see). ``native`` runs the same agent on a runner given a no-op ADK
plugin of its own (``before/after_model`` + ``before/after_tool`` returning None): what ADK's
hook system costs for the same no-op PRE+POST work.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, Callable
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.plugins.base_plugin import BasePlugin
from google.adk.runners import InMemoryRunner
from google.genai import types

from benchmarks.adapters import FrameworkBench, NativeSwitch

logging.getLogger("google_adk").setLevel(logging.ERROR)  # "missing token usage metadata" notices


class ScriptedLlm(BaseLlm):
    model: str = "scripted"

    async def generate_content_async(self, llm_request: LlmRequest,
                                     stream: bool = False) -> AsyncGenerator[LlmResponse, None]:
        if not any(c.role == "model" for c in llm_request.contents):
            part = types.Part(function_call=types.FunctionCall(id="c1", name="add", args={"a": 2, "b": 3}))
        else:
            part = types.Part(text="5")
        yield LlmResponse(content=types.Content(role="model", parts=[part]))


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


class NoopPlugin(BasePlugin):
    def __init__(self) -> None:
        super().__init__(name="noop")

    async def before_model_callback(self, *, callback_context: Any, llm_request: Any) -> None:
        return None

    async def after_model_callback(self, *, callback_context: Any, llm_response: Any) -> None:
        return None

    async def before_tool_callback(self, *, tool: Any, tool_args: Any, tool_context: Any) -> None:
        return None

    async def after_tool_callback(self, *, tool: Any, tool_args: Any, tool_context: Any, result: Any) -> None:
        return None


NATIVE = NativeSwitch()


def make_run() -> Callable[[], Any]:
    loop = asyncio.new_event_loop()
    runners = {
        native: InMemoryRunner(agent=LlmAgent(name="bench", model=ScriptedLlm(), tools=[add]), app_name="bench",
                               plugins=[NoopPlugin()] if native else None)
        for native in (False, True)
    }
    message = types.Content(role="user", parts=[types.Part(text="add 2 and 3")])

    async def one(runner: InMemoryRunner) -> Any:
        session = await runner.session_service.create_session(app_name="bench", user_id="u")
        last = None
        async for event in runner.run_async(user_id="u", session_id=session.id, new_message=message):
            last = event
        return last

    def run() -> Any:
        return loop.run_until_complete(one(runners[bool(NATIVE)]))

    return run


BENCH = FrameworkBench(
    adapter="google-adk",
    make_run=make_run,
    describe="Runner.run_async: scripted BaseLlm, 1 tool call",
    native=NATIVE.on,
    calls_per_round=50,
)
