"""ctx.iterations on the anthropic SDK: model calls of the application's execution, from 0.

Inside ``hookport.execution(...)`` it counts the execution's model calls (whatever history the
requests carry); without one it is the number of assistant turns the request's messages hold.
"""

from __future__ import annotations

from typing import Any

import hookport
from hookport import InterceptionPoint, on
from hookport.compat.crewai import before_llm_call
from tests.conformance.harness import ToolCall, Turn

P = InterceptionPoint
MODEL = "claude-scripted"
TOOLS = [{"name": n, "input_schema": {"type": "object"}} for n in ("add_numbers", "purge_records")]
USER = [{"role": "user", "content": "go"}]


def record() -> list[int]:
    seen: list[int] = []
    on(P.PRE_MODEL_CALL)(lambda ctx: seen.append(ctx.iterations))
    return seen


def exchange(call_id: str) -> list[dict[str, Any]]:
    return [{"role": "assistant", "content": [{"type": "text", "text": "adding"},
                                              {"type": "tool_use", "id": call_id, "name": "add_numbers",
                                               "input": {"a": 1, "b": 2}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id, "content": "3"}]}]


def test_an_execution_counts_its_model_calls_whatever_the_requests_carry(client: Any, server: Any) -> None:
    server.script([Turn.final("one"), Turn.final("two"), Turn.final("three"), Turn.final("again")])
    seen = record()
    with hookport.execution("app", inputs="go"):
        for _ in range(3):  # no history sent: each request looks like a first turn
            client.messages.create(model=MODEL, max_tokens=64, messages=USER)
    with hookport.execution("app", inputs="go"):
        client.messages.create(model=MODEL, max_tokens=64, messages=USER)
    assert seen == [0, 1, 2, 0]


def test_without_an_execution_iterations_are_the_assistant_turns_the_messages_hold(client: Any, server: Any) -> None:
    server.script([Turn.final("a"), Turn.final("b"), Turn.final("c")])
    seen = record()
    client.messages.create(model=MODEL, max_tokens=64, messages=USER)
    client.messages.create(model=MODEL, max_tokens=64, messages=USER + exchange("t1"))
    client.messages.create(model=MODEL, max_tokens=64, messages=USER + exchange("t1") + exchange("t2"))
    assert seen == [0, 1, 2]


def test_the_legacy_guard_returning_false_stops_a_bare_loop_without_an_execution(client: Any, server: Any) -> None:
    """CrewAI's documented ``@before_llm_call`` guard, on the application's own loop, no execution marked."""
    server.script([Turn(tool_calls=[ToolCall("add_numbers", {"a": i, "b": 1})]) for i in range(8)])

    @before_llm_call
    def stop_runaway(context: Any) -> Any:
        return False if context.iterations >= 3 else None

    messages: list[Any] = list(USER)
    stopped: Exception | None = None
    try:
        while len(messages) < 20:
            answer = client.messages.create(model=MODEL, max_tokens=64, messages=messages, tools=TOOLS)
            results = [{"type": "tool_result", "tool_use_id": b.id, "content": "ok"}
                       for b in answer.content if b.type == "tool_use"]
            messages += [{"role": "assistant", "content": answer.content}, {"role": "user", "content": results}]
    except Exception as error:  # noqa: BLE001 - whatever the legacy refusal raises, it ends the loop
        stopped = error
    assert stopped is not None and len(server.requests) == 3, (stopped, len(server.requests))
