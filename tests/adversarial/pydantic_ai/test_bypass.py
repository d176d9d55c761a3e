"""Bypass attempts on the pydantic-ai adapter: every way Pydantic AI runs a tool, with a deny and without.

Each test counts the refused tool's real executions: 0 with the deny, and its twin
(``deny=False``) shows the same path really reaches the tool. The model is the
harness's scripted ``FunctionModel``.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, RunContext, Tool  # noqa: E402
from pydantic_ai.tools import ToolDefinition  # noqa: E402
from pydantic_ai.toolsets import AbstractToolset, FunctionToolset  # noqa: E402
from pydantic_ai.toolsets.abstract import ToolsetTool  # noqa: E402
from pydantic_core import SchemaValidator, core_schema  # noqa: E402

from hookport import (  # noqa: E402
    HookAborted, InterceptionPoint, adapters, on, register_hook, register_scoped, scoped_hooks,
)
from hookport.contexts import ToolCallHookContext  # noqa: E402
from tests.adapters.pydantic_ai.harness import ScriptedModel, _Record, make_agent  # noqa: E402
from tests.conformance.harness import ToolCall, Turn  # noqa: E402

P = InterceptionPoint
PURGE = [Turn.call("purge_records", table="users"), Turn.final("done")]
DENY = pytest.mark.parametrize("deny", [False, True], ids=["twin", "deny"])
REFUSAL = "The tool call to purge_records was denied: purging is not allowed"


@pytest.fixture(autouse=True)
def installed(pydantic_ai_adapter: adapters.Adapter) -> Iterator[None]:
    yield


def refuse(ctx: ToolCallHookContext) -> None:
    raise HookAborted(reason="purging is not allowed", source="test")


def deny_purge(deny: bool, tool: str = "purge_records", **filters: Any) -> list[ToolCallHookContext]:
    """Register the deny (or, for the twin, a hook that only watches) and return what PRE saw."""
    seen: list[ToolCallHookContext] = []

    @on(P.PRE_TOOL_CALL, tools=[tool], **filters)
    def guard(ctx: ToolCallHookContext) -> None:
        seen.append(ctx)
        if deny:
            refuse(ctx)

    return seen


def runs(record: _Record) -> int:
    return sum(1 for name, _ in record.tool_runs if name == "purge_records")


def bare_agent(record: _Record, **options: Any) -> Agent[None, Any]:
    return Agent(ScriptedModel(record).model(), name="alpha", **options)


def purge_function(record: _Record) -> Any:
    def purge_records(table: str) -> str:
        """Delete every record of a table."""
        record.tool_runs.append(("purge_records", {"table": table}))
        return f"purged {table}"

    return purge_records


# -- the path: agent.override(spec=...) -------------------------------------------------------


@DENY
@pytest.mark.parametrize("built_with_hook", [False, True], ids=["built-idle", "built-hooked"])
def test_deny_registered_inside_override_spec(deny: bool, built_with_hook: bool) -> None:
    """The override's root capability is built as it begins; a deny registered after that holds."""
    record = _Record(PURGE)
    watcher = on(P.PRE_TOOL_CALL)(lambda ctx: None) if built_with_hook else None
    agent = make_agent(record, "alpha")
    if watcher is not None:
        from hookport import unregister_hook

        unregister_hook(P.PRE_TOOL_CALL, watcher)
    with agent.override(spec={"capabilities": ["ReinjectSystemPrompt"]}):
        seen = deny_purge(deny)
        agent.run_sync("purge")
    assert runs(record) == (0 if deny else 1)
    assert len(seen) == 1 and "call" in seen[0].metadata, "the call site (hookport's capability) decided it"


