"""Strands Agents: one ``Agent.invoke_async`` (a model request asking for a tool, the tool, the answer).

The model is a scripted ``strands.models.Model``, so the run is offline and the time is Strands'
own event loop. The runs are driven on one event loop in this thread (``agent(...)`` would do the
work on a thread of its own, which a CPU clock of this thread does not see). ``native`` runs the
same agent with a no-op Strands ``HookProvider`` of its own (``Before/AfterModelCallEvent`` +
``Before/AfterToolCallEvent`` callbacks doing nothing): what Strands' hook system costs for the
same no-op PRE+POST work.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncGenerator, Callable
from typing import Any

os.environ.setdefault("AWS_REGION", "us-east-1")

from strands import Agent, tool  # noqa: E402
from strands.hooks import (  # noqa: E402
    AfterModelCallEvent,
    AfterToolCallEvent,
    BeforeModelCallEvent,
    BeforeToolCallEvent,
    HookProvider,
    HookRegistry,
)
from strands.models.model import Model  # noqa: E402

from benchmarks.adapters import FrameworkBench, NativeSwitch  # noqa: E402


class ScriptedModel(Model):
    def update_config(self, **config: Any) -> None:
        pass

    def get_config(self) -> dict[str, Any]:
        return {}

    async def structured_output(self, *args: Any, **kwargs: Any) -> AsyncGenerator[Any, None]:
        raise NotImplementedError
        yield

    async def stream(self, messages: Any, tool_specs: Any = None, system_prompt: Any = None,
                     **kwargs: Any) -> AsyncGenerator[Any, None]:
        yield {"messageStart": {"role": "assistant"}}
        if not any(m["role"] == "assistant" for m in messages):
            yield {"contentBlockStart": {"start": {"toolUse": {"toolUseId": "c1", "name": "add"}}}}
            yield {"contentBlockDelta": {"delta": {"toolUse": {"input": '{"a": 2, "b": 3}'}}}}
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "tool_use"}}
            return
        yield {"contentBlockDelta": {"delta": {"text": "5"}}}
        yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "end_turn"}}


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


class NoopHooks(HookProvider):
    def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
        for event in (BeforeModelCallEvent, AfterModelCallEvent, BeforeToolCallEvent, AfterToolCallEvent):
            registry.add_callback(event, self.noop)

    def noop(self, event: Any) -> None:
        return None


NATIVE = NativeSwitch()


def make_run() -> Callable[[], Any]:
    loop = asyncio.new_event_loop()

    def run() -> Any:
        hooks = [NoopHooks()] if NATIVE else []
        agent = Agent(model=ScriptedModel(), tools=[add], hooks=hooks, callback_handler=None)
        return loop.run_until_complete(agent.invoke_async("add 2 and 3"))

    return run


BENCH = FrameworkBench(
    adapter="strands",
    make_run=make_run,
    describe="Agent.invoke_async: scripted Model, 1 tool call",
    native=NATIVE.on,
    calls_per_round=20,
)
