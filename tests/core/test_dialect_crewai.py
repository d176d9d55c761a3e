"""The CrewAI dialect: same names, same behaviour, one chain with @on hooks."""

from __future__ import annotations

import pytest

from hookport import InterceptionPoint, LLMCallHookContext, ToolCallHookContext, dispatch
from hookport.compat import crewai as c

P = InterceptionPoint

# crewai.hooks.__all__ in crewai 1.15.30 (shared/research/crewai.md, section 4.1)
CREWAI_HOOKS_ALL = {
    "EXECUTION_BOUNDARY_POINTS", "HookAborted", "InterceptionPoint", "LLMCallHookContext",
    "ToolCallHookContext", "before_llm_call", "after_llm_call", "before_tool_call", "after_tool_call",
    "on", "dispatch", "register_hook", "unregister_hook", "get_hooks", "clear_hooks", "clear_all_hooks",
    "clear_all_global_hooks", "register_before_llm_call_hook", "register_after_llm_call_hook",
    "register_before_tool_call_hook", "register_after_tool_call_hook", "unregister_before_llm_call_hook",
    "unregister_after_llm_call_hook", "unregister_before_tool_call_hook", "unregister_after_tool_call_hook",
    "get_before_llm_call_hooks", "get_after_llm_call_hooks", "get_before_tool_call_hooks",
    "get_after_tool_call_hooks", "clear_before_llm_call_hooks", "clear_after_llm_call_hooks",
    "clear_before_tool_call_hooks", "clear_after_tool_call_hooks", "clear_all_llm_call_hooks",
    "clear_all_tool_call_hooks",
}


def test_every_crewai_hooks_name_is_exported() -> None:
    assert len(CREWAI_HOOKS_ALL) == 35
    missing = {name for name in CREWAI_HOOKS_ALL if not hasattr(c, name)}
    assert missing == set()
    assert CREWAI_HOOKS_ALL <= set(c.__all__)


def test_legacy_decorators_bare_and_called_share_the_chain_with_on() -> None:
    order: list[str] = []

    @c.before_tool_call
    def legacy(ctx):  # type: ignore[no-untyped-def]
        order.append("legacy")

    @c.on(P.PRE_TOOL_CALL)
    def modern(ctx):  # type: ignore[no-untyped-def]
        order.append("on")

    @c.before_tool_call(tools=["Add Numbers"], agents=["Researcher"])
    def filtered(ctx):  # type: ignore[no-untyped-def]
        order.append("filtered")

    dispatch(P.PRE_TOOL_CALL, ToolCallHookContext("add_numbers", {}, agent_role="Researcher"))
    dispatch(P.PRE_TOOL_CALL, ToolCallHookContext("add_numbers", {}, agent_role="Writer"))
    assert order == ["legacy", "on", "filtered", "legacy", "on"]
    assert legacy.is_before_tool_call_hook is True  # type: ignore[attr-defined]
    assert c.get_before_tool_call_hooks() == c.get_hooks(P.PRE_TOOL_CALL)
    assert len(c.get_before_tool_call_hooks()) == 3


def test_filtered_legacy_hooks_can_be_unregistered_unlike_crewai() -> None:
    @c.after_tool_call(tools=["x"])
    def hook(ctx):  # type: ignore[no-untyped-def]
        return "replaced"

    assert c.unregister_after_tool_call_hook(hook) is True
    assert c.get_after_tool_call_hooks() == []


def test_before_llm_false_is_llm_call_blocked_error() -> None:
    c.register_before_llm_call_hook(lambda ctx: False)
    with pytest.raises(c.LLMCallBlockedError, match="LLM call blocked by before_llm_call hook"):
        dispatch(P.PRE_MODEL_CALL, LLMCallHookContext([]))
    with pytest.raises(ValueError):
        dispatch(P.PRE_MODEL_CALL, LLMCallHookContext([]))


def test_after_llm_call_with_agents_filter_replaces_response() -> None:
    @c.after_llm_call(agents=["Researcher"])
    def redact(ctx):  # type: ignore[no-untyped-def]
        return ctx.response.replace("API_KEY", "[REDACTED]")

    kept = dispatch(P.POST_MODEL_CALL, LLMCallHookContext([], response="API_KEY", agent_role="Writer"))
    changed = dispatch(P.POST_MODEL_CALL, LLMCallHookContext([], response="API_KEY", agent_role="Researcher"))
    assert (kept.response, changed.response) == ("API_KEY", "[REDACTED]")


def test_management_functions_return_crewai_shapes() -> None:
    c.register_before_llm_call_hook(lambda ctx: None)
    c.register_after_llm_call_hook(lambda ctx: None)
    c.register_before_tool_call_hook(lambda ctx: None)
    c.register_before_tool_call_hook(lambda ctx: None)
    c.register_after_tool_call_hook(lambda ctx: None)
    assert c.clear_all_global_hooks() == {"llm_hooks": (1, 1), "tool_hooks": (2, 1), "total": (3, 2)}
    assert c.clear_all_llm_call_hooks() == (0, 0)


def test_unregister_by_the_plain_function() -> None:
    def hook(ctx):  # type: ignore[no-untyped-def]
        return None

    c.register_before_llm_call_hook(hook)
    assert c.unregister_before_llm_call_hook(hook) is True
    assert c.unregister_before_llm_call_hook(hook) is False


def test_legacy_decorator_rejects_non_callables() -> None:
    with pytest.raises(TypeError):
        c.before_tool_call("nope")  # type: ignore[arg-type]
