"""Bypass attempts on the Agno adapter: each counts the refused tool's real executions (0 with the
deny) and has a twin without it that shows the same path really reaches the tool.

The listed bypass (issue 22): a tool with ``@tool(external_execution=True)`` is handed to the app as
a ``RunRequirement`` that the app runs before ``continue_run``. The call is decided when the
requirement is produced; a refused call is never handed to the app.
"""

from __future__ import annotations

import asyncio
import copy
import threading
from typing import Any

import pytest

pytest.importorskip("agno")

from agno.agent import Agent  # noqa: E402
from agno.team import Team  # noqa: E402
from agno.tools import Toolkit, tool  # noqa: E402
from agno.tools.function import Function, FunctionCall  # noqa: E402

from hookport import HookAborted, InterceptionPoint, adapters, on, register_hook, register_scoped, scoped_hooks  # noqa: E402
from tests.adapters.agno.harness import INSTRUCTIONS, ScriptedModel, build_agent, counting_tools, execute  # noqa: E402
from tests.conformance.harness import ToolCall, Turn, number_tool_calls  # noqa: E402

P = InterceptionPoint
DENY = pytest.mark.parametrize("deny", [False, True], ids=["twin", "deny"])
REFUSAL = "Tool call purge_records was refused: purging is not allowed"
PURGE = [Turn.call("purge_records", table="users"), Turn.final("done")]
Runs = list[tuple[str, dict[str, Any]]]


def refuse(ctx: Any) -> None:
    raise HookAborted(reason="purging is not allowed", source="test")


def deny_purge(deny: bool) -> None:
    if deny:
        register_hook(P.PRE_TOOL_CALL, refuse, tools=["purge_records"])


def purges(runs: Runs) -> list[dict[str, Any]]:
    return [args for name, args in runs if name == "purge_records"]


def model(script: list[Turn]) -> ScriptedModel:
    return ScriptedModel(script=number_tool_calls(copy.deepcopy(script)))


# -- external execution: the app runs the tool --------------------------------------------------


def external_tool(runs: Runs) -> Any:
    @tool(external_execution=True)
    def purge_records(table: str) -> str:
        """Delete every record of a table (run by the app)."""
        runs.append(("purge_records", {"table": table}))
        return f"purged {table}"

    return purge_records


def app_runs_requirements(agent: Agent, output: Any, runs: Runs, functions: dict[str, Any]) -> Any:
    """What an app does with a paused run: run every external tool it was handed, then continue."""
    handed = 0
    while getattr(output, "is_paused", False):
        for requirement in output.active_requirements:
            if requirement.needs_external_execution:
                execution = requirement.tool_execution
                entry = functions[execution.tool_name].entrypoint
                requirement.set_external_execution_result(entry(**(execution.tool_args or {})))
                handed += 1
        output = agent.continue_run(run_response=output, requirements=output.requirements)
    return output, handed


@DENY
@pytest.mark.parametrize("stream", [False, True], ids=["run", "stream"])
def test_external_execution_tool_is_decided_before_the_app_is_handed_it(harness: Any, deny: bool,
                                                                        stream: bool) -> None:
    deny_purge(deny)
    runs: Runs = []
    purge = external_tool(runs)
    agent = Agent(name="alpha", model=model(PURGE), tools=[purge], instructions=INSTRUCTIONS, telemetry=False)
    if stream:
        from agno.run.agent import RunOutput

        outputs = [e for e in agent.run("go", stream=True, yield_run_output=True) if isinstance(e, RunOutput)]
        output = outputs[-1]
    else:
        output = agent.run("go")
    output, handed = app_runs_requirements(agent, output, runs, {"purge_records": purge})
    assert purges(runs) == ([] if deny else [{"table": "users"}])
    assert handed == (0 if deny else 1)  # the app was never handed the refused call
    if deny:
        tool_messages = [m for m in output.messages or [] if m.role == "tool"]
        assert [m.content for m in tool_messages] == [REFUSAL]
        assert output.content == "done"  # the run went on, unpaused


