"""``[[redact]]`` reaches the arguments a tool receives, on a real LangChain agent loop; and
docs/policy.md's card pattern keeps the text around the number intact."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("langchain_core")

from hookport.policy import parse_policy  # noqa: E402

from tests.policy.agents import Toolbox, ask, build_agent, call, langchain_installed  # noqa: E402,F401

DOCS = Path(__file__).resolve().parents[2] / "docs" / "policy.md"
CARD_RULE = "[[redact]]\npattern = '\\b\\d(?:[ -]?\\d){12,15}\\b'\nreplacement = \"[CARD]\"\n"
BODY = "Refund card 4111 1111 1111 1111 and the customer, ref 4111-1111-1111-1111."


def docs_card_pattern() -> str:
    example = DOCS.read_text(encoding="utf-8").split("```toml\n", 1)[1].split("```", 1)[0]
    return next(line.split("=", 1)[1].strip().strip("'") for line in example.splitlines() if line.startswith("pattern") and "[ -]" in line)


def test_the_documented_card_pattern_keeps_the_space_after_the_number() -> None:
    pattern = re.compile(docs_card_pattern())
    assert pattern.sub("[CARD]", BODY) == "Refund card [CARD] and the customer, ref [CARD]."
    assert pattern.sub("[CARD]", "order 1234 5678") == "order 1234 5678"  # short numbers stay


def send(box: Toolbox) -> None:
    build_agent(box, call("send_email", to="billing@example.com", body=BODY)).invoke(ask())


@pytest.mark.usefixtures("langchain_installed")
def test_the_tool_receives_redacted_arguments() -> None:
    parse_policy(CARD_RULE, "p.toml").register()  # the default `in` covers tool_args
    box = Toolbox()
    send(box)
    assert box.ran["send_email"] == 1
    assert box.received == [{"to": "billing@example.com", "body": "Refund card [CARD] and the customer, ref [CARD]."}]


@pytest.mark.usefixtures("langchain_installed")
def test_without_the_rule_the_tool_receives_the_number() -> None:
    """The twin: the same run really carries the number into the tool."""
    box = Toolbox()
    send(box)
    assert box.received == [{"to": "billing@example.com", "body": BODY}]


@pytest.mark.usefixtures("langchain_installed")
def test_tool_args_alone_and_nested_values() -> None:
    parse_policy("[[redact]]\npattern = 'secret-\\w+'\nin = [\"tool_args\"]\n", "p.toml").register()
    from hookport import InterceptionPoint, dispatch
    from hookport.contexts import ToolCallHookContext

    original = {"to": ["a", "secret-x"], "meta": {"note": "secret-y", "n": 3}}
    ctx = dispatch(InterceptionPoint.PRE_TOOL_CALL, ToolCallHookContext("send_email", original))
    assert ctx.tool_input == {"to": ["a", "[REDACTED]"], "meta": {"note": "[REDACTED]", "n": 3}}


@pytest.mark.usefixtures("langchain_installed")
def test_the_final_state_carries_no_raw_tool_call_arguments() -> None:
    """The agent's returned conversation keeps the model's tool calls: their arguments are redacted too."""
    box = Toolbox()
    agent = build_agent(box, call("send_email", to="billing@example.com", body=BODY))
    raw = [m for m in agent.invoke(ask())["messages"] if getattr(m, "tool_calls", None)]
    assert "4111" in str(raw[0].tool_calls)  # the twin: without a rule the number is in the final state
    parse_policy(CARD_RULE, "p.toml").register()
    box = Toolbox()
    state = build_agent(box, call("send_email", to="billing@example.com", body=BODY)).invoke(ask())
    assert all("4111" not in str(m.content) + str(getattr(m, "tool_calls", "")) for m in state["messages"])
    assert box.ran["send_email"] == 1
