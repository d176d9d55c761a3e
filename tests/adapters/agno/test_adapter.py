"""What only Agno has: parallel async tool calls, sync tools on worker threads in async runs,
users' tool_hooks next to hookport's, run retries, teams, async streams, message isolation."""

from __future__ import annotations

import asyncio
import inspect
import threading
import types
from typing import Any

import pytest

pytest.importorskip("agno")

from agno.agent import Agent  # noqa: E402
from agno.team import Team  # noqa: E402

from hookport import HookAborted, InterceptionPoint, adapters, on, register_hook, scoped_hooks  # noqa: E402
from hookport.adapters import UnsupportedVersionError  # noqa: E402
from hookport.adapters.agno import AgnoAdapter, set_stream_mode  # noqa: E402
from hookport.points import ExtensionPoint  # noqa: E402
from tests.adapters.agno.harness import INSTRUCTIONS, ScriptedModel, build_agent, counting_tools  # noqa: E402
from tests.conformance.harness import ToolCall, Turn, number_tool_calls  # noqa: E402
from tests.conformance.test_scenarios import Recorder  # noqa: E402

P = InterceptionPoint
MARKER = "HOOKPORT-MARKER-agno"
pytestmark = pytest.mark.usefixtures("agno_adapter")


def parallel_script() -> list[Turn]:
    return [Turn(tool_calls=[ToolCall("add_numbers", {"a": 1, "b": 2}), ToolCall("purge_records", {"table": "users"}),
                             ToolCall("add_numbers", {"a": 3, "b": 4})]),
            Turn.final("done")]


def fresh(script: list[Turn], name: str = "alpha", **options: Any) -> tuple[Agent, ScriptedModel, list[Any]]:
    runs: list[Any] = []
    model = ScriptedModel(script=number_tool_calls(list(script)))
    return build_agent(name, model, runs, **options), model, runs


def tool_messages(request: list[dict[str, Any]]) -> dict[str, str]:
    return {m["tool_call_id"]: m["content"] for m in request if m["role"] == "tool"}


