"""Bypass attempts on the AutoGen adapter: each counts the refused tool's real executions (0 with
the deny) and has a twin without it that shows the same path really reaches the tool.

The model is the harness's scripted ``ChatCompletionClient``; agents, teams, workbenches, the
runtime and the tools are AutoGen's own code.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from hookport import HookAborted, InterceptionPoint, adapters, register_hook, register_scoped, scoped_hooks
from hookport.contexts import ToolCallHookContext

pytest.importorskip("autogen_agentchat")

from autogen_agentchat.agents import AssistantAgent  # noqa: E402
from autogen_agentchat.teams import RoundRobinGroupChat  # noqa: E402
from autogen_core import CancellationToken, SingleThreadedAgentRuntime  # noqa: E402
from autogen_core.tools import BaseTool, FunctionTool, StaticWorkbench  # noqa: E402
from pydantic import BaseModel  # noqa: E402

from tests.adapters.autogen.harness import (  # noqa: E402
    HAS_TOOL_LOOP,
    INSTRUCTIONS,
    ScriptedClient,
    build_agent,
    counting_tools,
    drain,
)
from tests.conformance.harness import Turn, number_tool_calls  # noqa: E402

P = InterceptionPoint
DENY = [False, True]
Runs = list[tuple[str, dict[str, Any]]]
PURGE = [Turn.call("purge_records", table="users"), Turn.final("done")]
REFUSED = "Error: Tool call purge_records was refused"


def refuse(ctx: ToolCallHookContext) -> None:
    raise HookAborted(reason="purging is not allowed", source="test")


def deny_purge() -> None:
    register_hook(P.PRE_TOOL_CALL, refuse, tools=["purge_records"])


def purges(runs: Runs) -> int:
    return sum(1 for name, _ in runs if name == "purge_records")


def client(script: list[Turn], requests: list[Any] | None = None) -> ScriptedClient:
    return ScriptedClient(number_tool_calls(list(script)), requests if requests is not None else [])


def agent(name: str, script: list[Turn], runs: Runs, requests: list[Any] | None = None, **options: Any) -> Any:
    return build_agent(name, client(script, requests), runs, **options)


def agent_with(name: str, script: list[Turn], requests: list[Any] | None = None, **options: Any) -> Any:
    """An agent with the tools or workbench given in `options` (no counting tools of its own)."""
    if HAS_TOOL_LOOP:
        options.setdefault("max_tool_iterations", 10)
    return AssistantAgent(name, model_client=client(script, requests), system_message=INSTRUCTIONS,
                          reflect_on_tool_use=True, **options)


# -- the listed bypass: a runtime the app started at start-up ----------------------------------------------------


async def _team_on_started_runtime(deny: bool, runs: Runs, *, stream: bool, agents: list[str] | None = None) -> None:
    runtime = SingleThreadedAgentRuntime()
    runtime.start()  # at start-up: the runtime's tasks copy this context, with no scope in it
    try:
        with scoped_hooks():
            if deny:
                register_scoped(P.PRE_TOOL_CALL, refuse, tools=["purge_records"], agents=agents)
            team = RoundRobinGroupChat([agent("alpha", PURGE, runs)], runtime=runtime, max_turns=1)
            if stream:
                async for _ in team.run_stream(task="go"):
                    pass
            else:
                await team.run(task="go")
    finally:
        await runtime.stop_when_idle()


@pytest.mark.parametrize("stream", [False, True], ids=["run", "run_stream"])
@pytest.mark.parametrize("deny", DENY)
def test_scoped_deny_around_a_team_on_a_runtime_started_at_start_up(deny: bool, stream: bool) -> None:
    runs: Runs = []
    asyncio.run(_team_on_started_runtime(deny, runs, stream=stream))
    assert purges(runs) == (0 if deny else 1)


@pytest.mark.parametrize("refused_agent", ["alpha", "someone-else"])
def test_scoped_agent_filter_on_a_started_runtime(refused_agent: str) -> None:
    """The agent's role reaches the runtime's tasks: a deny for another agent leaves this one alone."""
    runs: Runs = []
    asyncio.run(_team_on_started_runtime(True, runs, stream=False, agents=[refused_agent]))
    assert purges(runs) == (0 if refused_agent == "alpha" else 1)


@pytest.mark.parametrize("deny", DENY)
def test_scope_of_one_run_does_not_reach_another_team_on_the_same_runtime(deny: bool) -> None:
    """Two teams on one started runtime, run concurrently: the scoped deny holds in its own run only."""
    guarded: Runs = []
    free: Runs = []

    async def main() -> None:
        runtime = SingleThreadedAgentRuntime()
        runtime.start()

        async def scoped_run() -> None:
            with scoped_hooks():
                if deny:
                    register_scoped(P.PRE_TOOL_CALL, refuse, tools=["purge_records"])
                await RoundRobinGroupChat([agent("alpha", PURGE, guarded)], runtime=runtime, max_turns=1).run(task="go")

        try:
            await asyncio.gather(scoped_run(), RoundRobinGroupChat([agent("beta", PURGE, free)], runtime=runtime,
                                                                   max_turns=1).run(task="go"))
        finally:
            await runtime.stop_when_idle()

    asyncio.run(main())
    assert purges(guarded) == (0 if deny else 1)
    assert purges(free) == 1


# -- entry points ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("entry", ["run", "run_stream", "on_messages", "team.run", "team.run_stream"])
@pytest.mark.parametrize("deny", DENY)
def test_every_entry_point(entry: str, deny: bool) -> None:
    from autogen_agentchat.messages import TextMessage

    if deny:
        deny_purge()
    runs: Runs = []
    worker = agent("alpha", PURGE, runs, stream=entry == "run_stream")

    async def main() -> None:
        if entry == "run":
            await worker.run(task="go")
        elif entry == "run_stream":
            await drain(worker, "go")
        elif entry == "on_messages":
            await worker.on_messages([TextMessage(content="go", source="user")], CancellationToken())
        elif entry == "team.run":
            await RoundRobinGroupChat([worker], max_turns=1).run(task="go")
        else:
            async for _ in RoundRobinGroupChat([worker], max_turns=1).run_stream(task="go"):
                pass

    asyncio.run(main())
    assert purges(runs) == (0 if deny else 1)


# -- tool forms -------------------------------------------------------------------------------------------------------


class _PurgeArgs(BaseModel):
    table: str


def _tool_forms(runs: Runs) -> dict[str, Any]:
    def plain(table: str) -> str:
        runs.append(("purge_records", {"table": table}))
        return "purged"

    async def coroutine(table: str) -> str:
        runs.append(("purge_records", {"table": table}))
        return "purged"

    class PurgeTool(BaseTool[_PurgeArgs, BaseModel]):
        def __init__(self) -> None:
            super().__init__(_PurgeArgs, BaseModel, "purge_records", "Delete every record of a table.")

        async def run(self, args: _PurgeArgs, cancellation_token: CancellationToken) -> Any:
            runs.append(("purge_records", {"table": args.table}))
            return BaseModel()

    def purge_records(table: str) -> str:
        """Delete every record of a table."""
        return plain(table)

    return {
        "plain-function": {"tools": [purge_records]},
        "function-tool-renamed": {"tools": [FunctionTool(plain, "purge", name="purge_records")]},
        "async-function-tool": {"tools": [FunctionTool(coroutine, "purge", name="purge_records")]},
        "class-based": {"tools": [PurgeTool()]},
        "workbench": {"workbench": StaticWorkbench([FunctionTool(plain, "purge", name="purge_records")])},
    }


@pytest.mark.parametrize("form", ["plain-function", "function-tool-renamed", "async-function-tool", "class-based",
                                  "workbench"])
@pytest.mark.parametrize("deny", DENY)
def test_every_tool_form(form: str, deny: bool) -> None:
    if deny:
        deny_purge()
    runs: Runs = []
    asyncio.run(agent_with("alpha", PURGE, **_tool_forms(runs)[form]).run(task="go"))
    assert purges(runs) == (0 if deny else 1)


@pytest.mark.parametrize("denied", [None, "wipe", "purge_records"], ids=["twin", "model-name", "tool-name"])
def test_a_workbench_override_rename_is_refused_under_either_name(denied: str | None) -> None:
    """``StaticWorkbench(tool_overrides=...)`` (0.6+): the model calls ``wipe``, the tool is ``purge_records``."""
    try:
        from autogen_core.tools import ToolOverride
    except ImportError:
        pytest.skip("tool_overrides arrived in autogen-core 0.6")
    runs: Runs = []
    if denied:
        register_hook(P.PRE_TOOL_CALL, refuse, tools=[denied])
    bench = StaticWorkbench(counting_tools(runs), tool_overrides={"purge_records": ToolOverride(name="wipe")})
    asyncio.run(agent_with("alpha", [Turn.call("wipe", table="users"), Turn.final("done")],
                           workbench=bench).run(task="go"))
    assert purges(runs) == (0 if denied else 1)


@pytest.mark.parametrize("deny", DENY)
def test_an_agent_used_as_a_tool_under_the_refused_name(deny: bool) -> None:
    """``AgentTool`` (a streamed tool from 0.6): the refused tool is the sub-agent's whole run."""
    try:
        from autogen_agentchat.tools import AgentTool
    except ImportError:
        pytest.skip("AgentTool arrived in autogen-agentchat 0.5.5")
    if deny:
        deny_purge()
    runs: Runs = []
    sub = agent("purge_records", [Turn.call("add_numbers", a=1, b=2), Turn.final("sub done")], runs)
    asyncio.run(agent_with("alpha", [Turn.call("purge_records", task="users"), Turn.final("done")],
                           tools=[AgentTool(sub)]).run(task="go"))
    assert len([r for r in runs if r[0] == "add_numbers"]) == (0 if deny else 1)


