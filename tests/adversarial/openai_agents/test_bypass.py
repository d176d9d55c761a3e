"""Bypass attempts on the openai-agents adapter: every path to a tool's code, refused with a deny.

Each test counts the refused tool's real executions (0 with the deny) and is parametrized with
its twin (``deny=False``: the same run, nothing registered) that shows the path really reaches
the tool. The model is scripted; nothing leaves the process.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import json
import threading
from typing import Any

import pytest

pytest.importorskip("agents")

from agents import Agent, CustomTool, FunctionTool, LocalShellTool, Runner, ShellTool, function_tool  # noqa: E402
from agents.tool import invoke_function_tool  # noqa: E402
from agents.tool_context import ToolContext  # noqa: E402

from hookport import HookAborted, InterceptionPoint, adapters, on, register_hook, register_scoped, scoped_hooks  # noqa: E402
from hookport.adapters.openai_agents._bodies import BodyGuard  # noqa: E402
from tests.adversarial.openai_agents.support import (  # noqa: E402
    ENTRIES,
    REASON,
    agent,
    custom_call,
    deny,
    function_call,
    outputs_sent,
    refuse,
    run,
)

P = InterceptionPoint
BOTH = pytest.mark.parametrize("denied", [False, True], ids=["twin", "deny"])
REFUSAL = f"Tool execution was not approved. Tool: archive_note. Reason: {REASON}"


@pytest.fixture(autouse=True)
def installed() -> Any:
    """The adapter installed for each attempt (install-order tests take it off and put it back)."""
    was = "openai-agents" in adapters.installed()
    adapters.install("openai-agents")
    yield
    if not was:
        adapters.uninstall("openai-agents")


def archive_tool(runs: list[Any], name: str = "archive_note") -> FunctionTool:
    @function_tool(name_override=name)
    def archive_note(note: str) -> str:
        """Archive a note.

        Args:
            note: the note
        """
        runs.append(note)
        return f"archived {note}"

    return archive_note


def async_archive_tool(runs: list[Any]) -> FunctionTool:
    @function_tool
    async def archive_note(note: str) -> str:
        """Archive a note.

        Args:
            note: the note
        """
        runs.append(note)
        return "ok"

    return archive_note


def _expected(denied: bool, ran: int = 1) -> int:
    return 0 if denied else ran


# -- (a) CustomTool: the run loop calls its on_invoke_tool itself ------------------------------------


def _custom(runs: list[Any], is_async: bool) -> CustomTool:
    def body(ctx: Any, text: str) -> str:
        runs.append(text)
        return f"archived {text}"

    async def abody(ctx: Any, text: str) -> str:
        return body(ctx, text)

    return CustomTool(name="archive_note", description="Archive a note (raw text).",
                      on_invoke_tool=abody if is_async else body)


@BOTH
@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("is_async", [False, True], ids=["def", "async"])
def test_custom_tool_in_the_run_loop(entry: str, is_async: bool, denied: bool) -> None:
    runs: list[Any] = []
    deny("archive_note", denied)
    worker = agent("alpha", [_custom(runs, is_async)], [custom_call("archive_note", "weekly summary")], "done")
    assert run(worker, entry) == "done"
    assert len(runs) == _expected(denied)
    if denied:
        assert outputs_sent(worker.model)["call_1"] == REFUSAL  # type: ignore[arg-type]


@BOTH
def test_custom_tool_argument_policy_sees_the_raw_input(denied: bool) -> None:
    runs: list[Any] = []
    if denied:
        @on(P.PRE_TOOL_CALL, tools=["archive_note"])
        def no_secrets(ctx: Any) -> None:
            if "secret" in ctx.tool_input["input"]:
                raise HookAborted(reason=REASON)

    worker = agent("alpha", [_custom(runs, False)], [custom_call("archive_note", "the secret plan")], "done")
    run(worker)
    assert len(runs) == _expected(denied)


# -- (b) nested calls of a same-named tool -------------------------------------------------------------


def _no_secret_notes() -> None:
    @on(P.PRE_TOOL_CALL, tools=["archive_note"])
    def no_secret(ctx: Any) -> None:
        if ctx.tool_input.get("note") == "secret":
            raise HookAborted(reason=REASON, source="test")


@BOTH
@pytest.mark.parametrize("entry", ENTRIES)
def test_agent_as_tool_whose_sub_agent_calls_its_own_same_named_tool(entry: str, denied: bool) -> None:
    runs: list[Any] = []
    if denied:
        _no_secret_notes()
    records = agent("records", [archive_tool(runs)], [function_call("archive_note", note="secret")], "filed")
    boss = agent("boss", [records.as_tool("archive_note", "Archive a note through the records agent.")],
                 [function_call("archive_note", input="archive the weekly note")], "done")
    assert run(boss, entry) == "done"
    assert len(records.model.inputs) == 2, "the sub-agent did not run"  # type: ignore[attr-defined]
    assert len(runs) == _expected(denied)


@BOTH
def test_tool_that_invokes_a_same_named_tool_through_the_sdk(denied: bool) -> None:
    """A tool's body calling another ``archive_note`` with ``invoke_function_tool``: a new call."""
    runs: list[Any] = []
    inner = archive_tool(runs)
    if denied:
        _no_secret_notes()

    @function_tool(name_override="archive_note")
    async def outer(note: str) -> str:
        """Archive a note twice.

        Args:
            note: the note
        """
        arguments = json.dumps({"note": "secret"})
        context = ToolContext(context=None, tool_name="archive_note", tool_call_id="inner", tool_arguments=arguments)
        return str(await invoke_function_tool(function_tool=inner, context=context, arguments=arguments))

    run(agent("alpha", [outer], [function_call("archive_note", note="public")], "done"))
    assert len(runs) == _expected(denied)


