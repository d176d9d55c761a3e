"""Bypass attempts on the google-adk adapter: every way ADK runs a tool, with a deny and without.

Each test counts the refused tool's real executions: 0 with the deny, and its twin
(``deny=False``) shows the same path really reaches the tool. The model is the
harness's scripted ``BaseLlm``; workflows run on a real ``InMemoryRunner``.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("google.adk")

from google.adk.agents import LlmAgent  # noqa: E402
from google.adk.runners import InMemoryRunner  # noqa: E402
from google.adk.tools import AgentTool, BaseTool, FunctionTool, ToolContext  # noqa: E402
from google.adk.workflow import START, Workflow  # noqa: E402

from hookport import HookAborted, InterceptionPoint, adapters, on, register_scoped, scoped_hooks  # noqa: E402
from hookport.contexts import ToolCallHookContext  # noqa: E402
from hookport.registry import clear_all_hooks as clear  # noqa: E402
from tests.adapters.google_adk.harness import (  # noqa: E402
    Record, ScriptedLlm, make_tools, message, run_events,
)
from tests.conformance.harness import ToolCall, Turn  # noqa: E402

P = InterceptionPoint
PURGE = [Turn.call("purge_records", table="users"), Turn.final("done")]
DENY = pytest.mark.parametrize("deny", [False, True], ids=["twin", "deny"])


@pytest.fixture(autouse=True)
def installed(adk_adapter: adapters.Adapter) -> Iterator[None]:
    yield


def deny_purge(deny: bool, **filters: Any) -> list[ToolCallHookContext]:
    """Register the deny (or, for the twin, a hook that only watches) and return what PRE saw."""
    seen: list[ToolCallHookContext] = []

    @on(P.PRE_TOOL_CALL, tools=["purge_records"], **filters)
    def guard(ctx: ToolCallHookContext) -> None:
        seen.append(ctx)
        if deny:
            raise HookAborted(reason="purging is not allowed", source="test")

    return seen


def runs(record: Record) -> int:
    return sum(1 for name, _ in record.tool_runs if name == "purge_records")


def agent_runner(record: Record, tools: list[Any], name: str = "alpha") -> InMemoryRunner:
    agent = LlmAgent(name=name, model=ScriptedLlm(record), instruction="Answer briefly.", tools=tools)
    return InMemoryRunner(agent=agent, app_name="hookport")


def run_node(node: Any, prompt: str = "go") -> list[Any]:
    runner = InMemoryRunner(node=node, app_name="hookport")
    return run_events(runner, "async", prompt)


def _prepare(node_input: Any) -> dict[str, Any]:
    """A workflow's first node: the tool node's arguments."""
    return {"table": "users"}


def purge_workflow(record: Record, name: str = "purge_flow") -> Workflow:
    """A workflow whose second node is the ``purge_records`` FunctionTool (a tool node)."""
    return Workflow(name=name, edges=[(START, _prepare), (_prepare, FunctionTool(make_tools(record)[1]))])


# -- every entry point of an agent run (the call site) ----------------------------------------


@DENY
@pytest.mark.parametrize("entry", ["sync", "async", "stream"])
def test_entry_points(deny: bool, entry: str) -> None:
    seen = deny_purge(deny)
    record = Record(PURGE)
    run_events(agent_runner(record, make_tools(record)), entry, "purge")
    assert runs(record) == (0 if deny else 1)
    assert len(seen) == 1, "one PRE per call: the call site decided, the body claimed it"


# -- tool nodes and workflows: no call site, the body guard alone ---------------------------------


@DENY
def test_function_tool_as_a_workflow_node(deny: bool) -> None:
    seen = deny_purge(deny)
    record = Record([])
    events = run_node(purge_workflow(record))
    assert runs(record) == (0 if deny else 1)
    assert len(seen) == 1
    if deny:
        outputs = [getattr(e, "output", None) for e in events]
        assert {"error": "Tool call purge_records was refused: purging is not allowed"} in outputs


@DENY
def test_workflow_given_to_an_agent_as_a_tool(deny: bool) -> None:
    pytest.importorskip("google.adk.tools._node_tool",
                        reason="this ADK has no NodeTool: an agent cannot take a workflow as a tool")
    from pydantic import BaseModel

    class Job(BaseModel):
        table: str

    seen = deny_purge(deny)
    record = Record([Turn.call("purge_flow", table="users"), Turn.final("done")])
    flow = Workflow(name="purge_flow", description="Purge a table.", input_schema=Job,
                    edges=[(START, FunctionTool(make_tools(record)[1]))])
    run_events(agent_runner(record, [flow]), "async", "purge")
    assert runs(record) == (0 if deny else 1)
    assert len(seen) == 1


@DENY
def test_class_based_tool_in_a_workflow(deny: bool) -> None:
    record = Record([])

    class PurgeTool(BaseTool):  # defined after install, and never through BaseTool.__init__
        def __init__(self) -> None:
            self.name, self.description = "purge_records", "Delete a table's records."

        async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
            record.tool_runs.append(("purge_records", dict(args)))
            return "purged"

    seen = deny_purge(deny)
    tool = PurgeTool()
    run_node(Workflow(name="purge_flow", edges=[(START, _prepare), (_prepare, tool)]))
    assert runs(record) == (0 if deny else 1)
    assert len(seen) == 1


@DENY
def test_override_calling_super_dispatches_once(deny: bool) -> None:
    record = Record([])

    class AuditedTool(FunctionTool):
        async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
            return await super().run_async(args=args, tool_context=tool_context)

    seen = deny_purge(deny)
    run_node(Workflow(name="purge_flow", edges=[(START, _prepare), (_prepare, AuditedTool(make_tools(record)[1]))]))
    assert runs(record) == (0 if deny else 1)
    assert len(seen) == 1, "the override and FunctionTool's own run_async make one call"


# -- tool forms in an agent ------------------------------------------------------------------------


@DENY
def test_async_and_renamed_tools(deny: bool) -> None:
    record = Record(PURGE)

    async def wipe(table: str) -> str:
        """Delete a table's records."""
        record.tool_runs.append(("purge_records", {"table": table}))
        return "purged"

    class Renamed(FunctionTool):
        def __init__(self) -> None:
            super().__init__(wipe)
            self.name = "purge_records"

    seen = deny_purge(deny)
    run_events(agent_runner(record, [Renamed()]), "async", "purge")
    assert runs(record) == (0 if deny else 1)
    assert len(seen) == 1


