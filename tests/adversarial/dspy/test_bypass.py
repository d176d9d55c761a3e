"""Bypass attempts on the DSPy adapter: every route from a program to a tool's function.

Each test counts the refused tool's real executions: 0 with the deny, and its twin
(``deny=False``) shows the same route really reaches the tool. The model is the
scripted server of the DSPy conformance harness.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

dspy = pytest.importorskip("dspy")

from hookport import (  # noqa: E402
    HookAborted, InterceptionPoint, adapters, register_hook, register_scoped, scoped_hooks, unregister_hook,
)
from hookport.contexts import ToolCallHookContext  # noqa: E402
from tests.adapters.dspy.harness import SERVER, build_lm, chat_fields, dspy_version  # noqa: E402
from tests.conformance.harness import Turn, number_tool_calls  # noqa: E402
from tests.support.openai_server import ScriptedOpenAIServer  # noqa: E402

P = InterceptionPoint
RUNS: list[tuple[str, Any]] = []
native = pytest.mark.skipif(not hasattr(dspy, "ToolCalls") or not hasattr(dspy.ToolCalls, "ToolCall")
                            or not hasattr(dspy.ToolCalls.ToolCall, "execute"),
                            reason="ToolCall.execute (native tool calls) is new in DSPy 3.0")


def refuse(ctx: ToolCallHookContext) -> None:
    raise HookAborted(reason="archiving is not allowed", source="test")


@pytest.fixture(autouse=True)
def _installed(dspy_adapter: Any) -> Iterator[None]:
    RUNS.clear()
    yield
    RUNS.clear()


@pytest.fixture
def deny_archive(request: pytest.FixtureRequest) -> Iterator[bool]:
    if request.param:
        register_hook(P.PRE_TOOL_CALL, refuse, tools=["archive_note"])
    yield request.param
    if request.param:
        unregister_hook(P.PRE_TOOL_CALL, refuse)


both = pytest.mark.parametrize("deny_archive", [False, True], ids=["twin", "deny"], indirect=True)


def archive_note(note: str) -> str:
    """Archive a note."""
    RUNS.append(("archive_note", note))
    return f"archived {note}"


async def aarchive_note(note: str) -> str:
    """Archive a note (async)."""
    RUNS.append(("archive_note", note))
    return f"archived {note}"


def runs() -> int:
    return sum(1 for name, _ in RUNS if name == "archive_note")


class Program(dspy.Module):  # type: ignore[misc, name-defined]
    """A user's program whose forward reaches the tool by the route under test."""

    def __init__(self, route: Any, name: str = "alpha") -> None:
        super().__init__()
        self.route = route
        self.name = name

    def forward(self, **inputs: Any) -> Any:
        return dspy.Prediction(answer=self.route(**inputs))


def attempt(call: Any) -> Any:
    try:
        return call()
    except RuntimeError as error:  # DSPy reports a refused (failed) tool as an error
        return str(error)


# -- ReAct --------------------------------------------------------------------------------------


@both
@pytest.mark.parametrize("entry", ["sync", "async"])
@pytest.mark.parametrize("form", ["function", "async_function", "tool"])
def test_react(deny_archive: bool, entry: str, form: str) -> None:
    func = aarchive_note if form == "async_function" and entry == "async" else archive_note
    tool: Any = func if form == "function" else dspy.Tool(func, name="archive_note")
    react = dspy.ReAct("question -> answer", tools=[tool], max_iters=3)
    SERVER.script(number_tool_calls([Turn.call("archive_note", note="weekly"), Turn.final("done")]))
    with dspy.context(lm=build_lm(SERVER.base_url)):
        if entry == "sync":
            react(question="Archive it.")
        else:
            asyncio.run(react.acall(question="Archive it."))
    assert runs() == (0 if deny_archive else 1)


# -- native tool calls (issue 22) ------------------------------------------------------------------


@native
@both
@pytest.mark.parametrize("made", ["after_install", "before_install"])
def test_native_tool_call_execute(deny_archive: bool, made: str) -> None:
    """``ToolCalls.ToolCall.execute(functions=tools)`` calls ``tool.func`` itself."""
    if made == "before_install":
        adapters.uninstall("dspy")
        try:
            tools = [dspy.Tool(archive_note)]
        finally:
            adapters.install("dspy")
    else:
        tools = [dspy.Tool(archive_note)]
    calls = dspy.ToolCalls.from_dict_list([{"name": "archive_note", "args": {"note": "weekly"}}])
    Program(lambda tools: attempt(lambda: calls.tool_calls[0].execute(functions=tools)))(tools=tools)
    assert runs() == (0 if deny_archive else 1)


class NativeTools(dspy.Signature):  # type: ignore[misc, name-defined]
    """Archive what the user asks for."""

    question: str = dspy.InputField()
    tools: list[dspy.Tool] = dspy.InputField()  # type: ignore[name-defined]
    tool_calls: dspy.ToolCalls = dspy.OutputField()  # type: ignore[name-defined]


