"""ctx.iterations on the openai SDK: model calls of the application's execution, from 0.

Inside ``hookport.execution(...)`` it counts the execution's model calls (whatever the requests
carry: a trimmed history, a ``previous_response_id``); without one it is the number of the
model's answers the request's conversation already holds.
"""

from __future__ import annotations

import json
from typing import Any

import hookport
from hookport import HookAborted, InterceptionPoint, on
from tests.conformance.harness import ToolCall, Turn

P = InterceptionPoint
MODEL = "scripted-model"
TOOLS = [{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
         for n in ("add_numbers", "purge_records")]
USER = [{"role": "user", "content": "go"}]


def record() -> list[int]:
    seen: list[int] = []
    on(P.PRE_MODEL_CALL)(lambda ctx: seen.append(ctx.iterations))
    return seen


def assistant(call_id: str) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": call_id, "type": "function", "function": {"name": "add_numbers", "arguments": '{"a": 1, "b": 2}'}}]}


def test_an_execution_counts_its_model_calls_whatever_the_requests_carry(client: Any, server: Any) -> None:
    server.script([Turn.final("one"), Turn.final("two"), Turn.final("three"), Turn.final("again")])
    seen = record()
    with hookport.execution("app", inputs="go"):
        for _ in range(3):  # an application that sends no history: each request is its first turn
            client.chat.completions.create(model=MODEL, messages=USER)
    with hookport.execution("app", inputs="go"):
        client.chat.completions.create(model=MODEL, messages=USER)
    assert seen == [0, 1, 2, 0]


def test_an_execution_counts_responses_chained_by_previous_response_id(client: Any, server: Any) -> None:
    server.script([Turn.final("one"), Turn.final("two")])
    seen = record()
    with hookport.execution("app", inputs="go"):
        first = client.responses.create(model=MODEL, input="go")
        client.responses.create(model=MODEL, input="and then?", previous_response_id=first.id)
    assert seen == [0, 1]


def test_without_an_execution_iterations_are_the_answers_the_conversation_holds(client: Any, server: Any) -> None:
    server.script([Turn.final("a"), Turn.final("b"), Turn.final("c")])
    seen = record()
    history: list[Any] = list(USER)
    client.chat.completions.create(model=MODEL, messages=history)
    history += [assistant("c1"), {"role": "tool", "tool_call_id": "c1", "content": "3"}]
    client.chat.completions.create(model=MODEL, messages=history)
    history += [assistant("c2"), {"role": "tool", "tool_call_id": "c2", "content": "3"}]
    client.chat.completions.create(model=MODEL, messages=history)
    assert seen == [0, 1, 2]


def test_without_an_execution_responses_output_items_are_one_answer(client: Any, server: Any) -> None:
    server.script([Turn.final("done")])
    seen = record()
    items = [{"role": "user", "content": "go"},
             {"type": "reasoning", "id": "rs_1", "summary": []},
             {"type": "function_call", "call_id": "c1", "name": "add_numbers", "arguments": "{}"},
             {"type": "function_call_output", "call_id": "c1", "output": "3"},
             {"type": "message", "role": "assistant", "content": "3 it is"},
             {"role": "user", "content": "thanks"}]
    client.responses.create(model=MODEL, input=items)
    assert seen == [2]


def test_the_adapters_own_resend_after_an_all_refused_answer_is_a_model_call(client: Any, server: Any) -> None:
    server.script([Turn(tool_calls=[ToolCall("purge_records", {"table": "users"})]), Turn.final("fine")])
    seen = record()

    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def refuse(ctx: Any) -> None:
        raise HookAborted("no", source="policy")

    answer = client.chat.completions.create(model=MODEL, messages=USER, tools=TOOLS)
    assert answer.choices[0].message.content == "fine"
    assert seen == [0, 1]


def test_a_loop_guard_stops_a_bare_loop_without_an_execution(client: Any, server: Any) -> None:
    server.script([Turn(tool_calls=[ToolCall("add_numbers", {"a": i, "b": 1})]) for i in range(8)])

    @on(P.PRE_MODEL_CALL)
    def guard(ctx: Any) -> None:
        if ctx.iterations >= 3:
            raise HookAborted("iteration limit", source="guard")

    messages: list[Any] = list(USER)
    try:
        for _ in range(8):
            message = client.chat.completions.create(model=MODEL, messages=messages, tools=TOOLS).choices[0].message
            messages.append(message)
            for call in message.tool_calls or ():
                args = json.loads(call.function.arguments)
                messages.append({"role": "tool", "tool_call_id": call.id, "content": str(args["a"] + args["b"])})
    except HookAborted as error:
        assert error.reason == "iteration limit"
    else:
        raise AssertionError("the guard never stopped the loop")
    assert len(server.requests) == 3
