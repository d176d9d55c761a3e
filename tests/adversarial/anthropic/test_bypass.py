"""Bypass attempts on the anthropic adapter: every entry point a tool_use block can arrive by.

Each test counts the refused tool's real executions: 0 with the deny, 1+ in its
twin without it. The model is the wire server of the openai suite (127.0.0.1,
verbatim bodies); the loops run what the answer they read asks for, and the beta
tool runner runs its ``@beta_tool`` functions itself.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest

anthropic = pytest.importorskip("anthropic")

from hookport import HookAborted, InterceptionPoint, adapters, on, register_scoped, scoped_hooks  # noqa: E402
from hookport.adapters.anthropic_sdk import LEDGER  # noqa: E402
from hookport.contexts import ToolCallHookContext  # noqa: E402
from tests.adversarial import kit  # noqa: E402
from tests.adversarial.openai import wire  # noqa: E402
from tests.adversarial.openai.wire import WireServer  # noqa: E402

P = InterceptionPoint
SERVER = WireServer()
DENY = [False, True]
PURGE = wire.tool_use("toolu_0", "purge_records", table="users")
TOOLS = [{"name": "purge_records", "input_schema": {"type": "object", "properties": {"table": {"type": "string"}}}}]


@pytest.fixture(autouse=True)
def installed() -> Iterator[None]:
    adapters.install("anthropic")
    LEDGER.clear()
    yield
    LEDGER.clear()


def deny_purge(deny: bool) -> None:
    if deny:
        kit.deny()


def client(is_async: bool = False) -> Any:
    cls = anthropic.AsyncAnthropic if is_async else anthropic.Anthropic
    return cls(base_url=SERVER.base_url, api_key="sk-offline-dummy", max_retries=0)


def uses(content: Any) -> int:
    """How many purge_records tool_use blocks a loop would run."""
    return sum(1 for block in content if (block["type"] if isinstance(block, dict) else block.type) == "tool_use"
               and (block["name"] if isinstance(block, dict) else block.name) == "purge_records")


def expected(deny: bool) -> int:
    return 0 if deny else 1


def stream_events(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The Messages stream of `body`: each block started, its input as one delta, stopped."""
    events: list[dict[str, Any]] = [{"type": "message_start", "message": {**body, "content": [],
                                                                          "stop_reason": None}}]
    for index, block in enumerate(body["content"]):
        if block["type"] == "tool_use":
            events.append({"type": "content_block_start", "index": index,
                           "content_block": {**block, "input": {}}})
            events.append({"type": "content_block_delta", "index": index,
                           "delta": {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}})
        else:
            events.append({"type": "content_block_start", "index": index, "content_block": {"type": "text",
                                                                                             "text": ""}})
            events.append({"type": "content_block_delta", "index": index,
                           "delta": {"type": "text_delta", "text": block["text"]}})
        events.append({"type": "content_block_stop", "index": index})
    events.append({"type": "message_delta", "delta": {"stop_reason": body["stop_reason"], "stop_sequence": None},
                   "usage": {"output_tokens": 1}})
    events.append({"type": "message_stop"})
    return events


PARAMS = {"model": "claude", "max_tokens": 64, "messages": [{"role": "user", "content": "purge"}], "tools": TOOLS}


@pytest.mark.parametrize("deny", DENY)
@pytest.mark.parametrize("entry", ["create", "parse", "beta_create", "beta_parse", "async", "beta_async"])
def test_entry_points(deny: bool, entry: str) -> None:
    deny_purge(deny)
    SERVER.queue(wire.message(PURGE), wire.final_message())
    if entry in ("async", "beta_async"):
        async def main() -> Any:
            messages = client(is_async=True).messages if entry == "async" else client(is_async=True).beta.messages
            return await messages.create(**PARAMS)

        answer = asyncio.run(main())
    else:
        messages = client().beta.messages if entry.startswith("beta") else client().messages
        answer = (messages.parse if entry.endswith("parse") else messages.create)(**PARAMS)
    assert uses(answer.content) == expected(deny)


