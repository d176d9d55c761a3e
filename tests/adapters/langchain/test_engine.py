"""The engine's later guarantees where LangChain has something of its own: async hooks on the
caller's loop, concurrent tool calls, END after a failed INPUT on every entry point, agent turns
per agent graph invocation, re-entrant hooks with real models and tools, wrap hooks around
streams and legacy LLMs, lazily built `ctx.messages`, the answer's text."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.tools import tool

from hookport import ExtensionPoint as X
from hookport import HookAborted, InterceptionPoint as P, on, register_hook, reentrant
from hookport.dispatch import set_strict
from tests.adapters.langchain.harness import HAS_LANGGRAPH, LangChainHarness, Record, ScriptedChatModel, make_tools
from tests.adapters.langchain.models import EchoChat, EchoLLM, StreamingEcho
from tests.conformance.harness import ToolCall, Turn, number_tool_calls
from tests.support.hooks import collect

pytestmark = pytest.mark.usefixtures("installed")
needs_langgraph = pytest.mark.skipif(not HAS_LANGGRAPH, reason="langgraph is not installed")

AGENT_LOOPS = []
if HAS_LANGGRAPH:
    AGENT_LOOPS += ["graph", "react"]
    try:
        from langchain.agents import create_agent  # noqa: F401

        AGENT_LOOPS.append("create_agent")
    except ImportError:
        pass


def agent(script: list[Turn], name: str = "alpha", loop: str = "graph") -> tuple[Any, Record, dict[str, Any]]:
    """A fresh agent graph of the given loop shape on a scripted model, its record and its tools."""
    harness = LangChainHarness(loop=loop)  # type: ignore[arg-type]
    graph, record = harness.build(script, name)
    return graph, record, harness._tools


def inputs(text: str = "What is 2 + 3?") -> dict[str, Any]:
    return {"messages": [HumanMessage(text)]}


async def drain(stream: Any) -> Any:
    last = None
    async for item in stream:
        last = item
    return last


def tool_then_answer() -> list[Turn]:
    return [Turn.call("add_numbers", a=2, b=3), Turn.final("The answer is ready.")]


# -- async hooks are awaited on the caller's loop -------------------------------------------------------

LOOP_POINTS = [
    P.PRE_MODEL_CALL, P.POST_MODEL_CALL, P.PRE_TOOL_CALL, P.POST_TOOL_CALL, P.EXECUTION_START, P.INPUT,
    P.OUTPUT, P.EXECUTION_END, P.PRE_STEP, P.POST_STEP, X.AGENT_TURN_START, X.AGENT_TURN_END,
]


@needs_langgraph
@pytest.mark.parametrize("entry", ["ainvoke", "astream"])
@pytest.mark.parametrize("point", LOOP_POINTS, ids=lambda p: p.value)
def test_async_hooks_run_on_the_callers_loop_in_a_graph(point: Any, entry: str) -> None:
    loops: list[Any] = []

    async def hook(ctx: Any) -> None:
        await asyncio.sleep(0)
        loops.append(asyncio.get_running_loop())

    register_hook(point, hook)
    # create_agent / create_react_agent: their model node has an async form (a hand-built loop's
    # sync node function runs in a thread on ainvoke, a sync call site with its own rules)
    graph, record, _ = agent(tool_then_answer(), loop=AGENT_LOOPS[-1])

    async def main() -> Any:
        if entry == "ainvoke":
            await graph.ainvoke(inputs())
        else:
            await drain(graph.astream(inputs()))
        return asyncio.get_running_loop()

    caller = asyncio.run(main())
    assert loops, f"{point.value} never fired"
    assert all(loop is caller for loop in loops), "an async hook ran on another loop (sync dispatch on an async path)"
    assert record.tool_runs == [("add_numbers", {"a": 2, "b": 3})]


@pytest.mark.parametrize("call", ["chat-ainvoke", "chat-astream", "llm-ainvoke", "llm-abatch", "llm-astream", "tool-ainvoke"])
def test_async_hooks_run_on_the_callers_loop_on_models_and_tools(call: str) -> None:
    loops: list[Any] = []

    async def hook(ctx: Any) -> None:
        loops.append(asyncio.get_running_loop())

    for point in (P.PRE_MODEL_CALL, P.POST_MODEL_CALL, P.PRE_TOOL_CALL, P.POST_TOOL_CALL):
        register_hook(point, hook)
    add_numbers = make_tools(Record())[0]

    async def main() -> Any:
        if call == "chat-ainvoke":
            await EchoChat().ainvoke("hi")
        elif call == "chat-astream":
            await drain(StreamingEcho().astream("hi"))
        elif call == "llm-ainvoke":
            await EchoLLM().ainvoke("hi")
        elif call == "llm-abatch":
            await EchoLLM().abatch(["a", "b"])
        elif call == "llm-astream":
            await drain(EchoLLM().astream("hi"))
        else:
            await add_numbers.ainvoke({"a": 1, "b": 2})
        return asyncio.get_running_loop()

    caller = asyncio.run(main())
    assert len(loops) == (4 if call == "llm-abatch" else 2)
    assert all(loop is caller for loop in loops)


# -- parallel tool calls: async PRE_TOOL_CALL hooks run concurrently -------------------------------------


@pytest.mark.parametrize("loop", AGENT_LOOPS)
def test_async_pre_tool_hooks_of_parallel_calls_run_concurrently(loop: str) -> None:
    entered = 0
    inside_when_leaving: list[int] = []
    both_inside = asyncio.Event()

    @on(P.PRE_TOOL_CALL)
    async def slow_check(ctx: Any) -> None:
        nonlocal entered
        entered += 1
        if entered == 2:
            both_inside.set()
        # Dispatched one after the other, the first hook would wait here alone until this safety net fails it.
        await asyncio.wait_for(both_inside.wait(), timeout=10)
        inside_when_leaving.append(entered)

    two_calls = Turn(tool_calls=[ToolCall("add_numbers", {"a": 1, "b": 2}), ToolCall("add_numbers", {"a": 3, "b": 4})])
    graph, record, _ = agent([two_calls, Turn.final("done")], loop=loop)
    asyncio.run(graph.ainvoke(inputs()))
    assert inside_when_leaving == [2, 2], "the second call's hook started only after the first one finished"
    assert sorted(args["a"] for _, args in record.tool_runs) == [1, 3]


# -- EXECUTION_END pairs with START on every entry point, also when INPUT fails ------------------------------


def _sequence() -> tuple[Any, Any]:
    model = EchoChat()
    return ChatPromptTemplate.from_messages([("user", "tell me about {topic}")]) | model, model


def _run_entry(runnable: Any, entry: str, given: Any) -> None:
    if entry == "invoke":
        runnable.invoke(given)
    elif entry == "ainvoke":
        asyncio.run(runnable.ainvoke(given))
    elif entry == "stream":
        list(runnable.stream(given))
    elif entry == "astream":
        asyncio.run(drain(runnable.astream(given)))
    elif entry == "batch":
        runnable.batch([given, given])
    else:
        asyncio.run(runnable.abatch([given, given]))


@pytest.mark.parametrize("failure", ["abort", "strict-error"])
@pytest.mark.parametrize("entry", ["invoke", "ainvoke", "stream", "astream", "batch", "abatch"])
@pytest.mark.parametrize("shape", ["graph", "sequence"])
def test_end_pairs_with_start_when_an_input_hook_fails(shape: str, entry: str, failure: str) -> None:
    if shape == "graph" and not HAS_LANGGRAPH:
        pytest.skip("langgraph is not installed")
    if shape == "sequence" and entry in ("batch", "abatch"):
        pytest.skip("RunnableSequence.batch runs each step's batch: no execution boundaries (documented)")
    starts = collect(P.EXECUTION_START)
    ends = collect(P.EXECUTION_END)

    @on(P.INPUT)
    def refuse(ctx: Any) -> None:
        if failure == "abort":
            raise HookAborted("input rejected", source="input-guard")
        raise ValueError("the input hook crashed")

    if failure == "strict-error":
        set_strict(True)
    if shape == "graph":
        runnable, record, _ = agent([Turn.final("never")])
        given: Any = inputs()
        model_calls = lambda: len(record.model_inputs)  # noqa: E731
    else:
        runnable, model = _sequence()
        given = {"topic": "cats"}
        model_calls = lambda: len(model.requests)  # noqa: E731
    expected = HookAborted if failure == "abort" else ValueError
    with pytest.raises(expected):
        _run_entry(runnable, entry, given)
    assert model_calls() == 0
    assert len(starts) >= 1 and len(ends) == len(starts), (len(starts), len(ends))
    assert all(ctx.status == "failed" for ctx in ends)


# -- agent turns: once per agent graph invocation, with its name ---------------------------------------------


def _turns() -> tuple[list[Any], list[Any]]:
    return collect(X.AGENT_TURN_START), collect(X.AGENT_TURN_END)


@pytest.mark.parametrize("entry", ["invoke", "ainvoke", "stream", "astream", "batch"])
@pytest.mark.parametrize("loop", AGENT_LOOPS)
def test_one_turn_per_agent_invocation_not_per_node(loop: str, entry: str) -> None:
    starts, ends = _turns()
    steps = collect(P.PRE_STEP)
    graph, record, _ = agent(tool_then_answer(), name="alpha", loop=loop)
    if entry == "batch":
        graph, record, _ = agent(tool_then_answer() + tool_then_answer(), name="alpha", loop=loop)
        graph.batch([inputs(), inputs()])
    else:
        _run_entry(graph, entry, inputs())
    runs = 2 if entry == "batch" else 1
    assert len(steps) > len(starts), "the agent ran several nodes"
    assert [s.step_name for s in starts] == ["alpha"] * runs and [e.step_name for e in ends] == ["alpha"] * runs
    assert all(s.kind == "agent_turn" and s.agent_role == "alpha" for s in starts + ends)
    assert all(isinstance(e.duration_ms, float) and e.duration_ms >= 0.0 for e in ends)


@needs_langgraph
def test_an_agent_subgraph_has_its_own_turn_and_the_plain_parent_none() -> None:
    from langgraph.graph import END, START, MessagesState, StateGraph

    starts, ends = _turns()
    helper, record, _ = agent(tool_then_answer(), name="helper")
    parent = StateGraph(MessagesState)
    parent.add_node("prepare", lambda state: {"messages": [HumanMessage("prepared")]})
    parent.add_node("helper", helper)
    parent.add_edge(START, "prepare")
    parent.add_edge("prepare", "helper")
    parent.add_edge("helper", END)
    state = parent.compile(name="pipeline").invoke(inputs())
    assert state["messages"][-1].content == "The answer is ready."
    assert [s.step_name for s in starts] == ["helper"] and [e.step_name for e in ends] == ["helper"]
    assert starts[0].agent_role == "helper"


@needs_langgraph
@pytest.mark.parametrize("entry", ["invoke", "ainvoke"])
def test_an_agent_called_from_a_tool_nests_its_turn_inside_the_callers(entry: str) -> None:
    order: list[str] = []
    register_hook(X.AGENT_TURN_START, lambda ctx: order.append(f"start:{ctx.step_name}"))
    register_hook(X.AGENT_TURN_END, lambda ctx: order.append(f"end:{ctx.step_name}"))
    helper, helper_record, _ = agent([Turn.final("42")], name="helper")

    @tool
    async def ask_helper(question: str) -> str:
        """Ask the helper agent."""
        state = await helper.ainvoke(inputs(question))
        return state["messages"][-1].content

    @tool
    def ask_helper_sync(question: str) -> str:
        """Ask the helper agent."""
        return helper.invoke(inputs(question))["messages"][-1].content

    from tests.adapters.langchain.harness import build_graph_loop

    record = Record()
    script = number_tool_calls([Turn.call("ask_helper" if entry == "ainvoke" else "ask_helper_sync", question="q"), Turn.final("done")])
    boss = build_graph_loop(ScriptedChatModel(script=script, record=record), [ask_helper, ask_helper_sync], "boss")
    _run_entry(boss, entry, inputs())
    assert order == ["start:boss", "start:helper", "end:helper", "end:boss"]


@needs_langgraph
def test_turn_start_may_edit_the_agents_input_without_touching_the_callers() -> None:
    @on(X.AGENT_TURN_START)
    def add_context(ctx: Any) -> None:
        ctx.payload["messages"].append(HumanMessage("TURN-NOTE"))

    graph, record, _ = agent([Turn.final("ok")])
    given = inputs()
    graph.invoke(given)
    assert any(m["content"] == "TURN-NOTE" for m in record.model_inputs[0])
    assert [m.content for m in given["messages"]] == ["What is 2 + 3?"]


# -- re-entrant hooks with real chat models and tools ------------------------------------------------------


@pytest.mark.parametrize("entry", ["invoke", "ainvoke", "stream", "astream", "batch"])
def test_a_judge_model_inside_a_pre_model_hook_is_called_once_per_call(entry: str) -> None:
    judge = StreamingEcho(reply="SAFE")
    seen: list[Any] = []

    @on(P.PRE_MODEL_CALL)
    def ask_the_judge(ctx: Any) -> None:
        seen.append(ctx.llm)
        assert "".join(c.content for c in judge.stream("is this safe?")) == "SAFE"
        assert judge.invoke("and this?").content == "SAFE"

    model = EchoChat()
    if entry == "batch":
        model.batch(["a", "b"])
    else:
        _run_entry(model, entry, "hi")
    calls = 2 if entry == "batch" else 1
    assert len(model.requests) == calls
    assert len(seen) == calls and all(llm is model for llm in seen), "the judge's own calls were hooked"
    assert len(judge.requests) == 2 * calls


async def _async_judge_hook_run(judge: Any, model: Any, seen: list[Any]) -> None:
    @on(P.PRE_MODEL_CALL)
    async def ask_the_judge(ctx: Any) -> None:
        seen.append(ctx.llm)
        assert (await judge.ainvoke("is this safe?")).content == "SAFE"

    await model.ainvoke("hi")


def test_an_async_judge_hook_is_not_hooked_again() -> None:
    judge, model, seen = EchoChat(reply="SAFE"), EchoChat(), []
    asyncio.run(_async_judge_hook_run(judge, model, seen))
    assert len(judge.requests) == 1 and seen == [model]


def test_reentrant_opts_a_hooks_own_model_call_in() -> None:
    judge = EchoChat(reply="SAFE")
    seen: list[Any] = []

    @on(P.PRE_MODEL_CALL)
    def ask_the_judge(ctx: Any) -> None:
        seen.append(ctx.llm)
        if ctx.llm is not judge:
            with reentrant():
                judge.invoke("is this safe?")

    model = EchoChat()
    model.invoke("hi")
    assert seen == [model, judge]


@pytest.mark.parametrize("entry", ["invoke", "ainvoke"])
def test_a_permission_check_tool_inside_a_pre_tool_hook_runs_once(entry: str) -> None:
    runs: list[str] = []

    @tool
    def may_run(name: str) -> str:
        """Whether a tool may run."""
        runs.append(f"check:{name}")
        return "yes"

    @tool
    def work(x: int) -> str:
        """Do the work."""
        runs.append("work")
        return str(x)

    pre = collect(P.PRE_TOOL_CALL)

    @on(P.PRE_TOOL_CALL)
    async def check(ctx: Any) -> None:
        verdict = await may_run.ainvoke({"name": ctx.tool_name}) if entry == "ainvoke" else may_run.invoke({"name": ctx.tool_name})
        if verdict != "yes":
            raise HookAborted("not permitted")

    if entry == "invoke":
        assert work.invoke({"x": 3}) == "3"
    else:
        assert asyncio.run(work.ainvoke({"x": 3})) == "3"
    assert runs == ["check:work", "work"]
    assert [c.tool_name for c in pre] == ["work"], "the permission check's own tool call was hooked"


# -- wrap hooks around streams, legacy LLMs and tools --------------------------------------------------------


class FlakyStreamer(StreamingEcho):
    """Fails its first stream, then streams `reply`."""

    def _stream(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
        if not self.requests:
            self.requests.append(list(messages))
            raise ConnectionError("overloaded")
        yield from super()._stream(messages, stop, run_manager, **kwargs)


def _retry(ctx: Any, call_next: Any) -> Any:
    try:
        return call_next(ctx)
    except ConnectionError:
        return call_next(ctx)


async def _aretry(ctx: Any, call_next: Any) -> Any:
    try:
        return await call_next(ctx)
    except ConnectionError:
        return await call_next(ctx)


@pytest.mark.parametrize("entry", ["stream", "astream"])
def test_a_retry_wrap_reissues_a_stream(entry: str) -> None:
    register_hook(X.WRAP_MODEL_CALL, _retry if entry == "stream" else _aretry)
    pre, post = collect(P.PRE_MODEL_CALL), collect(P.POST_MODEL_CALL)
    model = FlakyStreamer()
    if entry == "stream":
        chunks = list(model.stream("hi"))
    else:
        async def consume() -> list[Any]:
            return [c async for c in model.astream("hi")]

        chunks = asyncio.run(consume())
    assert len(model.requests) == 2, "the stream was not re-issued"
    assert "".join(c.content for c in chunks) == "the original answer"
    assert len(pre) == len(post) == 1 and post[0].response == "the original answer"
    assert isinstance(post[0].duration_ms, float)


@pytest.mark.parametrize("entry", ["stream", "astream", "invoke"])
def test_a_short_circuit_wrap_answers_a_stream_without_the_model(entry: str) -> None:
    register_hook(X.WRAP_MODEL_CALL, lambda ctx, call_next: "served from cache")
    post = collect(P.POST_MODEL_CALL)
    model = StreamingEcho()
    if entry == "stream":
        chunks = list(model.stream("hi"))
    elif entry == "astream":
        async def consume() -> list[Any]:
            return [c async for c in model.astream("hi")]

        chunks = asyncio.run(consume())
    else:
        chunks = [model.invoke("hi")]
    assert model.requests == []
    assert "".join(c.content for c in chunks) == "served from cache"
    assert [c.response for c in post] == ["served from cache"]


def test_a_wrap_hook_may_return_a_message() -> None:
    register_hook(X.WRAP_MODEL_CALL, lambda ctx, call_next: AIMessage("from a message"))
    assert EchoChat().invoke("hi").content == "from a message"


def test_wrap_hooks_see_each_prompt_of_a_legacy_llm_batch() -> None:
    seen: list[str] = []

    def wrap(ctx: Any, call_next: Any) -> Any:
        seen.append(ctx.messages[0]["content"])
        return "cached" if ctx.messages[0]["content"] == "q2" else call_next(ctx)

    register_hook(X.WRAP_MODEL_CALL, wrap)
    post = collect(P.POST_MODEL_CALL)
    llm = EchoLLM()
    assert llm.batch(["q1", "q2"]) == ["the original answer", "cached"]
    assert seen == ["q1", "q2"] and llm.prompts == ["q1"]
    assert [c.response for c in post] == ["the original answer", "cached"]


@pytest.mark.parametrize("how", ["invoke", "ainvoke"])
def test_a_tool_wrap_short_circuit_keeps_the_tool_call_id(how: str) -> None:
    record = Record()
    add_numbers = make_tools(record)[0]
    register_hook(X.WRAP_TOOL_CALL, lambda ctx, call_next: f"cached for {ctx.tool_call_id}")
    post = collect(P.POST_TOOL_CALL)
    call = {"name": "add_numbers", "args": {"a": 1, "b": 2}, "id": "call_7", "type": "tool_call"}
    result = add_numbers.invoke(call) if how == "invoke" else asyncio.run(add_numbers.ainvoke(call))
    assert record.tool_runs == []
    assert isinstance(result, ToolMessage) and result.tool_call_id == "call_7" and result.content == "cached for call_7"
    assert [c.tool_result for c in post] == ["cached for call_7"]


# -- ctx.messages is built only when a hook reads it ---------------------------------------------------------


def test_a_no_op_pair_converts_no_message(monkeypatch: pytest.MonkeyPatch) -> None:
    from hookport.adapters.langchain import _models

    conversions: list[Any] = []
    original = _models.to_openai
    monkeypatch.setattr(_models, "to_openai", lambda m: conversions.append(m) or original(m))
    on(P.PRE_MODEL_CALL)(lambda ctx: None)
    on(P.POST_MODEL_CALL)(lambda ctx: None)
    history = [HumanMessage("a"), AIMessage("b"), HumanMessage("c")]
    model = StreamingEcho()
    model.invoke(history)
    list(model.stream(history))
    assert conversions == []
    assert model.requests[0][0] is history[0], "untouched messages are sent as they are"

    on(P.PRE_MODEL_CALL)(lambda ctx: ctx.messages)
    model.invoke(history)
    assert len(conversions) == 3


# -- OUTPUT's ctx.text on LangChain's result types -----------------------------------------------------------


@pytest.mark.parametrize("reply", ["card 4111 1111 1111 1111", [{"type": "text", "text": "card 4111 1111 1111 1111"}]],
                         ids=["text", "blocks"])
def test_output_text_redacts_a_chains_message(reply: Any) -> None:
    @on(P.OUTPUT)
    def redact(ctx: Any) -> None:
        assert ctx.text == "card 4111 1111 1111 1111"
        ctx.text = ctx.text.replace("4111 1111 1111 1111", "[CARD]")

    chain = ChatPromptTemplate.from_messages([("user", "{q}")]) | EchoChat(reply=reply)
    answer = chain.invoke({"q": "my card?"})
    assert isinstance(answer, AIMessage)
    assert "[CARD]" in str(answer.content) and "4111" not in str(answer.content)


@needs_langgraph
def test_output_text_redacts_a_graph_state() -> None:
    on(P.OUTPUT)(lambda ctx: setattr(ctx, "text", ctx.text.replace("ready", "[done]")))
    graph, _, _ = agent([Turn.final("The answer is ready.")])
    given = inputs()
    state = graph.invoke(given)
    assert state["messages"][-1].content == "The answer is [done]."


def test_the_fast_contexts_set_every_field_of_the_engines_contexts() -> None:
    from hookport.adapters.langchain._context import LangChainToolContext, LazyLLMContext
    from hookport.contexts import LLMCallHookContext, ToolCallHookContext, _all_slots

    model_ctx = LazyLLMContext([HumanMessage("hi")], lambda m: {"role": "user", "content": m.content},
                               None, 0, None, None, "langchain", {})
    tool_ctx = LangChainToolContext("t", {}, None, None, None, None, "langchain", {})
    for ctx, base in ((model_ctx, LLMCallHookContext), (tool_ctx, ToolCallHookContext)):
        for name in _all_slots(base):
            if name != "__dict__":
                getattr(ctx, name)  # an unset slot raises AttributeError
    assert model_ctx.payload == [{"role": "user", "content": "hi"}]
    assert tool_ctx.payload == {} and tool_ctx.refused is False
