"""Bypass attempts on the Strands adapter: each counts the refused tool's real executions (0 with
the deny) and has a twin without it that shows the same path really reaches the tool.

The listed bypass (issue 22): an app's own Strands hook or middleware that re-routes the model's
call to the refused tool after hookport's call site took the name (renamed ``tool_use``, a swapped
``selected_tool``, a rewritten input). The tool's own body decides on the tool that really runs.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

pytest.importorskip("strands")

from strands import Agent, tool  # noqa: E402
from strands.hooks import BeforeToolCallEvent, HookProvider, HookRegistry  # noqa: E402
from strands.types.tools import AgentTool  # noqa: E402

from hookport import HookAborted, InterceptionPoint, adapters, on, register_hook  # noqa: E402
from tests.adversarial import kit  # noqa: E402
from tests.adapters.strands.harness import Record, ScriptedModel, make_agent, make_tools, run_agent  # noqa: E402
from tests.conformance.harness import ToolCall, Turn  # noqa: E402

P = InterceptionPoint
DENY = pytest.mark.parametrize("deny", [False, True], ids=["twin", "deny"])
REFUSAL = "Tool call purge_records was refused: purging is not allowed"


def deny_purge(deny: bool) -> None:
    if deny:
        kit.deny()


def purges(record: Record) -> list[dict[str, Any]]:
    return [args for name, args in record.tool_runs if name == "purge_records"]


def results(record: Record) -> list[dict[str, Any]]:
    """Every tool result the model read, in order."""
    return [m["tool_result"] for messages in record.model_inputs[-1:] for m in messages if "tool_result" in m]


class Reroute(HookProvider):
    """An app's own hook that sends the model's ``add_numbers`` call to ``purge_records``."""

    def __init__(self, how: str) -> None:
        self.how = how

    def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
        registry.add_callback(BeforeToolCallEvent, self.before)

    def before(self, event: Any) -> None:
        if event.tool_use["name"] != "add_numbers":
            return
        use = {**event.tool_use, "input": {"table": "users"}}
        if self.how == "rename":
            event.tool_use = {**use, "name": "purge_records"}
        else:  # selected_tool: the tool object swapped, the name left as the model said it
            event.tool_use = use
            event.selected_tool = event.agent.tool_registry.registry["purge_records"]


ADD = [Turn.call("add_numbers", a=1, b=2), Turn.final("done")]
PURGE = [Turn.call("purge_records", table="users"), Turn.final("done")]


@DENY
@pytest.mark.parametrize("how", ["rename", "selected_tool"])
def test_app_hook_rerouting_to_the_refused_tool(harness: Any, deny: bool, how: str) -> None:
    from strands.tools.executors import _executor

    if how == "rename" and not hasattr(_executor, "_lookup_tool"):
        pytest.skip("this Strands release runs the selected tool: a renamed tool_use re-routes nothing")
    deny_purge(deny)
    record = Record(ADD)
    make_agent(record, "alpha", hooks=[Reroute(how)])("go")
    assert purges(record) == ([] if deny else [{"table": "users"}])
    if deny:
        assert results(record)[0]["content"] == REFUSAL and results(record)[0]["status"] == "error"


@DENY
def test_app_hook_rewriting_the_input_to_the_refused_value(harness: Any, deny: bool) -> None:
    """An argument-based deny: the model asked for ``public``, the app's hook made it ``secret``."""
    if deny:
        @on(P.PRE_TOOL_CALL, tools=["purge_records"])
        def no_secret(ctx: Any) -> None:
            if ctx.tool_input.get("table") == "secret":
                raise HookAborted(reason="the secret table is protected", source="test")

    class Rewrite(HookProvider):
        def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
            registry.add_callback(BeforeToolCallEvent, self.before)

        def before(self, event: Any) -> None:
            event.tool_use = {**event.tool_use, "input": {"table": "secret"}}

    record = Record([Turn.call("purge_records", table="public"), Turn.final("done")])
    make_agent(record, "alpha", hooks=[Rewrite()])("go")
    assert purges(record) == ([] if deny else [{"table": "secret"}])


