"""Registration: bad input fails early; filters; unregister; the catalog."""

from __future__ import annotations

import pytest

from hookport import (
    EXECUTION_BOUNDARY_POINTS,
    ExtensionPoint,
    InterceptionPoint,
    LLMCallHookContext,
    ToolCallHookContext,
    clear_all_hooks,
    clear_hooks,
    dispatch,
    get_hooks,
    has_hooks,
    on,
    register_hook,
    unregister_hook,
)

P = InterceptionPoint


def test_the_catalog_has_crewais_ten_values() -> None:
    assert [p.value for p in InterceptionPoint] == [
        "execution_start", "input", "output", "execution_end", "pre_model_call",
        "post_model_call", "pre_tool_call", "post_tool_call", "pre_step", "post_step",
    ]
    assert P.PRE_TOOL_CALL == "pre_tool_call"
    assert EXECUTION_BOUNDARY_POINTS == {P.EXECUTION_START, P.INPUT, P.OUTPUT, P.EXECUTION_END}
    assert {e.value for e in ExtensionPoint} == {
        "before_tool_definitions", "on_retry", "wrap_model_call", "wrap_tool_call", "agent_turn_start",
        "agent_turn_end",
    }


def test_on_accepts_enum_or_string_and_returns_the_function() -> None:
    def hook(ctx):  # type: ignore[no-untyped-def]
        return None

    assert on("pre_tool_call")(hook) is hook
    assert on(P.POST_TOOL_CALL)(hook) is hook
    assert get_hooks(P.PRE_TOOL_CALL) == [hook] and get_hooks("post_tool_call") == [hook]


def test_unknown_point_names_the_valid_ones() -> None:
    with pytest.raises(ValueError, match="unknown interception point 'pre_tool'.*pre_tool_call"):
        on("pre_tool")
    with pytest.raises(TypeError):
        register_hook(42, lambda ctx: None)  # type: ignore[arg-type]


def test_non_callable_hook_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="callable"):
        register_hook(P.INPUT, "not a function")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="callable"):
        on(P.INPUT)(None)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", ["delete_file", [1, 2], 7])
def test_filters_must_be_lists_of_strings(bad: object) -> None:
    with pytest.raises(TypeError, match="list of strings"):
        on(P.PRE_TOOL_CALL, tools=bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="list of strings"):
        on(P.PRE_TOOL_CALL, agents=bad)  # type: ignore[arg-type]


def test_tools_filter_matches_sanitized_names_and_passes_other_points() -> None:
    seen: list[str] = []
    on(P.PRE_TOOL_CALL, tools=["Delete File"])(lambda ctx: seen.append(ctx.tool_name))
    dispatch(P.PRE_TOOL_CALL, ToolCallHookContext("delete_file", {}))
    dispatch(P.PRE_TOOL_CALL, ToolCallHookContext("read_file", {}))
    dispatch(P.PRE_TOOL_CALL, ToolCallHookContext("Delete-File", {}))
    assert seen == ["delete_file", "Delete-File"]


def test_agents_filter_skips_other_roles_and_passes_unknown_ones() -> None:
    seen: list[object] = []
    on(P.PRE_MODEL_CALL, agents=["Researcher"])(lambda ctx: seen.append(ctx.agent_role))
    dispatch(P.PRE_MODEL_CALL, LLMCallHookContext([], agent_role="Researcher"))
    dispatch(P.PRE_MODEL_CALL, LLMCallHookContext([], agent_role="Writer"))
    dispatch(P.PRE_MODEL_CALL, LLMCallHookContext([]))  # direct call: no agent known

    class Agent:
        role = "Researcher"

    dispatch(P.PRE_MODEL_CALL, LLMCallHookContext([], agent=Agent()))
    assert seen == ["Researcher", None, "Researcher"]


def test_filtered_hooks_can_be_unregistered_by_the_original() -> None:
    def hook(ctx):  # type: ignore[no-untyped-def]
        return None

    on(P.PRE_TOOL_CALL, tools=["x"])(hook)
    assert has_hooks(P.PRE_TOOL_CALL)
    assert unregister_hook(P.PRE_TOOL_CALL, hook) is True
    assert unregister_hook(P.PRE_TOOL_CALL, hook) is False
    assert not has_hooks(P.PRE_TOOL_CALL)


def test_clear_returns_counts() -> None:
    on(P.INPUT)(lambda ctx: None)
    on(P.INPUT)(lambda ctx: None)
    on(P.OUTPUT)(lambda ctx: None)
    assert clear_hooks(P.INPUT) == 2
    assert clear_hooks(P.INPUT) == 0
    clear_all_hooks()
    assert not any(has_hooks(p) for p in InterceptionPoint)


def test_methods_are_marked_not_registered() -> None:
    class Crew:
        @on(P.PRE_MODEL_CALL, agents=["a"])
        def limit(self, ctx):  # type: ignore[no-untyped-def]
            return None

    assert get_hooks(P.PRE_MODEL_CALL) == []
    assert Crew.limit._interception_point is P.PRE_MODEL_CALL  # type: ignore[attr-defined]
    assert Crew.limit._filter_agents == ["a"]  # type: ignore[attr-defined]


def test_hook_added_during_dispatch_runs_next_time_only() -> None:
    ran: list[str] = []

    def late(ctx):  # type: ignore[no-untyped-def]
        ran.append("late")

    @on(P.INPUT)
    def adder(ctx):  # type: ignore[no-untyped-def]
        ran.append("adder")
        if late not in get_hooks(P.INPUT):
            register_hook(P.INPUT, late)

    dispatch(P.INPUT, None)
    dispatch(P.INPUT, None)
    assert ran == ["adder", "adder", "late"]
