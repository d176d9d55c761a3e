"""Runs on ADK: the sync runner's thread, closed streams, nested runners, OUTPUT copies."""

from __future__ import annotations

import asyncio
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.agents.run_config import RunConfig, StreamingMode
from google.adk.tools.agent_tool import AgentTool

from hookport import ExtensionPoint, HookAborted, InterceptionPoint, on, register_hook, scoped_hooks
from tests.adapters.google_adk.harness import Record, ScriptedLlm, make_runner, make_tools, message, run_events
from tests.conformance.harness import Turn

P = InterceptionPoint


def test_scoped_hooks_and_the_execution_follow_runner_runs_thread(harness: Any) -> None:
    fired: list[tuple[str, bool]] = []
    from hookport.boundary import current_execution

    register_hook(P.EXECUTION_START, lambda ctx: None)  # an execution is opened (on the caller's side)
    record = Record([Turn.call("add_numbers", a=2, b=3), Turn.final("done")])
    with scoped_hooks({P.PRE_TOOL_CALL: [lambda ctx: fired.append((ctx.tool_name, current_execution() is not None))]}):
        events = run_events(make_runner(record, "alpha"), "sync", "go")
    assert fired == [("add_numbers", True)]
    assert events[-1].content.parts[0].text == "done"


def test_an_abort_on_runner_runs_thread_reaches_the_caller(harness: Any) -> None:
    register_hook(P.PRE_MODEL_CALL, _abort)
    result = harness.run([Turn.final("never")], entry="sync")
    assert isinstance(result.error, HookAborted) and result.error.reason == "stop"


def _abort(ctx: Any) -> None:
    raise HookAborted("stop")


def test_closing_the_stream_ends_the_execution_once(harness: Any) -> None:
    ends: list[Any] = []
    register_hook(P.EXECUTION_END, ends.append)
    record = Record([Turn.call("add_numbers", a=2, b=3), Turn.final("done")])
    runner = make_runner(record, "alpha")

    async def go() -> None:
        session = await runner.session_service.create_session(app_name="hookport", user_id="u")
        stream = runner.run_async(user_id="u", session_id=session.id, new_message=message("go"))
        await stream.__anext__()
        await stream.aclose()

    asyncio.run(go())
    assert len(ends) == 1 and ends[0].status == "failed"


def test_output_replacement_is_a_copy_for_the_caller(harness: Any) -> None:
    register_hook(P.OUTPUT, lambda ctx: "REDACTED")
    record = Record([Turn.final("secret")])
    runner = make_runner(record, "alpha")

    async def go() -> tuple[list[Any], Any]:
        session = await runner.session_service.create_session(app_name="hookport", user_id="u")
        events = [e async for e in runner.run_async(user_id="u", session_id=session.id, new_message=message("go"))]
        return events, await runner.session_service.get_session(app_name="hookport", user_id="u",
                                                               session_id=session.id)

    events, session = asyncio.run(go())
    assert events[-1].content.parts[0].text == "REDACTED"
    assert session.events[-1].content.parts[0].text == "secret"


def test_streamed_run_delivers_a_replaced_answer_without_the_old_chunks(harness: Any) -> None:
    register_hook(P.POST_MODEL_CALL, lambda ctx: "REPLACED")
    record = Record([Turn.final("the original answer")])
    runner = make_runner(record, "alpha")

    async def go() -> list[Any]:
        session = await runner.session_service.create_session(app_name="hookport", user_id="u")
        config = RunConfig(streaming_mode=StreamingMode.SSE)
        return [e async for e in runner.run_async(user_id="u", session_id=session.id, new_message=message("go"),
                                                  run_config=config)]

    texts = [p.text for e in asyncio.run(go()) for p in (e.content.parts if e.content else []) if p.text]
    assert texts == ["REPLACED"]


def test_an_agent_tool_runs_inside_the_one_execution(harness: Any) -> None:
    starts: list[Any] = []
    turns: list[str] = []
    register_hook(P.EXECUTION_START, starts.append)
    register_hook(ExtensionPoint.AGENT_TURN_START, lambda ctx: turns.append(ctx.step_name))
    inner = Record([Turn.final("inner says 7")])
    helper = LlmAgent(name="helper", model=ScriptedLlm(inner), instruction="help", description="helps")
    outer = Record([Turn.call("helper", request="7?"), Turn.final("done")])
    from google.adk.runners import InMemoryRunner

    agent = LlmAgent(name="boss", model=ScriptedLlm(outer), instruction="delegate",
                     tools=[*make_tools(outer), AgentTool(agent=helper)])
    events = run_events(InMemoryRunner(agent=agent, app_name="hookport"), "async", "go")
    assert len(starts) == 1
    assert turns == ["boss", "helper"]
    assert "inner says 7" in str(outer.model_inputs[1])
    assert events[-1].content.parts[0].text == "done"


def test_input_replacement_becomes_the_new_message(harness: Any) -> None:
    on(P.INPUT)(lambda ctx: "What is 40 + 2?")
    record = Record([Turn.final("ok")])
    run_events(make_runner(record, "alpha"), "async", "What is 2 + 3?")
    assert {"role": "user", "content": "What is 40 + 2?"} in record.model_inputs[0]
    assert "What is 2 + 3?" not in str(record.model_inputs[0])
