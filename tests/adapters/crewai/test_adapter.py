"""What only the CrewAI adapter has: its two modes, crewai's own hooks, its conventions."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
import wrapt

import crewai
import crewai.hooks as crewai_hooks
from hookport import HookAborted, InterceptionPoint, adapters, on
from hookport.adapters._errors import UnsupportedVersionError
from hookport.adapters._versions import installed_version
from hookport.adapters.crewai import CrewAIAdapter, uses_native_dispatch
from hookport.compat import crewai as crewai_dialect
from tests.support.hooks import collect
from tests.adapters.crewai.harness import NATIVE_TOOLS, CrewAIHarness
from tests.conformance.harness import ToolCall, Turn

P = InterceptionPoint
VERSION = installed_version("crewai")
NATIVE = uses_native_dispatch(VERSION)
BLOCKED = "Tool execution blocked by hook. Tool: purge_records"


def tool_then_answer(tool: str = "add_numbers", **args: Any) -> list[Turn]:
    args = args or ({"a": 2, "b": 3} if tool == "add_numbers" else {"table": "users"})
    return [Turn.call(tool, **args), Turn.final("The answer is ready.")]


# -- install ---------------------------------------------------------------------------------------


def test_install_report_names_the_mode(installed: adapters.InstallReport) -> None:
    assert installed.version == VERSION and installed.in_supported_range
    assert installed.missing == []
    if NATIVE:
        assert installed.native == [p.value for p in InterceptionPoint]
        assert "crewai.hooks.dispatch:_resolve_hooks" in installed.patched
    else:
        assert installed.native == []
        assert "crewai.hooks.tool_hooks:_before_tool_call_hooks" in installed.patched
        assert "crewai.task:Task._execute_core" in installed.patched


def test_unsupported_version_is_a_clear_error(uninstalled: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("hookport.adapters._base.installed_version", lambda dist: "1.4.1")
    with pytest.raises(UnsupportedVersionError) as caught:
        CrewAIAdapter().install()
    assert "1.4.1" in str(caught.value) and ">=1.5.0,<2" in str(caught.value)


def test_uninstall_restores_crewai(uninstalled: None) -> None:
    adapter = CrewAIAdapter()
    adapter.install()
    fired = collect(P.PRE_TOOL_CALL)
    assert adapter.uninstall() is True
    for target in adapter.targets():
        module = sys.modules.get(target.module)
        if module is None:  # an optional provider whose SDK is not installed
            continue
        _, _, value = wrapt.resolve_path(module, target.path)
        assert not isinstance(value, wrapt.FunctionWrapper), target.name
    import crewai.hooks.tool_hooks as tool_hooks

    assert type(tool_hooks._before_tool_call_hooks) is list
    resolve = getattr(sys.modules.get("crewai.hooks.dispatch"), "_resolve_hooks", None)
    assert not getattr(resolve, "__hookport_patch__", False)
    result = CrewAIHarness().run(tool_then_answer())
    result.raise_error()
    assert fired == [] and len(result.runs_of("add_numbers")) == 1


# -- crewai's own hooks ----------------------------------------------------------------------------------------------


def test_installed_without_hookport_hooks_crewai_is_untouched(installed: adapters.InstallReport) -> None:
    """No hookport hook: crewai's registries, fast path and hook lists are what crewai made them."""
    for getter in ("get_before_llm_call_hooks", "get_after_llm_call_hooks",
                   "get_before_tool_call_hooks", "get_after_tool_call_hooks"):
        assert getattr(crewai_hooks, getter)() == [], getter
    if NATIVE:
        dispatch_module = sys.modules["crewai.hooks.dispatch"]
        for point in dispatch_module.InterceptionPoint:
            # the very list object crewai keeps: its no-op fast path is intact
            assert dispatch_module._resolve_hooks(point) is dispatch_module._global_hooks[point]


def test_crewai_registered_hooks_fire_once_next_to_hookport_hooks(harness: CrewAIHarness) -> None:
    native_seen: list[str] = []

    @crewai_hooks.before_tool_call
    def crewai_hook(ctx: Any) -> None:
        native_seen.append(ctx.tool_name)

    @crewai_hooks.before_llm_call
    def crewai_model_hook(ctx: Any) -> None:
        native_seen.append("model")

    ours = collect(P.PRE_TOOL_CALL)
    result = harness.run(tool_then_answer())
    result.raise_error()
    assert native_seen.count("add_numbers") == 1
    assert native_seen.count("model") == 2
    assert [c.tool_name for c in ours] == ["add_numbers"]
    # registering a hookport hook does not show up in crewai's own registry
    assert crewai_hooks.get_before_llm_call_hooks() == [crewai_model_hook]


