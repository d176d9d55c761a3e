"""Bypass attempts on the mcp adapter: every way a client gets a ``tools/call`` to the server.

Each test counts the refused tool's real executions on the in-process server
(`tests.adapters.mcp.server.RUNS`): 0 with the deny, 1+ in its twin without it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp import types  # noqa: E402

from hookport import HookAborted, InterceptionPoint, adapters, on, register_hook, register_scoped  # noqa: E402
from hookport import scoped_hooks  # noqa: E402
from hookport.contexts import ToolCallHookContext  # noqa: E402
from tests.adapters.mcp.server import MCP_MAJOR, RUNS, session, text_of  # noqa: E402

P = InterceptionPoint
DENY = [False, True]


@pytest.fixture(autouse=True)
def installed() -> Iterator[None]:
    adapters.install("mcp")
    RUNS.clear()
    yield
    RUNS.clear()


def _refuse(ctx: ToolCallHookContext) -> None:
    raise HookAborted(reason="purging is not allowed", source="test")


def deny_purge(deny: bool) -> None:
    if deny:
        register_hook(P.PRE_TOOL_CALL, _refuse, tools=["purge_records"])


def purges() -> int:
    return sum(1 for name, _ in RUNS if name == "purge_records")


def call_request(name: str, arguments: dict[str, Any]) -> Any:
    """A ``tools/call`` request built by the application (1.x wraps it in ``ClientRequest``)."""
    request = types.CallToolRequest(method="tools/call", params=types.CallToolRequestParams(
        name=name, arguments=arguments)) if MCP_MAJOR < 2 else types.CallToolRequest(
        params=types.CallToolRequestParams(name=name, arguments=arguments))
    return types.ClientRequest(request) if MCP_MAJOR < 2 else request


async def send_directly(name: str, arguments: dict[str, Any]) -> Any:
    async with session() as tools:
        return await tools.send_request(call_request(name, arguments), types.CallToolResult)


@pytest.mark.parametrize("deny", DENY)
def test_send_request_with_a_call_tool_request(deny: bool) -> None:
    """The body layer alone: no ``call_tool`` in the path, ``send_request`` refuses it."""
    deny_purge(deny)
    result = asyncio.run(send_directly("purge_records", {"table": "users"}))
    assert purges() == (0 if deny else 1)
    if deny:
        assert getattr(result, "is_error", None) or getattr(result, "isError", None)
        assert "Tool call purge_records was refused: purging is not allowed" in text_of(result)


@pytest.mark.parametrize("deny", DENY)
def test_the_call_sites_original_reached_through_its_plain_patch(deny: bool) -> None:
    """``call_tool`` is patched with a plain function (`Target(plain=True)`) whose ``__wrapped__`` is
    the SDK's own method: calling that skips the call site, and ``send_request`` beneath refuses."""
    from mcp import ClientSession

    deny_purge(deny)
    original = ClientSession.__dict__["call_tool"].__wrapped__
    assert original is not ClientSession.__dict__["call_tool"]  # the patch is in place: the route exists

    async def main() -> Any:
        async with session() as tools:
            return await original(tools, "purge_records", {"table": "users"})

    result = asyncio.run(main())
    assert purges() == (0 if deny else 1)
    if deny:
        assert "Tool call purge_records was refused: purging is not allowed" in text_of(result)


@pytest.mark.parametrize("deny", DENY)
def test_call_tool_dispatches_once(deny: bool) -> None:
    """call_tool decides; send_request beneath claims the decision: one PRE and one POST per call."""
    seen: list[str] = []

    @on(P.PRE_TOOL_CALL)
    def pre(ctx: ToolCallHookContext) -> None:
        seen.append("pre")

    @on(P.POST_TOOL_CALL)
    def post(ctx: ToolCallHookContext) -> None:
        seen.append("post")

    deny_purge(deny)

    async def main() -> None:
        async with session() as tools:
            await tools.call_tool("purge_records", {"table": "users"})

    asyncio.run(main())
    assert seen == ["pre", "post"]
    assert purges() == (0 if deny else 1)


def test_edited_arguments_reach_the_server_once_decided() -> None:
    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def redirect(ctx: ToolCallHookContext) -> None:
        ctx.tool_input["table"] = "scratch"

    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def no_users(ctx: ToolCallHookContext) -> None:
        if ctx.tool_input.get("table") == "users":
            raise HookAborted(reason="users are protected", source="test")

    async def main() -> None:
        async with session() as tools:
            await tools.call_tool("purge_records", {"table": "users"})

    asyncio.run(main())
    assert RUNS == [("purge_records", {"table": "scratch"})]


@pytest.mark.parametrize("deny", DENY)
def test_parallel_calls_in_tasks(deny: bool) -> None:
    deny_purge(deny)

    async def main() -> None:
        async with session() as tools:
            await asyncio.gather(*(tools.call_tool("purge_records", {"table": t}) for t in ("a", "b", "c")),
                                 tools.send_request(call_request("purge_records", {"table": "d"}),
                                                    types.CallToolResult))

    asyncio.run(main())
    assert purges() == (0 if deny else 4)


@pytest.mark.parametrize("deny", DENY)
def test_deny_registered_mid_run(deny: bool) -> None:
    """A kill switch: the first call's hook registers the deny; the next call of the same session
    is refused."""
    @on(P.PRE_TOOL_CALL, tools=["add_numbers"])
    def kill_switch(ctx: ToolCallHookContext) -> None:
        if deny:
            register_hook(P.PRE_TOOL_CALL, _refuse, tools=["purge_records"])

    async def main() -> None:
        async with session() as tools:
            await tools.call_tool("add_numbers", {"a": 1, "b": 2})
            await tools.call_tool("purge_records", {"table": "users"})
            await tools.send_request(call_request("purge_records", {"table": "users"}), types.CallToolResult)

    asyncio.run(main())
    assert purges() == (0 if deny else 2)


@pytest.mark.parametrize("deny", DENY)
def test_scoped_deny_in_an_application_task(deny: bool) -> None:
    async def main() -> None:
        with scoped_hooks():
            if deny:
                register_scoped(P.PRE_TOOL_CALL, _refuse, tools=["purge_records"])
            async with session() as tools:
                task = asyncio.create_task(tools.call_tool("purge_records", {"table": "users"}))
                await task

    asyncio.run(main())
    assert purges() == (0 if deny else 1)


@pytest.mark.skipif(MCP_MAJOR < 2, reason="mcp.client.Client is the 2.x facade")
@pytest.mark.parametrize("deny", DENY)
def test_client_facade(deny: bool) -> None:
    from mcp.client import Client

    from tests.adapters.mcp.server import SERVER

    deny_purge(deny)

    async def main() -> None:
        async with Client(SERVER) as client:
            await client.call_tool("purge_records", {"table": "users"})

    asyncio.run(main())
    assert purges() == (0 if deny else 1)


@pytest.mark.parametrize("deny", DENY)
def test_uninstall_and_reinstall(deny: bool) -> None:
    adapters.uninstall("mcp")
    adapters.install("mcp")
    deny_purge(deny)
    asyncio.run(send_directly("purge_records", {"table": "users"}))
    assert purges() == (0 if deny else 1)


def test_uninstall_removes_the_request_layer() -> None:
    deny_purge(True)
    adapters.uninstall("mcp")
    try:
        asyncio.run(send_directly("purge_records", {"table": "users"}))
        assert purges() == 1  # nothing of hookport is left on the path
    finally:
        adapters.install("mcp")
