"""Bypass attempts through WebSocket connections: a Realtime session and the Responses WebSocket mode.

Each test is an application loop that runs whatever call the events it reads ask for, and
counts the refused tool's real executions: 0 with the deny, 1 in its twin without it. The
server is `SocketServer` (websockets, 127.0.0.1), sending the events the real API streams.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

openai = pytest.importorskip("openai")
pytest.importorskip("websockets")

from hookport import InterceptionPoint, on  # noqa: E402
from tests.adversarial import kit  # noqa: E402
from tests.adversarial.openai import sockets  # noqa: E402
from tests.adversarial.openai.sockets import SocketServer  # noqa: E402
from tests.adversarial.openai.test_bypass import installed  # noqa: E402, F401 - the autouse install fixture

P = InterceptionPoint
DENY = [False, True]
SERVER = SocketServer()
TOOLS = [{"type": "function", "name": "purge_records", "parameters": {"type": "object", "properties": {}}}]
Runs = list[tuple[str, dict[str, Any]]]


def client(is_async: bool = False) -> Any:
    cls = openai.AsyncOpenAI if is_async else openai.OpenAI
    return cls(base_url=f"http://127.0.0.1:{SERVER.port}/v1", api_key="sk-offline-dummy",
               websocket_base_url=f"ws://127.0.0.1:{SERVER.port}/v1", max_retries=0)


def purges(runs: Runs) -> int:
    return sum(1 for name, _ in runs if name == "purge_records")


def sent_outputs() -> str:
    return json.dumps(SERVER.received)


# -- Realtime ------------------------------------------------------------------------------------------------


def _realtime_event(event: Any, runs: Runs, conn: Any, pending: list[bool]) -> bool:
    """One event of the loop: run a call, answer it; True when the session's turn is over."""
    kind = event["type"] if isinstance(event, dict) else event.type
    if kind == "response.function_call_arguments.done":
        name = event["name"] if isinstance(event, dict) else event.name
        arguments = event["arguments"] if isinstance(event, dict) else event.arguments
        call_id = event["call_id"] if isinstance(event, dict) else event.call_id
        runs.append((name, json.loads(arguments)))
        conn.send({"type": "conversation.item.create",
                   "item": {"type": "function_call_output", "call_id": call_id, "output": "3 rows"}})
        pending.append(True)
    elif kind == "response.done":
        if pending:
            pending.clear()
            conn.send({"type": "response.create"})
            return False
        return True
    return False


def realtime_loop(read: str) -> Runs:
    runs: Runs = []
    with client().realtime.connect(model="gpt-realtime") as conn:
        conn.recv()  # session.created
        conn.send({"type": "response.create"})
        pending: list[bool] = []
        if read == "iterate":
            for event in conn:
                if _realtime_event(event, runs, conn, pending):
                    break
        else:
            while True:
                event = json.loads(conn.recv_bytes()) if read == "raw" else conn.recv()
                if _realtime_event(event, runs, conn, pending):
                    break
    return runs


async def arealtime_loop() -> Runs:
    runs: Runs = []
    async with client(is_async=True).realtime.connect(model="gpt-realtime") as conn:
        await conn.recv()
        await conn.send({"type": "response.create"})
        pending = False
        async for event in conn:
            if event.type == "response.function_call_arguments.done":
                runs.append((event.name, json.loads(event.arguments)))
                await conn.send({"type": "conversation.item.create", "item": {
                    "type": "function_call_output", "call_id": event.call_id, "output": "3 rows"}})
                pending = True
            elif event.type == "response.done":
                if not pending:
                    break
                pending = False
                await conn.send({"type": "response.create"})
    return runs


@pytest.mark.parametrize("deny", DENY)
@pytest.mark.parametrize("read", ["recv", "iterate", "raw", "async"])
def test_realtime_function_call(deny: bool, read: str) -> None:
    if deny:
        kit.deny()
    SERVER.script(sockets.realtime_response("resp_1", sockets.realtime_call("resp_1", "call_1", kit.PURGE,
                                                                            table="users")),
                  sockets.realtime_response("resp_2", text="done"))
    runs = asyncio.run(arealtime_loop()) if read == "async" else realtime_loop(read)
    assert purges(runs) == (0 if deny else 1)
    assert (kit.REASON in sent_outputs()) is deny  # the refusal is the call's output on the session


def test_realtime_mixed_calls_and_post() -> None:
    """One call allowed, one refused in one response: the loop runs the allowed one, whose output POST
    sees (and replaces); the refused one's output is the refusal."""
    kit.deny()
    on(P.POST_TOOL_CALL, tools=["lookup"])(lambda ctx: f"checked: {ctx.tool_result}")
    SERVER.script(sockets.realtime_response("resp_1", sockets.realtime_call("resp_1", "call_1", "lookup", table="a"),
                                            sockets.realtime_call("resp_1", "call_2", kit.PURGE, table="b")),
                  sockets.realtime_response("resp_2", text="done"))
    runs = realtime_loop("recv")
    assert [name for name, _ in runs] == ["lookup"]
    outputs = [e["item"] for e in SERVER.received if e.get("type") == "conversation.item.create"]
    assert {"type": "function_call_output", "call_id": "call_1", "output": "checked: 3 rows"} in outputs
    assert any(o["call_id"] == "call_2" and kit.REASON in o["output"] for o in outputs)


# -- the Responses WebSocket mode ----------------------------------------------------------------------------


def responses_loop() -> Runs:
    runs: Runs = []
    with client().responses.connect() as conn:
        conn.send({"type": "response.create", "model": "m", "input": "purge", "tools": TOOLS})
        outputs: list[dict[str, Any]] = []
        for event in conn:
            if event.type == "response.output_item.done" and event.item.type == "function_call":
                runs.append((event.item.name, json.loads(event.item.arguments)))
                outputs.append({"type": "function_call_output", "call_id": event.item.call_id, "output": "3 rows"})
            elif event.type == "response.completed":
                if not outputs:
                    break
                conn.send({"type": "response.create", "model": "m", "previous_response_id": event.response.id,
                           "input": outputs})
                outputs = []
    return runs


@pytest.mark.parametrize("deny", DENY)
def test_responses_socket_function_call(deny: bool) -> None:
    if deny:
        kit.deny()
    SERVER.script(sockets.responses_response("resp_1", sockets.responses_call("call_1", kit.PURGE, table="users")),
                  sockets.responses_response("resp_2", text="done"))
    runs = responses_loop()
    assert purges(runs) == (0 if deny else 1)
    follow_up = SERVER.received[1]  # the adapter's (deny) or the loop's (twin) next response.create
    assert follow_up["previous_response_id"] == "resp_1" and follow_up["model"] == "m"
    assert (kit.REASON in json.dumps(follow_up["input"])) is deny


def test_responses_socket_mixed_calls() -> None:
    """The loop answers the allowed call; its response.create gets the refused call's output added."""
    kit.deny()
    SERVER.script(sockets.responses_response("resp_1", sockets.responses_call("call_1", "lookup", table="a"),
                                             sockets.responses_call("call_2", kit.PURGE, table="b")),
                  sockets.responses_response("resp_2", text="done"))
    runs = responses_loop()
    assert [name for name, _ in runs] == ["lookup"]
    follow_up = SERVER.received[1]["input"]
    assert [o["call_id"] for o in follow_up] == ["call_1", "call_2"]
    assert kit.REASON in follow_up[1]["output"]
