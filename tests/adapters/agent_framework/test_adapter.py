"""What only Agent Framework has: parallel tool calls, native middleware next to hookport's,
sessions, the layer-order trap, streamed runs, direct client calls."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

pytest.importorskip("agent_framework")

from agent_framework import (  # noqa: E402
    Agent,
    AgentMiddleware,
    BaseChatClient,
    ChatMiddleware,
    Content,
    FunctionInvocationLayer,
    FunctionMiddleware,
    Message,
)
from agent_framework._middleware import ChatMiddlewareLayer  # noqa: E402

from hookport import HookAborted, InterceptionPoint, on, register_hook  # noqa: E402
from hookport.adapters.agent_framework import ClientLayersError  # noqa: E402
from hookport.points import ExtensionPoint  # noqa: E402
from tests.adapters.agent_framework.harness import (  # noqa: E402
    INSTRUCTIONS,
    ScriptedChatClient,
    build_agent,
    counting_tools,
    drain,
)
from tests.conformance.harness import ToolCall, Turn, number_tool_calls  # noqa: E402

P = InterceptionPoint
MARKER = "HOOKPORT-MARKER-af"


def parallel_script() -> list[Turn]:
    return [Turn(tool_calls=[ToolCall("add_numbers", {"a": 1, "b": 2}), ToolCall("purge_records", {"table": "users"}),
                             ToolCall("add_numbers", {"a": 3, "b": 4})]),
            Turn.final("done")]


def fresh(script: list[Turn], **options: Any) -> tuple[Agent, list[Any], list[Any]]:
    requests: list[Any] = []
    runs: list[Any] = []
    return build_agent("alpha", script, requests, runs, **options), requests, runs


def test_parallel_tool_calls_one_refused(harness: Any) -> None:
    posts: list[tuple[str, bool]] = []

    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def deny(ctx: Any) -> None:
        raise HookAborted("purging is not allowed")

    register_hook(P.POST_TOOL_CALL, lambda ctx: posts.append((ctx.tool_name, ctx.refused)))
    agent, requests, runs = fresh(parallel_script())
    answer = asyncio.run(agent.run("go"))
    assert answer.text == "done"
    assert runs == [("add_numbers", {"a": 1, "b": 2}), ("add_numbers", {"a": 3, "b": 4})]
    assert sorted(posts) == [("add_numbers", False), ("add_numbers", False), ("purge_records", True)]
    tool_messages = [m for m in requests[1] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == ["call_1", "call_2", "call_3"]
    assert tool_messages[1]["content"] == "Error: Tool call purge_records was refused: purging is not allowed"
    assert len(requests) == 2, "the refused call was retried or the loop stopped"


def test_users_middleware_runs_before_hookport_and_still_works(harness: Any) -> None:
    order: list[str] = []

    class RunMw(AgentMiddleware):
        async def process(self, context: Any, call_next: Any) -> None:
            order.append("user agent middleware")
            await call_next()

    class ChatMw(ChatMiddleware):
        async def process(self, context: Any, call_next: Any) -> None:
            order.append("user chat middleware")
            await call_next()

    class ToolMw(FunctionMiddleware):
        async def process(self, context: Any, call_next: Any) -> None:
            order.append("user function middleware")
            context.arguments = {**context.arguments, "b": 10}
            await call_next()

    register_hook(P.EXECUTION_START, lambda ctx: order.append("execution_start"))
    register_hook(P.PRE_MODEL_CALL, lambda ctx: order.append("pre_model_call"))
    register_hook(P.PRE_TOOL_CALL, lambda ctx: order.append(f"pre_tool_call b={ctx.tool_input['b']}"))
    agent, _, runs = fresh([Turn.call("add_numbers", a=1, b=2), Turn.final("ok")],
                           middleware=[RunMw(), ChatMw(), ToolMw()])
    asyncio.run(agent.run("go"))
    assert order == ["execution_start", "user agent middleware", "user chat middleware", "pre_model_call",
                     "user function middleware", "pre_tool_call b=10", "user chat middleware", "pre_model_call"]
    assert runs == [("add_numbers", {"a": 1, "b": 10})]


def test_edits_reach_the_model_not_the_session(harness: Any) -> None:
    @on(P.PRE_MODEL_CALL)
    def add_note(ctx: Any) -> None:
        ctx.messages.append({"role": "user", "content": MARKER})
        ctx.messages[0]["content"] = "edited prompt"

    agent, requests, _ = fresh([Turn.final("first"), Turn.final("second")])
    session = agent.create_session() if hasattr(agent, "create_session") else agent.get_new_thread()
    prompt = [Message(role="user", contents=[Content.from_text("original prompt")])]
    asyncio.run(agent.run(prompt, session=session))
    assert requests[0][-1] == {"role": "user", "content": MARKER}
    assert requests[0][1]["content"] == "edited prompt"
    assert prompt[0].text == "original prompt", "the caller's message was changed"
    asyncio.run(agent.run("again", session=session))
    history = requests[1]
    assert MARKER not in str(history[:-1]) or history.count({"role": "user", "content": MARKER}) == 1
    assert "edited prompt" not in str(history[2:]), "an edit leaked into the session's history"


def test_async_wrap_hook_retries_the_model_request(harness: Any) -> None:
    attempts: list[int] = []

    @on(ExtensionPoint.WRAP_MODEL_CALL)
    async def retry(ctx: Any, call_next: Any) -> Any:
        for attempt in (1, 2, 3):
            attempts.append(attempt)
            try:
                return await call_next(ctx)
            except Exception:
                if attempt == 3:
                    raise

    result = harness.run([Turn.fail("overloaded"), Turn.final("second time lucky")])
    result.raise_error()
    assert attempts == [1, 2] and len(result.model_inputs) == 2
    assert result.output == "second time lucky"


def test_async_wrap_hook_retries_a_tool(harness: Any) -> None:
    calls: list[int] = []

    @on(ExtensionPoint.WRAP_TOOL_CALL)
    async def flaky_then_ok(ctx: Any, call_next: Any) -> Any:
        calls.append(1)
        first = await call_next(ctx)
        return await call_next(ctx) if first else first

    result = harness.run([Turn.call("add_numbers", a=2, b=3), Turn.final("ok")])
    result.raise_error()
    assert len(calls) == 1 and len(result.runs_of("add_numbers")) == 2


class MisorderedClient(ChatMiddlewareLayer, FunctionInvocationLayer, BaseChatClient):  # type: ignore[misc]
    """Chat middleware first: the framework runs it once around the whole tool loop and drops
    function middleware. hookport joins below both layers, so its hooks still run per request."""

    _inner_get_response = ScriptedChatClient._inner_get_response
    _next_turn = ScriptedChatClient._next_turn

    def __init__(self, script: list[Turn], requests: list[Any]) -> None:
        super().__init__()
        self.script = number_tool_calls(list(script))
        self.requests = requests


def test_misordered_layers_model_hooks_run_per_request(harness: Any) -> None:
    """Before: with model hooks registered such a client's run raised `ClientLayersError`
    (hookport's chat middleware could only run once around the whole loop)."""
    seen: list[int] = []
    register_hook(P.PRE_MODEL_CALL, lambda ctx: seen.append(ctx.iterations))
    register_hook(P.POST_MODEL_CALL, lambda ctx: ctx.response.upper() if ctx.response else None)
    runs: list[Any] = []
    agent = Agent(MisorderedClient([Turn.call("add_numbers", a=1, b=2), Turn.final("ok")], []), name="alpha",
                  tools=counting_tools(runs))
    answer = asyncio.run(agent.run("go"))
    assert seen == [0, 1]
    assert runs == [("add_numbers", {"a": 1, "b": 2})]
    assert answer.text == "OK"


def test_misordered_layers_tool_hooks_still_guard(harness: Any) -> None:
    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def deny(ctx: Any) -> None:
        raise HookAborted("purging is not allowed")

    runs: list[Any] = []
    requests: list[Any] = []
    agent = Agent(MisorderedClient([Turn.call("purge_records", table="users"), Turn.final("ok")], requests),
                  name="alpha", tools=counting_tools(runs))
    asyncio.run(agent.run("go"))
    assert runs == [], "the tool ran although a hook refused it"
    assert "Error: Tool call purge_records was refused" in str(requests[1])


class ProtocolClient:
    """A chat client that only follows the protocol (not a ``BaseChatClient``)."""

    additional_properties: dict[str, Any] = {}

    def __init__(self) -> None:
        self.requests = 0

    def get_response(self, messages: Any, *, stream: bool = False, options: Any = None, **kwargs: Any) -> Any:
        from agent_framework import ChatResponse

        self.requests += 1

        async def answer() -> Any:
            return ChatResponse(messages=[Message(role="assistant", contents=[Content.from_text("quack")])])

        return answer()


def test_a_protocol_only_client_with_model_hooks_is_an_error(harness: Any) -> None:
    register_hook(P.PRE_MODEL_CALL, lambda ctx: None)
    client = ProtocolClient()
    with pytest.raises(ClientLayersError, match="is not a BaseChatClient"):
        asyncio.run(Agent(client, name="alpha").run("go"))
    assert client.requests == 0


def test_a_protocol_only_client_without_model_hooks_warns(harness: Any, caplog: pytest.LogCaptureFixture) -> None:
    register_hook(P.PRE_TOOL_CALL, lambda ctx: None)
    client = ProtocolClient()
    with caplog.at_level(logging.WARNING, logger="hookport"):
        answer = asyncio.run(Agent(client, name="alpha").run("go"))
    assert answer.text == "quack" and client.requests == 1
    assert any("is not a BaseChatClient" in r.getMessage() for r in caplog.records)


def test_streamed_run_closed_early_ends_the_execution(harness: Any) -> None:
    ends: list[Any] = []
    register_hook(P.EXECUTION_END, ends.append)
    agent, _, _ = fresh([Turn.call("add_numbers", a=1, b=2), Turn.final("ok")])

    async def first_update_only() -> None:
        stream = agent.run("go", stream=True)
        iterator = stream.__aiter__()
        await iterator.__anext__()
        close = getattr(stream, "close", None) or getattr(stream._stream, "aclose", None)  # 1.23 / older
        if close is not None:
            await close()

    asyncio.run(first_update_only())
    if not ends:
        pytest.skip("this release's ResponseStream has no way to close a stream early")
    assert len(ends) == 1 and ends[0].status == "failed"


def test_streamed_run_boundaries_after_the_stream_is_read(harness: Any) -> None:
    seen: list[str] = []
    register_hook(P.EXECUTION_END, lambda ctx: seen.append("end"))
    register_hook(P.POST_TOOL_CALL, lambda ctx: seen.append("post_tool"))
    register_hook(P.OUTPUT, lambda ctx: "replaced answer")
    agent, _, _ = fresh([Turn.call("add_numbers", a=1, b=2), Turn.final("ok")])
    final = asyncio.run(drain(agent, "go"))
    assert seen == ["post_tool", "end"]
    assert final == "replaced answer"


def test_direct_client_call_is_hooked(harness: Any) -> None:
    seen: list[Any] = []
    register_hook(P.PRE_MODEL_CALL, lambda ctx: seen.append(list(ctx.messages)))
    register_hook(P.POST_MODEL_CALL, lambda ctx: ctx.response.upper())
    client = ScriptedChatClient([Turn.final("quiet")], [])
    response = asyncio.run(client.get_response([Message(role="user", contents=[Content.from_text("hi")])]))
    assert seen == [[{"role": "user", "content": "hi"}]]
    assert response.text == "QUIET"


def test_agent_built_before_install_is_hooked(agent_framework_adapter: Any) -> None:
    from hookport import adapters

    adapters.uninstall("agent-framework")
    try:
        agent, _, runs = fresh([Turn.call("purge_records", table="t"), Turn.final("ok")])
    finally:
        adapters.install("agent-framework")

    @on(P.PRE_TOOL_CALL)
    def deny(ctx: Any) -> None:
        raise HookAborted("no")

    asyncio.run(agent.run("go"))
    assert runs == []


def test_uninstall_leaves_cached_pipelines_inert(agent_framework_adapter: Any) -> None:
    from hookport import adapters

    fired: list[str] = []
    register_hook(P.PRE_TOOL_CALL, lambda ctx: fired.append(ctx.tool_name))
    agent, _, runs = fresh([Turn.call("add_numbers", a=1, b=2), Turn.final("ok"),
                            Turn.call("add_numbers", a=1, b=2), Turn.final("ok")])
    asyncio.run(agent.run("go"))
    assert fired == ["add_numbers"]
    adapters.uninstall("agent-framework")
    try:
        asyncio.run(agent.run("go"))
    finally:
        adapters.install("agent-framework")
    assert fired == ["add_numbers"] and len(runs) == 2


def test_instructions_reach_the_model(harness: Any) -> None:
    result = harness.run([Turn.final("ok")])
    assert result.model_inputs[0][0] == {"role": "system", "content": INSTRUCTIONS}


def test_hooks_leave_the_frameworks_pipelines_to_it(harness: Any) -> None:
    """Issue 29: with model and tool hooks registered hookport adds no middleware, so the framework
    keeps its direct route (before: hookport's middleware in both pipelines sent every request and
    tool call down the framework's middleware route, most of a no-op pair's cost)."""
    seen: list[str] = []
    call_ids: list[Any] = []
    for point in (P.PRE_MODEL_CALL, P.POST_MODEL_CALL):
        register_hook(point, lambda ctx, point=point: seen.append(point.value))
    for point in (P.PRE_TOOL_CALL, P.POST_TOOL_CALL):
        register_hook(point, lambda ctx, point=point: (seen.append(point.value), call_ids.append(ctx.tool_call_id)))
    requests: list[Any] = []
    runs: list[Any] = []
    client = ScriptedChatClient(number_tool_calls([Turn.call("add_numbers", a=2, b=3), Turn.final("5")]), requests)
    asyncio.run(Agent(client, name="alpha", tools=counting_tools(runs)).run("go"))
    assert seen == ["pre_model_call", "post_model_call", "pre_tool_call", "post_tool_call",
                    "pre_model_call", "post_model_call"]
    assert runs == [("add_numbers", {"a": 2, "b": 3})]
    assert call_ids == ["call_1", "call_1"]  # the model's call id, on every release (1.0 passes it to invoke too)
    for pipeline in (client._cached_function_middleware_pipeline, client._cached_chat_middleware_pipeline):
        assert pipeline is None or not pipeline.has_middlewares


@pytest.mark.parametrize("stream", [False, True], ids=["run", "stream"])
def test_two_runs_awaited_in_one_task_each_have_their_boundaries(harness: Any, stream: bool) -> None:
    """Before: the first run's execution stayed current in the caller's context after it ended,
    so a second run awaited in the same task was taken for a nested one (no START, no END)."""
    from hookport.runs import current_execution

    seen: list[str] = []
    register_hook(P.EXECUTION_START, lambda ctx: seen.append("start"))
    register_hook(P.EXECUTION_END, lambda ctx: seen.append("end"))
    agent, _, _ = fresh([Turn.final("one"), Turn.final("two")])
    left: list[Any] = []

    async def main() -> None:
        for _ in range(2):
            await (drain(agent, "go") if stream else agent.run("go"))
            left.append(current_execution())

    asyncio.run(main())
    assert seen == ["start", "end", "start", "end"]
    assert left == [None, None]