def test_crewai_registered_refusal_keeps_crewai_convention(harness: CrewAIHarness) -> None:
    @crewai_hooks.before_tool_call
    def refuse(ctx: Any) -> Any:
        return False if ctx.tool_name == "purge_records" else None

    ours = collect(P.PRE_TOOL_CALL)
    result = harness.run(tool_then_answer("purge_records"))
    result.raise_error()
    assert result.runs_of("purge_records") == []
    assert BLOCKED in json.dumps(result.model_inputs[1])
    assert ours == [], "crewai's own hook refused first: hookport's chain never ran"


@pytest.mark.skipif(not NATIVE, reason="crewai < 1.15.3: the legacy ReAct sites answer before any after-hook")
@pytest.mark.parametrize("entry", ["sync", "async"])
def test_refusal_the_model_reads_carries_the_reason(harness: CrewAIHarness, entry: str) -> None:
    """A PRE_TOOL_CALL abort alone (no POST hook): crewai's sentence, then the hook's reason."""

    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def guard(ctx: Any) -> None:
        raise HookAborted("purging needs a change ticket", source="policy")

    result = harness.run(tool_then_answer("purge_records"), entry=entry)
    result.raise_error()
    assert result.runs_of("purge_records") == []
    contents = [m.get("content") for m in result.model_inputs[1] if m.get("role") == "tool"]
    if not contents:  # the ReAct protocol: the observation is in the conversation text
        contents = [c for c in (m.get("content") for m in result.model_inputs[1]) if BLOCKED in str(c)]
    assert contents and all(f"{BLOCKED}. Reason: purging needs a change ticket" in str(c) for c in contents), \
        result.model_inputs[1]


def test_crewai_refusal_by_hookport_hook(harness: CrewAIHarness) -> None:
    @crewai_dialect.before_tool_call(tools=["Purge Records"])
    def refuse(ctx: Any) -> bool:
        return False

    posts = collect(P.POST_TOOL_CALL)
    result = harness.run(tool_then_answer("purge_records"))
    result.raise_error()
    assert result.runs_of("purge_records") == []
    assert BLOCKED in json.dumps(result.model_inputs[1])
    assert [p.tool_result for p in posts] == [BLOCKED], "POST_TOOL_CALL sees crewai's refusal text"


# -- aborts are never retried nor swallowed ------------------------------------------------------------------------------


def test_abort_before_model_is_not_retried(harness: CrewAIHarness) -> None:
    calls: list[int] = []
    raised = HookAborted("budget exhausted", source="cost-guard")

    @on(P.PRE_MODEL_CALL)
    def stop(ctx: Any) -> None:
        calls.append(1)
        raise raised

    crew = harness.make_crew("retry-run", "alpha", "What is 2 + 3?", max_retry_limit=2)
    from tests.adapters.crewai import harness as harness_module

    harness_module._RUNS["retry-run"] = harness_module._Record(tool_then_answer())
    try:
        with pytest.raises(HookAborted) as caught:
            crew.kickoff()
        assert harness_module._RUNS["retry-run"].model_inputs == []
    finally:
        harness_module._RUNS.pop("retry-run", None)
    assert caught.value is raised, "the caller gets the very exception the hook raised"
    assert calls == [1], "crewai's retry loop ran the aborted task again"


def test_legacy_false_before_model_is_llm_call_blocked_error(harness: CrewAIHarness) -> None:
    calls: list[int] = []

    @crewai_dialect.before_llm_call
    def block(ctx: Any) -> bool:
        calls.append(1)
        return False

    result = harness.run([Turn.final("never")])
    assert isinstance(result.error, crewai_dialect.LLMCallBlockedError)
    assert isinstance(result.error, ValueError) and isinstance(result.error, HookAborted)
    assert str(result.error) == "LLM call blocked by before_llm_call hook"
    assert calls == [1] and result.model_inputs == []
    crewai_blocked = getattr(sys.modules.get("crewai.llms.base_llm"), "LLMCallBlockedError", None)
    if crewai_blocked is not None and NATIVE:  # code written against crewai's class still catches it
        assert isinstance(result.error, crewai_blocked)


