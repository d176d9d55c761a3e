"""Tool calls on Pydantic AI: parallel refusals, no retry of a refused tool, toolsets, native capabilities."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from hookport import HookAborted, InterceptionPoint, on
from tests.conformance.harness import ToolCall, Turn

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent  # noqa: E402
from pydantic_ai.capabilities import AbstractCapability  # noqa: E402
from pydantic_ai.toolsets import FunctionToolset  # noqa: E402

from tests.adapters.pydantic_ai.harness import ScriptedModel, _Record, make_agent  # noqa: E402

P = InterceptionPoint


def _deny_purges() -> list[str]:
    pre: list[str] = []

    @on(P.PRE_TOOL_CALL)
    def guard(ctx: Any) -> None:
        pre.append(ctx.tool_name)
        if ctx.tool_name == "purge_records":
            raise HookAborted("purging is not allowed", source="policy")

    return pre


def test_parallel_calls_are_each_refused_and_never_retried(harness: Any) -> None:
    pre = _deny_purges()
    both = Turn(tool_calls=[ToolCall("purge_records", {"table": "users"}),
                            ToolCall("purge_records", {"table": "orders"}),
                            ToolCall("add_numbers", {"a": 2, "b": 3})])
    result = harness.run([both, Turn.final("The answer is ready.")])
    result.raise_error()
    assert result.runs_of("purge_records") == []
    assert result.runs_of("add_numbers") == [{"a": 2, "b": 3}]
    assert sorted(pre) == ["add_numbers", "purge_records", "purge_records"], "a refused call was retried"
    assert len(result.model_inputs) == 2
    assert result.seen_by_model().count("The tool call to purge_records was denied: purging is not allowed") == 2


@pytest.mark.parametrize("entry", ["sync", "async", "stream"])
def test_refusal_is_the_tool_return_on_every_entry(harness: Any, entry: str) -> None:
    _deny_purges()
    result = harness.run([Turn.call("purge_records", table="users"), Turn.final("ok")], entry=entry)
    result.raise_error()
    returns = [m for m in result.model_inputs[1] if m["kind"] == "tool-return"]
    assert returns and returns[0]["content"] == "The tool call to purge_records was denied: purging is not allowed"
    assert result.runs_of("purge_records") == []


def test_toolset_tools_are_hooked(pydantic_ai_adapter: Any) -> None:
    pre = _deny_purges()
    runs: list[str] = []
    toolset: FunctionToolset[None] = FunctionToolset()

    @toolset.tool_plain
    def purge_records(table: str) -> str:
        """Delete every record of a table."""
        runs.append(table)
        return "purged"

    record = _Record([Turn.call("purge_records", table="users"), Turn.final("ok")])
    agent: Agent[None, str] = Agent(ScriptedModel(record).model(), name="ts", toolsets=[toolset])
    assert agent.run_sync("go").output == "ok"
    assert runs == [] and pre == ["purge_records"]


@dataclass
class CountingCapability(AbstractCapability[Any]):
    """A user's own capability: it must keep seeing every tool call, refused or not."""

    def __post_init__(self) -> None:
        self.seen: list[tuple[str, Any]] = []

    async def wrap_tool_execute(self, ctx: Any, *, call: Any, tool_def: Any, args: Any, handler: Any) -> Any:
        result = await handler(args)
        self.seen.append((call.tool_name, result))
        return result


def test_users_capabilities_keep_working(pydantic_ai_adapter: Any) -> None:
    on(P.POST_TOOL_CALL)(lambda ctx: "REPLACED")
    record = _Record([Turn.call("add_numbers", a=2, b=3), Turn.final("ok")])
    agent = make_agent(record, "cap")
    mine = CountingCapability()
    agent.run_sync("go", capabilities=[mine])
    assert [name for name, _ in mine.seen] == ["add_numbers"], mine.seen  # once, around hookport's points
    assert "REPLACED" in str(record.model_inputs[1])
