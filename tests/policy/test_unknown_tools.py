"""A rule naming a tool that no agent has (a typo) is reported once per run, naming the rule."""

from __future__ import annotations

import logging

import pytest

pytest.importorskip("langchain_core")

from hookport.boundary import run_execution  # noqa: E402
from hookport.policy import parse_policy  # noqa: E402
from hookport.policy.offered import offered_tools  # noqa: E402

from tests.policy.agents import Toolbox, ask, build_agent, call, langchain_installed, told  # noqa: E402,F401

TYPO = '[[deny]]\ntools = ["delete_flie", "delete_file"]\nreason = "no deletes"\n\n[[approval]]\nhook = "tests.policy.approvals:approve_small_payments"\ntools = ["pay_invoice"]\n'


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "hookport.policy" and r.levelno == logging.WARNING]


@pytest.mark.usefixtures("langchain_installed")
def test_a_misspelled_tool_is_named_once_per_run(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="hookport.policy")
    parse_policy(TYPO, "policy.toml").register()
    box = Toolbox()
    agent = build_agent(box, call("delete_file", path="x"))
    state = agent.invoke(ask())  # two model calls in this run
    assert box.ran["delete_file"] == 0 and "no deletes" in told(state, "delete_file")
    said = warnings_of(caplog)
    assert len(said) == 2, said  # one per rule with an unknown tool, not one per model call
    assert "policy.toml:1:deny[0] names 'delete_flie'" in said[0] and "'delete_file'" not in said[0].split("(")[0]
    assert "delete_file, read_file, send_email" in said[0]
    assert "policy.toml:5:approval[0] names 'pay_invoice'" in said[1]
    caplog.clear()
    build_agent(Toolbox(), call("read_file", path="x")).invoke(ask())  # a new run is checked again
    assert len(warnings_of(caplog)) == 2


@pytest.mark.usefixtures("langchain_installed")
def test_no_warning_when_every_named_tool_is_offered(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="hookport.policy")
    parse_policy('[[deny]]\ntools = ["Delete File"]\n', "policy.toml").register()  # matched the CrewAI way
    build_agent(Toolbox(), call("read_file", path="x")).invoke(ask())
    assert warnings_of(caplog) == []


def test_offered_tools_reads_the_shapes_adapters_expose() -> None:
    class Ctx:
        def __init__(self, metadata: dict) -> None:
            self.metadata = metadata

    class Named:
        name = "search"

    assert offered_tools(Ctx({"tools": ["a", {"name": "b"}, Named()]})) == ["a", "b", "search"]
    assert offered_tools(Ctx({"call_kwargs": {"tools": [{"type": "function", "function": {"name": "c"}}]}})) == ["c"]
    assert offered_tools(Ctx({})) is None
    assert run_execution("t", lambda _: offered_tools(Ctx({"tools": None})), {}) is None
