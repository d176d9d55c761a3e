"""Boundaries and steps: single agents (start/chat/achat) and multi-agent teams."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from hookport import HookAborted, InterceptionPoint, on, register_hook
from tests.adapters.praisonai.harness import build_agent, praisonai_version
from tests.conformance.harness import Turn
from tests.support.openai_server import ScriptedOpenAIServer

P = InterceptionPoint
BOUNDARIES = (P.EXECUTION_START, P.INPUT, P.OUTPUT, P.EXECUTION_END)


class Recorder:
    def __init__(self, points: tuple[InterceptionPoint, ...] = tuple(InterceptionPoint)) -> None:
        self.calls: list[tuple[InterceptionPoint, Any]] = []
        for point in points:
            register_hook(point, lambda ctx, point=point: self.calls.append((point, ctx)))

    def points(self) -> list[InterceptionPoint]:
        return [p for p, _ in self.calls]

    def steps(self) -> list[tuple[str, str, str]]:
        return [(p.value, c.kind, c.step_name) for p, c in self.calls if p in (P.PRE_STEP, P.POST_STEP)]


def tool_then_answer(answer: str = "done") -> list[Turn]:
    return [Turn.call("add_numbers", a=2, b=3), Turn.final(answer)]


# -- a single agent ---------------------------------------------------------------------------------


def test_start_is_one_execution_and_one_step(server: ScriptedOpenAIServer) -> None:
    """``start()`` calls ``chat()`` inside: still one execution and one agent step."""
    recorder = Recorder()
    server.script(tool_then_answer())
    output = build_agent("alpha", []).start("What is 2 + 3?", stream=False)
    assert output == "done"
    assert [p for p in recorder.points() if p in BOUNDARIES] == list(BOUNDARIES)
    assert recorder.steps() == [("pre_step", "agent", "alpha"), ("post_step", "agent", "alpha")]


def test_input_and_output_replacement(server: ScriptedOpenAIServer) -> None:
    on(P.INPUT)(lambda ctx: "REWRITTEN PROMPT")
    on(P.OUTPUT)(lambda ctx: ctx.payload.upper())
    server.script([Turn.final("quiet answer")])
    assert build_agent("alpha", []).chat("original prompt") == "QUIET ANSWER"
    assert "REWRITTEN PROMPT" in str(server.requests[0]["messages"])
    assert "original prompt" not in str(server.requests[0]["messages"])


def test_step_replacements(server: ScriptedOpenAIServer) -> None:
    on(P.PRE_STEP)(lambda ctx: "STEP PROMPT")
    on(P.POST_STEP)(lambda ctx: f"[{ctx.payload}]")
    server.script([Turn.final("answer")])
    assert build_agent("alpha", []).chat("hello") == "[answer]"
    assert "STEP PROMPT" in str(server.requests[0]["messages"])


def test_nested_agent_inside_a_tool_is_its_own_step_not_an_execution(server: ScriptedOpenAIServer) -> None:
    if praisonai_version() < (1, 7, 12):
        pytest.skip("before 1.7.12 PraisonAI's shared AsyncOpenAI is bound to one event loop: "
                    "an agent run inside another agent's tool fails with 'Event loop is closed'")
    from praisonaiagents import Agent

    recorder = Recorder()
    inner = Agent(name="inner", instructions="Answer briefly.", model="gpt-4o-mini", output="silent")

    def ask_inner(question: str) -> str:
        """Ask the inner agent.

        Args:
            question: what to ask
        """
        return inner.chat(question) or ""

    outer = Agent(name="outer", instructions="Delegate.", model="gpt-4o-mini", tools=[ask_inner], output="silent")
    server.by_conversation = False  # answer requests in arrival order: outer, inner, outer
    try:
        server.script([Turn.call("ask_inner", question="hi"), Turn.final("inner answer"), Turn.final("outer done")])
        assert outer.chat("go") == "outer done"
    finally:
        server.by_conversation = True
    assert "inner answer" in str(server.requests[2]["messages"])
    points = recorder.points()
    assert points.count(P.EXECUTION_START) == 1 and points.count(P.EXECUTION_END) == 1
    assert recorder.steps() == [("pre_step", "agent", "outer"), ("pre_step", "agent", "inner"),
                                ("post_step", "agent", "inner"), ("post_step", "agent", "outer")]
    roles = [c.agent_role for p, c in recorder.calls if p is P.PRE_MODEL_CALL]
    assert roles == ["outer", "inner", "outer"]


def test_async_entry(server: ScriptedOpenAIServer) -> None:
    if praisonai_version() < (1, 6):
        pytest.skip("PraisonAI 1.5's async tool loop is broken on its own")
    recorder = Recorder()
    server.script(tool_then_answer())
    output = asyncio.run(build_agent("alpha", []).astart("What is 2 + 3?"))
    assert output == "done"
    assert [p for p in recorder.points() if p in BOUNDARIES] == list(BOUNDARIES)
    assert recorder.steps() == [("pre_step", "agent", "alpha"), ("post_step", "agent", "alpha")]


def test_stream_boundaries_wait_for_the_last_chunk(server: ScriptedOpenAIServer) -> None:
    if praisonai_version() < (1, 7, 2):
        pytest.skip("no streamed tool loop before 1.7.2")
    recorder = Recorder(BOUNDARIES)
    server.script(tool_then_answer("streamed answer"))
    stream = build_agent("alpha", []).start("go", stream=True)
    assert recorder.points() == [P.EXECUTION_START, P.INPUT]
    chunks = list(stream)
    assert "".join(chunks) == "streamed answer"
    assert recorder.points() == list(BOUNDARIES)
    assert recorder.calls[-2][1].payload == "streamed answer"


def test_stream_closed_early_ends_as_failed(server: ScriptedOpenAIServer) -> None:
    if praisonai_version() < (1, 7, 2):
        pytest.skip("no streamed tool loop before 1.7.2")
    recorder = Recorder((P.EXECUTION_END,))
    server.script([Turn.final("several words in this streamed answer")])
    stream = build_agent("alpha", []).start("go", stream=True)
    next(iter(stream))
    stream.close()
    assert len(recorder.calls) == 1 and recorder.calls[0][1].status == "failed"


# -- teams ------------------------------------------------------------------------------------------------


def make_team(runs: list) -> Any:
    from praisonaiagents import AgentTeam, Task

    alpha = build_agent("alpha", runs)
    beta = build_agent("beta", runs)
    first = Task(name="first", description="Add 2 and 3", expected_output="a number", agent=alpha)
    second = Task(name="second", description="Say done", expected_output="text", agent=beta)
    return AgentTeam(agents=[alpha, beta], tasks=[first, second], process="sequential", output="silent")


@pytest.mark.parametrize("entry", ["start", "astart"])
def test_team_is_one_execution_with_task_and_agent_steps(server: ScriptedOpenAIServer, entry: str) -> None:
    recorder = Recorder()
    server.script(tool_then_answer())
    runs: list = []
    team = make_team(runs)
    output = team.start() if entry == "start" else asyncio.run(team.astart())
    assert output is not None
    points = recorder.points()
    assert points.count(P.EXECUTION_START) == 1 and points.count(P.EXECUTION_END) == 1
    assert points[0] is P.EXECUTION_START and points[-1] is P.EXECUTION_END
    steps = recorder.steps()
    assert steps[:4] == [("pre_step", "task", "first"), ("pre_step", "agent", "alpha"),
                         ("post_step", "agent", "alpha"), ("post_step", "task", "first")]
    assert ("pre_step", "task", "second") in steps and ("pre_step", "agent", "beta") in steps
    start = recorder.calls[0][1]
    assert start.crew is team
    task_ctx = next(c for p, c in recorder.calls if p is P.PRE_STEP and c.kind == "task")
    assert task_ctx.task.name == "first" and task_ctx.crew is team
    assert task_ctx.agent_role == "alpha"


def test_team_agents_filter(server: ScriptedOpenAIServer) -> None:
    fired: list[str] = []
    on(P.PRE_MODEL_CALL, agents=["beta"])(lambda ctx: fired.append(ctx.agent_role))
    server.script(tool_then_answer())
    make_team([]).start()
    assert fired and set(fired) == {"beta"}


def test_task_step_abort_leaves_team_start(server: ScriptedOpenAIServer) -> None:
    recorder = Recorder((P.EXECUTION_END,))

    @on(P.PRE_STEP)
    def stop(ctx):  # type: ignore[no-untyped-def]
        if ctx.kind == "task" and ctx.step_name == "second":
            raise HookAborted("second task refused", source="policy")

    server.script(tool_then_answer())
    runs: list = []
    with pytest.raises(HookAborted, match="second task refused"):
        make_team(runs).start()
    assert [c.status for _, c in recorder.calls] == ["failed"]
    assert len(runs) == 1, "only the first task's tool ran"


def test_model_abort_inside_a_team_is_not_retried(server: ScriptedOpenAIServer) -> None:
    calls: list[str] = []

    @on(P.PRE_MODEL_CALL)
    def stop(ctx):  # type: ignore[no-untyped-def]
        calls.append(ctx.agent_role)
        raise HookAborted("stop the team")

    server.script(tool_then_answer())
    with pytest.raises(HookAborted, match="stop the team"):
        make_team([]).start()
    assert calls == ["alpha"]
    assert server.requests == []


def test_run_is_one_execution_and_one_step(server: ScriptedOpenAIServer) -> None:
    recorder = Recorder()
    server.script(tool_then_answer("ran"))
    assert build_agent("alpha", []).run("What is 2 + 3?") == "ran"
    assert [p for p in recorder.points() if p in BOUNDARIES] == list(BOUNDARIES)
    assert recorder.steps() == [("pre_step", "agent", "alpha"), ("post_step", "agent", "alpha")]
    assert recorder.points().count(P.PRE_TOOL_CALL) == 1 and recorder.points().count(P.PRE_MODEL_CALL) == 2


def test_stream_output_abort_still_ends_the_run(server: ScriptedOpenAIServer) -> None:
    if praisonai_version() < (1, 7, 2):
        pytest.skip("no streamed tool loop before 1.7.2")
    recorder = Recorder((P.EXECUTION_END,))

    @on(P.OUTPUT)
    def stop(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("the answer may not leave")

    server.script([Turn.final("streamed answer")])
    with pytest.raises(HookAborted, match="may not leave"):
        list(build_agent("alpha", []).start("go", stream=True))
    assert [c.status for _, c in recorder.calls] == ["failed"]