@pytest.mark.parametrize("deny", DENY)
@pytest.mark.parametrize("entry", ["stream_helper", "beta_stream_helper", "create_stream"])
def test_streamed_entry_points(deny: bool, entry: str) -> None:
    deny_purge(deny)
    SERVER.queue(stream_events(wire.message(PURGE)), stream_events(wire.final_message()))
    if entry == "create_stream":
        events = list(client().messages.create(**PARAMS, stream=True))
        count = sum(1 for e in events if e.type == "content_block_start" and e.content_block.type == "tool_use")
    else:
        messages = client().beta.messages if entry.startswith("beta") else client().messages
        with messages.stream(**PARAMS) as stream:
            count = uses(stream.get_final_message().content)
    assert count == expected(deny)


@pytest.mark.parametrize("deny", DENY)
@pytest.mark.parametrize("beta", [False, True])
def test_raw_response_body_holds_no_refused_call(deny: bool, beta: bool) -> None:
    deny_purge(deny)
    other = wire.tool_use("toolu_1", "add_numbers", a=1, b=2)
    SERVER.queue(wire.message(PURGE, other))
    messages = client().beta.messages if beta else client().messages
    raw = messages.with_raw_response.create(**PARAMS)
    assert uses(raw.http_response.json()["content"]) == expected(deny)
    assert uses(raw.parse().content) == expected(deny)


@pytest.mark.parametrize("deny", DENY)
def test_raw_streamed_response_is_reviewed(deny: bool) -> None:
    deny_purge(deny)
    SERVER.queue(stream_events(wire.message(PURGE)), stream_events(wire.final_message()))
    raw = client().messages.with_raw_response.create(**PARAMS, stream=True)
    count = sum(1 for e in raw.parse() if e.type == "content_block_start" and e.content_block.type == "tool_use")
    assert count == expected(deny)


# -- the beta tool runner: the SDK runs the tool itself -------------------------------------------------


def purge_tool(runs: list[Any], is_async: bool = False) -> Any:
    if is_async:
        @anthropic.beta_async_tool
        async def purge_records(table: str) -> str:
            """Delete every record of a table."""
            runs.append(table)
            return f"purged {table}"
    else:
        @anthropic.beta_tool
        def purge_records(table: str) -> str:
            """Delete every record of a table."""
            runs.append(table)
            return f"purged {table}"

    return purge_records


@pytest.mark.parametrize("deny", DENY)
@pytest.mark.parametrize("is_async", [False, True])
def test_tool_runner(deny: bool, is_async: bool) -> None:
    deny_purge(deny)
    SERVER.queue(wire.message(PURGE), wire.final_message(), wire.final_message())
    runs: list[Any] = []
    params = {"model": "claude", "max_tokens": 64, "messages": [{"role": "user", "content": "purge"}],
              "tools": [purge_tool(runs, is_async)]}
    if is_async:
        async def main() -> None:
            async for _ in client(is_async=True).beta.messages.tool_runner(**params):
                pass

        asyncio.run(main())
    else:
        for _ in client().beta.messages.tool_runner(**params):
            pass
    assert len(runs) == expected(deny)


@pytest.mark.parametrize("deny", DENY)
def test_tool_runner_once_per_call(deny: bool) -> None:
    """The wire review and the tool body never dispatch twice for one call."""
    seen: list[str] = []

    @on(P.PRE_TOOL_CALL)
    def count(ctx: ToolCallHookContext) -> None:
        seen.append(ctx.tool_name)

    deny_purge(deny)
    SERVER.queue(wire.message(PURGE), wire.final_message(), wire.final_message())
    runs: list[Any] = []
    for _ in client().beta.messages.tool_runner(model="claude", max_tokens=64, tools=[purge_tool(runs)],
                                                messages=[{"role": "user", "content": "purge"}]):
        pass
    assert seen == ["purge_records"]
    assert len(runs) == expected(deny)


@pytest.mark.parametrize("deny", DENY)
def test_body_layer_alone(deny: bool) -> None:
    """A route no call site covers (the runner's own dispatch helper, called directly): the tool's
    body guard refuses it, with the wire review's refusal text."""
    from anthropic.lib.tools import _tool_dispatch

    deny_purge(deny)
    runs: list[Any] = []
    tool = purge_tool(runs)
    if hasattr(_tool_dispatch, "run_runnable_tool"):
        result = asyncio.run(_tool_dispatch.run_runnable_tool(tool, {"table": "users"}))
    else:
        result = tool.call({"table": "users"})
    assert len(runs) == expected(deny)
    if deny:
        assert "Tool call purge_records was refused: purging is not allowed" in str(result)


# -- the ledger: conversations never meet ---------------------------------------------------------------


