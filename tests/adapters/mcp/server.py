"""An in-process MCP server with the two counting tools, and a client session on it (mcp 1.x and 2.x).

The server lives in this process (memory streams, no subprocess, no network):
``FastMCP`` on mcp 1.x, ``MCPServer`` on 2.x (1.x's ``mcp.server.fastmcp`` is gone
there). Every real execution of a tool is appended to `RUNS`.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from importlib.metadata import version
from typing import Any

MCP_MAJOR = int(version("mcp").split(".")[0])
RUNS: list[tuple[str, dict[str, Any]]] = []

if MCP_MAJOR >= 2:
    from mcp.server.mcpserver import MCPServer as _Server
else:
    from mcp.server.fastmcp import FastMCP as _Server

SERVER = _Server("calc")


@SERVER.tool()
def add_numbers(a: int, b: int) -> str:
    """Add two integers."""
    RUNS.append(("add_numbers", {"a": a, "b": b}))
    return str(a + b)


@SERVER.tool()
def purge_records(table: str) -> str:
    """Delete every record of a table."""
    RUNS.append(("purge_records", {"table": table}))
    return f"purged {table}"


OUTER = _Server("records")
"""A server whose ``purge_records`` is an outer tool: its body calls `SERVER`'s own ``purge_records``
through a session of its own (a tool that calls another session's tool)."""
NESTED_ARGS: dict[str, Any] = {}
"""The arguments the outer tool's body passes to the inner tool."""


@OUTER.tool(name="purge_records")
async def outer_purge_records(table: str) -> str:
    """Delete every record of a table (by asking the records server)."""
    RUNS.append(("outer:purge_records", {"table": table}))
    async with session() as inner:
        return text_of(await inner.call_tool("purge_records", dict(NESTED_ARGS)))


@contextlib.asynccontextmanager
async def session(server: Any = None) -> AsyncIterator[Any]:
    """A ``ClientSession`` connected to `server` (default `SERVER`; on 2.x, the one inside
    ``mcp.client.Client``)."""
    server = SERVER if server is None else server
    if MCP_MAJOR >= 2:
        from mcp.client import Client

        async with Client(server) as client:
            yield client.session
    else:
        from mcp.shared.memory import create_connected_server_and_client_session

        async with create_connected_server_and_client_session(server._mcp_server) as connected:
            yield connected


def text_of(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)