@pytest.mark.parametrize("deny", DENY)
def test_a_sub_agents_own_refused_tool(deny: bool) -> None:
    try:
        from autogen_agentchat.tools import AgentTool
    except ImportError:
        pytest.skip("AgentTool arrived in autogen-agentchat 0.5.5")
    if deny:
        deny_purge()
    runs: Runs = []
    sub = agent("records", PURGE, runs)
    asyncio.run(agent_with("alpha", [Turn.call("records", task="purge"), Turn.final("done")],
                           tools=[AgentTool(sub)]).run(task="go"))
    assert purges(runs) == (0 if deny else 1)


# -- concurrency --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("deny", DENY)
def test_parallel_tool_calls_in_one_answer(deny: bool) -> None:
    if deny:
        deny_purge()
    runs: Runs = []
    calls = [Turn.call("purge_records", table="a").tool_calls[0], Turn.call("purge_records", table="b").tool_calls[0],
             Turn.call("add_numbers", a=1, b=2).tool_calls[0]]
    asyncio.run(agent("alpha", [Turn(tool_calls=calls), Turn.final("done")], runs).run(task="go"))
    assert purges(runs) == (0 if deny else 2)
    assert len([r for r in runs if r[0] == "add_numbers"]) == 1


@pytest.mark.parametrize("deny", DENY)
def test_concurrent_runs_with_a_scoped_deny_in_one(deny: bool) -> None:
    guarded: Runs = []
    free: Runs = []

    async def scoped_run() -> None:
        with scoped_hooks():
            if deny:
                register_scoped(P.PRE_TOOL_CALL, refuse, tools=["purge_records"])
            await agent("alpha", PURGE, guarded).run(task="go")

    async def main() -> None:
        await asyncio.gather(scoped_run(), agent("beta", PURGE, free).run(task="go"))

    asyncio.run(main())
    assert purges(guarded) == (0 if deny else 1)
    assert purges(free) == 1


