"""``ctx.iterations`` and the refusal text on AutoGen (issue 29): the model calls this agent made
before this one in the run, from 0, whatever else is registered; in a team each participant counts
its own (across its turns of that run); an agent run as a tool is a run of its own. A refusal the
model reads names the tool, is bound to its call id and carries the reason."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("autogen_agentchat")

from autogen_agentchat.conditions import MaxMessageTermination  # noqa: E402
from autogen_agentchat.teams import RoundRobinGroupChat  # noqa: E402

from hookport import HookAborted, InterceptionPoint, on, unregister_hook  # noqa: E402
from hookport.compat.crewai import before_tool_call  # noqa: E402

from tests.adapters.autogen.harness import drain, runner  # noqa: E402
from tests.conformance.harness import Turn  # noqa: E402

P = InterceptionPoint


def agent(name: str, script: list[Turn], requests: list[Any] | None = None, runs: list[Any] | None = None, *,
          reflect: bool = True, tools: tuple[Any, ...] = (), stream: bool = False) -> Any:
    """The agent that runs `script` in one run (on 0.5.7 its single-agent team when the script needs a
    tool loop: the harness's `runner`)."""
    return runner(name, script, requests if requests is not None else [], runs if runs is not None else [],
                  reflect=reflect, tools=tools, stream=stream)


def three_calls() -> list[Turn]:
    return [Turn.call("add_numbers", a=1, b=2), Turn.call("add_numbers", a=3, b=4), Turn.final("done")]


def record_iterations() -> list[tuple[str, int]]:
    seen: list[tuple[str, int]] = []

    @on(P.PRE_MODEL_CALL)
    def record(ctx: Any) -> None:
        seen.append((ctx.agent_role, ctx.iterations))

    return seen


def test_a_model_hook_registered_mid_run_reads_the_calls_already_made(harness: Any) -> None:
    """Before: the count only moved while a model hook was registered."""
    seen: list[int] = []

    def record(ctx: Any) -> None:
        seen.append(ctx.iterations)

    @on(P.POST_TOOL_CALL)
    def join(ctx: Any) -> None:
        if not seen:
            on(P.PRE_MODEL_CALL)(record)

    try:
        asyncio.run(agent("alpha", three_calls()).run(task="go"))
    finally:
        unregister_hook(P.PRE_MODEL_CALL, record)
    assert seen[:2] == [1, 2]


def test_in_a_team_each_participant_counts_its_own_across_its_turns(harness: Any) -> None:
    """Before: each speaker's turn started again from 0."""
    seen = record_iterations()
    alpha = agent("alpha", [Turn.call("add_numbers", a=1, b=1), Turn.final("alpha one"), Turn.final("alpha two")],
                  reflect=False)
    beta = agent("beta", [Turn.final("beta one"), Turn.final("beta two")])
    team = RoundRobinGroupChat([alpha, beta], termination_condition=MaxMessageTermination(5))
    asyncio.run(team.run(task="talk"))
    assert seen == [("alpha", 0), ("alpha", 1), ("beta", 0), ("alpha", 2), ("beta", 1)], seen


def test_a_new_run_counts_from_zero(harness: Any) -> None:
    seen = record_iterations()
    worker = agent("alpha", [*three_calls(), Turn.final("again")])
    asyncio.run(worker.run(task="go"))
    asyncio.run(worker.run(task="again"))
    assert [n for _, n in seen] == [0, 1, 2, 0]


def test_an_agent_used_as_a_tool_counts_its_own_runs(harness: Any) -> None:
    """``AgentTool``: each run of the sub-agent is its own, from 0; the parent's count goes on."""
    from autogen_agentchat.tools import AgentTool

    seen = record_iterations()
    helper = agent("helper", [Turn.call("add_numbers", a=1, b=1), Turn.final("helper one"),
                              Turn.final("helper two")], reflect=False)
    boss = agent("boss", [Turn.call("helper", task="first"), Turn.call("helper", task="second"), Turn.final("done")],
                 reflect=False, tools=(AgentTool(helper),))
    asyncio.run(boss.run(task="delegate"))
    assert seen == [("boss", 0), ("helper", 0), ("helper", 1), ("boss", 1), ("helper", 0), ("boss", 2)], seen


@pytest.mark.parametrize("stream", [False, True], ids=["run", "stream"])
@pytest.mark.parametrize("dialect", ["abort", "legacy"])
def test_the_refusal_the_model_reads(harness: Any, stream: bool, dialect: str) -> None:
    if dialect == "abort":
        @on(P.PRE_TOOL_CALL, tools=["purge_records"])
        def refuse(ctx: Any) -> None:
            raise HookAborted(reason="purging needs a change ticket", source="policy")
        reason = "purging needs a change ticket"
    else:
        @before_tool_call
        def refuse_legacy(ctx: Any) -> Any:
            return False if ctx.tool_name == "purge_records" else None
        reason = "before_tool_call hook returned False"

    requests: list[Any] = []
    runs: list[Any] = []
    worker = agent("alpha", [Turn.call("purge_records", table="users"), Turn.final("done")], requests, runs,
                   stream=stream)
    asyncio.run(drain(worker, "go") if stream else worker.run(task="go"))
    assert runs == []
    assert requests[-1][-1] == {"role": "tool", "tool_call_id": "call_1",
                                "content": f"Error: Tool call purge_records was refused: {reason}"}
