"""Bypass attempts on a CodeAgent whose code runs in another process (a remote executor).

The tools run in the executor's child process (`ProcessExecutor`, smolagents' own
``RemotePythonExecutor`` code over a pipe); each test counts the lines the refused tool
wrote there: 0 with the deny, and the twin (no deny) shows the code really reached it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

smolagents = pytest.importorskip("smolagents")

from smolagents import CodeAgent  # noqa: E402

from hookport import HookAborted, InterceptionPoint, adapters, register_hook, register_scoped, scoped_hooks  # noqa: E402
from hookport.contexts import ToolCallHookContext  # noqa: E402
from tests.adapters.smolagents.harness import SERVER, build_model  # noqa: E402
from tests.adversarial.smolagents.remote import ProcessExecutor, RemoteArchiveTool, archive_log  # noqa: E402
from tests.adversarial.smolagents.test_bypass import code, refuse  # noqa: E402
from tests.support.remote_log import RemoteLog  # noqa: E402

P = InterceptionPoint
REFUSED = "Tool 'archive_note' was refused"
HIDDEN = "hookport cannot tell which tools this code calls"


@pytest.fixture(autouse=True)
def _installed(smolagents_adapter: Any) -> Iterator[None]:
    yield


@pytest.fixture
def log(tmp_path: Path) -> RemoteLog:
    return archive_log(tmp_path)


def remote_agent(log: RemoteLog, name: str = "alpha") -> tuple[Any, ProcessExecutor]:
    agent = CodeAgent(tools=[RemoteArchiveTool()], model=build_model(SERVER), name=name, max_steps=3,
                      verbosity_level=-1)
    executor = ProcessExecutor(log)
    agent.python_executor = executor  # what executor_type="docker" / "e2b" / ... builds, with this transport
    return agent, executor


def run_remote(log: RemoteLog, source: str, name: str = "alpha") -> ProcessExecutor:
    SERVER.script([code(source), code('final_answer("done")')])
    agent, executor = remote_agent(log, name)
    try:
        assert agent.run("Archive it.") == "done"
    finally:
        executor.cleanup()
    return executor


def observation() -> str:
    """What the model read after the first code action (its second request)."""
    return json.dumps(SERVER.requests[1])


def deny(on: bool) -> None:
    if on:
        register_hook(P.PRE_TOOL_CALL, refuse, tools=["archive_note"])


both = pytest.mark.parametrize("denied", [False, True], ids=["twin", "deny"])

FORMS = {
    "call": ('archive_note("weekly summary")', 1),
    "keywords": 'print(archive_note(note="weekly summary"))',
    "two-calls": ('archive_note("a")\narchive_note("b")', 2),
    "aliased": ('keep = archive_note\nkeep("weekly summary")', 1),
    "forward": ('archive_note.forward(note="weekly summary")', 1),
    "its-class": ('RemoteArchiveTool().forward(note="weekly summary")', 1),
    "in-a-loop": ('for n in ["a", "b", "c"]:\n    archive_note(n)', 3),
}


@both
@pytest.mark.parametrize("form", list(FORMS))
def test_remote_code_calling_the_tool(denied: bool, form: str, log: RemoteLog) -> None:
    source, calls = FORMS[form] if isinstance(FORMS[form], tuple) else (FORMS[form], 1)
    deny(denied)
    executor = run_remote(log, source)
    assert len(log.lines()) == (0 if denied else calls)
    assert (REFUSED in observation()) is denied
    assert (source in executor.sent) is not denied  # a refused code action is never sent


HIDDEN_FORMS = {
    "globals": 'globals()["archive_" + "note"]("weekly summary")',
    "exec": 'exec("archive_" + "note(\'weekly summary\')")',
    "eval": 'eval("archive_" + "note")("weekly summary")',
    "vars": 'vars()["archive_" + "note"]("weekly summary")',
    "computed-getattr": 'getattr(RemoteArchiveTool(), "for" + "ward")("weekly summary")',
}


@both
@pytest.mark.parametrize("form", list(HIDDEN_FORMS))
def test_remote_code_hiding_the_tool_is_refused(denied: bool, form: str, log: RemoteLog) -> None:
    """The tool's name is not in the code: while a hook may refuse it, the code is not sent (fail closed)."""
    deny(denied)
    run_remote(log, HIDDEN_FORMS[form])
    assert len(log.lines()) == (0 if denied else 1)
    assert (HIDDEN in observation()) is denied