# -- registration timing and install order ------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", ["one-turn", "next-turn"])
@pytest.mark.parametrize("deny", DENY)
def test_kill_switch_tool_registers_the_deny_mid_run(deny: bool, shape: str) -> None:
    """A tool's body registers the deny; the purge asked for later in the same run is refused:
    in the same turn's tool loop (0.6+), or in the agent's next turn of a team."""
    if shape == "one-turn" and not HAS_TOOL_LOOP:
        pytest.skip("autogen-agentchat 0.5 runs one round of tool calls per turn (see next-turn)")
    runs: Runs = []

    def kill_switch() -> str:
        """Stop all purges."""
        if deny:
            deny_purge()
        return "armed"

    requests: list[Any] = []
    tools = [FunctionTool(kill_switch, "Stop all purges."), *counting_tools(runs)]
    if shape == "one-turn":
        script = [Turn.call("kill_switch"), Turn.call("purge_records", table="users"), Turn.final("done")]
        asyncio.run(agent_with("alpha", script, requests, tools=tools).run(task="go"))
    else:
        script = [Turn.call("kill_switch"), Turn.final("armed"), *PURGE]
        worker = agent_with("alpha", script, requests, tools=tools)
        asyncio.run(RoundRobinGroupChat([worker], max_turns=2).run(task="go"))
    assert purges(runs) == (0 if deny else 1)
    assert (REFUSED in json.dumps(requests[-1])) is deny


