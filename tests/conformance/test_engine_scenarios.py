"""Scenarios for the engine's later guarantees, run against every harness.

Refusals reach POST_TOOL_CALL; EXECUTION_END pairs with START on every entry point;
async hooks in every dialect; wrap hooks around the real model and tool calls;
the re-entrancy rule; durations; agent turns; the final answer's text.
Named ``test_<group>__<scenario>`` like the first scenarios (a group is a column of
compat-matrix.md); what a framework cannot offer is declared in its harness.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from hookport import ExtensionPoint, HookAborted, InterceptionPoint, on, register_hook
from hookport.compat import crewai as crewai_dialect
from hookport.compat import praisonai as praisonai_dialect
from tests.conformance.conftest import require
from tests.conformance.harness import Harness, Turn
from tests.conformance.test_scenarios import MARKER, Recorder, tool_then_answer

P = InterceptionPoint
W = ExtensionPoint


def entries_of(harness: Harness) -> list[str]:
    return list(harness.entries)


def _each_entry(harness: Harness, scenario: str) -> list[str]:
    require(harness, scenario)
    return entries_of(harness)


# -- refusals are audited ----------------------------------------------------------------------


def test_refusal__post_tool_call_sees_the_refusal(harness: Harness) -> None:
    require(harness, "refusal__post_tool_call_sees_the_refusal")
    audit: list[tuple[str, bool, Any]] = []

    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def deny(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("purging is not allowed", source="policy")

    @on(P.POST_TOOL_CALL)
    def record(ctx):  # type: ignore[no-untyped-def]
        audit.append((ctx.tool_name, ctx.refused, ctx.tool_result))

    result = harness.run(tool_then_answer("purge_records"))
    result.raise_error()
    assert result.runs_of("purge_records") == []
    assert len(audit) == 1, audit
    name, refused, tool_result = audit[0]
    assert name == "purge_records" and refused is True
    assert "purging is not allowed" in str(tool_result) or harness.refusal_text("purge_records", "purging is not allowed") in str(tool_result)


# -- EXECUTION_END pairs with START on every entry point ------------------------------------------


@pytest.mark.parametrize("entry", ["sync", "async", "stream", "batch"])
def test_boundaries__end_after_input_abort(harness: Harness, entry: str) -> None:
    require(harness, "boundaries__end_after_input_abort")
    if entry not in harness.entries:
        pytest.skip(f"not offered by {harness.framework}: no {entry} entry point")
    recorder = Recorder((P.EXECUTION_START, P.EXECUTION_END))

    @on(P.INPUT)
    def refuse(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("input rejected", source="input-guard")

    result = harness.run([Turn.final("never")], entry=entry)  # type: ignore[arg-type]
    assert isinstance(result.error, HookAborted), repr(result.error)
    assert result.model_inputs == []
    starts, ends = recorder.count(P.EXECUTION_START), recorder.count(P.EXECUTION_END)
    assert starts >= 1 and ends == starts, (starts, ends)
    assert all(ctx.status == "failed" for ctx in recorder.contexts(P.EXECUTION_END))  # type: ignore[attr-defined]


# -- async hooks in every dialect, on every entry point ------------------------------------------------


def _async_guard(dialect: str) -> None:
    if dialect == "on":
        @on(P.PRE_TOOL_CALL, tools=["purge_records"])
        async def guard(ctx):  # type: ignore[no-untyped-def]
            await asyncio.sleep(0)
            raise HookAborted("purging is not allowed", source="async-policy")
    elif dialect == "crewai":
        @crewai_dialect.before_tool_call(tools=["purge_records"])
        async def guard(ctx):  # type: ignore[no-untyped-def]
            await asyncio.sleep(0)
            return False
    else:
        @praisonai_dialect.add_hook("before_tool")
        async def guard(event):  # type: ignore[no-untyped-def]
            await asyncio.sleep(0)
            return "purging is not allowed" if event.tool_name == "purge_records" else None


@pytest.mark.parametrize("dialect", ["on", "crewai", "praisonai"])
@pytest.mark.parametrize("entry", ["sync", "async", "stream", "batch"])
def test_asynchooks__guard_blocks_tool(harness: Harness, dialect: str, entry: str) -> None:
    require(harness, "asynchooks__guard_blocks_tool")
    if entry not in harness.entries:
        pytest.skip(f"not offered by {harness.framework}: no {entry} entry point")
    _async_guard(dialect)
    result = harness.run(tool_then_answer("purge_records"), entry=entry)  # type: ignore[arg-type]
    result.raise_error()
    assert result.runs_of("purge_records") == []
    assert result.model_inputs, "the run stopped instead of going on after the refusal"


@pytest.mark.parametrize("entry", ["sync", "async", "stream"])
def test_asynchooks__edit_and_replace(harness: Harness, entry: str) -> None:
    require(harness, "asynchooks__edit_and_replace")
    if entry not in harness.entries:
        pytest.skip(f"not offered by {harness.framework}: no {entry} entry point")

    @on(P.PRE_MODEL_CALL)
    async def add_note(ctx):  # type: ignore[no-untyped-def]
        await asyncio.sleep(0)
        ctx.messages.append({"role": "user", "content": MARKER})

    @on(P.POST_MODEL_CALL)
    async def replace(ctx):  # type: ignore[no-untyped-def]
        await asyncio.sleep(0)
        return (ctx.response or "").replace("the original answer", "the replaced answer")

    if entry == "stream":
        with harness.buffered_streaming():
            result = harness.run([Turn.final("the original answer")], entry="stream")
    else:
        result = harness.run([Turn.final("the original answer")], entry=entry)  # type: ignore[arg-type]
    result.raise_error()
    assert MARKER in result.seen_by_model()
    assert result.output is not None and "the replaced answer" in result.output


# -- wrap hooks around the real calls --------------------------------------------------------------------


def test_wrap__retry_reissues_the_model_request(harness: Harness) -> None:
    require(harness, "wrap__retry_reissues_the_model_request")
    recorder = Recorder((P.PRE_MODEL_CALL, P.POST_MODEL_CALL))
    attempts: list[int] = []

    @on(W.WRAP_MODEL_CALL)
    def retry(ctx, call_next):  # type: ignore[no-untyped-def]
        for attempt in range(1, 4):
            attempts.append(attempt)
            try:
                return call_next(ctx)
            except Exception:
                if attempt == 3:
                    raise

    script = [Turn.fail("model overloaded"), Turn.final("second time lucky")]
    requests = harness.expected_model_calls(script)  # the failed attempt is one of them
    result = harness.run(script)
    result.raise_error()
    assert attempts == [1, 2] + [1] * (requests - 2)
    assert len(result.model_inputs) == requests, "the model was not really called twice"
    assert recorder.count(P.PRE_MODEL_CALL) == requests - 1 and recorder.count(P.POST_MODEL_CALL) == requests - 1
    assert result.output is not None and "second time lucky" in result.output


def test_wrap__short_circuit_never_calls_the_model(harness: Harness) -> None:
    require(harness, "wrap__short_circuit_never_calls_the_model")
    seen: list[Any] = []
    register_hook(W.WRAP_MODEL_CALL, lambda ctx, call_next: "served from cache")
    register_hook(P.POST_MODEL_CALL, lambda ctx: seen.append(ctx.response))
    result = harness.run([Turn.final("never asked")])
    result.raise_error()
    assert result.model_inputs == []
    assert seen == ["served from cache"]
    assert result.output is not None and "served from cache" in result.output


def test_wrap__fallback_answers_when_the_model_fails(harness: Harness) -> None:
    require(harness, "wrap__fallback_answers_when_the_model_fails")

    @on(W.WRAP_MODEL_CALL)
    def fallback(ctx, call_next):  # type: ignore[no-untyped-def]
        try:
            return call_next(ctx)
        except Exception:
            return "the fallback answer"

    result = harness.run([Turn.fail("provider down")])
    result.raise_error()
    assert len(result.model_inputs) == 1
    assert result.output is not None and "the fallback answer" in result.output


def test_wrap__timing_around_model_and_tool(harness: Harness) -> None:
    require(harness, "wrap__timing_around_model_and_tool")
    timings: list[tuple[str, float]] = []

    def timer(kind: str):  # type: ignore[no-untyped-def]
        def wrap(ctx, call_next):  # type: ignore[no-untyped-def]
            import time

            started = time.perf_counter()
            try:
                return call_next(ctx)
            finally:
                timings.append((kind, time.perf_counter() - started))

        return wrap

    register_hook(W.WRAP_MODEL_CALL, timer("model"))
    register_hook(W.WRAP_TOOL_CALL, timer("tool"))
    result = harness.run(tool_then_answer())
    result.raise_error()
    calls = harness.expected_model_calls(tool_then_answer())
    assert [kind for kind, _ in timings] == ["model", "tool"] + ["model"] * (calls - 1)
    assert len(result.runs_of("add_numbers")) == 1 and len(result.model_inputs) == calls


def test_wrap__tool_short_circuit_never_runs_the_tool(harness: Harness) -> None:
    require(harness, "wrap__tool_short_circuit_never_runs_the_tool")
    register_hook(W.WRAP_TOOL_CALL, lambda ctx, call_next: f"cached:{MARKER}", tools=["add_numbers"])
    result = harness.run(tool_then_answer())
    result.raise_error()
    assert result.runs_of("add_numbers") == []
    assert f"cached:{MARKER}" in result.seen_by_model()


# -- re-entrancy ---------------------------------------------------------------------------------------------


def test_reentry__a_judge_hook_is_not_hooked_again(harness: Harness) -> None:
    require(harness, "reentry__a_judge_hook_is_not_hooked_again")
    verdicts: list[str] = []

    @on(P.PRE_MODEL_CALL)
    def judge(ctx):  # type: ignore[no-untyped-def]
        try:
            verdicts.append(harness.judge("Is this request safe?", "SAFE"))
        except NotImplementedError:
            pytest.skip(f"not offered by {harness.framework}: the harness has no direct model call")

    result = harness.run([Turn.final("done")])
    result.raise_error()
    assert verdicts == ["SAFE"] * harness.expected_model_calls([Turn.final("done")]), verdicts


def test_reentry__a_permission_check_tool_runs_once(harness: Harness) -> None:
    require(harness, "reentry__a_permission_check_tool_runs_once")
    checks: list[str] = []

    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def check(ctx):  # type: ignore[no-untyped-def]
        try:
            checks.append(harness.run_tool_directly("add_numbers", {"a": 1, "b": 1}))
        except NotImplementedError:
            pytest.skip(f"not offered by {harness.framework}: the harness has no direct tool call")

    result = harness.run(tool_then_answer("purge_records"))
    result.raise_error()
    assert len(checks) == 1 and "2" in checks[0]
    assert len(result.runs_of("purge_records")) == 1
    assert len(result.runs_of("add_numbers")) == 1


# -- durations, agent turns, the final answer -----------------------------------------------------------------


def test_durations__post_and_end_carry_them(harness: Harness) -> None:
    require(harness, "durations__post_and_end_carry_them")
    points = [P.POST_MODEL_CALL, P.POST_TOOL_CALL, P.EXECUTION_END]
    if harness.step_kind is not None:
        points.append(P.POST_STEP)
    recorder = Recorder(tuple(points))
    harness.run(tool_then_answer()).raise_error()
    for point in points:
        contexts = recorder.contexts(point)
        assert contexts, f"{point.value} never fired"
        for ctx in contexts:
            assert isinstance(ctx.duration_ms, float) and ctx.duration_ms >= 0.0, (point, ctx.duration_ms)  # type: ignore[attr-defined]


def test_turns__once_per_agent_turn(harness: Harness) -> None:
    require(harness, "turns__once_per_agent_turn")
    starts: list[Any] = []
    ends: list[Any] = []
    register_hook(W.AGENT_TURN_START, starts.append)
    register_hook(W.AGENT_TURN_END, ends.append)
    harness.run(tool_then_answer(), agent="alpha").raise_error()
    assert len(starts) == 1 and len(ends) == 1, (len(starts), len(ends))
    assert starts[0].step_name == "alpha" and ends[0].step_name == "alpha"
    assert isinstance(ends[0].duration_ms, float)


def test_output__text_view_redacts_the_final_answer(harness: Harness) -> None:
    require(harness, "output__text_view_redacts_the_final_answer")

    @on(P.OUTPUT)
    def redact(ctx):  # type: ignore[no-untyped-def]
        assert ctx.text is not None and "4111" in ctx.text
        ctx.text = ctx.text.replace("4111 1111 1111 1111", "[CARD]")

    result = harness.run([Turn.final("your card is 4111 1111 1111 1111")])
    result.raise_error()
    assert result.output is not None and "[CARD]" in result.output and "4111" not in result.output
