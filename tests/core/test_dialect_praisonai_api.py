"""The PraisonAI dialect's whole API: names, events, durations, async hooks, timeouts, registries, runner."""

from __future__ import annotations

import asyncio
import threading
from time import perf_counter

import pytest

from hookport import (
    ExtensionPoint,
    HookAborted,
    InterceptionPoint,
    LLMCallHookContext,
    StepContext,
    ToolCallHookContext,
    adispatch,
    dispatch,
    get_hooks,
)
from hookport.boundary import AGENT_TURN, TURN_END, post_step
from hookport.calls import ToolShape, tool_call
from hookport.compat import praisonai as p
from hookport.hooks import HookEntry

P = InterceptionPoint
W = ExtensionPoint

PRAISONAI_ALL = (  # praisonaiagents.hooks.__all__, release 1.7.17
    "HookEvent HookDecision HookResult HookInput HookOutput KanbanHookInput HookDefinition CommandHook "
    "FunctionHook HookRegistry HookRunner BeforeToolInput AfterToolInput BeforeToolDefinitionsInput "
    "BeforeAgentInput AfterAgentInput BeforeLLMInput AfterLLMInput SessionStartInput SessionEndInput "
    "SessionPersistFailedInput ModelFallbackInput OnErrorInput OnRetryInput MessageReceivedInput "
    "MessageSendingInput MessageSentInput MessageUndeliveredInput PlatformEventInput GatewayStartInput "
    "GatewayStopInput ScheduleTriggerInput ScheduleAddInput ScheduleRemoveInput JobCompletedInput "
    "PluginLifecycleInput SubagentStopInput InvocationContext ModelRequest ModelResponse ToolRequest "
    "ToolResponse before_model after_model wrap_model_call before_tool after_tool wrap_tool_call "
    "MiddlewareChain AsyncMiddlewareChain MiddlewareManager VerificationHook VerificationResult "
    "BaseVerificationHook CommandVerificationHook FileCheckHook add_hook remove_hook has_hook fire_hook "
    "resolve_hook_event get_default_registry"
).split()

PRAISONAI_EVENTS = (  # the values of praisonaiagents.hooks.HookEvent, release 1.7.17
    "on_init on_shutdown before_tool after_tool before_tool_definitions before_agent after_agent "
    "session_start session_end session_persist_failed before_llm after_llm model_fallback "
    "prompt_prefix_invalidated on_error on_retry message_received message_sending message_sent "
    "message_undelivered reaction_received message_edited message_deleted member_joined member_left "
    "thread_created gateway_start gateway_stop before_compaction after_compaction on_permission_ask "
    "on_config on_auth schedule_add schedule_remove schedule_trigger cli_backend_execute job_completed "
    "kanban_task_created kanban_task_claimed kanban_task_moved kanban_task_done kanban_task_blocked "
    "kanban_task_failed subagent_stop"
).split()


def tool_ctx(name: str = "search", args: dict | None = None) -> ToolCallHookContext:  # type: ignore[type-arg]
    return ToolCallHookContext(name, args if args is not None else {"q": "x"}, agent_role="Helper")


# -- names ---------------------------------------------------------------------------------------


def test_every_name_of_praisonai_hooks_is_offered_or_declared_not_offered_with_a_reason() -> None:
    for name in PRAISONAI_ALL:
        if name in p.NOT_OFFERED_NAMES:
            assert name not in p.__all__
            with pytest.raises(AttributeError, match=f"does not offer {name}: .+"):
                getattr(p, name)
        else:
            assert name in p.__all__ and getattr(p, name) is not None, name
    for event in PRAISONAI_EVENTS:
        assert event in {e.value for e in p.HookEvent} or p.NOT_OFFERED[event], event


def test_the_lists_above_are_the_installed_release_when_praisonai_is_here() -> None:
    hooks = pytest.importorskip("praisonaiagents.hooks")
    from importlib.metadata import version

    if version("praisonaiagents") != "1.7.17":
        pytest.skip("the lists are those of 1.7.17")
    assert sorted(hooks.__all__) == sorted(PRAISONAI_ALL)
    assert sorted({e.value for e in hooks.HookEvent}) == sorted(set(PRAISONAI_EVENTS))


def test_an_unknown_event_suggests_the_closest_and_a_platform_event_says_why() -> None:
    with pytest.raises(ValueError, match="Unknown hook event: 'befor_tool'; did you mean 'before_tool'\\?"):
        p.add_hook("befor_tool", lambda data: None)
    with pytest.raises(ValueError, match="did you mean 'after_llm'"):
        p.get_default_registry().on("afterllm")
    with pytest.raises(ValueError, match="'gateway_start' is a PraisonAI event hookport does not offer: "
                                         "PraisonAI's gateway fires it"):
        p.add_hook("gateway_start", lambda data: None)
    with pytest.raises(ValueError, match="Unknown hook event: 'zzz'\\. hookport maps"):
        p.add_hook("zzz", lambda data: None)
    assert p.has_hook("gateway_start") is False  # as in PraisonAI when nothing is registered there
    with pytest.raises(ValueError, match="did you mean 'before_tool'"):
        p.has_hook("befor_tool")


