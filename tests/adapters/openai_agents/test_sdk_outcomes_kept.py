"""What the Agents SDK's own tests found hookport changing (peer-openai-agents, issue #29), kept as it is.

Each scenario runs twice, with no hook and with a pass-through hook on every tool point (a plain
``def`` wrap hook, which runs through the sync-wrap bridge), and both runs must see the same:

- a sync tool function that returns an awaitable: the SDK hands the awaitable back un-awaited
  (``test_sync_function_preserves_awaitable_result``);
- a cancelled parallel tool that fails fatally while it winds down: its late error wins over the
  sibling's ordinary one (``test_multiple_tool_calls_raise_late_fatal_sibling_exception_after_cancellation``);
- a parallel tool whose hooks are still finishing (POST, on the bridge's worker) when its sibling's
  end hook fails keeps its output for the resumed run
  (``test_failed_parallel_tool_end_hook_checkpoints_outputs_in_model_order``);
- ``copy.copy`` of a tool whose body was replaced after it was built keeps that very body
  (``test_shallow_copy_preserves_callable_with_bound_method_metadata``), while a copy of a guarded
  tool still refuses a denied call.
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import time
from typing import Any

import pytest
from agents import Agent, FunctionTool, RunHooks, Runner, UserError, function_tool
from agents.tool_context import ToolContext

from hookport import ExtensionPoint, HookAborted, InterceptionPoint, register_hook
from tests.adapters.openai_agents.harness import ScriptedModel
from tests.conformance.harness import ToolCall, Turn
from tests.core.test_sync_wraps_bridge import fail_when_cancelled

pytestmark = pytest.mark.usefixtures("openai_agents_adapter")
HOOKED = pytest.mark.parametrize("hooked", [False, True], ids=["no-hook", "plain-wrap-hook"])


def passthrough_everywhere() -> None:
    register_hook(InterceptionPoint.PRE_TOOL_CALL, lambda ctx: None)
    register_hook(InterceptionPoint.POST_TOOL_CALL, lambda ctx: None)
    register_hook(ExtensionPoint.WRAP_TOOL_CALL, lambda ctx, call_next: call_next(ctx))


def tool_context(name: str) -> ToolContext[Any]:
    return ToolContext(None, tool_name=name, tool_call_id="1", tool_arguments="{}")


@HOOKED
def test_a_sync_tool_returning_an_awaitable_gets_it_back_unawaited(hooked: bool) -> None:
    if hooked:
        passthrough_everywhere()

    async def main() -> None:
        async def twelve() -> int:
            return 12

        awaitable = twelve()

        def handler() -> Any:
            return awaitable

        tool = function_tool(handler)
        returned = await tool.on_invoke_tool(tool_context(tool.name), "{}")
        assert returned is awaitable and inspect.isawaitable(returned)
        assert await returned == 12

    asyncio.run(main())


class ToolAborted(BaseException):
    """A tool's fatal error (not an ``Exception``), raised as it winds down after a cancel."""


@HOOKED
@pytest.mark.parametrize("ticks", [1, 20])
def test_a_cancelled_siblings_late_fatal_error_wins(monkeypatch: pytest.MonkeyPatch, hooked: bool, ticks: int) -> None:
    from agents.run_internal import tool_execution

    monkeypatch.setattr(tool_execution, "_FUNCTION_TOOL_CANCELLED_DRAIN_SECONDS", 5.0, raising=False)
    if hooked:
        passthrough_everywhere()
    runs: list[str] = []

    async def main() -> None:
        ready, cancelled = asyncio.Event(), asyncio.Event()

        async def fails_first() -> str:
            runs.append("fails_first")
            await ready.wait()
            raise ValueError("ordinary failure")

        async def fails_late() -> str:
            runs.append("fails_late")
            ready.set()
            await fail_when_cancelled(cancelled, ticks, ToolAborted(f"late-{ticks}"))

        tools = [function_tool(fails_first, failure_error_function=None),
                 function_tool(fails_late, failure_error_function=None)]
        script = [Turn(tool_calls=[ToolCall("fails_first", {}), ToolCall("fails_late", {})]), Turn.final("done")]
        agent = Agent(name="siblings", model=ScriptedModel(script, []), tools=tools)
        with pytest.raises(ToolAborted, match=f"late-{ticks}"):
            await asyncio.wait_for(Runner.run(agent, "go"), timeout=30)
        assert cancelled.is_set()

    asyncio.run(main())
    assert sorted(runs) == ["fails_first", "fails_late"]


