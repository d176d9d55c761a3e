"""Agno: one ``Agent.run`` (a model request asking for a tool, the tool, the answer).

The model is an ``agno.models.base.Model`` whose provider call is scripted, so the run is
offline and the time is Agno's own work (run set-up, its tool loop, function calls, run
bookkeeping). ``native`` runs the same agent built with a no-op ``tool_hooks`` entry of its
own (calling ``function_call(**arguments)``): what Agno's native tool hooks cost for the same
no-op work on the tool call. Agno has no native model hook, so ``native`` has none there.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

os.environ.setdefault("AGNO_TELEMETRY", "false")

from agno.agent import Agent  # noqa: E402
from agno.models.base import Model  # noqa: E402
from agno.models.response import ModelResponse  # noqa: E402

from benchmarks.adapters import FrameworkBench, NativeSwitch  # noqa: E402

CALL = [{"id": "c1", "type": "function", "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'}}]


@dataclass
class ScriptedModel(Model):
    id: str = "scripted"
    name: str = "scripted"
    provider: str = "bench"

    def invoke(self, messages: Any, assistant_message: Any = None, *args: Any, **kwargs: Any) -> ModelResponse:
        if any(m.role == "tool" for m in messages):
            return ModelResponse(role="assistant", content="5")
        return ModelResponse(role="assistant", content="", tool_calls=[dict(c) for c in CALL])

    async def ainvoke(self, *args: Any, **kwargs: Any) -> ModelResponse:
        return self.invoke(*args, **kwargs)

    def invoke_stream(self, *args: Any, **kwargs: Any) -> Any:
        yield self.invoke(*args, **kwargs)

    async def ainvoke_stream(self, *args: Any, **kwargs: Any) -> Any:
        yield self.invoke(*args, **kwargs)

    def _parse_provider_response(self, response: Any, **kwargs: Any) -> ModelResponse:
        return response

    def _parse_provider_response_delta(self, response: Any) -> ModelResponse:
        return response


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def noop_tool_hook(function_name: str, function_call: Any, arguments: dict[str, Any]) -> Any:
    return function_call(**arguments)


NATIVE = NativeSwitch()


def make_run() -> Callable[[], Any]:
    plain = Agent(name="bench", model=ScriptedModel(), tools=[add], telemetry=False)
    native = Agent(name="bench", model=ScriptedModel(), tools=[add], tool_hooks=[noop_tool_hook], telemetry=False)

    def run() -> Any:
        return (native if NATIVE else plain).run("add 2 and 3")

    return run


BENCH = FrameworkBench(
    adapter="agno",
    make_run=make_run,
    describe="Agent.run: scripted Model, 1 tool call",
    native=NATIVE.on,
    calls_per_round=100,
)