@DENY
def test_external_execution_async_run_and_an_allowed_edit(harness: Any, deny: bool) -> None:
    """``arun``; an argument-based deny, and an allowed call's rewritten arguments reach the app."""
    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def policy(ctx: Any) -> None:
        if deny:
            raise HookAborted(reason="purging is not allowed", source="test")
        ctx.tool_input["table"] = "staging"

    runs: Runs = []
    purge = external_tool(runs)
    agent = Agent(name="alpha", model=model(PURGE), tools=[purge], instructions=INSTRUCTIONS, telemetry=False)

    async def main() -> Any:
        output = await agent.arun("go")
        while output.is_paused:
            for requirement in output.active_requirements:
                execution = requirement.tool_execution
                requirement.set_external_execution_result(purge.entrypoint(**execution.tool_args))
            output = await agent.acontinue_run(run_response=output, requirements=output.requirements)
        return output

    asyncio.run(main())
    assert purges(runs) == ([] if deny else [{"table": "staging"}])


@DENY
def test_external_execution_scoped_deny_for_the_agent(harness: Any, deny: bool) -> None:
    runs: Runs = []
    purge = external_tool(runs)
    agent = Agent(name="alpha", model=model(PURGE), tools=[purge], instructions=INSTRUCTIONS, telemetry=False)
    with scoped_hooks():
        register_scoped(P.PRE_TOOL_CALL, refuse, tools=["purge_records"], agents=["alpha" if deny else "someone"])
        output = agent.run("go")
    app_runs_requirements(agent, output, runs, {"purge_records": purge})
    assert len(purges(runs)) == (0 if deny else 1)


# -- every entry point, tool form, concurrency and order -----------------------------------------


@DENY
@pytest.mark.parametrize("entry", ["sync", "async", "stream"])
def test_every_entry_point(harness: Any, deny: bool, entry: str) -> None:
    deny_purge(deny)
    runs: Runs = []
    execute(build_agent("alpha", model(PURGE), runs), entry, "go")  # type: ignore[arg-type]
    assert len(purges(runs)) == (0 if deny else 1)


class Records(Toolkit):
    def __init__(self, runs: Runs) -> None:
        self.runs = runs
        super().__init__(name="records", tools=[self.purge_records])

    def purge_records(self, table: str) -> str:
        """Delete every record of a table."""
        self.runs.append(("purge_records", {"table": table}))
        return "purged"


def tool_form(runs: Runs, form: str) -> Any:
    if form == "async":  # async runs only (Agno refuses an async tool in a sync run)
        async def purge_records(table: str) -> str:
            """Delete every record of a table."""
            runs.append(("purge_records", {"table": table}))
            return "purged"
        return purge_records
    if form == "renamed":
        @tool(name="purge_records")
        def wipe(table: str) -> str:
            """Delete every record of a table."""
            runs.append(("purge_records", {"table": table}))
            return "purged"
        return wipe
    if form == "function":
        def body(table: str) -> str:
            runs.append(("purge_records", {"table": table}))
            return "purged"
        return Function.from_callable(body, name="purge_records")
    return Records(runs)


@DENY
@pytest.mark.parametrize(("form", "entry"), [(form, entry) for form in ("async", "renamed", "function", "toolkit")
                                             for entry in ("sync", "async") if (form, entry) != ("async", "sync")])
def test_every_tool_form(harness: Any, deny: bool, form: str, entry: str) -> None:
    """(Agno runs an async tool in async runs only.)"""
    deny_purge(deny)
    runs: Runs = []
    agent = Agent(name="alpha", model=model(PURGE), tools=[tool_form(runs, form)], instructions=INSTRUCTIONS,
                  telemetry=False)
    execute(agent, entry, "go")  # type: ignore[arg-type]
    assert len(purges(runs)) == (0 if deny else 1)


