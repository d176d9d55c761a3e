"""Conformance harness for LangChain: a real LangGraph agent loop on a scripted chat model.

The loop is langchain 1.x `create_agent` when it exists, else LangGraph's
`create_react_agent` (langgraph 0.6 + langchain-core 0.3), or a hand-built
StateGraph + ToolNode loop (``LangChainHarness(loop="graph")``). With
langchain-core alone (no langgraph) it is a plain LCEL agent loop, a
`RunnableSequence` of `RunnableLambda`s calling the model and the tools; that
setup has no graph steps and no per-item batch executions, and says so. The model is a
`BaseChatModel` subclass that answers from the script (through `_generate`, or
`_stream` when LangGraph streams messages), supports `bind_tools`, and records
every request as OpenAI-style dicts.
"""

from __future__ import annotations

import asyncio
import importlib.util
import itertools
import json
import threading
from collections.abc import Iterator
from typing import Any, ClassVar, Literal

import pytest

pytest.importorskip("langchain_core")

from langchain_core.language_models.chat_models import BaseChatModel  # noqa: E402
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage  # noqa: E402
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult  # noqa: E402
from langchain_core.tools import tool  # noqa: E402
from langchain_core.utils.function_calling import convert_to_openai_tool  # noqa: E402
from pydantic import ConfigDict  # noqa: E402

from tests.conformance.harness import Entry, Harness, RunResult, Turn, number_tool_calls  # noqa: E402


def _import_every_call_site() -> None:
    """Import each module the adapter patches, so "the framework, fully imported" holds for the probes
    (LangGraph and langchain import most of them lazily)."""
    import importlib

    from hookport.adapters.langchain import LangChainAdapter

    for target in LangChainAdapter().targets():
        try:
            importlib.import_module(target.module)
        except ImportError:
            pass


_import_every_call_site()

Loop = Literal["auto", "create_agent", "react", "graph", "lcel"]
HAS_LANGGRAPH = importlib.util.find_spec("langgraph") is not None

_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool", "AIMessageChunk": "assistant"}


def as_openai(message: BaseMessage) -> dict[str, Any]:
    """What the model received, the way an OpenAI-compatible request would carry it."""
    out: dict[str, Any] = {"role": _ROLES.get(message.type, message.type), "content": message.content}
    tool_calls = getattr(message, "tool_calls", None)
    if tool_calls:
        out["tool_calls"] = [
            {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": json.dumps(c["args"])}}
            for c in tool_calls
        ]
    if message.type == "tool":
        out["tool_call_id"] = message.tool_call_id
        out["status"] = getattr(message, "status", "success")
    return out


class Record:
    """What one run did: requests the model received, real tool executions, model calls."""

    def __init__(self) -> None:
        self.model_inputs: list[list[dict[str, Any]]] = []
        self.tool_runs: list[tuple[str, dict[str, Any]]] = []
        self.lock = threading.Lock()
        self.turns = itertools.count()


class ScriptedChatModel(BaseChatModel):
    """Answers from a list of `Turn`s; raises RuntimeError for `Turn.error`."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    script: list[Any]
    record: Any
    by_ai_count: bool = False
    """Pick the turn by the AI messages already in the conversation (batch: items run concurrently)."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, *, tool_choice: Any = None, **kwargs: Any) -> Any:
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    def _turn(self, messages: list[BaseMessage]) -> Turn:
        with self.record.lock:
            self.record.model_inputs.append([as_openai(m) for m in messages])
            if self.by_ai_count:
                index = sum(1 for m in messages if m.type == "ai")
            else:
                index = next(self.record.turns)
        if index >= len(self.script):
            return Turn.final("(the script has no more turns)")
        turn = self.script[index]
        if turn.error is not None:
            raise RuntimeError(turn.error)
        return turn

    @staticmethod
    def _message(turn: Turn) -> AIMessage:
        calls = [{"name": c.name, "args": dict(c.args), "id": c.id, "type": "tool_call"} for c in turn.tool_calls]
        return AIMessage(content=turn.text or "", tool_calls=calls)

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._message(self._turn(messages)))])

    def _stream(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        turn = self._turn(messages)
        text = turn.text or ""
        middle = len(text) // 2
        for piece in (text[:middle], text[middle:]) if text else ():
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=piece))
            if run_manager is not None:
                run_manager.on_llm_new_token(piece, chunk=chunk)
            yield chunk
        for index, call in enumerate(turn.tool_calls):
            chunk = ChatGenerationChunk(
                message=AIMessageChunk(
                    content="",
                    tool_call_chunks=[{"name": call.name, "args": json.dumps(call.args), "id": call.id, "index": index}],
                )
            )
            if run_manager is not None:
                run_manager.on_llm_new_token("", chunk=chunk)
            yield chunk


