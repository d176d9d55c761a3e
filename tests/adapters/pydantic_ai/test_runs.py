"""Runs on Pydantic AI: iter, nested agents, the prompt an INPUT hook replaced, install and uninstall."""

from __future__ import annotations

import asyncio
import warnings
from typing import Any

import pytest

from hookport import ExtensionPoint, InterceptionPoint, adapters, on, register_hook
from tests.conformance.harness import Turn

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent  # noqa: E402

from tests.adapters.pydantic_ai.harness import ScriptedModel, _Record, make_agent  # noqa: E402
from tests.conformance.test_scenarios import Recorder  # noqa: E402

P = InterceptionPoint
W = ExtensionPoint


def test_iter_with_a_bare_loop_is_one_execution_with_steps(pydantic_ai_adapter: Any) -> None:
    recorder = Recorder()
    record = _Record([Turn.call("add_numbers", a=2, b=3), Turn.final("five")])
    agent = make_agent(record, "alpha")

    async def drive() -> Any:
        async with agent.iter("What is 2 + 3?") as run:
            async for _node in run:
                pass
        return run.result

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # installing hookport adds no warning to a bare loop
        result = asyncio.run(drive())
    assert result.output == "five"
    points = recorder.points()
    assert points[:2] == [P.EXECUTION_START, P.INPUT] and points[-2:] == [P.OUTPUT, P.EXECUTION_END]
    steps = [c.step_name for c in recorder.contexts(P.PRE_STEP)]
    assert steps == ["UserPromptNode", "ModelRequestNode", "CallToolsNode", "ModelRequestNode", "CallToolsNode"]
    assert recorder.count(P.POST_STEP) == len(steps)


def test_a_nested_agent_is_one_execution_and_two_turns(pydantic_ai_adapter: Any) -> None:
    recorder = Recorder((P.EXECUTION_START, P.EXECUTION_END))
    turns: list[str] = []
    prompts: list[str] = []
    register_hook(W.AGENT_TURN_START, lambda ctx: (turns.append(ctx.step_name), prompts.append(ctx.payload)))
    inner = make_agent(_Record([Turn.final("inner answer")]), "inner")
    outer_record = _Record([Turn.call("ask_inner", question="hi"), Turn.final("outer answer")])
    outer: Agent[None, str] = Agent(ScriptedModel(outer_record).model(), name="outer")

    @outer.tool_plain
    async def ask_inner(question: str) -> str:
        """Ask the inner agent."""
        return (await inner.run(question)).output

    assert outer.run_sync("go").output == "outer answer"
    assert recorder.count(P.EXECUTION_START) == 1 and recorder.count(P.EXECUTION_END) == 1
    assert turns == ["outer", "inner"] and prompts == ["go", "hi"]


def test_input_replacement_reaches_the_model(harness: Any) -> None:
    on(P.INPUT)(lambda ctx: "What is 40 + 2?")
    result = harness.run([Turn.final("42")])
    result.raise_error()
    assert "40 + 2" in result.seen_by_model() and "2 + 3" not in result.seen_by_model()


def test_an_agent_built_before_install_is_hooked_and_uninstall_leaves_nothing() -> None:
    pytest.importorskip("pydantic_ai")
    from pydantic_ai.capabilities.combined import CombinedCapability

    was_installed = "pydantic-ai" in adapters.installed()
    adapters.uninstall("pydantic-ai")
    gate = CombinedCapability.__dict__.get("_has_wrap_model_request")  # 2.x: Pydantic AI's own, restored
    record = _Record([Turn.call("add_numbers", a=2, b=3), Turn.final("done")])
    agent = make_agent(record, "early")  # built before install
    fired: list[str] = []
    on(P.PRE_TOOL_CALL)(lambda ctx: fired.append(ctx.tool_name))
    on(P.PRE_MODEL_CALL)(lambda ctx: fired.append("model"))
    try:
        adapters.install("pydantic-ai")
        agent.run_sync("go")
        assert fired == ["model", "add_numbers", "model"]
        adapters.uninstall("pydantic-ai")
        fired.clear()
        agent.run_sync("go")
        assert fired == [] and len(record.tool_runs) == 2
        assert _hookport_capabilities(agent) == []
        assert CombinedCapability.__dict__.get("_has_wrap_model_request") is gate
    finally:
        if was_installed:
            adapters.install("pydantic-ai")


def _hookport_capabilities(agent: Any) -> list[str]:
    names: list[str] = []
    agent._root_capability.apply(  # noqa: SLF001
        lambda c: names.append(type(c).__name__) if type(c).__module__.startswith("hookport") else None)
    return names


def test_no_agent_holds_a_capability_of_hookports_and_every_agent_is_hooked(pydantic_ai_adapter: Any) -> None:
    """Every capability in a run costs each of its lifecycle hooks, so hookport joins below them: an agent
    built before any hook and one built with a hook registered hold none of hookport's, and both are
    hooked (a hook registered after the agent was built too)."""
    record = _Record([Turn.call("add_numbers", a=2, b=3), Turn.final("done")])
    idle_agent = make_agent(record, "idle")
    fired: list[str] = []
    register_hook(P.PRE_TOOL_CALL, lambda ctx: fired.append(f"{ctx.agent_role}:{ctx.tool_name}"))
    idle_agent.run_sync("go")
    hooked_agent = make_agent(_Record([Turn.call("add_numbers", a=1, b=1), Turn.final("done")]), "hooked")
    hooked_agent.run_sync("go")
    assert fired == ["idle:add_numbers", "hooked:add_numbers"]
    assert _hookport_capabilities(idle_agent) == [] and _hookport_capabilities(hooked_agent) == []
