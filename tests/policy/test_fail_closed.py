"""Every hook a policy compiles to fails closed, whatever the process-wide default.

With a process-wide hook timeout (HOOKPORT_HOOK_TIMEOUT), a sync hook on an async
call site runs on the loop's default executor; when that executor is busy the hook
times out before it ran. A deny, allow or limit hook that timed out must refuse.
Here the executor has one worker, and a hook registered before the policy hands it a
second of other work just before the policy's hooks run (a busy server's executor).
"""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

pytest.importorskip("langchain_core")

from hookport import InterceptionPoint, configure, register_hook, set_strict  # noqa: E402
from hookport.policy import parse_policy  # noqa: E402

from tests.policy.agents import Toolbox, ask, build_agent, call, langchain_installed, told  # noqa: E402,F401

pytestmark = pytest.mark.usefixtures("langchain_installed")

RULES = {
    "deny": '[[deny]]\ntools = ["send_email"]\nreason = "no email"\n',
    "allow": '[allow]\ntools = ["send_email", "read_file"]\n',  # allowed: only the timeout can refuse it
    "limits": "[limits]\nmax_tool_calls = 5\n",
}


def run_with_a_busy_executor(box: Toolbox, policy: str | None = None) -> str:
    agent = build_agent(box, call("send_email", to="a@example.com", body="hi"))
    busy: list[asyncio.Future[None]] = []

    async def occupy_the_executor(ctx: object) -> None:
        busy.append(asyncio.get_running_loop().run_in_executor(None, time.sleep, 1.0))

    register_hook(InterceptionPoint.PRE_TOOL_CALL, occupy_the_executor)
    if policy is not None:
        parse_policy(policy, "policy.toml").register()

    async def run() -> str:
        asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(max_workers=1))
        state = await agent.ainvoke(ask())
        await asyncio.gather(*busy)
        return told(state, "send_email")

    return asyncio.run(run())


@pytest.mark.parametrize("strict", [False, True], ids=["default", "HOOKPORT_STRICT"])
@pytest.mark.parametrize("rule", sorted(RULES))
def test_a_policy_hook_that_times_out_refuses(rule: str, strict: bool) -> None:
    configure(timeout=0.2)
    set_strict(strict)
    box = Toolbox()
    message = run_with_a_busy_executor(box, RULES[rule])
    assert box.ran["send_email"] == 0
    assert "timed out after 0.2s" in message and "policy.toml" in message


def test_the_same_run_reaches_the_tool_without_a_policy() -> None:
    """The twin: the busy executor alone does not keep the tool from running."""
    configure(timeout=0.2)
    box = Toolbox()
    assert run_with_a_busy_executor(box) == "sent"
    assert box.ran["send_email"] == 1
