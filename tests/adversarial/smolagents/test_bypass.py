"""Bypass attempts on the smolagents adapter: every path that runs a tool inside an agent run.

Each test counts the refused tool's real executions: 0 with the deny, and its twin
(``deny=False``) shows the same path really reaches the tool (1+). The model is the
scripted OpenAI-compatible server of the conformance harness; CodeAgents get code.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

smolagents = pytest.importorskip("smolagents")

from smolagents import CodeAgent, Tool, ToolCallingAgent, tool  # noqa: E402

from hookport import (  # noqa: E402
    HookAborted, InterceptionPoint, adapters, register_hook, register_scoped, scoped_hooks, unregister_hook,
)
from hookport.contexts import ToolCallHookContext  # noqa: E402
from tests.adapters.smolagents.harness import SERVER, as_final_answer_calls, build_model, drain  # noqa: E402
from tests.adapters.smolagents.tools import text_tool  # noqa: E402
from tests.conformance.harness import ToolCall, Turn  # noqa: E402

P = InterceptionPoint
QUIET = -1
RUNS: list[tuple[str, Any]] = []


def refuse(ctx: ToolCallHookContext) -> None:
    raise HookAborted(reason="archiving is not allowed", source="test")


@pytest.fixture(autouse=True)
def _installed(smolagents_adapter: Any) -> Iterator[None]:
    RUNS.clear()
    yield
    RUNS.clear()


@pytest.fixture
def deny_archive(request: pytest.FixtureRequest) -> Iterator[bool]:
    deny = request.param
    if deny:
        register_hook(P.PRE_TOOL_CALL, refuse, tools=["archive_note"])
    yield deny
    if deny:
        unregister_hook(P.PRE_TOOL_CALL, refuse)


def runs() -> int:
    return sum(1 for name, _ in RUNS if name == "archive_note")


def expected(deny: bool, calls: int = 1) -> int:
    return 0 if deny else calls


def make_archive(label: str = "archive_note") -> Any:
    @tool
    def archive_note(note: str) -> str:
        """Archive a note.

        Args:
            note: the note to archive
        """
        RUNS.append((label, note))
        return f"archived {note}"

    return archive_note


archive_tool = text_tool("archive_note", "Archive a note.", note="the note")


@archive_tool
class ArchiveTool(Tool):
    def forward(self, note: str) -> str:
        RUNS.append(("archive_note", note))
        return f"archived {note}"


@archive_tool
class LooseArchiveTool(Tool):
    """The shape of ``Tool.from_langchain`` and MCP tool collections: ``forward(*args, **kwargs)``."""

    skip_forward_signature_validation = True

    def forward(self, *args: Any, **kwargs: Any) -> str:
        RUNS.append(("archive_note", (args, kwargs)))
        return "archived"


class OwnCallTool(ArchiveTool):
    """A tool overriding ``__call__`` (as ``PipelineTool`` does): no call site sees it."""

    def __call__(self, *args: Any, sanitize_inputs_outputs: bool = False, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)


def code(source: str) -> Turn:
    return Turn.final(f"Thought: go.\n```py\n{source}\n```")


def code_agent(tools: list[Any], name: str = "alpha", **options: Any) -> Any:
    return CodeAgent(tools=tools, model=build_model(SERVER), name=name, max_steps=3, verbosity_level=QUIET, **options)


def calling_agent(tools: list[Any], name: str = "alpha", **options: Any) -> Any:
    return ToolCallingAgent(tools=tools, model=build_model(SERVER), name=name, max_steps=4, verbosity_level=QUIET,
                            **options)


def run_calling(tools: list[Any], turns: list[Turn], *, stream: bool = False, name: str = "alpha") -> Any:
    SERVER.script(as_final_answer_calls(turns))
    agent = calling_agent(tools, name)
    return drain(agent.run("Archive it.", stream=True)) if stream else agent.run("Archive it.")


def run_code(tools: list[Any], source: str, *, name: str = "alpha", **options: Any) -> Any:
    SERVER.script([code(source), code('final_answer("done")')])
    return code_agent(tools, name, **options).run("Archive it.")


ARCHIVE = [Turn.call("archive_note", note="weekly summary"), Turn.final("done")]
both = pytest.mark.parametrize("deny_archive", [False, True], ids=["twin", "deny"], indirect=True)


# -- ToolCallingAgent: entries and tool forms ----------------------------------------------------


@both
@pytest.mark.parametrize("stream", [False, True], ids=["run", "stream"])
@pytest.mark.parametrize("form", ["function", "class", "loose", "own_call"])
def test_tool_calling_agent(deny_archive: bool, stream: bool, form: str) -> None:
    made = {"function": make_archive, "class": ArchiveTool, "loose": LooseArchiveTool, "own_call": OwnCallTool}[form]()
    run_calling([made], ARCHIVE, stream=stream)
    assert runs() == expected(deny_archive)


@both
def test_parallel_tool_calls(deny_archive: bool) -> None:
    turns = [Turn(tool_calls=[ToolCall("archive_note", {"note": "a"}), ToolCall("archive_note", {"note": "b"})]),
             Turn.final("done")]
    run_calling([make_archive()], turns)
    import inspect

    parallel = "max_tool_threads" in inspect.signature(ToolCallingAgent.__init__).parameters
    assert runs() == expected(deny_archive, 2 if parallel else 1)  # 1.15 runs a step's first call only


@both
def test_hook_registered_after_agent_built(deny_archive: bool) -> None:
    SERVER.script(as_final_answer_calls(ARCHIVE))
    agent = calling_agent([ArchiveTool()])
    with scoped_hooks():
        if deny_archive:
            register_scoped(P.PRE_TOOL_CALL, refuse, tools=["archive_note"])
        agent.run("Archive it.")
    assert runs() == expected(deny_archive)


@pytest.mark.parametrize("deny", [False, True], ids=["twin", "deny"])
def test_uninstall_build_reinstall(deny: bool) -> None:
    """Tools and agent made while hookport was uninstalled, then installed again."""
    adapters.uninstall("smolagents")
    try:
        tools = [make_archive(), ArchiveTool()]
        SERVER.script([code('archive_note("a")'), code('final_answer("done")')])
        agent = code_agent(tools[:1])
        holder = tools[1]
    finally:
        adapters.install("smolagents")
    with scoped_hooks():
        if deny:
            register_scoped(P.PRE_TOOL_CALL, refuse, tools=["archive_note"])
        agent.run("Archive it.")
        holder.forward(note="c")  # a class made before the reinstall: its body is covered at install
    assert runs() == (0 if deny else 2)


# -- CodeAgent: generated code -------------------------------------------------------------------


@both
@pytest.mark.parametrize("form", ["function", "class"])
def test_code_agent_calls(deny_archive: bool, form: str) -> None:
    made = make_archive() if form == "function" else ArchiveTool()
    run_code([made], 'archive_note("weekly summary")\narchive_note(note="again")')
    assert runs() == expected(deny_archive, 2)


@both
def test_code_agent_extra_positional_argument(deny_archive: bool) -> None:
    """Issue 22: ``archive_note("weekly summary", "x")`` on a ``forward(*args, **kwargs)`` tool."""
    run_code([LooseArchiveTool()], 'archive_note("weekly summary", "x")')
    assert runs() == expected(deny_archive)


def test_extra_positional_arguments_are_recorded() -> None:
    seen: list[dict[str, Any]] = []
    register_hook(P.PRE_TOOL_CALL, lambda ctx: seen.append(dict(ctx.tool_input)), tools=["archive_note"])
    try:
        run_code([LooseArchiveTool()], 'archive_note("weekly summary", "x")')
    finally:
        from hookport import clear_all_hooks

        clear_all_hooks()
    assert seen == [{"note": "weekly summary", "*args": ["x"]}]
    assert RUNS == [("archive_note", (("weekly summary", "x"), {}))]


@both
def test_code_agent_tool_with_own_call(deny_archive: bool) -> None:
    """The body layer alone: generated code calling a tool whose ``__call__`` (no call site) runs
    ``forward`` itself, as ``PipelineTool`` does."""
    run_code([OwnCallTool()], 'archive_note("weekly summary")')
    assert runs() == expected(deny_archive)


@both
def test_forward_assigned_to_the_tool_object(deny_archive: bool) -> None:
    """A ``forward`` assigned to one tool object (not its class), reached past ``__call__`` by generated
    code: guarded on the object when the agent runs."""
    made = ArchiveTool()

    def own_forward(note: str) -> str:
        RUNS.append(("archive_note", note))
        return f"archived {note}"

    made.forward = own_forward
    run_code([made], 'archive_note.forward(note="weekly summary")')
    assert runs() == expected(deny_archive)
    adapters.uninstall("smolagents")
    try:
        assert made.forward is own_forward  # uninstall gives the object its own function back
    finally:
        adapters.install("smolagents")


@pytest.mark.parametrize("deny", [False, True], ids=["twin", "deny"])
def test_code_agent_scoped_deny_on_timeout_thread(deny: bool) -> None:
    """Issue 22: the default executor runs the code on its timeout thread; a scoped deny holds there."""
    with scoped_hooks():
        if deny:
            register_scoped(P.PRE_TOOL_CALL, refuse, tools=["archive_note"])
        run_code([make_archive()], 'archive_note("weekly summary")')
    assert runs() == (0 if deny else 1)


@pytest.mark.parametrize("name", ["alpha", "intern"])
def test_code_agent_agent_filter(name: str) -> None:
    """Issue 22: ``agents=["intern"]`` refuses the intern's calls and only those (no over-refusal)."""
    with scoped_hooks():
        register_scoped(P.PRE_TOOL_CALL, refuse, tools=["archive_note"], agents=["intern"])
        run_code([make_archive()], 'archive_note("weekly summary")', name=name)
    assert runs() == (0 if name == "intern" else 1)


