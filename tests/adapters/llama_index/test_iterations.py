"""``ctx.iterations`` on LlamaIndex: the model requests this agent made in the ``Workflow.run`` in
progress before this one, from 0, whatever else is registered; each agent of an ``AgentWorkflow``
and an agent run inside a tool count their own."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core.agent.workflow import AgentWorkflow, FunctionAgent, ReActAgent  # noqa: E402
from llama_index.core.base.llms.types import ChatMessage, ChatResponse  # noqa: E402
from llama_index.core.tools import FunctionTool  # noqa: E402

from hookport import HookAborted, InterceptionPoint, on  # noqa: E402
from tests.adapters.llama_index.harness import SYSTEM_PROMPT, ScriptedLLM, counting_tools, run_agent, \
    scripted_llm  # noqa: E402
from tests.adapters.llama_index.test_adapter import agent, in_loop  # noqa: E402
from tests.conformance.harness import Turn  # noqa: E402

P = InterceptionPoint


def endless() -> list[Turn]:
    return [Turn.call("add_numbers", a=index, b=1) for index in range(12)] + [Turn.final("never")]


def loop_guard(limit: int) -> None:
    @on(P.PRE_MODEL_CALL)
    def guard(ctx: Any) -> None:
        if ctx.iterations >= limit:
            raise HookAborted(reason=f"iteration limit {limit} reached", source="loop_guard")


def recorded() -> list[tuple[str | None, int]]:
    seen: list[tuple[str | None, int]] = []
    on(P.PRE_MODEL_CALL)(lambda ctx: seen.append((ctx.agent_role, ctx.iterations)))
    return seen


@pytest.mark.parametrize("entry", ["sync", "async", "stream"])
def test_loop_guard_stops_an_endless_tool_loop_at_exactly_the_limit(harness: Any, entry: str) -> None:
    loop_guard(2)
    requests: list[Any] = []
    runs: list[Any] = []
    worker = agent(endless(), requests, runs, streaming=entry == "stream")
    with pytest.raises(HookAborted, match="iteration limit 2"):
        in_loop(lambda: run_agent(worker, "go", entry))  # type: ignore[arg-type]
    assert len(requests) == 2 and len(runs) == 2


def test_each_run_counts_from_zero_again(harness: Any) -> None:
    seen = recorded()
    worker = agent([Turn.call("add_numbers", a=1, b=2), Turn.final("one"), Turn.final("two")], [], [])
    in_loop(lambda: worker.run(user_msg="first"))
    in_loop(lambda: worker.run(user_msg="second"))
    assert seen == [("alpha", 0), ("alpha", 1), ("alpha", 0)]


def test_react_agent_loop_guard(harness: Any) -> None:
    loop_guard(2)
    calls: list[int] = []

    class ReActLLM(ScriptedLLM):
        async def achat(self, messages: Any, **kwargs: Any) -> ChatResponse:
            calls.append(len(calls))
            return ChatResponse(message=ChatMessage(role="assistant", content=(
                "Thought: I need to add.\nAction: add_numbers\nAction Input: {\"a\": 2, \"b\": 3}")))

    runs: list[Any] = []
    react = ReActAgent(name="thinker", tools=counting_tools(runs), llm=ReActLLM(), streaming=False)
    with pytest.raises(HookAborted, match="iteration limit 2"):
        in_loop(lambda: react.run(user_msg="what is 2 + 3?"))
    assert len(calls) == 2 and len(runs) == 2


def test_agent_workflow_agents_count_their_own_calls(harness: Any) -> None:
    seen = recorded()
    first = agent([Turn.call("add_numbers", a=1, b=2), Turn.call("handoff", to_agent="second", reason="yours")],
                  [], [], name="first", can_handoff_to=["second"])
    second = agent([Turn.call("add_numbers", a=3, b=4), Turn.final("done by second")], [], [], name="second")
    output = in_loop(lambda: AgentWorkflow(agents=[first, second], root_agent="first").run(user_msg="go"))
    assert output.response.content == "done by second"
    assert seen == [("first", 0), ("first", 1), ("second", 0), ("second", 1)]


def test_an_agent_run_inside_a_tool_counts_its_own_calls(harness: Any) -> None:
    seen = recorded()
    helper = agent([Turn.call("add_numbers", a=2, b=3), Turn.final("five")], [], [], name="helper")

    async def ask_helper(question: str) -> str:
        """Ask the helper agent."""
        return str(await helper.run(user_msg=question))

    boss = FunctionAgent(name="boss", description="delegates", system_prompt=SYSTEM_PROMPT, streaming=False,
                         tools=[FunctionTool.from_defaults(async_fn=ask_helper), *counting_tools([])],
                         llm=scripted_llm([Turn.call("add_numbers", a=1, b=1), Turn.call("ask_helper", question="2+3?"),
                                           Turn.final("done")], []))
    in_loop(lambda: boss.run(user_msg="go"))
    assert seen == [("boss", 0), ("boss", 1), ("helper", 0), ("helper", 1), ("boss", 2)]
