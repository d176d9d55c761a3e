"""Bypass attempts on the LlamaIndex adapter: each counts the refused tool's real executions (0 with
the deny) and has a twin without it that shows the same path really reaches the tool.

The listed bypass (issue 22): a ``CodeActAgent`` whose generated code calls a refused tool (the
code calls the tool functions in the app's executor namespaces, which no call site sees).
"""

import asyncio
import contextlib
import io
import threading
from typing import Any

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core.agent.workflow import AgentWorkflow, CodeActAgent, FunctionAgent, ReActAgent  # noqa: E402
from llama_index.core.tools import FunctionTool, ToolMetadata, ToolOutput  # noqa: E402
from llama_index.core.tools.types import BaseTool  # noqa: E402
from llama_index.core.workflow import Context, StartEvent, StopEvent, Workflow, step  # noqa: E402

from hookport import HookAborted, InterceptionPoint, adapters, on, register_hook, register_scoped, scoped_hooks  # noqa: E402
from tests.adapters.llama_index.harness import (  # noqa: E402
    SYSTEM_PROMPT,
    counting_tools,
    run_agent,
    scripted_llm,
)
from tests.conformance.harness import ToolCall, Turn  # noqa: E402

P = InterceptionPoint
DENY = pytest.mark.parametrize("deny", [False, True], ids=["twin", "deny"])
REFUSAL = "Tool call purge_records was refused: purging is not allowed"
PURGE = [Turn.call("purge_records", table="users"), Turn.final("done")]


def refuse(ctx: Any) -> None:
    raise HookAborted(reason="purging is not allowed", source="test")


def deny_purge(deny: bool) -> None:
    if deny:
        register_hook(P.PRE_TOOL_CALL, refuse, tools=["purge_records"])