def test_resolve_hook_event_accepts_members_values_and_names() -> None:
    assert p.resolve_hook_event(p.HookEvent.AFTER_TOOL) is p.HookEvent.AFTER_TOOL
    assert p.resolve_hook_event("before_llm") is p.HookEvent.BEFORE_LLM
    assert p.resolve_hook_event("BEFORE_LLM") is p.HookEvent.BEFORE_LLM
    assert p.resolve_hook_event("tool_result_persist") is p.HookEvent.AFTER_TOOL is p.HookEvent.TOOL_RESULT_PERSIST
    assert p.resolve_hook_event("kanban_task_moved") is None and p.resolve_hook_event(3) is None


def test_event_points_put_agent_hooks_on_agent_turns() -> None:
    assert p.EVENT_POINTS[p.HookEvent.BEFORE_AGENT] is W.AGENT_TURN_START
    assert p.EVENT_POINTS[p.HookEvent.AFTER_AGENT] is W.AGENT_TURN_END
    seen: list[str] = []
    p.add_hook("after_agent", lambda data: seen.append(data.agent_name))
    dispatch(P.POST_STEP, StepContext("task output", kind="task"))
    dispatch(W.AGENT_TURN_END, StepContext("answer", kind=AGENT_TURN, agent_role="Writer"))
    assert seen == ["Writer"]


# -- durations -------------------------------------------------------------------------------------


def test_after_tool_reads_the_duration_of_the_real_call() -> None:
    times: list[float] = []
    p.add_hook("after_tool", lambda data: times.append(data.execution_time_ms))

    def slow_tool(ctx: ToolCallHookContext) -> str:
        deadline = perf_counter() + 0.002
        while perf_counter() < deadline:
            pass
        return "done"

    ctx = tool_ctx()
    assert tool_call(ctx, slow_tool, ToolShape()) == "done"
    assert times == [ctx.duration_ms] and times[0] > 0


def test_after_agent_and_after_llm_read_their_durations() -> None:
    seen: list[tuple[str, float]] = []
    p.add_hook("after_agent", lambda data: seen.append(("agent", data.execution_time_ms)))
    p.add_hook("after_llm", lambda data: seen.append(("llm", data.latency_ms)))
    post_step("app", AGENT_TURN, "Writer", "the answer", started=perf_counter() - 0.05, point=TURN_END)
    ctx = LLMCallHookContext([], response="hi")
    ctx.duration_ms = 7.5
    dispatch(P.POST_MODEL_CALL, ctx)
    assert seen[0][0] == "agent" and seen[0][1] >= 50 and seen[1] == ("llm", 7.5)


def test_after_tool_does_not_fire_for_a_refused_call_as_in_praisonai() -> None:
    after: list[str] = []
    runs: list[str] = []
    p.add_hook("before_tool", lambda data: "no")
    p.add_hook("after_tool", lambda data: after.append(data.tool_name))
    result = tool_call(tool_ctx(), lambda ctx: runs.append("ran") or "r", ToolShape())
    assert runs == [] and after == [] and "refused" in result


# -- async hooks, timeouts and failure policy -----------------------------------------------------


def test_an_async_callback_is_an_async_engine_hook() -> None:
    @p.add_hook("before_tool")
    async def guard(data):  # type: ignore[no-untyped-def]
        return None

    (entry,) = get_hooks(P.PRE_TOOL_CALL)
    assert isinstance(entry, HookEntry) and entry.is_async and entry.timeout == 60.0


async def test_adispatch_awaits_an_async_hook_on_the_running_loop() -> None:
    threads: list[str] = []
    ticks = 0

    @p.add_hook("before_tool")
    async def slow_guard(data):  # type: ignore[no-untyped-def]
        threads.append(threading.current_thread().name)
        await asyncio.sleep(0.05)
        return "blocked" if data.tool_name == "rm" else None

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.001)

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0)
    before = ticks
    with pytest.raises(HookAborted, match="blocked"):
        await adispatch(P.PRE_TOOL_CALL, tool_ctx("rm"))
    task.cancel()
    assert ticks > before + 1  # the loop kept serving the ticker while the hook waited
    assert threads == [threading.current_thread().name]


