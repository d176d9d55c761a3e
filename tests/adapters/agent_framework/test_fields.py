"""``ctx.iterations`` and the refusal text on Agent Framework (issue 29): the model calls this
agent's run made before this one, from 0, whatever else is registered; a refusal the model
reads names the tool, is bound to its call id and carries the reason."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("agent_framework")

from agent_framework import Agent  # noqa: E402

from hookport import HookAborted, InterceptionPoint, on, unregister_hook  # noqa: E402
from hookport.compat.crewai import before_tool_call  # noqa: E402
from tests.adapters.agent_framework.harness import (  # noqa: E402
    INSTRUCTIONS,
    ScriptedChatClient,
    build_agent,
    counting_tools,
)
from tests.conformance.harness import Turn, number_tool_calls  # noqa: E402

P = InterceptionPoint


def three_calls() -> list[Turn]:
    return [Turn.call("add_numbers", a=1, b=2), Turn.call("add_numbers", a=3, b=4), Turn.final("done")]


def run(agent: Agent, stream: bool = False) -> Any:
    async def go() -> Any:
        if not stream:
            return await agent.run("go")
        response = agent.run("go", stream=True)
        async for _ in response:
            pass
        return await response.get_final_response()

    return asyncio.run(go())


@pytest.mark.parametrize("stream", [False, True], ids=["run", "stream"])
def test_iterations_from_zero_with_step_hooks_registered(harness: Any, stream: bool) -> None:
    """Before: with a step hook registered the count was the 1-based step number."""
    seen: list[int] = []
    steps: list[str] = []

    @on(P.PRE_STEP)
    def step(ctx: Any) -> None:
        steps.append(ctx.step_name)

    @on(P.PRE_MODEL_CALL)
    def record(ctx: Any) -> None:
        seen.append(ctx.iterations)

    run(build_agent("alpha", three_calls(), [], []), stream)
    assert seen == [0, 1, 2]
    assert steps == ["alpha iteration 1", "alpha iteration 2", "alpha iteration 3"]  # step names keep their numbers


def test_iterations_without_step_hooks(harness: Any) -> None:
    """Before: without step hooks the count never moved from 0."""
    seen: list[int] = []

    @on(P.PRE_MODEL_CALL)
    def record(ctx: Any) -> None:
        seen.append(ctx.iterations)

    run(build_agent("alpha", three_calls(), [], []))
    assert seen == [0, 1, 2]


def test_a_model_hook_registered_mid_run_reads_the_calls_already_made(harness: Any) -> None:
    """Counted whether or not a model hook was there: a hook that joins during the run
    (from a tool hook) reads the run's true count at the next request."""
    seen: list[int] = []

    def record(ctx: Any) -> None:
        seen.append(ctx.iterations)

    @on(P.POST_TOOL_CALL)
    def join(ctx: Any) -> None:
        if not seen:
            on(P.PRE_MODEL_CALL)(record)

    try:
        run(build_agent("alpha", three_calls(), [], []))
    finally:
        unregister_hook(P.PRE_MODEL_CALL, record)
    assert seen == [1, 2]


def test_each_agent_counts_its_own_calls_agent_as_tool(harness: Any) -> None:
    """``agent.as_tool()``: the sub-agent's run is an execution of its own, counted from 0;
    the parent's count goes on where it was."""
    seen: list[tuple[str, int]] = []

    @on(P.PRE_MODEL_CALL)
    def record(ctx: Any) -> None:
        seen.append((ctx.agent_role, ctx.iterations))

    requests: list[Any] = []
    sub = build_agent("helper", three_calls(), requests, [])
    client = ScriptedChatClient(number_tool_calls([Turn.call("add_numbers", a=1, b=1),
                                                   Turn.call("helper", task="add things"), Turn.final("done")]),
                                requests)
    parent = Agent(client, name="boss", instructions=INSTRUCTIONS,
                   tools=[*counting_tools([]), sub.as_tool()])
    run(parent)
    assert seen == [("boss", 0), ("boss", 1), ("helper", 0), ("helper", 1), ("helper", 2), ("boss", 2)]