@pytest.mark.parametrize("deny", DENY)
def test_deny_registered_on_a_started_runtime_mid_run(deny: bool) -> None:
    """A global deny registered while the team runs on a runtime started at start-up."""
    runs: Runs = []

    def kill_switch() -> str:
        """Stop all purges."""
        if deny:
            deny_purge()
        return "armed"

    async def main() -> None:
        runtime = SingleThreadedAgentRuntime()
        runtime.start()
        tools = [FunctionTool(kill_switch, "Stop all purges."), *counting_tools(runs)]
        worker = agent_with("alpha", [Turn.call("kill_switch"), Turn.final("armed")], tools=tools)
        purger = agent("beta", PURGE, runs)
        try:
            await RoundRobinGroupChat([worker, purger], runtime=runtime, max_turns=2).run(task="go")
        finally:
            await runtime.stop_when_idle()

    asyncio.run(main())
    assert purges(runs) == (0 if deny else 1)


@pytest.mark.parametrize("deny", DENY)
def test_agent_built_before_install_and_after_reinstall(deny: bool) -> None:
    adapters.uninstall("autogen")
    runs: Runs = []
    try:
        worker = agent("alpha", [*PURGE, *PURGE], runs)
        asyncio.run(worker.run(task="before install"))
        adapters.install("autogen")
        adapters.uninstall("autogen")
        adapters.install("autogen")
        if deny:
            deny_purge()
        asyncio.run(worker.run(task="after reinstall"))
    finally:
        adapters.install("autogen")
    assert purges(runs) == (1 if deny else 2)


# -- the nested same-named tool -----------------------------------------------------------------------------------------


def _no_secret(ctx: ToolCallHookContext) -> None:
    if ctx.tool_input.get("table") == "secret":
        raise HookAborted(reason="the secret table is protected", source="test")


@pytest.mark.parametrize("deny", DENY)
def test_nested_same_named_tool_run_by_the_outer_body(deny: bool) -> None:
    """The outer ``purge_records`` runs another ``purge_records`` tool object itself (``run_json``)."""
    runs: Runs = []
    inner = counting_tools(runs)[1]

    async def outer(table: str) -> str:
        runs.append(("outer", {"table": table}))
        return str(await inner.run_json({"table": "secret"}, CancellationToken()))

    if deny:
        register_hook(P.PRE_TOOL_CALL, _no_secret, tools=["purge_records"])
    asyncio.run(agent_with("alpha", PURGE, tools=[FunctionTool(outer, "purge", name="purge_records")]).run(task="go"))
    assert [r[0] for r in runs].count("outer") == 1
    assert purges(runs) == (0 if deny else 1)


@pytest.mark.parametrize("deny", DENY)
def test_nested_same_named_tool_with_an_agent_filter(deny: bool) -> None:
    runs: Runs = []
    intern = agent("intern", PURGE, runs)

    async def boss(table: str) -> str:
        runs.append(("boss", {"table": table}))
        return str((await intern.run(task="purge")).messages[-1].content)

    if deny:
        register_hook(P.PRE_TOOL_CALL, refuse, tools=["purge_records"], agents=["intern"])
    asyncio.run(agent_with("boss", PURGE, tools=[FunctionTool(boss, "purge", name="purge_records")]).run(task="go"))
    assert [r[0] for r in runs].count("boss") == 1
    assert purges(runs) == (0 if deny else 1)