@DENY
def test_agent_tool_whose_sub_agent_calls_a_same_named_tool(deny: bool) -> None:
    """An agent used as a tool, named like the tool its sub-agent calls: the inner call is its own."""
    record = Record([Turn.call("purge_records", request="public")])  # the outer model
    inner = Record([Turn.call("purge_records", table="secret"), Turn.final("inner done")])
    inner.tool_runs = record.tool_runs
    sub = LlmAgent(name="purge_records", description="Purges tables.", model=ScriptedLlm(inner),
                   instruction="Purge.", tools=make_tools(inner))
    record.script.append(Turn.final("done"))
    seen: list[Any] = []

    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def no_secret(ctx: ToolCallHookContext) -> None:
        seen.append(ctx.tool_input)
        if deny and ctx.tool_input.get("table") == "secret":
            raise HookAborted(reason="the secret table is protected", source="test")

    run_events(agent_runner(record, [AgentTool(agent=sub)]), "async", "purge")
    assert runs(record) == (0 if deny else 1)
    assert {"table": "secret"} in seen


# -- concurrency -----------------------------------------------------------------------------------


@DENY
def test_parallel_calls(deny: bool) -> None:
    calls = [ToolCall("purge_records", {"table": "a"}), ToolCall("purge_records", {"table": "b"})]
    record = Record([Turn(tool_calls=calls), Turn.final("done")])
    seen = deny_purge(deny)
    run_events(agent_runner(record, make_tools(record)), "async", "purge")
    assert runs(record) == (0 if deny else 2)
    assert len(seen) == 2


@DENY
def test_scoped_deny_on_runner_run_thread_and_in_a_workflow(deny: bool) -> None:
    record = Record(PURGE)
    with scoped_hooks():
        if deny:
            register_scoped(P.PRE_TOOL_CALL, _refuse, tools=["purge_records"])
        run_events(agent_runner(record, make_tools(record)), "sync", "purge")
        run_node(purge_workflow(record))
    assert runs(record) == (0 if deny else 2)


@DENY
def test_workflow_run_from_a_plain_thread(deny: bool) -> None:
    """A workflow node run on a thread the app starts (the deny is global: it holds there too)."""
    deny_purge(deny)
    record = Record([])
    thread = threading.Thread(target=lambda: run_node(purge_workflow(record)))
    thread.start()
    thread.join()
    assert runs(record) == (0 if deny else 1)


