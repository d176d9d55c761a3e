"""Bypass attempts on the Agent Framework adapter: each counts the refused tool's real executions
(0 with the deny) and has a twin without it that shows the same path really reaches the tool.

The model is the harness's scripted chat client; every agent, tool loop, middleware pipeline and
``FunctionTool.invoke`` is the framework's own code.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from hookport import HookAborted, InterceptionPoint, adapters, register_hook, register_scoped, scoped_hooks
from hookport.contexts import ToolCallHookContext

pytest.importorskip("agent_framework")

from agent_framework import Agent, Content, FunctionTool, tool  # noqa: E402

from tests.adapters.agent_framework.harness import (  # noqa: E402
    INSTRUCTIONS,
    ScriptedChatClient,
    build_agent,
    counting_tools,
    drain,
)
from tests.conformance.harness import Turn, number_tool_calls  # noqa: E402

P = InterceptionPoint
DENY = [False, True]
REFUSED = "Error: Tool call purge_records was refused"


def refuse(ctx: ToolCallHookContext) -> None:
    raise HookAborted(reason="purging is not allowed", source="test")


def deny_purge() -> None:
    register_hook(P.PRE_TOOL_CALL, refuse, tools=["purge_records"])


def counting_refusal(seen: list[str], deny: bool) -> Any:
    """A PRE_TOOL_CALL hook that records each call it sees and, with `deny`, refuses it."""

    def count(ctx: ToolCallHookContext) -> None:
        seen.append(ctx.tool_name)
        if deny:
            refuse(ctx)

    return count


def purges(runs: list[tuple[str, dict[str, Any]]]) -> int:
    return sum(1 for name, _ in runs if name == "purge_records")


def agent_with(tools: list[Any], script: list[Turn], name: str = "alpha",
               requests: list[Any] | None = None) -> Agent:
    client = ScriptedChatClient(number_tool_calls(list(script)), requests if requests is not None else [])
    return Agent(client, name=name, instructions=INSTRUCTIONS, tools=tools)


PURGE = [Turn.call("purge_records", table="users"), Turn.final("done")]


# -- the listed bypass: a deny registered during the run --------------------------------------------


@pytest.mark.parametrize("deny", DENY)
def test_kill_switch_tool_registers_the_deny_mid_run(deny: bool) -> None:
    """No hook exists when the agent is built or the run starts; a tool's body registers the deny;
    the next tool call of the same run (the same tool pipeline) is refused."""
    runs: list[tuple[str, dict[str, Any]]] = []

    @tool
    def kill_switch() -> str:
        """Stop all purges."""
        if deny:
            deny_purge()
        return "armed"

    requests: list[Any] = []
    worker = agent_with([kill_switch, *counting_tools(runs)],
                        [Turn.call("kill_switch"), Turn.call("purge_records", table="users"), Turn.final("done")],
                        requests=requests)
    asyncio.run(worker.run("go"))
    assert purges(runs) == (0 if deny else 1)
    assert (REFUSED in json.dumps(requests[-1], default=str)) is deny


@pytest.mark.parametrize("deny", DENY)
def test_kill_switch_in_a_parallel_batch_before_the_purge(deny: bool) -> None:
    """Registered by a tool of an earlier model answer of the same run, on a streamed run."""
    runs: list[tuple[str, dict[str, Any]]] = []

    @tool
    async def kill_switch() -> str:
        """Stop all purges."""
        if deny:
            deny_purge()
        return "armed"

    worker = agent_with([kill_switch, *counting_tools(runs)],
                        [Turn.call("kill_switch"), Turn.call("purge_records", table="users"), Turn.final("done")])
    asyncio.run(drain(worker, "go"))
    assert purges(runs) == (0 if deny else 1)


# -- entry points ------------------------------------------------------------------------------------


@pytest.mark.parametrize("entry", ["run", "stream", "nested-loop-task"])
@pytest.mark.parametrize("deny", DENY)
def test_every_entry_point(entry: str, deny: bool) -> None:
    if deny:
        deny_purge()
    runs: list[tuple[str, dict[str, Any]]] = []
    worker = build_agent("alpha", PURGE, [], runs)
    if entry == "run":
        asyncio.run(worker.run("go"))
    elif entry == "stream":
        asyncio.run(drain(worker, "go"))
    else:
        async def main() -> None:
            await asyncio.create_task(worker.run("go"))
        asyncio.run(main())
    assert purges(runs) == (0 if deny else 1)


# -- tool forms ----------------------------------------------------------------------------------------


def _tool_forms(runs: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    def plain(table: str) -> str:
        runs.append(("purge_records", {"table": table}))
        return "purged"

    async def coroutine(table: str) -> str:
        runs.append(("purge_records", {"table": table}))
        return "purged"

    class Purger:
        def __call__(self, table: str) -> str:
            runs.append(("purge_records", {"table": table}))
            return "purged"

    def wipe(table: str) -> str:
        runs.append(("purge_records", {"table": table}))
        return "purged"

    def purge_records(table: str) -> str:
        """Delete every record of a table."""
        runs.append(("purge_records", {"table": table}))
        return "purged"

    return {
        "decorated-sync": tool(name="purge_records", description="purge")(plain),
        "decorated-async": tool(name="purge_records", description="purge")(coroutine),
        "renamed": tool(wipe, name="purge_records", description="purge"),
        "class-constructed": FunctionTool(name="purge_records", description="purge", func=Purger()),
        "plain-function": purge_records,
        "on-event-loop": FunctionTool(name="purge_records", description="purge", func=coroutine),
    }


@pytest.mark.parametrize("form", ["decorated-sync", "decorated-async", "renamed", "class-constructed",
                                  "plain-function", "on-event-loop"])
@pytest.mark.parametrize("deny", DENY)
def test_every_tool_form(form: str, deny: bool) -> None:
    if deny:
        deny_purge()
    runs: list[tuple[str, dict[str, Any]]] = []
    worker = agent_with([_tool_forms(runs)[form]], PURGE)
    asyncio.run(worker.run("go"))
    assert purges(runs) == (0 if deny else 1)


@pytest.mark.parametrize("deny", DENY)
def test_tools_given_to_the_run_not_the_agent(deny: bool) -> None:
    if deny:
        deny_purge()
    runs: list[tuple[str, dict[str, Any]]] = []
    worker = agent_with([], PURGE)
    asyncio.run(worker.run("go", tools=counting_tools(runs)))
    assert purges(runs) == (0 if deny else 1)


@pytest.mark.parametrize("deny", DENY)
def test_an_agent_used_as_a_tool_under_the_refused_name(deny: bool) -> None:
    """``agent.as_tool(name="purge_records")``: the refused tool is the sub-agent's whole run."""
    if deny:
        deny_purge()
    runs: list[tuple[str, dict[str, Any]]] = []
    sub = build_agent("records", [Turn.call("add_numbers", a=1, b=2), Turn.final("sub done")], [], runs)
    worker = agent_with([sub.as_tool(name="purge_records", arg_name="table")],
                        [Turn.call("purge_records", table="users"), Turn.final("done")])
    asyncio.run(worker.run("go"))
    assert len([r for r in runs if r[0] == "add_numbers"]) == (0 if deny else 1)