def test_dispatch_runs_an_async_hook_on_the_engine_private_loop() -> None:
    threads: list[str] = []

    @p.add_hook("before_llm")
    async def edit(data):  # type: ignore[no-untyped-def]
        threads.append(threading.current_thread().name)
        data.messages.append({"role": "system", "content": "be brief"})

    ctx = dispatch(P.PRE_MODEL_CALL, LLMCallHookContext([]))
    assert ctx.messages == [{"role": "system", "content": "be brief"}]
    assert threads == ["hookport-async-hooks"]


def test_timeouts_map_onto_the_engine() -> None:
    def sync_hook(data):  # type: ignore[no-untyped-def]
        return None

    async def async_hook(data):  # type: ignore[no-untyped-def]
        return None

    registry = p.get_default_registry()
    registry.register_function(p.HookEvent.BEFORE_TOOL, sync_hook)  # PraisonAI's default 60 s: not on a sync hook
    registry.register_function(p.HookEvent.BEFORE_TOOL, async_hook)  # ... but on an async one
    registry.register_function(p.HookEvent.BEFORE_TOOL, sync_hook, timeout=5)  # explicit: always
    hooks = get_hooks(P.PRE_TOOL_CALL)
    assert [getattr(h, "timeout", None) for h in hooks] == [None, 60.0, 5.0]
    assert [h.on_error for h in hooks] == ["closed", "closed", "closed"]


@pytest.mark.parametrize("entry", ["sync", "async"])
async def test_a_hook_past_its_timeout_fails_closed_at_a_gate_and_open_at_an_observer(entry: str) -> None:
    async def hangs(data):  # type: ignore[no-untyped-def]
        await asyncio.sleep(5)

    registry = p.get_default_registry()
    registry.register_function("before_tool", hangs, timeout=0.05)
    registry.register_function("after_llm", hangs, timeout=0.05)

    async def run(point: InterceptionPoint, ctx: object) -> object:
        if entry == "async":
            return await adispatch(point, ctx)
        return await asyncio.to_thread(dispatch, point, ctx)

    with pytest.raises(HookAborted, match="timed out after 0.05s") as caught:
        await run(P.PRE_TOOL_CALL, tool_ctx())
    assert caught.value.source is hangs
    ctx = await run(P.POST_MODEL_CALL, LLMCallHookContext([], response="kept"))
    assert ctx.response == "kept"  # type: ignore[attr-defined]


def test_a_hook_that_raises_fails_closed_where_praisonai_acts_on_a_deny() -> None:
    def broken(data):  # type: ignore[no-untyped-def]
        raise KeyError("boom")

    p.add_hook("before_tool", broken)
    p.add_hook("after_llm", broken)
    with pytest.raises(HookAborted, match="hook .*broken failed: KeyError") as caught:
        dispatch(P.PRE_TOOL_CALL, tool_ctx())
    assert isinstance(caught.value.__cause__, KeyError)
    assert dispatch(P.POST_MODEL_CALL, LLMCallHookContext([], response="ok")).response == "ok"
    p.get_default_registry().clear()
    p.add_hook("before_tool", broken, on_error="open")
    assert dispatch(P.PRE_TOOL_CALL, tool_ctx()).tool_name == "search"


def test_a_decision_dict_with_an_unknown_key_fails_closed_as_in_praisonai() -> None:
    p.add_hook("before_tool", lambda data: {"decision": "allow", "note": 1})
    with pytest.raises(HookAborted, match="TypeError"):
        dispatch(P.PRE_TOOL_CALL, tool_ctx())


# -- registries ----------------------------------------------------------------------------------


def test_a_registry_is_a_context_manager() -> None:
    registry = p.HookRegistry()
    seen: list[str] = []

    @registry.on(p.HookEvent.BEFORE_TOOL)
    def guard(data):  # type: ignore[no-untyped-def]
        seen.append(data.tool_name)
        return "no deletes" if data.tool_name == "delete" else None

    dispatch(P.PRE_TOOL_CALL, tool_ctx("outside"))
    with registry as entered:
        assert entered is registry
        dispatch(P.PRE_TOOL_CALL, tool_ctx("inside"))
        with pytest.raises(HookAborted, match="no deletes"):
            dispatch(P.PRE_TOOL_CALL, tool_ctx("delete"))
        with registry:  # nested: still once per call
            dispatch(P.PRE_TOOL_CALL, tool_ctx("nested"))
    dispatch(P.PRE_TOOL_CALL, tool_ctx("after"))
    assert seen == ["inside", "delete", "nested"]


def test_a_registry_block_in_one_thread_does_not_reach_another() -> None:
    registry = p.HookRegistry()
    seen: list[str] = []
    registry.register_function("before_tool", lambda data: seen.append(data.tool_name))
    entered, release = threading.Event(), threading.Event()

    def in_block() -> None:
        with registry:
            entered.set()
            release.wait(5)
            dispatch(P.PRE_TOOL_CALL, tool_ctx("in-block"))

    worker = threading.Thread(target=in_block)
    worker.start()
    entered.wait(5)
    dispatch(P.PRE_TOOL_CALL, tool_ctx("other-thread"))
    release.set()
    worker.join(5)
    assert seen == ["in-block"]