@BOTH
def test_tool_that_calls_itself(denied: bool) -> None:
    """A recursive tool: its second, nested call (other arguments) is decided on its own."""
    runs: list[Any] = []
    if denied:
        _no_secret_notes()

    @function_tool
    async def archive_note(note: str) -> str:
        """Archive a note.

        Args:
            note: the note
        """
        runs.append(note)
        if note == "public":
            arguments = json.dumps({"note": "secret"})
            context = ToolContext(context=None, tool_name="archive_note", tool_call_id="again",
                                  tool_arguments=arguments)
            await invoke_function_tool(function_tool=archive_note, context=context, arguments=arguments)
        return "ok"

    run(agent("alpha", [archive_note], [function_call("archive_note", note="public")], "done"))
    assert runs == (["public"] if denied else ["public", "secret"])


# -- the body alone: routes no call site covers ----------------------------------------------------------


@BOTH
@pytest.mark.parametrize("entry", ENTRIES)
def test_body_guard_alone_a_tool_calling_another_tools_on_invoke_tool(entry: str, denied: bool) -> None:
    """No call site sees ``inner.on_invoke_tool(...)`` made by a tool's body: the body guard decides."""
    runs: list[Any] = []
    inner = archive_tool(runs)
    deny("archive_note", denied)

    @function_tool
    async def helper(note: str) -> str:
        """Help with a note.

        Args:
            note: the note
        """
        arguments = json.dumps({"note": note})
        context = ToolContext(context=None, tool_name="archive_note", tool_call_id="x", tool_arguments=arguments)
        return str(await inner.on_invoke_tool(context, arguments))

    worker = agent("alpha", [helper], [function_call("helper", note="weekly")], "done")
    run(worker, entry)
    assert len(runs) == _expected(denied)
    if denied:
        assert outputs_sent(worker.model)["call_1"] == REFUSAL  # type: ignore[arg-type]


@BOTH
def test_body_guard_alone_on_invoke_tool_called_by_the_app(denied: bool) -> None:
    runs: list[Any] = []
    tool = archive_tool(runs)
    deny("archive_note", denied)
    arguments = json.dumps({"note": "weekly"})
    context = ToolContext(context=None, tool_name="archive_note", tool_call_id="app", tool_arguments=arguments)
    output = asyncio.run(tool.on_invoke_tool(context, arguments))
    assert len(runs) == _expected(denied)
    assert (output == REFUSAL) is denied


