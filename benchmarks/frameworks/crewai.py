"""CrewAI: one ``Crew.kickoff`` with two model calls and one tool call, offline.

The model is a scripted ``crewai.BaseLLM`` (native function calling where the
release has it, the ReAct text protocol on 1.5 / 1.6); the tool adds two numbers.
`native` registers crewai's own no-op before/after model and tool hooks, the same
work hookport's ``pre+post`` configuration does.
"""

from __future__ import annotations

import inspect
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
from hookport.adapters.crewai import drives_native_tool_calls  # noqa: E402


NATIVE = drives_native_tool_calls()


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


# -- per call, isolated: `python -m benchmarks.frameworks.crewai` ------------------------------------------


def _per_call_us(fn: Callable[[], Any], calls: int = 2000, rounds: int = 7) -> float:
    import statistics
    import time

    samples = []
    for _ in range(rounds):
        started = time.thread_time()
        for _ in range(calls):
            fn()
        samples.append((time.thread_time() - started) / calls * 1e6)
    return statistics.median(samples)


def per_call() -> str:
    """What one model call and one tool call cost on crewai's own call path, without the rest
    of a kickoff (whose ~30-50 ms and its noise hide differences of a few hundred µs).

    Model: crewai's ``get_llm_response`` with an executor (so crewai's own model hooks run
    where they would); tool: crewai's ``run_before/after_tool_call_hooks`` around a tool's
    ``run``. Each as: crewai alone, hookport installed with no hook, no-op PRE+POST hookport
    hooks, crewai's own no-op hooks doing the same.
    """
    try:
        from crewai_core.printer import Printer
    except ImportError:  # before crewai-core
        from crewai.utilities.printer import Printer
    from crewai.hooks.tool_hooks import ToolCallHookContext

    import crewai.hooks.tool_hooks as tool_hooks
    import crewai.utilities.agent_utils as agent_utils
    from hookport import InterceptionPoint as P
    from hookport import adapters, clear_all_hooks, register_hook

    agent = Agent(role="alpha", goal="g", backstory="b", llm=BenchLLM(model="bench"), tools=[AddNumbers()],
                  verbose=False)
    task = Task(description="What is 2 + 3?", expected_output="A number.", agent=agent)
    tool = AddNumbers()

    class Executor:  # what crewai's model seams read from an agent executor
        def __init__(self) -> None:
            self.messages = [{"role": "user", "content": "What is 2 + 3?"}, {"role": "assistant", "content": "x"}]
            self.agent, self.task, self.crew, self.llm, self.iterations = agent, task, None, agent.llm, 0
            self.before_llm_call_hooks: list[Any] = []
            self.after_llm_call_hooks: list[Any] = []

    printer = Printer()
    quiet = {"verbose": False} if "verbose" in inspect.signature(agent_utils.get_llm_response).parameters else {}

    def model() -> Any:
        executor = Executor()
        import crewai.hooks.llm_hooks as llm_hooks

        executor.before_llm_call_hooks = llm_hooks.get_before_llm_call_hooks()
        executor.after_llm_call_hooks = llm_hooks.get_after_llm_call_hooks()
        return agent_utils.get_llm_response(agent.llm, executor.messages, [], printer, executor_context=executor,
                                            **quiet)

    def tool_call() -> Any:
        ctx = ToolCallHookContext(tool_name="add_numbers", tool_input={"a": 2, "b": 3}, tool=None, agent=agent,
                                  task=task)
        if not tool_hooks.run_before_tool_call_hooks(ctx):
            ctx.tool_result = tool.run(a=2, b=3)
        return tool_hooks.run_after_tool_call_hooks(ctx)

    rows = []
    calls: list[tuple[str, Callable[[], Any]]] = [("model call", model)]
    if hasattr(tool_hooks, "run_before_tool_call_hooks"):  # 1.15.3+: the tool sites' shared hook runner
        calls.append(("tool call", tool_call))
    for label, fn in calls:
        figures = {}
        for config in ("crewai alone", "installed", "pre+post", "crewai hooks"):
            clear_all_hooks()
            if config in ("installed", "pre+post"):
                adapters.install("crewai")
            else:
                adapters.uninstall("crewai")
            if config == "pre+post":
                for point in (P.PRE_MODEL_CALL, P.POST_MODEL_CALL, P.PRE_TOOL_CALL, P.POST_TOOL_CALL):
                    register_hook(point, _noop)
            with native_hooks() if config == "crewai hooks" else _nothing():
                fn()
                figures[config] = _per_call_us(fn, calls=300)
        base = figures["crewai alone"]
        rows.append(f"| {label} | {base:.1f} us | " + " | ".join(
            f"+{figures[c] - base:.1f} us" for c in ("installed", "pre+post", "crewai hooks")) + " |")
    clear_all_hooks()
    adapters.uninstall("crewai")
    head = "| per call | crewai alone | installed, no hook | no-op PRE+POST (hookport) | no-op before+after (crewai) |"
    return "\n".join([head, "|---|---|---|---|---|", *rows])


@contextmanager
def _nothing() -> Iterator[None]:
    yield


if __name__ == "__main__":
    print(per_call())