@both
def test_code_agent_without_timeout(deny_archive: bool) -> None:
    """``executor_kwargs={"timeout_seconds": None}`` (where the release has it): the agent's own thread."""
    import inspect

    from smolagents.local_python_executor import LocalPythonExecutor

    options = {"executor_kwargs": {"timeout_seconds": None}} \
        if "timeout_seconds" in inspect.signature(LocalPythonExecutor.__init__).parameters else {}
    run_code([make_archive()], 'archive_note("weekly summary")', **options)
    assert runs() == expected(deny_archive)


# -- nested same-named tool: a boss tool running the intern --------------------------------------


@pytest.mark.parametrize("deny", [False, True], ids=["twin", "deny"])
def test_boss_tool_named_like_the_interns(deny: bool) -> None:
    """Issue 22: the boss's ``archive_note`` runs the intern, whose own ``archive_note`` is denied
    (``agents=["intern"]``): the intern's call is a call of its own, decided for the intern."""
    intern = calling_agent([make_archive("archive_note")], "intern")

    @tool
    def archive_note(note: str) -> str:
        """Archive a note, by asking the intern.

        Args:
            note: the note to archive
        """
        RUNS.append(("boss:archive_note", note))
        return str(intern.run(f"Archive {note}"))

    SERVER.script(as_final_answer_calls([Turn.call("archive_note", note="boss note"),
                                         Turn.call("archive_note", note="intern note"),
                                         Turn.final("intern done"), Turn.final("boss done")]))
    with scoped_hooks():
        if deny:
            register_scoped(P.PRE_TOOL_CALL, refuse, tools=["archive_note"], agents=["intern"])
        calling_agent([archive_note], "boss").run("Archive it.")
    assert [n for n, _ in RUNS].count("boss:archive_note") == 1
    assert runs() == (0 if deny else 1)


