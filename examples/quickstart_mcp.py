"""hookport on MCP tools in two minutes: three hook dialects guarding an MCP client, offline.

    make demo FRAMEWORK=mcp           # or: python examples/quickstart_mcp.py

An in-process MCP server (no subprocess, no network) offers ``read_file`` and
``delete_file``; the client calls both through ``ClientSession.call_tool``. The
hooks of ``policies.py`` guard it: the PraisonAI-style hook logs both calls, the
CrewAI-style hook refuses ``delete_file``: the server is never called, and the
client gets an MCP error result with the refusal as the tool's answer.
"""

from __future__ import annotations

import asyncio
from importlib.metadata import version
from typing import Any

from hookport import adapters
from policies import trace  # noqa: F401  (importing it registers the three hooks)

report = adapters.install("mcp")  # before or after importing mcp: both work

MCP_2 = int(version("mcp").split(".")[0]) >= 2
if MCP_2:
    from mcp.server.mcpserver import MCPServer as Server
else:  # mcp 1.x
    from mcp.server.fastmcp import FastMCP as Server

FILES = {"notes.txt": "Order #7 paid."}
server = Server("files")


@server.tool()
def read_file(path: str) -> str:
    """Read a file."""
    return FILES.get(path, "no such file")


@server.tool()
def delete_file(path: str) -> str:
    """Delete a file."""
    FILES.pop(path, None)
    return f"deleted {path}"


def shown(result: Any) -> str:
    error = getattr(result, "is_error", None) or getattr(result, "isError", None)
    text = "".join(getattr(block, "text", "") for block in result.content)
    return f"{'error result' if error else 'result'}: {text}"


async def main() -> None:
    print(f"installed: {len(report.patched) + len(report.pending)} call sites of mcp {report.version}")
    if MCP_2:
        from mcp.client import Client

        async with Client(server) as client:
            for name in ("read_file", "delete_file"):
                print(f"  {name:<22} {shown(await client.call_tool(name, {'path': 'notes.txt'}))}")
    else:
        from mcp.shared.memory import create_connected_server_and_client_session

        async with create_connected_server_and_client_session(server._mcp_server) as session:
            for name in ("read_file", "delete_file"):
                print(f"  {name:<22} {shown(await session.call_tool(name, {'path': 'notes.txt'}))}")
    print(f"files:     {sorted(FILES)}  (delete_file never ran on the server)")
    assert "notes.txt" in FILES


if __name__ == "__main__":
    asyncio.run(main())