def test_a_second_run_counts_from_zero_again(harness: Any) -> None:
    seen: list[int] = []

    @on(P.PRE_MODEL_CALL)
    def record(ctx: Any) -> None:
        seen.append(ctx.iterations)

    agent = build_agent("alpha", [*three_calls(), Turn.final("again")], [], [])
    run(agent)
    run(agent)
    assert seen == [0, 1, 2, 0]


@pytest.mark.parametrize("stream", [False, True], ids=["run", "stream"])
@pytest.mark.parametrize("dialect", ["abort", "legacy"])
def test_the_refusal_the_model_reads(harness: Any, stream: bool, dialect: str) -> None:
    if dialect == "abort":
        @on(P.PRE_TOOL_CALL, tools=["purge_records"])
        def refuse(ctx: Any) -> None:
            raise HookAborted(reason="purging needs a change ticket", source="policy")
        reason = "purging needs a change ticket"
    else:
        @before_tool_call
        def refuse_legacy(ctx: Any) -> Any:
            return False if ctx.tool_name == "purge_records" else None
        reason = "before_tool_call hook returned False"

    requests: list[Any] = []
    runs: list[Any] = []
    run(build_agent("alpha", [Turn.call("purge_records", table="users"), Turn.final("done")], requests, runs),
        stream)
    assert runs == []
    assert requests[-1][-1] == {"role": "tool", "tool_call_id": "call_1",
                                "content": f"Error: Tool call purge_records was refused: {reason}"}


def test_post_model_call_reads_the_answer_as_its_text_property_does() -> None:
    """The response shape reads the usual one-message, one-content answer without the property's
    generators; every shape of answer must still read as ``ChatResponse.text`` does."""
    from agent_framework import ChatResponse, Content, Message

    from hookport.adapters.agent_framework._requests import CHAT_SHAPE

    def answer(*contents: Any) -> ChatResponse:
        return ChatResponse(messages=[Message(role="assistant", contents=list(contents))])

    call = Content.from_function_call(call_id="c1", name="add_numbers", arguments="{}")
    answers = [answer(Content.from_text("  five \n")), answer(call), answer(Content.from_text("a"), Content.from_text("b")),
               answer(), ChatResponse(messages=[]),
               ChatResponse(messages=[Message(role="assistant", contents=[Content.from_text("x")]),
                                      Message(role="assistant", contents=[Content.from_text("y")])])]
    assert [CHAT_SHAPE.text(a) for a in answers] == [a.text for a in answers] == ["five", "", "a b", "", "", "x\ny"]


def test_messages_replaced_unread_reach_the_model(harness: Any) -> None:
    """`ChatContext` builds its messages when a hook first sets them too: a replacement made
    without reading them is what the model gets (fails if the setter skipped the build)."""

    @on(P.PRE_MODEL_CALL)
    def replace(ctx: Any) -> None:
        ctx.messages = [{"role": "user", "content": "only this"}]

    requests: list[Any] = []
    run(build_agent("alpha", [Turn.final("done")], requests, []))
    assert [m for m in requests[0] if m["role"] != "system"] == [{"role": "user", "content": "only this"}]


def test_every_field_of_the_contexts_is_set(harness: Any) -> None:
    """The model and tool contexts are built without the base ``__init__``: each slot of the base
    classes holds a value (reading none raises AttributeError), with the run's agent fields."""
    from hookport.contexts import LLMCallHookContext, ToolCallHookContext, _all_slots

    seen: list[Any] = []
    on(P.PRE_MODEL_CALL)(seen.append)
    on(P.PRE_TOOL_CALL)(seen.append)
    agent = build_agent("alpha", [Turn.call("add_numbers", a=1, b=2), Turn.final("done")], [], [])
    run(agent)
    kinds = [LLMCallHookContext, ToolCallHookContext, LLMCallHookContext]
    assert [isinstance(c, kind) for c, kind in zip(seen, kinds)] == [True, True, True] and len(seen) == 3
    for ctx, kind in zip(seen, kinds):
        for name in _all_slots(kind):
            if name != "__dict__":
                getattr(ctx, name)
        assert (ctx.agent, ctx.agent_role, ctx.framework, ctx.metadata is not None) == (agent, "alpha",
                                                                                       "agent-framework", True)
    assert seen[1].tool_input == {"a": 1, "b": 2} and seen[1].tool_call_id == "call_1"
    assert [c.iterations for c in (seen[0], seen[2])] == [0, 1]
