"""Installed with nothing registered, hookport stays out of Agent Framework's pipelines (the
framework's middleware path costs about a quarter of a short run); a hook registered during such
a run is still honoured from the next call, by the tool body (`_body`): a deny refuses, an abort
after a tool ran leaves ``Agent.run`` as `HookAborted`."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("agent_framework")

from agent_framework import Agent, ResponseStream, tool  # noqa: E402

from hookport import HookAborted, InterceptionPoint, register_hook  # noqa: E402
from tests.adapters.agent_framework.harness import (  # noqa: E402
    INSTRUCTIONS,
    ScriptedChatClient,
    counting_tools,
    drain,
)
from tests.conformance.harness import Turn, number_tool_calls  # noqa: E402

P = InterceptionPoint


def agent_with(tools: list[Any], script: list[Turn], requests: list[Any]) -> tuple[Agent, ScriptedChatClient]:
    client = ScriptedChatClient(number_tool_calls(list(script)), requests)
    return Agent(client, name="alpha", instructions=INSTRUCTIONS, tools=tools), client


def arming(point: Any, reason: str, tool_name: str) -> Any:
    """A tool ``arm`` whose body registers a hook at `point` (for `tool_name`) that aborts with `reason`."""

    def stop(ctx: Any) -> None:
        raise HookAborted(reason=reason, source="policy")

    @tool
    def arm() -> str:
        """Arm the policy."""
        register_hook(point, stop, tools=[tool_name])
        return "armed"

    return arm


def test_an_idle_install_adds_no_middleware_to_the_pipelines(harness: Any) -> None:
    """Before: hookport's function middleware joined every tool pipeline while installed, which
    put every tool call through the framework's middleware path."""
    runs: list[Any] = []
    worker, client = agent_with(counting_tools(runs), [Turn.call("add_numbers", a=2, b=3), Turn.final("5")], [])
    asyncio.run(worker.run("go"))
    assert runs == [("add_numbers", {"a": 2, "b": 3})]
    assert not client._cached_function_middleware_pipeline.has_middlewares
    chat = client._cached_chat_middleware_pipeline
    assert chat is None or not chat.has_middlewares


@pytest.mark.parametrize("stream", [False, True], ids=["run", "stream"])
def test_a_post_abort_registered_during_an_idle_run_leaves_the_run(harness: Any, stream: bool) -> None:
    """Nothing registered when the run starts; a tool registers a POST_TOOL_CALL hook that aborts;
    the next tool call's abort leaves ``Agent.run`` as `HookAborted` (before: hookport's internal
    escape leaked out of ``Agent.run`` instead)."""
    runs: list[Any] = []
    requests: list[Any] = []
    worker, _ = agent_with([arming(P.POST_TOOL_CALL, "audit failed", "add_numbers"), *counting_tools(runs)],
                           [Turn.call("arm"), Turn.call("add_numbers", a=1, b=2), Turn.final("never")], requests)
    if stream and not hasattr(ResponseStream, "with_pull_context_manager"):
        pytest.skip("before 1.23 a streamed run has no per-pull hook: such an abort is a tool error (documented)")
    with pytest.raises(HookAborted, match="audit failed"):
        asyncio.run(drain(worker, "go") if stream else worker.run("go"))
    assert runs == [("add_numbers", {"a": 1, "b": 2})]
    assert len(requests) == 2


def test_a_deny_registered_during_an_idle_run_refuses_the_next_call(harness: Any) -> None:
    runs: list[Any] = []
    requests: list[Any] = []
    worker, _ = agent_with([arming(P.PRE_TOOL_CALL, "purging is frozen", "purge_records"), *counting_tools(runs)],
                           [Turn.call("arm"), Turn.call("purge_records", table="users"), Turn.final("done")],
                           requests)
    asyncio.run(worker.run("go"))
    assert runs == []
    assert requests[-1][-1] == {"role": "tool", "tool_call_id": "call_2",
                                "content": "Error: Tool call purge_records was refused: purging is frozen"}
