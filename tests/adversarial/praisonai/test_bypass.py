"""Bypass attempts on the PraisonAI adapter: every way a refused tool could run anyway.

Each test counts ``purge_records``'s real executions with a deny (0) and in a twin without
it (1+: the path really reaches the tool). The agents talk to the harness's scripted
OpenAI-compatible server on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from hookport import InterceptionPoint, adapters, register_hook, scoped_hooks
from tests.adapters.praisonai.harness import (
    INSTRUCTIONS,
    MODEL,
    SERVER,
    PraisonAIHarness,
    _joined,
    fresh_openai_client,
    praisonai_version,
)
from tests.adversarial.kit import DENY, PURGE, Runs, deny, deny_at_first_model_call, deny_scoped
from tests.conformance.harness import Turn

from praisonaiagents import Agent

P = InterceptionPoint
ENTRIES = list(PraisonAIHarness.entries)
BLOCKED = "Execution of purge_records was blocked by security policy."


def tool_form(form: str, runs: Runs) -> Any:
    """``purge_records`` in each shape PraisonAI takes a tool in."""
    if form == "function":
        def purge_records(table: str) -> str:
            """Delete every record of a table.

            Args:
                table: the table to purge
            """
            return runs.note(table=table)

        return purge_records
    if form == "async_function":
        async def purge_records(table: str) -> str:  # noqa: F811
            """Delete every record of a table.

            Args:
                table: the table to purge
            """
            return runs.note(table=table)

        return purge_records
    if form == "renamed":
        def wipe(table: str) -> str:
            """Delete every record of a table.

            Args:
                table: the table to purge
            """
            return runs.note(table=table)

        wipe.__name__ = wipe.__qualname__ = PURGE
        return wipe
    if form == "base_tool":
        from praisonaiagents.tools.base import BaseTool

        class Purge(BaseTool):
            name = PURGE
            description = "Delete every record of a table."

            def run(self, table: str) -> str:
                return runs.note(table=table)

        return Purge()
    raise ValueError(form)


FORMS = ["function", "async_function", "renamed", "base_tool"]


def make_agent(tools: list[Any], name: str = "alpha") -> Any:
    return Agent(name=name, instructions=INSTRUCTIONS, tools=tools, output="silent", model=MODEL)


def run(agent: Any, script: list[Turn], entry: str = "sync") -> Any:
    SERVER.script(script)
    fresh_openai_client()
    if entry == "sync":
        return agent.chat("Purge the users table.")
    if entry == "async":
        return asyncio.run(agent.achat("Purge the users table."))
    if entry == "start":
        return agent.start("Purge the users table.")
    if entry == "stream":
        return _joined(agent.start("Purge the users table.", stream=True))
    raise ValueError(entry)


PURGE_ONCE = [Turn.call(PURGE, table="users"), Turn.final("done")]


@pytest.mark.parametrize("deny_it", DENY, ids=["twin", "deny"])
@pytest.mark.parametrize("entry", [*ENTRIES, "start"])
def test_entries(entry: str, deny_it: bool) -> None:
    if deny_it:
        deny()
    runs = Runs()
    run(make_agent([tool_form("function", runs)]), PURGE_ONCE, entry)
    assert len(runs.calls) == (0 if deny_it else 1)


@pytest.mark.parametrize("deny_it", DENY, ids=["twin", "deny"])
@pytest.mark.parametrize("entry", ENTRIES[:2])
@pytest.mark.parametrize("form", FORMS)
def test_tool_forms(form: str, entry: str, deny_it: bool) -> None:
    if entry == "sync" and form in ("async_function", "base_tool") and praisonai_version() < (1, 6):
        pytest.skip("PraisonAI 1.5's sync loop runs neither (an async function's coroutine is sent to the "
                    "model unawaited; a BaseTool instance is never found by name): no path to guard")
    if entry == "sync" and form == "async_function" and praisonai_version() <= (1, 7, 0):
        pytest.skip("PraisonAI up to 1.7.0 never runs an async function tool's body from the sync loop "
                    "(the twin counted 0 runs without hookport on 1.6.168 and 1.7.0; 1.7.17 runs it): "
                    "no path to guard")
    if deny_it:
        deny()
    runs = Runs()
    run(make_agent([tool_form(form, runs)]), PURGE_ONCE, entry)
    assert len(runs.calls) == (0 if deny_it else 1)


@pytest.mark.parametrize("deny_it", DENY, ids=["twin", "deny"])
@pytest.mark.parametrize("entry", ENTRIES[:2])
def test_several_calls_in_one_turn(entry: str, deny_it: bool) -> None:
    if deny_it:
        deny()
    runs = Runs()
    turn = Turn(tool_calls=[Turn.call(PURGE, table=t).tool_calls[0] for t in ("users", "logs", "audit")])
    for index, call in enumerate(turn.tool_calls):
        call.id = f"call_{index + 1}"
    run(make_agent([tool_form("function", runs)]), [turn, Turn.final("done")], entry)
    assert len(runs.calls) == (0 if deny_it else 3)


@pytest.mark.parametrize("deny_it", DENY, ids=["twin", "deny"])
@pytest.mark.parametrize("entry", ENTRIES[:2])
def test_scoped_deny(entry: str, deny_it: bool) -> None:
    runs = Runs()
    agent = make_agent([tool_form("function", runs)])
    with scoped_hooks():
        if deny_it:
            deny_scoped()
        run(agent, PURGE_ONCE, entry)
    assert len(runs.calls) == (0 if deny_it else 1)


# -- the body layer alone ----------------------------------------------------------------------------


@pytest.mark.parametrize("deny_it", DENY, ids=["twin", "deny"])
@pytest.mark.parametrize("form", ["function", "async_function"])
def test_body_guard_alone_refuses_an_unpatched_route(form: str, deny_it: bool) -> None:
    """``execute_tool`` as PraisonAI wrote it, past hookport's call-site wrapper."""
    if deny_it:
        deny()
    runs = Runs()
    agent = make_agent([tool_form(form, runs)])
    if form == "async_function":
        original = getattr(Agent.execute_tool_async, "__wrapped__", Agent.execute_tool_async)
        answer = asyncio.run(original(agent, PURGE, {"table": "users"}))
    else:
        original = getattr(Agent.execute_tool, "__wrapped__", Agent.execute_tool)
        answer = original(agent, PURGE, {"table": "users"})
    assert len(runs.calls) == (0 if deny_it else 1)
    if deny_it:
        assert BLOCKED in str(answer)


