"""The PraisonAI dialect: its input shapes and return values, on the engine."""

from __future__ import annotations

import asyncio

import pytest

from hookport import (
    ExecutionEndContext,
    ExtensionPoint,
    HookAborted,
    InterceptionContext,
    InterceptionPoint,
    LLMCallHookContext,
    StepContext,
    ToolCallHookContext,
    dispatch,
    has_hooks,
)
from hookport.compat import praisonai as p

P = InterceptionPoint
W = ExtensionPoint


def tool_ctx(name: str = "search", args: dict | None = None) -> ToolCallHookContext:  # type: ignore[type-arg]
    return ToolCallHookContext(name, args if args is not None else {"q": "x"}, agent_role="Helper")


def test_add_hook_as_decorator_returns_the_function_and_gets_praisonai_shapes() -> None:
    seen: list[object] = []

    @p.add_hook("before_tool")
    def log_tools(event_data):  # type: ignore[no-untyped-def]
        seen.append(event_data)

    assert log_tools.__name__ == "log_tools"
    dispatch(P.PRE_TOOL_CALL, tool_ctx())
    data = seen[0]
    assert isinstance(data, p.BeforeToolInput)
    assert (data.tool_name, data.tool_input, data.agent_name, data.event_name) == (
        "search", {"q": "x"}, "Helper", "before_tool")


def test_direct_call_returns_an_id_that_removes_it() -> None:
    hook_id = p.add_hook(p.HookEvent.AFTER_TOOL, lambda data: None)
    assert isinstance(hook_id, str) and len(hook_id) == 8
    assert p.has_hook("after_tool") and has_hooks(P.POST_TOOL_CALL)
    assert p.remove_hook(hook_id) is True
    assert not p.has_hook("after_tool") and not has_hooks(P.POST_TOOL_CALL)
    assert p.remove_hook(hook_id) is False


@pytest.mark.parametrize(
    ("returned", "reason"),
    [(False, "Denied by hook"), ("not here", "not here"), (p.HookResult.deny("policy"), "policy"),
     (p.HookResult.block("blocked"), "blocked"), ({"decision": "deny", "reason": "dict"}, "dict")],
)
def test_denies_become_hook_aborted_with_the_reason(returned: object, reason: str) -> None:
    p.add_hook("before_tool", lambda data: returned)
    with pytest.raises(HookAborted) as caught:
        dispatch(P.PRE_TOOL_CALL, tool_ctx())
    assert caught.value.reason == reason
    assert caught.value.source == "<lambda>"


@pytest.mark.parametrize("returned", [None, True, p.HookResult.allow(), p.HookResult.ask("ask = allow"), 42])
def test_allows(returned: object) -> None:
    p.add_hook("before_tool", lambda data: returned)
    assert dispatch(P.PRE_TOOL_CALL, tool_ctx()).tool_name == "search"


def test_modified_input_rewrites_tool_arguments_in_place() -> None:
    live = {"q": "x"}
    p.add_hook("before_tool", lambda data: p.HookResult(modified_input={"q": "y", "limit": 3}))
    dispatch(P.PRE_TOOL_CALL, tool_ctx(args=live))
    assert live == {"q": "y", "limit": 3}


def test_matcher_is_a_start_anchored_regex() -> None:
    seen: list[str] = []
    p.add_hook("before_tool", lambda data: seen.append(data.tool_name), matcher="write_")
    for name in ("write_file", "rewrite_file", "read_file"):
        dispatch(P.PRE_TOOL_CALL, tool_ctx(name))
    assert seen == ["write_file"]


def test_after_tool_additional_context_deny_and_tool_output() -> None:
    p.add_hook("after_tool", lambda data: p.HookResult(additional_context="(checked)"))
    ctx = tool_ctx()
    ctx.tool_result = "result"
    assert dispatch(P.POST_TOOL_CALL, ctx).tool_result == "result\n\n(checked)"  # PraisonAI joins with a blank line
    p.get_default_registry().clear()

    @p.add_hook("after_tool")
    def swap(data):  # type: ignore[no-untyped-def]
        data.tool_output = "swapped"

    ctx = tool_ctx()
    ctx.tool_result = "result"
    assert dispatch(P.POST_TOOL_CALL, ctx).tool_result == "swapped"
    p.get_default_registry().clear()
    p.add_hook("after_tool", lambda data: False)
    ctx = tool_ctx()
    ctx.tool_result = "secret"
    assert dispatch(P.POST_TOOL_CALL, ctx).tool_result == "Denied by hook"


def test_before_llm_gets_messages_and_can_block_or_rewrite() -> None:
    messages = [{"role": "user", "content": "card 4111 1111 1111 1111"}]
    p.add_hook("before_llm", lambda data: p.HookResult(
        modified_input={"messages": [{"role": "user", "content": data.messages[0]["content"][:4]}]}))
    dispatch(P.PRE_MODEL_CALL, LLMCallHookContext(messages, metadata={"model": "gpt-x"}))
    assert messages == [{"role": "user", "content": "card"}]
    p.add_hook("before_llm", lambda data: "no model for you" if data.model == "gpt-x" else None)
    with pytest.raises(HookAborted, match="no model for you"):
        dispatch(P.PRE_MODEL_CALL, LLMCallHookContext(messages, metadata={"model": "gpt-x"}))


def test_after_llm_only_observes() -> None:
    seen: list[str] = []
    p.add_hook("after_llm", lambda data: seen.append(data.response) or False)
    ctx = dispatch(P.POST_MODEL_CALL, LLMCallHookContext([], response="hello"))
    assert ctx.response == "hello" and seen == ["hello"]