@BOTH
def test_body_guard_alone_with_the_call_site_unpatched(denied: bool) -> None:
    """The call site taken off (a future release's route): the run still meets the body guard."""
    from agents.run_internal import tool_execution

    runs: list[Any] = []
    deny("archive_note", denied)
    site = tool_execution._invoke_function_tool_with_metadata
    tool_execution._invoke_function_tool_with_metadata = site.__wrapped__
    try:
        run(agent("alpha", [archive_tool(runs)], [function_call("archive_note", note="weekly")], "done"))
    finally:
        tool_execution._invoke_function_tool_with_metadata = site
    assert len(runs) == _expected(denied)


# -- tool forms --------------------------------------------------------------------------------------------


def _forms(runs: list[Any]) -> dict[str, FunctionTool]:
    archive_note = async_archive_tool(runs)

    async def by_hand(ctx: Any, arguments: str) -> str:
        runs.append(json.loads(arguments)["note"])
        return "ok"

    schema = {"type": "object", "properties": {"note": {"type": "string"}}, "required": ["note"],
              "additionalProperties": False}

    class ArchiveTool(FunctionTool):
        pass

    plain = archive_tool(runs, "plain_note")
    return {
        "def": archive_tool(runs),
        "async": archive_note,
        "by_hand": FunctionTool(name="archive_note", description="Archive.", params_json_schema=schema,
                                on_invoke_tool=by_hand),
        "subclass": ArchiveTool(name="archive_note", description="Archive.", params_json_schema=schema,
                                on_invoke_tool=by_hand),
        "copied": copy.copy(archive_tool(runs)),
        "replaced": dataclasses.replace(plain, name="archive_note"),
        "timeout": dataclasses.replace(archive_note, timeout_seconds=5.0),
    }


FORMS = ("def", "async", "by_hand", "subclass", "copied", "replaced", "timeout")


@BOTH
@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("form", FORMS)
def test_tool_forms(form: str, entry: str, denied: bool) -> None:
    runs: list[Any] = []
    deny("archive_note", denied)
    run(agent("alpha", [_forms(runs)[form]], [function_call("archive_note", note="weekly")], "done"), entry)
    assert len(runs) == _expected(denied)


@BOTH
def test_renamed_tool_is_denied_by_its_new_name(denied: bool) -> None:
    runs: list[Any] = []
    deny("file_note", denied)
    run(agent("alpha", [archive_tool(runs, "file_note")], [function_call("file_note", note="weekly")], "done"))
    assert len(runs) == _expected(denied)


# -- MCP tools (the SDK turns each into a FunctionTool per turn) --------------------------------------------


class _SessionServer:
    """An ``agents.mcp.MCPServer`` on an in-process MCP client session."""

    @staticmethod
    def make(session: Any) -> Any:
        from agents.mcp import MCPServer

        class SessionServer(MCPServer):
            @property
            def name(self) -> str:
                return "calc"

            async def connect(self) -> None:
                return None

            async def cleanup(self) -> None:
                return None

            async def list_tools(self, run_context: Any = None, agent: Any = None) -> Any:
                return (await session.list_tools()).tools

            async def call_tool(self, tool_name: str, arguments: Any, meta: Any = None) -> Any:
                return await session.call_tool(tool_name, arguments)

            async def list_prompts(self) -> Any:
                raise NotImplementedError

            async def get_prompt(self, name: str, arguments: Any = None) -> Any:
                raise NotImplementedError

        return SessionServer()


@BOTH
@pytest.mark.parametrize("streamed", [False, True], ids=["run", "stream"])
def test_mcp_server_tool(streamed: bool, denied: bool) -> None:
    pytest.importorskip("mcp")
    from tests.adapters.mcp import server as mcp_server
    from tests.adapters.openai_agents.harness import drain

    mcp_server.RUNS.clear()
    deny("purge_records", denied)

    async def main() -> Any:
        async with mcp_server.session() as session:
            worker = agent("alpha", [], [function_call("purge_records", table="users")], "done",
                           mcp_servers=[_SessionServer.make(session)])
            if streamed:
                return await drain(Runner.run_streamed(worker, "go"))
            return (await Runner.run(worker, "go")).final_output

    assert asyncio.run(main()) == "done"
    assert len(mcp_server.RUNS) == _expected(denied)


# -- local shell tools ------------------------------------------------------------------------------------------


