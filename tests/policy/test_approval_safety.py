"""``[[approval]]`` fails closed and runs async approvers, on a real LangChain agent loop.

Each refusal test counts the tool's real executions; the `approve_*` twins show the
same path really reaches the tool when the approver says yes.
"""

from __future__ import annotations

import io
import time

import pytest

pytest.importorskip("langchain_core")

from hookport import set_strict  # noqa: E402
from hookport.policy import parse_policy  # noqa: E402

from tests.policy import approvals  # noqa: E402
from tests.policy.agents import Toolbox, ask, build_agent, call, langchain_installed, told  # noqa: E402,F401

pytestmark = pytest.mark.usefixtures("langchain_installed")


def approval_policy(hook: str, extra: str = "") -> None:
    parse_policy(
        f'[[approval]]\nhook = "tests.policy.approvals:{hook}"\ntools = ["send_email"]\n'
        f'reason = "a person must approve emails"\n{extra}',
        "policy.toml",
    ).register()


def run_send(asynchronous: bool = False) -> tuple[Toolbox, str]:
    box, message, _ = timed_send(asynchronous)
    return box, message


def timed_send(asynchronous: bool = False) -> tuple[Toolbox, str, float]:
    """Run the agent once; also how long the run itself took (not the abandoned approver's thread)."""
    box = Toolbox()
    agent = build_agent(box, call("send_email", to="a@example.com", body="hi"))
    started = time.perf_counter()
    if asynchronous:
        import asyncio

        async def run() -> tuple[dict, float]:
            state = await agent.ainvoke(ask())
            return state, time.perf_counter() - started

        state, elapsed = asyncio.run(run())
    else:
        state = agent.invoke(ask())
        elapsed = time.perf_counter() - started
    return box, told(state, "send_email"), elapsed


@pytest.mark.parametrize("strict", [False, True], ids=["default", "HOOKPORT_STRICT"])
def test_an_approver_that_raises_refuses_the_tool(strict: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """No terminal: `input()` raises EOFError. The call is refused, in strict mode too (no crash)."""
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    set_strict(strict)
    approval_policy("ask_on_the_console")
    box, message = run_send()
    assert box.ran["send_email"] == 0
    assert "a person must approve emails" in message and "EOFError" in message and "refused" in message


def test_an_approver_that_answers_yes_lets_the_tool_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))
    approval_policy("ask_on_the_console")
    box, message = run_send()
    assert box.ran["send_email"] == 1 and message == "sent"


@pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
def test_an_async_approver_is_awaited(asynchronous: bool) -> None:
    approvals.asked.clear()
    approval_policy("approve_async")
    box, message = run_send(asynchronous)
    assert approvals.asked == ["send_email"]
    assert box.ran["send_email"] == 1 and message == "sent"


@pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
def test_an_async_approver_that_says_no_refuses(asynchronous: bool) -> None:
    approval_policy("refuse_async")
    box, message = run_send(asynchronous)
    assert box.ran["send_email"] == 0 and "a person must approve emails" in message


@pytest.mark.parametrize("hook", ["slow_yes", "slow_yes_async"])
@pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
def test_an_approval_past_its_timeout_refuses(hook: str, asynchronous: bool) -> None:
    approval_policy(hook, "timeout = 0.3\n")
    box, message, elapsed = timed_send(asynchronous)
    assert elapsed < 1.8  # it did not wait for the slow answer
    assert box.ran["send_email"] == 0
    assert "timed out after 0.3s" in message and "approval[0]" in message


def test_a_timeout_does_not_refuse_a_prompt_answer() -> None:
    approvals.asked.clear()
    approval_policy("approve_async", "timeout = 5\n")
    box, message = run_send(asynchronous=True)
    assert box.ran["send_email"] == 1 and message == "sent"