@native
@both
def test_native_tool_calls_from_predict(deny_archive: bool) -> None:
    """Issue 22: ``dspy.Predict(sig)(..., tools=tools).tool_calls.tool_calls[i].execute(functions=tools)``."""
    server = ScriptedOpenAIServer().start()
    try:
        answer = {"tool_calls": [{"name": "archive_note", "args": {"note": "weekly"}}]}
        server.script([Turn.final(chat_fields({"tool_calls": answer}))])
        tools = [dspy.Tool(archive_note)]
        with dspy.context(lm=build_lm(server.base_url)):
            prediction = dspy.Predict(NativeTools)(question="Archive it.", tools=tools)
        for call in prediction.tool_calls.tool_calls:
            attempt(lambda: call.execute(functions=tools))
    finally:
        server.stop()
    assert runs() == (0 if deny_archive else 1)


@native
@both
@pytest.mark.parametrize("lookup", ["dict", "caller_frame"])
def test_native_tool_call_of_a_plain_function(deny_archive: bool, lookup: str) -> None:
    """``execute(functions={"archive_note": archive_note})`` and ``execute()`` (DSPy finds the function
    in its caller's frame): a plain function, no ``dspy.Tool`` anywhere; the call site decides it."""
    calls = dspy.ToolCalls.from_dict_list([{"name": "archive_note", "args": {"note": "weekly"}}])

    def route() -> Any:
        archive_note = globals()["archive_note"]  # a local of the caller: what execute() finds
        if lookup == "dict":
            return attempt(lambda: calls.tool_calls[0].execute(functions={"archive_note": archive_note}))
        try:
            return calls.tool_calls[0].execute()
        except RuntimeError as error:
            return str(error)

    answer = Program(route)().answer
    assert runs() == (0 if deny_archive else 1)
    assert ("Error executing tool 'archive_note': Tool call archive_note was refused" in answer) is deny_archive


@native
def test_native_tool_call_once_per_call_and_edited_arguments() -> None:
    """A ``dspy.Tool`` through ``execute``: the call site decides, the guarded body claims it (one PRE); an
    edit of ``ctx.tool_input`` is what the function gets."""
    seen: list[dict[str, Any]] = []

    def rewrite(ctx: ToolCallHookContext) -> None:
        seen.append(dict(ctx.tool_input))
        ctx.tool_input["note"] = "redacted"

    register_hook(P.PRE_TOOL_CALL, rewrite, tools=["archive_note"])
    calls = dspy.ToolCalls.from_dict_list([{"name": "archive_note", "args": {"note": "weekly"}}])
    assert calls.tool_calls[0].execute(functions=[dspy.Tool(archive_note)]) == "archived redacted"
    assert seen == [{"note": "weekly"}] and RUNS == [("archive_note", "redacted")]


@native
def test_native_tool_call_lookup_still_finds_the_callers_function() -> None:
    """Installed with no hook registered, ``execute()`` still finds the caller's function (the wrapper is
    not the frame it looks in)."""
    calls = dspy.ToolCalls.from_dict_list([{"name": "archive_note", "args": {"note": "weekly"}}])
    archive_note = globals()["archive_note"]  # noqa: F841 - found by name
    assert calls.tool_calls[0].execute() == "archived weekly"


@both
def test_tool_function_called_directly_in_a_run(deny_archive: bool) -> None:
    """The body layer alone: a program calling ``tool.func`` itself, which no call site sees."""
    tool = dspy.Tool(archive_note)
    Program(lambda: attempt(lambda: tool.func(note="weekly")))()
    assert runs() == (0 if deny_archive else 1)


@both
def test_async_tool_function_called_directly(deny_archive: bool) -> None:
    tool = dspy.Tool(aarchive_note, name="archive_note")

    async def route() -> Any:
        try:
            return await tool.func("weekly")
        except RuntimeError as error:
            return str(error)

    asyncio.run(route())
    assert runs() == (0 if deny_archive else 1)


# -- nested same-named tool: a boss tool running the intern (issue 22) ----------------------------


@pytest.mark.parametrize("deny", [False, True], ids=["twin", "deny"])
def test_boss_tool_named_like_the_interns(deny: bool) -> None:
    """The boss's ``archive_note`` runs the intern program, whose own ``archive_note`` is denied for
    the intern only: the intern's call is a call of its own."""
    intern_tool = dspy.Tool(archive_note)
    intern = Program(lambda note: attempt(lambda: intern_tool(note=note)), name="intern")

    def boss_archive(note: str) -> str:
        RUNS.append(("boss:archive_note", note))
        return str(intern(note=note).answer)

    boss_tool = dspy.Tool(boss_archive, name="archive_note")
    with scoped_hooks():
        if deny:
            register_scoped(P.PRE_TOOL_CALL, refuse, tools=["archive_note"], agents=["intern"])
        Program(lambda: boss_tool(note="weekly"), name="boss")()
    assert [n for n, _ in RUNS].count("boss:archive_note") == 1
    assert runs() == (0 if deny else 1)


@pytest.mark.parametrize("deny", [False, True], ids=["twin", "deny"])
def test_scoped_deny_in_parallel_threads(deny: bool) -> None:
    """``dspy.Parallel`` runs the calls on its own threads: a scoped deny holds there."""
    tool = dspy.Tool(archive_note)
    program = Program(lambda note: attempt(lambda: tool(note=note)))
    with scoped_hooks():
        if deny:
            register_scoped(P.PRE_TOOL_CALL, refuse, tools=["archive_note"])
        dspy.Parallel(num_threads=2)([(program, dspy.Example(note=n).with_inputs("note")) for n in "ab"])
    assert runs() == (0 if deny else 2)


