"""``ctx.iterations`` on Agno: the model requests this run made before this one, from 0, on every
entry point, whatever else is registered; a team's leader and each member count their own."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("agno")

from agno.team import Team  # noqa: E402

from hookport import HookAborted, InterceptionPoint, on  # noqa: E402
from tests.adapters.agno.harness import ScriptedModel, build_agent, execute  # noqa: E402
from tests.conformance.harness import Turn, number_tool_calls  # noqa: E402

P = InterceptionPoint
pytestmark = pytest.mark.usefixtures("agno_adapter")


def endless() -> list[Turn]:
    return number_tool_calls([Turn.call("add_numbers", a=index, b=1) for index in range(12)] + [Turn.final("never")])


def loop_guard(limit: int) -> None:
    @on(P.PRE_MODEL_CALL)
    def guard(ctx: Any) -> None:
        if ctx.iterations >= limit:
            raise HookAborted(reason=f"iteration limit {limit} reached", source="loop_guard")


async def _astream(agent: Any) -> BaseException | None:
    try:
        async for _ in agent.arun("go", stream=True):
            pass
    except HookAborted as error:
        return error
    return None


@pytest.mark.parametrize("entry", ["sync", "async", "stream", "astream"])
def test_loop_guard_stops_an_endless_tool_loop_at_exactly_the_limit(entry: str) -> None:
    loop_guard(2)
    runs: list[Any] = []
    model = ScriptedModel(script=endless())
    agent = build_agent("alpha", model, runs)
    error = asyncio.run(_astream(agent)) if entry == "astream" else execute(agent, entry, "go")[1]  # type: ignore[arg-type]
    assert len(model.requests) == 2 and len(runs) == 2
    assert isinstance(error, HookAborted) and "iteration limit 2" in error.reason


def test_each_run_counts_from_zero_again() -> None:
    seen: list[int] = []
    on(P.PRE_MODEL_CALL)(lambda ctx: seen.append(ctx.iterations))
    agent = build_agent("alpha", ScriptedModel(script=number_tool_calls(
        [Turn.call("add_numbers", a=1, b=2), Turn.final("one"), Turn.final("two")])), [])
    agent.run("first")
    agent.run("second")
    assert seen == [0, 1, 0]


def test_team_leader_and_member_count_their_own_calls() -> None:
    seen: list[tuple[str | None, int]] = []
    on(P.PRE_MODEL_CALL)(lambda ctx: seen.append((ctx.agent_role, ctx.iterations)))
    member = build_agent("adder", ScriptedModel(script=number_tool_calls(
        [Turn.call("add_numbers", a=2, b=3), Turn.final("five")])), [])
    leader = ScriptedModel(script=number_tool_calls([
        Turn.call("delegate_task_to_member", member_id="adder", task="add 2 and 3"), Turn.final("the team says five")]))
    Team(name="crew", members=[member], model=leader, telemetry=False).run("add 2 and 3")
    assert seen == [("crew", 0), ("adder", 0), ("adder", 1), ("crew", 1)]