# -- the body layer alone: paths no call site covers ---------------------------------------------------------------------


@pytest.mark.parametrize("deny", DENY)
def test_body_guard_on_a_workbench_call_inside_a_run(deny: bool) -> None:
    """A tool whose body calls a workbench itself: no agent call site sees that call."""
    runs: Runs = []
    bench = StaticWorkbench(counting_tools(runs))

    async def housekeeping() -> str:
        result = await bench.call_tool("purge_records", {"table": "users"})
        return str(result.to_text())

    if deny:
        deny_purge()
    requests: list[Any] = []
    asyncio.run(agent_with("alpha", [Turn.call("housekeeping"), Turn.final("done")], requests,
                           tools=[FunctionTool(housekeeping, "Tidy up.")]).run(task="go"))
    assert purges(runs) == (0 if deny else 1)
    assert (REFUSED in json.dumps(requests[-1])) is deny


@pytest.mark.parametrize("deny", DENY)
def test_body_guard_on_autogen_cores_tool_agent(deny: bool) -> None:
    """autogen-core's ``ToolAgent`` on a runtime: ``tool.run_json`` with no AgentChat call site."""
    from autogen_core import AgentId, FunctionCall
    from autogen_core.tool_agent import ToolAgent, ToolException

    runs: Runs = []
    if deny:
        deny_purge()

    async def main() -> Any:
        runtime = SingleThreadedAgentRuntime()
        await ToolAgent.register(runtime, "tools", lambda: ToolAgent("tools", counting_tools(runs)))
        runtime.start()
        try:
            return await runtime.send_message(FunctionCall(id="c1", name="purge_records",
                                                           arguments=json.dumps({"table": "users"})),
                                              AgentId("tools", "default"))
        except ToolException as refused:
            return refused
        finally:
            await runtime.stop_when_idle()

    answer = asyncio.run(main())
    assert purges(runs) == (0 if deny else 1)
    assert (REFUSED in str(getattr(answer, "content", answer))) is deny


@pytest.mark.parametrize("deny", DENY)
def test_body_guard_once_per_call(deny: bool) -> None:
    seen: list[str] = []

    def count(ctx: ToolCallHookContext) -> None:
        seen.append(ctx.tool_name)
        if deny:
            refuse(ctx)

    register_hook(P.PRE_TOOL_CALL, count, tools=["purge_records"])
    runs: Runs = []
    asyncio.run(agent("alpha", PURGE, runs).run(task="go"))
    assert seen == ["purge_records"]
    assert purges(runs) == (0 if deny else 1)


# -- functions a code executor offers to generated code -------------------------------------------------------------------


def purge_records(table: str) -> str:
    """Delete every record of a table (runs in the code executor's process: it leaves a line per run)."""
    with open("purged.log", "a") as log:
        log.write(table + "\n")
    return "purged " + table


CODE_FORMS = {
    "from-import": "from functions import purge_records\nprint(purge_records('users'))",
    "module-attribute": "import functions\nprint(functions.purge_records(table='users'))",
    "aliased": "from functions import purge_records as wipe\nprint(wipe('users'))",
    "getattr": "import functions\nprint(getattr(functions, 'purge_records')('users'))",
}


def _executed(work_dir: Any) -> list[str]:
    log = work_dir / "purged.log"
    return log.read_text().split() if log.exists() else []


@pytest.mark.parametrize("form", list(CODE_FORMS))
@pytest.mark.parametrize("deny", DENY)
def test_a_code_executors_function_used_by_generated_code(form: str, deny: bool, tmp_path: Any) -> None:
    """``PythonCodeExecutionTool(LocalCommandLineCodeExecutor(functions=[purge_records]))`` in an agent's run."""
    from autogen_ext.code_executors.local import LocalCommandLineCodeExecutor
    from autogen_ext.tools.code_execution import PythonCodeExecutionTool

    if deny:
        deny_purge()
    executor = LocalCommandLineCodeExecutor(work_dir=tmp_path, functions=[purge_records])
    requests: list[Any] = []
    worker = agent_with("alpha", [Turn.call("CodeExecutor", code=CODE_FORMS[form]), Turn.final("done")], requests,
                        tools=[PythonCodeExecutionTool(executor)])
    asyncio.run(worker.run(task="go"))
    assert _executed(tmp_path) == ([] if deny else ["users"])
    assert (REFUSED in json.dumps(requests[-1])) is deny