@BOTH
def test_shell_tool_local_executor(denied: bool) -> None:
    runs: list[Any] = []

    def executor(request: Any) -> str:
        runs.append(list(request.data.action.commands))
        return "ran"

    deny("shell", denied)
    call = {"type": "shell_call", "id": "sh_1", "call_id": "call_1", "status": "completed",
            "action": {"commands": ["rm -rf /tmp/x"], "timeout_ms": 1000, "max_output_length": 1000}}
    worker = agent("alpha", [ShellTool(executor=executor)], [call], "done")
    run(worker)
    assert len(runs) == _expected(denied)
    if denied:
        assert "Tool execution was not approved. Tool: shell" in outputs_sent(worker.model)["call_1"]  # type: ignore[arg-type]


@BOTH
def test_local_shell_tool_executor(denied: bool) -> None:
    from openai.types.responses.response_output_item import LocalShellCall, LocalShellCallAction

    runs: list[Any] = []

    def executor(request: Any) -> str:
        runs.append(list(request.data.action.command))
        return "ran"

    deny("local_shell", denied)
    call = LocalShellCall(id="ls_1", call_id="call_1", status="completed", type="local_shell_call",
                          action=LocalShellCallAction(command=["rm", "-rf", "/tmp/x"], env={}, type="exec"))
    worker = agent("alpha", [LocalShellTool(executor=executor)], [call], "done")
    run(worker)
    assert len(runs) == _expected(denied)
    if denied:
        assert "Tool execution was not approved. Tool: local_shell" in outputs_sent(worker.model)["call_1"]  # type: ignore[arg-type]


class _Editor:
    def __init__(self, runs: list[Any]) -> None:
        self.runs = runs

    def create_file(self, operation: Any) -> str:
        self.runs.append(("create", operation.path))
        return "created"

    def update_file(self, operation: Any) -> str:
        self.runs.append(("update", operation.path))
        return "updated"

    def delete_file(self, operation: Any) -> str:
        self.runs.append(("delete", operation.path))
        return "deleted"


@BOTH
@pytest.mark.parametrize("operation", ["create_file", "update_file", "delete_file"])
def test_apply_patch_tool_editor(operation: str, denied: bool) -> None:
    from agents import ApplyPatchTool

    runs: list[Any] = []
    deny("apply_patch", denied)
    call = {"type": "apply_patch_call", "id": "ap_1", "call_id": "call_1", "status": "completed",
            "operation": {"type": operation, "path": "notes.txt", "diff": "@@\n+hello\n"}}
    worker = agent("alpha", [ApplyPatchTool(editor=_Editor(runs))], [call], "done")
    run(worker)
    assert len(runs) == _expected(denied)
    if denied:
        assert "Tool execution was not approved. Tool: apply_patch" in outputs_sent(worker.model)["call_1"]  # type: ignore[arg-type]


@BOTH
@pytest.mark.parametrize("entry", ENTRIES)
def test_computer_tool_actions(entry: str, denied: bool) -> None:
    from agents import AsyncComputer, ComputerTool
    from openai.types.responses import ResponseComputerToolCall

    runs: list[Any] = []

    class Screen(AsyncComputer):
        environment = "linux"
        dimensions = (800, 600)

        async def screenshot(self) -> str:
            return "aGk="

        async def click(self, x: int, y: int, button: str) -> None:
            runs.append(("click", x, y))

        async def double_click(self, x: int, y: int) -> None: ...
        async def scroll(self, x: int, y: int, scroll_x: int, scroll_y: int) -> None: ...
        async def type(self, text: str) -> None: ...
        async def wait(self) -> None: ...
        async def move(self, x: int, y: int) -> None: ...
        async def keypress(self, keys: list[str]) -> None: ...
        async def drag(self, path: list[tuple[int, int]]) -> None: ...

    deny("computer_use_preview", denied)
    call = ResponseComputerToolCall.model_validate(
        {"type": "computer_call", "id": "cu_1", "call_id": "call_1", "status": "completed",
         "pending_safety_checks": [], "action": {"type": "click", "x": 10, "y": 20, "button": "left"}})
    run(agent("alpha", [ComputerTool(computer=Screen())], [call], "done"), entry)
    assert len(runs) == _expected(denied)


