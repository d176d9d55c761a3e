"""LangChain: one agent invocation (a model call, a tool call, a model call), offline.

    python benchmarks/adapters.py --only langchain     # the agent run, next to the other frameworks
    python benchmarks/frameworks/langchain.py          # also a bare chat model `invoke`, a `@tool` invoke,
                                                       # and hookport's own microseconds per call

The agent is langchain's `create_agent` (langgraph's `create_react_agent` on the 0.3 line, an
LCEL loop with langchain-core alone) on a scripted chat model that asks for ``add_numbers`` and
then answers. `native` runs the same no-op work through LangChain's own hooks: an
`AgentMiddleware` with ``before_model`` / ``after_model`` / ``wrap_tool_call`` where
`create_agent` exists, else a callback handler (``on_chat_model_start`` / ``on_llm_end`` /
``on_tool_start`` / ``on_tool_end``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

os.environ.setdefault("LANGSMITH_TRACING", "false")
os.environ.setdefault("LANGCHAIN_TRACING_V2", "false")
if sys.path and Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
    sys.path.pop(0)  # run as a script: this file must not shadow the `langchain` package
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from langchain_core.callbacks import BaseCallbackHandler  # noqa: E402
from langchain_core.language_models.chat_models import BaseChatModel  # noqa: E402
from langchain_core.language_models.fake_chat_models import FakeListChatModel  # noqa: E402
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage  # noqa: E402
from langchain_core.outputs import ChatGeneration, ChatResult  # noqa: E402
from langchain_core.tools import tool  # noqa: E402

from benchmarks.adapters import FrameworkBench  # noqa: E402


class BenchChat(BaseChatModel):
    """Asks for ``add_numbers`` until a tool answered, then gives the answer."""

    @property
    def _llm_type(self) -> str:
        return "bench"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        if messages[-1].type == "tool":
            answer = AIMessage(content=f"The answer is {messages[-1].content}.")
        else:
            answer = AIMessage(content="", tool_calls=[{"name": "add_numbers", "args": {"a": 2, "b": 3},
                                                         "id": "call_1", "type": "tool_call"}])
        return ChatResult(generations=[ChatGeneration(message=answer)])


@tool
def add_numbers(a: int, b: int) -> str:
    """Add two integers."""
    return str(a + b)


def _agent(middleware: list[Any] | None = None) -> Any:
    try:
        from langchain.agents import create_agent
    except ImportError:
        create_agent = None
    if create_agent is not None:
        return create_agent(BenchChat(), [add_numbers], name="bench", middleware=middleware or ())
    try:
        from langgraph.prebuilt import create_react_agent
    except ImportError:
        return _lcel_agent()
    return create_react_agent(BenchChat(), [add_numbers], name="bench")


def _lcel_agent() -> Any:
    from langchain_core.runnables import RunnableLambda

    model = BenchChat()

    def loop(state: dict[str, Any]) -> dict[str, Any]:
        messages = list(state["messages"])
        while True:
            answer = model.invoke(messages)
            messages.append(answer)
            if not answer.tool_calls:
                return {"messages": messages}
            messages.extend(add_numbers.invoke({**c, "type": "tool_call"}) for c in answer.tool_calls)

    return RunnableLambda(lambda state: state) | RunnableLambda(loop)


class _NoopHandler(BaseCallbackHandler):
    def on_chat_model_start(self, *args: Any, **kwargs: Any) -> None:
        return None

    def on_llm_end(self, *args: Any, **kwargs: Any) -> None:
        return None

    def on_tool_start(self, *args: Any, **kwargs: Any) -> None:
        return None

    def on_tool_end(self, *args: Any, **kwargs: Any) -> None:
        return None


def _native_middleware() -> list[Any] | None:
    try:
        from langchain.agents.middleware import AgentMiddleware
    except ImportError:
        return None

    class Noop(AgentMiddleware):  # type: ignore[misc]
        def before_model(self, state: Any, runtime: Any) -> None:
            return None

        def after_model(self, state: Any, runtime: Any) -> None:
            return None

        def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
            return handler(request)

    return [Noop()]


_native = {"on": False}


@contextmanager
def _native_hooks() -> Iterator[None]:
    _native["on"] = True
    try:
        yield
    finally:
        _native["on"] = False


def make_agent_run() -> Callable[[], Any]:
    plain = _agent()
    middleware = _native_middleware()
    native_agent = _agent(middleware) if middleware is not None else None
    handler = _NoopHandler()

    def run() -> Any:
        inputs = {"messages": [HumanMessage("What is 2 + 3?")]}
        if not _native["on"]:
            return plain.invoke(inputs)
        if native_agent is not None:
            return native_agent.invoke(inputs)
        return plain.invoke(inputs, config={"callbacks": [handler]})

    return run


def make_model_run() -> Callable[[], Any]:
    model = FakeListChatModel(responses=["hello there"])
    handler = _NoopHandler()
    return lambda: model.invoke("hi", config={"callbacks": [handler]}) if _native["on"] else model.invoke("hi")


def make_tool_run() -> Callable[[], Any]:
    handler = _NoopHandler()
    args = {"a": 2, "b": 3}
    return lambda: add_numbers.invoke(args, config={"callbacks": [handler]}) if _native["on"] else add_numbers.invoke(args)


BENCH = FrameworkBench(
    adapter="langchain",
    make_run=make_agent_run,
    describe="agent invoke: model, tool, model",
    native=_native_hooks,
    calls_per_round=60,
)

MODEL_INVOKE = FrameworkBench("langchain", make_model_run, "FakeListChatModel.invoke", _native_hooks, 1000)
TOOL_INVOKE = FrameworkBench("langchain", make_tool_run, "@tool invoke", _native_hooks, 1000)


def own_cost(calls: int = 20000, rounds: int = 5) -> list[tuple[str, float]]:
    """hookport's own microseconds per call: the installed wrappers around a do-nothing original
    (LangChain's own per-call work is large and noisy on a shared machine; this is what the ratios are made of)."""
    import time

    import wrapt

    from hookport import InterceptionPoint as P
    from hookport import clear_all_hooks, register_hook
    from hookport.adapters.langchain import _models, _tools

    result = ChatResult(generations=[ChatGeneration(message=AIMessage("hello there"))])
    messages = [HumanMessage("hi")]

    def chat_original(*args: Any, **kwargs: Any) -> Any:
        return result

    def tool_original(*args: Any, **kwargs: Any) -> Any:
        return "5"

    class Owner:  # the wrappers bound as methods, exactly as the adapter installs them
        chat = wrapt.FunctionWrapper(chat_original, _models.chat_generate)
        run = wrapt.FunctionWrapper(tool_original, _tools.tool_run)

    model = FakeListChatModel(responses=["hello there"])
    chat = Owner.__dict__["chat"].__get__(model, type(model))
    run = Owner.__dict__["run"].__get__(add_numbers, type(add_numbers))

    def best(call: Callable[[], Any]) -> float:
        timings = []
        for _ in range(rounds):
            started = time.thread_time()
            for _ in range(calls):
                call()
            timings.append((time.thread_time() - started) / calls)
        return min(timings) * 1e6

    rows = []
    for label, bare, patched, points in (
        ("model call", lambda: chat_original(messages), lambda: chat(messages), (P.PRE_MODEL_CALL, P.POST_MODEL_CALL)),
        ("tool call", lambda: tool_original({"a": 2, "b": 3}), lambda: run({"a": 2, "b": 3}), (P.PRE_TOOL_CALL, P.POST_TOOL_CALL)),
    ):
        for config in ("installed, no hooks", "no-op PRE+POST pair"):
            clear_all_hooks()
            if config != "installed, no hooks":
                for point in points:
                    register_hook(point, lambda ctx: None)
            rows.append((f"{label}: {config}", best(patched) - best(bare)))
    clear_all_hooks()
    return rows


def bytecodes() -> list[tuple[str, float, float, float]]:
    """Python bytecodes executed per call (unpatched, installed, no-op PRE+POST pairs): a count that
    machine load cannot move. LangChain's work in C (pydantic-core) is not counted, so these ratios
    overstate hookport's share of the time; the extra bytecodes are hookport's own."""
    from hookport import InterceptionPoint as P
    from hookport import adapters, clear_all_hooks, register_hook

    executed = [0]

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        frame.f_trace_opcodes = True
        if event == "opcode":
            executed[0] += 1
        return tracer

    def count(run: Callable[[], Any], calls: int = 3) -> float:
        run()
        executed[0] = 0
        sys.settrace(tracer)
        try:
            for _ in range(calls):
                run()
        finally:
            sys.settrace(None)
        return executed[0] / calls

    rows = []
    for bench in (BENCH, MODEL_INVOKE, TOOL_INVOKE):
        run = bench.make_run()
        counts = []
        for config in ("unpatched", "installed", "pre+post"):
            clear_all_hooks()
            if config == "unpatched":
                adapters.uninstall("langchain")
            else:
                adapters.install("langchain")
            if config == "pre+post":
                for point in (P.PRE_MODEL_CALL, P.POST_MODEL_CALL, P.PRE_TOOL_CALL, P.POST_TOOL_CALL):
                    register_hook(point, lambda ctx: None)
            counts.append(count(run))
        rows.append((bench.describe, *counts))
    clear_all_hooks()
    adapters.uninstall("langchain")
    return rows


def main() -> int:
    import argparse

    import langchain_core

    from benchmarks.adapters import measure, table

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    options = parser.parse_args()
    print(f"langchain-core {langchain_core.__version__}, {options.rounds} interleaved rounds, thread CPU time\n")
    print(table([measure(bench, options.rounds) for bench in (BENCH, MODEL_INVOKE, TOOL_INVOKE)]))
    print("\nhookport's own cost per call (wrappers around a do-nothing original, best of 5)")
    for label, micros in own_cost():
        print(f"  {label:<36} {micros:6.2f} us")
    print("\nPython bytecodes per run (deterministic; LangChain's C work not counted)")
    for describe, unpatched, installed, paired in bytecodes():
        print(f"  {describe:<36} {unpatched:8.0f}   installed +{installed - unpatched:.0f} ({installed / unpatched:.3f}x)"
              f"   pre+post +{paired - unpatched:.0f} ({paired / unpatched:.3f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
