"""LlamaIndex: one ``FunctionAgent.run`` (a model request asking for a tool, the tool, the answer).

The LLM is a ``FunctionCallingLLM`` whose chat answers are scripted, so the run is offline and the
time is LlamaIndex's own work (the agent workflow: its runtime, steps, memory, tool calling).
Runs share one event loop (``loop.run_until_complete``), as an application's do; the agent is
``streaming=False``. ``native`` adds a no-op event handler to LlamaIndex's root instrumentation
dispatcher (it sees every LLM and tool event): the cost of LlamaIndex's own hooks, which can only
observe.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, ChatResponse, LLMMetadata, MessageRole
from llama_index.core.instrumentation import get_dispatcher
from llama_index.core.instrumentation.event_handlers import BaseEventHandler
from llama_index.core.llms.function_calling import FunctionCallingLLM
from llama_index.core.llms.llm import ToolSelection
from llama_index.core.tools import FunctionTool

from benchmarks.adapters import FrameworkBench


class ScriptedLLM(FunctionCallingLLM):
    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(is_function_calling_model=True, model_name="scripted")

    def _prepare_chat_with_tools(self, tools: Any, user_msg: Any = None, chat_history: Any = None,
                                 **kwargs: Any) -> dict[str, Any]:
        return {"messages": list(chat_history or [])}

    def get_tool_calls_from_response(self, response: Any, error_on_no_tool_call: bool = True,
                                     **kwargs: Any) -> list[ToolSelection]:
        return [ToolSelection(**call) for call in response.message.additional_kwargs.get("calls", [])]

    async def achat(self, messages: Any, **kwargs: Any) -> ChatResponse:
        if any(m.role == MessageRole.TOOL for m in messages):
            return ChatResponse(message=ChatMessage(role="assistant", content="5"))
        call = {"tool_id": "c1", "tool_name": "add", "tool_kwargs": {"a": 2, "b": 3}}
        return ChatResponse(message=ChatMessage(role="assistant", content="", additional_kwargs={"calls": [call]}))

    def chat(self, messages: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def stream_chat(self, messages: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    async def astream_chat(self, messages: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def complete(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    async def acomplete(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def stream_complete(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    async def astream_complete(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


class NoopHandler(BaseEventHandler):
    @classmethod
    def class_name(cls) -> str:
        return "NoopHandler"

    def handle(self, event: Any, **kwargs: Any) -> None:
        return None


@contextmanager
def native_hooks() -> Iterator[None]:
    dispatcher = get_dispatcher()
    handler = NoopHandler()
    dispatcher.add_event_handler(handler)
    try:
        yield
    finally:
        dispatcher.event_handlers.remove(handler)


def make_run() -> Callable[[], Any]:
    loop = asyncio.new_event_loop()
    agent = FunctionAgent(name="bench", tools=[FunctionTool.from_defaults(add)], llm=ScriptedLLM(), streaming=False)

    async def one() -> Any:
        return await agent.run(user_msg="add 2 and 3")

    def run() -> Any:
        return loop.run_until_complete(one())

    return run


BENCH = FrameworkBench(
    adapter="llama-index",
    make_run=make_run,
    describe="FunctionAgent.run: scripted FunctionCallingLLM, 1 tool call",
    native=native_hooks,
    calls_per_round=50,
)