@DENY
def test_scoped_hooks_opened_inside_override_spec(deny: bool) -> None:
    record = _Record(PURGE)
    on(P.PRE_TOOL_CALL)(lambda ctx: None)  # the agent holds hookport's capability
    agent = make_agent(record, "alpha")
    from hookport.registry import clear_all_hooks

    clear_all_hooks()
    seen: list[ToolCallHookContext] = []

    def guard(ctx: ToolCallHookContext) -> None:
        seen.append(ctx)
        if deny:
            refuse(ctx)

    with agent.override(spec={"capabilities": ["ReinjectSystemPrompt"]}), scoped_hooks():
        register_scoped(P.PRE_TOOL_CALL, guard, tools=["purge_records"])
        agent.run_sync("purge")
    assert runs(record) == (0 if deny else 1)
    assert len(seen) == 1 and "call" in seen[0].metadata, "the call site (hookport's capability) decided it"


# -- entry points --------------------------------------------------------------------------------------


def _drive(agent: Agent[None, Any], entry: str) -> None:
    if entry == "sync":
        agent.run_sync("purge")
    elif entry == "async":
        asyncio.run(agent.run("purge"))
    elif entry == "stream":
        async def streamed() -> None:
            async with agent.run_stream("purge") as result:
                await result.get_output()

        asyncio.run(streamed())
    elif entry == "iter":
        async def iterated() -> None:
            async with agent.iter("purge") as run:
                async for _ in run:
                    pass

        asyncio.run(iterated())
    elif entry == "events":
        async def events() -> None:
            stream = agent.run_stream_events("purge")
            if hasattr(stream, "__aenter__"):  # 2.x: a context manager around the events
                async with stream as opened:
                    async for _ in opened:
                        pass
                return
            async for _ in stream:
                pass

        asyncio.run(events())


@DENY
@pytest.mark.parametrize("entry", ["sync", "async", "stream", "iter", "events"])
def test_entry_points(deny: bool, entry: str) -> None:
    seen = deny_purge(deny)
    record = _Record(PURGE)
    _drive(make_agent(record, "alpha"), entry)
    assert runs(record) == (0 if deny else 1)
    assert len(seen) == 1, "one PRE per call: the call site decided, the body claimed it"


# -- registration timing -------------------------------------------------------------------------------


@DENY
def test_deny_registered_by_a_tool_mid_run_with_no_hook_before(deny: bool) -> None:
    """No hook exists as the run starts (no capability joins it); a kill-switch tool registers the
    deny, and the next tool call of the same run is refused by the toolset's body guard."""
    record = _Record([Turn.call("kill_switch"), Turn.call("purge_records", table="users"), Turn.final("done")])
    agent = make_agent(record, "alpha")

    @agent.tool_plain
    def kill_switch() -> str:
        """Stop all purges."""
        if deny:
            register_hook(P.PRE_TOOL_CALL, refuse, tools=["purge_records"])
        return "stopped"

    result = agent.run_sync("purge")
    assert runs(record) == (0 if deny else 1)
    if deny:
        returns = [p.content for m in result.all_messages() for p in m.parts
                   if getattr(p, "part_kind", "") == "tool-return" and p.tool_name == "purge_records"]
        assert returns == [REFUSAL]


@DENY
def test_deny_registered_after_the_agent_was_built(deny: bool) -> None:
    record = _Record(PURGE)
    agent = make_agent(record, "alpha")
    deny_purge(deny)
    agent.run_sync("purge")
    assert runs(record) == (0 if deny else 1)


@DENY
def test_agent_built_before_install_and_after_reinstall(deny: bool) -> None:
    adapters.uninstall("pydantic-ai")
    try:
        record = _Record(PURGE)
        agent = make_agent(record, "alpha")
    finally:
        adapters.install("pydantic-ai")
    deny_purge(deny)
    agent.run_sync("purge")
    assert runs(record) == (0 if deny else 1)