def required_extras(managed: Any) -> dict[str, Any]:
    """The managed agent's required inputs besides ``task``, each with an empty value of its type
    (1.15's agents declare no inputs: the boss calls them with ``task`` alone)."""
    empty = {"object": {}, "string": "", "array": []}
    return {key: empty[schema["type"]] for key, schema in getattr(managed, "inputs", {}).items()
            if key != "task" and not schema.get("nullable", False)}


@pytest.mark.parametrize("deny", [False, True], ids=["twin", "deny"])
def test_managed_agent_calls(deny: bool) -> None:
    """A managed agent (the boss calls it as a tool of its own): the intern's tool calls are hooked.

    The boss's call follows the schema the boss gave the intern: smolagents 1.20 makes
    ``additional_args`` required (1.15 has no such input, 1.26 marks it nullable), and a call
    without it stops at the argument check before the intern runs."""
    intern = calling_agent([make_archive()], "intern", description="Archives notes.")
    boss = calling_agent([], "boss", managed_agents=[intern])
    SERVER.script(as_final_answer_calls([Turn.call("intern", task="archive the note", **required_extras(intern)),
                                         Turn.call("archive_note", note="n"),
                                         Turn.final("intern done"), Turn.final("boss done")]))
    with scoped_hooks():
        if deny:
            register_scoped(P.PRE_TOOL_CALL, refuse, tools=["archive_note"], agents=["intern"])
        boss.run("Archive it.")
    assert runs() == (0 if deny else 1)