@DENY
@pytest.mark.parametrize("entry", ["sync", "async"])
def test_parallel_tool_calls(harness: Any, deny: bool, entry: str) -> None:
    deny_purge(deny)
    runs: Runs = []
    script = [Turn(tool_calls=[ToolCall("purge_records", {"table": "a"}), ToolCall("add_numbers", {"a": 1, "b": 2}),
                               ToolCall("purge_records", {"table": "b"})]), Turn.final("done")]
    execute(build_agent("alpha", model(script), runs), entry, "go")  # type: ignore[arg-type]
    assert len(purges(runs)) == (0 if deny else 2)
    assert ("add_numbers", {"a": 1, "b": 2}) in runs


@DENY
def test_team_member_and_a_run_on_an_app_thread(harness: Any, deny: bool) -> None:
    deny_purge(deny)
    runs: Runs = []
    member = build_agent("member", model(PURGE), runs)
    member.role = "purges"
    lead = model([Turn.call("delegate_task_to_member", member_id="member", task="purge users"), Turn.final("done")])
    team = Team(name="team", model=lead, members=[member], telemetry=False)
    worker = threading.Thread(target=lambda: team.run("go"))
    worker.start()
    worker.join()
    if not deny:
        assert len(purges(runs)) == 1, "the team did not reach the member's tool"
    assert len(purges(runs)) == (0 if deny else 1)


@DENY
def test_hook_registered_after_build_and_install_after_build_and_reinstall(harness: Any, deny: bool) -> None:
    runs: Runs = []
    adapters.uninstall("agno")
    try:
        agent = build_agent("alpha", model(PURGE), runs)
        purge = external_tool(runs)
        outside = Agent(name="beta", model=model(PURGE), tools=[purge], instructions=INSTRUCTIONS, telemetry=False)
        adapters.install("agno")
        adapters.uninstall("agno")
        adapters.install("agno")
        deny_purge(deny)
        execute(agent, "sync", "go")
        app_runs_requirements(outside, outside.run("go"), runs, {"purge_records": purge})
        assert len(purges(runs)) == (0 if deny else 2)
    finally:
        adapters.install("agno")


# -- the tool object's own execution, with no agent ----------------------------------------------


@DENY
@pytest.mark.parametrize("kind", ["sync", "async"])
def test_body_alone_refuses_a_function_call_run_outside_any_agent(harness: Any, deny: bool, kind: str) -> None:
    """``FunctionCall(...).execute()`` driven by code no agent loop runs (a workflow step, the app)."""
    deny_purge(deny)
    runs: Runs = []
    function = Function.from_callable(counting_tools(runs)[1])
    function.process_entrypoint()
    call = FunctionCall(function=function, arguments={"table": "users"}, call_id="c1")
    outcome = call.execute() if kind == "sync" else asyncio.run(call.aexecute())
    assert len(purges(runs)) == (0 if deny else 1)
    if deny:
        assert outcome.status == "failure" and outcome.error == REFUSAL


@DENY
def test_confirmed_tool_run_by_continue_run(harness: Any, deny: bool) -> None:
    """``@tool(requires_confirmation=True)``: the app confirms, ``continue_run`` runs the tool."""
    deny_purge(deny)
    runs: Runs = []

    @tool(requires_confirmation=True)
    def purge_records(table: str) -> str:
        """Delete every record of a table (after the user confirms)."""
        runs.append(("purge_records", {"table": table}))
        return "purged"

    agent = Agent(name="alpha", model=model(PURGE), tools=[purge_records], instructions=INSTRUCTIONS, telemetry=False)
    output = agent.run("go")
    assert output.is_paused
    for requirement in output.active_requirements:
        requirement.confirm()
    agent.continue_run(run_response=output, requirements=output.requirements)
    assert len(purges(runs)) == (0 if deny else 1)
