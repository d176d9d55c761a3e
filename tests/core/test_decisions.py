"""The decision mark: one PRE_TOOL_CALL per tool call across layers, bound to the call, not the name."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from typing import Any

import pytest

from hookport import HookAborted, InterceptionPoint, ToolCallHookContext, on
from hookport.calls import ToolShape, atool_call, outer_layer_dispatched_tool, tool_call
from hookport.decisions import body_layer, body_must_decide, decided_outside, in_decided_call

P = InterceptionPoint
SHAPE: ToolShape[Any] = ToolShape()


def ctx(name: str, **args: Any) -> ToolCallHookContext:
    return ToolCallHookContext(name, dict(args), framework="fw")


@pytest.fixture
def pres() -> list[tuple[str, dict[str, Any]]]:
    seen: list[tuple[str, dict[str, Any]]] = []

    @on(P.PRE_TOOL_CALL)
    def record(c: ToolCallHookContext) -> None:
        seen.append((c.tool_name, dict(c.tool_input)))

    return seen


def test_a_body_under_its_call_site_is_silent_once(pres: list[Any]) -> None:
    answers: list[bool] = []

    def run(c: ToolCallHookContext) -> str:
        answers.append(body_must_decide("archive", body_layer("fw"), c.tool_input))
        answers.append(body_must_decide("archive", body_layer("fw"), c.tool_input))
        return "ok"

    tool_call(ctx("archive", note="a"), run, SHAPE)
    assert answers == [False, True]  # the second body entry is another call
    assert len(pres) == 1


def test_a_nested_same_named_call_of_the_same_layer_is_dispatched(pres: list[Any]) -> None:
    @on(P.PRE_TOOL_CALL, tools=["archive"])
    def no_secrets(c: ToolCallHookContext) -> None:
        if c.tool_input.get("note") == "secret":
            raise HookAborted(reason="no secrets")

    inner_runs: list[str] = []

    def inner(c: ToolCallHookContext) -> str:
        inner_runs.append(c.tool_input["note"])
        return "archived"

    def outer(c: ToolCallHookContext) -> str:
        return tool_call(ctx("archive", note="secret"), inner, SHAPE)

    result = tool_call(ctx("archive", note="public"), outer, SHAPE)
    assert inner_runs == []
    assert "no secrets" in result
    assert [a["note"] for _, a in pres] == ["public", "secret"]


def test_another_layer_claims_the_call_once_and_other_arguments_are_another_call(pres: list[Any]) -> None:
    seen: list[bool] = []

    def run(c: ToolCallHookContext) -> str:
        seen.append(decided_outside("archive", "mcp", {"note": "a"}))
        seen.append(decided_outside("archive", "langchain", {"note": "b"}))  # other arguments
        seen.append(decided_outside("other", "langchain"))  # another tool
        seen.append(outer_layer_dispatched_tool())  # any call
        return "ok"

    tool_call(ctx("archive", note="a"), run, SHAPE)
    assert seen == [True, False, False, True]
    assert not in_decided_call()


def test_a_rewrite_by_a_hook_is_what_the_inner_layer_is_compared_with(pres: list[Any]) -> None:
    @on(P.PRE_TOOL_CALL)
    def rewrite(c: ToolCallHookContext) -> None:
        c.tool_input["note"] = "rewritten"

    seen: list[bool] = []
    tool_call(ctx("archive", note="raw"), lambda c: seen.append(decided_outside("archive", "mcp", {"note": "rewritten"})) or "", SHAPE)
    assert seen == [True]


def test_a_thread_that_did_not_copy_the_context_decides_again(pres: list[Any]) -> None:
    answers: list[bool] = []

    def run(c: ToolCallHookContext) -> str:
        worker = threading.Thread(target=lambda: answers.append(body_must_decide("archive", body_layer("fw"))))
        worker.start()
        worker.join()
        copied = contextvars.copy_context()
        answers.append(copied.run(body_must_decide, "archive", body_layer("fw")))
        return "ok"

    tool_call(ctx("archive"), run, SHAPE)
    assert answers == [True, False]


def test_no_hook_registered_means_no_body_decides() -> None:
    assert body_must_decide("archive", body_layer("fw")) is False


def test_sibling_tasks_never_see_each_others_decision(pres: list[Any]) -> None:
    answers: dict[str, bool] = {}

    async def main() -> None:
        started = asyncio.Event()
        release = asyncio.Event()

        async def decided_call(c: ToolCallHookContext) -> str:
            started.set()
            await release.wait()
            return "ok"

        async def sibling() -> None:
            await started.wait()
            answers["sibling"] = body_must_decide("archive", body_layer("fw"))
            release.set()

        await asyncio.gather(atool_call(ctx("archive"), decided_call, SHAPE), sibling())

    asyncio.run(main())
    assert answers == {"sibling": True}


def test_each_run_of_a_retrying_wrap_hook_is_decided_once(pres: list[Any]) -> None:
    from hookport import ExtensionPoint

    @on(ExtensionPoint.WRAP_TOOL_CALL)
    def retry(c: ToolCallHookContext, call_next: Any) -> Any:
        try:
            return call_next(c)
        except RuntimeError:
            return call_next(c)

    answers: list[bool] = []

    def flaky_body(c: ToolCallHookContext) -> str:
        answers.append(body_must_decide("archive", body_layer("fw"), c.tool_input))
        if len(answers) == 1:
            raise RuntimeError("first attempt fails")
        return "ok"

    assert tool_call(ctx("archive"), flaky_body, SHAPE) == "ok"
    assert answers == [False, False] and len(pres) == 1
