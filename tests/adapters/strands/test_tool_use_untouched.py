"""A tool gets the caller's own tool use when no hook changed it (Strands' own tests, peer-strands).

The tool body (the second line of defence) gave every tool it guarded a copy of the use with
``"input": {}`` whenever the use's input was missing or not an object (an agent used as a tool
takes a plain string), so a no-op hook turned ``"direct string"`` into ``""``. A hook that does
edit the input still reaches the tool.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from strands.tools.tools import PythonAgentTool

from hookport import InterceptionPoint, register_hook

pytestmark = pytest.mark.usefixtures("strands_adapter")
SPEC = {"name": "echo", "description": "echo", "inputSchema": {"type": "object", "properties": {}}}


def run_directly(tool_use: dict[str, Any]) -> list[dict[str, Any]]:
    """``tool.stream(tool_use, state)`` as Strands' own tests (and an agent-as-tool caller) call it."""
    received: list[dict[str, Any]] = []

    def echo(use: dict[str, Any], **state: Any) -> dict[str, Any]:
        received.append(use)
        return {"toolUseId": use["toolUseId"], "status": "success", "content": [{"text": "ok"}]}

    async def drive() -> None:
        async for _ in PythonAgentTool("echo", SPEC, echo).stream(tool_use, {}):
            pass

    asyncio.run(drive())
    return received


@pytest.mark.parametrize("hooked", [False, True], ids=["without-hooks", "no-op-hook"])
@pytest.mark.parametrize("use", [{"toolUseId": "t1", "name": "echo"},
                                 {"toolUseId": "t1", "name": "echo", "input": "direct string"},
                                 {"toolUseId": "t1", "name": "echo", "input": {"a": 1}}],
                         ids=["no-input", "string-input", "object-input"])
def test_a_tool_gets_the_callers_own_use_when_no_hook_changed_it(use: dict[str, Any], hooked: bool) -> None:
    if hooked:
        register_hook(InterceptionPoint.PRE_TOOL_CALL, lambda ctx: None)
    before = dict(use)
    received = run_directly(use)
    assert len(received) == 1 and received[0] is use and use == before


def test_an_edited_input_still_reaches_the_tool() -> None:
    def edit(ctx: Any) -> None:
        ctx.tool_input["added"] = True

    register_hook(InterceptionPoint.PRE_TOOL_CALL, edit)
    use = {"toolUseId": "t1", "name": "echo", "input": "direct string"}
    received = run_directly(use)
    assert received[0]["input"] == {"added": True} and use["input"] == "direct string"
