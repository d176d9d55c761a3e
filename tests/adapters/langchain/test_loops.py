"""The same guarantees on every agent-loop shape LangChain users build."""

from __future__ import annotations

from typing import Any

import pytest

from hookport import HookAborted, InterceptionPoint as P, on
from tests.support.hooks import collect
from tests.adapters.langchain.harness import HAS_LANGGRAPH, LangChainHarness
from tests.conformance.harness import Turn

LOOPS = ["lcel"]
if HAS_LANGGRAPH:
    LOOPS += ["graph", "react"]
    try:
        from langchain.agents import create_agent  # noqa: F401

        LOOPS.append("create_agent")
    except ImportError:
        pass

pytestmark = pytest.mark.usefixtures("installed")


@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("entry", ["sync", "async", "stream"])
def test_block_and_exactly_once_on_every_loop(loop: str, entry: Any) -> None:
    harness = LangChainHarness(loop=loop)  # type: ignore[arg-type]
    pre_model = collect(P.PRE_MODEL_CALL)
    pre_tool = collect(P.PRE_TOOL_CALL)
    starts = collect(P.EXECUTION_START)

    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def guard(ctx: Any) -> None:
        raise HookAborted("purging is not allowed")

    result = harness.run([Turn.call("purge_records", table="users"), Turn.final("The answer is ready.")], entry=entry)
    result.raise_error()
    assert result.runs_of("purge_records") == []
    assert harness.refusal_text("purge_records", "purging is not allowed") in str(result.model_inputs[1])
    assert result.output == "The answer is ready."
    assert len(pre_model) == 2 and len(pre_tool) == 1 and len(starts) == 1
    assert {c.agent_role for c in pre_model} == {"alpha"}
