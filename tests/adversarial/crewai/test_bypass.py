"""Bypass attempts on the crewai adapter: every way a refused tool could run anyway.

Each test counts ``purge_records``'s real executions with a deny (0) and in a twin without
it (1+: the path really reaches the tool). The crews run on the harness's scripted model.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from hookport import InterceptionPoint, adapters, on, scoped_hooks
from hookport.contexts import ToolCallHookContext
from tests.adapters.crewai.harness import (
    _RUNS,
    CREW_STREAMS,
    NATIVE_TOOLS,
    CrewAIHarness,
    PurgeRecordsInput,
    _Record,
)
from tests.adversarial.kit import DENY, PURGE, REASON, Runs, deny, deny_at_first_model_call, deny_scoped
from tests.conformance.harness import Turn

from crewai.tools import BaseTool, tool

P = InterceptionPoint
MODES = ["native", "react"] if NATIVE_TOOLS else ["react"]
ENTRIES = ["sync", "async", "batch", *(["stream"] if CREW_STREAMS else [])]


def tool_form(form: str, runs: Runs) -> Any:
    """``purge_records`` in each shape crewai has for a tool."""
    if form == "subclass":
        class Purge(BaseTool):
            name: str = PURGE
            description: str = "Delete every record of a table."
            args_schema: type = PurgeRecordsInput

            def _run(self, table: str) -> str:
                return runs.note(table=table)

        return Purge()
    if form == "function":
        @tool(PURGE)
        def wipe(table: str) -> str:
            """Delete every record of a table."""
            return runs.note(table=table)

        return wipe
    if form == "async_function":
        @tool(PURGE)
        async def awipe(table: str) -> str:
            """Delete every record of a table."""
            return runs.note(table=table)

        return awipe
    raise ValueError(form)


FORMS = ["subclass", "function", "async_function"]


def kickoff(tools: list[Any], script: list[Turn], *, entry: str = "sync", mode: str | None = None,
            agent: str = "alpha") -> Any:
    """A one-agent crew with `tools`, on the scripted model, through `entry`."""
    harness = CrewAIHarness(mode=mode)  # type: ignore[arg-type]
    run_id = f"adv-{id(tools)}-{len(_RUNS)}"
    _RUNS[run_id] = _Record(script)
    try:
        crew = harness.make_crew(run_id, agent, "Purge the users table.", tools=tools)
        return harness._kickoff(crew, entry)  # type: ignore[arg-type]
    finally:
        _RUNS.pop(run_id, None)


PURGE_ONCE = [Turn.call(PURGE, table="users"), Turn.final("done")]


# -- entry points and tool paths --------------------------------------------------------------------


@pytest.mark.parametrize("deny_it", DENY, ids=["twin", "deny"])
@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("mode", MODES)
def test_crew_entries(mode: str, entry: str, deny_it: bool) -> None:
    if deny_it:
        deny()
    runs = Runs()
    kickoff([tool_form("subclass", runs)], PURGE_ONCE, entry=entry, mode=mode)
    assert len(runs.calls) == (0 if deny_it else (2 if entry == "batch" else 1))


@pytest.mark.parametrize("deny_it", DENY, ids=["twin", "deny"])
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("mode", MODES)
def test_tool_forms(mode: str, form: str, deny_it: bool) -> None:
    if deny_it:
        deny()
    runs = Runs()
    kickoff([tool_form(form, runs)], PURGE_ONCE, mode=mode)
    assert len(runs.calls) == (0 if deny_it else 1)


@pytest.mark.parametrize("deny_it", DENY, ids=["twin", "deny"])
@pytest.mark.parametrize("entry", ["sync", "async"])
def test_standalone_agent_kickoff(entry: str, deny_it: bool) -> None:
    """``Agent.kickoff`` with no crew (crewai's lite-agent path)."""
    harness = CrewAIHarness()
    run_id = "adv-standalone"
    _RUNS[run_id] = _Record(PURGE_ONCE)
    if deny_it:
        deny()
    runs = Runs()
    try:
        crew = harness.make_crew(run_id, "alpha", "Purge.", tools=[tool_form("subclass", runs)])
        member = crew.agents[0]
        if not callable(getattr(member, "kickoff", None)):
            pytest.skip("this crewai has no standalone Agent.kickoff")
        if entry == "sync":
            member.kickoff("Purge the users table.")
        elif callable(getattr(member, "kickoff_async", None)):
            asyncio.run(member.kickoff_async("Purge the users table."))
        else:
            pytest.skip("this crewai has no Agent.kickoff_async")
    finally:
        _RUNS.pop(run_id, None)
    assert len(runs.calls) == (0 if deny_it else 1)


@pytest.mark.skipif(not NATIVE_TOOLS, reason="crewai 1.5 / 1.6 have no native (parallel) tool calls")
@pytest.mark.parametrize("deny_it", DENY, ids=["twin", "deny"])
@pytest.mark.parametrize("entry", ["sync", "async"])
def test_parallel_native_tool_calls(entry: str, deny_it: bool) -> None:
    if deny_it:
        deny()
    runs = Runs()
    turn = Turn(tool_calls=[Turn.call(PURGE, table=t).tool_calls[0] for t in ("users", "logs", "audit")])
    kickoff([tool_form("subclass", runs)], [turn, Turn.final("done")], entry=entry, mode="native")
    assert len(runs.calls) == (0 if deny_it else 3)


@pytest.mark.parametrize("deny_it", DENY, ids=["twin", "deny"])
def test_scoped_deny_in_async_task_thread(deny_it: bool) -> None:
    """``Task(async_execution=True)`` runs in a thread crewai starts."""
    from crewai import Crew, Task

    harness = CrewAIHarness()
    run_id = "adv-async-task"
    _RUNS[run_id] = _Record(PURGE_ONCE)
    runs = Runs()
    try:
        base = harness.make_crew(run_id, "alpha", "Purge.", tools=[tool_form("subclass", runs)])
        member = base.agents[0]
        first = Task(description="Purge the users table.", expected_output="ok", agent=member, async_execution=True)
        last = Task(description="Report.", expected_output="ok", agent=member, context=[first])
        with scoped_hooks():
            if deny_it:
                deny_scoped()
            Crew(agents=[member], tasks=[first, last], verbose=False).kickoff()
    finally:
        _RUNS.pop(run_id, None)
    assert len(runs.calls) == (0 if deny_it else 2)  # each task's conversation calls the tool once


# -- the body layer alone: places where crewai runs a tool with no tool hook -------------------------


@pytest.mark.parametrize("deny_it", DENY, ids=["twin", "deny"])
@pytest.mark.parametrize("route", ["run", "structured_invoke", "arun", "structured_ainvoke"])
def test_body_guard_in_a_flow_method(route: str, deny_it: bool) -> None:
    """A Flow method (a workflow node) runs a tool itself: no crewai tool hook runs there."""
    from crewai.flow.flow import Flow, start

    if route == "arun" and not callable(getattr(BaseTool, "arun", None)):
        pytest.skip("this crewai has no BaseTool.arun")
    if deny_it:
        deny()
    runs = Runs()
    purge = tool_form("async_function" if route == "arun" else "function", runs)

    class Cleanup(Flow):  # type: ignore[misc, type-arg]
        @start()
        async def purge_now(self) -> Any:
            if route == "run":
                return purge.run(table="users")
            structured = purge.to_structured_tool()
            if route == "structured_invoke":
                return structured.invoke({"table": "users"})
            if route == "structured_ainvoke":
                return await structured.ainvoke({"table": "users"})
            return await purge.arun(table="users")

    answer = Cleanup().kickoff()
    assert len(runs.calls) == (0 if deny_it else 1)
    if deny_it:
        assert answer == f"Tool execution blocked by hook. Tool: purge_records. Reason: {REASON}"


@pytest.mark.parametrize("deny_it", DENY, ids=["twin", "deny"])
def test_nested_same_named_tool_called_directly(deny_it: bool) -> None:
    """An allowed ``purge_records`` whose body runs another ``purge_records`` with refused arguments."""
    if deny_it:
        deny({"table": "secret"})
    runs = Runs()
    inner = tool_form("subclass", runs)
    outer_runs: list[str] = []

    @tool(PURGE)
    def outer(table: str) -> str:
        """Purge through the records service's own tool."""
        outer_runs.append(table)
        return str(inner.run(table="secret"))

    kickoff([outer], [Turn.call(PURGE, table="public"), Turn.final("done")])
    assert outer_runs == ["public"]
    assert len(runs.calls) == (0 if deny_it else 1)


def test_one_dispatch_per_call() -> None:
    """The call site and the body see one call: one PRE per crewai tool call."""
    seen: list[str] = []

    @on(P.PRE_TOOL_CALL, tools=[PURGE])
    def count(ctx: ToolCallHookContext) -> None:
        seen.append(ctx.tool_name)

    runs = Runs()
    kickoff([tool_form("subclass", runs)], PURGE_ONCE)
    assert len(runs.calls) == 1 and seen == [PURGE]


# -- registration timing and install order ---------------------------------------------------------------


@pytest.mark.parametrize("deny_it", DENY, ids=["twin", "deny"])
def test_deny_registered_by_a_tool_mid_run(deny_it: bool) -> None:
    runs = Runs()

    @tool("kill_switch")
    def kill_switch(reason: str) -> str:
        """Stop all purges."""
        if deny_it:
            deny()
        return "armed"

    script = [Turn.call("kill_switch", reason="incident"), Turn.call(PURGE, table="users"), Turn.final("done")]
    kickoff([kill_switch, tool_form("subclass", runs)], script)
    assert len(runs.calls) == (0 if deny_it else 1)


@pytest.mark.parametrize("deny_it", DENY, ids=["twin", "deny"])
def test_deny_registered_at_the_first_model_call(deny_it: bool) -> None:
    runs = Runs()
    deny_at_first_model_call(deny_it, runs)

    kickoff([tool_form("subclass", runs)], PURGE_ONCE)
    assert len(runs.calls) == (0 if deny_it else 1)


@pytest.mark.parametrize("deny_it", DENY, ids=["twin", "deny"])
@pytest.mark.parametrize("order", ["install_after_build", "reinstall"])
def test_install_orders(order: str, deny_it: bool) -> None:
    harness = CrewAIHarness()
    run_id = f"adv-order-{order}"
    _RUNS[run_id] = _Record(PURGE_ONCE)
    runs = Runs()
    adapters.uninstall("crewai")
    try:
        crew = harness.make_crew(run_id, "alpha", "Purge.", tools=[tool_form("subclass", runs)])
        adapters.install("crewai")
        if order == "reinstall":
            adapters.uninstall("crewai")
            adapters.install("crewai")
        if deny_it:
            deny()
        harness._kickoff(crew, "sync")
    finally:
        _RUNS.pop(run_id, None)
        adapters.install("crewai")
    assert len(runs.calls) == (0 if deny_it else 1)
