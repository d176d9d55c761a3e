"""What only AutoGen has: parallel tool calls, the agent's model context, teams, streamed runs,
the message mapping both ways, an abort after a tool ran (AutoGen 0.6+ would hang on it)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("autogen_agentchat")

from autogen_agentchat.teams import RoundRobinGroupChat  # noqa: E402
from autogen_core import FunctionCall  # noqa: E402
from autogen_core.models import (  # noqa: E402
    AssistantMessage,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    SystemMessage,
    UserMessage,
)

from hookport import HookAborted, InterceptionPoint, on, register_hook  # noqa: E402
from hookport.adapters.autogen._messages import Conversation  # noqa: E402
from hookport.points import ExtensionPoint  # noqa: E402
from tests.adapters.autogen.harness import ScriptedClient, build_agent, drain  # noqa: E402
from tests.conformance.harness import ToolCall, Turn, number_tool_calls  # noqa: E402

P = InterceptionPoint
MARKER = "HOOKPORT-MARKER-autogen"


def parallel_script() -> list[Turn]:
    return [Turn(tool_calls=[ToolCall("add_numbers", {"a": 1, "b": 2}), ToolCall("purge_records", {"table": "users"}),
                             ToolCall("add_numbers", {"a": 3, "b": 4})]),
            Turn.final("done")]


def fresh(script: list[Turn], name: str = "alpha", **options: Any) -> tuple[Any, list[Any], list[Any]]:
    requests: list[Any] = []
    runs: list[Any] = []
    client = ScriptedClient(number_tool_calls(list(script)), requests)
    return build_agent(name, client, runs, **options), requests, runs


def test_parallel_tool_calls_one_refused(harness: Any) -> None:
    posts: list[tuple[str, bool]] = []

    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def deny(ctx: Any) -> None:
        raise HookAborted("purging is not allowed")

    @on(P.POST_TOOL_CALL)
    def seen(ctx: Any) -> None:
        posts.append((ctx.tool_name, ctx.refused))

    agent, requests, runs = fresh(parallel_script())
    result = asyncio.run(agent.run(task="go"))
    assert [name for name, _ in runs] == ["add_numbers", "add_numbers"]
    assert sorted(posts) == [("add_numbers", False), ("add_numbers", False), ("purge_records", True)]
    tool_messages = [m for m in requests[1] if m["role"] == "tool"]
    assert [m["content"] for m in tool_messages] == [
        "3", "Error: Tool call purge_records was refused: purging is not allowed", "7"]
    executions = [m for m in result.messages if type(m).__name__ == "ToolCallExecutionEvent"]
    refused = [r for r in executions[0].content if r.name == "purge_records"]
    assert refused[0].is_error is True  # AutoGen's own failed-tool shape, as the model sees it


def test_edits_reach_the_model_not_the_model_context(harness: Any) -> None:
    @on(P.PRE_MODEL_CALL)
    def edit(ctx: Any) -> None:
        ctx.messages[-1]["content"] += f" {MARKER}"
        ctx.messages.append({"role": "user", "content": "and be brief"})

    agent, requests, _ = fresh([Turn.call("add_numbers", a=2, b=3), Turn.final("5")])
    asyncio.run(agent.run(task="What is 2 + 3?"))
    assert requests[0][-2] == {"role": "user", "content": f"What is 2 + 3? {MARKER}"}
    assert requests[0][-1] == {"role": "user", "content": "and be brief"}
    # the second request starts again from the agent's own memory: the first request's edits are not in it
    assert requests[1][1] == {"role": "user", "content": "What is 2 + 3?"}
    assert [m["content"] for m in requests[1]].count("and be brief") == 1
    remembered = asyncio.run(agent.model_context.get_messages())
    assert MARKER not in str(remembered) and "be brief" not in str(remembered)


def test_message_mapping_both_ways() -> None:
    call = FunctionCall(id="c1", name="add_numbers", arguments='{"a": 1, "b": 2}')
    messages = [
        SystemMessage(content="be careful"),
        UserMessage(content="add", source="user"),
        AssistantMessage(content=[call], source="alpha"),
        FunctionExecutionResultMessage(content=[FunctionExecutionResult(content="3", call_id="c1", name="add_numbers")]),
        AssistantMessage(content="it is 3", source="alpha"),
    ]
    conversation = Conversation(messages)
    assert conversation.dicts == [
        {"role": "system", "content": "be careful"},
        {"role": "user", "content": "add"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "add_numbers", "arguments": '{"a": 1, "b": 2}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "3"},
        {"role": "assistant", "content": "it is 3"},
    ]
    assert conversation.edited(conversation.dicts) is None  # untouched: AutoGen's own list goes out
    dicts = list(conversation.dicts)
    dicts[3]["content"] = "three"
    dicts.insert(1, {"role": "user", "content": "extra"})
    back = conversation.edited(dicts)
    assert back is not None
    assert back[0] is messages[0] and back[2] is messages[1] and back[3] is messages[2] and back[5] is messages[4]
    assert isinstance(back[1], UserMessage) and back[1].content == "extra"
    assert isinstance(back[4], FunctionExecutionResultMessage) and back[4].content[0].content == "three"
    assert back[4].content[0].call_id == "c1"
    assert messages[3].content[0].content == "3"  # the original message is not changed


def test_team_run_is_one_execution_with_a_turn_per_speaker(harness: Any) -> None:
    from autogen_agentchat.conditions import MaxMessageTermination

    starts: list[Any] = []
    turns: list[str] = []
    models: list[str] = []
    on(P.EXECUTION_START)(starts.append)
    register_hook(ExtensionPoint.AGENT_TURN_START, lambda ctx: turns.append(ctx.step_name))
    on(P.PRE_MODEL_CALL)(lambda ctx: models.append(ctx.agent_role))

    alpha, _, _ = fresh([Turn.final("hello from alpha")], "alpha")
    beta, _, _ = fresh([Turn.final("hello from beta")], "beta")
    team = RoundRobinGroupChat([alpha, beta], termination_condition=MaxMessageTermination(3))
    result = asyncio.run(team.run(task="say hello"))
    assert [m.content for m in result.messages][-2:] == ["hello from alpha", "hello from beta"]
    assert len(starts) == 1
    assert turns == ["alpha", "beta"]
    assert models == ["alpha", "beta"]


@pytest.mark.parametrize("point", [P.PRE_MODEL_CALL, P.POST_TOOL_CALL, ExtensionPoint.AGENT_TURN_START])
def test_abort_inside_a_team_leaves_the_run_as_hook_aborted(harness: Any, point: Any) -> None:
    from autogen_agentchat.conditions import MaxMessageTermination

    ends: list[Any] = []
    on(P.EXECUTION_END)(ends.append)

    def stop(ctx: Any) -> None:
        raise HookAborted("not in this team")

    register_hook(point, stop)
    alpha, _, runs = fresh([Turn.call("add_numbers", a=2, b=3), Turn.final("never")], "alpha")
    team = RoundRobinGroupChat([alpha], termination_condition=MaxMessageTermination(4))

    async def main() -> Any:
        return await asyncio.wait_for(team.run(task="go"), timeout=20)

    with pytest.raises(HookAborted, match="not in this team"):  # AutoGen's runtime alone gives a RuntimeError
        asyncio.run(main())
    assert [(e.status, type(e.error).__name__) for e in ends] == [("failed", "HookAborted")]
    assert len(runs) == (1 if point == P.POST_TOOL_CALL else 0)


def test_streamed_run_replacement_reaches_the_task_result(harness: Any) -> None:
    ends: list[Any] = []

    @on(P.POST_MODEL_CALL)
    def replace(ctx: Any) -> Any:
        return "REPLACED" if ctx.response else None

    on(P.EXECUTION_END)(ends.append)
    agent, _, runs = fresh([Turn.call("add_numbers", a=2, b=3), Turn.final("original")], stream=True)
    result = asyncio.run(drain(agent, "go"))
    assert result.messages[-1].content == "REPLACED"
    assert len(runs) == 1
    assert [e.status for e in ends] == ["completed"]


def test_streamed_run_closed_early_ends_the_execution(harness: Any) -> None:
    ends: list[Any] = []
    on(P.EXECUTION_END)(ends.append)
    agent, _, _ = fresh([Turn.final("a long answer")], stream=True)

    async def first_item_only() -> None:
        stream = agent.run_stream(task="go")
        await stream.__anext__()
        await stream.aclose()

    asyncio.run(first_item_only())
    assert [e.status for e in ends] == ["failed"]


@pytest.mark.parametrize("stream", [False, True])
def test_abort_after_a_tool_ran_ends_the_run(harness: Any, stream: bool) -> None:
    @on(P.POST_TOOL_CALL)
    def stop(ctx: Any) -> None:
        raise HookAborted("the result leaked a secret")

    agent, requests, runs = fresh([Turn.call("add_numbers", a=2, b=3), Turn.final("never")], stream=stream)

    async def main() -> Any:
        return await asyncio.wait_for(drain(agent, "go") if stream else agent.run(task="go"), timeout=20)

    with pytest.raises(HookAborted, match="leaked"):
        asyncio.run(main())
    assert len(runs) == 1 and len(requests) == 1


def test_async_hooks_are_awaited_on_the_run_loop(harness: Any) -> None:
    loops: list[Any] = []

    @on(P.PRE_TOOL_CALL)
    async def check(ctx: Any) -> None:
        loops.append(asyncio.get_running_loop())
        await asyncio.sleep(0)

    agent, _, runs = fresh([Turn.call("add_numbers", a=2, b=3), Turn.final("5")])

    async def main() -> Any:
        result = await agent.run(task="go")
        return result, asyncio.get_running_loop()

    _, loop = asyncio.run(main())
    assert loops == [loop] and len(runs) == 1


def test_async_wrap_hook_retries_the_model_request(harness: Any) -> None:
    attempts: list[int] = []

    @on(ExtensionPoint.WRAP_MODEL_CALL)
    async def retry(ctx: Any, call_next: Any) -> Any:
        for attempt in range(3):
            attempts.append(attempt)
            try:
                return await call_next(ctx)
            except RuntimeError:
                continue
        raise RuntimeError("gave up")

    agent, requests, _ = fresh([Turn.fail("overloaded"), Turn.final("second time lucky")])
    result = asyncio.run(agent.run(task="go"))
    assert result.messages[-1].content == "second time lucky"
    assert attempts == [0, 1] and len(requests) == 2


def test_agent_built_before_install_is_hooked(autogen_adapter: Any) -> None:
    from hookport import adapters

    agent, _, runs = fresh([Turn.call("purge_records", table="users"), Turn.final("ok")])
    adapters.uninstall("autogen")
    try:
        adapters.install("autogen")

        @on(P.PRE_TOOL_CALL)
        def deny(ctx: Any) -> None:
            raise HookAborted("no")

        asyncio.run(agent.run(task="go"))
        assert runs == []
    finally:
        adapters.install("autogen")


@pytest.mark.parametrize("stream", [False, True], ids=["run", "run_stream"])
def test_a_single_agents_run_is_one_turn_whose_agent_every_call_names(harness: Any, stream: bool) -> None:
    """``run`` holds its turn in ``on_messages`` (state set once), ``run_stream`` around each item
    of ``on_messages_stream``: either way one AGENT_TURN_START / END pair, the agent on the model
    and tool contexts, and no turn left current in the caller afterwards."""
    from hookport.adapters.autogen._state import current_turn

    turns: list[tuple[str, str]] = []
    roles: list[tuple[str, Any]] = []
    register_hook(ExtensionPoint.AGENT_TURN_START, lambda ctx: turns.append(("start", ctx.step_name)))
    register_hook(ExtensionPoint.AGENT_TURN_END, lambda ctx: turns.append(("end", ctx.step_name)))
    on(P.PRE_MODEL_CALL)(lambda ctx: roles.append(("model", ctx.agent_role)))
    on(P.PRE_TOOL_CALL)(lambda ctx: roles.append(("tool", ctx.agent_role)))
    agent, _, runs = fresh([Turn.call("add_numbers", a=2, b=3), Turn.final("it is 5")])

    async def main() -> Any:
        result = await (drain(agent, "go") if stream else agent.run(task="go"))
        return result, current_turn.get()

    result, left = asyncio.run(main())
    assert result.messages[-1].content == "it is 5"
    assert turns == [("start", "alpha"), ("end", "alpha")]
    assert roles == [("model", "alpha"), ("tool", "alpha"), ("model", "alpha")]
    assert len(runs) == 1
    assert left is None


def test_a_held_tool_error_ends_an_on_messages_turn(harness: Any) -> None:
    """A POST_TOOL_CALL abort on the ``on_messages`` path is raised by the turn (before the
    reflection request), and the run ends failed with it."""
    ends: list[Any] = []
    models: list[int] = []
    on(P.EXECUTION_END)(ends.append)
    on(P.PRE_MODEL_CALL)(lambda ctx: models.append(ctx.iterations))

    @on(P.POST_TOOL_CALL)
    def stop(ctx: Any) -> None:
        raise HookAborted("stop after the tool")

    agent, _, runs = fresh([Turn.call("add_numbers", a=2, b=3), Turn.final("never")])
    with pytest.raises(HookAborted, match="stop after the tool"):
        asyncio.run(agent.run(task="go"))
    assert len(runs) == 1
    assert models == [0]
    assert [(e.status, type(e.error).__name__) for e in ends] == [("failed", "HookAborted")]