def make_tools(record: Record) -> list[Any]:
    @tool
    def add_numbers(a: int, b: int) -> str:
        """Add two integers and return the sum."""
        record.tool_runs.append(("add_numbers", {"a": a, "b": b}))
        return str(a + b)

    @tool
    def purge_records(table: str) -> str:
        """Delete every record of a table."""
        record.tool_runs.append(("purge_records", {"table": table}))
        return f"purged {table}"

    return [add_numbers, purge_records]


def build_agent(model: BaseChatModel, tools: list[Any], name: str, loop: Loop = "auto") -> Any:
    if loop == "lcel" or (loop == "auto" and not HAS_LANGGRAPH):
        return build_lcel_loop(model, tools, name)
    if loop in ("auto", "create_agent"):
        try:
            from langchain.agents import create_agent
        except ImportError:
            if loop == "create_agent":
                raise
        else:
            return create_agent(model, tools, name=name)
    if loop in ("auto", "react"):
        from langgraph.prebuilt import create_react_agent

        return create_react_agent(model, tools, name=name)
    return build_graph_loop(model, tools, name)


def build_graph_loop(model: BaseChatModel, tools: list[Any], name: str) -> Any:
    """The classic hand-built ReAct loop: a model node, a ToolNode, tools_condition."""
    from langgraph.graph import END, START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode, tools_condition

    bound = model.bind_tools(tools)

    def call_model(state: MessagesState) -> dict[str, Any]:
        return {"messages": [bound.invoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("model", call_model)
    graph.add_node("tools", ToolNode(tools))
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", tools_condition, {"tools": "tools", END: END})
    graph.add_edge("tools", "model")
    return graph.compile(name=name)


def build_lcel_loop(model: BaseChatModel, tools: list[Any], name: str, max_turns: int = 10) -> Any:
    """An agent loop with langchain-core alone: model, then every requested tool, until a final answer."""
    from langchain_core.runnables import RunnableLambda, RunnableSequence

    bound = model.bind_tools(tools)
    by_name = {t.name: t for t in tools}

    def start(state: dict[str, Any]) -> dict[str, Any]:
        return {"messages": list(state["messages"])}

    def loop(state: dict[str, Any]) -> dict[str, Any]:
        messages = state["messages"]
        for _ in range(max_turns):
            answer = bound.invoke(messages)
            messages.append(answer)
            if not answer.tool_calls:
                break
            messages.extend(by_name[c["name"]].invoke({**c, "type": "tool_call"}) for c in answer.tool_calls)
        return {"messages": messages}

    async def aloop(state: dict[str, Any]) -> dict[str, Any]:
        messages = state["messages"]
        for _ in range(max_turns):
            answer = await bound.ainvoke(messages)
            messages.append(answer)
            if not answer.tool_calls:
                break
            for c in answer.tool_calls:
                messages.append(await by_name[c["name"]].ainvoke({**c, "type": "tool_call"}))
        return {"messages": messages}

    return RunnableSequence(RunnableLambda(start), RunnableLambda(loop, afunc=aloop), name=name)


def final_text(output: Any) -> str | None:
    """The answer text from what the entry point returned (a state dict, or whatever an OUTPUT hook put there)."""
    if output is None or isinstance(output, str):
        return output
    if isinstance(output, dict) and output.get("messages"):
        last = output["messages"][-1]
        content = getattr(last, "content", None)
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return "".join(b if isinstance(b, str) else b.get("text", "") for b in content)
    return str(output)


class LangChainHarness(Harness):
    framework: ClassVar[str] = "langchain"
    import_name: ClassVar[str] = "langchain_core"
    entries: ClassVar[tuple[Entry, ...]] = ("sync", "async", "stream", "batch")
    step_kind: ClassVar[str | None] = "node"
    not_offered: ClassVar[dict[str, str]] = {}

    def __init__(self, loop: Loop = "auto") -> None:
        self.loop = loop
        if loop == "lcel" or (loop == "auto" and not HAS_LANGGRAPH):
            self.entries = ("sync", "async", "stream")
            self.step_kind = None
            self.not_offered = {
                "steps": "an LCEL loop has no graph steps (install langgraph for PRE/POST_STEP per node)",
                "turns__once_per_agent_turn": "an LCEL loop is not an agent graph (agent turns are per "
                "create_agent / create_react_agent / ToolNode graph invocation: install langgraph)",
            }

    def refusal_text(self, tool: str, reason: str) -> str:
        from hookport.adapters.langchain import blocked_message

        return blocked_message(tool, reason)

    def build(self, script: list[Turn], agent: str, by_ai_count: bool = False) -> tuple[Any, Record]:
        record = Record()
        model = ScriptedChatModel(script=number_tool_calls(script), record=record, by_ai_count=by_ai_count)
        tools = make_tools(record)
        self._tools = {t.name: t for t in tools}
        return build_agent(model, tools, agent, self.loop), record

    def judge(self, prompt: str, answer: str) -> str:
        """A real chat model call (`invoke`, the same model class) outside any agent."""
        model = ScriptedChatModel(script=[Turn.final(answer)], record=Record())
        return str(model.invoke([HumanMessage(content=prompt)]).content)

    def run_tool_directly(self, name: str, args: dict[str, Any]) -> str:
        """The current run's tool, called through `BaseTool.invoke` (its run is recorded there)."""
        return str(self._tools[name].invoke(args))

    def run(self, script: list[Turn], *, entry: Entry = "sync", agent: str = "alpha", prompt: str = "What is 2 + 3?") -> RunResult:
        graph, record = self.build(script, agent, by_ai_count=entry == "batch")
        inputs = {"messages": [HumanMessage(content=prompt)]}
        output: Any = None
        error: BaseException | None = None
        try:
            if entry == "sync":
                output = graph.invoke(inputs)
            elif entry == "async":
                output = asyncio.run(graph.ainvoke(inputs))
            elif entry == "stream":
                output = self._stream(graph, inputs)
            elif entry == "batch":
                output = graph.batch([inputs, {"messages": [HumanMessage(content=prompt)]}])[0]
            else:
                raise ValueError(f"unknown entry {entry!r}")
        except Exception as raised:  # the scenarios inspect it
            error = raised
        return RunResult(
            output=final_text(output), error=error, model_inputs=record.model_inputs, tool_runs=record.tool_runs
        )

    def run_nested(self, outer_args: dict[str, Any], inner_args: dict[str, Any], *,
                   agent: str = "alpha") -> RunResult:
        """An agent whose ``purge_records`` tool invokes another ``purge_records`` tool (a tool calling a tool)."""
        record = Record()
        inner = make_tools(record)[1]

        @tool("purge_records")
        def outer(table: str) -> str:
            """Delete every record of a table, through the records service's own tool."""
            record.tool_runs.append(("outer:purge_records", {"table": table}))
            return str(inner.invoke(inner_args))

        script = [Turn.call("purge_records", **outer_args), Turn.final("done")]
        model = ScriptedChatModel(script=number_tool_calls(script), record=record)
        graph = build_agent(model, [outer], agent, self.loop)
        output: Any = None
        error: BaseException | None = None
        try:
            output = graph.invoke({"messages": [HumanMessage(content="purge")]})
        except Exception as raised:
            error = raised
        return RunResult(output=final_text(output), error=error, model_inputs=record.model_inputs,
                         tool_runs=record.tool_runs)

    def sdk_layers(self) -> dict[str, tuple[Entry, ...]]:
        from tests.adapters.langchain.layered import LAYERS

        return LAYERS if HAS_LANGGRAPH else {}

    def run_layered(self, sdk: str, script: list[Turn], *, entry: Entry = "sync", agent: str = "alpha",
                    prompt: str = "What is 2 + 3?") -> RunResult:
        from tests.adapters.langchain import layered

        run = {"openai": layered.run_on_openai, "mcp": layered.run_on_mcp}[sdk]
        return run(self, script, entry, agent, prompt)

    @staticmethod
    def _stream(graph: Any, inputs: dict[str, Any]) -> Any:
        """Stream state values and model tokens together, as chat UIs do; the answer is the last state."""
        last: Any = None
        from langchain_core.runnables import RunnableSequence

        if isinstance(graph, RunnableSequence):  # the LCEL loop: its chunks are states
            for item in graph.stream(inputs):
                last = item
            return last
        for item in graph.stream(inputs, stream_mode=["messages", "values"]):
            if isinstance(item, tuple) and len(item) == 2 and item[0] in ("messages", "values"):
                if item[0] == "values":
                    last = item[1]
            else:  # an OUTPUT hook replaced the final chunk
                last = item
        return last


HARNESS = LangChainHarness
