"""The sticky abort on the call sites' idle paths: a hook's `HookAborted` that the user's own code
catches inside a run still ends the run at its next model call, even with no model hook registered."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import HumanMessage

from hookport import HookAborted, InterceptionPoint as P, on
from tests.conformance.harness import Turn

pytest.importorskip("langgraph")

from langgraph.graph import END, START, MessagesState, StateGraph  # noqa: E402

from tests.adapters.langchain.harness import Record, ScriptedChatModel, make_tools  # noqa: E402

pytestmark = pytest.mark.usefixtures("installed")


def _swallowing_graph(record: Record) -> Any:
    """One node that runs a tool, swallows any error it raises, then asks the model."""
    add_numbers = make_tools(record)[0]
    model = ScriptedChatModel(script=[Turn.final("done")], record=record)

    def node(state: MessagesState) -> dict[str, Any]:
        try:
            add_numbers.invoke({"a": 1, "b": 2})
        except HookAborted:
            pass  # the user's code catches the refusal and carries on
        return {"messages": [model.invoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("work", node)
    graph.add_edge(START, "work")
    graph.add_edge("work", END)
    return graph.compile(name="alpha")


def _refuse_result(ctx: Any) -> None:
    raise HookAborted("result refused")


def test_a_caught_abort_still_ends_the_run_at_the_next_model_call() -> None:
    record = Record()
    on(P.POST_TOOL_CALL)(_refuse_result)  # no model hook: the model's call site takes its idle path
    with pytest.raises(HookAborted, match="result refused"):
        _swallowing_graph(record).invoke({"messages": [HumanMessage("hi")]})
    assert record.tool_runs == [("add_numbers", {"a": 1, "b": 2})], "the tool ran once, its POST hook aborted"
    assert record.model_inputs == [], "the model was called after the run's abort"


def test_twin_without_the_abort_the_node_reaches_the_model() -> None:
    record = Record()
    state = _swallowing_graph(record).invoke({"messages": [HumanMessage("hi")]})
    assert record.tool_runs == [("add_numbers", {"a": 1, "b": 2})]
    assert len(record.model_inputs) == 1
    assert state["messages"][-1].content == "done"