HIDDEN_FORMS = {
    "exec-base64": "import base64\nexec(base64.b64decode({encoded!r}).decode())",
    "computed-getattr": "import functions\nname = 'purge_' + 'records'\nprint(getattr(functions, name)('users'))",
    "importlib": "import importlib\nm = importlib.import_module('func' + 'tions')\nprint(vars(m)['purge_' + 'records']('users'))",
    "module-dict": "import functions\nprint(functions.__dict__['purge_' + 'records']('users'))",
    "subprocess": "import subprocess, sys\nsubprocess.run([sys.executable, '-c', {encoded_call!r}], check=True)",
    "os-system": "import os, sys\nos.system(sys.executable + ' -c ' + repr({encoded_call!r}))",
    "module-written-at-run-time": "import base64\nopen('helper.py', 'w').write(base64.b64decode({encoded!r}).decode())\nimport helper",
}
"""Generated code that reaches the executor's function without a use hookport could read."""


def _hidden(form: str) -> str:
    import base64

    call = "from functions import purge_records; print(purge_records('users'))"
    encoded = base64.b64encode(call.replace("; ", "\n").encode()).decode()
    encoded_call = "exec(__import__('base64').b64decode(" + repr(encoded) + ").decode())"
    return HIDDEN_FORMS[form].format(encoded=encoded, encoded_call=encoded_call)


@pytest.mark.parametrize("form", list(HIDDEN_FORMS))
@pytest.mark.parametrize("deny", DENY)
def test_generated_code_that_hides_the_function_is_refused(form: str, deny: bool, tmp_path: Any) -> None:
    """The function's name is nowhere in the code's text (encoded, computed, in another process): the
    guard cannot tell what the code calls, so while a hook may refuse the function it runs none of it."""
    from autogen_ext.code_executors.local import LocalCommandLineCodeExecutor
    from autogen_ext.tools.code_execution import PythonCodeExecutionTool

    if deny:
        deny_purge()
    executor = LocalCommandLineCodeExecutor(work_dir=tmp_path, functions=[purge_records])
    requests: list[Any] = []
    worker = agent_with("alpha", [Turn.call("CodeExecutor", code=_hidden(form)), Turn.final("done")], requests,
                        tools=[PythonCodeExecutionTool(executor)])
    asyncio.run(worker.run(task="go"))
    assert _executed(tmp_path) == ([] if deny else ["users"])
    assert ("hookport cannot tell which tools this code calls" in json.dumps(requests[-1])) is deny


@pytest.mark.parametrize("deny", DENY)
def test_a_shell_block_running_the_function_is_refused(deny: bool, tmp_path: Any) -> None:
    """A ``bash`` block (a ``CodeExecutorAgent`` runs any language the model writes) that starts Python."""
    import sys

    from autogen_core.code_executor import CodeBlock
    from autogen_ext.code_executors.local import LocalCommandLineCodeExecutor

    if deny:
        deny_purge()
    executor = LocalCommandLineCodeExecutor(work_dir=tmp_path, functions=[purge_records])
    script = f"{sys.executable} -c \"$(echo ZnJvbSBmdW5jdGlvbnMgaW1wb3J0ICo= | base64 -d); purge_records('users')\""
    result = asyncio.run(executor.execute_code_blocks([CodeBlock(code=script, language="bash")], CancellationToken()))
    assert _executed(tmp_path) == ([] if deny else ["users"])
    assert (result.exit_code == 1 and "cannot tell which tools" in result.output) is deny


