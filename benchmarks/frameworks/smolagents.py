"""smolagents: one ``ToolCallingAgent.run`` (a model request asking for a tool, the tool, a final_answer request).

The model is a ``smolagents.models.Model`` subclass answering in process (no
network); logging is off. smolagents has no model or tool hooks of its own:
``native`` registers a no-op ``step_callbacks`` callback (after each step), the
closest thing it has.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

from smolagents import ToolCallingAgent, models, tool  # noqa: E402
from smolagents.models import ChatMessage, ChatMessageToolCall, MessageRole, Model  # noqa: E402

from benchmarks.adapters import FrameworkBench  # noqa: E402

_Function = getattr(models, "ChatMessageToolCallFunction", None) or models.ChatMessageToolCallDefinition


def _call(name: str, arguments: dict[str, Any]) -> Any:
    return ChatMessageToolCall(id=f"call_{name}", type="function", function=_Function(name=name, arguments=arguments))


class _Model(Model):
    def __init__(self) -> None:
        super().__init__(model_id="bench")

    def generate(self, messages: Any, stop_sequences: Any = None, response_format: Any = None,
                 tools_to_call_from: Any = None, **kwargs: Any) -> ChatMessage:
        answered = len(messages) > 2
        call = _call("final_answer", {"answer": "5"}) if answered else _call("add_numbers", {"a": 2, "b": 3})
        return ChatMessage(role=MessageRole.ASSISTANT, content=None, tool_calls=[call])


@tool
def add_numbers(a: int, b: int) -> str:
    """Add two integers.

    Args:
        a: the first number
        b: the second number
    """
    return str(a + b)


_callbacks: list[Callable[..., Any]] = []


def _step_callback(step: Any, agent: Any = None) -> None:
    for callback in _callbacks:
        callback(step, agent=agent)


def make_run() -> Callable[[], Any]:
    agent = ToolCallingAgent(tools=[add_numbers], model=_Model(), name="bench", max_steps=3, verbosity_level=-1,
                             step_callbacks=[_step_callback])

    def run() -> Any:
        return agent.run("What is 2 + 3?")

    return run


@contextmanager
def native() -> Iterator[None]:
    _callbacks.append(lambda step, agent=None: None)
    try:
        yield
    finally:
        _callbacks.clear()


BENCH = FrameworkBench(
    adapter="smolagents",
    make_run=make_run,
    describe="ToolCallingAgent.run: model -> tool -> model (Model subclass)",
    native=native,
    calls_per_round=100,
)
