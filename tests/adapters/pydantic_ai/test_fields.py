"""The fields ported hooks rely on, on Pydantic AI: ``ctx.iterations`` on every entry point and per agent,
and the refusal text the model reads."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from hookport import HookAborted, InterceptionPoint, on
from tests.conformance.harness import ToolCall, Turn

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent  # noqa: E402

from tests.adapters.pydantic_ai.harness import ScriptedModel, _Record, make_agent  # noqa: E402

P = InterceptionPoint
SCRIPT = [Turn.call("add_numbers", a=1, b=2), Turn.call("add_numbers", a=2, b=3), Turn.final("done")]


def _drive(agent: Agent[None, str], entry: str) -> Any:
    if entry == "run_sync":
        return agent.run_sync("go").output
    if entry == "run":
        return asyncio.run(agent.run("go")).output
    if entry == "run_stream":
        async def streamed() -> Any:
            async with agent.run_stream("go") as result:
                return await result.get_output()

        return asyncio.run(streamed())

    async def iterated() -> Any:
        async with agent.iter("go") as run:
            async for _node in run:
                pass
        return run.result.output if run.result else None

    return asyncio.run(iterated())


@pytest.mark.parametrize("entry", ["run_sync", "run", "run_stream", "iter"])
def test_iterations_count_this_runs_model_calls_from_zero(pydantic_ai_adapter: Any, entry: str) -> None:
    seen: list[int] = []
    on(P.PRE_MODEL_CALL)(lambda ctx: seen.append(ctx.iterations))
    assert _drive(make_agent(_Record(SCRIPT), "alpha"), entry) == "done"
    assert seen == [0, 1, 2]
    seen.clear()  # a second execution of the same agent counts from 0 again
    assert _drive(make_agent(_Record(SCRIPT), "alpha"), entry) == "done"
    assert seen == [0, 1, 2]


def test_a_loop_guard_stops_an_endless_loop_on_every_entry(pydantic_ai_adapter: Any) -> None:
    endless = [Turn.call("add_numbers", a=i, b=1) for i in range(12)] + [Turn.final("never")]

    @on(P.PRE_MODEL_CALL)
    def guard(ctx: Any) -> None:
        if ctx.iterations >= 2:
            raise HookAborted(reason="iteration limit", source="loop_guard")

    for entry in ("run_sync", "run", "run_stream", "iter"):
        record = _Record(endless)
        with pytest.raises(HookAborted, match="iteration limit"):
            _drive(make_agent(record, "alpha"), entry)
        assert len(record.model_inputs) == 2, entry


def test_a_sub_agent_counts_its_own_model_calls(pydantic_ai_adapter: Any) -> None:
    """Agent delegation (a tool that runs another agent): the inner run is its own execution of
    model calls, counted from 0; the outer run's count goes on where it was."""
    seen: list[tuple[str | None, int]] = []
    on(P.PRE_MODEL_CALL)(lambda ctx: seen.append((ctx.agent_role, ctx.iterations)))
    inner = make_agent(_Record([Turn.call("add_numbers", a=1, b=1), Turn.final("two")]), "inner")
    outer_record = _Record([Turn.call("add_numbers", a=0, b=0), Turn.call("ask_inner", question="1+1?"),
                            Turn.final("outer done")])
    outer: Agent[None, str] = Agent(ScriptedModel(outer_record).model(), name="outer")

    @outer.tool_plain
    def add_numbers(a: int, b: int) -> str:
        """Add two integers."""
        return str(a + b)

    @outer.tool_plain
    async def ask_inner(question: str) -> str:
        """Ask the inner agent."""
        return (await inner.run(question)).output

    assert outer.run_sync("go").output == "outer done"
    assert seen == [("outer", 0), ("outer", 1), ("inner", 0), ("inner", 1), ("outer", 2)]


@pytest.mark.parametrize("entry", ["sync", "async", "stream"])
def test_the_refusal_the_model_reads_names_the_tool_and_its_call(harness: Any, entry: str) -> None:
    """The model reads the refusal as the tool return of that very call (its id), and its text names
    the tool and carries the reason: never a bare "the tool call was denied" nor a traceback."""

    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def refuse(ctx: Any) -> None:
        raise HookAborted(reason="purging needs a change ticket", source="policy")

    both = Turn(tool_calls=[ToolCall("purge_records", {"table": "users"}, id="call_p"),
                            ToolCall("add_numbers", {"a": 1, "b": 2}, id="call_a")])
    result = harness.run([both, Turn.final("ok")], entry=entry)
    result.raise_error()
    returns = {m["tool_call_id"]: m for m in result.model_inputs[1] if m["kind"] == "tool-return"}
    assert returns["call_p"]["content"] == "The tool call to purge_records was denied: purging needs a change ticket"
    assert returns["call_p"]["tool_name"] == "purge_records"
    assert returns["call_a"]["content"] == "3"
    assert result.runs_of("purge_records") == []