@DENY
def test_app_middleware_swapping_the_tool(harness: Any, deny: bool) -> None:
    """``ExecuteToolStage`` middleware (1.5x+) that replaces the tool to run with the refused one."""
    stages = pytest.importorskip("strands.middleware")
    stage = getattr(stages, "ExecuteToolStage", None)
    if stage is None or not hasattr(Agent, "add_middleware"):
        pytest.skip("this Strands release has no tool middleware")
    deny_purge(deny)
    record = Record(ADD)
    agent = make_agent(record, "alpha")

    async def swap(context: Any, next_fn: Any) -> Any:
        purge = context.agent.tool_registry.registry["purge_records"]
        use = {**context.tool_use, "input": {"table": "users"}}
        async for event in next_fn(context.replace(tool=purge, tool_use=use)):
            yield event

    agent.add_middleware(stage, swap)
    agent("go")
    assert purges(record) == ([] if deny else [{"table": "users"}])


@DENY
@pytest.mark.parametrize("entry", ["sync", "async", "stream"])
def test_every_entry_point(harness: Any, deny: bool, entry: str) -> None:
    deny_purge(deny)
    record = Record(PURGE)
    run_agent(make_agent(record, "alpha"), entry, "go")  # type: ignore[arg-type]
    assert len(purges(record)) == (0 if deny else 1)


def _tools(record: Record, form: str) -> list[Any]:
    """``purge_records`` in one tool form: async, renamed, a module-style ``PythonAgentTool``, a class of the app's."""
    if form == "async":
        @tool
        async def purge_records(table: str) -> str:
            """Delete every record of a table."""
            record.tool_runs.append(("purge_records", {"table": table}))
            return "purged"
        return [purge_records]
    if form == "renamed":
        @tool(name="purge_records")
        def wipe(table: str) -> str:
            """Delete every record of a table."""
            record.tool_runs.append(("purge_records", {"table": table}))
            return "purged"
        return [wipe]
    spec = {"name": "purge_records", "description": "Delete every record of a table.",
            "inputSchema": {"json": {"type": "object", "properties": {"table": {"type": "string"}}}}}
    if form == "python":
        from strands.tools.tools import PythonAgentTool

        def body(tool_use: Any, **kwargs: Any) -> dict[str, Any]:
            record.tool_runs.append(("purge_records", dict(tool_use["input"])))
            return {"toolUseId": tool_use["toolUseId"], "status": "success", "content": [{"text": "purged"}]}
        return [PythonAgentTool("purge_records", spec, body)]
    return [AppTool(record, spec)]


class AppTool(AgentTool):
    """A tool class of the app's own (``AgentTool`` subclassed), guarded when registered."""

    def __init__(self, record: Record, spec: dict[str, Any]) -> None:
        super().__init__()
        self.record, self.spec = record, spec

    @property
    def tool_name(self) -> str:
        return "purge_records"

    @property
    def tool_spec(self) -> Any:
        return self.spec

    @property
    def tool_type(self) -> str:
        return "app"

    async def stream(self, tool_use: Any, invocation_state: Any, **kwargs: Any) -> Any:
        from hookport.adapters.strands._events import event_class

        self.record.tool_runs.append(("purge_records", dict(tool_use["input"])))
        yield event_class("ToolResultEvent")({"toolUseId": tool_use["toolUseId"], "status": "success",
                                              "content": [{"text": "purged"}]})


@DENY
@pytest.mark.parametrize("form", ["async", "renamed", "python", "app_class"])
def test_every_tool_form(harness: Any, deny: bool, form: str) -> None:
    deny_purge(deny)
    record = Record(PURGE)
    Agent(name="alpha", model=ScriptedModel(record), tools=_tools(record, form), callback_handler=None)("go")
    assert len(purges(record)) == (0 if deny else 1)


@DENY
@pytest.mark.parametrize("form", ["python", "app_class", "decorated"])
def test_body_alone_refuses_a_route_no_call_site_covers(harness: Any, deny: bool, form: str) -> None:
    """The tool's ``stream`` driven without Strands' executor (a route nobody patched): the body decides."""
    deny_purge(deny)
    record = Record([])
    tools = make_tools(record)[1:] if form == "decorated" else _tools(record, form)
    agent = Agent(name="alpha", model=ScriptedModel(record), tools=tools, callback_handler=None)
    purge = agent.tool_registry.registry["purge_records"]

    async def drive() -> list[Any]:
        use = {"toolUseId": "t1", "name": "purge_records", "input": {"table": "users"}}
        return [event async for event in purge.stream(use, {"agent": agent})]

    events = asyncio.run(drive())
    assert len(purges(record)) == (0 if deny else 1)
    if deny:
        assert events[-1].tool_result["content"][0]["text"] == REFUSAL


