"""What the SDK adapters (``openai``, ``anthropic``) themselves cost per tool-loop turn, in isolation.

    python benchmarks/sdk_overhead.py --sdk openai [--calls 5000] [--rounds 7]

A turn on the scripted local server (benchmarks/frameworks/openai.py) takes 5-6 ms of HTTP,
so tens of microseconds of hookport move with the machine. This replays the adapter's wrapper
of the same turn (a request that asks for ``add_numbers``, the request carrying its result
back) around an SDK method that returns a prebuilt answer, and reports hookport's own time per
turn and per hooked call (two model calls and one tool call a turn):

- ``installed, no hooks``: the pass-through path;
- ``PRE+POST no-op pairs``: no-op model and tool hooks (messages never converted for hooks).

Time is this thread's CPU time, best of `--rounds` rounds.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._timing import thread_time_per_call  # noqa: E402
from hookport import InterceptionPoint as P  # noqa: E402
from hookport import adapters, clear_all_hooks, register_hook  # noqa: E402

HOOKED_CALLS = 3
"""Model and tool calls one turn hands the hooks (two requests, one tool call)."""


def _noop(*args: Any, **kwargs: Any) -> None:
    return None


def _openai_turn() -> Callable[[], Any]:
    from openai.types.chat import ChatCompletion

    from hookport.adapters import openai_sdk

    def completion(message: dict[str, Any]) -> Any:
        return ChatCompletion.model_validate({"id": "c", "object": "chat.completion", "created": 0, "model": "m",
                                              "choices": [{"index": 0, "message": message,
                                                           "finish_reason": "stop"}]})

    asks = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "add_numbers", "arguments": '{"a": 2, "b": 3}'}}]}
    tools = [{"type": "function", "function": {"name": "add_numbers", "parameters": {"type": "object"}}}]

    def turn() -> Any:
        first = completion(asks)  # a fresh answer each turn, as the SDK parses one per request
        messages: list[Any] = [{"role": "user", "content": "What is 2 + 3?"}]
        message = openai_sdk.chat_request(lambda **k: first, None, (), {"model": "m", "messages": messages,
                                                                        "tools": tools}).choices[0].message
        messages.append(message)
        for call in message.tool_calls or ():
            args = json.loads(call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": str(args["a"] + args["b"])})
        final = completion({"role": "assistant", "content": "done"})
        return openai_sdk.chat_request(lambda **k: final, None, (), {"model": "m", "messages": messages,
                                                                     "tools": tools})

    return turn


def _anthropic_turn() -> Callable[[], Any]:
    from anthropic.types import Message

    from hookport.adapters import anthropic_sdk

    def answer(content: list[dict[str, Any]]) -> Any:
        return Message.model_validate({"id": "m", "type": "message", "role": "assistant", "model": "m",
                                       "content": content, "stop_reason": "end_turn", "stop_sequence": None,
                                       "usage": {"input_tokens": 1, "output_tokens": 1}})

    tools = [{"name": "add_numbers", "input_schema": {"type": "object"}}]

    def turn() -> Any:
        first = answer([{"type": "tool_use", "id": "toolu_1", "name": "add_numbers", "input": {"a": 2, "b": 3}}])
        messages: list[Any] = [{"role": "user", "content": "What is 2 + 3?"}]
        got = anthropic_sdk.create(lambda **k: first, None, (), {"model": "m", "max_tokens": 64,
                                                                 "messages": messages, "tools": tools})
        messages.append({"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in got.content]})
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": b.id, "content": str(b.input["a"] + b.input["b"])}
            for b in got.content if b.type == "tool_use"]})
        final = answer([{"type": "text", "text": "done"}])
        return anthropic_sdk.create(lambda **k: final, None, (), {"model": "m", "max_tokens": 64,
                                                                  "messages": messages, "tools": tools})

    return turn



def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sdk", choices=("openai", "anthropic"), required=True)
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=7)
    options = parser.parse_args(argv)
    adapter = options.sdk
    turn = _openai_turn() if adapter == "openai" else _anthropic_turn()
    best: dict[str, float] = {}
    for _ in range(options.rounds):
        for config in ("bare", "installed, no hooks", "PRE+POST no-op pairs"):
            clear_all_hooks()
            adapters.uninstall(adapter) if config == "bare" else adapters.install(adapter)
            if config.startswith("PRE+POST"):
                for point in (P.PRE_MODEL_CALL, P.POST_MODEL_CALL, P.PRE_TOOL_CALL, P.POST_TOOL_CALL):
                    register_hook(point, _noop)
            thread_time_per_call(turn, max(1, options.calls // 10))
            elapsed = thread_time_per_call(turn, options.calls)
            best[config] = min(best.get(config, elapsed), elapsed)
    clear_all_hooks()
    adapters.uninstall(adapter)
    bare = best.pop("bare")
    print(f"{adapter}: the turn's own work without hookport {bare * 1e6:.1f} us")
    for config, elapsed in best.items():
        added = (elapsed - bare) * 1e6
        print(f"  {config:24s} +{added:6.1f} us per turn, +{added / HOOKED_CALLS:5.1f} us per hooked call")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
