"""The CrewAI defects of issue 9 and the engine features of issues 10 / 11 that only crewai has.

Each test failed before the fix it names: nested kickoffs counted as executions of their
own, the legacy release's standalone ``Agent.kickoff()``, strict-mode tool guards,
``Task(async_execution=True)``, crewai's own refusals, async hooks, agent turns.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest

import crewai.hooks as crewai_hooks
from crewai import Agent, Crew, Process, Task
from crewai.tools import BaseTool
from hookport import (
    ExtensionPoint,
    HookAborted,
    InterceptionPoint,
    adapters,
    on,
    register_hook,
    register_scoped,
    scoped_hooks,
    set_strict,
)
from hookport.adapters._versions import installed_version
from hookport.adapters.crewai import uses_native_dispatch
from tests.adapters.crewai import harness as harness_module
from tests.adapters.crewai.harness import (
    NATIVE_TOOLS,
    AddNumbersTool,
    CrewAIHarness,
    PurgeRecordsTool,
    ScriptedLLM,
)
from tests.conformance.harness import ToolCall, Turn
from tests.support.hooks import collect

P = InterceptionPoint
W = ExtensionPoint
NATIVE = uses_native_dispatch(installed_version("crewai"))
BLOCKED = "Tool execution blocked by hook. Tool: purge_records"
_ids = itertools.count(1)


def scripted(script: list[Turn]) -> str:
    """A fresh record for the scripted model; returns its run id."""
    run_id = f"hardening-{next(_ids)}"
    harness_module._RUNS[run_id] = harness_module._Record(script)
    return run_id


def record(run_id: str) -> Any:
    return harness_module._RUNS[run_id]


@pytest.fixture(autouse=True)
def _forget_runs() -> Any:
    before = set(harness_module._RUNS)
    yield
    for run_id in set(harness_module._RUNS) - before:
        harness_module._RUNS.pop(run_id, None)


def agent(run_id: str, role: str = "alpha", tools: list[Any] | None = None, **options: Any) -> Agent:
    settings: dict[str, Any] = {"max_iter": 5, "max_retry_limit": 0, "allow_delegation": False, "cache": False}
    settings.update(options)
    return Agent(
        role=role,
        goal="Answer the question, using tools when they help.",
        backstory="A scripted agent in hookport's tests.",
        llm=ScriptedLLM(run_id, native=NATIVE_TOOLS),
        tools=tools if tools is not None else [AddNumbersTool(run_id=run_id), PurgeRecordsTool(run_id=run_id)],
        verbose=False,
        **settings,
    )


def crew_of(member: Agent, prompt: str = "What is 2 + 3?", **task_options: Any) -> Crew:
    task = Task(description=prompt, expected_output="A short answer.", agent=member, **task_options)
    return Crew(agents=[member], tasks=[task], process=Process.sequential, verbose=False, cache=False)


def tool_then_answer(tool: str = "add_numbers", **args: Any) -> list[Turn]:
    args = args or ({"a": 2, "b": 3} if tool == "add_numbers" else {"table": "users"})
    return [Turn.call(tool, **args), Turn.final("The answer is ready.")]


# -- one outermost run is one execution ------------------------------------------------------------------


class InnerCrewTool(BaseTool):
    """A tool whose body kicks off another crew."""

    name: str = "ask_inner_crew"
    description: str = "Ask another crew a question."
    inner_run: str = ""

    def _run(self, question: str) -> str:
        return str(crew_of(agent(self.inner_run, role="inner"), question).kickoff().raw)


def test_crew_started_inside_a_tool_is_not_a_second_execution(installed: adapters.InstallReport) -> None:
    starts, ends = collect(P.EXECUTION_START), collect(P.EXECUTION_END)
    inputs, outputs = collect(P.INPUT), collect(P.OUTPUT)
    steps = collect(P.PRE_STEP)
    inner = scripted([Turn.final("the inner answer")])
    outer = scripted([Turn.call("ask_inner_crew", question="what does the inner crew say?"), Turn.final("done")])
    crew = crew_of(agent(outer, tools=[InnerCrewTool(inner_run=inner)]))
    output = crew.kickoff()
    assert "done" in output.raw
    assert len(record(inner).model_inputs) == 1, "the inner crew did not run"
    assert len(starts) == 1 and len(ends) == 1 and len(inputs) == 1 and len(outputs) == 1
    assert starts[0].crew is crew and ends[0].crew is crew and ends[0].status == "completed"
    assert len(steps) == 2, "the inner crew's task is still a step of the run"


def test_crew_started_inside_a_flow_method_is_not_a_second_execution(installed: adapters.InstallReport) -> None:
    from crewai.flow.flow import Flow, start

    inner = scripted([Turn.final("the crew's answer")])

    class Pipeline(Flow):  # type: ignore[misc, type-arg]
        @start()
        def ask(self) -> str:
            return str(crew_of(agent(inner)).kickoff().raw)

    starts, ends = collect(P.EXECUTION_START), collect(P.EXECUTION_END)
    flow = Pipeline()
    assert "the crew's answer" in str(flow.kickoff())
    assert len(starts) == 1 and len(ends) == 1
    assert starts[0].flow is flow and ends[0].status == "completed"


# -- standalone Agent.kickoff() (crewai 1.5.0 dispatched no model point there) ------------------------------


def test_standalone_agent_kickoff_dispatches_model_points(installed: adapters.InstallReport) -> None:
    run_id = scripted(tool_then_answer())
    pre, post = collect(P.PRE_MODEL_CALL), collect(P.POST_MODEL_CALL)
    tools = collect(P.PRE_TOOL_CALL)
    turns = collect(W.AGENT_TURN_START)
    agent(run_id).kickoff("What is 2 + 3?")
    assert len(record(run_id).model_inputs) == 2
    assert len(pre) == 2 and len(post) == 2 and len(tools) == 1
    assert [t.step_name for t in turns] == ["alpha"]


def test_standalone_agent_kickoff_model_abort(installed: adapters.InstallReport) -> None:
    run_id = scripted(tool_then_answer())

    @on(P.PRE_MODEL_CALL)
    def stop(ctx: Any) -> None:
        raise HookAborted("no model calls today", source="budget")

    with pytest.raises(HookAborted) as caught:
        agent(run_id).kickoff("What is 2 + 3?")
    assert caught.value.source == "budget"
    assert record(run_id).model_inputs == []


@pytest.mark.parametrize("entry", ["kickoff", "kickoff_async", "akickoff"])
def test_standalone_agent_kickoff_post_tool_abort_is_raised(installed: adapters.InstallReport, entry: str) -> None:
    if not callable(getattr(Agent, entry, None)):
        pytest.skip(f"no Agent.{entry} on this crewai")
    run_id = scripted(tool_then_answer())

    @on(P.POST_TOOL_CALL)
    def stop(ctx: Any) -> None:
        raise HookAborted("result leaked a secret", source="dlp")

    with pytest.raises(HookAborted) as caught:
        runner = agent(run_id)
        if entry == "kickoff":
            runner.kickoff("What is 2 + 3?")
        else:
            asyncio.run(getattr(runner, entry)("What is 2 + 3?"))
    assert caught.value.source == "dlp"
    assert len(record(run_id).model_inputs) == 1, "the agent asked the model again after the abort"


@pytest.mark.parametrize("entry", ["kickoff", "kickoff_async", "akickoff"])
def test_standalone_agent_kickoff_is_one_execution(installed: adapters.InstallReport, entry: str) -> None:
    if not callable(getattr(Agent, entry, None)):
        pytest.skip(f"no Agent.{entry} on this crewai")
    run_id = scripted(tool_then_answer())
    points = [P.EXECUTION_START, P.INPUT, P.OUTPUT, P.EXECUTION_END]
    seen: list[tuple[str, Any]] = []
    for point in points:
        register_hook(point, lambda ctx, point=point: seen.append((point.value, getattr(ctx, "status", None))))
    runner = agent(run_id)
    if entry == "kickoff":
        runner.kickoff("What is 2 + 3?")
    else:
        asyncio.run(getattr(runner, entry)("What is 2 + 3?"))
    assert [name for name, _ in seen] == [p.value for p in points]
    assert seen[-1][1] == "completed"


@pytest.mark.parametrize("point", [P.EXECUTION_START, P.INPUT, P.OUTPUT])
def test_standalone_agent_kickoff_boundary_abort_leaves_kickoff(installed: adapters.InstallReport,
                                                                 point: InterceptionPoint) -> None:
    run_id = scripted(tool_then_answer())

    @on(point)
    def stop(ctx: Any) -> None:
        raise HookAborted("not today", source="gate")

    with pytest.raises(HookAborted) as caught:
        agent(run_id).kickoff("What is 2 + 3?")
    assert caught.value.source == "gate"


def test_standalone_agent_kickoff_model_error_ends_once_failed(installed: adapters.InstallReport) -> None:
    run_id = scripted([Turn(error="model down")])
    ends = collect(P.EXECUTION_END)
    with pytest.raises(Exception):
        agent(run_id).kickoff("What is 2 + 3?")
    assert [e.status for e in ends] == ["failed"]


# -- strict mode: a guard that crashes never lets the tool run -------------------------------------------------


def test_strict_mode_crashing_tool_guard_stops_the_tool(harness: CrewAIHarness) -> None:
    set_strict(True)
    crash = RuntimeError("policy server unreachable")

    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def guard(ctx: Any) -> None:
        raise crash

    result = harness.run(tool_then_answer("purge_records"))
    assert result.runs_of("purge_records") == [], "the tool ran although its guard failed"
    assert result.error is crash


# -- scoped hooks follow Task(async_execution=True) -----------------------------------------------------------


def test_scoped_deny_reaches_an_async_execution_task(installed: adapters.InstallReport) -> None:
    run_id = scripted(tool_then_answer("purge_records"))
    crew = crew_of(agent(run_id), async_execution=True)

    def deny(ctx: Any) -> None:
        raise HookAborted("purging is not allowed", source="scoped-policy")

    with scoped_hooks():
        register_scoped(P.PRE_TOOL_CALL, deny, tools=["purge_records"])
        crew.kickoff()
    assert record(run_id).tool_runs == [], "the scoped deny did not reach the task's thread"
    assert BLOCKED in str(record(run_id).model_inputs[-1])


# -- crewai's own refusal is audited ---------------------------------------------------------------------------


def test_post_tool_call_sees_crewais_own_refusal(harness: CrewAIHarness) -> None:
    @crewai_hooks.before_tool_call
    def refuse(ctx: Any) -> Any:
        return False if ctx.tool_name == "purge_records" else None

    posts = collect(P.POST_TOOL_CALL)
    result = harness.run(tool_then_answer("purge_records"))
    result.raise_error()
    assert result.runs_of("purge_records") == []
    assert [(p.tool_name, p.refused, p.tool_result) for p in posts] == [("purge_records", True, BLOCKED)]
    assert isinstance(posts[0].refusal, HookAborted)


def test_refusal_by_hookport_carries_the_hooks_abort(harness: CrewAIHarness) -> None:
    denied = HookAborted("purging is not allowed", source="policy")

    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def deny(ctx: Any) -> None:
        raise denied

    posts = collect(P.POST_TOOL_CALL)
    harness.run(tool_then_answer("purge_records")).raise_error()
    assert len(posts) == 1 and posts[0].refused and posts[0].refusal is denied
    assert posts[0].tool_result == f"{BLOCKED}. Reason: purging is not allowed" and posts[0].duration_ms == 0.0


# -- async hooks ---------------------------------------------------------------------------------------------


@pytest.mark.skipif(not NATIVE_TOOLS, reason="crewai 1.5 / 1.6 run one tool call per turn")
def test_async_tool_guards_of_parallel_calls_run_concurrently(installed: adapters.InstallReport) -> None:
    """crewai runs the native tool calls of one answer in parallel: their async guards overlap."""
    state = {"inside": 0, "most": 0}

    @on(P.PRE_TOOL_CALL)
    async def guard(ctx: Any) -> None:
        state["inside"] += 1
        state["most"] = max(state["most"], state["inside"])
        for _ in range(500):  # wait (bounded) for the other call's guard to be inside too
            if state["most"] >= 2:
                break
            await asyncio.sleep(0.01)
        state["inside"] -= 1
        if ctx.tool_name == "purge_records":
            raise HookAborted("purging is not allowed")

    both = Turn(tool_calls=[ToolCall("add_numbers", {"a": 2, "b": 3}), ToolCall("purge_records", {"table": "t"})])
    result = CrewAIHarness(mode="native").run([both, Turn.final("done")])
    result.raise_error()
    assert state["most"] == 2, "the second guard started only after the first had finished"
    assert result.runs_of("purge_records") == [] and len(result.runs_of("add_numbers")) == 1


def test_async_hooks_on_akickoff_are_awaited_on_the_callers_loop(installed: adapters.InstallReport) -> None:
    """Where hookport owns the async call site (the agent's turn), async hooks run on the running loop."""
    run_id = scripted([Turn.final("done")])
    crew = crew_of(agent(run_id))
    loops: list[Any] = []

    @on(W.AGENT_TURN_START)
    async def note_loop(ctx: Any) -> None:
        loops.append(asyncio.get_running_loop())

    async def main() -> Any:
        kickoff = getattr(crew, "akickoff", None) or crew.kickoff_async
        await kickoff()
        return asyncio.get_running_loop()

    caller_loop = asyncio.run(main())
    assert len(loops) == 1
    if NATIVE and hasattr(Agent, "aexecute_task"):
        assert loops[0] is caller_loop


def test_async_guard_blocks_a_tool_on_a_sync_kickoff(harness: CrewAIHarness) -> None:
    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    async def guard(ctx: Any) -> None:
        await asyncio.sleep(0)
        raise HookAborted("purging is not allowed")

    result = harness.run(tool_then_answer("purge_records"))
    result.raise_error()
    assert result.runs_of("purge_records") == []


# -- agent turns ---------------------------------------------------------------------------------------------


def test_one_turn_per_agent_task_execution(installed: adapters.InstallReport) -> None:
    first, second = scripted([Turn.final("first")]), scripted([Turn.final("second")])
    researcher, writer = agent(first, role="researcher"), agent(second, role="writer")
    tasks = [
        Task(description="Find it.", expected_output="A fact.", agent=researcher),
        Task(description="Write it.", expected_output="A line.", agent=writer),
    ]
    starts, ends = collect(W.AGENT_TURN_START), collect(W.AGENT_TURN_END)
    Crew(agents=[researcher, writer], tasks=tasks, process=Process.sequential, verbose=False).kickoff()
    assert [s.step_name for s in starts] == ["researcher", "writer"]
    assert [e.step_name for e in ends] == ["researcher", "writer"]
    assert all(isinstance(e.duration_ms, float) for e in ends)
    assert starts[0].task is tasks[0] and ends[1].task is tasks[1]


# -- wrap hooks on crewai's paths -------------------------------------------------------------------------------


def test_tool_wrap_hook_sees_edited_arguments_and_can_retry(harness: CrewAIHarness) -> None:
    @on(P.PRE_TOOL_CALL)
    def edit(ctx: Any) -> None:
        ctx.tool_input["b"] = 40

    calls: list[dict[str, Any]] = []

    @on(W.WRAP_TOOL_CALL)
    def twice(ctx: Any, call_next: Any) -> Any:
        calls.append(dict(ctx.tool_input))
        call_next(ctx)
        return call_next(ctx)

    result = harness.run(tool_then_answer())
    result.raise_error()
    assert calls == [{"a": 2, "b": 40}]
    assert result.runs_of("add_numbers") == [{"a": 2, "b": 40}, {"a": 2, "b": 40}]


def test_model_wrap_short_circuit_on_the_react_path(installed: adapters.InstallReport) -> None:
    """A wrap hook's string is crewai's answer on the ReAct text path too (a final answer)."""
    register_hook(W.WRAP_MODEL_CALL, lambda ctx, call_next: "served from cache")
    result = CrewAIHarness(mode="react").run([Turn.final("never asked")])
    result.raise_error()
    assert result.model_inputs == [] and result.output == "served from cache"


@pytest.mark.parametrize("entry", ["sync", "async"])
def test_async_boundary_and_step_hooks_run_to_completion(harness: CrewAIHarness, entry: str) -> None:
    """crewai dispatches boundaries and steps synchronously (also inside akickoff): async hooks
    there still run to completion before crewai goes on, and their edits count."""
    seen: list[str] = []

    @on(P.EXECUTION_START)
    async def start(ctx: Any) -> None:
        await asyncio.sleep(0)
        seen.append("start")

    @on(P.POST_STEP)
    async def step(ctx: Any) -> None:
        await asyncio.sleep(0)
        seen.append(f"step:{ctx.kind}")

    @on(P.OUTPUT)
    async def redact(ctx: Any) -> None:
        await asyncio.sleep(0)
        ctx.text = ctx.text.replace("4111", "[CARD]")

    result = harness.run([Turn.final("card 4111")], entry=entry)  # type: ignore[arg-type]
    result.raise_error()
    assert seen == ["start", "step:task"]
    assert result.output == "card [CARD]"