@pytest.mark.parametrize("deny", DENY)
def test_a_sub_agents_own_refused_tool(deny: bool) -> None:
    """A sub-agent (used as a tool) calling the refused tool: refused inside the nested run."""
    if deny:
        deny_purge()
    runs: list[tuple[str, dict[str, Any]]] = []
    sub = build_agent("records", PURGE, [], runs)
    worker = agent_with([sub.as_tool(name="ask_records")], [Turn.call("ask_records", task="purge"),
                                                            Turn.final("done")])
    asyncio.run(worker.run("go"))
    assert purges(runs) == (0 if deny else 1)


# -- concurrency -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("deny", DENY)
def test_parallel_tool_calls_in_one_answer(deny: bool) -> None:
    if deny:
        deny_purge()
    runs: list[tuple[str, dict[str, Any]]] = []
    script = [Turn(tool_calls=[Turn.call("purge_records", table="a").tool_calls[0],
                               Turn.call("purge_records", table="b").tool_calls[0],
                               Turn.call("add_numbers", a=1, b=2).tool_calls[0]]),
              Turn.final("done")]
    worker = build_agent("alpha", script, [], runs)
    asyncio.run(worker.run("go"))
    assert purges(runs) == (0 if deny else 2)
    assert len([r for r in runs if r[0] == "add_numbers"]) == 1


@pytest.mark.parametrize("deny", DENY)
def test_concurrent_runs_with_a_scoped_deny_in_one(deny: bool) -> None:
    """A scoped deny opened in one task holds there and nowhere else."""
    guarded_runs: list[tuple[str, dict[str, Any]]] = []
    free_runs: list[tuple[str, dict[str, Any]]] = []

    async def guarded() -> None:
        with scoped_hooks():
            if deny:
                register_scoped(P.PRE_TOOL_CALL, refuse, tools=["purge_records"])
            await build_agent("alpha", PURGE, [], guarded_runs).run("go")

    async def main() -> None:
        await asyncio.gather(guarded(), build_agent("beta", PURGE, [], free_runs).run("go"))

    asyncio.run(main())
    assert purges(guarded_runs) == (0 if deny else 1)
    assert purges(free_runs) == 1


