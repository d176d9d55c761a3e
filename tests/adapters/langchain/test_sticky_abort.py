"""The sticky abort on the call sites' idle paths: a hook's `HookAborted` that the user's own code
catches inside a run still ends the run at its next model call, even with no model hook registered."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from langchain_core.tools import tool

from hookport import HookAborted, InterceptionPoint as P, on
from tests.conformance.harness import Turn

pytest.importorskip("langgraph")

from langgraph.graph import END, START, MessagesState, StateGraph  # noqa: E402

from tests.adapters.langchain.harness import Record, ScriptedChatModel  # noqa: E402

pytestmark = pytest.mark.usefixtures("installed")


def _swallowing_graph(runs: list[int], record: Record) -> Any:
    """One node that runs a tool, swallows any error it raises, then asks the model."""

    @tool
    def lookup(x: int) -> str:
        """Looks a value up."""
        runs.append(x)
        return "card 4111 1111 1111 1111"

    model = ScriptedChatModel(script=[Turn.final("done")], record=record)

    def node(state: MessagesState) -> dict[str, Any]:
        try:
            lookup.invoke({"x": 1})
        except HookAborted:
            pass  # the user's code catches the refusal and carries on
        return {"messages": [model.invoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("work", node)
    graph.add_edge(START, "work")
    graph.add_edge("work", END)
    return graph.compile(name="alpha")


def _leak_guard(ctx: Any) -> None:
    raise HookAborted("result leaked a card number")


def test_a_caught_abort_still_ends_the_run_at_the_next_model_call() -> None:
    runs: list[int] = []
    record = Record()
    on(P.POST_TOOL_CALL)(_leak_guard)  # no model hook: the model's call site takes its idle path
    with pytest.raises(HookAborted, match="leaked a card number"):
        _swallowing_graph(runs, record).invoke({"messages": [HumanMessage("hi")]})
    assert runs == [1], "the tool ran once, its POST hook aborted"
    assert record.model_inputs == [], "the model was called after the run's abort"


def test_twin_without_the_abort_the_node_reaches_the_model() -> None:
    runs: list[int] = []
    record = Record()
    state = _swallowing_graph(runs, record).invoke({"messages": [HumanMessage("hi")]})
    assert runs == [1]
    assert len(record.model_inputs) == 1
    assert state["messages"][-1].content == "done"