# -- concurrency ------------------------------------------------------------------------------------------------


@BOTH
@pytest.mark.parametrize("entry", ENTRIES)
def test_parallel_calls_of_the_denied_tool_next_to_an_allowed_one(entry: str, denied: bool) -> None:
    runs: list[Any] = []
    allowed: list[Any] = []
    deny("archive_note", denied)
    calls = [function_call("archive_note", "call_1", note="a"), function_call("plain_note", "call_2", note="b"),
             function_call("archive_note", "call_3", note="c")]
    run(agent("alpha", [archive_tool(runs), archive_tool(allowed, "plain_note")], calls, "done"), entry)
    assert len(runs) == _expected(denied, 2)
    assert allowed == ["b"]


@BOTH
def test_scoped_deny_in_a_run_on_another_thread(denied: bool) -> None:
    """A scoped deny around a run the app starts on its own thread (the context copied there)."""
    import contextvars

    runs: list[Any] = []
    box: list[Any] = []
    with scoped_hooks():
        if denied:
            register_scoped(P.PRE_TOOL_CALL, refuse, tools=["archive_note"])
        worker = agent("alpha", [archive_tool(runs)], [function_call("archive_note", note="x")], "done")
        context = contextvars.copy_context()
        thread = threading.Thread(target=lambda: box.append(context.run(run, worker)))
        thread.start()
        thread.join()
    assert box == ["done"]
    assert len(runs) == _expected(denied)


# -- handoffs, approvals ------------------------------------------------------------------------------------------


@BOTH
def test_tool_of_the_agent_handed_off_to(denied: bool) -> None:
    runs: list[Any] = []
    deny("archive_note", denied, agents=["clerk"])
    clerk = agent("clerk", [archive_tool(runs)], [function_call("archive_note", note="x")], "filed")
    front = agent("front", [], [function_call("transfer_to_clerk", "call_h")], "unused", handoffs=[clerk])
    assert run(front) == "filed"
    assert len(runs) == _expected(denied)


@BOTH
def test_tool_approved_through_the_sdks_approval_flow(denied: bool) -> None:
    runs: list[Any] = []
    tool = dataclasses.replace(archive_tool(runs), needs_approval=True)
    worker = agent("alpha", [tool], [function_call("archive_note", note="x")], "done")
    first = Runner.run_sync(worker, "go")
    assert first.interruptions, "the SDK did not ask for approval"
    deny("archive_note", denied)  # registered while the run waits for its approval
    state = first.to_state()
    state.approve(first.interruptions[0])
    assert Runner.run_sync(worker, state).final_output == "done"
    assert len(runs) == _expected(denied)


# -- registration timing ------------------------------------------------------------------------------------------


@BOTH
def test_deny_registered_by_a_tool_mid_run(denied: bool) -> None:
    """A kill-switch tool registers the deny; the next turn's call of the tool is refused."""
    runs: list[Any] = []

    @function_tool
    def kill_switch() -> str:
        """Stop all archiving."""
        if denied:
            register_hook(P.PRE_TOOL_CALL, refuse, tools=["archive_note"])
        return "stopped"

    turns = [[function_call("kill_switch", "call_k")], [function_call("archive_note", note="x")], "done"]
    run(agent("alpha", [kill_switch, archive_tool(runs)], *turns))
    assert len(runs) == _expected(denied)


@BOTH
def test_deny_registered_by_an_async_tool_mid_streamed_run(denied: bool) -> None:
    """The same kill switch, ``async def`` tools, in a streamed run (its loop is a background task)."""
    runs: list[Any] = []

    @function_tool
    async def kill_switch() -> str:
        """Stop all archiving."""
        if denied:
            register_hook(P.PRE_TOOL_CALL, refuse, tools=["archive_note"])
        return "stopped"

    archive_note = async_archive_tool(runs)

    turns = [[function_call("kill_switch", "call_k")], [function_call("archive_note", "call_a", note="x")], "done"]
    run(agent("alpha", [kill_switch, archive_note], *turns), "stream")
    assert len(runs) == _expected(denied)


# -- install orders -------------------------------------------------------------------------------------------------