@pytest.mark.parametrize("deny", DENY)
def test_scoped_agent_filter_on_a_sync_tool_thread(deny: bool) -> None:
    """Sync tools run on ``asyncio.to_thread``: the agent's role and the scope reach that thread."""
    runs: list[tuple[str, dict[str, Any]]] = []
    with scoped_hooks():
        register_scoped(P.PRE_TOOL_CALL, refuse, tools=["purge_records"], agents=["alpha" if deny else "other"])
        asyncio.run(build_agent("alpha", PURGE, [], runs).run("go"))
    assert purges(runs) == (0 if deny else 1)


# -- registration timing and install order ----------------------------------------------------------------


@pytest.mark.parametrize("deny", DENY)
def test_hook_registered_after_the_agent_and_a_first_run(deny: bool) -> None:
    runs: list[tuple[str, dict[str, Any]]] = []
    worker = build_agent("alpha", [*PURGE, *PURGE], [], runs)
    asyncio.run(worker.run("first"))  # the client caches its tool pipeline here, with no hook
    if deny:
        deny_purge()
    asyncio.run(worker.run("second"))
    assert purges(runs) == (1 if deny else 2)


@pytest.mark.parametrize("deny", DENY)
def test_agent_built_before_install_and_after_reinstall(deny: bool) -> None:
    adapters.uninstall("agent-framework")
    runs: list[tuple[str, dict[str, Any]]] = []
    try:
        worker = build_agent("alpha", [*PURGE, *PURGE], [], runs)
        asyncio.run(worker.run("before install"))  # cached pipeline without hookport
        adapters.install("agent-framework")
        adapters.uninstall("agent-framework")
        adapters.install("agent-framework")
        if deny:
            deny_purge()
        asyncio.run(worker.run("after reinstall"))
    finally:
        adapters.install("agent-framework")
    assert purges(runs) == (1 if deny else 2)


# -- the nested same-named tool -------------------------------------------------------------------------------


@pytest.mark.parametrize("deny", DENY)
def test_nested_same_named_tool_called_directly_by_the_outer_body(deny: bool) -> None:
    """The outer ``purge_records`` invokes another ``purge_records`` tool object itself."""
    runs: list[tuple[str, dict[str, Any]]] = []
    inner = counting_tools(runs)[1]

    @tool(name="purge_records")
    async def outer(table: str) -> str:
        """Purge, through the inner tool."""
        runs.append(("outer", {"table": table}))
        return str(await inner.invoke(arguments={"table": "secret"}))

    if deny:
        register_hook(P.PRE_TOOL_CALL, _no_secret, tools=["purge_records"])
    asyncio.run(agent_with([outer], PURGE).run("go"))
    assert [r[0] for r in runs].count("outer") == 1
    assert purges(runs) == (0 if deny else 1)


def _no_secret(ctx: ToolCallHookContext) -> None:
    if ctx.tool_input.get("table") == "secret":
        raise HookAborted(reason="the secret table is protected", source="test")


@pytest.mark.parametrize("deny", DENY)
def test_nested_same_named_tool_with_an_agent_filter(deny: bool) -> None:
    """A boss tool named like the intern's tool, with ``agents=["intern"]``: only the intern's is refused."""
    runs: list[tuple[str, dict[str, Any]]] = []
    intern = build_agent("intern", PURGE, [], runs)

    @tool(name="purge_records")
    async def boss(table: str) -> str:
        """Purge, by asking the intern."""
        runs.append(("boss", {"table": table}))
        return (await intern.run("purge")).text

    if deny:
        register_hook(P.PRE_TOOL_CALL, refuse, tools=["purge_records"], agents=["intern"])
    asyncio.run(agent_with([boss], PURGE, name="boss").run("go"))
    assert [r[0] for r in runs].count("boss") == 1
    assert purges(runs) == (0 if deny else 1)


# -- the body layer alone: paths no call site covers ------------------------------------------------------------


@pytest.mark.parametrize("deny", DENY)
def test_body_guard_on_the_frameworks_direct_invoke_route(deny: bool) -> None:
    """``_auto_invoke_function`` with no middleware pipeline (the framework's own no-middleware
    route, which hookport's call site never joins) is refused by the tool body."""
    from agent_framework._tools import _auto_invoke_function

    if deny:
        deny_purge()
    runs: list[tuple[str, dict[str, Any]]] = []
    purge = counting_tools(runs)[1]
    call = Content.from_function_call(call_id="call_1", name="purge_records", arguments={"table": "users"})
    result = asyncio.run(_auto_invoke_function(call, config={}, tool_map={"purge_records": purge},
                                               middleware_pipeline=None))
    assert purges(runs) == (0 if deny else 1)
    assert (REFUSED in str(result.result)) is deny


