"""``wait = "native"`` on LangGraph: the tool call raises LangGraph's ``interrupt``, the run pauses with
the request in ``__interrupt__``, and ``Command(resume=...)`` on the same thread resumes it: the tool runs
once on a yes, never on a no. The run is the thread (``configurable.thread_id``), so the resumed call is
bound to the same request."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("langgraph")

from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from langgraph.types import Command  # noqa: E402

from hookport.approvals import forget_stores, open_store  # noqa: E402
from hookport.policy import parse_policy  # noqa: E402
from tests.policy.agents import ScriptedModel, Toolbox, ask, call, langchain_installed, told  # noqa: E402,F401

pytestmark = pytest.mark.usefixtures("langchain_installed")


@pytest.fixture
def sqlite_url(tmp_path: Any) -> Iterator[str]:
    yield f"sqlite:///{tmp_path / 'approvals.db'}"
    forget_stores()


def agent(box: Toolbox) -> Any:
    from langchain_core.messages import AIMessage

    model = ScriptedModel(replies=[AIMessage(content="", tool_calls=[call("send_email", to="bob@example.com", body="hi")]),
                                   AIMessage(content="done")])
    try:
        from langchain.agents import create_agent
    except ImportError:
        from langgraph.prebuilt import create_react_agent

        return create_react_agent(model, box.tools, checkpointer=InMemorySaver())
    return create_agent(model, box.tools, checkpointer=InMemorySaver())


def native_policy(url: str) -> None:
    parse_policy(f'[[approval]]\ntools = ["send_email"]\nstore = "{url}"\nwait = "native"\n', "p.toml").register()


def paused(box: Toolbox, thread: str) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    graph = agent(box)
    config = {"configurable": {"thread_id": thread}}
    state = graph.invoke(ask(), config)
    assert box.ran["send_email"] == 0
    [interrupt] = state["__interrupt__"]
    return graph, config, interrupt.value


@pytest.mark.parametrize("answer", [True, {"approve": True}, "approve"], ids=["true", "dict", "word"])
def test_resume_with_a_yes_runs_the_tool_once(sqlite_url: str, answer: Any) -> None:
    native_policy(sqlite_url)
    box = Toolbox()
    graph, config, request = paused(box, "thread-yes")
    assert request["tool"] == "send_email" and request["arguments"] == {"body": "hi", "to": "bob@example.com"}
    stored = open_store(sqlite_url).get(request["hookport_approval"])
    assert stored.state == "pending" and stored.run_id == "thread-yes"
    state = graph.invoke(Command(resume=answer), config)
    assert box.ran["send_email"] == 1 and told(state, "send_email") == "sent"
    after = open_store(sqlite_url).get(request["hookport_approval"])
    assert after.state == "consumed" and after.decided_by == "langchain resume"


def test_resume_with_a_no_refuses(sqlite_url: str) -> None:
    native_policy(sqlite_url)
    box = Toolbox()
    graph, config, request = paused(box, "thread-no")
    state = graph.invoke(Command(resume={"approve": False, "reason": "not to Bob"}), config)
    assert box.ran["send_email"] == 0
    assert "denied by langchain resume: not to Bob" in told(state, "send_email")


def test_a_decision_in_the_inbox_then_resume_without_a_decision(sqlite_url: str) -> None:
    """The person decides in the store (the CLI, the web page); the app resumes with no value of its own."""
    native_policy(sqlite_url)
    box = Toolbox()
    graph, config, request = paused(box, "thread-inbox")
    open_store(sqlite_url).decide(request["hookport_approval"], True, by="cli:alice")
    graph.invoke(Command(resume="see the store"), config)
    assert box.ran["send_email"] == 1
    assert open_store(sqlite_url).get(request["hookport_approval"]).decided_by == "cli:alice"


def test_native_outside_a_graph_refuses(sqlite_url: str) -> None:
    """A LangChain tool called on its own (no graph to pause) is refused, never let through."""
    native_policy(sqlite_url)
    box = Toolbox()
    send_email = box.tools[0]
    result = send_email.invoke({"to": "bob@example.com", "body": "hi"})
    assert box.ran["send_email"] == 0
    assert "not running inside a LangGraph graph" in str(result)