class FailSecondEndHookOnce(RunHooks[Any]):
    """The sibling's end hook fails once, as soon as the first tool's body has returned."""

    def __init__(self, first_returned: asyncio.Event) -> None:
        self.first_returned = first_returned
        self.failed = False

    async def on_tool_end(self, context: Any, agent: Any, tool: Any, result: object) -> None:
        if tool.name == "second" and not self.failed:
            await self.first_returned.wait()
            self.failed = True
            raise RuntimeError("second end hook failed")


def audit_slowly(ctx: Any) -> None:
    """A POST hook's own work (an audit write) after the first tool returned, on the worker."""
    if ctx.tool_name == "first":
        time.sleep(0.05)


@HOOKED
def test_a_tools_output_is_kept_when_its_siblings_end_hook_fails(hooked: bool) -> None:
    """The SDK cancels the first tool when the second's end hook fails; with the first's POST hook
    still running on the bridge's worker, the bridge used to end the task with the cancel, the
    output was lost and the resumed run refused the call that had executed. The SDK waits 0.25 s
    for a cancelled tool only while it sees it progress on the loop."""
    from agents.run_internal import tool_execution

    if "tool_output_committer" not in inspect.getsource(tool_execution):
        pytest.skip("this SDK does not keep an executed tool's output for a resumed run")
    if hooked:
        passthrough_everywhere()
        register_hook(InterceptionPoint.POST_TOOL_CALL, audit_slowly)
    executed: list[str] = []
    inputs: list[list[dict[str, Any]]] = []

    async def main() -> None:
        first_returned = asyncio.Event()

        async def first() -> str:
            await asyncio.sleep(0.01)
            executed.append("first")
            first_returned.set()
            return "first"

        async def second() -> str:
            executed.append("second")
            return "second"

        tools = [function_tool(first, needs_approval=True), function_tool(second, needs_approval=True)]
        script = [Turn(tool_calls=[ToolCall("first", {}), ToolCall("second", {})]), Turn.final("done")]
        agent = Agent(name="parallel", model=ScriptedModel(script, inputs), tools=tools)
        hooks = FailSecondEndHookOnce(first_returned)
        paused = await Runner.run(agent, "run tools")
        state = paused.to_state()
        for interruption in paused.interruptions:
            state.approve(interruption)
        with pytest.raises(UserError, match="second end hook failed"):
            await asyncio.wait_for(Runner.run(agent, state, hooks=hooks), timeout=30)
        resumed = await asyncio.wait_for(Runner.run(agent, state, hooks=hooks), timeout=30)
        assert resumed.final_output == "done"

    asyncio.run(main())
    assert sorted(executed) == ["first", "second"]
    outputs = [m.get("call_id") for m in inputs[-1] if m.get("type") == "function_call_output"]
    assert outputs == ["call_1", "call_2"]


@HOOKED
def test_a_copy_keeps_a_body_set_after_the_tool_was_built(hooked: bool) -> None:
    if hooked:
        passthrough_everywhere()

    async def invoke(ctx: ToolContext[Any], raw: str) -> str:
        return "built with"

    async def replacement(ctx: ToolContext[Any], raw: str) -> str:
        return "set later"

    tool = FunctionTool(name="replaced", description="", params_json_schema={}, on_invoke_tool=invoke)
    tool.on_invoke_tool = replacement
    copied = copy.copy(tool)
    assert copied.on_invoke_tool is replacement
    assert asyncio.run(copied.on_invoke_tool(tool_context("replaced"), "{}")) == "set later"


@HOOKED
def test_a_copy_of_a_guarded_tool_still_refuses_a_denied_call(hooked: bool) -> None:
    executions: list[str] = []

    @function_tool
    def purge(table: str) -> str:
        """Purge a table.

        Args:
            table: the table
        """
        executions.append(table)
        return f"purged {table}"

    if hooked:
        def deny(ctx: Any) -> None:
            raise HookAborted("no purging")

        register_hook(InterceptionPoint.PRE_TOOL_CALL, deny)
    copied = copy.copy(purge)
    answer = asyncio.run(copied.on_invoke_tool(tool_context("purge"), '{"table": "users"}'))
    if hooked:
        assert executions == [] and "no purging" in str(answer)
    else:
        assert executions == ["users"] and answer == "purged users"
