"""Bypass attempts through message batches: a batch's results ask for tools outside any request.

The application creates a batch, reads its results and runs the ``tool_use`` blocks they
hold (each loop here counts the purge_records blocks it would run); then it continues the
conversation with ``messages.create``. 0 runs with the deny, 1 in the twin.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

anthropic = pytest.importorskip("anthropic")

from hookport import InterceptionPoint, on  # noqa: E402
from tests.adversarial import kit  # noqa: E402
from tests.adversarial.anthropic.test_bypass import (  # noqa: E402, F401 - `installed`: the autouse fixture
    PARAMS, PURGE, SERVER, client, deny_purge, expected, installed, uses,
)
from tests.adversarial.openai import wire  # noqa: E402

P = InterceptionPoint
DENY = [False, True]
LOOKUP = wire.tool_use("toolu_1", "lookup", table="users")
REQUESTS = [{"custom_id": "job-1", "params": PARAMS}]


def batches(is_async: bool, beta: bool) -> Any:
    made = client(is_async)
    return (made.beta.messages if beta else made.messages).batches


def read_results(*messages: dict[str, Any], beta: bool = False, is_async: bool = False, create: bool = True) -> list[Any]:
    """Create the batch (unless it was made elsewhere), read its results: the messages the loop gets."""
    answers: list[Any] = [wire.batch("msgbatch_1", SERVER.base_url)] if create else []
    answers += [wire.batch("msgbatch_1", SERVER.base_url),
                wire.batch_results(*(("job-1", m) for m in messages))]
    SERVER.queue(*answers)

    async def main() -> list[Any]:
        api = batches(True, beta)
        if create:
            await api.create(requests=REQUESTS)
        return [r.result.message async for r in await api.results("msgbatch_1")]

    if is_async:
        return asyncio.run(main())
    api = batches(False, beta)
    if create:
        api.create(requests=REQUESTS)
    return [r.result.message for r in api.results("msgbatch_1")]


@pytest.mark.parametrize("deny", DENY)
@pytest.mark.parametrize("beta", [False, True], ids=["messages", "beta"])
@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_batch_results(deny: bool, beta: bool, is_async: bool) -> None:
    deny_purge(deny)
    [message] = read_results(wire.message(PURGE), beta=beta, is_async=is_async)
    assert uses(message.content) == expected(deny)


@pytest.mark.parametrize("deny", DENY)
def test_batch_results_read_without_the_batch_being_seen(deny: bool) -> None:
    """The batch was made by another process: its conversation is unknown, the refusal is a text block."""
    deny_purge(deny)
    [message] = read_results(wire.message(PURGE), create=False)
    assert uses(message.content) == expected(deny)
    assert (kit.REASON in json.dumps([b.model_dump() for b in message.content])) is deny
    assert (message.stop_reason == "end_turn") is deny


@pytest.mark.parametrize("deny", DENY)
def test_raw_batch_results(deny: bool) -> None:
    """``with_raw_response.results(...)``: the body, its text and ``.parse()`` hold the reviewed results."""
    deny_purge(deny)
    SERVER.queue(wire.batch("msgbatch_1", SERVER.base_url),
                 wire.batch_results(("job-1", wire.message(PURGE))))
    raw = client().messages.batches.with_raw_response.results("msgbatch_1")
    lines = [json.loads(line) for line in raw.http_response.read().splitlines()]
    assert uses(lines[0]["result"]["message"]["content"]) == expected(deny)
    assert uses(next(iter(raw.parse())).result.message.content) == expected(deny)


def test_a_mixed_result_continued_carries_the_refusal_back() -> None:
    """One call allowed, one refused: the loop runs the allowed one; its next request gets the refused
    call back with its refusal, and POST_TOOL_CALL fires for the allowed call."""
    kit.deny()
    posted: list[Any] = []
    on(P.POST_TOOL_CALL, tools=["lookup"])(lambda ctx: posted.append(ctx.tool_result))
    [message] = read_results(wire.message(LOOKUP, PURGE))
    assert [b.name for b in message.content if b.type == "tool_use"] == ["lookup"]
    SERVER.queue(wire.final_message())
    client().messages.create(**{**PARAMS, "messages": [
        *PARAMS["messages"],
        {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in message.content]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "3 rows"}]},
    ]})
    sent = json.dumps(SERVER.bodies()[-1])
    assert "toolu_0" in sent and kit.REASON in sent
    assert posted == ["3 rows"]