@BOTH
@pytest.mark.parametrize("entry", ENTRIES)
def test_tools_and_agent_built_before_install(entry: str, denied: bool) -> None:
    adapters.uninstall("openai-agents")
    runs: list[Any] = []
    custom: list[Any] = []
    worker = agent("alpha", [archive_tool(runs), _custom(custom, False)],
                   [function_call("archive_note", note="x"), custom_call("archive_note", "y", "call_2")], "done")
    adapters.install("openai-agents")
    deny("archive_note", denied)
    run(worker, entry)
    assert (len(runs), len(custom)) == (_expected(denied), _expected(denied))


@BOTH
def test_uninstall_and_reinstall(denied: bool) -> None:
    runs: list[Any] = []
    custom: list[Any] = []
    worker = agent("alpha", [archive_tool(runs), _custom(custom, False)],
                   [function_call("archive_note", note="x"), custom_call("archive_note", "y", "call_2")], "done")
    adapters.uninstall("openai-agents")
    adapters.install("openai-agents")
    deny("archive_note", denied)
    run(worker)
    assert (len(runs), len(custom)) == (_expected(denied), _expected(denied))


def test_uninstall_puts_every_body_back() -> None:
    """After uninstall the tools hold their own bodies again and a registered deny does nothing."""
    runs: list[Any] = []
    tool, custom = archive_tool(runs), _custom(runs, False)
    assert isinstance(tool.on_invoke_tool, BodyGuard) and isinstance(custom.on_invoke_tool, BodyGuard)
    adapters.uninstall("openai-agents")
    assert not isinstance(tool.on_invoke_tool, BodyGuard) and not isinstance(custom.on_invoke_tool, BodyGuard)
    deny("archive_note")
    run(agent("alpha", [tool, custom], [function_call("archive_note", note="x"),
                                        custom_call("archive_note", "y", "call_2")], "done"))
    assert sorted(runs) == ["x", "y"], "an uninstalled adapter still refused a tool"


# -- one decision per call: the two layers never dispatch twice --------------------------------------------------


@pytest.mark.parametrize("entry", ENTRIES)
def test_each_call_is_dispatched_once_across_both_layers(entry: str) -> None:
    """Call site + body: one PRE per call; an agent as tool and its sub-agent's same-named tool: two."""
    seen: list[tuple[str, Any]] = []

    @on(P.PRE_TOOL_CALL)
    def count(ctx: Any) -> None:
        seen.append((ctx.tool_name, ctx.agent_role))

    runs: list[Any] = []
    records = agent("records", [archive_tool(runs)], [function_call("archive_note", note="n")], "filed")
    boss = agent("boss", [records.as_tool("archive_note", "Archive through the records agent."),
                          _custom(runs, True)],
                 [function_call("archive_note", input="go"), custom_call("archive_note", "raw", "call_2")], "done")
    run(boss, entry)
    assert sorted(runs) == ["n", "raw"]
    assert sorted(seen) == [("archive_note", "boss"), ("archive_note", "boss"), ("archive_note", "records")]


@pytest.mark.parametrize("mine", [False, True], ids=["other-agent", "this-agent"])
def test_body_dispatch_knows_the_agent(mine: bool) -> None:
    """A deny for one agent: the body-only route (CustomTool) refuses that agent's call, no other's."""
    runs: list[Any] = []
    deny("archive_note", agents=["alpha" if mine else "someone-else"])
    run(agent("alpha", [_custom(runs, False)], [custom_call("archive_note", "x")], "done"))
    assert len(runs) == (0 if mine else 1)


@BOTH
def test_body_route_with_a_plain_wrap_hook(denied: bool) -> None:
    """A plain ``def`` wrap hook on the body-only route: it runs on hookport's worker; not calling
    ``call_next`` keeps the tool from running, and its answer is the tool's output."""
    runs: list[Any] = []

    @on("wrap_tool_call", tools=["archive_note"])
    def gate(ctx: Any, call_next: Any) -> Any:
        return "gated" if denied else call_next(ctx)

    worker = agent("alpha", [_custom(runs, True)], [custom_call("archive_note", "x")], "done")
    run(worker)
    assert len(runs) == _expected(denied)
    assert outputs_sent(worker.model)["call_1"] == ("gated" if denied else "archived x")  # type: ignore[arg-type]