def test_hidden_code_is_sent_when_no_hook_may_refuse_the_tools(log: RemoteLog) -> None:
    """No over-refusal: a deny of a tool the agent does not have leaves unreadable code alone."""
    register_hook(P.PRE_TOOL_CALL, refuse, tools=["some_other_tool"])
    run_remote(log, HIDDEN_FORMS["globals"])
    assert log.lines() == ["weekly summary"]


def test_an_argument_based_deny_sees_the_literal_arguments(log: RemoteLog) -> None:
    def no_secret(ctx: ToolCallHookContext) -> None:
        if ctx.tool_input.get("note") == "secret":
            raise HookAborted(reason="secret notes stay", source="test")

    register_hook(P.PRE_TOOL_CALL, no_secret, tools=["archive_note"])
    run_remote(log, 'archive_note("public")')
    run_remote(log, 'archive_note(note="secret")')
    assert log.lines() == ["public"]


def test_computed_arguments_are_named_for_the_hook(log: RemoteLog) -> None:
    seen: list[tuple[dict[str, Any], Any, Any]] = []

    def record(ctx: ToolCallHookContext) -> None:
        seen.append((dict(ctx.tool_input), ctx.metadata.get("unread_arguments"), ctx.agent_role))

    register_hook(P.PRE_TOOL_CALL, record, tools=["archive_note"])
    run_remote(log, 'n = "weekly " + "summary"\narchive_note(n)')
    assert seen == [({}, {"note": "n"}, "alpha")]
    assert log.lines() == ["weekly summary"]


@pytest.mark.parametrize("denied", [False, True], ids=["twin", "deny"])
def test_scoped_deny(denied: bool, log: RemoteLog) -> None:
    with scoped_hooks():
        if denied:
            register_scoped(P.PRE_TOOL_CALL, refuse, tools=["archive_note"])
        run_remote(log, 'archive_note("weekly summary")')
    assert len(log.lines()) == (0 if denied else 1)


@pytest.mark.parametrize("name", ["alpha", "intern"])
def test_agent_filter(name: str, log: RemoteLog) -> None:
    """``agents=["intern"]`` refuses the intern's remote calls and only those."""
    register_hook(P.PRE_TOOL_CALL, refuse, tools=["archive_note"], agents=["intern"])
    run_remote(log, 'archive_note("weekly summary")', name=name)
    assert len(log.lines()) == (0 if name == "intern" else 1)


def test_post_tool_call_sees_the_remote_output(log: RemoteLog) -> None:
    seen: list[tuple[str, Any]] = []
    register_hook(P.POST_TOOL_CALL, lambda ctx: seen.append((ctx.tool_name, ctx.tool_result)))
    run_remote(log, 'print(archive_note("weekly summary"))')
    assert seen[0] == ("archive_note", "archived weekly summary\n")


def test_smolagents_remote_executors_are_covered() -> None:
    """The E2B, Docker, Modal and Blaxel executors call the same covered ``__call__`` as `ProcessExecutor`."""
    from smolagents import remote_executors

    covered = type(remote_executors.RemotePythonExecutor.__dict__["__call__"])
    assert covered.__name__ == "_Executor"
    for name in ("E2BExecutor", "DockerExecutor", "ModalExecutor", "BlaxelExecutor", "WasmExecutor"):
        cls = getattr(remote_executors, name, None)
        if cls is not None:
            method = next(k.__dict__["__call__"] for k in cls.__mro__ if "__call__" in k.__dict__)
            assert isinstance(method, covered), name
    adapters.uninstall("smolagents")
    try:
        assert not isinstance(remote_executors.RemotePythonExecutor.__dict__["__call__"], covered)
    finally:
        adapters.install("smolagents")
