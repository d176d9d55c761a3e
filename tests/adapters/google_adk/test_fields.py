"""The fields ported hooks rely on, on ADK: ``ctx.iterations`` on every runner entry and per agent run,
and the refusal the model reads."""

from __future__ import annotations

from typing import Any

import pytest
from google.adk.agents import LlmAgent
from google.adk.runners import InMemoryRunner
from google.adk.tools.agent_tool import AgentTool

from hookport import HookAborted, InterceptionPoint, on, register_hook
from tests.adapters.google_adk.harness import Record, ScriptedLlm, make_runner, make_tools, run_events
from tests.conformance.harness import ToolCall, Turn

P = InterceptionPoint
SCRIPT = [Turn.call("add_numbers", a=1, b=2), Turn.call("add_numbers", a=2, b=3), Turn.final("done")]


def _record_iterations() -> list[tuple[str | None, int]]:
    seen: list[tuple[str | None, int]] = []
    on(P.PRE_MODEL_CALL)(lambda ctx: seen.append((ctx.agent_role, ctx.iterations)))
    return seen


@pytest.mark.parametrize("entry", ["sync", "async", "stream"])
def test_iterations_count_this_runs_model_calls_from_zero(adk_adapter: Any, entry: str) -> None:
    seen = _record_iterations()
    runner = make_runner(Record(SCRIPT), "alpha")
    run_events(runner, entry, "go")
    assert seen == [("alpha", 0), ("alpha", 1), ("alpha", 2)]
    seen.clear()  # the next run of the same runner and agent is a new execution: from 0 again
    runner.agent.model = ScriptedLlm(Record(SCRIPT))
    run_events(runner, entry, "go again")
    assert [n for _name, n in seen] == [0, 1, 2]


@pytest.mark.parametrize("entry", ["sync", "async", "stream"])
def test_a_loop_guard_stops_an_endless_loop_on_every_entry(adk_adapter: Any, entry: str) -> None:
    @on(P.PRE_MODEL_CALL)
    def guard(ctx: Any) -> None:
        if ctx.iterations >= 2:
            raise HookAborted(reason="iteration limit", source="loop_guard")

    record = Record([Turn.call("add_numbers", a=i, b=1) for i in range(12)] + [Turn.final("never")])
    with pytest.raises(HookAborted, match="iteration limit"):
        run_events(make_runner(record, "alpha"), entry, "go")
    assert len(record.model_inputs) == 2


def test_an_agent_tool_counts_its_own_model_calls(adk_adapter: Any) -> None:
    """``AgentTool``: the helper's run is its own agent run, counted from 0; the boss's goes on."""
    seen = _record_iterations()
    helper = LlmAgent(name="helper", model=ScriptedLlm(Record([Turn.call("add_numbers", a=1, b=1),
                                                              Turn.final("two")])),
                      instruction="help", description="helps", tools=make_tools(Record([])))
    boss = Record([Turn.call("add_numbers", a=0, b=0), Turn.call("helper", request="1+1?"), Turn.final("done")])
    agent = LlmAgent(name="boss", model=ScriptedLlm(boss), instruction="delegate",
                     tools=[*make_tools(boss), AgentTool(agent=helper)])
    run_events(InMemoryRunner(agent=agent, app_name="hookport"), "async", "go")
    assert seen == [("boss", 0), ("boss", 1), ("helper", 0), ("helper", 1), ("boss", 2)]


def test_a_transfer_to_a_sub_agent_counts_its_own_model_calls(adk_adapter: Any) -> None:
    """``sub_agents`` + ``transfer_to_agent``: the sub-agent's run has its own invocation context."""
    seen = _record_iterations()
    helper = LlmAgent(name="helper", model=ScriptedLlm(Record([Turn.call("add_numbers", a=1, b=1),
                                                              Turn.final("two")])),
                      instruction="help", description="helps", tools=make_tools(Record([])))
    boss = Record([Turn.call("add_numbers", a=0, b=0), Turn.call("transfer_to_agent", agent_name="helper"),
                   Turn.final("never")])
    agent = LlmAgent(name="boss", model=ScriptedLlm(boss), instruction="delegate", tools=make_tools(boss),
                     sub_agents=[helper])
    run_events(InMemoryRunner(agent=agent, app_name="hookport"), "async", "go")
    assert seen == [("boss", 0), ("boss", 1), ("helper", 0), ("helper", 1)]


def _refuse(ctx: Any) -> None:
    raise HookAborted(reason="purging needs a change ticket", source="policy")


PARALLEL = [ToolCall("purge_records", {"table": "users"}, id="call_p"),
            ToolCall("add_numbers", {"a": 1, "b": 2}, id="call_a")]


@pytest.mark.parametrize("entry", ["sync", "async", "stream"])
def test_the_refusal_the_model_reads_names_the_tool_and_its_call(harness: Any, entry: str) -> None:
    """ADK's function response carries the call's id and name; its error text names the tool too."""
    register_hook(P.PRE_TOOL_CALL, _refuse, tools=["purge_records"])
    result = harness.run([Turn(tool_calls=[ToolCall(c.name, dict(c.args), c.id) for c in PARALLEL]),
                          Turn.final("ok")], entry=entry)
    result.raise_error()
    returns = {m["tool_result"]["id"]: m["tool_result"] for m in result.model_inputs[1] if "tool_result" in m}
    assert returns["call_p"]["name"] == "purge_records"
    assert returns["call_p"]["response"] == {
        "error": "Tool call purge_records was refused: purging needs a change ticket"}
    assert returns["call_a"]["response"] == {"result": "3"}
    assert result.runs_of("purge_records") == []
