"""A run with a plain wrap hook completes when the app has replaced ``asyncio.wait``.

The Agents SDK's own tests replace ``asyncio.wait`` with one that waits for everything
(peer-openai-agents: ``test_multiple_tool_calls_prioritize_fatal_base_exception_over_user_error``).
hookport's bridge for a plain ``def`` wrap hook on an async call waited with
``asyncio.wait(..., FIRST_COMPLETED)`` for the worker thread or its next request: with everything
awaited, the worker waited for the loop and the loop for the worker, and the run never ended.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agents import Runner

from hookport import ExtensionPoint, register_hook
from tests.adapters.openai_agents.harness import build_agent
from tests.conformance.harness import Turn

pytestmark = pytest.mark.usefixtures("openai_agents_adapter")


@pytest.mark.parametrize("hooked", [False, True], ids=["without-hooks", "plain-wrap-hooks"])
def test_a_run_ends_with_asyncio_wait_replaced(monkeypatch: pytest.MonkeyPatch, hooked: bool) -> None:
    original = asyncio.wait

    async def everything(*args: Any, **kwargs: Any) -> Any:
        return await original(*args, **{**kwargs, "return_when": asyncio.ALL_COMPLETED})

    monkeypatch.setattr(asyncio, "wait", everything)
    if hooked:
        for point in (ExtensionPoint.WRAP_TOOL_CALL, ExtensionPoint.WRAP_MODEL_CALL):
            register_hook(point, lambda ctx, call_next: call_next(ctx))
    tool_runs: list[tuple[str, dict[str, Any]]] = []
    agent = build_agent("calc", [Turn.call("add_numbers", a=2, b=3), Turn.final("five")], [], tool_runs)

    async def run() -> Any:  # a hang guard only: a deadlock fails here instead of hanging the suite
        return await asyncio.wait_for(Runner.run(agent, "add 2 and 3"), timeout=60)

    result = asyncio.run(run())
    assert result.final_output == "five"
    assert tool_runs == [("add_numbers", {"a": 2, "b": 3})]