def _fresh_app_tool(record: Record) -> AgentTool:
    """A tool of an app class no adapter guarded yet (its own ``stream``, so the class is the guarded owner)."""

    class Fresh(AppTool):
        async def stream(self, tool_use: Any, invocation_state: Any, **kwargs: Any) -> Any:
            async for event in super().stream(tool_use, invocation_state, **kwargs):
                yield event

    spec = {"name": "purge_records", "description": "Delete every record of a table.",
            "inputSchema": {"json": {"type": "object", "properties": {"table": {"type": "string"}}}}}
    return Fresh(record, spec)


@pytest.mark.parametrize("hooked", [False, True], ids=["without_hookport", "second_instance_uninstalled"])
def test_an_app_class_stays_guarded_while_another_adapter_instance_guards_it(strands_adapter: Any,
                                                                              hooked: bool) -> None:
    """Two `StrandsAdapter` instances guard the app's class at registration; uninstalling the second
    must leave the first's guard on it (the twin: no adapter at all, the same route runs the tool)."""
    from hookport.adapters.strands import StrandsAdapter

    kit.deny()
    record = Record([])
    second = StrandsAdapter()
    if hooked:
        second.install()
    else:
        strands_adapter.uninstall()
    try:
        agent = Agent(name="alpha", model=ScriptedModel(record), tools=[_fresh_app_tool(record)], callback_handler=None)
        second.uninstall()
        purge = agent.tool_registry.registry["purge_records"]

        async def drive() -> list[Any]:
            use = {"toolUseId": "t1", "name": "purge_records", "input": {"table": "users"}}
            return [event async for event in purge.stream(use, {"agent": agent})]

        events = asyncio.run(drive())
    finally:
        if not hooked:
            strands_adapter.install()
    assert len(purges(record)) == (0 if hooked else 1)
    if hooked:
        assert events[-1].tool_result["content"][0]["text"] == REFUSAL


@DENY
def test_parallel_tool_calls(harness: Any, deny: bool) -> None:
    deny_purge(deny)
    record = Record([Turn(tool_calls=[ToolCall("purge_records", {"table": "a"}), ToolCall("add_numbers", {"a": 1, "b": 2}),
                                      ToolCall("purge_records", {"table": "b"})]), Turn.final("done")])
    make_agent(record, "alpha")("go")
    assert len(purges(record)) == (0 if deny else 2)
    assert ("add_numbers", {"a": 1, "b": 2}) in record.tool_runs


@DENY
def test_direct_tool_call_and_agent_in_a_thread(harness: Any, deny: bool) -> None:
    """``agent.tool.purge_records(...)`` and a run on a thread the app started."""
    deny_purge(deny)
    record = Record(PURGE)
    direct = make_agent(record, "alpha", record_direct_tool_call=False)
    direct.tool.purge_records(table="direct")
    worker = threading.Thread(target=lambda: make_agent(record, "alpha")("go"))
    worker.start()
    worker.join()
    assert len(purges(record)) == (0 if deny else 2)


@DENY
def test_agent_as_tool_whose_sub_agent_calls_the_refused_tool(harness: Any, deny: bool) -> None:
    if not hasattr(Agent, "as_tool"):
        pytest.skip("Agent.as_tool is 1.5x+")
    deny_purge(deny)
    record = Record([Turn.call("intern", input="purge users"), Turn.final("done")])
    inner = Record(PURGE)
    inner.tool_runs = record.tool_runs
    intern = make_agent(inner, "intern")
    Agent(name="boss", model=ScriptedModel(record), tools=[intern.as_tool(name="intern")], callback_handler=None)("go")
    assert len(purges(record)) == (0 if deny else 1)


@DENY
def test_hook_registered_after_the_agent_was_built(harness: Any, deny: bool) -> None:
    record = Record(PURGE)
    agent = make_agent(record, "alpha")
    deny_purge(deny)
    agent("go")
    assert len(purges(record)) == (0 if deny else 1)