def test_numbered_ids_do_not_leak_a_refusal_into_another_conversation() -> None:
    with scoped_hooks():
        register_scoped(P.PRE_TOOL_CALL, _refuse, tools=["purge_records"])
        SERVER.queue(wire.message(wire.tool_use("toolu_0", "add_numbers", a=1, b=2),
                                  wire.tool_use("toolu_1", "purge_records", table="a")))
        client().messages.create(**{**PARAMS, "messages": [{"role": "user", "content": "conversation A"}]})

    def follow_up(prompt: str) -> str:
        SERVER.queue(wire.final_message())
        client().messages.create(**{**PARAMS, "messages": [
            {"role": "user", "content": prompt},
            {"role": "assistant", "content": [wire.tool_use("toolu_0", "add_numbers", a=1, b=2)]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_0", "content": "3"}]}]})
        return json.dumps(SERVER.bodies()[-1])

    assert "was refused" not in follow_up("conversation B")
    assert "was refused" in follow_up("conversation A")


def _refuse(ctx: ToolCallHookContext) -> None:
    raise HookAborted(reason="purging is not allowed", source="test")


@pytest.mark.parametrize("deny", DENY)
def test_uninstall_and_reinstall(deny: bool) -> None:
    adapters.uninstall("anthropic")
    adapters.install("anthropic")
    deny_purge(deny)
    SERVER.queue(wire.message(PURGE), wire.final_message())
    assert uses(client().beta.messages.create(**PARAMS).content) == expected(deny)


INNER_SERVER = WireServer()


@pytest.mark.parametrize("deny", DENY)
def test_tool_runner_nested_same_named_tool(deny: bool) -> None:
    """An outer ``@beta_tool`` whose body runs its own tool runner with a distinct, same-named
    tool: the inner call is a call of its own, and an argument-based deny refuses it."""
    if deny:
        @on(P.PRE_TOOL_CALL, tools=["purge_records"])
        def no_secret(ctx: ToolCallHookContext) -> None:
            if ctx.tool_input.get("table") == "secret":
                raise HookAborted(reason="the secret table is protected", source="test")

    outer_runs: list[Any] = []
    inner_runs: list[Any] = []
    inner_tool = purge_tool(inner_runs)
    inner_client = anthropic.Anthropic(base_url=INNER_SERVER.base_url, api_key="sk-offline", max_retries=0)

    @anthropic.beta_tool
    def purge_records(table: str) -> str:
        """Delete every record of a table (through the records agent)."""
        outer_runs.append(table)
        for _ in inner_client.beta.messages.tool_runner(model="claude", max_tokens=64, tools=[inner_tool],
                                                        messages=[{"role": "user", "content": "purge secret"}]):
            pass
        return "asked the records agent"

    SERVER.queue(wire.message(wire.tool_use("toolu_0", "purge_records", table="public")), wire.final_message())
    INNER_SERVER.queue(wire.message(wire.tool_use("toolu_0", "purge_records", table="secret")),
                       wire.final_message(), wire.final_message())
    for _ in client().beta.messages.tool_runner(model="claude", max_tokens=64, tools=[purge_records],
                                                messages=[{"role": "user", "content": "purge"}]):
        pass
    assert outer_runs == ["public"]
    assert len(inner_runs) == expected(deny)


@pytest.mark.parametrize("deny", DENY)
def test_an_allowed_call_elsewhere_is_not_claimed_by_a_body(deny: bool) -> None:
    """A call the wire review allowed in another conversation's context (a loop on another thread
    that runs its tools itself) never lets a runner's body skip its own PRE_TOOL_CALL."""
    import threading

    SERVER.queue(wire.message(PURGE))
    seen: list[str] = []

    @on(P.PRE_TOOL_CALL)
    def count(ctx: ToolCallHookContext) -> None:
        seen.append(ctx.tool_name)

    other = threading.Thread(target=lambda: client().messages.create(**PARAMS))
    other.start()
    other.join()
    assert seen == ["purge_records"]  # allowed there (nothing was denied yet)
    deny_purge(deny)
    runs: list[Any] = []
    tool = purge_tool(runs)
    from anthropic.lib.tools import _tool_dispatch

    if hasattr(_tool_dispatch, "run_runnable_tool"):
        asyncio.run(_tool_dispatch.run_runnable_tool(tool, {"table": "users"}))
    else:
        tool.call({"table": "users"})
    assert seen == ["purge_records", "purge_records"]
    assert len(runs) == expected(deny)
