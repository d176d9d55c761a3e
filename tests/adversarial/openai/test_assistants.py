"""Bypass attempts through Assistants runs: the calls a run's ``required_action`` asks the loop to run.

Each test is the application's loop: it runs every call the run it reads lists, then submits
the outputs; it counts the refused tool's real executions (0 with the deny, 1 in the twin).
The server is `WireServer` (127.0.0.1), answering the run bodies the real API sends.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

openai = pytest.importorskip("openai")

from hookport import InterceptionPoint, on  # noqa: E402
from tests.adversarial import kit  # noqa: E402
from tests.adversarial.openai.test_bypass import SERVER, client, installed  # noqa: E402, F401 - the install fixture

P = InterceptionPoint
DENY = [False, True]
Runs = list[tuple[str, dict[str, Any]]]


def run(status: str, *calls: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    body: dict[str, Any] = {"id": "run_1", "object": "thread.run", "thread_id": "thread_1", "assistant_id": "asst_1",
                            "status": status, "created_at": 0, "model": "m", "instructions": "", "tools": [],
                            "parallel_tool_calls": True, "required_action": None}
    if calls:
        body["required_action"] = {"type": "submit_tool_outputs", "submit_tool_outputs": {"tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
            for call_id, name, args in calls]}}
    return body


PURGE = ("call_1", kit.PURGE, {"table": "users"})
LOOKUP = ("call_2", "lookup", {"table": "a"})


def run_calls(waiting: Any, runs: Runs) -> list[dict[str, str]]:
    """What the loop does with a waiting run: run each call, collect its output."""
    outputs = []
    for call in waiting.required_action.submit_tool_outputs.tool_calls:
        runs.append((call.function.name, json.loads(call.function.arguments)))
        outputs.append({"tool_call_id": call.id, "output": "3 rows"})
    return outputs


def submitted() -> list[Any]:
    return [r["body"]["tool_outputs"] for r in SERVER.requests if r["path"].endswith("/submit_tool_outputs")]


@pytest.mark.parametrize("deny", DENY)
def test_create_and_poll(deny: bool) -> None:
    """The docs' loop: ``create_and_poll``, run the calls, ``submit_tool_outputs_and_poll`` if any output."""
    if deny:
        kit.deny()
    SERVER.queue(run("queued"), run("requires_action", PURGE), run("queued"), run("completed"))
    runs: Runs = []
    api = client().beta.threads.runs
    current = api.create_and_poll(thread_id="thread_1", assistant_id="asst_1", poll_interval_ms=1)
    if current.status == "requires_action":
        outputs = run_calls(current, runs)
        if outputs:
            current = api.submit_tool_outputs_and_poll(thread_id="thread_1", run_id="run_1", tool_outputs=outputs,
                                                       poll_interval_ms=1)
    assert current.status == "completed"  # deny: the adapter submitted the refusal, the run went on
    assert sum(1 for name, _ in runs if name == kit.PURGE) == (0 if deny else 1)
    assert (kit.REASON in json.dumps(submitted())) is deny


def test_mixed_calls_carry_the_refusal_and_post_sees_the_allowed_output() -> None:
    kit.deny()
    on(P.POST_TOOL_CALL, tools=["lookup"])(lambda ctx: f"checked: {ctx.tool_result}")
    SERVER.queue(run("requires_action", LOOKUP, PURGE), run("completed"))
    runs: Runs = []
    api = client().beta.threads.runs
    waiting = api.retrieve("run_1", thread_id="thread_1")
    api.submit_tool_outputs(run_id="run_1", thread_id="thread_1", tool_outputs=run_calls(waiting, runs))
    assert [name for name, _ in runs] == ["lookup"]
    [outputs] = submitted()
    assert outputs[0] == {"tool_call_id": "call_2", "output": "checked: 3 rows"}
    assert outputs[1]["tool_call_id"] == "call_1" and kit.REASON in outputs[1]["output"]


@pytest.mark.parametrize("deny", DENY)
def test_async_client(deny: bool) -> None:
    """An async loop that submits what it has: an empty list still carries the refusals."""
    if deny:
        kit.deny()
    SERVER.queue(run("requires_action", PURGE), run("completed"))
    runs: Runs = []

    async def main() -> None:
        api = client(is_async=True).beta.threads.runs
        waiting = await api.retrieve("run_1", thread_id="thread_1")
        await api.submit_tool_outputs(run_id="run_1", thread_id="thread_1", tool_outputs=run_calls(waiting, runs))

    asyncio.run(main())
    assert sum(1 for name, _ in runs if name == kit.PURGE) == (0 if deny else 1)
    assert (kit.REASON in json.dumps(submitted())) is deny


@pytest.mark.parametrize("deny", DENY)
def test_raw_response_body(deny: bool) -> None:
    """``with_raw_response.retrieve``: the parsed run and the HTTP body agree (no refused call in either)."""
    if deny:
        kit.deny()
    SERVER.queue(run("requires_action", LOOKUP, PURGE))
    raw = client().beta.threads.runs.with_raw_response.retrieve("run_1", thread_id="thread_1")
    parsed = raw.parse()
    body = raw.http_response.json()
    names = [c["function"]["name"] for c in body["required_action"]["submit_tool_outputs"]["tool_calls"]]
    assert (kit.PURGE in names) is not deny
    assert (kit.PURGE in [c.function.name for c in parsed.required_action.submit_tool_outputs.tool_calls]) is not deny


@pytest.mark.parametrize("deny", DENY)
def test_run_stream_event_handler(deny: bool) -> None:
    """A run stream: the ``thread.run.requires_action`` event an ``AssistantEventHandler`` acts on."""
    if deny:
        kit.deny()
    waiting = run("requires_action", PURGE)
    SERVER.queue([{"type": "thread.run.created", **run("queued")}, {"type": "thread.run.requires_action", **waiting}],
                 [{"type": "thread.run.completed", **run("completed")}])
    runs: Runs = []
    api = client().beta.threads.runs

    class Handler(openai.AssistantEventHandler):  # type: ignore[misc]
        def on_event(self, event: Any) -> None:
            if event.event == "thread.run.requires_action":
                outputs = run_calls(event.data, runs)
                with api.submit_tool_outputs_stream(thread_id="thread_1", run_id="run_1", tool_outputs=outputs,
                                                    event_handler=openai.AssistantEventHandler()) as stream:
                    stream.until_done()

    with api.stream(thread_id="thread_1", assistant_id="asst_1", event_handler=Handler()) as stream:
        stream.until_done()
    assert sum(1 for name, _ in runs if name == kit.PURGE) == (0 if deny else 1)
    assert (kit.REASON in json.dumps(submitted())) is deny