def purges(runs: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    return [args for name, args in runs if name == "purge_records"]


# -- CodeActAgent: generated code calling the tools ------------------------------------------------


class SimpleCodeExecutor:
    """The code executor of LlamaIndex's CodeActAgent guide: ``exec`` in namespaces it keeps."""

    def __init__(self, locals: dict[str, Any], globals: dict[str, Any]) -> None:  # noqa: A002
        self.locals = locals
        self.globals = globals

    async def execute(self, code: str) -> str:
        stdout = io.StringIO()
        try:
            with contextlib.redirect_stdout(stdout):
                exec(code, self.globals, self.locals)
        except Exception as error:  # noqa: BLE001 - the model reads the error
            return f"Error: {error}"
        return stdout.getvalue()


def closure_executor(namespace: dict[str, Any]) -> Any:
    """A code executor that is a plain function holding its namespace in its closure."""

    def execute(code: str) -> str:
        stdout = io.StringIO()
        with contextlib.redirect_stdout(stdout):
            exec(code, namespace)
        return stdout.getvalue()

    return execute


async def module_executor(code: str) -> str:
    """A code executor that runs the code in this module's globals (``exec(code, globals())``)."""
    exec(code, globals())
    return "ran"


def code_act(runs: list[tuple[str, dict[str, Any]]], code: str, executor: str, name: str = "coder") -> CodeActAgent:
    def purge_records(table: str) -> str:
        """Delete every record of a table."""
        runs.append(("purge_records", {"table": table}))
        return f"purged {table}"

    def add_numbers(a: int, b: int) -> int:
        """Add two integers."""
        runs.append(("add_numbers", {"a": a, "b": b}))
        return a + b

    functions = {"purge_records": purge_records, "add_numbers": add_numbers}
    if executor == "module":
        globals().update(functions)
        execute: Any = module_executor
    elif executor == "object":
        execute = SimpleCodeExecutor(locals=dict(functions), globals={"__builtins__": __builtins__}).execute
    else:
        execute = closure_executor({**functions, "__builtins__": __builtins__})
    llm = scripted_llm([Turn.final(f"<execute>\n{code}\n</execute>"), Turn.final("done")], [])
    return CodeActAgent(name=name, code_execute_fn=execute, tools=[purge_records, add_numbers], llm=llm,
                        system_prompt=SYSTEM_PROMPT)


@DENY
@pytest.mark.parametrize("executor", ["object", "closure", "module"])
def test_code_act_agent_code_calling_the_refused_tool(harness: Any, deny: bool, executor: str) -> None:
    deny_purge(deny)
    runs: list[tuple[str, dict[str, Any]]] = []
    seen: list[str] = []

    @on(P.POST_TOOL_CALL, tools=["purge_records"])
    def observe(ctx: Any) -> None:
        seen.append(str(ctx.tool_result))

    agent = code_act(runs, "print(add_numbers(1, 2))\nprint(purge_records('users'))", executor)
    asyncio.run(run_agent(agent, "purge", "sync"))
    assert purges(runs) == ([] if deny else [{"table": "users"}])
    assert ("add_numbers", {"a": 1, "b": 2}) in runs  # the code ran, the allowed tool too
    assert seen == ([REFUSAL] if deny else ["purged users"])
    assert agent.tools[0]._real_fn.__name__ == "purge_records"  # the namespaces got their functions back


@DENY
def test_code_act_agent_scoped_deny_and_agent_filter(harness: Any, deny: bool) -> None:
    """A scoped deny for the coder reaches the code's calls; one for another agent does not."""
    runs: list[tuple[str, dict[str, Any]]] = []
    with scoped_hooks():
        register_scoped(P.PRE_TOOL_CALL, refuse, tools=["purge_records"], agents=["coder" if deny else "someone"])
        asyncio.run(run_agent(code_act(runs, "purge_records(table='users')", "object"), "purge", "sync"))
    assert len(purges(runs)) == (0 if deny else 1)


@DENY
def test_code_act_agent_deny_registered_after_it_was_built(harness: Any, deny: bool) -> None:
    runs: list[tuple[str, dict[str, Any]]] = []
    agent = code_act(runs, "purge_records('users')", "object")
    deny_purge(deny)
    asyncio.run(run_agent(agent, "purge", "stream"))
    assert len(purges(runs)) == (0 if deny else 1)


# -- the call site and every entry, tool form, concurrency and order -----------------------------


def function_agent(runs: list[tuple[str, dict[str, Any]]], script: list[Turn], tools: Any = None, kind: Any = None,
                   entry: str = "sync", name: str = "alpha") -> Any:
    cls = kind or FunctionAgent
    return cls(name=name, description="works", system_prompt=SYSTEM_PROMPT, tools=tools or counting_tools(runs),
               llm=scripted_llm(script, []), streaming=entry == "stream")


@DENY
@pytest.mark.parametrize("entry", ["sync", "async", "stream"])
def test_every_entry_point(harness: Any, deny: bool, entry: str) -> None:
    deny_purge(deny)
    runs: list[tuple[str, dict[str, Any]]] = []
    asyncio.run(run_agent(function_agent(runs, PURGE, entry=entry), "go", entry))  # type: ignore[arg-type]
    assert len(purges(runs)) == (0 if deny else 1)


class PurgeTool(BaseTool):
    """A tool class of the app's own (a sync ``BaseTool``: agents run it through ``BaseToolAsyncAdapter``)."""

    def __init__(self, runs: list[tuple[str, dict[str, Any]]]) -> None:
        self.runs = runs

    @property
    def metadata(self) -> ToolMetadata:
        return ToolMetadata(name="purge_records", description="Delete every record of a table.")

    def __call__(self, input: Any = None, **kwargs: Any) -> ToolOutput:  # noqa: A002
        self.runs.append(("purge_records", {"table": kwargs.get("table", input)}))
        return ToolOutput(content="purged", tool_name="purge_records", raw_input=kwargs, raw_output="purged")


def tool_form(runs: list[tuple[str, dict[str, Any]]], form: str) -> Any:
    if form == "async":
        async def purge_records(table: str) -> str:
            """Delete every record of a table."""
            runs.append(("purge_records", {"table": table}))
            return "purged"
        return FunctionTool.from_defaults(async_fn=purge_records)
    if form == "renamed":
        def wipe(table: str) -> str:
            """Delete every record of a table."""
            runs.append(("purge_records", {"table": table}))
            return "purged"
        return FunctionTool.from_defaults(wipe, name="purge_records")
    if form == "with_context":
        async def purge_records_ctx(ctx: Context, table: str) -> str:
            """Delete every record of a table."""
            runs.append(("purge_records", {"table": table}))
            return "purged"
        return FunctionTool.from_defaults(async_fn=purge_records_ctx, name="purge_records")
    if form == "plain_function":
        def purge_records(table: str) -> str:
            """Delete every record of a table."""
            runs.append(("purge_records", {"table": table}))
            return "purged"
        return purge_records
    return PurgeTool(runs)


@DENY
@pytest.mark.parametrize("form", ["async", "renamed", "with_context", "plain_function", "app_class"])
@pytest.mark.parametrize("kind", ["function", "react"])
def test_every_tool_form(harness: Any, deny: bool, form: str, kind: str) -> None:
    deny_purge(deny)
    runs: list[tuple[str, dict[str, Any]]] = []
    key = "input" if form == "app_class" else "table"  # an app's sync BaseTool takes one `input`
    if kind == "react":
        script = [Turn.final(f'Thought: purge.\nAction: purge_records\nAction Input: {{"{key}": "users"}}'),
                  Turn.final("Thought: done.\nAnswer: done")]
    else:
        script = [Turn.call("purge_records", **{key: "users"}), Turn.final("done")]
    agent = function_agent(runs, script, tools=[tool_form(runs, form)], kind=ReActAgent if kind == "react" else None)
    asyncio.run(run_agent(agent, "go", "sync"))
    assert len(purges(runs)) == (0 if deny else 1)


@DENY
def test_parallel_tool_calls(harness: Any, deny: bool) -> None:
    deny_purge(deny)
    runs: list[tuple[str, dict[str, Any]]] = []
    script = [Turn(tool_calls=[ToolCall("purge_records", {"table": "a"}), ToolCall("add_numbers", {"a": 1, "b": 2}),
                               ToolCall("purge_records", {"table": "b"})]), Turn.final("done")]
    asyncio.run(run_agent(function_agent(runs, script), "go", "sync"))
    assert len(purges(runs)) == (0 if deny else 2)
    assert ("add_numbers", {"a": 1, "b": 2}) in runs


@DENY
def test_agent_workflow_member_and_a_run_on_an_app_thread(harness: Any, deny: bool) -> None:
    deny_purge(deny)
    runs: list[tuple[str, dict[str, Any]]] = []
    member = function_agent(runs, PURGE, name="member")
    worker = threading.Thread(target=lambda: asyncio.run(run_agent(AgentWorkflow(agents=[member]), "go", "sync")))
    worker.start()
    worker.join()
    assert len(purges(runs)) == (0 if deny else 1)


@DENY
def test_hook_registered_after_build_and_install_after_build_and_reinstall(harness: Any, deny: bool) -> None:
    runs: list[tuple[str, dict[str, Any]]] = []
    adapters.uninstall("llama-index")
    try:
        agent = function_agent(runs, PURGE)
        code = code_act(runs, "purge_records('users')", "object")
        adapters.install("llama-index")
        adapters.uninstall("llama-index")
        adapters.install("llama-index")
        deny_purge(deny)
        asyncio.run(run_agent(agent, "go", "sync"))
        asyncio.run(run_agent(code, "go", "sync"))
        assert len(purges(runs)) == (0 if deny else 2)
    finally:
        adapters.install("llama-index")


# -- the body alone ---------------------------------------------------------------------------


class Chores(Workflow):
    """A workflow whose own step runs a tool (no agent, so no call site)."""

    def __init__(self, tool: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.tool = tool

    @step
    async def chores(self, ev: StartEvent) -> StopEvent:
        adapted = getattr(self.tool, "base_tool", None) is not None  # an app's sync tool: one `input`
        output = await (self.tool.acall("users") if adapted else self.tool.acall(table="users"))
        return StopEvent(result=output.content)


@DENY
@pytest.mark.parametrize("form", ["async", "renamed", "app_class"])
def test_body_alone_refuses_a_workflow_step_calling_a_tool(harness: Any, deny: bool, form: str) -> None:
    deny_purge(deny)
    runs: list[tuple[str, dict[str, Any]]] = []
    tool = tool_form(runs, form)
    if form == "app_class":
        from llama_index.core.tools.types import adapt_to_async_tool

        tool = adapt_to_async_tool(tool)
    async def go() -> Any:
        return await Chores(tool).run()

    result = asyncio.run(go())
    assert len(purges(runs)) == (0 if deny else 1)
    if deny:
        assert str(result) == REFUSAL


@DENY
def test_body_alone_sync_call_from_code_holding_the_tool(harness: Any, deny: bool) -> None:
    """Generated code holding ``FunctionTool`` objects (``tool.call(...)``) inside a run: the body decides."""
    deny_purge(deny)
    runs: list[tuple[str, dict[str, Any]]] = []
    purge = counting_tools(runs)[1]
    namespace = {"purge": purge}

    def execute(code: str) -> str:
        exec(code, namespace)
        return "ran"

    llm = scripted_llm([Turn.final("<execute>\npurge.call(table='users')\n</execute>"), Turn.final("done")], [])
    agent = CodeActAgent(name="coder", code_execute_fn=execute, tools=[], llm=llm, system_prompt=SYSTEM_PROMPT)
    asyncio.run(run_agent(agent, "go", "sync"))
    assert len(purges(runs)) == (0 if deny else 1)


def test_one_pre_per_call_with_both_layers(harness: Any) -> None:
    seen: list[str] = []

    @on(P.PRE_TOOL_CALL)
    def count(ctx: Any) -> None:
        seen.append(ctx.tool_name)

    runs: list[tuple[str, dict[str, Any]]] = []
    script = [Turn(tool_calls=[ToolCall("purge_records", {"table": "a"}), ToolCall("add_numbers", {"a": 1, "b": 2})]),
              Turn.final("done")]
    tools = [*counting_tools(runs), tool_form(runs, "with_context")]
    tools[1] = tools.pop()  # purge_records takes the workflow's Context
    asyncio.run(run_agent(function_agent(runs, script, tools=tools), "go", "sync"))
    assert sorted(seen) == ["add_numbers", "purge_records"]
    seen.clear()
    asyncio.run(run_agent(code_act(runs, "add_numbers(1, 2)", "object"), "go", "sync"))
    assert seen == ["execute", "add_numbers"]
