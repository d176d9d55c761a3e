"""CrewAI: one ``Crew.kickoff`` with two model calls and one tool call, offline.

The model is a scripted ``crewai.BaseLLM`` (native function calling where the
release has it, the ReAct text protocol on 1.5 / 1.6); the tool adds two numbers.
`native` registers crewai's own no-op before/after model and tool hooks, the same
work hookport's ``pre+post`` configuration does.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

os.environ.setdefault("HOME", tempfile.mkdtemp(prefix="hookport-bench-crewai-"))
for _name in ("CREWAI_DISABLE_TELEMETRY", "CREWAI_DISABLE_TRACKING", "CREWAI_DISABLE_VERSION_CHECK", "CREWAI_TESTING"):
    os.environ.setdefault(_name, "true")
os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")

from crewai import Agent, BaseLLM, Crew, Process, Task  # noqa: E402
from crewai.tools import BaseTool  # noqa: E402
from pydantic import BaseModel, Field  # noqa: E402

from benchmarks.adapters import FrameworkBench  # noqa: E402


def _native_tools_supported() -> bool:
    from pathlib import Path

    import crewai

    root = Path(crewai.__file__).parent
    for relative in ("agents/agent_executor.py", "agents/crew_agent_executor.py", "experimental/agent_executor.py"):
        path = root / relative
        if path.exists() and "native_tool" in path.read_text(encoding="utf-8"):
            return True
    return False


NATIVE = _native_tools_supported()


class BenchLLM(BaseLLM):
    """Asks for the tool on the first call of a conversation, answers on the second."""

    def call(self, messages: Any, tools: Any = None, callbacks: Any = None, available_functions: Any = None,
             from_task: Any = None, from_agent: Any = None, response_model: Any = None, **kwargs: Any) -> Any:
        answered = sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "assistant")
        if answered == 0 and not any(isinstance(m, dict) and m.get("role") == "tool" for m in messages):
            if NATIVE and tools:
                return [{"id": "call_1", "type": "function",
                         "function": {"name": "add_numbers", "arguments": json.dumps({"a": 2, "b": 3})}}]
            if not NATIVE:
                return 'Thought: use the tool\nAction: add_numbers\nAction Input: {"a": 2, "b": 3}'
        return "The answer is 5." if NATIVE else "Thought: done\nFinal Answer: The answer is 5."

    def supports_function_calling(self) -> bool:
        return NATIVE

    def supports_stop_words(self) -> bool:
        return False

    def get_context_window_size(self) -> int:
        return 128000


class AddInput(BaseModel):
    a: int = Field(description="first number")
    b: int = Field(description="second number")


class AddNumbers(BaseTool):
    name: str = "add_numbers"
    description: str = "Add two integers."
    args_schema: type[BaseModel] = AddInput

    def _run(self, a: int, b: int) -> str:
        return str(a + b)


def _kickoff() -> Any:
    """A fresh crew per run: crewai snapshots its model-hook lists into an agent's executor
    on first use, so a reused crew would never run the `native` configuration's model hooks."""
    agent = Agent(role="alpha", goal="Add numbers.", backstory="A benchmark agent.", llm=BenchLLM(model="bench"),
                  tools=[AddNumbers()], max_iter=4, max_retry_limit=0, allow_delegation=False, cache=False,
                  verbose=False)
    task = Task(description="What is 2 + 3?", expected_output="A number.", agent=agent)
    crew = Crew(agents=[agent], tasks=[task], process=Process.sequential, verbose=False, cache=False)
    return crew.kickoff()


def make_run() -> Callable[[], Any]:
    return _kickoff


def _noop(ctx: Any) -> None:
    return None


@contextmanager
def native_hooks() -> Iterator[None]:
    """crewai's own no-op model and tool hooks (its legacy registration works on every release)."""
    import crewai.hooks as hooks

    registrations = (
        (hooks.register_before_llm_call_hook, hooks.unregister_before_llm_call_hook),
        (hooks.register_after_llm_call_hook, hooks.unregister_after_llm_call_hook),
        (hooks.register_before_tool_call_hook, hooks.unregister_before_tool_call_hook),
        (hooks.register_after_tool_call_hook, hooks.unregister_after_tool_call_hook),
    )
    for register, _ in registrations:
        register(_noop)
    try:
        yield
    finally:
        for _, unregister in registrations:
            unregister(_noop)


BENCH = FrameworkBench(
    adapter="crewai",
    make_run=make_run,
    describe="Crew.kickoff: 2 model calls, 1 tool call",
    native=native_hooks,
    calls_per_round=20,
)
