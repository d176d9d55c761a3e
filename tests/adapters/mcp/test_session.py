"""``ClientSession.call_tool`` and ``list_tools`` with the adapter installed, on mcp 1.x and 2.x."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from hookport import ExtensionPoint, HookAborted, InterceptionPoint, on, register_hook
from tests.adapters.mcp.server import MCP_MAJOR, RUNS, SERVER, session, text_of

P = InterceptionPoint


def call(name: str, args: dict[str, Any]) -> Any:
    async def main() -> Any:
        async with session() as tools:
            return await tools.call_tool(name, args)

    RUNS.clear()
    return asyncio.run(main())


def is_error(result: Any) -> bool:
    return bool(getattr(result, "is_error", None) or getattr(result, "isError", None))


def test_one_pre_and_one_post_with_the_result_and_a_duration() -> None:
    seen: list[tuple[str, Any]] = []
    on(P.PRE_TOOL_CALL)(lambda ctx: seen.append(("pre", dict(ctx.tool_input))))
    on(P.POST_TOOL_CALL)(lambda ctx: seen.append(("post", (ctx.tool_result, ctx.framework, ctx.duration_ms >= 0))))
    result = call("add_numbers", {"a": 2, "b": 3})
    assert text_of(result) == "5"
    assert seen == [("pre", {"a": 2, "b": 3}), ("post", ("5", "mcp", True))]


def test_edited_arguments_reach_the_server() -> None:
    @on(P.PRE_TOOL_CALL)
    def edit(ctx):  # type: ignore[no-untyped-def]
        ctx.tool_input["b"] = 40

    assert text_of(call("add_numbers", {"a": 2, "b": 3})) == "42"
    assert RUNS == [("add_numbers", {"a": 2, "b": 40})]


def test_refusal_is_an_error_result_and_the_server_is_never_called() -> None:
    audit: list[Any] = []

    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def guard(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("purging is not allowed", source="policy")

    on(P.POST_TOOL_CALL)(lambda ctx: audit.append((ctx.refused, ctx.tool_result)))
    result = call("purge_records", {"table": "users"})
    assert is_error(result)
    assert text_of(result) == "Tool call purge_records was refused: purging is not allowed"
    assert RUNS == []
    assert audit == [(True, "Tool call purge_records was refused: purging is not allowed")]


def test_replaced_result_reaches_the_caller() -> None:
    on(P.POST_TOOL_CALL)(lambda ctx: "REDACTED")
    result = call("add_numbers", {"a": 1, "b": 1})
    assert text_of(result) == "REDACTED" and not is_error(result)
    assert len(RUNS) == 1


def test_wrap_hook_short_circuits_the_server() -> None:
    register_hook(ExtensionPoint.WRAP_TOOL_CALL, lambda ctx, call_next: "from the cache")
    assert text_of(call("add_numbers", {"a": 1, "b": 1})) == "from the cache"
    assert RUNS == []


def test_tool_definitions_hook_filters_and_edits_the_listing() -> None:
    seen: list[list[str]] = []

    @on(ExtensionPoint.BEFORE_TOOL_DEFINITIONS)
    def hide(ctx):  # type: ignore[no-untyped-def]
        seen.append([d["function"]["name"] for d in ctx.payload])
        kept = [d for d in ctx.payload if d["function"]["name"] != "purge_records"]
        kept[0]["function"]["description"] = "Adds."
        return kept

    async def main() -> Any:
        async with session() as tools:
            return await tools.list_tools()

    listed = asyncio.run(main())
    assert seen == [["add_numbers", "purge_records"]]
    assert [(t.name, t.description) for t in listed.tools] == [("add_numbers", "Adds.")]


@pytest.mark.skipif(MCP_MAJOR < 2, reason="mcp.client.Client exists from mcp 2.0")
def test_the_2x_client_facade_goes_through_the_session() -> None:
    from mcp.client import Client

    fired: list[str] = []
    on(P.PRE_TOOL_CALL)(lambda ctx: fired.append(ctx.tool_name))

    async def main() -> Any:
        async with Client(SERVER) as client:
            return await client.call_tool("add_numbers", {"a": 2, "b": 2})

    RUNS.clear()
    assert text_of(asyncio.run(main())) == "4"
    assert fired == ["add_numbers"] and len(RUNS) == 1