def test_uninstall_removes_every_body_guard() -> None:
    record = _Record(PURGE)
    adapters.uninstall("pydantic-ai")
    try:
        assert not getattr(FunctionToolset.__dict__["call_tool"], "_hookport_method_guard", False)
        assert "__init_subclass__" not in AbstractToolset.__dict__
        deny_purge(True)
        make_agent(record, "alpha").run_sync("purge")
        assert runs(record) == 1, "uninstalled: nothing refuses"
    finally:
        adapters.install("pydantic-ai")
    make_agent(record, "alpha").run_sync("purge")
    assert runs(record) == 1, "reinstalled: the deny holds again"


# -- tool forms -----------------------------------------------------------------------------------------


@DENY
@pytest.mark.parametrize("form", ["tool-with-context", "async", "renamed-Tool", "toolset", "prefixed"])
def test_tool_forms(deny: bool, form: str) -> None:
    name = "db_purge_records" if form == "prefixed" else "purge_records"
    record = _Record([Turn.call(name, table="users"), Turn.final("done")])
    purge = purge_function(record)

    async def apurge(table: str) -> str:
        """Delete every record of a table."""
        return purge(table)

    def with_context(ctx: RunContext[None], table: str) -> str:
        """Delete every record of a table."""
        return purge(table)

    def wipe(table: str) -> str:
        """Delete every record of a table."""
        return purge(table)

    options: dict[str, Any] = {
        "tool-with-context": {"tools": [Tool(with_context, takes_ctx=True, name="purge_records")]},
        "async": {"tools": [Tool(apurge, name="purge_records")]},
        "renamed-Tool": {"tools": [Tool(wipe, name="purge_records")]},
        "toolset": {"toolsets": [FunctionToolset([purge])]},
        "prefixed": {"toolsets": [FunctionToolset([purge]).prefixed("db")]},
    }[form]
    seen = deny_purge(deny, tool=name)
    bare_agent(record, **options).run_sync("purge")
    assert runs(record) == (0 if deny else 1)
    assert len(seen) == 1, "a renamed toolset's body claims the call site's decision: one PRE"


@dataclass
class _PurgeToolset(AbstractToolset[Any]):
    """An app's own toolset, its class defined after the adapter was installed."""

    record: _Record

    @property
    def id(self) -> str | None:
        return "purge-toolset"

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        schema = core_schema.dict_schema()
        definition = ToolDefinition(name="purge_records", parameters_json_schema={
            "type": "object", "properties": {"table": {"type": "string"}}, "required": ["table"]})
        return {"purge_records": ToolsetTool(toolset=self, tool_def=definition, max_retries=1,
                                             args_validator=SchemaValidator(schema))}

    async def call_tool(self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any],
                        tool: ToolsetTool[Any]) -> Any:
        self.record.tool_runs.append(("purge_records", dict(tool_args)))
        return "purged"


def _slotted() -> type:
    """A toolset class defined while installed and re-created by ``dataclass(slots=True)`` (a copy
    of a class hookport has just guarded)."""

    @dataclass(slots=True)
    class SlottedPurgeToolset(_PurgeToolset):
        async def call_tool(self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any],
                            tool: ToolsetTool[Any]) -> Any:
            self.record.tool_runs.append(("purge_records", dict(tool_args)))
            return "purged"

    return SlottedPurgeToolset


@DENY
@pytest.mark.parametrize("slotted", [False, True], ids=["plain", "slotted-copy"])
def test_custom_toolset_class(deny: bool, slotted: bool) -> None:
    record = _Record(PURGE)
    toolset = _slotted() if slotted else _PurgeToolset
    seen = deny_purge(deny)
    bare_agent(record, toolsets=[toolset(record)]).run_sync("purge")
    assert runs(record) == (0 if deny else 1)
    assert len(seen) == 1


