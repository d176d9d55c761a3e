"""Executions, steps and aborts on LCEL sequences and LangGraph graphs."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import pytest
from langchain_core.messages import AIMessageChunk, HumanMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.tools import tool

from hookport import HookAborted, InterceptionPoint as P, on
from hookport.adapters.langchain import buffered_streaming
from tests.support.hooks import collect
from tests.adapters.langchain.models import EchoChat
from tests.conformance.harness import ToolCall, Turn

pytest.importorskip("langgraph")

from langgraph.graph import END, START, MessagesState, StateGraph  # noqa: E402
from langgraph.prebuilt import InjectedState, ToolNode, tools_condition  # noqa: E402
from langgraph.types import RetryPolicy  # noqa: E402

from tests.adapters.langchain.harness import Record, ScriptedChatModel, build_graph_loop, make_tools  # noqa: E402

pytestmark = pytest.mark.usefixtures("installed")
BOUNDARIES = (P.EXECUTION_START, P.INPUT, P.OUTPUT, P.EXECUTION_END)


def boundary_log() -> list[str]:
    log: list[str] = []
    for point in BOUNDARIES:
        on(point)(lambda ctx, point=point: log.append(point.value))
    return log


def chain(model: Any = None) -> Any:
    prompt = ChatPromptTemplate.from_messages([("user", "tell me about {topic}")])
    return prompt | (model or EchoChat()) | StrOutputParser()


async def _acollect(stream: Any) -> list[Any]:
    return [item async for item in stream]


# -- LCEL sequences -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("entry", ["invoke", "ainvoke", "stream", "astream"])
def test_sequence_boundaries_input_rewrite_and_output_replacement(entry: str) -> None:
    log = boundary_log()
    pre_model = collect(P.PRE_MODEL_CALL)

    @on(P.INPUT)
    def rewrite(ctx: Any) -> None:
        ctx.payload["topic"] = "cats"

    on(P.OUTPUT)(lambda ctx: "OUTPUT-REPLACED")
    model = EchoChat()
    inputs = {"topic": "dogs"}
    runnable = chain(model)
    if entry == "invoke":
        output = runnable.invoke(inputs)
    elif entry == "ainvoke":
        output = asyncio.run(runnable.ainvoke(inputs))
    elif entry == "stream":
        output = list(runnable.stream(inputs))[-1]
    else:
        output = asyncio.run(_acollect(runnable.astream(inputs)))[-1]
    assert output == "OUTPUT-REPLACED"
    assert log == ["execution_start", "input", "output", "execution_end"]
    assert len(pre_model) == 1, "the model inside the sequence fired once"
    assert "cats" in model.requests[0][0].content
    assert inputs == {"topic": "dogs"}, "an INPUT edit leaked into the caller's input"


def test_sequence_end_fires_once_on_failure() -> None:
    class Broken(EchoChat):
        def _generate(self, *args: Any, **kwargs: Any) -> Any:
            raise ConnectionError("down")

    ends = collect(P.EXECUTION_END)
    with pytest.raises(ConnectionError):
        chain(Broken()).invoke({"topic": "x"})
    assert len(ends) == 1 and ends[0].status == "failed" and isinstance(ends[0].error, ConnectionError)


def test_sequence_without_boundary_hooks_is_untouched() -> None:
    assert chain().invoke({"topic": "x"}) == "the original answer"


# -- LangGraph -------------------------------------------------------------------------------------------------


def scripted(script: list[Turn]) -> tuple[ScriptedChatModel, Record, list[Any]]:
    from tests.conformance.harness import number_tool_calls

    record = Record()
    return ScriptedChatModel(script=number_tool_calls(script), record=record), record, make_tools(record)


def both_tools_turn() -> Turn:
    return Turn(tool_calls=[ToolCall("add_numbers", {"a": 2, "b": 3}), ToolCall("purge_records", {"table": "users"})])


def test_steps_are_nodes_and_pre_step_edits_reach_only_the_node() -> None:
    model, record, tools = scripted([Turn.call("add_numbers", a=2, b=3), Turn.final("done")])
    pre = collect(P.PRE_STEP)
    post = collect(P.POST_STEP)

    @on(P.PRE_STEP)
    def add_note(ctx: Any) -> None:
        if ctx.step_name == "model":
            ctx.payload["messages"].append(HumanMessage("STEP-NOTE"))

    state = build_graph_loop(model, tools, "alpha").invoke({"messages": [HumanMessage("hi")]})
    assert [c.step_name for c in pre] == ["model", "tools", "model"]
    assert [c.step_name for c in post] == ["model", "tools", "model"]
    assert {c.kind for c in pre + post} == {"node"}
    assert {c.agent_role for c in pre} == {"alpha"}
    assert all(isinstance(c.payload, list) and all(len(w) == 2 for w in c.payload) for c in post)
    assert all(any(m["content"] == "STEP-NOTE" for m in request) for request in record.model_inputs)
    assert not any(getattr(m, "content", None) == "STEP-NOTE" for m in state["messages"]), "a PRE_STEP edit leaked into graph state"


def test_post_step_can_replace_a_nodes_writes() -> None:
    model, record, tools = scripted([Turn.final("the original answer")])

    @on(P.POST_STEP)
    def rewrite(ctx: Any) -> Any:
        from langchain_core.messages import AIMessage

        return [(channel, [AIMessage("rewritten by POST_STEP")] if channel == "messages" else value) for channel, value in ctx.payload]

    state = build_graph_loop(model, tools, "alpha").invoke({"messages": [HumanMessage("hi")]})
    assert state["messages"][-1].content == "rewritten by POST_STEP"


def test_parallel_tool_calls_in_threads_block_one_run_the_other() -> None:
    model, record, tools = scripted([both_tools_turn(), Turn.final("done")])
    pre = collect(P.PRE_TOOL_CALL)

    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def guard(ctx: Any) -> None:
        raise HookAborted("purging is not allowed")

    build_graph_loop(model, tools, "alpha").invoke({"messages": [HumanMessage("hi")]})
    assert record.tool_runs == [("add_numbers", {"a": 2, "b": 3})]
    assert sorted(c.tool_name for c in pre) == ["add_numbers", "purge_records"]
    assert {c.agent_role for c in pre} == {"alpha"}
    refusal = [m for m in record.model_inputs[1] if m.get("tool_call_id") == "call_2"][0]
    assert refusal["status"] == "error" and "purge_records" in refusal["content"] and "purging is not allowed" in refusal["content"]


def test_injected_state_is_hidden_from_hooks_but_reaches_the_tool() -> None:
    received: list[Any] = []

    @tool
    def lookup(key: str, state: Annotated[dict, InjectedState]) -> str:
        """Look a key up."""
        received.append((key, len(state["messages"])))
        return "found"

    record = Record()
    model = ScriptedChatModel(script=[Turn(tool_calls=[ToolCall("lookup", {"key": "k"}, "call_1")]), Turn.final("done")], record=record)
    pre = collect(P.PRE_TOOL_CALL)
    on(P.PRE_TOOL_CALL)(lambda ctx: ctx.tool_input.update(key="edited"))
    build_graph_loop(model, [lookup], "alpha").invoke({"messages": [HumanMessage("hi")]})
    assert pre[0].tool_input == {"key": "edited"}
    assert received == [("edited", 2)]


def _loop_with(model: Any, tools: list[Any], **tool_node: Any) -> Any:
    bound = model.bind_tools(tools)
    graph = StateGraph(MessagesState)
    graph.add_node("model", lambda state: {"messages": [bound.invoke(state["messages"])]})
    graph.add_node("tools", ToolNode(tools, **tool_node))
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", tools_condition, {"tools": "tools", END: END})
    graph.add_edge("tools", "model")
    return graph.compile(name="alpha")


def test_tool_node_does_not_turn_an_abort_into_a_tool_error() -> None:
    model, record, tools = scripted([Turn.call("add_numbers", a=2, b=3), Turn.final("done")])

    @on(P.POST_TOOL_CALL)
    def stop(ctx: Any) -> None:
        raise HookAborted("result leaked a secret")

    steps = collect(P.POST_STEP)
    with pytest.raises(HookAborted, match="result leaked a secret"):
        _loop_with(model, tools, handle_tool_errors=True).invoke({"messages": [HumanMessage("hi")]})
    assert len(record.tool_runs) == 1
    assert [s.step_name for s in steps] == ["model"], "the tools node completed with an error ToolMessage"
    assert len(record.model_inputs) == 1, "the agent went on after the abort"


def test_tool_node_still_handles_ordinary_tool_errors() -> None:
    @tool
    def broken(x: int) -> str:
        """Fails."""
        raise ValueError("bad input")

    record = Record()
    model = ScriptedChatModel(script=[Turn(tool_calls=[ToolCall("broken", {"x": 1}, "call_1")]), Turn.final("done")], record=record)
    collect(P.PRE_TOOL_CALL)
    state = _loop_with(model, [broken], handle_tool_errors=True).invoke({"messages": [HumanMessage("hi")]})
    assert state["messages"][-1].content == "done"
    assert any(m.get("status") == "error" for m in record.model_inputs[1])


def _retry_graph(node: Any) -> Any:
    policy = RetryPolicy(max_attempts=3, initial_interval=0.0, jitter=False, retry_on=Exception)
    graph = StateGraph(MessagesState)
    graph.add_node("model", node, retry_policy=policy)
    graph.add_edge(START, "model")
    graph.add_edge("model", END)
    return graph.compile(name="alpha")


def test_a_retry_policy_does_not_retry_an_abort() -> None:
    attempts: list[int] = []
    model = EchoChat()

    def node(state: MessagesState) -> dict[str, Any]:
        attempts.append(1)
        return {"messages": [model.invoke(state["messages"])]}

    on(P.PRE_MODEL_CALL)(lambda ctx: False)
    with pytest.raises(HookAborted):
        _retry_graph(node).invoke({"messages": [HumanMessage("hi")]})
    assert len(attempts) == 1


def test_a_retry_policy_still_retries_other_errors() -> None:
    attempts: list[int] = []

    def node(state: MessagesState) -> dict[str, Any]:
        attempts.append(1)
        if len(attempts) < 3:
            raise ConnectionError("flaky")
        return {"messages": [HumanMessage("ok")]}

    collect(P.PRE_STEP)
    _retry_graph(node).invoke({"messages": [HumanMessage("hi")]})
    assert len(attempts) == 3


def test_one_execution_for_a_graph_inside_a_graph_and_the_inner_agent_named() -> None:
    model, record, tools = scripted([Turn.final("inner answer")])
    inner = build_graph_loop(model, tools, "inner")
    outer_graph = StateGraph(MessagesState)
    outer_graph.add_node("delegate", lambda state: {"messages": inner.invoke(state)["messages"][-1:]})
    outer_graph.add_edge(START, "delegate")
    outer_graph.add_edge("delegate", END)
    outer = outer_graph.compile(name="outer")
    starts = collect(P.EXECUTION_START)
    ends = collect(P.EXECUTION_END)
    steps = collect(P.PRE_STEP)
    models = collect(P.PRE_MODEL_CALL)
    state = outer.invoke({"messages": [HumanMessage("hi")]})
    assert state["messages"][-1].content == "inner answer"
    assert len(starts) == len(ends) == 1 and starts[0].agent_role == "outer"
    assert [(s.step_name, s.agent_role) for s in steps] == [("delegate", "outer"), ("model", "inner")]
    assert [m.agent_role for m in models] == ["inner"]


@pytest.mark.parametrize("entry", ["stream", "astream"])
def test_graph_stream_output_replacement_and_single_end(entry: str) -> None:
    model, record, tools = scripted([Turn.final("the original answer")])
    graph = build_graph_loop(model, tools, "alpha")
    ends = collect(P.EXECUTION_END)
    on(P.OUTPUT)(lambda ctx: {"messages": [HumanMessage("OUTPUT-REPLACED")]})
    inputs = {"messages": [HumanMessage("hi")]}
    chunks = list(graph.stream(inputs, stream_mode="values")) if entry == "stream" else asyncio.run(_acollect(graph.astream(inputs, stream_mode="values")))
    assert chunks[-1]["messages"][-1].content == "OUTPUT-REPLACED"
    assert chunks[-2]["messages"][-1].content == "hi"
    assert len(ends) == 1 and ends[0].status == "completed"


def test_abandoned_graph_stream_ends_the_execution_once() -> None:
    model, record, tools = scripted([Turn.call("add_numbers", a=1, b=1), Turn.final("done")])
    ends = collect(P.EXECUTION_END)
    stream = build_graph_loop(model, tools, "alpha").stream({"messages": [HumanMessage("hi")]}, stream_mode="updates")
    next(stream)
    stream.close()
    assert len(ends) == 1 and ends[0].status == "failed"


def _streamed_tokens(mode_buffered: bool) -> tuple[str, str]:
    model, record, tools = scripted([Turn.final("the original answer")])
    graph = build_graph_loop(model, tools, "alpha")
    on(P.POST_MODEL_CALL)(lambda ctx: ctx.response.replace("original", "replaced"))
    tokens: list[str] = []
    final: Any = None

    def run() -> None:
        nonlocal final
        for mode, item in graph.stream({"messages": [HumanMessage("hi")]}, stream_mode=["messages", "values"]):
            if mode == "messages" and isinstance(item[0], AIMessageChunk):
                tokens.append(item[0].content)
            elif mode == "values":
                final = item

    if mode_buffered:
        with buffered_streaming():
            run()
    else:
        run()
    return "".join(tokens), final["messages"][-1].content


def test_graph_token_stream_passthrough_sends_the_original_tokens() -> None:
    streamed, final = _streamed_tokens(mode_buffered=False)
    assert streamed == "the original answer"
    assert final == "the replaced answer"


def test_graph_token_stream_buffered_sends_the_replacement() -> None:
    streamed, final = _streamed_tokens(mode_buffered=True)
    assert streamed == "the replaced answer"
    assert final == "the replaced answer"


# -- langchain 1.x create_agent middlewares ---------------------------------------------------------------------


def test_retry_middlewares_do_not_retry_aborts() -> None:
    middleware = pytest.importorskip("langchain.agents.middleware")
    from langchain.agents import create_agent

    attempts: list[str] = []

    @middleware.wrap_model_call
    def count_model(request: Any, handler: Any) -> Any:
        attempts.append("model")
        return handler(request)

    @middleware.wrap_tool_call
    def count_tool(request: Any, handler: Any) -> Any:
        attempts.append("tool")
        return handler(request)

    model_retry = getattr(middleware, "ModelRetryMiddleware", None)  # langchain 1.1 added it
    retries = [
        *([model_retry(max_retries=2, initial_delay=0, jitter=False)] if model_retry else []),
        middleware.ToolRetryMiddleware(max_retries=2, initial_delay=0, jitter=False),
        count_model,
        count_tool,
    ]

    model, record, tools = scripted([Turn.final("x")])
    on(P.PRE_MODEL_CALL)(lambda ctx: False)
    with pytest.raises(HookAborted):
        create_agent(model, tools, middleware=retries, name="alpha").invoke({"messages": [HumanMessage("hi")]})
    assert attempts == ["model"]

    attempts.clear()
    from hookport import clear_all_hooks

    clear_all_hooks()
    model, record, tools = scripted([Turn.call("add_numbers", a=1, b=2), Turn.final("x")])

    @on(P.POST_TOOL_CALL)
    def stop(ctx: Any) -> None:
        raise HookAborted("no")

    with pytest.raises(HookAborted):
        create_agent(model, tools, middleware=retries, name="alpha").invoke({"messages": [HumanMessage("hi")]})
    assert attempts == ["model", "tool"]
    assert len(record.tool_runs) == 1


def test_model_message_edits_never_reach_the_graph_state() -> None:
    model, record, tools = scripted([Turn.call("add_numbers", a=2, b=3), Turn.final("done")])

    @on(P.PRE_MODEL_CALL)
    def redact(ctx: Any) -> None:
        for message in ctx.messages:
            if message["role"] in ("user", "tool"):
                message["content"] = "[redacted]"

    caller_message = HumanMessage("my card is 4111")
    state = build_graph_loop(model, tools, "alpha").invoke({"messages": [caller_message]})
    assert all(m["content"] == "[redacted]" for request in record.model_inputs for m in request if m["role"] in ("user", "tool"))
    assert caller_message.content == "my card is 4111"
    assert [m.content for m in state["messages"] if m.type in ("human", "tool")] == ["my card is 4111", "5"]
