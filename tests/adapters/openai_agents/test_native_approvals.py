"""``wait = "native"`` on the OpenAI Agents SDK: the SDK's own approval interruptions.

A native rule makes the SDK ask for approval of a covered call (``needs_approval``): the run
stops with ``result.interruptions`` and the tool has not run; ``state.approve(item)`` and
``Runner.run(agent, state)`` resume it and the tool runs once, with the decision recorded in
the store; ``state.reject(item)`` never runs it. The twin without a rule runs the tool at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("agents")

from agents import Runner  # noqa: E402

from hookport.approvals import forget_stores, open_store  # noqa: E402
from hookport.policy import parse_policy  # noqa: E402
from tests.adapters.openai_agents.harness import build_agent  # noqa: E402
from tests.conformance.harness import Turn  # noqa: E402


@pytest.fixture
def sqlite_url(tmp_path: Any) -> Iterator[str]:
    yield f"sqlite:///{tmp_path / 'approvals.db'}"
    forget_stores()


pytestmark = pytest.mark.usefixtures("openai_agents_adapter")


def start(runs: list[tuple[str, dict[str, Any]]]) -> tuple[Any, Any]:
    agent = build_agent("ops", [Turn.call("purge_records", table="users"), Turn.final("done")], [], runs)
    return agent, asyncio.run(Runner.run(agent, "purge the users table"))


def test_without_a_rule_the_tool_runs(sqlite_url: str) -> None:
    runs: list[tuple[str, dict[str, Any]]] = []
    _, result = start(runs)
    assert runs == [("purge_records", {"table": "users"})] and not result.interruptions


@pytest.mark.parametrize("approve", [True, False], ids=["approve", "reject"])
def test_the_run_pauses_and_resumes_the_sdk_way(sqlite_url: str, approve: bool) -> None:
    parse_policy(f'[[approval]]\ntools = ["purge_records"]\nstore = "{sqlite_url}"\nwait = "native"\n', "p.toml").register()
    runs: list[tuple[str, dict[str, Any]]] = []
    agent, result = start(runs)
    assert runs == []
    [item] = result.interruptions
    assert item.name == "purge_records"
    state = result.to_state()
    state.approve(item) if approve else state.reject(item)
    resumed = asyncio.run(Runner.run(agent, state))
    assert len(runs) == (1 if approve else 0)
    assert resumed.final_output == "done"
    if approve:
        [request] = open_store(sqlite_url).list(states=None)
        assert request.state == "consumed" and request.decided_by == "openai-agents run state"
        assert request.arguments == {"table": "users"}


def test_a_direct_tool_call_under_a_native_rule_is_refused(sqlite_url: str) -> None:
    """No run asked the SDK for approval: fail closed."""
    from agents.tool_context import ToolContext

    parse_policy(f'[[approval]]\ntools = ["purge_records"]\nstore = "{sqlite_url}"\nwait = "native"\n', "p.toml").register()
    runs: list[tuple[str, dict[str, Any]]] = []
    agent = build_agent("ops", [], [], runs)
    purge = agent.tools[1]
    context = ToolContext(context=None, tool_name="purge_records", tool_call_id="c1", tool_arguments='{"table": "x"}')
    output = asyncio.run(purge.on_invoke_tool(context, '{"table": "x"}'))
    assert runs == [] and "did not ask for this call's approval" in str(output)
