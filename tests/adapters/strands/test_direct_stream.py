"""Tools streamed directly (no call site): the body guard with a no-op hook changes nothing the
caller sees (issue #29, strands' own tests). A use with no ``input`` or a string one reaches the
tool as the caller's own object, not one with ``input: {}`` put in; a refusal still stops the body."""

from __future__ import annotations

import asyncio
from typing import Any
from unittest.mock import MagicMock

import pytest
import strands
from strands.tools.tools import PythonAgentTool
from strands.types.tools import ToolContext

from hookport import HookAborted, InterceptionPoint, on

P = InterceptionPoint


async def _events(stream: Any) -> list[Any]:
    return [event async for event in stream]


def _noop(seen: list[str]) -> None:
    @on(P.PRE_TOOL_CALL)
    def watch(ctx: Any) -> None:
        seen.append(ctx.tool_name)


def _identity_tool(runs: list[Any]) -> PythonAgentTool:
    def identity(tool_use: Any, a: Any) -> Any:
        runs.append(tool_use)
        return tool_use, a

    spec = {"name": "identity", "description": "identity", "inputSchema": {"type": "object", "properties": {}}}
    return PythonAgentTool(tool_name="identity", tool_spec=spec, tool_func=identity)


def test_a_use_without_input_reaches_the_tool_as_given(strands_adapter: Any) -> None:
    """strands' tests/strands/tools/test_tools.py::test_stream, with a no-op hook."""
    seen: list[str] = []
    _noop(seen)
    runs: list[Any] = []
    tool_use: Any = {"tool_use": 1}
    events = asyncio.run(_events(_identity_tool(runs).stream(tool_use, {"a": 2})))
    assert seen == ["identity"], "the body guard did not decide the direct call"
    assert [e["tool_result"] for e in events] == [({"tool_use": 1}, 2)]
    assert runs[0] is tool_use


def test_a_refused_use_without_input_never_runs(strands_adapter: Any) -> None:
    @on(P.PRE_TOOL_CALL)
    def deny(ctx: Any) -> None:
        raise HookAborted("no", source="policy")

    runs: list[Any] = []
    events = asyncio.run(_events(_identity_tool(runs).stream({"toolUseId": "t1"}, {"a": 2})))
    assert runs == []
    assert events[-1]["tool_result"]["status"] == "error"


def test_the_same_tool_without_hookport_runs(strands_adapter: Any) -> None:
    """The deny test's twin: no hook, the tool runs once."""
    runs: list[Any] = []
    asyncio.run(_events(_identity_tool(runs).stream({"toolUseId": "t1"}, {"a": 2})))
    assert len(runs) == 1


def test_an_interrupt_names_the_use_as_given(strands_adapter: Any) -> None:
    """strands' tests/strands/tools/test_decorator.py::test_stream_interrupt, with a no-op hook."""
    interrupts = pytest.importorskip("strands.interrupt")  # interrupts arrived in 1.1x
    seen: list[str] = []
    _noop(seen)
    agent = MagicMock()
    agent._interrupt_state = interrupts._InterruptState()

    @strands.tool(context=True)
    def interrupt_tool(tool_context: ToolContext) -> str:
        return tool_context.interrupt("test_name", reason="test reason")

    tool_use: Any = {"toolUseId": "test_tool_id"}
    events = asyncio.run(_events(interrupt_tool.stream(tool_use, {"agent": agent})))
    assert seen == ["interrupt_tool"]
    assert len(events) == 1
    assert events[0]["tool_interrupt_event"]["tool_use"] == {"toolUseId": "test_tool_id"}


def test_an_agent_as_tool_gets_its_string_prompt(strands_adapter: Any) -> None:
    """strands' tests/strands/agent/test_agent_as_tool.py::test_stream_string_input, with a no-op hook."""
    module = pytest.importorskip("strands.agent._agent_as_tool")  # agent.as_tool() arrived in 1.5x
    from strands.agent.agent_result import AgentResult
    from strands.telemetry.metrics import EventLoopMetrics

    seen: list[str] = []
    _noop(seen)
    result = AgentResult(stop_reason="end_turn", message={"role": "assistant", "content": [{"text": "ok"}]},
                         metrics=EventLoopMetrics(), state={})

    async def stream_async(*args: Any, **kwargs: Any) -> Any:
        yield {"result": result}

    agent = MagicMock()
    agent.name = "test_agent"
    agent._interrupt_state = pytest.importorskip("strands.interrupt")._InterruptState()
    agent.stream_async = MagicMock(side_effect=stream_async)
    tool = module._AgentAsTool(agent, name="test_agent", description="A test agent", preserve_context=True)
    use = {"toolUseId": "tool-123", "name": "test_agent", "input": "direct string"}
    asyncio.run(_events(tool.stream(use, {})))
    assert seen == ["test_agent"]
    agent.stream_async.assert_called_once()
    assert agent.stream_async.call_args.args == ("direct string",)
