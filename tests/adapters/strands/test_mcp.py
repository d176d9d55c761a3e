"""MCP tools on Strands: ``MCPClient`` tools run through Strands' tool executor, so hookport's tool
points fire for them (a refusal too), on the in-process MCP server of tests/adapters/mcp/server.py."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

from mcp.shared.memory import create_client_server_memory_streams  # noqa: E402
from strands.tools.mcp import MCPClient  # noqa: E402

from hookport import HookAborted, InterceptionPoint, on  # noqa: E402
from tests.adapters.mcp import server  # noqa: E402
from tests.adapters.strands.harness import Record, ScriptedModel  # noqa: E402
from tests.conformance.harness import ToolCall, Turn  # noqa: E402

P = InterceptionPoint


@contextlib.asynccontextmanager
async def in_memory() -> AsyncIterator[Any]:
    """The (read, write) streams of a client of `server.SERVER`, served in this task group."""
    lowlevel = getattr(server.SERVER, "_lowlevel_server", None) or server.SERVER._mcp_server
    async with create_client_server_memory_streams() as (client_streams, server_streams):
        async with anyio.create_task_group() as group:
            group.start_soon(lambda: lowlevel.run(server_streams[0], server_streams[1],
                                                  lowlevel.create_initialization_options()))
            try:
                yield client_streams
            finally:
                group.cancel_scope.cancel()


def test_mcp_tools_are_hooked_and_refused(harness: Any) -> None:
    from strands import Agent

    seen: list[tuple[str, str | None, dict[str, Any]]] = []

    @on(P.PRE_TOOL_CALL)
    def guard(ctx: Any) -> None:
        seen.append((ctx.tool_name, ctx.framework, dict(ctx.tool_input)))
        if ctx.tool_name == "purge_records":
            raise HookAborted("purging is not allowed", source="policy")

    @on(P.POST_TOOL_CALL)
    def shout(ctx: Any) -> Any:
        return None if ctx.refused else f"{ctx.tool_result}!"

    server.RUNS.clear()
    record = Record([Turn(tool_calls=[ToolCall("add_numbers", {"a": 2, "b": 3}),
                                      ToolCall("purge_records", {"table": "users"})]), Turn.final("done")])
    with MCPClient(in_memory) as client:
        agent = Agent(name="alpha", model=ScriptedModel(record), tools=client.list_tools_sync(),
                      callback_handler=None)
        result = agent("go")
    assert sorted(seen) == [("add_numbers", "strands", {"a": 2, "b": 3}),
                            ("purge_records", "strands", {"table": "users"})]
    assert server.RUNS == [("add_numbers", {"a": 2, "b": 3})]
    results = {r["tool_result"]["id"]: r["tool_result"] for r in record.model_inputs[1] if "tool_result" in r}
    assert results["call_1"]["status"] == "success" and results["call_1"]["content"] == "5!"
    assert results["call_2"] == {"id": "call_2", "status": "error",
                                 "content": "Tool call purge_records was refused: purging is not allowed"}
    assert str(result).strip() == "done"


def test_mcp_tools_are_hooked_once_with_the_mcp_adapter_too(harness: Any) -> None:
    from strands import Agent

    from hookport import adapters

    seen: list[tuple[str, str | None]] = []

    @on(P.PRE_TOOL_CALL)
    def count(ctx: Any) -> None:
        seen.append((ctx.tool_name, ctx.framework))

    had = "mcp" in adapters.installed()
    adapters.install("mcp")
    try:
        record = Record([Turn(tool_calls=[ToolCall("add_numbers", {"a": 2, "b": 3})]), Turn.final("done")])
        with MCPClient(in_memory) as client:
            Agent(name="alpha", model=ScriptedModel(record), tools=client.list_tools_sync(), callback_handler=None)("go")
    finally:
        if not had:
            adapters.uninstall("mcp")
    assert seen == [("add_numbers", "strands")]
