"""An agent used as a tool that its parent's cancel signal stops reports Strands' own cancellation,
whatever hooks are registered: the run's result event reaches ``_AgentAsTool.stream`` while the
sub-agent's cancel signal is still set (Strands clears it once ``stream_async`` ends)."""

from __future__ import annotations

import asyncio
import inspect
import threading
from typing import Any

import pytest
from strands import Agent

from hookport import InterceptionPoint, register_hook
from tests.adapters.strands.harness import Record, make_agent
from tests.conformance.harness import Turn

P = InterceptionPoint


def _agent_as_tool_honours_the_parents_cancel_signal() -> bool:
    """Strands passes the parent's cancel signal to an agent used as a tool only in newer releases
    (1.62 does; 1.50's `_AgentAsTool.stream` never reads it, and reports success without hookport)."""
    try:
        from strands.agent import _agent_as_tool
    except ImportError:
        return False
    return "cancel_signal" in inspect.getsource(_agent_as_tool)


pytestmark = [pytest.mark.usefixtures("strands_adapter"),
              pytest.mark.skipif(not hasattr(Agent, "as_tool"), reason="Agent.as_tool() came with strands 1.5x"),
              pytest.mark.skipif(not _agent_as_tool_honours_the_parents_cancel_signal(),
                                 reason="this Strands release does not cancel an agent used as a tool "
                                        "with its parent's signal (nothing for hookport to keep)")]


class _Context:
    """A tool context carrying the parent's cancel signal, as Strands hands a background tool call."""

    def __init__(self, signal: threading.Event) -> None:
        self.cancel_signal = signal


def _last_event(record: Record) -> dict[str, Any]:
    helper = make_agent(record, "helper").as_tool(name="helper")
    signal = threading.Event()
    signal.set()  # the parent was cancelled before the sub-agent ran

    async def drive() -> Any:
        events = [event async for event in helper.stream({"toolUseId": "call-1", "name": "helper",
                                                          "input": {"input": "go"}}, {},
                                                         _tool_context=_Context(signal))]
        return events[-1]

    return asyncio.run(drive())


@pytest.mark.parametrize("hooked", [None, P.OUTPUT, P.EXECUTION_END, P.PRE_MODEL_CALL])
def test_a_cancelled_agent_as_tool_reports_its_cancellation(hooked: InterceptionPoint | None) -> None:
    if hooked is not None:
        register_hook(hooked, lambda ctx: None)
    record = Record([Turn.final("never")])
    event = _last_event(record)
    result = event.get("tool_result") or event
    assert result["status"] == "error", result
    assert result["content"] == [{"text": "Agent 'helper' cancelled"}]