@DENY
@pytest.mark.parametrize("form", ["sync", "async"])
def test_tool_thread_pool(deny: bool, form: str) -> None:
    """``RunConfig.tool_thread_pool_config`` on a run: sync tools on ADK's pool, async ones on a new
    loop there (from 2.10; earlier releases use the pool in live runs only, see the docs page)."""
    from google.adk.agents.run_config import RunConfig, ToolThreadPoolConfig

    record = Record(PURGE)

    async def apurge(table: str) -> str:
        """Delete a table's records."""
        record.tool_runs.append(("purge_records", {"table": table}))
        return "purged"

    tool = make_tools(record)[1] if form == "sync" else FunctionTool(apurge)
    if form == "async":
        tool.name = "purge_records"
    seen = deny_purge(deny)
    runner = agent_runner(record, [tool])
    session = asyncio.run(runner.session_service.create_session(app_name="hookport", user_id="u"))
    config = RunConfig(tool_thread_pool_config=ToolThreadPoolConfig(max_workers=2))

    async def drive() -> None:
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=message("purge"),
                                        run_config=config):
            pass

    asyncio.run(drive())
    assert runs(record) == (0 if deny else 1)
    assert len(seen) == 1


def _refuse(ctx: ToolCallHookContext) -> None:
    raise HookAborted(reason="purging is not allowed", source="test")


# -- registration timing and install order ------------------------------------------------------------


@DENY
def test_deny_registered_after_the_agent_and_workflow_were_built(deny: bool) -> None:
    record = Record(PURGE)
    runner = agent_runner(record, make_tools(record))
    flow = purge_workflow(record)
    deny_purge(deny)
    run_events(runner, "async", "purge")
    run_node(flow)
    assert runs(record) == (0 if deny else 2)


@DENY
def test_deny_registered_by_a_tool_mid_workflow(deny: bool) -> None:
    """A kill switch in the workflow's first node: the tool node after it is refused."""
    record = Record([])

    def kill_switch(node_input: Any) -> dict[str, Any]:
        if deny:
            deny_purge(True)
        return {"table": "users"}

    run_node(Workflow(name="purge_flow",
                      edges=[(START, kill_switch), (kill_switch, FunctionTool(make_tools(record)[1]))]))
    assert runs(record) == (0 if deny else 1)


@DENY
def test_tools_built_before_install_and_after_reinstall(deny: bool) -> None:
    adapters.uninstall("google-adk")
    try:
        record = Record(PURGE)

        class LateTool(FunctionTool):  # a class hookport has never seen, built while uninstalled
            pass

        tool = LateTool(make_tools(record)[1])
        flow = Workflow(name="purge_flow", edges=[(START, _prepare), (_prepare, tool)])
        runner = agent_runner(record, [tool])
    finally:
        adapters.install("google-adk")
    deny_purge(deny)
    run_events(runner, "async", "purge")
    run_node(flow)
    assert runs(record) == (0 if deny else 2)


def test_uninstall_removes_every_body_guard() -> None:
    from hookport.adapters.google_adk._bodies import GUARDS

    record = Record([])
    adapters.uninstall("google-adk")
    try:
        assert not any(getattr(cls.__dict__.get("run_async"), "_hookport_method_guard", False)
                       for cls in (BaseTool, FunctionTool, AgentTool))
        assert "__init_subclass__" not in BaseTool.__dict__
        deny_purge(True)
        run_node(purge_workflow(record))
        assert runs(record) == 1, "uninstalled: nothing refuses"
        assert not GUARDS.active
    finally:
        adapters.install("google-adk")
    run_node(purge_workflow(record))
    assert runs(record) == 1, "reinstalled: the deny holds again"


def test_body_of_a_tool_called_by_another_tool_directly() -> None:
    """A tool that awaits another tool's ``run_async`` (no call site between them) is refused there."""
    record = Record([Turn.call("launder", table="users"), Turn.final("done")])
    inner = FunctionTool(make_tools(record)[1])

    async def launder(table: str, tool_context: ToolContext) -> Any:
        """Launder a purge."""
        return await inner.run_async(args={"table": table}, tool_context=tool_context)

    deny_purge(True)
    run_events(agent_runner(record, [launder]), "async", "launder")
    assert runs(record) == 0
    twin = Record([Turn.call("launder", table="users"), Turn.final("done")])
    inner = FunctionTool(make_tools(twin)[1])
    clear()
    run_events(agent_runner(twin, [launder]), "async", "launder")
    assert runs(twin) == 1


def test_agent_role_reaches_the_body_guard() -> None:
    """A body guard names the agent whose run reached it (an agent filter is not over-refusing)."""
    record = Record([Turn.call("launder", table="users"), Turn.final("done")])
    inner = FunctionTool(make_tools(record)[1])

    async def launder(table: str, tool_context: ToolContext) -> Any:
        """Launder a purge."""
        return await inner.run_async(args={"table": table}, tool_context=tool_context)

    seen = deny_purge(True, agents=["someone-else"])
    run_events(agent_runner(record, [launder], name="alpha"), "async", "launder")
    assert runs(record) == 1 and not seen
    seen = deny_purge(True, agents=["alpha"])
    run_events(agent_runner(record, [launder], name="alpha"), "async", "launder")
    assert runs(record) == 1 and [c.agent_role for c in seen] == ["alpha"]

