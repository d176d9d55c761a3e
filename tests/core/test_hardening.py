"""Registration and dispatch defects found by adversarial testing (issue: hardening)."""

from __future__ import annotations

import asyncio
import contextvars
import threading

import pytest

from hookport import (
    HookAborted,
    InterceptionPoint,
    ToolCallHookContext,
    LLMCallHookContext,
    dispatch,
    get_scoped_hooks,
    has_hooks,
    is_suppressed,
    on,
    reentrant,
    register_hook,
    register_scoped,
    scoped_hooks,
    suppressed,
)
from hookport.compat import crewai as crewai_dialect

P = InterceptionPoint


def tool_ctx(name: str = "delete_file") -> ToolCallHookContext:
    return ToolCallHookContext(name, {"path": "/etc"})


@pytest.mark.parametrize("make", [lambda: iter(["delete_file"]), lambda: (t for t in ["delete_file"]),
                                  lambda: map(str, ["delete_file"])])
def test_a_filter_given_as_an_iterator_is_read_once(make) -> None:  # type: ignore[no-untyped-def]
    seen: list[str] = []

    @on(P.PRE_TOOL_CALL, tools=make())
    def guard(ctx):  # type: ignore[no-untyped-def]
        seen.append(ctx.tool_name)

    @crewai_dialect.before_tool_call(tools=make())
    def legacy(ctx):  # type: ignore[no-untyped-def]
        seen.append("legacy:" + ctx.tool_name)

    dispatch(P.PRE_TOOL_CALL, tool_ctx("delete_file"))
    dispatch(P.PRE_TOOL_CALL, tool_ctx("read_file"))
    assert seen == ["delete_file", "legacy:delete_file"]


def test_an_empty_filter_means_no_filter() -> None:
    seen: list[str] = []
    register_hook(P.PRE_TOOL_CALL, lambda ctx: seen.append(ctx.tool_name), tools=[], agents=[])
    dispatch(P.PRE_TOOL_CALL, tool_ctx("anything"))
    assert seen == ["anything"]


@pytest.mark.parametrize("hook", [lambda: None, lambda a, b: None])
def test_a_hook_that_cannot_take_a_context_is_refused_at_registration(hook) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(TypeError, match="cannot be registered at pre_tool_call"):
        register_hook(P.PRE_TOOL_CALL, hook)
    with pytest.raises(TypeError, match="<lambda>"):
        on(P.POST_MODEL_CALL)(hook)


def test_methods_and_varargs_stay_valid() -> None:
    class Policy:
        def check(self, ctx):  # type: ignore[no-untyped-def]
            ctx.metadata["checked"] = True

    register_hook(P.PRE_TOOL_CALL, Policy().check)
    register_hook(P.PRE_TOOL_CALL, lambda *args: args[0].metadata.setdefault("varargs", True))
    ctx = dispatch(P.PRE_TOOL_CALL, tool_ctx())
    assert ctx.metadata == {"checked": True, "varargs": True}


@pytest.mark.parametrize("spelling", [P.PRE_TOOL_CALL, "pre_tool_call", "PRE_TOOL_CALL"])
def test_dispatch_and_has_hooks_accept_every_spelling(spelling) -> None:  # type: ignore[no-untyped-def]
    seen: list[int] = []
    register_hook("PRE_TOOL_CALL", lambda ctx: seen.append(1))
    assert has_hooks(spelling)
    dispatch(spelling, tool_ctx())
    assert seen == [1]


@pytest.mark.parametrize("bad", ["bogus", None, 5])
def test_an_unknown_point_is_an_error_everywhere(bad) -> None:  # type: ignore[no-untyped-def]
    for call in (lambda: dispatch(bad, tool_ctx()), lambda: has_hooks(bad)):
        with pytest.raises((ValueError, TypeError)):
            call()


def test_unknown_points_suggest_the_closest() -> None:
    with pytest.raises(ValueError, match="did you mean 'pre_tool_call'"):
        register_hook("pre_tool_cal", lambda ctx: None)
    with pytest.raises(ValueError, match="CrewAI legacy decorator"):
        on("before_tool_call")


async def test_scoped_hooks_follow_contextvars_semantics() -> None:
    seen_counts: list[int] = []

    async def request(i: int) -> None:
        register_scoped(P.PRE_TOOL_CALL, lambda ctx, i=i: None)
        await asyncio.sleep(0)
        seen_counts.append(len(get_scoped_hooks(P.PRE_TOOL_CALL)))

    with scoped_hooks():
        await asyncio.gather(*(request(i) for i in range(100)))
        owner_sees = len(get_scoped_hooks(P.PRE_TOOL_CALL))
    assert seen_counts == [1] * 100
    assert owner_sees == 0


def test_a_scoped_hook_follows_work_started_by_its_registrant_and_stops_with_the_block() -> None:
    fired: list[str] = []
    with scoped_hooks():
        register_scoped(P.PRE_TOOL_CALL, lambda ctx: fired.append(ctx.tool_name))
        context = contextvars.copy_context()
        worker = threading.Thread(target=context.run, args=(dispatch, P.PRE_TOOL_CALL, tool_ctx("inner")))
        worker.start()
        worker.join()
    context.run(dispatch, P.PRE_TOOL_CALL, tool_ctx("after"))
    assert fired == ["inner"]


# -- re-entrancy ------------------------------------------------------------------------


def test_calls_made_inside_a_hook_are_not_hooked_again() -> None:
    runs: list[str] = []

    def judge(ctx):  # type: ignore[no-untyped-def]
        runs.append("judge")
        assert is_suppressed()
        dispatch(P.PRE_MODEL_CALL, LLMCallHookContext([{"role": "user", "content": "is this safe?"}]))

    register_hook(P.PRE_MODEL_CALL, judge)
    dispatch(P.PRE_MODEL_CALL, LLMCallHookContext([]))
    assert runs == ["judge"]
    assert not is_suppressed()


def test_reentrant_lets_a_hook_opt_in_and_suppressed_turns_hooks_off() -> None:
    runs: list[str] = []

    def judge(ctx):  # type: ignore[no-untyped-def]
        runs.append(ctx.metadata.get("depth", 0))
        if ctx.metadata.get("depth", 0) < 2:
            with reentrant():
                dispatch(P.PRE_MODEL_CALL, LLMCallHookContext([], metadata={"depth": ctx.metadata.get("depth", 0) + 1}))

    register_hook(P.PRE_MODEL_CALL, judge)
    dispatch(P.PRE_MODEL_CALL, LLMCallHookContext([]))
    assert runs == [0, 1, 2]
    with suppressed():
        dispatch(P.PRE_MODEL_CALL, LLMCallHookContext([]))
    assert runs == [0, 1, 2]


# -- contexts that remember -----------------------------------------------------------------


def test_hooks_may_store_their_own_attributes_on_a_context() -> None:
    def start(ctx):  # type: ignore[no-untyped-def]
        ctx.started_by_me = 42

    def later(ctx):  # type: ignore[no-untyped-def]
        ctx.metadata["seen"] = ctx.started_by_me

    register_hook(P.PRE_TOOL_CALL, start)
    register_hook(P.PRE_TOOL_CALL, later)
    ctx = dispatch(P.PRE_TOOL_CALL, tool_ctx())
    assert ctx.metadata["seen"] == 42


def test_a_refusal_by_hook_aborted_keeps_the_hook_as_source() -> None:
    def deny(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("no")

    register_hook(P.PRE_TOOL_CALL, deny)
    with pytest.raises(HookAborted) as caught:
        dispatch(P.PRE_TOOL_CALL, tool_ctx())
    assert caught.value.source is deny
