"""The MCP client adapter (``mcp``): tool points on ``ClientSession.call_tool``.

    from hookport import adapters
    adapters.install("mcp")

Where each point fires:

| point | ``mcp`` call site |
|---|---|
| PRE_TOOL_CALL / POST_TOOL_CALL | ``mcp.client.session:ClientSession.call_tool`` (every client: a session over stdio, HTTP or memory, and the 2.x ``mcp.client.Client`` facade, which delegates to it); and ``send_request`` for every ``tools/call`` request (``types.CallToolRequest`` sent by the application itself), which claims ``call_tool``'s decision for the same call |
| ``before_tool_definitions`` (extension) | ``ClientSession.list_tools``: the listed tools as OpenAI-style function schemas; a hook removes or edits entries, and the caller gets the tools that are left |
| the model and boundary points | not offered: an MCP client calls tools, never a model (the ``openai`` / ``anthropic`` adapters serve the model of the same loop; mark a run with ``hookport.execution(...)``) |

MCP has no client-side interception API (interceptors belong to the libraries
built on it, such as langchain-mcp-adapters' ``tool_interceptors``), so the
method is wrapped. A refused call is answered with an MCP error result
(``CallToolResult(isError=True)`` carrying the refusal text), which the caller's
agent sees as the tool's answer; the server is never called. A POST string
replaces the result's content with one text block. Under a framework adapter
that already dispatched the tool call (a LangChain tool from
langchain-mcp-adapters) the adapter stays silent: one PRE and one POST per call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from hookport.adapters._base import Adapter, Target
from hookport.adapters._versions import installed_version, release
from hookport.points import ExtensionPoint, InterceptionPoint

from hookport.adapters.mcp._session import call_tool, list_tools, send_request

__all__ = ["MCPAdapter"]

P = InterceptionPoint
_SESSION = "mcp.client.session"


def _send_request() -> Target:
    """``send_request``: on ``ClientSession`` itself from 2.x, inherited from ``BaseSession`` on 1.x
    (whose other sessions, the server's, never send a ``tools/call``)."""
    version = installed_version("mcp")
    if version is None or release(version) >= (2,):
        return Target(_SESSION, "ClientSession.send_request", send_request, (P.PRE_TOOL_CALL, P.POST_TOOL_CALL),
                      "async", plain=True)
    return Target("mcp.shared.session", "BaseSession.send_request", send_request,
                  (P.PRE_TOOL_CALL, P.POST_TOOL_CALL), "async", plain=True)


class MCPAdapter(Adapter):
    name: ClassVar[str] = "mcp"
    distribution: ClassVar[str] = "mcp"
    extra: ClassVar[str] = "mcp"
    supported: ClassVar[str] = ">=1.20,<3"
    test_versions: ClassVar[tuple[str, ...]] = ("1.30.0", "2.0.0", "2.3.0")
    companions: ClassVar[dict[str, tuple[str, ...]]] = {
        "1.30.0": ("langchain-mcp-adapters==0.3.2", "langchain==1.5.2"),
    }
    """The layered tests (tests/adapters/mcp/test_layered.py) run langchain-mcp-adapters tools, which
    need ``mcp<2``."""
    not_offered: ClassVar[frozenset[InterceptionPoint]] = frozenset(
        {P.EXECUTION_START, P.INPUT, P.OUTPUT, P.EXECUTION_END, P.PRE_STEP, P.POST_STEP,
         P.PRE_MODEL_CALL, P.POST_MODEL_CALL}
    )

    def targets(self) -> Sequence[Target]:
        return (
            Target(_SESSION, "ClientSession.call_tool", call_tool, (P.PRE_TOOL_CALL, P.POST_TOOL_CALL), "async",
                   plain=True),
            _send_request(),
            Target(_SESSION, "ClientSession.list_tools", list_tools, (ExtensionPoint.BEFORE_TOOL_DEFINITIONS,),
                   "async"),
        )
