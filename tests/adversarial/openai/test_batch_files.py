"""Bypass attempts through a batch's output file: the answers a finished batch holds ask for tools.

The application downloads the output file (``files.content``) and runs the calls each line's
answer asks for; each test counts the refused tool's real executions (0 with the deny, 1 in
the twin). The server is `WireServer` (127.0.0.1), answering the file's bytes verbatim.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

openai = pytest.importorskip("openai")

from tests.adversarial import kit  # noqa: E402
from tests.adversarial.openai import wire  # noqa: E402
from tests.adversarial.openai.test_bypass import SERVER, client, installed  # noqa: E402, F401 - the install fixture

DENY = [False, True]


def output_file(*bodies: dict[str, Any]) -> str:
    return "".join(json.dumps({"id": f"batch_req_{i}", "custom_id": f"job-{i}", "error": None,
                               "response": {"status_code": 200, "request_id": f"req_{i}", "body": body}}) + "\n"
                   for i, body in enumerate(bodies))


def calls_in(lines: list[dict[str, Any]]) -> list[str]:
    """The tool names a loop over the file would run (chat tool calls and Responses function calls)."""
    names = []
    for line in lines:
        body = line["response"]["body"]
        for choice in body.get("choices") or ():
            names += [c["function"]["name"] for c in choice["message"].get("tool_calls") or ()]
        names += [i["name"] for i in body.get("output") or () if i.get("type") == "function_call"]
    return names


CHAT = wire.completion({"tool_calls": [wire.function_call("call_0", kit.PURGE, table="users")]})
RESPONSE = wire.response({"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": kit.PURGE,
                          "arguments": json.dumps({"table": "users"}), "status": "completed"})


@pytest.mark.parametrize("deny", DENY)
@pytest.mark.parametrize("body", ["chat", "responses"])
@pytest.mark.parametrize("read", ["text", "content", "json_lines", "async"])
def test_batch_output_file(deny: bool, body: str, read: str) -> None:
    if deny:
        kit.deny()
    SERVER.queue(output_file(CHAT if body == "chat" else RESPONSE))
    if read == "async":
        async def main() -> str:
            return (await client(is_async=True).files.content("file_1")).text

        text = asyncio.run(main())
    else:
        result = client().files.content("file_1")
        text = result.content.decode() if read == "content" else result.text
    lines = [json.loads(line) for line in text.splitlines()]
    assert calls_in(lines).count(kit.PURGE) == (0 if deny else 1)
    assert (kit.REASON in text) is deny  # the refusal is written into the answer


def test_a_file_that_is_not_a_batch_output_is_left_alone() -> None:
    kit.deny()
    SERVER.queue(json.dumps({"note": "purge_records"}) + "\n")
    assert json.loads(client().files.content("file_2").text) == {"note": "purge_records"}