def test_abort_after_tool_leaves_kickoff(harness: CrewAIHarness) -> None:
    @on(P.POST_TOOL_CALL)
    def stop(ctx: Any) -> None:
        raise HookAborted("result leaked a secret", source="dlp")

    ends = collect(P.EXECUTION_END)
    result = harness.run(tool_then_answer())
    assert isinstance(result.error, HookAborted) and result.error.source == "dlp"
    assert len(result.model_inputs) == 1
    assert [(e.status, e.error) for e in ends] == [("failed", result.error)]


# -- contexts ------------------------------------------------------------------------------------------------------------


def test_contexts_carry_crewai_objects(harness: CrewAIHarness) -> None:
    model = collect(P.PRE_MODEL_CALL)
    tool = collect(P.PRE_TOOL_CALL)
    steps = collect(P.PRE_STEP)
    starts = collect(P.EXECUTION_START)
    harness.run(tool_then_answer(), agent="analyst").raise_error()
    ctx = model[0]
    assert isinstance(ctx.agent, crewai.Agent) and ctx.agent_role == "analyst"
    assert isinstance(ctx.task, crewai.Task) and isinstance(ctx.crew, crewai.Crew)
    assert ctx.executor is not None and ctx.llm is ctx.agent.llm
    assert all(isinstance(m, dict) and "role" in m for m in ctx.messages)
    assert tool[0].tool_input == {"a": 2, "b": 3} and tool[0].agent_role == "analyst"
    assert isinstance(tool[0].crew, crewai.Crew)
    (step,) = steps
    assert step.kind == "task" and step.step_name == "What is 2 + 3?"
    assert step.task is ctx.task and step.crew is ctx.crew and step.agent_role == "analyst"
    assert starts[0].crew is ctx.crew and starts[0].framework == "crewai"


def test_execution_start_replaces_inputs(harness: CrewAIHarness) -> None:
    @on(P.EXECUTION_START)
    def topic(ctx: Any) -> dict[str, str]:
        return {"topic": "quantum-widgets"}

    result = harness.run([Turn.final("done")], prompt="Tell me about {topic}.")
    result.raise_error()
    assert "quantum-widgets" in result.seen_by_model()


def test_task_step_rewrites_context_and_output(harness: CrewAIHarness) -> None:
    @on(P.PRE_STEP)
    def add_context(ctx: Any) -> str:
        return "CONTEXT-FROM-HOOK"

    @on(P.POST_STEP)
    def rewrite(ctx: Any) -> Any:
        ctx.payload.raw = "STEP-OUTPUT-REWRITTEN"

    result = harness.run([Turn.final("done")])
    result.raise_error()
    assert "CONTEXT-FROM-HOOK" in result.seen_by_model()
    assert result.output == "STEP-OUTPUT-REWRITTEN"


def test_model_message_edits_reach_the_model(harness: CrewAIHarness) -> None:
    @on(P.PRE_MODEL_CALL)
    def system_note(ctx: Any) -> None:
        ctx.messages.insert(0, {"role": "system", "content": "NOTE-FROM-HOOK"})

    result = harness.run(tool_then_answer())
    result.raise_error()
    assert all(inputs[0] == {"role": "system", "content": "NOTE-FROM-HOOK"} for inputs in result.model_inputs)


# -- the other model paths -------------------------------------------------------------------------------------------------


def test_react_text_path(installed: adapters.InstallReport) -> None:
    harness = CrewAIHarness(mode="react")

    @on(P.PRE_TOOL_CALL)
    def guard(ctx: Any) -> None:
        if ctx.tool_name == "purge_records":
            raise HookAborted("purging is not allowed")
        ctx.tool_input["b"] = 40

    @on(P.POST_TOOL_CALL)
    def annotate(ctx: Any) -> str:
        return f"RESULT={ctx.tool_result}"

    result = harness.run(tool_then_answer())
    result.raise_error()
    assert result.runs_of("add_numbers") == [{"a": 2, "b": 40}]
    assert "RESULT=42" in result.seen_by_model()
    refused = harness.run(tool_then_answer("purge_records"))
    refused.raise_error()
    assert refused.runs_of("purge_records") == [] and BLOCKED in refused.seen_by_model()


