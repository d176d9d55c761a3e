"""A no-op PRE+POST pair on Agent Framework leaves no cyclic garbage of hookport's (issue #29)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("agent_framework")

from hookport import InterceptionPoint, on  # noqa: E402
from tests.adapters.agent_framework.harness import build_agent  # noqa: E402
from tests.adapters.garbage import hookport_garbage  # noqa: E402
from tests.conformance.harness import Turn  # noqa: E402

P = InterceptionPoint


def test_a_hooked_run_leaves_no_cycle_of_hookports(agent_framework_adapter: Any) -> None:
    seen: list[str] = []
    for point in (P.PRE_MODEL_CALL, P.POST_MODEL_CALL, P.PRE_TOOL_CALL, P.POST_TOOL_CALL):
        on(point)(lambda ctx, point=point: seen.append(point.value))
    tool_runs: list[Any] = []

    def run() -> None:
        agent = build_agent("alpha", [Turn.call("add_numbers", a=2, b=3), Turn.final("5")], [], tool_runs)
        asyncio.run(agent.run("go"))

    assert hookport_garbage(run) == []
    assert len(tool_runs) == 6 and len(seen) == 6 * 6  # the hooks ran: 2 requests and 1 tool call, PRE and POST
