"""The contract's fields on an MCP client: no model calls, so no ``ctx.iterations`` scenarios; a
refused tool call's text is the refusal sentence alone."""

from __future__ import annotations

import asyncio
from typing import Any

from hookport import HookAborted, InterceptionPoint, on
from tests.adapters.mcp.harness import NO_MODEL, MCPHarness
from tests.adapters.mcp.server import RUNS, session, text_of

P = InterceptionPoint
MODEL_SIDE = (
    "fields__iterations_count_model_calls_from_zero",
    "fields__iteration_guard_stops_an_endless_loop_at_the_limit",
    "fields__legacy_iteration_guard_returning_false",
    "middleware__after_model_replaces_the_answer_with_remove_message",
    "middleware__wrap_model_call_reads_the_handlers_answer",
)


def test_the_model_side_scenarios_are_declared_not_offered_with_the_reason() -> None:
    offered = MCPHarness.not_offered
    assert {name: NO_MODEL in offered.get(name, "") for name in MODEL_SIDE} == dict.fromkeys(MODEL_SIDE, True)
    assert "fields" not in offered and "fields__refusal_reaches_the_model_as_a_sentence" not in offered


def test_a_refusal_raised_from_another_error_is_the_sentence_alone() -> None:
    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def refuse(ctx: Any) -> None:
        try:
            raise LookupError("no change ticket on file")
        except LookupError as cause:
            raise HookAborted(reason="purging needs a change ticket", source="policy") from cause

    async def main() -> Any:
        async with session() as tools:
            return await tools.call_tool("purge_records", {"table": "users"})

    RUNS.clear()
    text = text_of(asyncio.run(main()))
    assert text == "Tool call purge_records was refused: purging needs a change ticket"
    assert RUNS == []