def test_agent_session_and_error_events() -> None:
    seen: list[tuple[str, object]] = []
    p.add_hook("before_agent", lambda data: seen.append(("before_agent", data.prompt)))
    p.add_hook("after_agent", lambda data: seen.append(("after_agent", data.response)))
    p.add_hook("session_start", lambda data: seen.append(("session_start", data.source)))
    p.add_hook("session_end", lambda data: seen.append(("session_end", data.reason)))
    p.add_hook("on_error", lambda data: seen.append(("on_error", data.error_type)))
    dispatch(W.AGENT_TURN_START, StepContext("hello", kind="agent_turn", step_name="a"))
    dispatch(P.POST_STEP, StepContext("not a turn", kind="task", step_name="a"))
    dispatch(W.AGENT_TURN_END, StepContext("bye", kind="agent_turn", step_name="a", duration_ms=12.5))
    dispatch(P.EXECUTION_START, InterceptionContext({}))
    dispatch(P.EXECUTION_END, ExecutionEndContext("ok", status="completed"))
    dispatch(P.EXECUTION_END, ExecutionEndContext(None, status="failed", error=KeyError("k")))
    assert seen == [("before_agent", "hello"), ("after_agent", "bye"), ("session_start", "startup"),
                    ("session_end", "exit"), ("session_end", "error"), ("on_error", "KeyError")]


def test_before_agent_prompt_rewrite_and_deny() -> None:
    p.add_hook("before_agent", lambda data: p.HookResult(modified_input={"prompt": "rewritten"}))
    assert dispatch(W.AGENT_TURN_START, StepContext("hello", kind="agent_turn")).payload == "rewritten"
    p.add_hook("before_agent", lambda data: "stop")
    with pytest.raises(HookAborted, match="stop"):
        dispatch(W.AGENT_TURN_START, StepContext("hello", kind="agent_turn"))


def test_before_tool_definitions_extension_point() -> None:
    tools = [{"name": "a"}, {"name": "b"}]
    p.add_hook("before_tool_definitions",
               lambda data: p.HookResult(modified_input={"tool_definitions": data.tool_definitions[:1]}))
    assert dispatch(ExtensionPoint.BEFORE_TOOL_DEFINITIONS, InterceptionContext(tools)).payload == [{"name": "a"}]
    p.add_hook("before_tool_definitions", lambda data: False)
    assert dispatch(ExtensionPoint.BEFORE_TOOL_DEFINITIONS, InterceptionContext(tools)).payload == []


def test_async_hooks_run_inside_and_outside_a_loop() -> None:
    seen: list[str] = []

    @p.add_hook("before_tool")
    async def audit(data):  # type: ignore[no-untyped-def]
        await asyncio.sleep(0)
        seen.append(data.tool_name)
        return "async deny" if data.tool_name == "rm" else None

    dispatch(P.PRE_TOOL_CALL, tool_ctx("ls"))

    async def inside() -> None:
        with pytest.raises(HookAborted, match="async deny"):
            dispatch(P.PRE_TOOL_CALL, tool_ctx("rm"))

    asyncio.run(inside())
    assert seen == ["ls", "rm"]


def test_unknown_and_unmapped_events_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="Unknown hook event: 'message_received'.*before_tool"):
        p.add_hook("message_received", lambda data: None)
    with pytest.raises(TypeError):
        p.add_hook("before_tool", "not callable")
    assert p.HookEvent("tool_result_persist") is p.HookEvent.AFTER_TOOL


def test_private_registry_runs_only_when_activated() -> None:
    registry = p.HookRegistry()
    seen: list[str] = []

    @registry.on(p.HookEvent.BEFORE_TOOL)
    def guard(data):  # type: ignore[no-untyped-def]
        seen.append(data.tool_name)

    dispatch(P.PRE_TOOL_CALL, tool_ctx())
    with registry.activate():
        dispatch(P.PRE_TOOL_CALL, tool_ctx())
    assert seen == ["search"]
    assert registry.list_hooks()["before_tool"][0]["name"] == "guard"
    registry.enabled = False
    with registry.activate():
        dispatch(P.PRE_TOOL_CALL, tool_ctx())
    assert seen == ["search"] and registry.get_hooks("before_tool") == []


def test_hooks_config_registers_and_unregisters() -> None:
    steps: list[object] = []
    tools: list[object] = []
    config = p.HooksConfig(on_step=steps.append, on_tool_call=tools.append)
    config.register()
    dispatch(P.PRE_TOOL_CALL, tool_ctx())
    dispatch(W.AGENT_TURN_END, StepContext("answer", kind="agent_turn"))
    config.unregister()
    dispatch(P.PRE_TOOL_CALL, tool_ctx())
    dispatch(W.AGENT_TURN_END, StepContext("later", kind="agent_turn"))
    assert [(type(s).__name__, s.content) for s in steps] == [("ModelResponse", "answer")]  # type: ignore[attr-defined]
    assert [(t.tool_name, t.arguments) for t in tools] == [("search", {"q": "x"})]  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match="not PraisonAI middleware"):
        p.HooksConfig(middleware=[object()]).register()


def test_one_chain_across_dialects() -> None:
    from hookport import on
    from hookport.compat import crewai as c

    order: list[str] = []
    p.add_hook("before_tool", lambda data: order.append("praisonai"))
    c.before_tool_call(lambda ctx: order.append("crewai-legacy"))
    on(P.PRE_TOOL_CALL)(lambda ctx: order.append("on"))
    dispatch(P.PRE_TOOL_CALL, tool_ctx())
    assert order == ["praisonai", "crewai-legacy", "on"]


def test_default_registry_mirrors_engine_clears() -> None:
    from hookport import clear_all_hooks

    p.add_hook("before_tool", lambda data: None)
    assert p.has_hook("before_tool")
    clear_all_hooks()
    assert not p.has_hook("before_tool") and len(p.get_default_registry()) == 0
