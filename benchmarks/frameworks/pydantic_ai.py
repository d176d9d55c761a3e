"""Pydantic AI: one ``Agent.run_sync`` (a model request asking for a tool, the tool, the answer).

The model is Pydantic AI's ``FunctionModel``, so the run is offline and the time is the
framework's own work. ``native`` runs the same agent built with a no-op capability of its own
(``wrap_model_request`` + ``wrap_tool_execute`` calling their handlers): what Pydantic AI's
hook system costs for the same no-op PRE+POST work. Agents are built after ``install()``, as
an application does at start-up; an agent built before gets hookport per run (measured
separately in docs/frameworks/pydantic-ai.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from benchmarks.adapters import FrameworkBench, NativeSwitch


def _script(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if not any(isinstance(p, ToolReturnPart) for m in messages for p in m.parts):
        return ModelResponse(parts=[ToolCallPart(tool_name="add", args={"a": 2, "b": 3}, tool_call_id="c1")])
    return ModelResponse(parts=[TextPart(content="5")])


@dataclass
class NoopCapability(AbstractCapability[Any]):
    async def wrap_model_request(self, ctx: Any, *, request_context: Any, handler: Any) -> Any:
        return await handler(request_context)

    async def wrap_tool_execute(self, ctx: Any, *, call: Any, tool_def: Any, args: Any, handler: Any) -> Any:
        return await handler(args)


NATIVE = NativeSwitch()


def _agent(native: bool) -> Agent[None, str]:
    agent: Agent[None, str] = Agent(FunctionModel(_script), name="bench",
                                    capabilities=[NoopCapability()] if native else None)

    @agent.tool_plain
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    return agent


def make_run() -> Callable[[], Any]:
    """Agents are built at start-up, after ``install()`` and after the hooks are registered, as the
    docs advise: one agent per state (so ``unpatched`` runs an agent that never saw hookport, and
    ``installed`` one built with no hook registered)."""
    from hookport import adapters
    from hookport.registry import has_hooks
    from hookport.points import InterceptionPoint

    agents: dict[tuple[bool, bool, bool], Agent[None, str]] = {}

    def run() -> Any:
        key = ("pydantic-ai" in adapters.installed(), bool(NATIVE), has_hooks(InterceptionPoint.PRE_MODEL_CALL))
        agent = agents.get(key)
        if agent is None:
            agent = agents[key] = _agent(native=key[1])
        return agent.run_sync("add 2 and 3")

    return run


BENCH = FrameworkBench(
    adapter="pydantic-ai",
    make_run=make_run,
    describe="Agent.run_sync: FunctionModel, 1 tool call",
    native=NATIVE.on,
    calls_per_round=100,
)
