"""Tool calls on ADK: parallel calls, refusals in ADK's convention, users' callbacks and plugins."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from google.adk.plugins.base_plugin import BasePlugin

from hookport import HookAborted, InterceptionPoint, on
from tests.adapters.google_adk.harness import Record, make_runner, message
from tests.conformance.harness import ToolCall, Turn

P = InterceptionPoint


def _run(runner: Any, prompt: str = "go") -> list[Any]:
    async def go() -> list[Any]:
        session = await runner.session_service.create_session(app_name="hookport", user_id="u")
        return [e async for e in runner.run_async(user_id="u", session_id=session.id, new_message=message(prompt))]

    return asyncio.run(go())


def _parallel() -> list[Turn]:
    return [Turn(tool_calls=[ToolCall("add_numbers", {"a": 2, "b": 3}), ToolCall("purge_records", {"table": "users"}),
                             ToolCall("purge_records", {"table": "logs"})]),
            Turn.final("The answer is ready.")]


def test_parallel_calls_are_each_hooked_and_refused_alone(harness: Any) -> None:
    seen: list[str] = []

    @on(P.PRE_TOOL_CALL)
    def guard(ctx: Any) -> None:
        seen.append(f"{ctx.tool_name}:{ctx.tool_call_id}")
        if ctx.tool_name == "purge_records":
            raise HookAborted("purging is not allowed", source="policy")

    record = Record(_parallel())
    events = _run(make_runner(record, "alpha"))
    assert sorted(seen) == ["add_numbers:call_1", "purge_records:call_2", "purge_records:call_3"]
    assert record.tool_runs == [("add_numbers", {"a": 2, "b": 3})]
    assert len(record.model_inputs) == 2, "a refused call was retried or the loop stopped"
    results = {r["tool_result"]["id"]: r["tool_result"]["response"] for r in record.model_inputs[1] if "tool_result" in r}
    assert results["call_1"] == {"result": "5"}
    for call_id in ("call_2", "call_3"):
        assert results[call_id] == {"error": "Tool call purge_records was refused: purging is not allowed"}
    assert events[-1].content.parts[0].text == "The answer is ready."


class Audit(BasePlugin):
    """A user's own ADK plugin: it must keep working next to hookport."""

    def __init__(self, order: list[str]) -> None:
        super().__init__(name="audit")
        self.order = order

    async def before_tool_callback(self, *, tool: Any, tool_args: Any, tool_context: Any) -> None:
        self.order.append(f"plugin before_tool {tool_args}")

    async def after_tool_callback(self, *, tool: Any, tool_args: Any, tool_context: Any, result: Any) -> None:
        self.order.append(f"plugin after_tool {result}")


def test_users_plugins_and_callbacks_run_around_hookport(harness: Any) -> None:
    order: list[str] = []

    @on(P.PRE_TOOL_CALL)
    def refuse(ctx: Any) -> None:
        order.append(f"hookport pre {ctx.tool_input}")
        raise HookAborted("no")

    on(P.POST_TOOL_CALL)(lambda ctx: order.append(f"hookport post refused={ctx.refused}"))

    def before_tool(tool: Any, args: Any, tool_context: Any) -> None:
        order.append("agent before_tool")

    def after_tool(tool: Any, args: Any, tool_context: Any, tool_response: Any) -> None:
        order.append(f"agent after_tool {tool_response}")

    from google.adk.runners import InMemoryRunner

    record = Record([Turn.call("purge_records", table="users"), Turn.final("ok")])
    agent = make_runner(record, "alpha", before_tool_callback=before_tool, after_tool_callback=after_tool).agent
    runner = InMemoryRunner(agent=agent, app_name="hookport", plugins=[Audit(order)])
    _run(runner)
    refusal = {"error": "Tool call purge_records was refused: no"}
    assert order == [
        "plugin before_tool {'table': 'users'}",
        "agent before_tool",
        "hookport pre {'table': 'users'}",
        "hookport post refused=True",
        f"plugin after_tool {refusal}",
        f"agent after_tool {refusal}",
    ]
    assert record.tool_runs == []


def test_a_callback_that_answers_means_no_tool_and_no_hook(harness: Any) -> None:
    fired: list[str] = []
    on(P.PRE_TOOL_CALL)(lambda ctx: fired.append(ctx.tool_name))
    record = Record([Turn.call("add_numbers", a=1, b=2), Turn.final("ok")])
    runner = make_runner(record, "alpha", before_tool_callback=lambda tool, args, tool_context: {"result": "cached"})
    _run(runner)
    assert fired == [] and record.tool_runs == []
    assert "cached" in str(record.model_inputs[1])


def test_async_tool_hooks_run_on_the_runs_loop(harness: Any) -> None:
    where: dict[str, Any] = {}

    @on(P.PRE_TOOL_CALL)
    async def check(ctx: Any) -> None:
        where["hook"] = (threading.get_ident(), asyncio.get_running_loop())

    record = Record([Turn.call("add_numbers", a=1, b=2), Turn.final("ok")])
    runner = make_runner(record, "alpha")

    async def go() -> None:
        where["run"] = (threading.get_ident(), asyncio.get_running_loop())
        session = await runner.session_service.create_session(app_name="hookport", user_id="u")
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=message("go")):
            pass

    asyncio.run(go())
    assert where["hook"] == where["run"]
    assert len(record.tool_runs) == 1