@pytest.mark.parametrize("deny_it", DENY, ids=["twin", "deny"])
def test_body_guard_in_a_workflow_step(deny_it: bool) -> None:
    """A step of the app's own pipeline runs an agent's tool itself, inside the agent's run."""
    if deny_it:
        deny()
    runs = Runs()
    agent = make_agent([tool_form("function", runs)])

    def kickoff_cleanup() -> str:
        """Start the cleanup."""
        purge = next(t for t in agent.tools if getattr(t, "__name__", "") == PURGE)
        return str(purge(table="users"))

    agent.tools.append(kickoff_cleanup)
    run(make_agent([kickoff_cleanup], name="boss"), [Turn.call("kickoff_cleanup"), Turn.final("done")])
    assert len(runs.calls) == (0 if deny_it else 1)


@pytest.mark.parametrize("deny_it", DENY, ids=["twin", "deny"])
@pytest.mark.parametrize("route", ["execute_tool", "direct"])
def test_nested_same_named_tool(route: str, deny_it: bool) -> None:
    """An allowed ``purge_records`` whose body runs another ``purge_records`` with refused arguments."""
    if deny_it:
        deny({"table": "secret"})
    runs = Runs()
    records = make_agent([tool_form("function", runs)], name="records")
    inner = records.tools[0]
    outer_runs: list[str] = []

    def purge_records(table: str) -> str:
        """Purge through the records agent.

        Args:
            table: the table to purge
        """
        outer_runs.append(table)
        if route == "direct":
            return str(inner(table="secret"))
        return str(records.execute_tool(PURGE, {"table": "secret"}))

    run(make_agent([purge_records]), [Turn.call(PURGE, table="public"), Turn.final("done")])
    assert outer_runs == ["public"]
    assert len(runs.calls) == (0 if deny_it else 1)


def test_one_dispatch_per_call() -> None:
    seen: list[str] = []
    register_hook(P.PRE_TOOL_CALL, lambda ctx: seen.append(ctx.tool_name), tools=[PURGE])
    for entry in ENTRIES[:2]:
        seen.clear()
        runs = Runs()
        run(make_agent([tool_form("function", runs)]), PURGE_ONCE, entry)
        assert len(runs.calls) == 1 and seen == [PURGE], entry


# -- registration timing and install order ------------------------------------------------------------


@pytest.mark.parametrize("deny_it", DENY, ids=["twin", "deny"])
def test_deny_registered_by_a_tool_mid_run(deny_it: bool) -> None:
    runs = Runs()

    def kill_switch() -> str:
        """Stop all purges."""
        if deny_it:
            deny()
        return "armed"

    script = [Turn.call("kill_switch"), Turn.call(PURGE, table="users"), Turn.final("done")]
    run(make_agent([kill_switch, tool_form("function", runs)]), script)
    assert len(runs.calls) == (0 if deny_it else 1)


@pytest.mark.parametrize("deny_it", DENY, ids=["twin", "deny"])
def test_deny_registered_at_the_first_model_call(deny_it: bool) -> None:
    runs = Runs()
    deny_at_first_model_call(deny_it, runs)
    run(make_agent([tool_form("function", runs)]), PURGE_ONCE)
    assert len(runs.calls) == (0 if deny_it else 1)


@pytest.mark.parametrize("deny_it", DENY, ids=["twin", "deny"])
@pytest.mark.parametrize("order", ["install_after_build", "reinstall"])
def test_install_orders(order: str, deny_it: bool) -> None:
    runs = Runs()
    adapters.uninstall("praisonai")
    try:
        agent = make_agent([tool_form("function", runs)])
        adapters.install("praisonai")
        if order == "reinstall":
            adapters.uninstall("praisonai")
            adapters.install("praisonai")
        if deny_it:
            deny()
        run(agent, PURGE_ONCE)
    finally:
        adapters.install("praisonai")
    assert len(runs.calls) == (0 if deny_it else 1)


def test_uninstall_gives_agents_their_functions_back() -> None:
    runs = Runs()
    purge = tool_form("function", runs)
    agent = make_agent([purge])
    assert agent.tools[0] is not purge and agent.tools[0].__wrapped__ is purge
    adapters.uninstall("praisonai")
    try:
        assert agent.tools[0] is purge
    finally:
        adapters.install("praisonai")
