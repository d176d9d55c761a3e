"""What the LangChain adapter costs on the hot path.

    python benchmarks/langchain_overhead.py [--calls 5000] [--rounds 7]

`FakeListChatModel.invoke` and a `@tool` invoke, each measured unpatched,
installed with no hooks, with one no-op PRE hook, and with a no-op PRE+POST
pair. Configurations are interleaved round by round (the best round counts) so
machine drift hits them alike; ratios are to the unpatched run in the same
process, both from the best round and as the median of ratios measured
round by round (robust on a shared machine). Goals: installed-no-hooks within 1.02x, PRE+POST within 1.10x.

Time is this thread's CPU time (`time.thread_time`), so other processes on a
busy machine do not count against one configuration; ``--wall`` uses
`time.perf_counter` instead.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

os.environ.setdefault("LANGSMITH_TRACING", "false")
os.environ.setdefault("LANGCHAIN_TRACING_V2", "false")

from langchain_core.language_models.fake_chat_models import FakeListChatModel  # noqa: E402
from langchain_core.tools import tool  # noqa: E402

from hookport import InterceptionPoint as P  # noqa: E402
from hookport import adapters, clear_all_hooks, register_hook  # noqa: E402

CONFIGS = ("unpatched", "installed, no hooks", "1 no-op PRE hook", "PRE + POST pair")


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def noop(ctx: Any) -> None:
    return None


def configure(config: str, pre: P, post: P) -> None:
    clear_all_hooks()
    if config == "unpatched":
        adapters.uninstall("langchain")
        return
    adapters.install("langchain")
    if config in ("1 no-op PRE hook", "PRE + POST pair"):
        register_hook(pre, noop)
    if config == "PRE + POST pair":
        register_hook(post, noop)


CLOCK: Callable[[], float] = time.thread_time


def timed(call: Callable[[], Any], calls: int) -> float:
    """Seconds per call for `calls` calls."""
    gc.collect()
    gc.disable()
    try:
        started = CLOCK()
        for _ in range(calls):
            call()
        return (CLOCK() - started) / calls
    finally:
        gc.enable()


def measure(call: Callable[[], Any], pre: P, post: P, calls: int, rounds: int) -> list[tuple[str, float, float]]:
    """(configuration, best seconds per call, median of the per-round ratios to unpatched)."""
    times: dict[str, list[float]] = {config: [] for config in CONFIGS}
    for config in CONFIGS:  # warm every path once
        configure(config, pre, post)
        timed(call, max(calls // 10, 50))
    for round_ in range(rounds):
        order = CONFIGS if round_ % 2 == 0 else tuple(reversed(CONFIGS))  # no configuration always goes first
        for config in order:
            configure(config, pre, post)
            times[config].append(timed(call, calls))
    configure("unpatched", pre, post)
    base = times["unpatched"]
    return [
        (config, min(times[config]), statistics.median(t / b for t, b in zip(times[config], base)))
        for config in CONFIGS
    ]


def table(title: str, rows: list[tuple[str, float, float]]) -> str:
    base = rows[0][1]
    lines = [title, f"  {'configuration':<22} {'best/call':>10} {'best ratio':>11} {'median paired ratio':>20}"]
    for config, seconds, paired in rows:
        lines.append(f"  {config:<22} {seconds * 1e6:>8.1f}us {seconds / base:>11.3f} {paired:>20.3f}")
    return "\n".join(lines)


def adapter_cost(calls: int, rounds: int) -> list[tuple[str, float, float]]:
    """The adapter's own microseconds per call, measured on the wrappers around a do-nothing original.

    LangChain's own per-call work is large and noisy on a shared machine; this isolates what
    hookport adds, which is what the ratios above are made of.
    """
    from langchain_core.messages import AIMessage, HumanMessage
    from langchain_core.outputs import ChatGeneration, ChatResult

    from hookport.adapters.langchain import _models, _tools

    result = ChatResult(generations=[ChatGeneration(message=AIMessage("hello there"))])
    model = FakeListChatModel(responses=["hello there"])
    messages = [HumanMessage("hi")]

    def chat_original(*args: Any, **kwargs: Any) -> Any:
        return result

    def tool_original(*args: Any, **kwargs: Any) -> Any:
        return 5

    import wrapt

    class Owner:  # the wrappers bound as methods, exactly as the adapter installs them
        chat = wrapt.FunctionWrapper(chat_original, _models.chat_generate)
        run = wrapt.FunctionWrapper(tool_original, _tools.tool_run)

    patched_chat = Owner.__dict__["chat"].__get__(model, type(model))
    patched_run = Owner.__dict__["run"].__get__(add, type(add))
    cases = {
        "model": (lambda: chat_original(messages), lambda: patched_chat(messages), P.PRE_MODEL_CALL, P.POST_MODEL_CALL),
        "tool": (lambda: tool_original({"a": 2, "b": 3}), lambda: patched_run({"a": 2, "b": 3}), P.PRE_TOOL_CALL, P.POST_TOOL_CALL),
    }

    rows = []
    for name, (bare, wrapped, pre, post) in cases.items():
        for config in CONFIGS[1:]:
            configure(config, pre, post)
            base = min(timed(bare, calls) for _ in range(rounds))
            cost = min(timed(wrapped, calls) for _ in range(rounds))
            rows.append((f"{name}: {config}", (cost - base) * 1e6, 0.0))
    configure("unpatched", P.PRE_MODEL_CALL, P.POST_MODEL_CALL)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--wall", action="store_true", help="wall-clock time instead of thread CPU time")
    options = parser.parse_args()
    global CLOCK
    if options.wall:
        CLOCK = time.perf_counter

    import langchain_core

    model = FakeListChatModel(responses=["hello there"])
    print(f"langchain-core {langchain_core.__version__}; best of {options.rounds} rounds x {options.calls} calls, {'wall' if options.wall else 'thread CPU'} time\n")
    chat = measure(
        lambda: model.invoke("hi"), P.PRE_MODEL_CALL, P.POST_MODEL_CALL, options.calls, options.rounds
    )
    print(table("FakeListChatModel.invoke", chat))
    print()
    tools = measure(
        lambda: add.invoke({"a": 2, "b": 3}), P.PRE_TOOL_CALL, P.POST_TOOL_CALL, options.calls, options.rounds
    )
    print(table("@tool add.invoke", tools))
    print()
    print("hookport's own cost per call (wrapper around a do-nothing original; add it to the unpatched time)")
    unpatched = {"model": chat[0][1], "tool": tools[0][1]}
    for label, micros, _ in adapter_cost(options.calls, options.rounds):
        kind = label.split(":")[0]
        estimate = (unpatched[kind] + micros / 1e6) / unpatched[kind]
        print(f"  {label:<34} {micros:>6.1f}us  -> {estimate:.3f}x of the unpatched call")


if __name__ == "__main__":
    main()