def test_hidden_code_runs_when_no_hook_may_refuse_the_function(tmp_path: Any) -> None:
    """No over-refusal: a deny of another tool only leaves code hookport cannot read alone."""
    from autogen_core.code_executor import CodeBlock
    from autogen_ext.code_executors.local import LocalCommandLineCodeExecutor

    register_hook(P.PRE_TOOL_CALL, refuse, tools=["some_other_tool"])
    executor = LocalCommandLineCodeExecutor(work_dir=tmp_path, functions=[purge_records])
    block = CodeBlock(code=_hidden("exec-base64"), language="python")
    result = asyncio.run(executor.execute_code_blocks([block], CancellationToken()))
    assert _executed(tmp_path) == ["users"] and result.exit_code == 0


def test_computed_arguments_are_named_for_the_hook(tmp_path: Any) -> None:
    """Arguments the code computes are not known before it runs: the hook sees their source text."""
    from autogen_core.code_executor import CodeBlock
    from autogen_ext.code_executors.local import LocalCommandLineCodeExecutor

    seen: list[tuple[dict[str, Any], Any]] = []

    def unread_means_no(ctx: ToolCallHookContext) -> None:
        seen.append((dict(ctx.tool_input), ctx.metadata.get("unread_arguments")))
        if "table" in (ctx.metadata.get("unread_arguments") or {}):
            raise HookAborted(reason="the table must be written out", source="test")

    register_hook(P.PRE_TOOL_CALL, unread_means_no, tools=["purge_records"])
    executor = LocalCommandLineCodeExecutor(work_dir=tmp_path, functions=[purge_records])
    code = "from functions import purge_records\ntable = 'us' + 'ers'\npurge_records(table=table)"
    result = asyncio.run(executor.execute_code_blocks([CodeBlock(code=code, language="python")],
                                                      CancellationToken()))
    assert seen == [({}, {"table": "table"})]
    assert _executed(tmp_path) == [] and result.exit_code == 1


def test_a_code_executors_function_sees_the_literal_arguments(tmp_path: Any) -> None:
    """An argument-based deny: the secret table is refused, the public one is not (two executions)."""
    from autogen_core.code_executor import CodeBlock
    from autogen_ext.code_executors.local import LocalCommandLineCodeExecutor

    register_hook(P.PRE_TOOL_CALL, _no_secret, tools=["purge_records"])
    executor = LocalCommandLineCodeExecutor(work_dir=tmp_path, functions=[purge_records])

    async def main() -> list[Any]:
        return [await executor.execute_code_blocks(
            [CodeBlock(code=f"from functions import purge_records\npurge_records({table!r})", language="python")],
            CancellationToken()) for table in ("public", "secret")]

    public, secret = asyncio.run(main())
    assert _executed(tmp_path) == ["public"]
    assert public.exit_code == 0 and secret.exit_code == 1 and "secret table is protected" in secret.output


@pytest.mark.parametrize("deny", DENY)
def test_body_guard_on_a_streamed_tool_run_by_a_tool_body(deny: bool) -> None:
    """``AgentTool.run_json_stream`` (0.6+) called by a tool's body: no call site sees it.
    (0.5's ``AgentTool.run_json`` is the route of `test_body_guard_on_a_workbench_call_inside_a_run`.)"""
    from autogen_agentchat.tools import AgentTool

    if not hasattr(AgentTool, "run_json_stream"):
        pytest.skip("AgentTool is a streamed tool from autogen-agentchat 0.6 (0.5's goes through run_json)")
    runs: Runs = []
    sub = agent("purge_records", [Turn.call("add_numbers", a=1, b=2), Turn.final("sub done")], runs)

    async def housekeeping() -> str:
        items = [item async for item in AgentTool(sub).run_json_stream({"task": "purge"}, CancellationToken())]
        return str(items[-1])

    if deny:
        deny_purge()
    requests: list[Any] = []
    asyncio.run(agent_with("alpha", [Turn.call("housekeeping"), Turn.final("done")], requests,
                           tools=[FunctionTool(housekeeping, "Tidy up.")]).run(task="go"))
    assert len([r for r in runs if r[0] == "add_numbers"]) == (0 if deny else 1)
    assert (REFUSED in json.dumps(requests[-1])) is deny