@pytest.mark.skipif(not NATIVE_TOOLS, reason="crewai 1.5 / 1.6 drive only the ReAct text protocol")
def test_native_parallel_tool_calls(installed: adapters.InstallReport) -> None:
    harness = CrewAIHarness(mode="native")
    pre = collect(P.PRE_TOOL_CALL)
    post = collect(P.POST_TOOL_CALL)
    post_model = collect(P.POST_MODEL_CALL)

    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def guard(ctx: Any) -> None:
        raise HookAborted("purging is not allowed")

    both = Turn(tool_calls=[ToolCall("add_numbers", {"a": 2, "b": 3}), ToolCall("purge_records", {"table": "users"})])
    result = harness.run([both, Turn.final("The answer is ready.")])
    result.raise_error()
    assert result.runs_of("add_numbers") == [{"a": 2, "b": 3}]
    assert result.runs_of("purge_records") == []
    assert sorted(c.tool_name for c in pre) == ["add_numbers", "purge_records"]
    assert sorted(c.tool_name for c in post) == ["add_numbers", "purge_records"]
    assert len(result.model_inputs) == 2
    second = result.model_inputs[1]
    tool_messages = {m.get("tool_call_id"): m.get("content") for m in second if m.get("role") == "tool"}
    assert tool_messages == {"call_1": "5", "call_2": f"{BLOCKED}. Reason: purging is not allowed"}
    # crewai skips its after-model hooks for a tool-call answer; hookport still fires once
    assert [c.response for c in post_model] == ["", "The answer is ready."]
    assert [len(c.metadata.get("tool_calls", [])) for c in post_model] == [2, 0]


def test_openai_provider_path(installed: adapters.InstallReport) -> None:
    from crewai import LLM

    from tests.support.openai_server import ScriptedOpenAIServer

    pre = collect(P.PRE_MODEL_CALL)
    post = collect(P.POST_MODEL_CALL)
    tools = collect(P.PRE_TOOL_CALL)

    @on(P.PRE_MODEL_CALL)
    def mark(ctx: Any) -> None:
        ctx.messages.append({"role": "user", "content": "MARKER-FROM-HOOK"})

    with ScriptedOpenAIServer() as server:
        result = CrewAIHarness(mode="provider", server=server).run(tool_then_answer())
        result.raise_error()
        assert result.runs_of("add_numbers") == [{"a": 2, "b": 3}]
        assert len(server.requests) == 2 and len(pre) == 2 and len(post) == 2 and len(tools) == 1
        assert all(r["messages"][-1] == {"role": "user", "content": "MARKER-FROM-HOOK"} for r in server.requests)

        # a direct call goes through the provider layer: once, on a copy of the caller's messages
        pre.clear()
        post.clear()
        server.script([Turn.final("hello there")])
        llm = LLM(model="openai/gpt-4o-mini", base_url=server.base_url, api_key="sk-offline-dummy")
        messages = [{"role": "user", "content": "hi"}]

        @on(P.POST_MODEL_CALL)
        def shout(ctx: Any) -> str:
            return ctx.response.upper()

        assert llm.call(messages) == "HELLO THERE"
        assert len(pre) == 1 and len(post) == 1 and pre[0].agent is None
        assert server.requests[-1]["messages"][-1]["content"] == "MARKER-FROM-HOOK"
        assert messages == [{"role": "user", "content": "hi"}], "the caller's list was edited"


# -- flows ------------------------------------------------------------------------------------------------------------------


def test_flow_methods_are_steps(installed: adapters.InstallReport) -> None:
    from crewai.flow.flow import Flow, listen, start

    received: list[str] = []

    class Pipeline(Flow):  # type: ignore[misc, type-arg]
        @start()
        def fetch(self) -> str:
            return "raw-data"

        @listen(fetch)
        def summarise(self, data: str) -> str:
            received.append(data)
            return f"summary of {data}"

    pre = collect(P.PRE_STEP)
    post = collect(P.POST_STEP)
    boundaries = collect(P.EXECUTION_START)
    ends = collect(P.EXECUTION_END)

    @on(P.PRE_STEP)
    def rewrite_argument(ctx: Any) -> Any:
        if ctx.step_name == "summarise":
            return {"_0": "REWRITTEN-ARG"}
        return None

    output = Pipeline().kickoff()
    assert [(c.kind, c.step_name) for c in pre] == [("flow_method", "fetch"), ("flow_method", "summarise")]
    assert [c.step_name for c in post] == ["fetch", "summarise"]
    assert received == ["REWRITTEN-ARG"]
    assert output == "summary of REWRITTEN-ARG"
    assert len(boundaries) == 1 and isinstance(boundaries[0].flow, Flow)
    assert [e.status for e in ends] == ["completed"]
