"""PRE/POST_TOOL_CALL on every kind of LangChain tool and every way of calling it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, StructuredTool, tool

from hookport import HookAborted, InterceptionPoint as P, on
from hookport.adapters.langchain import blocked_message
from hookport.compat import crewai as crewai_dialect
from hookport.compat import praisonai as praisonai_dialect
from tests.support.hooks import collect

pytestmark = pytest.mark.usefixtures("installed")


def make_tools(runs: list[tuple[str, dict[str, Any]]]) -> dict[str, BaseTool]:
    @tool
    def decorated(a: int, b: int) -> str:
        """Add two integers."""
        runs.append(("decorated", {"a": a, "b": b}))
        return str(a + b)

    @tool
    async def decorated_async(a: int, b: int) -> str:
        """Add two integers, asynchronously."""
        runs.append(("decorated_async", {"a": a, "b": b}))
        return str(a + b)

    def structured_fn(a: int, b: int) -> str:
        runs.append(("structured", {"a": a, "b": b}))
        return str(a + b)

    class Subclassed(BaseTool):
        name: str = "subclassed"
        description: str = "Add two integers."

        def _run(self, a: int, b: int, **kwargs: Any) -> str:
            runs.append(("subclassed", {"a": a, "b": b}))
            return str(a + b)

    from pydantic import BaseModel

    class Args(BaseModel):
        a: int
        b: int

    structured = StructuredTool.from_function(structured_fn, name="structured", description="Add two integers.")
    subclassed = Subclassed(args_schema=Args)
    return {"decorated": decorated, "decorated_async": decorated_async, "structured": structured, "subclassed": subclassed}


KINDS = ("decorated", "decorated_async", "structured", "subclassed")


def call(t: BaseTool, how: str, args: dict[str, Any], call_id: str = "call_9") -> Any:
    if how == "invoke":
        return t.invoke(args)
    if how == "ainvoke":
        return asyncio.run(t.ainvoke(args))
    if how == "tool_call":
        return t.invoke({"name": t.name, "args": args, "id": call_id, "type": "tool_call"})
    if how == "atool_call":
        return asyncio.run(t.ainvoke({"name": t.name, "args": args, "id": call_id, "type": "tool_call"}))
    if how == "run":
        return t.run(args)
    raise ValueError(how)


HOWS = ("invoke", "ainvoke", "tool_call", "atool_call", "run")
# An async-only tool has no sync entry point.
CASES = [(k, h) for k in KINDS for h in HOWS if not (k == "decorated_async" and h in ("invoke", "tool_call", "run"))]


@pytest.mark.parametrize(("kind", "how"), CASES)
def test_exactly_once_and_arguments_and_results(kind: str, how: str) -> None:
    runs: list[tuple[str, dict[str, Any]]] = []
    t = make_tools(runs)[kind]
    pre = collect(P.PRE_TOOL_CALL)
    post = collect(P.POST_TOOL_CALL)
    result = call(t, how, {"a": 2, "b": 3})
    assert runs == [(kind, {"a": 2, "b": 3})]
    assert len(pre) == len(post) == 1
    assert pre[0].tool_name == kind and pre[0].tool_input == {"a": 2, "b": 3}
    assert pre[0].framework == "langchain"
    assert post[0].tool_result == "5"
    if how in ("tool_call", "atool_call"):
        assert pre[0].tool_call_id == "call_9"
        assert isinstance(result, ToolMessage) and result.content == "5"


@pytest.mark.parametrize(("kind", "how"), CASES)
def test_a_block_never_runs_the_tool(kind: str, how: str) -> None:
    runs: list[tuple[str, dict[str, Any]]] = []
    t = make_tools(runs)[kind]

    @on(P.PRE_TOOL_CALL)
    def guard(ctx: Any) -> None:
        raise HookAborted("not today", source="policy")

    post = collect(P.POST_TOOL_CALL)
    result = call(t, how, {"a": 2, "b": 3})
    assert runs == []
    expected = blocked_message(kind, "not today")
    assert len(post) == 1, "POST_TOOL_CALL audits the refusal"
    assert post[0].refused is True and post[0].tool_result == expected and post[0].duration_ms == 0.0
    assert isinstance(post[0].refusal, HookAborted) and post[0].refusal.reason == "not today"
    assert kind in expected and "not today" in expected
    if how in ("tool_call", "atool_call"):
        assert isinstance(result, ToolMessage)
        assert result.status == "error" and result.tool_call_id == "call_9" and result.content == expected
        assert result.name == kind
    else:
        assert result == expected


@pytest.mark.parametrize("how", ["tool_call", "atool_call"])
def test_an_audit_hook_may_reword_the_refusal_the_model_sees(how: str) -> None:
    runs: list[tuple[str, dict[str, Any]]] = []
    t = make_tools(runs)["structured"]
    on(P.PRE_TOOL_CALL)(lambda ctx: False)
    on(P.POST_TOOL_CALL)(lambda ctx: "refused by policy P-7" if ctx.refused else None)
    result = call(t, how, {"a": 2, "b": 3})
    assert runs == []
    assert isinstance(result, ToolMessage) and result.status == "error" and result.content == "refused by policy P-7"


@pytest.mark.parametrize(
    "register",
    [
        lambda: crewai_dialect.before_tool_call(lambda ctx: False),
        lambda: praisonai_dialect.add_hook("before_tool", lambda data: False),
        lambda: praisonai_dialect.add_hook("before_tool", lambda data: "no reason needed"),
        lambda: praisonai_dialect.add_hook("before_tool", lambda data: praisonai_dialect.HookResult.deny("denied")),
    ],
    ids=["crewai-false", "praisonai-false", "praisonai-reason", "praisonai-hookresult"],
)
def test_every_dialect_blocks(register: Any) -> None:
    runs: list[tuple[str, dict[str, Any]]] = []
    t = make_tools(runs)["decorated"]
    register()
    result = call(t, "tool_call", {"a": 1, "b": 1})
    assert runs == []
    assert isinstance(result, ToolMessage) and result.status == "error" and "decorated" in result.content


def test_argument_edits_reach_the_tool_and_results_can_be_replaced() -> None:
    runs: list[tuple[str, dict[str, Any]]] = []
    tools = make_tools(runs)

    @on(P.PRE_TOOL_CALL)
    def bump(ctx: Any) -> None:
        ctx.tool_input["b"] = 40

    on(P.POST_TOOL_CALL)(lambda ctx: f"result: {ctx.tool_result}")
    message = call(tools["structured"], "tool_call", {"a": 2, "b": 3})
    plain = call(tools["subclassed"], "invoke", {"a": 2, "b": 3})
    assert runs == [("structured", {"a": 2, "b": 40}), ("subclassed", {"a": 2, "b": 40})]
    assert isinstance(message, ToolMessage) and message.content == "result: 42" and message.tool_call_id == "call_9"
    assert plain == "result: 42"


def test_caller_arguments_are_not_mutated() -> None:
    runs: list[tuple[str, dict[str, Any]]] = []
    t = make_tools(runs)["decorated"]
    on(P.PRE_TOOL_CALL)(lambda ctx: ctx.tool_input.update(b=7))
    args = {"a": 1, "b": 1}
    t.invoke(args)
    assert args == {"a": 1, "b": 1}
    assert runs == [("decorated", {"a": 1, "b": 7})]


def test_abort_after_the_tool_propagates() -> None:
    runs: list[tuple[str, dict[str, Any]]] = []
    t = make_tools(runs)["decorated"]

    @on(P.POST_TOOL_CALL)
    def stop(ctx: Any) -> None:
        raise HookAborted("leaked a secret")

    with pytest.raises(HookAborted, match="leaked a secret"):
        call(t, "tool_call", {"a": 1, "b": 1})
    assert len(runs) == 1


def test_tool_errors_skip_post_and_propagate() -> None:
    @tool
    def broken(x: int) -> str:
        """Always fails."""
        raise KeyError("boom")

    post = collect(P.POST_TOOL_CALL)
    with pytest.raises(KeyError):
        broken.invoke({"x": 1})
    assert post == []


def test_string_input_is_shown_as_the_single_argument() -> None:
    seen: list[Any] = []

    @tool
    def shout(text: str) -> str:
        """Upper-case a text."""
        seen.append(text)
        return text.upper()

    pre = collect(P.PRE_TOOL_CALL)
    assert shout.invoke("hi") == "HI"
    assert pre[0].tool_input == {"text": "hi"}
    on(P.PRE_TOOL_CALL)(lambda ctx: ctx.tool_input.update(text="edited"))
    assert shout.invoke("hi") == "EDITED"