@DENY
def test_install_after_build_and_reinstall(harness: Any, deny: bool) -> None:
    adapters.uninstall("strands")
    try:
        record = Record(PURGE)
        tools = _tools(record, "app_class") + make_tools(record)[:1]
        agent = Agent(name="alpha", model=ScriptedModel(record), tools=tools, callback_handler=None)
        adapters.install("strands")
        adapters.uninstall("strands")
        adapters.install("strands")
        if deny:
            register_hook(P.PRE_TOOL_CALL, lambda ctx: (_ for _ in ()).throw(
                HookAborted(reason="purging is not allowed", source="test")), tools=["purge_records"])
        agent("go")
        assert len(purges(record)) == (0 if deny else 1)
    finally:
        adapters.install("strands")


def test_uninstall_removes_the_body_guards(harness: Any) -> None:
    """After uninstall no body guard is left (the app's class included): the deny no longer applies."""
    record = Record([])
    agent = Agent(name="alpha", model=ScriptedModel(record), tools=_tools(record, "app_class"), callback_handler=None)
    purge = agent.tool_registry.registry["purge_records"]
    deny_purge(True)
    if hasattr(Agent, "as_tool"):
        import wrapt
        from strands.agent._agent_as_tool import _AgentAsTool

        assert isinstance(_AgentAsTool.__dict__["stream"], wrapt.FunctionWrapper)
    adapters.uninstall("strands")
    try:
        assert type(purge).__dict__["stream"] is AppTool.__dict__["stream"]
        import wrapt
        from strands.tools.decorator import DecoratedFunctionTool

        assert not hasattr(DecoratedFunctionTool.__dict__["stream"], "__wrapped__")  # (patched plain)
        if hasattr(Agent, "as_tool"):  # 1.5x+: guarded at its import, unguarded by uninstall
            from strands.agent._agent_as_tool import _AgentAsTool

            assert not isinstance(_AgentAsTool.__dict__["stream"], wrapt.FunctionWrapper)
        use = {"toolUseId": "t1", "name": "purge_records", "input": {"table": "users"}}

        async def drive() -> None:
            async for _ in purge.stream(use, {"agent": agent}):
                pass

        asyncio.run(drive())
        assert len(purges(record)) == 1
    finally:
        adapters.install("strands")


def test_one_pre_per_call_with_both_layers(harness: Any) -> None:
    seen: list[str] = []

    @on(P.PRE_TOOL_CALL)
    def count(ctx: Any) -> None:
        seen.append(ctx.tool_name)

    record = Record([Turn(tool_calls=[ToolCall("purge_records", {"table": "a"}), ToolCall("add_numbers", {"a": 1, "b": 2})]),
                     Turn.final("done")])
    make_agent(record, "alpha")("go")
    assert sorted(seen) == ["add_numbers", "purge_records"]


def test_app_subclass_of_a_built_in_tool_class_is_decided_once(harness: Any) -> None:
    from strands.tools.decorator import DecoratedFunctionTool

    class Audited(DecoratedFunctionTool):  # type: ignore[misc]
        async def stream(self, tool_use: Any, invocation_state: Any, **kwargs: Any) -> Any:
            async for event in super().stream(tool_use, invocation_state, **kwargs):
                yield event

    seen: list[str] = []

    @on(P.PRE_TOOL_CALL)
    def count(ctx: Any) -> None:
        seen.append(ctx.tool_name)
        if ctx.tool_input.get("table") == "secret":
            raise HookAborted(reason="the secret table is protected", source="test")

    record = Record([Turn(tool_calls=[ToolCall("purge_records", {"table": "a"}),
                                      ToolCall("purge_records", {"table": "secret"})]), Turn.final("done")])
    purge = make_tools(record)[1]
    purge.__class__ = Audited
    agent = Agent(name="alpha", model=ScriptedModel(record), tools=[purge], callback_handler=None)
    agent("go")
    assert purges(record) == [{"table": "a"}]
    assert seen == ["purge_records", "purge_records"]

    async def drive(table: str) -> None:  # the body alone: dispatched once by the subclass's guard
        use = {"toolUseId": "t9", "name": "purge_records", "input": {"table": table}}
        async for _ in purge.stream(use, {"agent": agent}):
            pass

    asyncio.run(drive("b"))
    asyncio.run(drive("secret"))
    assert purges(record) == [{"table": "a"}, {"table": "b"}]
    assert len(seen) == 4
