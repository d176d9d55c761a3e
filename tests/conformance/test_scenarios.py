"""Framework-neutral scenarios, run against every harness.

Each test is named ``test_<group>__<scenario>``; the group is a column of
compat-matrix.md. A scenario a framework cannot offer is declared in its
harness's `not_offered` and reported as "not offered by <framework>".
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hookport import (
    HookAborted,
    HookDispatchedEvent,
    ToolCallBlocked,
    InterceptionPoint,
    on,
    register_hook,
    register_scoped,
    scoped_hooks,
    set_strict,
    subscribe,
)
from hookport.compat import crewai as crewai_dialect
from hookport.compat import praisonai as praisonai_dialect
from tests.conformance import lifecycle_probe
from tests.conformance.conftest import require
from tests.conformance.harness import Harness, Turn

P = InterceptionPoint
MARKER = "HOOKPORT-MARKER-7f3a"


def tool_then_answer(tool: str = "add_numbers", **args: object) -> list[Turn]:
    args = args or ({"a": 2, "b": 3} if tool == "add_numbers" else {"table": "users"})
    return [Turn.call(tool, **args), Turn.final("The answer is ready.")]


class Recorder:
    """Registers a hook on every catalog point and records (point, context) in order."""

    def __init__(self, points: tuple[InterceptionPoint, ...] = tuple(InterceptionPoint)) -> None:
        self.calls: list[tuple[InterceptionPoint, object]] = []
        for point in points:
            register_hook(point, self._hook_for(point))

    def _hook_for(self, point: InterceptionPoint):  # type: ignore[no-untyped-def]
        def record(ctx: object) -> None:
            self.calls.append((point, ctx))

        record.__name__ = f"record_{point.value}"
        return record

    def points(self) -> list[InterceptionPoint]:
        return [p for p, _ in self.calls]

    def count(self, point: InterceptionPoint) -> int:
        return sum(1 for p, _ in self.calls if p is point)

    def contexts(self, point: InterceptionPoint) -> list[object]:
        return [c for p, c in self.calls if p is point]


# -- model calls -------------------------------------------------------------------------


def test_model__mutate_messages(harness: Harness) -> None:
    @on(P.PRE_MODEL_CALL)
    def add_note(ctx):  # type: ignore[no-untyped-def]
        assert isinstance(ctx.messages, list) and all(isinstance(m, dict) for m in ctx.messages)
        assert all("role" in m for m in ctx.messages)
        ctx.messages.append({"role": "user", "content": MARKER})

    result = harness.run([Turn.final("done")])
    result.raise_error()
    assert result.model_inputs, "the scripted model was never called"
    assert MARKER in str(result.model_inputs[0])


def test_model__context_fields(harness: Harness) -> None:
    seen: list[object] = []
    on(P.PRE_MODEL_CALL)(seen.append)
    harness.run([Turn.final("done")], agent="alpha").raise_error()
    assert len(seen) == harness.expected_model_calls([Turn.final("done")])
    ctx = seen[0]
    assert ctx.framework == harness.framework  # type: ignore[attr-defined]
    assert ctx.agent_role == "alpha"  # type: ignore[attr-defined]
    assert any(m.get("role") == "user" for m in ctx.messages)  # type: ignore[attr-defined]


def test_model__replace_response(harness: Harness) -> None:
    @on(P.POST_MODEL_CALL)
    def replace(ctx):  # type: ignore[no-untyped-def]
        assert "the original answer" in ctx.response
        return ctx.response.replace("the original answer", "the replaced answer")

    result = harness.run([Turn.final("the original answer")])
    result.raise_error()
    assert result.output is not None and "the replaced answer" in result.output
    assert "the original answer" not in result.output


def test_model__abort_model_call(harness: Harness) -> None:
    @on(P.PRE_MODEL_CALL)
    def stop(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("budget exhausted", source="cost-guard")

    result = harness.run(tool_then_answer())
    assert isinstance(result.error, HookAborted), f"expected HookAborted, got {result.error!r}"
    assert result.error.reason == "budget exhausted"
    assert result.error.source == "cost-guard"
    assert result.model_inputs == [], "the model was called although the hook aborted"
    assert result.tool_runs == []


def test_model__legacy_false_blocks_model(harness: Harness) -> None:
    @crewai_dialect.before_llm_call
    def block(ctx):  # type: ignore[no-untyped-def]
        return False

    result = harness.run([Turn.final("never")])
    assert isinstance(result.error, crewai_dialect.LLMCallBlockedError), repr(result.error)
    assert isinstance(result.error, ValueError)
    assert result.model_inputs == []


# -- tool calls --------------------------------------------------------------------------------


def test_tool__rewrite_arguments(harness: Harness) -> None:
    @on(P.PRE_TOOL_CALL, tools=["add_numbers"])
    def double_check(ctx):  # type: ignore[no-untyped-def]
        assert ctx.tool_input == {"a": 2, "b": 3}
        ctx.tool_input["b"] = 40

    result = harness.run(tool_then_answer())
    result.raise_error()
    assert result.runs_of("add_numbers") == [{"a": 2, "b": 40}]
    assert "42" in result.seen_by_model()


def test_tool__replace_result(harness: Harness) -> None:
    @on(P.POST_TOOL_CALL)
    def replace(ctx):  # type: ignore[no-untyped-def]
        assert "5" in str(ctx.tool_result)
        return "RESULT-REPLACED-BY-HOOK"

    result = harness.run(tool_then_answer())
    result.raise_error()
    assert len(result.runs_of("add_numbers")) == 1
    assert "RESULT-REPLACED-BY-HOOK" in result.seen_by_model()


def test_tool__context_fields(harness: Harness) -> None:
    pre: list[object] = []
    post: list[object] = []
    on(P.PRE_TOOL_CALL)(pre.append)
    on(P.POST_TOOL_CALL)(post.append)
    harness.run(tool_then_answer(), agent="alpha").raise_error()
    assert len(pre) == 1 and len(post) == 1
    assert pre[0].tool_name == "add_numbers"  # type: ignore[attr-defined]
    assert pre[0].agent_role == "alpha"  # type: ignore[attr-defined]
    assert pre[0].framework == harness.framework  # type: ignore[attr-defined]
    assert "5" in str(post[0].tool_result)  # type: ignore[attr-defined]


def test_tool__abort_after_tool_propagates(harness: Harness) -> None:
    @on(P.POST_TOOL_CALL)
    def stop(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("result leaked a secret", source="dlp")

    result = harness.run(tool_then_answer())
    assert isinstance(result.error, HookAborted), repr(result.error)
    assert result.error.reason == "result leaked a secret"
    assert len(result.runs_of("add_numbers")) == 1
    assert len(result.model_inputs) == 1, "the model was called again after the abort"


# -- blocking a tool, in every dialect ----------------------------------------------------------


def _assert_refused(harness: Harness, result, reason: str) -> None:  # type: ignore[no-untyped-def]
    result.raise_error()
    assert result.runs_of("purge_records") == [], "the refused tool ran"
    assert len(result.model_inputs) == harness.expected_model_calls(tool_then_answer()), \
        "the agent loop did not go on after the refusal"
    expected = harness.refusal_text("purge_records", reason)
    assert expected in json.dumps(result.model_inputs[1]), f"the model did not see {expected!r}"
    assert result.output is not None and "The answer is ready." in result.output


def test_block__on_hook_aborted(harness: Harness) -> None:
    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def guard(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("purging is not allowed", source="policy")

    _assert_refused(harness, harness.run(tool_then_answer("purge_records")), "purging is not allowed")


def test_block__crewai_return_false(harness: Harness) -> None:
    @crewai_dialect.before_tool_call(tools=["purge_records"])
    def guard(ctx):  # type: ignore[no-untyped-def]
        return False

    _assert_refused(harness, harness.run(tool_then_answer("purge_records")), ToolCallBlocked.MESSAGE)


def test_block__praisonai_false(harness: Harness) -> None:
    praisonai_dialect.add_hook("before_tool", lambda data: False if data.tool_name == "purge_records" else None)
    _assert_refused(harness, harness.run(tool_then_answer("purge_records")), "Denied by hook")


def test_block__praisonai_reason(harness: Harness) -> None:
    @praisonai_dialect.add_hook("before_tool")
    def guard(data):  # type: ignore[no-untyped-def]
        if data.tool_name == "purge_records":
            return "purging is not allowed here"
        return None

    _assert_refused(harness, harness.run(tool_then_answer("purge_records")), "purging is not allowed here")


def test_block__praisonai_hookresult_deny(harness: Harness) -> None:
    @praisonai_dialect.add_hook("before_tool", matcher="purge_")
    def guard(data):  # type: ignore[no-untyped-def]
        return praisonai_dialect.HookResult.deny("no purging")

    _assert_refused(harness, harness.run(tool_then_answer("purge_records")), "no purging")


def test_block__other_tools_still_run(harness: Harness) -> None:
    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def guard(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("purging is not allowed")

    result = harness.run(tool_then_answer("add_numbers"))
    result.raise_error()
    assert result.runs_of("add_numbers") == [{"a": 2, "b": 3}]


def test_block__praisonai_modified_input(harness: Harness) -> None:
    @praisonai_dialect.add_hook("before_tool")
    def rewrite(data):  # type: ignore[no-untyped-def]
        return praisonai_dialect.HookResult(decision="allow", modified_input={"b": 10})

    result = harness.run(tool_then_answer())
    result.raise_error()
    assert result.runs_of("add_numbers") == [{"a": 2, "b": 10}]


# -- execution boundaries ----------------------------------------------------------------------------


BOUNDARIES = (P.EXECUTION_START, P.INPUT, P.OUTPUT, P.EXECUTION_END)


def test_boundaries__once_and_in_order(harness: Harness) -> None:
    recorder = Recorder()
    harness.run(tool_then_answer()).raise_error()
    boundary = [p for p in recorder.points() if p in BOUNDARIES]
    assert boundary == list(BOUNDARIES), boundary
    points = recorder.points()
    assert points[0] is P.EXECUTION_START and points[1] is P.INPUT
    assert points[-2:] == [P.OUTPUT, P.EXECUTION_END]
    end = recorder.contexts(P.EXECUTION_END)[0]
    assert end.status == "completed" and end.error is None  # type: ignore[attr-defined]
    assert all(c.framework == harness.framework for _, c in recorder.calls)  # type: ignore[attr-defined]


def test_boundaries__output_replacement_reaches_caller(harness: Harness) -> None:
    require(harness, "output_replacement")

    @on(P.OUTPUT)
    def replace(ctx):  # type: ignore[no-untyped-def]
        return harness.replace_output(ctx.payload, "OUTPUT-REPLACED")  # type: ignore[attr-defined]

    result = harness.run([Turn.final("original")])
    result.raise_error()
    assert result.output is not None and "OUTPUT-REPLACED" in result.output


def test_boundaries__end_on_aborted_model_call(harness: Harness) -> None:
    recorder = Recorder(BOUNDARIES)

    @on(P.PRE_MODEL_CALL)
    def stop(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("stop here")

    result = harness.run([Turn.final("never")])
    assert isinstance(result.error, HookAborted)
    assert recorder.points() == [P.EXECUTION_START, P.INPUT, P.EXECUTION_END]
    end = recorder.contexts(P.EXECUTION_END)[0]
    assert end.status == "failed"  # type: ignore[attr-defined]
    assert end.error is result.error  # type: ignore[attr-defined]


def test_boundaries__end_on_model_error(harness: Harness) -> None:
    require(harness, "end_on_model_error")
    recorder = Recorder(BOUNDARIES)
    result = harness.run([Turn.fail("the model exploded")])
    assert result.error is not None and "the model exploded" in _error_text(result.error)
    assert recorder.count(P.EXECUTION_END) == 1
    end = recorder.contexts(P.EXECUTION_END)[0]
    assert end.status == "failed" and end.error is not None  # type: ignore[attr-defined]


def test_boundaries__no_end_after_aborted_start(harness: Harness) -> None:
    recorder = Recorder((P.EXECUTION_END, P.PRE_MODEL_CALL))

    @on(P.EXECUTION_START)
    def deny(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("unauthorized execution", source="access-control")

    # registered after the recorder, so START aborts before anything else runs
    result = harness.run([Turn.final("never")])
    assert isinstance(result.error, HookAborted) and result.error.source == "access-control"
    assert recorder.calls == []
    assert result.model_inputs == []


def test_boundaries__end_abort_on_failure_is_ignored(harness: Harness) -> None:
    @on(P.PRE_MODEL_CALL)
    def stop(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("original failure")

    @on(P.EXECUTION_END)
    def noisy(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("from the end hook")

    result = harness.run([Turn.final("never")])
    assert isinstance(result.error, HookAborted) and result.error.reason == "original failure"


# -- steps ------------------------------------------------------------------------------------------------


def test_steps__paired_with_kind(harness: Harness) -> None:
    require(harness, "steps")
    recorder = Recorder((P.PRE_STEP, P.POST_STEP))
    harness.run(tool_then_answer()).raise_error()
    pre = recorder.contexts(P.PRE_STEP)
    post = recorder.contexts(P.POST_STEP)
    assert pre, "no PRE_STEP fired"
    assert len(pre) == len(post)
    assert {c.kind for c in pre + post} == {harness.step_kind}  # type: ignore[attr-defined]
    assert all(c.step_name for c in pre)  # type: ignore[attr-defined]
    assert [c.step_name for c in pre] == [c.step_name for c in post]  # type: ignore[attr-defined]


def test_steps__abort_propagates(harness: Harness) -> None:
    require(harness, "steps")

    @on(P.PRE_STEP)
    def stop(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("no steps today")

    result = harness.run([Turn.final("never")])
    assert isinstance(result.error, HookAborted) and result.error.reason == "no steps today"
    assert result.model_inputs == []


# -- filters -----------------------------------------------------------------------------------------------


def test_filters__agents(harness: Harness) -> None:
    fired: list[str] = []

    @on(P.PRE_MODEL_CALL, agents=["alpha"])
    def only_alpha(ctx):  # type: ignore[no-untyped-def]
        fired.append(ctx.agent_role)

    harness.run([Turn.final("a")], agent="alpha").raise_error()
    harness.run([Turn.final("b")], agent="beta").raise_error()
    assert fired == ["alpha"] * harness.expected_model_calls([Turn.final("a")])


def test_filters__tools(harness: Harness) -> None:
    fired: list[str] = []

    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def only_purge(ctx):  # type: ignore[no-untyped-def]
        fired.append(ctx.tool_name)

    harness.run(tool_then_answer("add_numbers")).raise_error()
    harness.run(tool_then_answer("purge_records")).raise_error()
    assert fired == ["purge_records"]


# -- engine rules on a real run ----------------------------------------------------------------------------


def test_engine__global_then_scoped_order(harness: Harness) -> None:
    order: list[str] = []

    def scoped_hook(ctx):  # type: ignore[no-untyped-def]
        order.append("scoped")

    with scoped_hooks():
        on(P.PRE_TOOL_CALL)(lambda ctx: order.append("global-1"))
        register_scoped(P.PRE_TOOL_CALL, scoped_hook)
        on(P.PRE_TOOL_CALL)(lambda ctx: order.append("global-2"))
        harness.run(tool_then_answer()).raise_error()
    assert order == ["global-1", "global-2", "scoped"]
    order.clear()
    harness.run(tool_then_answer()).raise_error()
    assert order == ["global-1", "global-2"], "a scoped hook outlived its block"


def test_engine__fail_open(harness: Harness) -> None:
    after: list[str] = []

    @on(P.PRE_TOOL_CALL)
    def broken(ctx):  # type: ignore[no-untyped-def]
        raise ValueError("bug in a hook")

    on(P.PRE_TOOL_CALL)(lambda ctx: after.append(ctx.tool_name))
    result = harness.run(tool_then_answer())
    result.raise_error()
    assert result.runs_of("add_numbers") == [{"a": 2, "b": 3}]
    assert after == ["add_numbers"]


def test_engine__strict_mode(harness: Harness) -> None:
    require(harness, "strict_mode")
    set_strict(True)

    @on(P.PRE_MODEL_CALL)
    def broken(ctx):  # type: ignore[no-untyped-def]
        raise RuntimeError("bug in a strict hook")

    result = harness.run([Turn.final("never")])
    assert result.error is not None and "bug in a strict hook" in _error_text(result.error)
    assert result.model_inputs == []


def test_engine__one_event_per_dispatch(harness: Harness) -> None:
    seen: list[HookDispatchedEvent] = []
    subscribe(seen.append)
    on(P.PRE_TOOL_CALL)(lambda ctx: None)

    @on(P.POST_MODEL_CALL)
    def emphasise(ctx):  # type: ignore[no-untyped-def]
        # touches only the final answer, so a text (ReAct) tool-call protocol survives it
        return ctx.response.replace("ready", "READY") if ctx.response else None

    harness.run(tool_then_answer()).raise_error()
    assert [e.point for e in seen if e.point == "pre_tool_call"] == ["pre_tool_call"]
    posts = [e for e in seen if e.point == "post_model_call"]
    assert len(posts) == harness.expected_model_calls(tool_then_answer())
    assert {e.point for e in seen} == {"pre_tool_call", "post_model_call"}
    assert all(e.framework == harness.framework for e in seen)
    assert any(e.outcome == "modified" for e in posts)


def test_engine__abort_telemetry(harness: Harness) -> None:
    seen: list[HookDispatchedEvent] = []
    subscribe(seen.append)

    @on(P.PRE_TOOL_CALL)
    def guard(ctx):  # type: ignore[no-untyped-def]
        if ctx.tool_name == "purge_records":
            raise HookAborted("purging is not allowed", source="policy")

    harness.run(tool_then_answer("purge_records")).raise_error()
    aborted = [e for e in seen if e.outcome == "aborted"]
    assert len(aborted) == 1
    assert aborted[0].abort_reason == "purging is not allowed" and aborted[0].abort_source == "policy"


# -- exactly once across entry points ---------------------------------------------------------------------------


def _exactly_once(harness: Harness, entry: str) -> None:
    if entry not in harness.entries:
        pytest.skip(f"not offered by {harness.framework}: no {entry} entry point")
    recorder = Recorder((P.PRE_MODEL_CALL, P.POST_MODEL_CALL, P.PRE_TOOL_CALL, P.POST_TOOL_CALL,
                         P.EXECUTION_START, P.EXECUTION_END))
    result = harness.run(tool_then_answer(), entry=entry)  # type: ignore[arg-type]
    result.raise_error()
    copies = 2 if entry == "batch" else 1
    calls = harness.expected_model_calls(tool_then_answer())
    assert len(result.runs_of("add_numbers")) == copies
    assert recorder.count(P.PRE_MODEL_CALL) == calls * copies
    assert recorder.count(P.POST_MODEL_CALL) == calls * copies
    assert recorder.count(P.PRE_TOOL_CALL) == copies
    assert recorder.count(P.POST_TOOL_CALL) == copies
    assert recorder.count(P.EXECUTION_START) == copies
    assert recorder.count(P.EXECUTION_END) == copies


def test_engine__exactly_once_sync(harness: Harness) -> None:
    _exactly_once(harness, "sync")


def test_async__exactly_once(harness: Harness) -> None:
    _exactly_once(harness, "async")


def test_streaming__exactly_once(harness: Harness) -> None:
    _exactly_once(harness, "stream")


def test_batch__exactly_once(harness: Harness) -> None:
    _exactly_once(harness, "batch")


def test_async__block_tool(harness: Harness) -> None:
    if "async" not in harness.entries:
        pytest.skip(f"not offered by {harness.framework}: no async entry point")

    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def guard(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("purging is not allowed")

    result = harness.run(tool_then_answer("purge_records"), entry="async")
    result.raise_error()
    assert result.runs_of("purge_records") == []
    assert len(result.model_inputs) == harness.expected_model_calls(tool_then_answer())


def test_async__scoped_hooks_follow_tasks(harness: Harness) -> None:
    if "async" not in harness.entries:
        pytest.skip(f"not offered by {harness.framework}: no async entry point")
    fired: list[str] = []

    async def main() -> None:
        with scoped_hooks({P.PRE_TOOL_CALL: [lambda ctx: fired.append(ctx.tool_name)]}):
            await asyncio.get_running_loop().run_in_executor(None, lambda: None)
            result = await asyncio.to_thread(harness.run, tool_then_answer(), entry="async")
            result.raise_error()

    asyncio.run(main())
    assert fired == ["add_numbers"]


def test_streaming__block_tool(harness: Harness) -> None:
    if "stream" not in harness.entries:
        pytest.skip(f"not offered by {harness.framework}: no stream entry point")

    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def guard(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("purging is not allowed")

    result = harness.run(tool_then_answer("purge_records"), entry="stream")
    result.raise_error()
    assert result.runs_of("purge_records") == []


def _error_text(error: BaseException) -> str:
    parts = []
    current: BaseException | None = error
    while current is not None and len(parts) < 10:
        parts.append(f"{type(current).__name__}: {current}")
        current = current.__cause__ or current.__context__
    return " <- ".join(parts)


# -- install lifecycle, each in a fresh interpreter ----------------------------------------------------------

REPO_ROOT = Path(__file__).resolve().parents[2]


def probe(harness: Harness, scenario: str) -> dict:  # type: ignore[type-arg]
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "tests.conformance.lifecycle_probe", harness.framework, scenario],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_lifecycle__import_then_install(harness: Harness) -> None:
    out = probe(harness, "import_then_install")
    assert out["patched"] > 0 and out["missing"] == []
    assert out["run"] == {"hook_fired": 1, "tool_runs": 1, "error": None}
    assert out["restored"] and out["checked_targets"] > 0


def test_lifecycle__install_then_import(harness: Harness) -> None:
    out = probe(harness, "install_then_import")
    assert out["imported_before_install"] is False, "importing hookport imported the framework"
    assert out["pending_at_install"] > 0
    assert out["run"] == {"hook_fired": 1, "tool_runs": 1, "error": None}
    assert out["patched"] > 0 and out["missing"] == []


def test_lifecycle__double_install(harness: Harness) -> None:
    out = probe(harness, "double_install")
    assert out["same_report"] is True
    assert out["run"] == {"hook_fired": 1, "tool_runs": 1, "error": None}
    assert out["restored"]


def test_lifecycle__reinstall(harness: Harness) -> None:
    out = probe(harness, "reinstall")
    assert out["run"] == {"hook_fired": 1, "tool_runs": 1, "error": None}
    assert out["restored"]


def test_lifecycle__uninstall_twice(harness: Harness) -> None:
    out = probe(harness, "uninstall_twice")
    assert out["first_uninstall"] is True and out["second_uninstall"] is False
    assert out["run"] == {"hook_fired": 0, "tool_runs": 1, "error": None}
    assert out["restored"] and out["checked_targets"] > 0


def test_lifecycle__cycles_leave_nothing_behind(harness: Harness) -> None:
    out = probe(harness, "cycles_leave_nothing")
    assert out["hooks_after"] == out["hooks_before"], "install/uninstall cycles left import hooks behind"
    assert out["memory_growth"] < 200 * lifecycle_probe.CYCLES, (
        f"{out['memory_growth']} bytes grew over {lifecycle_probe.CYCLES} cycles (by window: {out['windows']})")
    assert out["run"] == {"hook_fired": 1, "tool_runs": 1, "error": None}
