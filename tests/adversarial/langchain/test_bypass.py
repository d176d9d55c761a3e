"""Bypass attempts on the LangChain adapter: every way a refused tool could run anyway.

Each test counts the refused tool's real executions with a deny on ``purge_records``
(0) and in a twin without it (1+: the path really reaches the tool). The model is the
harness's scripted chat model; every agent loop is LangChain's or LangGraph's own.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from hookport import InterceptionPoint, adapters, on, scoped_hooks
from hookport.contexts import ToolCallHookContext
from langchain_core.messages import HumanMessage
from langchain_core.runnables import RunnableLambda
from langchain_core.tools import BaseTool, StructuredTool, Tool, tool
from pydantic import BaseModel
from tests.adapters.langchain.harness import HAS_LANGGRAPH, Record, ScriptedChatModel, build_agent
from tests.adversarial.kit import DENY, PURGE, Runs, deny, deny_at_first_model_call, deny_scoped
from tests.conformance.harness import Turn, number_tool_calls

P = InterceptionPoint
LOOPS = ["create_agent", "react", "graph", "lcel"] if HAS_LANGGRAPH else ["lcel"]


def _has_create_agent() -> bool:
    try:
        from langchain.agents import create_agent  # noqa: F401
    except ImportError:
        return False
    return HAS_LANGGRAPH


HAS_CREATE_AGENT = _has_create_agent()
needs_graph = pytest.mark.skipif(not HAS_LANGGRAPH, reason="langgraph is not installed in this env")


class TableArgs(BaseModel):
    table: str


def tool_form(form: str, runs: Runs) -> BaseTool:
    """``purge_records`` in each shape LangChain has for a tool."""
    if form == "function":
        @tool
        def purge_records(table: str) -> str:
            """Delete every record of a table."""
            return runs.note(table=table)

        return purge_records
    if form == "async":
        @tool
        async def purge_records(table: str) -> str:  # noqa: F811
            """Delete every record of a table."""
            return runs.note(table=table)

        return purge_records
    if form == "renamed":
        @tool(PURGE)
        def wipe(table: str) -> str:
            """Delete every record of a table."""
            return runs.note(table=table)

        return wipe
    if form == "from_function":
        return StructuredTool.from_function(func=lambda table: runs.note(table=table), name=PURGE,
                                            description="Delete every record of a table.", args_schema=TableArgs)
    if form == "from_function_async":
        async def awipe(table: str) -> str:
            return runs.note(table=table)

        return StructuredTool.from_function(coroutine=awipe, name=PURGE, description="Delete a table.")
    if form == "simple":
        return Tool(name=PURGE, func=lambda table: runs.note(table=table), description="Delete a table.")
    if form in ("subclass", "subclass_async"):
        class Purge(BaseTool):
            name: str = PURGE
            description: str = "Delete every record of a table."
            args_schema: type[BaseModel] = TableArgs

            def _run(self, table: str, **kwargs: Any) -> str:
                return runs.note(table=table)

            if form == "subclass_async":
                async def _arun(self, table: str, **kwargs: Any) -> str:
                    return runs.note(table=table)

        return Purge()
    raise ValueError(form)


FORMS = ["function", "async", "renamed", "from_function", "from_function_async", "simple", "subclass",
         "subclass_async"]
SYNC_ONLY = {"async", "from_function_async"}  # no sync body: an async entry only


def script_for(*calls: dict[str, Any]) -> list[Turn]:
    turn = Turn(tool_calls=[Turn.call(PURGE, **args).tool_calls[0] for args in calls])
    return number_tool_calls([turn, Turn.final("done")])


def run_agent(agent: Any, entry: str) -> Any:
    inputs = {"messages": [HumanMessage(content="purge the users table")]}
    if entry == "sync":
        return agent.invoke(inputs)
    if entry == "async":
        return asyncio.run(agent.ainvoke(inputs))
    if entry == "stream":
        return list(agent.stream(inputs))
    if entry == "astream":
        async def drain() -> list[Any]:
            return [chunk async for chunk in agent.astream(inputs)]

        return asyncio.run(drain())
    if entry == "batch":
        return agent.batch([inputs])
    raise ValueError(entry)


def model_for(script: list[Turn], by_ai_count: bool = False) -> ScriptedChatModel:
    return ScriptedChatModel(script=script, record=Record(), by_ai_count=by_ai_count)


# -- every loop, every entry point ----------------------------------------------------------


@pytest.mark.parametrize("deny_it", DENY, ids=["twin", "deny"])
@pytest.mark.parametrize("entry", ["sync", "async", "stream", "astream", "batch"])
@pytest.mark.parametrize("loop", LOOPS)
def test_agent_loops_and_entries(loop: str, entry: str, deny_it: bool) -> None:
    if loop == "create_agent" and not HAS_CREATE_AGENT:
        pytest.skip("langchain's create_agent is not installed in this env")
    if deny_it:
        deny()
    runs = Runs()
    agent = build_agent(model_for(script_for({"table": "users"}), by_ai_count=entry == "batch"),
                        [tool_form("function", runs)], "alpha", loop)  # type: ignore[arg-type]
    run_agent(agent, entry)
    assert len(runs.calls) == (0 if deny_it else 1)


@pytest.mark.parametrize("deny_it", DENY, ids=["twin", "deny"])
@pytest.mark.parametrize("entry", ["sync", "async"])
@pytest.mark.parametrize("where", ["agent", "chain", "node"])
@pytest.mark.parametrize("form", FORMS)
def test_tool_forms(form: str, where: str, entry: str, deny_it: bool) -> None:
    """Each tool form, run by an agent's ToolNode, from an LCEL chain's step, from a custom graph node."""
    if where == "node" and not HAS_LANGGRAPH:
        pytest.skip("langgraph is not installed in this env")
    if entry == "sync" and form in SYNC_ONLY:
        entry = "async"
    if deny_it:
        deny()
    runs = Runs()
    purge = tool_form(form, runs)
    if where == "agent":
        run_agent(build_agent(model_for(script_for({"table": "users"})), [purge], "alpha",
                              "graph" if HAS_LANGGRAPH else "lcel"), entry)
    elif where == "chain":
        chain = RunnableLambda(lambda x: x) | RunnableLambda(lambda x: purge.invoke(x), afunc=purge.ainvoke)
        (chain.invoke if entry == "sync" else lambda x: asyncio.run(chain.ainvoke(x)))({"table": "users"})
    else:
        def work(state: dict[str, Any]) -> dict[str, Any]:
            purge.invoke({"table": "users"})
            return {"messages": []}

        async def awork(state: dict[str, Any]) -> dict[str, Any]:
            await purge.ainvoke({"table": "users"})
            return {"messages": []}

        run_agent(_node_graph(work, awork), entry)
    assert len(runs.calls) == (0 if deny_it else 1)


# -- concurrency -----------------------------------------------------------------------------


@needs_graph
@pytest.mark.parametrize("deny_it", DENY, ids=["twin", "deny"])
@pytest.mark.parametrize("entry", ["sync", "async"])
@pytest.mark.parametrize("loop", [lp for lp in LOOPS if lp != "lcel"])
def test_parallel_tool_calls(loop: str, entry: str, deny_it: bool) -> None:
    """Three calls in one model turn: ToolNode runs them in its threads (sync) or tasks (async)."""
    if loop == "create_agent" and not HAS_CREATE_AGENT:
        pytest.skip("langchain's create_agent is not installed in this env")
    if deny_it:
        deny()
    runs = Runs()
    script = script_for({"table": "users"}, {"table": "logs"}, {"table": "audit"})
    agent = build_agent(model_for(script), [tool_form("function", runs)], "alpha", loop)  # type: ignore[arg-type]
    run_agent(agent, entry)
    assert len(runs.calls) == (0 if deny_it else 3)


@needs_graph
@pytest.mark.parametrize("deny_it", DENY, ids=["twin", "deny"])
@pytest.mark.parametrize("entry", ["sync", "async", "batch"])
def test_scoped_deny_in_framework_threads(entry: str, deny_it: bool) -> None:
    runs = Runs()
    script = script_for({"table": "users"}, {"table": "logs"})
    agent = build_agent(model_for(script, by_ai_count=entry == "batch"), [tool_form("function", runs)], "alpha", "graph")
    with scoped_hooks():
        if deny_it:
            deny_scoped()
        run_agent(agent, entry)
    assert len(runs.calls) == (0 if deny_it else 2)


# -- tools used from inside graph nodes --------------------------------------------------------


def _node_graph(node: Any, anode: Any = None) -> Any:
    from langgraph.graph import END, START, MessagesState, StateGraph

    graph = StateGraph(MessagesState)
    graph.add_node("work", RunnableLambda(node, afunc=anode) if anode else node)
    graph.add_edge(START, "work")
    graph.add_edge("work", END)
    return graph.compile()


@needs_graph
@pytest.mark.parametrize("deny_it", DENY, ids=["twin", "deny"])
def test_tool_as_a_graph_node_itself(deny_it: bool) -> None:
    """A tool is a Runnable: a graph can use it as a node with no ToolNode around it."""
    from langgraph.graph import END, START, StateGraph
    from typing_extensions import TypedDict

    class State(TypedDict):
        table: str

    if deny_it:
        deny()
    runs = Runs()
    purge = tool_form("function", runs)
    graph = StateGraph(State)
    graph.add_node("purge", RunnableLambda(lambda s: {"table": str(purge.invoke(s))}))
    graph.add_edge(START, "purge")
    graph.add_edge("purge", END)
    graph.compile().invoke({"table": "users"})
    assert len(runs.calls) == (0 if deny_it else 1)


@pytest.mark.parametrize("deny_it", DENY, ids=["twin", "deny"])
def test_tool_batch_and_in_a_chain(deny_it: bool) -> None:
    """`tool.batch` (an executor's threads) and a tool as the last step of an LCEL chain."""
    if deny_it:
        deny()
    runs = Runs()
    purge = tool_form("function", runs)
    purge.batch([{"table": "a"}, {"table": "b"}])
    (RunnableLambda(lambda x: {"table": x}) | purge).invoke("c")
    assert len(runs.calls) == (0 if deny_it else 3)


# -- the body layer alone: a route no call site covers ------------------------------------------


def _unpatched_run(tool_obj: BaseTool, args: dict[str, Any]) -> Any:
    """`BaseTool.run` as LangChain wrote it, past hookport's call-site wrapper."""
    return getattr(BaseTool.run, "__wrapped__", BaseTool.run)(tool_obj, args)


async def _unpatched_arun(tool_obj: BaseTool, args: dict[str, Any]) -> Any:
    return await getattr(BaseTool.arun, "__wrapped__", BaseTool.arun)(tool_obj, args)


@pytest.mark.parametrize("deny_it", DENY, ids=["twin", "deny"])
@pytest.mark.parametrize("form", ["function", "async", "renamed", "from_function", "from_function_async", "simple"])
def test_body_guard_alone_refuses_an_unpatched_route(form: str, deny_it: bool) -> None:
    if deny_it:
        deny()
    runs = Runs()
    purge = tool_form(form, runs)
    if form in SYNC_ONLY:
        answer = asyncio.run(_unpatched_arun(purge, {"table": "users"}))
    else:
        answer = _unpatched_run(purge, {"table": "users"})
    assert len(runs.calls) == (0 if deny_it else 1)
    if deny_it:
        assert answer == "Tool 'purge_records' was blocked by a hook: purging is not allowed"


@needs_graph
@pytest.mark.parametrize("deny_it", DENY, ids=["twin", "deny"])
def test_body_guard_alone_in_a_workflow_node(deny_it: bool) -> None:
    """A graph node running a tool by an internal route: only the body guard sees it."""
    if deny_it:
        deny()
    runs = Runs()
    purge = tool_form("from_function", runs)

    def work(state: dict[str, Any]) -> dict[str, Any]:
        _unpatched_run(purge, {"table": "users"})
        return {"messages": []}

    run_agent(_node_graph(work), "sync")
    assert len(runs.calls) == (0 if deny_it else 1)


def test_body_guard_never_dispatches_twice() -> None:
    """Call site and body see one call: one PRE, one POST, on sync and async paths."""
    seen: list[str] = []

    @on(P.PRE_TOOL_CALL, tools=[PURGE])
    def count(ctx: ToolCallHookContext) -> None:
        seen.append("pre")

    for form in FORMS:
        runs = Runs()
        purge = tool_form(form, runs)
        seen.clear()
        if form not in SYNC_ONLY:
            purge.invoke({"table": "users"})
            assert seen == ["pre"], form
            seen.clear()
        asyncio.run(purge.ainvoke({"table": "users"}))
        assert seen == ["pre"], form


# -- nested same-named tools ---------------------------------------------------------------------


@pytest.mark.parametrize("deny_it", DENY, ids=["twin", "deny"])
@pytest.mark.parametrize("route", ["invoke", "ainvoke", "unpatched"])
def test_nested_same_named_tool(route: str, deny_it: bool) -> None:
    """An allowed outer ``purge_records`` whose body runs another ``purge_records`` with refused arguments."""
    if deny_it:
        deny({"table": "secret"})
    runs = Runs()
    inner = tool_form("from_function", runs)
    outer_runs: list[str] = []

    @tool(PURGE)
    def outer(table: str) -> str:
        """Purge through the records service's own tool."""
        outer_runs.append(table)
        if route == "unpatched":
            return str(_unpatched_run(inner, {"table": "secret"}))
        return str(inner.invoke({"table": "secret"}))

    @tool(PURGE)
    async def aouter(table: str) -> str:
        """Purge through the records service's own tool."""
        outer_runs.append(table)
        return str(await inner.ainvoke({"table": "secret"}))

    if route == "ainvoke":
        asyncio.run(aouter.ainvoke({"table": "public"}))
    else:
        outer.invoke({"table": "public"})
    assert outer_runs == ["public"]
    assert len(runs.calls) == (0 if deny_it else 1)


# -- registration timing and install order -------------------------------------------------------


@pytest.mark.parametrize("deny_it", DENY, ids=["twin", "deny"])
@pytest.mark.parametrize("loop", LOOPS)
def test_deny_registered_by_a_tool_mid_run(loop: str, deny_it: bool) -> None:
    """A kill-switch tool registers the deny; the model's next turn calls the refused tool."""
    if loop == "create_agent" and not HAS_CREATE_AGENT:
        pytest.skip("langchain's create_agent is not installed in this env")
    runs = Runs()

    @tool
    def kill_switch() -> str:
        """Stop all purges."""
        if deny_it:
            deny()
        return "armed"

    script = number_tool_calls([Turn.call("kill_switch"), Turn.call(PURGE, table="users"), Turn.final("done")])
    agent = build_agent(model_for(script), [kill_switch, tool_form("function", runs)], "alpha", loop)  # type: ignore[arg-type]
    run_agent(agent, "sync")
    assert len(runs.calls) == (0 if deny_it else 1)


@pytest.mark.parametrize("deny_it", DENY, ids=["twin", "deny"])
@pytest.mark.parametrize("order", ["install_after_build", "reinstall", "hook_before_install"])
def test_install_orders(order: str, deny_it: bool) -> None:
    runs = Runs()
    loop = "graph" if HAS_LANGGRAPH else "lcel"
    adapters.uninstall("langchain")
    if order == "hook_before_install" and deny_it:
        deny()
    agent = build_agent(model_for(script_for({"table": "users"})), [tool_form("function", runs)], "alpha", loop)
    adapters.install("langchain")
    if order == "reinstall":
        adapters.uninstall("langchain")
        adapters.install("langchain")
    if deny_it and order != "hook_before_install":
        deny()
    run_agent(agent, "sync")
    assert len(runs.calls) == (0 if deny_it else 1)


@pytest.mark.parametrize("deny_it", DENY, ids=["twin", "deny"])
def test_deny_registered_at_the_first_model_call(deny_it: bool) -> None:
    runs = Runs()
    deny_at_first_model_call(deny_it, runs)

    loop = "graph" if HAS_LANGGRAPH else "lcel"
    run_agent(build_agent(model_for(script_for({"table": "users"})), [tool_form("async", runs)], "alpha", loop), "async")
    assert len(runs.calls) == (0 if deny_it else 1)


def test_uninstall_removes_the_body_guards() -> None:
    adapters.uninstall("langchain")
    try:
        for owner in (StructuredTool, Tool):
            for method in ("_run", "_arun", "run", "arun"):
                assert not hasattr(owner.__dict__.get(method) or getattr(owner, method), "__wrapped__"), (owner, method)
    finally:
        adapters.install("langchain")


# -- AgentExecutor (langchain 0.3) ---------------------------------------------------------------


@pytest.mark.parametrize("deny_it", DENY, ids=["twin", "deny"])
@pytest.mark.parametrize("entry", ["sync", "async"])
def test_agent_executor(entry: str, deny_it: bool) -> None:
    try:
        from langchain.agents import AgentExecutor, create_tool_calling_agent
        from langchain_core.prompts import ChatPromptTemplate
    except ImportError:
        pytest.skip("this langchain has no AgentExecutor (langchain 1.x moved it to langchain-classic)")
    if deny_it:
        deny()
    runs = Runs()
    tools = [tool_form("function", runs)]
    prompt = ChatPromptTemplate.from_messages([("human", "{input}"), ("placeholder", "{agent_scratchpad}")])
    agent = create_tool_calling_agent(model_for(script_for({"table": "users"})), tools, prompt)
    executor = AgentExecutor(agent=agent, tools=tools)
    if entry == "sync":
        executor.invoke({"input": "purge"})
    else:
        asyncio.run(executor.ainvoke({"input": "purge"}))
    assert len(runs.calls) == (0 if deny_it else 1)
