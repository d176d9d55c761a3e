"""Microsoft Agent Framework: one ``Agent.run`` (a model request asking for a tool, the tool, the answer).

The chat client is a ``BaseChatClient`` with the framework's layers in the providers' order
whose provider request is scripted, so the run is offline and the time is the framework's own
work (its tool loop, middleware pipelines, function invocation). Runs share one event loop
(``loop.run_until_complete``), as an application's do. ``native`` runs the same agent built with
a no-op ``ChatMiddleware`` + ``FunctionMiddleware`` of its own (each awaiting ``call_next()``):
what Agent Framework's middleware costs for the same no-op PRE+POST work.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from agent_framework import (
    Agent,
    BaseChatClient,
    ChatMiddleware,
    ChatResponse,
    Content,
    FunctionInvocationLayer,
    FunctionMiddleware,
    Message,
    tool,
)
from agent_framework._middleware import ChatMiddlewareLayer

from benchmarks.adapters import FrameworkBench, NativeSwitch


class ScriptedClient(FunctionInvocationLayer, ChatMiddlewareLayer, BaseChatClient):  # type: ignore[misc]
    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        answered = any(c.type == "function_result" for m in messages for c in m.contents)

        async def answer() -> ChatResponse:
            content = (Content.from_text("5") if answered
                       else Content.from_function_call(call_id="c1", name="add", arguments={"a": 2, "b": 3}))
            return ChatResponse(messages=[Message(role="assistant", contents=[content])])

        return answer()


class NoopChat(ChatMiddleware):
    async def process(self, context: Any, call_next: Any) -> None:
        await call_next()


class NoopFunction(FunctionMiddleware):
    async def process(self, context: Any, call_next: Any) -> None:
        await call_next()


@tool
async def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


NATIVE = NativeSwitch()


def make_run() -> Callable[[], Any]:
    loop = asyncio.new_event_loop()
    plain = Agent(ScriptedClient(), name="bench", tools=[add])
    native = Agent(ScriptedClient(), name="bench", tools=[add], middleware=[NoopChat(), NoopFunction()])

    def run() -> Any:
        return loop.run_until_complete((native if NATIVE else plain).run("add 2 and 3"))

    return run


BENCH = FrameworkBench(
    adapter="agent-framework",
    make_run=make_run,
    describe="Agent.run: scripted BaseChatClient, 1 tool call",
    native=NATIVE.on,
    calls_per_round=100,
)