@DENY
@pytest.mark.parametrize("slotted", [False, True], ids=["plain", "slotted-copy"])
def test_custom_toolset_class_body_alone(deny: bool, slotted: bool) -> None:
    """No hook as the run starts, a kill switch registers the deny: only the toolset's guard can refuse."""
    record = _Record([Turn.call("kill_switch"), Turn.call("purge_records", table="users"), Turn.final("done")])
    toolset = _slotted() if slotted else _PurgeToolset
    agent = bare_agent(record, toolsets=[toolset(record)])

    @agent.tool_plain
    def kill_switch() -> str:
        """Stop all purges."""
        if deny:
            register_hook(P.PRE_TOOL_CALL, refuse, tools=["purge_records"])
        return "stopped"

    agent.run_sync("purge")
    assert runs(record) == (0 if deny else 1)


# -- the body layer alone ---------------------------------------------------------------------------------


@DENY
def test_a_tool_calling_a_toolset_directly(deny: bool) -> None:
    """A tool that runs another toolset's tool itself (no call site between): the body guard refuses it."""
    record = _Record([Turn.call("launder", table="users"), Turn.final("done")])
    inner = FunctionToolset([purge_function(record)])
    answers: list[Any] = []

    async def launder(ctx: RunContext[None], table: str) -> str:
        """Launder a purge."""
        tools = await inner.get_tools(ctx)
        answers.append(await inner.call_tool("purge_records", {"table": table}, ctx, tools["purge_records"]))
        return str(answers[-1])

    seen = deny_purge(deny)
    bare_agent(record, tools=[Tool(launder, takes_ctx=True)]).run_sync("launder")
    assert runs(record) == (0 if deny else 1)
    assert len(seen) == 1 and seen[0].agent_role == "alpha"
    if deny:
        assert answers == [REFUSAL]


def test_body_guard_names_the_agent_for_agent_filters() -> None:
    """A deny for another agent does not refuse this one's body-guarded call; one for it does."""
    record = _Record([Turn.call("kill_switch"), Turn.call("purge_records", table="users"), Turn.final("done")])
    agent = make_agent(record, "alpha")

    @agent.tool_plain
    def kill_switch() -> str:
        """Arm the guards."""
        register_hook(P.PRE_TOOL_CALL, refuse, tools=["purge_records"], agents=["someone-else"])
        return "armed"

    agent.run_sync("purge")
    assert runs(record) == 1


# -- concurrency ------------------------------------------------------------------------------------------


@DENY
def test_parallel_calls(deny: bool) -> None:
    calls = [ToolCall("purge_records", {"table": "a"}), ToolCall("purge_records", {"table": "b"})]
    record = _Record([Turn(tool_calls=calls), Turn.final("done")])
    seen = deny_purge(deny)
    make_agent(record, "alpha").run_sync("purge")
    assert runs(record) == (0 if deny else 2)
    assert len(seen) == 2


@DENY
def test_runs_on_app_threads_and_concurrent_tasks(deny: bool) -> None:
    deny_purge(deny)
    records = [_Record(PURGE) for _ in range(4)]

    def in_thread(record: _Record) -> None:
        make_agent(record, "alpha").run_sync("purge")

    threads = [threading.Thread(target=in_thread, args=(r,)) for r in records[:2]]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    async def both() -> None:
        await asyncio.gather(*(make_agent(r, "alpha").run("purge") for r in records[2:]))

    asyncio.run(both())
    assert sum(runs(r) for r in records) == (0 if deny else 4)


# -- deferred tools: approval, then Pydantic AI runs the function ---------------------------------------------


@DENY
def test_tool_approved_on_a_later_run(deny: bool) -> None:
    record = _Record(PURGE)
    agent = bare_agent(record, output_type=[str, DeferredToolRequests])
    agent.tool_plain(requires_approval=True)(purge_function(record))
    first = agent.run_sync("purge")
    assert isinstance(first.output, DeferredToolRequests) and runs(record) == 0
    seen = deny_purge(deny)
    approvals = {call.tool_call_id: True for call in first.output.approvals}
    agent.run_sync(message_history=first.all_messages(),
                   deferred_tool_results=DeferredToolResults(approvals=approvals))
    assert runs(record) == (0 if deny else 1)
    assert len(seen) == 1
