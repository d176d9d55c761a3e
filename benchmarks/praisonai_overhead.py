"""What the PraisonAI adapter itself costs per ``Agent.chat`` turn, measured in isolation.

    python benchmarks/praisonai_overhead.py [--calls 20000] [--rounds 7]

A PraisonAI turn takes ~10 ms even on an in-process model (benchmarks/frameworks/praisonai.py),
so a few microseconds of hookport disappear in the noise of a shared machine. This
script replays the adapter's wrappers of one turn (``chat``, ``_format_tools_for_completion``,
two ``chat.completions.create`` requests, ``execute_tool`` and PraisonAI's tool
attempt) around no-op framework calls, with PraisonAI's real message list, and
reports hookport's own time per turn:

- ``installed, no hooks``: the fast paths;
- ``PRE+POST no-op pairs``: no-op model and tool hooks (the messages are never converted);
- ``pair reading ctx.messages``: the same, with the PRE hook reading ``ctx.messages``
  (the OpenAI-style copy every request paid for before it was built lazily).

Time is this thread's CPU time, best of `--rounds` rounds.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._timing import thread_time_per_call  # noqa: E402
from benchmarks.frameworks import praisonai as bench  # noqa: E402  (environment, offline clients)

from hookport import InterceptionPoint as P  # noqa: E402
from hookport import adapters, clear_all_hooks, register_hook  # noqa: E402
from hookport.adapters.praisonai import _models, _runs, _tools  # noqa: E402


def _noop(*args: Any, **kwargs: Any) -> Any:
    return None


def _completion(*args: Any, **kwargs: Any) -> Any:
    return COMPLETION


COMPLETION: Any = None


def one_turn(agent: Any, messages: list[Any]) -> Callable[[], None]:
    """The adapter's wrappers of one chat turn, in the order PraisonAI calls them."""
    request = {"model": "gpt-4o-mini", "messages": messages, "tools": [], "stream": False}

    def turn() -> None:
        _runs.agent_entry(lambda prompt: _inner(agent, request), agent, ("What is 2 + 3?",), {})

    return turn


def _inner(agent: Any, request: dict[str, Any]) -> None:
    _tools.tool_definitions(_noop, agent, (), {})
    _models.chat_request(_completion, None, (), request)
    _tools.tool_call_wrapper(lambda *a, **k: _tools.tool_attempt(_noop, agent, a, k), agent,
                             ("add_numbers", {"a": 2, "b": 3}, "call_1"), {})
    _models.chat_request(_completion, None, (), request)



def main(argv: list[str] | None = None) -> int:
    global COMPLETION
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)

    from openai.types.chat import ChatCompletion
    from praisonaiagents import Agent

    COMPLETION = ChatCompletion.model_validate({
        "id": "c", "object": "chat.completion", "created": 0, "model": "gpt-4o-mini",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "5"}}]})
    agent = Agent(name="bench", instructions="Use the tools.", model="gpt-4o-mini", tools=[bench.add_numbers],
                  output="silent")
    messages = [{"role": "system", "content": "Use the tools. " * 20}, {"role": "user", "content": "What is 2 + 3?"},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "add_numbers",
                                                                      "arguments": '{"a": 2, "b": 3}'}}]},
                {"role": "tool", "tool_call_id": "call_1", "content": "5"}]
    turn = one_turn(agent, messages)
    adapters.install("praisonai")

    def configure(name: str) -> None:
        clear_all_hooks()
        if name == "installed, no hooks":
            return
        for point in (P.POST_MODEL_CALL, P.PRE_TOOL_CALL, P.POST_TOOL_CALL):
            register_hook(point, lambda ctx: None)
        if name == "pair reading ctx.messages":
            register_hook(P.PRE_MODEL_CALL, lambda ctx: ctx.messages and None)
        else:
            register_hook(P.PRE_MODEL_CALL, lambda ctx: None)

    configs = ("installed, no hooks", "PRE+POST no-op pairs", "pair reading ctx.messages")
    best = {c: float("inf") for c in configs}
    bare = float("inf")
    for _ in range(args.rounds):
        clear_all_hooks()
        bare = min(bare, thread_time_per_call(lambda: _inner_bare(), args.calls))
        for config in configs:
            configure(config)
            best[config] = min(best[config], thread_time_per_call(turn, args.calls))
    clear_all_hooks()
    adapters.uninstall("praisonai")
    print("| configuration | hookport per turn |")
    print("|---|---|")
    for config in configs:
        print(f"| {config} | {(best[config] - bare) * 1e6:.1f} us |")
    return 0


def _inner_bare() -> None:
    """The same framework calls without any wrapper (subtracted from every configuration)."""
    _noop()
    _completion()
    _noop()
    _completion()
    _noop()


if __name__ == "__main__":
    raise SystemExit(main())
