"""``ctx.iterations`` on Strands: the model requests this agent's invocation (``stream_async``, which
``agent(...)`` and ``invoke_async`` drain) made before this one, from 0, whatever else is
registered; an agent used as a tool (``as_tool()`` or a tool that invokes it) counts its own."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from strands import Agent, tool

from hookport import HookAborted, InterceptionPoint, on
from tests.adapters.strands.harness import Record, ScriptedModel, make_agent, make_tools, run_agent
from tests.conformance.harness import Turn

P = InterceptionPoint
pytestmark = pytest.mark.usefixtures("strands_adapter")


def endless() -> list[Turn]:
    return [Turn.call("add_numbers", a=index, b=1) for index in range(12)] + [Turn.final("never")]


@pytest.mark.parametrize("entry", ["sync", "async", "stream"])
def test_loop_guard_stops_an_endless_tool_loop_at_exactly_the_limit(entry: str) -> None:
    @on(P.PRE_MODEL_CALL)
    def guard(ctx: Any) -> None:
        if ctx.iterations >= 2:
            raise HookAborted(reason="iteration limit 2 reached", source="loop_guard")

    record = Record(endless())
    with pytest.raises(HookAborted, match="iteration limit 2"):
        run_agent(make_agent(record, "alpha"), entry, "go")  # type: ignore[arg-type]
    assert len(record.model_inputs) == 2 and len(record.tool_runs) == 2


def test_each_invocation_counts_from_zero_again() -> None:
    seen: list[int] = []
    on(P.PRE_MODEL_CALL)(lambda ctx: seen.append(ctx.iterations))
    agent = make_agent(Record([Turn.call("add_numbers", a=1, b=2), Turn.final("one"), Turn.final("two")]), "alpha")
    agent("first")
    asyncio.run(agent.invoke_async("second"))
    assert seen == [0, 1, 0]


def _orchestrator(sub_tool: Any, record: Record) -> Agent:
    return Agent(name="boss", model=ScriptedModel(record), tools=[sub_tool, *make_tools(record)],
                 system_prompt="Delegate.", callback_handler=None)


def _sub_agent() -> Agent:
    return make_agent(Record([Turn.call("add_numbers", a=2, b=3), Turn.call("add_numbers", a=5, b=1),
                              Turn.final("six")]), "helper")


def test_an_agent_used_as_a_tool_counts_its_own_calls() -> None:
    seen: list[tuple[str | None, int]] = []
    on(P.PRE_MODEL_CALL)(lambda ctx: seen.append((ctx.agent_role, ctx.iterations)))
    helper = _sub_agent()

    @tool
    async def ask_helper(question: str) -> str:
        """Ask the helper agent."""
        return str(await helper.invoke_async(question))

    boss = _orchestrator(ask_helper, Record([Turn.call("add_numbers", a=1, b=1),
                                              Turn.call("ask_helper", question="2+3+1?"), Turn.final("done")]))
    boss("go")
    assert seen == [("boss", 0), ("boss", 1), ("helper", 0), ("helper", 1), ("helper", 2), ("boss", 2)]


@pytest.mark.skipif(not hasattr(Agent, "as_tool"), reason="Agent.as_tool() came with strands 1.5x")
def test_as_tool_sub_agent_counts_its_own_calls() -> None:
    seen: list[tuple[str | None, int]] = []
    on(P.PRE_MODEL_CALL)(lambda ctx: seen.append((ctx.agent_role, ctx.iterations)))
    boss = _orchestrator(_sub_agent().as_tool(name="helper"),
                         Record([Turn.call("helper", input="2+3+1?"), Turn.final("done")]))
    boss("go")
    assert seen == [("boss", 0), ("helper", 0), ("helper", 1), ("helper", 2), ("boss", 1)]