def deny_purge() -> None:
    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def guard(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("purging is not allowed", source="policy")


# -- parallel calls, worker threads ---------------------------------------------------------------


def test_parallel_tool_calls_one_refused_sync() -> None:
    deny_purge()
    agent, model, runs = fresh(parallel_script())
    output = agent.run("go")
    assert output.content == "done"
    assert runs == [("add_numbers", {"a": 1, "b": 2}), ("add_numbers", {"a": 3, "b": 4})]
    results = tool_messages(model.requests[1])
    assert results == {"call_1": "3", "call_2": "Tool call purge_records was refused: purging is not allowed",
                       "call_3": "7"}


def test_parallel_async_calls_with_sync_tools_on_worker_threads() -> None:
    """In an async run Agno runs sync tools through ``asyncio.to_thread`` in parallel: scoped hooks,
    the run's fields and the refusal all follow the call onto the worker thread."""
    seen: list[tuple[str, str | None, str]] = []
    agent, model, runs = fresh(parallel_script())

    def record(ctx):  # type: ignore[no-untyped-def]
        seen.append((ctx.tool_name, ctx.agent_role, threading.current_thread().name))
        if ctx.tool_name == "purge_records":
            raise HookAborted("purging is not allowed")

    async def main() -> Any:
        with scoped_hooks({P.PRE_TOOL_CALL: [record]}):
            return await agent.arun("go")

    output = asyncio.run(main())
    assert output.content == "done"
    assert sorted(name for name, _, _ in seen) == ["add_numbers", "add_numbers", "purge_records"]
    assert {role for _, role, _ in seen} == {"alpha"}
    assert all(thread != threading.main_thread().name for _, _, thread in seen), seen
    assert sorted(args["a"] for _, args in runs) == [1, 3] and len(runs) == 2
    assert "refused" in tool_messages(model.requests[1])["call_2"]


def test_async_tools_run_through_aexecute_and_are_refused() -> None:
    runs: list[Any] = []

    async def purge_records(table: str) -> str:
        """Delete every record of a table."""
        runs.append(table)
        return f"purged {table}"

    deny_purge()
    post: list[Any] = []
    on(P.POST_TOOL_CALL)(lambda ctx: post.append((ctx.tool_name, ctx.refused)))
    model = ScriptedModel(script=number_tool_calls([Turn.call("purge_records", table="users"), Turn.final("done")]))
    agent = Agent(name="alpha", model=model, tools=[purge_records], telemetry=False)
    output = asyncio.run(agent.arun("go"))
    assert output.content == "done" and runs == []
    assert post == [("purge_records", True)]
    assert "was refused" in tool_messages(model.requests[1])["call_1"]


def test_reentrancy_survives_the_worker_thread(harness: Any) -> None:
    """A tool run from inside a hook on Agno's worker thread is not hooked again."""
    checks: list[str] = []
    fired: list[str] = []

    @on(P.PRE_TOOL_CALL)
    def check(ctx):  # type: ignore[no-untyped-def]
        fired.append(ctx.tool_name)
        if ctx.tool_name == "purge_records":
            checks.append(harness.run_tool_directly("add_numbers", {"a": 1, "b": 1}))

    result = harness.run([Turn.call("purge_records", table="t"), Turn.final("done")], entry="async")
    result.raise_error()
    assert checks == ["2"] and fired == ["purge_records"]
    assert len(result.runs_of("add_numbers")) == 1 and len(result.runs_of("purge_records")) == 1


# -- the users' own hooks --------------------------------------------------------------------------


def test_users_tool_hooks_run_inside_hookports_and_keep_working() -> None:
    order: list[str] = []

    def users_hook(function_name: str, function_call: Any, arguments: dict[str, Any]) -> Any:
        order.append(f"tool_hook:{function_name}:{arguments}")
        return f"{function_call(**arguments)} (seen by the user's hook)"

    @on(P.PRE_TOOL_CALL)
    def pre(ctx):  # type: ignore[no-untyped-def]
        order.append(f"pre:{ctx.tool_name}")
        if ctx.tool_name == "purge_records":
            raise HookAborted("no")
        ctx.tool_input["b"] = 30

    on(P.POST_TOOL_CALL)(lambda ctx: order.append(f"post:{ctx.tool_name}:{ctx.tool_result}"))
    script = [Turn.call("add_numbers", a=2, b=3), Turn.call("purge_records", table="t"), Turn.final("done")]
    agent, model, runs = fresh(script, tool_hooks=[users_hook])
    agent.run("go")
    assert order == ["pre:add_numbers", "tool_hook:add_numbers:{'a': 2, 'b': 30}",
                     "post:add_numbers:32 (seen by the user's hook)",
                     "pre:purge_records", "post:purge_records:Tool call purge_records was refused: no"]
    assert runs == [("add_numbers", {"a": 2, "b": 30})]


def test_refusal_is_agnos_failed_tool() -> None:
    deny_purge()
    agent, model, runs = fresh([Turn.call("purge_records", table="t"), Turn.final("done")])
    output = agent.run("go")
    tool = [m for m in output.messages if m.role == "tool"][0]
    assert tool.tool_call_error is True and "purging is not allowed" in tool.content
    assert output.tools[0].tool_call_error is True
    assert runs == []


def test_an_abort_is_not_retried_by_the_run(harness: Any) -> None:
    """``Agent(retries=2)`` re-runs a run that raised; a hook's abort leaves at once."""

    @on(P.POST_TOOL_CALL)
    def stop(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("leaked a secret")

    agent, model, runs = fresh([Turn.call("add_numbers", a=1, b=2), Turn.final("done")] * 3, retries=2)
    with pytest.raises(HookAborted, match="leaked a secret"):
        agent.run("go")
    assert len(model.requests) == 1 and len(runs) == 1


def test_model_errors_stay_agnos() -> None:
    """A model error is Agno's errored ``RunOutput`` (no exception); END reports the failure."""
    recorder = Recorder((P.EXECUTION_END,))
    agent, model, runs = fresh([Turn.fail("provider down")])
    output = agent.run("go")
    assert getattr(output.status, "value", output.status) == "ERROR"
    end = recorder.contexts(P.EXECUTION_END)[0]
    assert end.status == "failed" and "provider down" in str(end.error)  # type: ignore[attr-defined]


# -- messages ----------------------------------------------------------------------------------------


def test_edits_reach_the_model_not_the_run_messages() -> None:
    @on(P.PRE_MODEL_CALL)
    def edit(ctx):  # type: ignore[no-untyped-def]
        ctx.messages[-1]["content"] += f" {MARKER}"
        ctx.messages.append({"role": "user", "content": f"extra {MARKER}"})

    agent, model, _ = fresh([Turn.call("add_numbers", a=2, b=3), Turn.final("done")])
    output = agent.run("go")
    assert all(MARKER in str(request) for request in model.requests)
    assert MARKER not in str([m.content for m in output.messages])
    assert model.requests[0][0] == {"role": "system", "content": INSTRUCTIONS} or \
        INSTRUCTIONS in model.requests[0][0]["content"]


def test_post_model_call_keeps_tool_calls() -> None:
    on(P.POST_MODEL_CALL)(lambda ctx: "rewritten" if ctx.response == "" else None)
    agent, model, runs = fresh([Turn.call("add_numbers", a=2, b=3), Turn.final("done")])
    output = agent.run("go")
    assert runs == [("add_numbers", {"a": 2, "b": 3})] and output.content.endswith("done")


# -- teams, async streams, steps ---------------------------------------------------------------------


def test_team_run_is_one_execution_with_a_turn_per_member() -> None:
    recorder = Recorder((P.EXECUTION_START, P.EXECUTION_END, P.PRE_TOOL_CALL))
    starts: list[str] = []
    register_hook(ExtensionPoint.AGENT_TURN_START, lambda ctx: starts.append(ctx.step_name))
    member, member_model, runs = fresh([Turn.call("add_numbers", a=2, b=3), Turn.final("five")], name="adder")
    leader = ScriptedModel(script=number_tool_calls([
        Turn.call("delegate_task_to_member", member_id="adder", task="add 2 and 3"), Turn.final("the team says five")]))
    team = Team(name="crew", members=[member], model=leader, telemetry=False)
    output = team.run("add 2 and 3")
    assert "five" in output.content
    assert recorder.count(P.EXECUTION_START) == 1 and recorder.count(P.EXECUTION_END) == 1
    assert starts == ["crew", "adder"]
    assert [c.tool_name for c in recorder.contexts(P.PRE_TOOL_CALL)] == ["delegate_task_to_member", "add_numbers"]
    assert runs == [("add_numbers", {"a": 2, "b": 3})]


def test_async_stream_exactly_once() -> None:
    recorder = Recorder((P.PRE_MODEL_CALL, P.POST_MODEL_CALL, P.PRE_TOOL_CALL, P.POST_TOOL_CALL,
                         P.EXECUTION_START, P.EXECUTION_END))
    agent, model, runs = fresh([Turn.call("add_numbers", a=2, b=3), Turn.final("done")])

    async def main() -> str:
        return "".join([e.content async for e in agent.arun("go", stream=True)
                        if type(e).__name__ == "RunContentEvent" and isinstance(e.content, str)])

    assert asyncio.run(main()) == "done"
    assert [recorder.count(p) for p in (P.PRE_MODEL_CALL, P.POST_MODEL_CALL, P.PRE_TOOL_CALL, P.POST_TOOL_CALL,
                                        P.EXECUTION_START, P.EXECUTION_END)] == [2, 2, 1, 1, 1, 1]
    assert len(runs) == 1


def test_buffered_stream_replacement_reaches_the_consumer() -> None:
    on(P.POST_MODEL_CALL)(lambda ctx: (ctx.response or "").replace("secret", "[hidden]"))
    agent, _, _ = fresh([Turn.final("the secret answer")])
    set_stream_mode("buffered")
    try:
        text = "".join(e.content for e in agent.run("go", stream=True) if isinstance(getattr(e, "content", None), str))
    finally:
        set_stream_mode("passthrough")
    assert text == "the [hidden] answer"
    with pytest.raises(ValueError):
        set_stream_mode("sometimes")


def test_steps_pair_with_the_model_request_and_its_tools() -> None:
    events: list[str] = []
    on(P.PRE_STEP)(lambda ctx: events.append(f"pre:{ctx.step_name}"))
    on(P.POST_STEP)(lambda ctx: events.append(f"post:{ctx.step_name}"))
    on(P.PRE_TOOL_CALL)(lambda ctx: events.append("tool"))
    agent, _, _ = fresh([Turn.call("add_numbers", a=2, b=3), Turn.final("done")])
    agent.run("go")
    assert events == ["pre:alpha iteration 1", "tool", "post:alpha iteration 1",
                      "pre:alpha iteration 2", "post:alpha iteration 2"]


def test_streamed_run_closed_early_ends_the_execution() -> None:
    recorder = Recorder((P.EXECUTION_START, P.EXECUTION_END))
    agent, _, _ = fresh([Turn.final("a long answer")])
    stream = agent.run("go", stream=True)
    next(iter(stream))
    stream.close()
    ends = recorder.contexts(P.EXECUTION_END)
    assert len(ends) == 1 and ends[0].status == "failed"  # type: ignore[attr-defined]


# -- install --------------------------------------------------------------------------------------------


def test_outside_the_range_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("hookport.adapters._base.installed_version", lambda dist: "1.8.0")
    adapter = AgnoAdapter()
    with pytest.raises(UnsupportedVersionError) as raised:
        adapter.install()
    assert "agno 1.8.0" in str(raised.value) and AgnoAdapter.supported in str(raised.value)
    assert not adapter.active


def test_not_installed_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("hookport.adapters._base.installed_version", lambda dist: None)
    with pytest.raises(adapters.FrameworkNotInstalledError, match="hookport\\[agno\\]"):
        AgnoAdapter().install()


def test_install_report_names_every_call_site(agno_adapter: Any) -> None:
    report = agno_adapter.report
    assert report.missing == [] and len(report.patched) == 11, report
    assert "agno.tools.function:FunctionCall.aexecute" in report.patched
    assert "agno.models.base:Model.get_function_calls_to_run" in report.patched


def test_sync_methods_are_plain_functions_and_async_ones_keep_their_kind() -> None:
    """The per-call methods are patched with plain functions (cheaper than wrapt's proxy per call),
    except coroutine and generator functions: wrapt's proxy still answers ``inspect`` as they do."""
    from agno.models.base import Model
    from agno.tools.function import FunctionCall

    for method in (Agent.run, Agent.arun, Team.run, Team.arun, Model._invoke_with_retry,
                   Model.get_function_calls_to_run, FunctionCall.execute):
        assert type(method) is types.FunctionType and method is not method.__wrapped__, method
    assert inspect.iscoroutinefunction(FunctionCall.aexecute) and inspect.iscoroutinefunction(Model._ainvoke_with_retry)
    assert inspect.isgeneratorfunction(Model._invoke_stream_with_retry)
    assert inspect.isasyncgenfunction(Model._ainvoke_stream_with_retry)