def test_the_default_registry_block_does_not_run_its_hooks_twice() -> None:
    seen: list[str] = []
    p.add_hook("before_tool", lambda data: seen.append(data.tool_name))
    with p.get_default_registry():
        dispatch(P.PRE_TOOL_CALL, tool_ctx())
    assert seen == ["search"]


def test_a_private_registry_runs_in_priority_order_and_honours_disabled_hooks() -> None:
    registry = p.HookRegistry()
    order: list[str] = []
    registry.register_function("before_tool", lambda data: order.append("late"), priority=200)
    first = registry.register_function("before_tool", lambda data: order.append("early"), priority=10)
    registry.register(p.FunctionHook(event=p.HookEvent.BEFORE_TOOL, func=lambda data: order.append("default")))
    with registry:
        dispatch(P.PRE_TOOL_CALL, tool_ctx())
    assert order == ["early", "default", "late"]
    assert [h["priority"] for h in registry.list_hooks()["before_tool"]] == [10, 100, 200]
    assert registry.disable_hook(first) and [h.priority for h in registry.get_hooks("before_tool")] == [100, 200]
    order.clear()
    with registry:
        dispatch(P.PRE_TOOL_CALL, tool_ctx())
    assert order == ["default", "late"]


# -- HookRunner and fire_hook ------------------------------------------------------------------------


def before_tool_input(name: str) -> p.BeforeToolInput:
    return p.BeforeToolInput(session_id="s", cwd="/tmp", event_name="before_tool", timestamp="t",
                             tool_name=name, tool_input={"path": "/x"})


async def test_the_runner_follows_praisonai_order_sequential_runs_and_fail_closed() -> None:
    registry = p.HookRegistry()
    ran: list[str] = []
    registry.register_function("before_tool", lambda d: ran.append("parallel-a"), priority=50)
    registry.register_function("before_tool", lambda d: ran.append("parallel-b"), priority=50)
    registry.register_function(
        "before_tool", lambda d: ran.append(f"seq1:{d.tool_input}") or {"decision": "allow",
                                                                        "modified_input": {"tool_input": {"p": 1}}},
        sequential=True, priority=60)
    registry.register_function("before_tool", lambda d: ran.append(f"seq2:{d.tool_input}") or "stop",
                               sequential=True, priority=70)
    registry.register_function("before_tool", lambda d: ran.append("never"), priority=80)
    runner = p.HookRunner(registry)
    results = await runner.execute(p.HookEvent.BEFORE_TOOL, before_tool_input("rm"))
    assert sorted(ran[:2]) == ["parallel-a", "parallel-b"]
    assert ran[2:] == ["seq1:{'path': '/x'}", "seq2:{'p': 1}"]
    assert p.HookRunner.is_blocked(results) and p.HookRunner.get_blocking_reason(results) == "stop"

    def broken(data):  # type: ignore[no-untyped-def]
        raise RuntimeError("bad")

    async def slow(data):  # type: ignore[no-untyped-def]
        await asyncio.sleep(5)

    failing = p.HookRegistry()
    failing.register_function("after_tool", broken)
    failing.register_function("after_tool", slow, timeout=0.05)
    results = await p.HookRunner(failing).execute("after_tool", p.AfterToolInput(tool_name="t"))
    assert [r.output.reason for r in results] == [  # type: ignore[union-attr]
        "Hook 'broken' raised: bad", "Hook 'slow' timed out after 0.05s"]
    assert [r.success for r in results] == [False, False]


async def test_execute_sync_works_inside_a_running_loop() -> None:
    registry = p.HookRegistry()
    registry.register_function("before_tool", lambda d: p.HookResult(additional_context=f"saw {d.tool_name}"))
    registry.register_function("before_tool", lambda d: p.HookResult(additional_context="and more"))
    results = p.HookRunner(registry).execute_sync("before_tool", before_tool_input("ls"))
    assert p.HookRunner.aggregate_context(results) == "saw ls\nand more"


async def test_fire_hook_emits_to_a_registry_and_is_best_effort() -> None:
    seen: list[tuple[str, object]] = []
    p.add_hook("on_retry", lambda data: seen.append((data.tool_name, data.extra)))
    assert p.fire_hook("not_an_event", {}) == []
    assert await asyncio.to_thread(p.fire_hook, "ON_RETRY", {"tool_name": "fetch", "attempt": 2, "why": "x"}) != []
    assert seen == [("fetch", {"why": "x"})]
    assert p.fire_hook("on_retry", {"tool_name": "later"}) == []  # inside a loop: scheduled
    await asyncio.sleep(0.05)
    assert seen[-1][0] == "later"