@pytest.mark.parametrize("deny", DENY)
def test_body_guard_on_an_app_invoke_inside_a_run(deny: bool) -> None:
    """A tool of the run whose body invokes another tool object itself (not through the tool loop)."""
    runs: list[tuple[str, dict[str, Any]]] = []
    purge = counting_tools(runs)[1]

    @tool
    async def housekeeping() -> str:
        """Tidy up."""
        return str(await purge.invoke(arguments={"table": "users"}))

    if deny:
        deny_purge()
    asyncio.run(agent_with([housekeeping], [Turn.call("housekeeping"), Turn.final("done")]).run("go"))
    assert purges(runs) == (0 if deny else 1)


@pytest.mark.parametrize("deny", DENY)
def test_body_guard_once_per_call(deny: bool) -> None:
    """Call site and body never both dispatch: one PRE per call, refused or not."""
    seen: list[str] = []
    count = counting_refusal(seen, deny)
    register_hook(P.PRE_TOOL_CALL, count, tools=["purge_records"])
    runs: list[tuple[str, dict[str, Any]]] = []
    asyncio.run(build_agent("alpha", PURGE, [], runs).run("go"))
    assert seen == ["purge_records"]
    assert purges(runs) == (0 if deny else 1)


@pytest.mark.parametrize("deny", DENY)
def test_a_tool_the_user_approved(deny: bool) -> None:
    """``approval_mode="always_require"``: the run asks, the app approves, the next run executes the call."""
    from agent_framework import Message

    runs: list[tuple[str, dict[str, Any]]] = []

    @tool(approval_mode="always_require")
    def purge_records(table: str) -> str:
        """Delete every record of a table."""
        runs.append(("purge_records", {"table": table}))
        return "purged"

    worker = agent_with([purge_records], [*PURGE, Turn.final("done")])

    async def main() -> None:
        session = worker.create_session() if hasattr(worker, "create_session") else worker.get_new_thread()
        first = await worker.run("go", session=session)
        requests = first.user_input_requests
        assert requests, "the framework asked for no approval"
        if deny:
            deny_purge()
        answer = Message(role="user", contents=[r.to_function_approval_response(True) for r in requests])
        await worker.run(answer, session=session)

    asyncio.run(main())
    assert purges(runs) == (0 if deny else 1)


# -- the body line: FunctionTool.__call__, below the call site at FunctionTool.invoke ------------------------


def recording_purge(runs: list[tuple[str, dict[str, Any]]]) -> Any:
    """A plain purge function that records its real executions."""

    def purge(table: str) -> str:
        runs.append(("purge_records", {"table": table}))
        return "purged"

    return purge


class DirectTool(FunctionTool):  # type: ignore[misc]
    """A subclass whose ``invoke`` override calls the tool's code itself (not the base ``invoke``)."""

    async def invoke(self, *, arguments: Any = None, context: Any = None, tool_call_id: Any = None,
                     **kwargs: Any) -> Any:
        result = self(**dict(arguments or {}))
        return str(await result if asyncio.iscoroutine(result) else result)


@pytest.mark.parametrize("deny", DENY)
def test_a_subclass_overriding_invoke_reaches_the_body_line(deny: bool) -> None:
    if deny:
        deny_purge()
    runs: list[tuple[str, dict[str, Any]]] = []
    requests: list[Any] = []
    worker = agent_with([DirectTool(name="purge_records", description="purge", func=recording_purge(runs))], PURGE,
                        requests=requests)
    asyncio.run(worker.run("go"))
    assert purges(runs) == (0 if deny else 1)
    assert (REFUSED in str(requests[-1])) is deny


@pytest.mark.parametrize("kind", ["sync", "async"])
@pytest.mark.parametrize("deny", DENY)
def test_calling_the_tool_object_directly(kind: str, deny: bool) -> None:
    """``purge_records(table="users")`` on the ``FunctionTool`` (no ``invoke``), outside any run."""
    if deny:
        deny_purge()
    runs: list[tuple[str, dict[str, Any]]] = []
    plain = recording_purge(runs)

    async def coroutine(table: str) -> str:
        return plain(table)

    purge = tool(name="purge_records", description="purge")(plain if kind == "sync" else coroutine)
    result = purge(table="users")
    if kind == "async":
        result = asyncio.run(result)
    assert purges(runs) == (0 if deny else 1)
    assert (REFUSED in str(result)) is deny


@pytest.mark.parametrize("deny", DENY)
def test_a_tool_whose_function_is_a_tool_is_one_call(deny: bool) -> None:
    """``FunctionTool(func=other_tool)``: the outer call's decision covers the inner tool's code."""
    seen: list[str] = []
    count = counting_refusal(seen, deny)
    register_hook(P.PRE_TOOL_CALL, count)
    runs: list[tuple[str, dict[str, Any]]] = []
    inner = counting_tools(runs)[1]
    outer = FunctionTool(name="purge_records", description="purge", func=inner)
    asyncio.run(agent_with([outer], PURGE).run("go"))
    assert seen == ["purge_records"]
    assert purges(runs) == (0 if deny else 1)
