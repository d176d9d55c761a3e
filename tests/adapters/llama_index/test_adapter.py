"""What only LlamaIndex has: the handler a run returns, AgentWorkflow (its own tool path, handoffs),
parallel tool calls, ReActAgent, memory left untouched by edits, instrumentation next to hookport,
plain workflows."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core.agent.workflow import AgentWorkflow, FunctionAgent, ReActAgent  # noqa: E402
from llama_index.core.base.llms.types import ChatMessage, ChatResponse  # noqa: E402
from llama_index.core.instrumentation import get_dispatcher  # noqa: E402
from llama_index.core.instrumentation.event_handlers import BaseEventHandler  # noqa: E402
from llama_index.core.memory import ChatMemoryBuffer  # noqa: E402
from llama_index.core.workflow import StartEvent, StopEvent, Workflow, step  # noqa: E402

from hookport import HookAborted, InterceptionPoint, on, register_hook  # noqa: E402
from hookport.points import ExtensionPoint  # noqa: E402
from tests.adapters.llama_index.harness import (  # noqa: E402
    SYSTEM_PROMPT,
    ScriptedLLM,
    counting_tools,
    scripted_llm,
)
from tests.conformance.harness import ToolCall, Turn  # noqa: E402

P = InterceptionPoint
MARKER = "HOOKPORT-MARKER-li"


def agent(script: list[Turn], requests: list[Any], runs: list[Any], name: str = "alpha", **options: Any) -> FunctionAgent:
    options.setdefault("streaming", False)
    return FunctionAgent(name=name, description=f"agent {name}", system_prompt=SYSTEM_PROMPT,
                         tools=counting_tools(runs), llm=scripted_llm(script, requests), **options)


def parallel_script() -> list[Turn]:
    return [Turn(tool_calls=[ToolCall("add_numbers", {"a": 1, "b": 2}), ToolCall("purge_records", {"table": "users"}),
                             ToolCall("add_numbers", {"a": 3, "b": 4})]),
            Turn.final("done")]


def test_parallel_tool_calls_one_refused(harness: Any) -> None:
    posts: list[tuple[str, bool]] = []

    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def deny(ctx: Any) -> None:
        raise HookAborted("purging is not allowed")

    on(P.POST_TOOL_CALL)(lambda ctx: posts.append((ctx.tool_name, ctx.refused)))
    requests: list[Any] = []
    runs: list[Any] = []
    in_loop(lambda: agent(parallel_script(), requests, runs).run(user_msg="go"))
    assert sorted(name for name, _ in runs) == ["add_numbers", "add_numbers"]
    assert sorted(posts) == [("add_numbers", False), ("add_numbers", False), ("purge_records", True)]
    tool_messages = [m for m in requests[1] if m["role"] == "tool"]
    assert len(tool_messages) == 3
    assert any("Tool call purge_records was refused: purging is not allowed" in m["content"] for m in tool_messages)
    assert {"3", "7"} <= {m["content"] for m in tool_messages}


def test_the_run_ends_when_the_handler_completes(harness: Any) -> None:
    order: list[str] = []
    on(P.EXECUTION_START)(lambda ctx: order.append("start"))
    on(P.PRE_MODEL_CALL)(lambda ctx: order.append("model"))
    on(P.EXECUTION_END)(lambda ctx: order.append(f"end:{ctx.status}"))

    @on(P.OUTPUT)
    def replace(ctx: Any) -> None:
        ctx.text = f"replaced {MARKER}"

    async def main() -> Any:
        handler = agent([Turn.final("original")], [], []).run(user_msg="hi")
        order.append("run returned")
        events = [type(event).__name__ async for event in handler.stream_events()]
        assert events  # the run's own event stream is untouched
        return await handler

    output = asyncio.run(main())
    assert order == ["start", "run returned", "model", "end:completed"]
    assert output.response.content == f"replaced {MARKER}"
    assert str(output) == f"replaced {MARKER}"


def test_a_failed_run_ends_failed_and_the_handler_raises_the_error(harness: Any) -> None:
    ends: list[Any] = []
    on(P.EXECUTION_END)(ends.append)

    async def main() -> Any:
        return await agent([Turn.fail("model down")], [], []).run(user_msg="hi")

    with pytest.raises(Exception, match="model down"):
        asyncio.run(main())
    assert [ctx.status for ctx in ends] == ["failed"]


def test_agent_workflow_runs_member_tools_through_its_own_path(harness: Any) -> None:
    pre: list[Any] = []
    on(P.PRE_TOOL_CALL)(pre.append)
    starts: list[Any] = []
    register_hook(ExtensionPoint.AGENT_TURN_START, starts.append)

    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def deny(ctx: Any) -> None:
        raise HookAborted("purging is not allowed")

    requests: list[Any] = []
    runs: list[Any] = []
    member = agent([Turn.call("add_numbers", a=2, b=3), Turn.call("purge_records", table="t"), Turn.final("done")],
                   requests, runs, name="calc")
    output = in_loop(lambda: (AgentWorkflow(agents=[member], root_agent="calc").run(user_msg="go")))
    assert output.response.content == "done"
    assert runs == [("add_numbers", {"a": 2, "b": 3})]
    assert [(c.tool_name, c.agent_role) for c in pre] == [("add_numbers", "calc"), ("purge_records", "calc")]
    assert "Tool call purge_records was refused" in str(requests[-1])
    assert [c.step_name for c in starts] == ["calc"]


def test_handoff_opens_a_turn_per_agent(harness: Any) -> None:
    starts: list[str] = []
    ends: list[str] = []
    register_hook(ExtensionPoint.AGENT_TURN_START, lambda ctx: starts.append(ctx.step_name))
    register_hook(ExtensionPoint.AGENT_TURN_END, lambda ctx: ends.append(ctx.step_name))
    first = agent([Turn.call("handoff", to_agent="second", reason="yours")], [], [], name="first",
                  can_handoff_to=["second"])
    second = agent([Turn.final("done by second")], [], [], name="second")
    output = in_loop(lambda: (AgentWorkflow(agents=[first, second], root_agent="first").run(user_msg="go")))
    assert output.response.content == "done by second"
    assert starts == ["first", "second"] and ends == ["first", "second"]


def test_model_edits_reach_the_model_not_the_memory(harness: Any) -> None:
    @on(P.PRE_MODEL_CALL)
    def edit(ctx: Any) -> None:
        for message in ctx.messages:
            if message["role"] == "user":
                message["content"] = f"{message['content']} {MARKER}"
        ctx.messages.insert(0, {"role": "system", "content": f"extra {MARKER}"})

    requests: list[Any] = []
    memory = ChatMemoryBuffer.from_defaults()
    in_loop(lambda: (agent([Turn.call("add_numbers", a=2, b=3), Turn.final("5")], requests, []).run(
        user_msg="add them", memory=memory)))
    assert all(MARKER in r[-1]["content"] or r[-1]["role"] == "tool" for r in requests)
    assert requests[0][0] == {"role": "system", "content": f"extra {MARKER}"}
    assert requests[0][-1]["content"] == f"add them {MARKER}"
    stored = memory.get_all()
    assert stored and MARKER not in str([m.content for m in stored])
    assert [str(getattr(m.role, "value", m.role)) for m in stored] == ["user", "assistant", "tool", "assistant"]


def test_react_agent_model_and_tool_calls_are_hooked(harness: Any) -> None:
    models: list[Any] = []
    tools: list[Any] = []
    on(P.PRE_MODEL_CALL)(models.append)
    on(P.PRE_TOOL_CALL)(tools.append)
    replies = iter([
        "Thought: I need to add.\nAction: add_numbers\nAction Input: {\"a\": 2, \"b\": 3}",
        "Thought: I can answer.\nAnswer: 5",
    ])

    class ReActLLM(ScriptedLLM):
        async def achat(self, messages: Any, **kwargs: Any) -> ChatResponse:
            return ChatResponse(message=ChatMessage(role="assistant", content=next(replies)))

    runs: list[Any] = []
    react = ReActAgent(name="thinker", tools=counting_tools(runs), llm=ReActLLM(), streaming=False)
    output = in_loop(lambda: (react.run(user_msg="what is 2 + 3?")))
    assert "5" in str(output)
    assert runs == [("add_numbers", {"a": 2, "b": 3})]
    assert len(models) == 2 and {c.agent_role for c in models} == {"thinker"}
    assert [c.tool_name for c in tools] == ["add_numbers"]


class _Counter(BaseEventHandler):
    seen: int = 0

    @classmethod
    def class_name(cls) -> str:
        return "HookportTestCounter"

    def handle(self, event: Any, **kwargs: Any) -> None:
        self.seen += 1


def test_users_instrumentation_keeps_firing(harness: Any) -> None:
    on(P.PRE_MODEL_CALL)(lambda ctx: None)
    on(P.PRE_TOOL_CALL)(lambda ctx: None)
    counter = _Counter()
    dispatcher = get_dispatcher()
    dispatcher.add_event_handler(counter)
    try:
        in_loop(lambda: (agent([Turn.call("add_numbers", a=2, b=3), Turn.final("5")], [], []).run(user_msg="go")))
    finally:
        dispatcher.event_handlers.remove(counter)
    assert counter.seen > 0


class _Echo(Workflow):
    @step
    async def answer(self, ev: StartEvent) -> StopEvent:
        return StopEvent(result=f"echo {ev.get('topic')}")


def test_a_plain_workflow_is_one_execution(harness: Any) -> None:
    ends: list[Any] = []
    on(P.EXECUTION_END)(ends.append)

    @on(P.INPUT)
    def rewrite(ctx: Any) -> Any:
        return {"topic": f"{ctx.payload['topic']} {MARKER}"}

    result = in_loop(lambda: (_Echo().run(topic="pirates")))
    assert result == f"echo pirates {MARKER}"
    assert [(c.status, c.output) for c in ends] == [("completed", f"echo pirates {MARKER}")]


def in_loop(start: Any) -> Any:
    """Start a run (``run()`` needs a running loop) and await its handler."""

    async def main() -> Any:
        return await start()

    return asyncio.run(main())
