"""What only the Agents SDK has: parallel tool calls, handoffs, its own hooks and guardrails,
streamed runs, its OpenAI models, the message conversion."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from hookport import ExtensionPoint, HookAborted, InterceptionPoint, adapters, on
from tests.conformance.harness import ToolCall, Turn
from tests.support.hooks import collect

pytest.importorskip("agents")

from agents import (  # noqa: E402
    Agent,
    AgentHooks,
    GuardrailFunctionOutput,
    InputGuardrailTripwireTriggered,
    RunHooks,
    Runner,
    input_guardrail,
)

from tests.adapters.openai_agents.harness import build_agent, build_tools, drain  # noqa: E402

P = InterceptionPoint
W = ExtensionPoint
pytestmark = pytest.mark.usefixtures("openai_agents_adapter")


def _run(agent: Agent, prompt: str = "go", **options: Any) -> Any:
    return Runner.run_sync(agent, prompt, **options)


# -- tools ----------------------------------------------------------------------------------------


def test_parallel_tool_calls_refuse_one_and_run_the_other() -> None:
    inputs: list[Any] = []
    runs: list[tuple[str, dict[str, Any]]] = []
    script = [Turn(tool_calls=[ToolCall("purge_records", {"table": "users"}), ToolCall("add_numbers", {"a": 1, "b": 2})]),
              Turn.final("done")]

    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    async def deny(ctx):  # type: ignore[no-untyped-def]
        await asyncio.sleep(0)
        raise HookAborted("purging is not allowed", source="policy")

    posts = collect(P.POST_TOOL_CALL)
    result = _run(build_agent("alpha", script, inputs, runs))
    assert result.final_output == "done"
    assert runs == [("add_numbers", {"a": 1, "b": 2})], "the refused tool ran, or the other one did not"
    outputs = {i["call_id"]: i["output"] for i in inputs[1] if i.get("type") == "function_call_output"}
    assert "purging is not allowed" in outputs["call_1"] and "Tool: purge_records" in outputs["call_1"]
    assert outputs["call_2"] == "3"
    assert sorted((c.tool_name, c.refused) for c in posts) == [("add_numbers", False), ("purge_records", True)]


def test_refusal_is_not_retried_and_reaches_the_model_once() -> None:
    inputs: list[Any] = []
    runs: list[tuple[str, dict[str, Any]]] = []
    attempts: list[str] = []

    @on(P.PRE_TOOL_CALL)
    def deny(ctx):  # type: ignore[no-untyped-def]
        attempts.append(ctx.tool_call_id)
        raise HookAborted("no")

    _run(build_agent("alpha", [Turn.call("purge_records", table="t"), Turn.final("ok")], inputs, runs))
    assert attempts == ["call_1"] and runs == []
    assert len(inputs) == 2


def test_tool_context_carries_the_agent_and_call_id() -> None:
    pre = collect(P.PRE_TOOL_CALL)
    _run(build_agent("alpha", [Turn.call("add_numbers", a=2, b=3), Turn.final("ok")], [], []))
    assert [(c.tool_name, c.tool_call_id, c.agent_role) for c in pre] == [("add_numbers", "call_1", "alpha")]
    assert pre[0].tool is not None and pre[0].tool.name == "add_numbers"


# -- model calls ------------------------------------------------------------------------------------------


def test_messages_are_openai_chat_dicts_and_edits_do_not_leak() -> None:
    inputs: list[Any] = []
    seen: list[list[dict[str, Any]]] = []

    @on(P.PRE_MODEL_CALL)
    def edit(ctx):  # type: ignore[no-untyped-def]
        seen.append(json.loads(json.dumps(ctx.messages)))
        for message in ctx.messages:
            if message["role"] == "tool":
                message["content"] = "EDITED-TOOL-OUTPUT"
            if message["role"] == "system":
                message["content"] = "EDITED-INSTRUCTIONS"

    result = _run(build_agent("alpha", [Turn.call("add_numbers", a=2, b=3), Turn.final("ok")], inputs, []))
    second = seen[1]
    assert second[0] == {"role": "system", "content": "You are a careful assistant. Use the tools when they help."}
    assert second[1] == {"role": "user", "content": "go"}
    assert second[2]["role"] == "assistant" and second[2]["tool_calls"][0]["function"] == {
        "name": "add_numbers", "arguments": json.dumps({"a": 2, "b": 3})}
    assert second[3] == {"role": "tool", "tool_call_id": "call_1", "content": "5"}
    # the edits reached the model ...
    assert inputs[1][0] == {"role": "system", "content": "EDITED-INSTRUCTIONS"}
    assert any(i.get("output") == "EDITED-TOOL-OUTPUT" for i in inputs[1])
    # ... and not the run's own history
    assert [item.output for item in result.new_items if hasattr(item, "output")] == ["5"]


def test_model_context_fields_and_iterations() -> None:
    pre = collect(P.PRE_MODEL_CALL)
    post = collect(P.POST_MODEL_CALL)
    _run(build_agent("alpha", [Turn.call("add_numbers", a=2, b=3), Turn.final("the end")], [], []))
    assert [c.iterations for c in pre] == [0, 1]
    assert [c.agent_role for c in pre] == ["alpha", "alpha"]
    assert pre[0].metadata["tools"] == ["add_numbers", "purge_records"] and pre[0].metadata["stream"] is False
    assert [c.response for c in post] == ["", "the end"]
    assert all(isinstance(c.duration_ms, float) for c in post)


def test_streamed_run_model_points_and_replacement() -> None:
    pre = collect(P.PRE_MODEL_CALL)
    on(P.POST_MODEL_CALL)(lambda ctx: ctx.response.replace("secret", "[redacted]") if ctx.response else None)
    inputs: list[Any] = []

    async def main() -> Any:
        streamed = Runner.run_streamed(build_agent("alpha", [Turn.call("add_numbers", a=2, b=3),
                                                             Turn.final("the secret is 5")], inputs, []), "go")
        return await drain(streamed)

    assert asyncio.run(main()) == "the [redacted] is 5"
    assert [c.metadata["stream"] for c in pre] == [True, True]


def test_streamed_run_ends_when_the_stream_is_drained() -> None:
    ends = collect(P.EXECUTION_END)
    seen_before_drain: list[int] = []

    async def main() -> Any:
        streamed = Runner.run_streamed(build_agent("alpha", [Turn.final("hi")], [], []), "go")
        seen_before_drain.append(len(ends))
        return await drain(streamed)

    assert asyncio.run(main()) == "hi"
    assert seen_before_drain == [0]
    assert [e.status for e in ends] == ["completed"]


def test_streamed_abort_in_a_model_hook_raises_from_the_stream() -> None:
    ends = collect(P.EXECUTION_END)
    on(P.PRE_MODEL_CALL)(lambda ctx: (_ for _ in ()).throw(HookAborted("stop", source="guard")))

    async def main() -> Any:
        return await drain(Runner.run_streamed(build_agent("alpha", [Turn.final("hi")], [], []), "go"))

    with pytest.raises(HookAborted, match="stop"):
        asyncio.run(main())
    assert [e.status for e in ends] == ["failed"]


# -- runs, turns, handoffs -----------------------------------------------------------------------------------


def test_handoff_is_a_step_and_each_agent_has_its_turn() -> None:
    order: list[tuple[str, str | None, str | None]] = []
    for point in (P.PRE_STEP, P.POST_STEP, W.AGENT_TURN_START, W.AGENT_TURN_END):
        on(point)(lambda ctx, p=point: order.append((p.value, getattr(ctx, "kind", None), ctx.step_name)))
    inputs_b: list[Any] = []
    specialist = build_agent("beta", [Turn.final("beta answers")], inputs_b, [])
    alpha = build_agent("alpha", [Turn.call("transfer_to_beta"), Turn.final("unused")], [], [], handoffs=[specialist])
    result = _run(alpha)
    assert result.final_output == "beta answers"
    assert order == [
        ("agent_turn_start", "agent_turn", "alpha"),
        ("pre_step", "turn", "alpha"),
        ("pre_step", "handoff", "beta"),
        ("post_step", "handoff", "beta"),
        ("post_step", "turn", "alpha"),
        ("agent_turn_end", "agent_turn", "alpha"),
        ("agent_turn_start", "agent_turn", "beta"),
        ("pre_step", "turn", "beta"),
        ("post_step", "turn", "beta"),
        ("agent_turn_end", "agent_turn", "beta"),
    ]


def test_agent_as_tool_is_one_execution_with_its_model_calls_hooked() -> None:
    starts = collect(P.EXECUTION_START)
    models = collect(P.PRE_MODEL_CALL)
    inner = build_agent("inner", [Turn.final("inner says 5")], [], [])
    tool = inner.as_tool(tool_name="ask_inner", tool_description="Ask the inner agent.")
    outer = build_agent("outer", [Turn.call("ask_inner", input="2+3?"), Turn.final("done")], [], [], tools=[tool])
    assert _run(outer).final_output == "done"
    assert len(starts) == 1
    assert [m.agent_role for m in models] == ["outer", "inner", "outer"]


def test_an_abort_inside_an_agent_used_as_a_tool_stops_the_outer_run() -> None:
    ends = collect(P.EXECUTION_END)

    @on(P.PRE_MODEL_CALL, agents=["inner"])
    def stop(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("inner agent may not run", source="policy")

    outer_inputs: list[Any] = []
    inner = build_agent("inner", [Turn.final("never")], [], [])
    tool = inner.as_tool(tool_name="ask_inner", tool_description="Ask the inner agent.")
    outer = build_agent("outer", [Turn.call("ask_inner", input="2+3?"), Turn.final("done")], outer_inputs, [],
                        tools=[tool])
    with pytest.raises(HookAborted, match="inner agent may not run"):
        _run(outer)
    assert len(outer_inputs) == 1, "the outer agent was asked again after the abort"
    assert [e.status for e in ends] == ["failed"]


def test_async_hooks_on_run_sync_are_awaited_on_the_run_loop() -> None:
    loops: list[Any] = []

    @on(P.EXECUTION_START)
    async def start(ctx):  # type: ignore[no-untyped-def]
        loops.append(asyncio.get_running_loop())

    @on(P.PRE_TOOL_CALL)
    async def tool(ctx):  # type: ignore[no-untyped-def]
        loops.append(asyncio.get_running_loop())

    _run(build_agent("alpha", [Turn.call("add_numbers", a=1, b=1), Turn.final("ok")], [], []))
    assert len(loops) == 2 and loops[0] is loops[1]


# -- the SDK's own hooks and guardrails keep working ---------------------------------------------------------


class _Native(RunHooks):  # type: ignore[misc]
    def __init__(self) -> None:
        self.seen: list[str] = []

    async def on_agent_start(self, context, agent):  # type: ignore[no-untyped-def]
        self.seen.append("agent_start")

    async def on_llm_start(self, context, agent, system_prompt, input_items):  # type: ignore[no-untyped-def]
        self.seen.append("llm_start")

    async def on_tool_start(self, context, agent, tool):  # type: ignore[no-untyped-def]
        self.seen.append("tool_start")

    async def on_tool_end(self, context, agent, tool, result):  # type: ignore[no-untyped-def]
        self.seen.append(f"tool_end:{result}")


class _AgentNative(AgentHooks):  # type: ignore[misc]
    def __init__(self) -> None:
        self.seen: list[str] = []

    async def on_start(self, context, agent):  # type: ignore[no-untyped-def]
        self.seen.append("start")

    async def on_end(self, context, agent, output):  # type: ignore[no-untyped-def]
        self.seen.append(f"end:{output}")


def test_run_hooks_and_agent_hooks_fire_next_to_hookport() -> None:
    native, agent_native = _Native(), _AgentNative()
    on(P.POST_TOOL_CALL)(lambda ctx: "50")
    pre = collect(P.PRE_TOOL_CALL)
    agent = build_agent("alpha", [Turn.call("add_numbers", a=2, b=3), Turn.final("ok")], [], [], hooks=agent_native)
    _run(agent, hooks=native)
    assert len(pre) == 1
    assert native.seen == ["agent_start", "llm_start", "tool_start", "tool_end:50", "llm_start"]
    assert agent_native.seen == ["start", "end:ok"]


def test_input_guardrail_tripwire_still_stops_the_run() -> None:
    ends = collect(P.EXECUTION_END)

    @input_guardrail
    async def no_purging(context, agent, prompt):  # type: ignore[no-untyped-def]
        return GuardrailFunctionOutput(output_info=None, tripwire_triggered="purge" in str(prompt))

    inputs: list[Any] = []
    agent = build_agent("alpha", [Turn.final("never")], inputs, [], input_guardrails=[no_purging])
    with pytest.raises(InputGuardrailTripwireTriggered):
        _run(agent, "purge everything")
    assert [e.status for e in ends] == ["failed"]


def test_tool_input_guardrail_rejection_is_left_to_the_sdk() -> None:
    from agents import ToolGuardrailFunctionOutput, function_tool, tool_input_guardrail

    @tool_input_guardrail
    def reject(data):  # type: ignore[no-untyped-def]
        return ToolGuardrailFunctionOutput.reject_content("guardrail says no")

    runs: list[str] = []

    @function_tool(tool_input_guardrails=[reject])
    def guarded(x: int) -> str:
        """A guarded tool.

        Args:
            x: a number
        """
        runs.append("guarded")
        return "ran"

    pre = collect(P.PRE_TOOL_CALL)
    inputs: list[Any] = []
    _run(build_agent("alpha", [Turn.call("guarded", x=1), Turn.final("ok")], inputs, [], tools=[guarded]))
    assert runs == [] and pre == []  # the SDK refused it before the tool site
    assert "guardrail says no" in json.dumps(inputs[1])


# -- OpenAI models on the scripted server ----------------------------------------------------------------------


@pytest.fixture
def server() -> Any:
    from tests.support.openai_server import ScriptedOpenAIServer

    with ScriptedOpenAIServer() as running:
        yield running


def _openai_agent(server: Any, kind: str, runs: list[tuple[str, dict[str, Any]]]) -> Agent:
    from agents import OpenAIChatCompletionsModel, OpenAIResponsesModel
    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=server.base_url, api_key="sk-offline-dummy", max_retries=0)
    model_class = OpenAIChatCompletionsModel if kind == "chat" else OpenAIResponsesModel
    return Agent(name="alpha", instructions="be brief", tools=build_tools(runs),
                 model=model_class(model="gpt-4o-mini", openai_client=client))


@pytest.mark.parametrize(("kind", "entry"), [("chat", "sync"), ("chat", "stream"), ("responses", "sync")])
def test_openai_models_carry_edits_and_replacements(server: Any, kind: str, entry: str) -> None:
    server.script([Turn.call("add_numbers", a=2, b=3), Turn.final("the original answer")])
    runs: list[tuple[str, dict[str, Any]]] = []

    @on(P.PRE_MODEL_CALL)
    def note(ctx):  # type: ignore[no-untyped-def]
        ctx.messages.append({"role": "user", "content": "HOOK-NOTE"})

    on(P.POST_MODEL_CALL)(lambda ctx: ctx.response.replace("original", "replaced") if ctx.response else None)
    agent = _openai_agent(server, kind, runs)
    if entry == "stream":
        async def stream() -> Any:
            return await drain(Runner.run_streamed(agent, "What is 2 + 3?"))

        output = asyncio.run(stream())
    else:
        output = _run(agent, "What is 2 + 3?").final_output
    assert output == "the replaced answer"
    assert runs == [("add_numbers", {"a": 2, "b": 3})]
    assert len(server.requests) == 2
    assert all("HOOK-NOTE" in json.dumps(body) for body in server.requests)


# -- lifecycle ----------------------------------------------------------------------------------------------------


def test_uninstall_leaves_no_hook_firing_and_reinstall_works() -> None:
    pre = collect(P.PRE_MODEL_CALL)
    adapters.uninstall("openai-agents")
    try:
        _run(build_agent("alpha", [Turn.final("ok")], [], []))
        assert pre == []
    finally:
        adapters.install("openai-agents")
    _run(build_agent("alpha", [Turn.final("ok")], [], []))
    assert len(pre) == 1


# -- wrap hooks on the async call sites ------------------------------------------------------------------------


def test_async_wrap_hook_retries_the_model_request() -> None:
    inputs: list[Any] = []
    attempts: list[int] = []

    @on(W.WRAP_MODEL_CALL)
    async def retry(ctx, call_next):  # type: ignore[no-untyped-def]
        for attempt in (1, 2):
            attempts.append(attempt)
            try:
                return await call_next(ctx)
            except RuntimeError:
                if attempt == 2:
                    raise

    result = _run(build_agent("alpha", [Turn.fail("overloaded"), Turn.final("second time")], inputs, []))
    assert result.final_output == "second time" and attempts == [1, 2] and len(inputs) == 2


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_wrap_hook_retries_a_streamed_request(kind: str) -> None:
    inputs: list[Any] = []
    attempts: list[int] = []
    posts = collect(P.POST_MODEL_CALL)

    if kind == "sync":
        def retry(ctx, call_next):  # type: ignore[no-untyped-def]
            attempts.append(len(attempts) + 1)
            try:
                return call_next(ctx)
            except RuntimeError:
                attempts.append(len(attempts) + 1)
                return call_next(ctx)
    else:
        async def retry(ctx, call_next):  # type: ignore[no-untyped-def]
            attempts.append(len(attempts) + 1)
            try:
                return await call_next(ctx)
            except RuntimeError:
                attempts.append(len(attempts) + 1)
                return await call_next(ctx)

    on(W.WRAP_MODEL_CALL)(retry)

    async def main() -> Any:
        agent = build_agent("alpha", [Turn.fail("overloaded"), Turn.final("streamed twice")], inputs, [])
        return await drain(Runner.run_streamed(agent, "go"))

    assert asyncio.run(main()) == "streamed twice"
    assert attempts == [1, 2] and len(inputs) == 2
    assert [c.response for c in posts] == ["streamed twice"]


def test_wrap_hook_answers_a_streamed_request_from_a_cache() -> None:
    inputs: list[Any] = []
    on(W.WRAP_MODEL_CALL)(lambda ctx, call_next: "served from cache")

    async def main() -> Any:
        return await drain(Runner.run_streamed(build_agent("alpha", [Turn.final("never")], inputs, []), "go"))

    assert asyncio.run(main()) == "served from cache"
    assert inputs == [], "the model was asked anyway"


def test_sync_wrap_hook_call_next_returns_after_the_tool_body_ran() -> None:
    order: list[str] = []

    def around(ctx, call_next):  # type: ignore[no-untyped-def]
        order.append("wrap: before")
        result = call_next(ctx)
        order.append("wrap: after")
        return result

    on(W.WRAP_TOOL_CALL)(around)
    from agents import function_tool

    @function_tool
    async def nap() -> str:
        """Sleep a little."""
        await asyncio.sleep(0.01)
        order.append("tool body")
        return "rested"

    inputs: list[Any] = []
    _run(build_agent("alpha", [Turn.call("nap"), Turn.final("ok")], inputs, [], tools=[nap]))
    assert order == ["wrap: before", "tool body", "wrap: after"]
    assert any(i.get("output") == "rested" for i in inputs[1])


def test_sync_wrap_hooks_around_many_parallel_plain_tools_do_not_starve_the_executor() -> None:
    import threading

    on(W.WRAP_TOOL_CALL)(lambda ctx, call_next: call_next(ctx))
    runs: list[tuple[str, dict[str, Any]]] = []
    calls = [ToolCall("add_numbers", {"a": i, "b": i}) for i in range(12)]
    agent = build_agent("alpha", [Turn(tool_calls=calls), Turn.final("ok")], [], runs)
    done: list[Any] = []
    worker = threading.Thread(target=lambda: done.append(_run(agent).final_output), daemon=True)
    worker.start()
    worker.join(timeout=120)
    assert done == ["ok"], "the run did not finish: the wrap hooks' threads starved the tools' executor"
    assert len(runs) == 12
