"""Bypass attempts on a ``CodeActAgent`` whose ``code_execute_fn`` runs the code in another process.

`ProcessExecutor` is the shape of a sandbox executor: it ships the tools' source ahead of
the code and runs both in a child Python process, where no guard of this process is. Each
test counts the lines the refused tool wrote there: 0 with the deny, and the twin (no
deny) shows the code really reached the tool.
"""

import asyncio
import inspect
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core.agent.workflow import CodeActAgent  # noqa: E402

from hookport import HookAborted, InterceptionPoint, register_hook, scoped_hooks, register_scoped  # noqa: E402
from hookport.adapters.llama_index._code import runs_here  # noqa: E402
from hookport.contexts import ToolCallHookContext  # noqa: E402
from tests.adapters.llama_index.harness import SYSTEM_PROMPT, run_agent, scripted_llm  # noqa: E402
from tests.adversarial.llama_index.test_bypass import (  # noqa: E402
    REFUSAL, SimpleCodeExecutor, closure_executor, module_executor, refuse,
)
from tests.conformance.harness import Turn  # noqa: E402
from tests.support.remote_log import RemoteLog  # noqa: E402

P = InterceptionPoint
DENY = pytest.mark.parametrize("deny", [False, True], ids=["twin", "deny"])
HIDDEN = "hookport cannot tell which tools this code calls"


def purge_records(table: str) -> str:
    """Delete every record of a table."""
    import os

    with open(os.environ["PURGE_LOG"], "a") as log:
        log.write(table + "\n")
    return "purged " + table


def add_numbers(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


class ProcessExecutor:
    """Runs each code action in a child Python process, the tools' source shipped ahead of it."""

    def __init__(self, log: RemoteLog) -> None:
        self.tools = {"purge_records": purge_records, "add_numbers": add_numbers}
        self.source = "\n\n".join(inspect.getsource(f) for f in self.tools.values())
        self.env = log.env()
        self.sent: list[str] = []

    async def execute(self, code: str) -> str:
        self.sent.append(code)
        child = await asyncio.create_subprocess_exec(
            sys.executable, "-c", self.source + "\n\n" + code, env=self.env,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
        output, _ = await child.communicate()
        return output.decode()


@pytest.fixture(autouse=True)
def _installed(llama_index_adapter: object) -> Iterator[None]:
    """The adapter installed for every test here, also when this file runs alone."""
    yield


@pytest.fixture
def log(tmp_path: Path) -> RemoteLog:
    """Where the child process's `purge_records` writes the tables it purged (``$PURGE_LOG``)."""
    return RemoteLog(tmp_path / "purged.log", "PURGE_LOG")


def run_elsewhere(log: RemoteLog, code: str, name: str = "coder") -> tuple[ProcessExecutor, list[Any]]:
    executor = ProcessExecutor(log)
    requests: list[Any] = []
    llm = scripted_llm([Turn.final(f"<execute>\n{code}\n</execute>"), Turn.final("done")], requests)
    agent = CodeActAgent(name=name, code_execute_fn=executor.execute, tools=[purge_records, add_numbers], llm=llm,
                         system_prompt=SYSTEM_PROMPT)
    asyncio.run(run_agent(agent, "purge", "sync"))
    return executor, requests


FORMS = {
    "call": ("print(purge_records('users'))", 1),
    "keywords": ("purge_records(table='users')", 1),
    "with-an-allowed-tool": ("print(add_numbers(1, 2))\nprint(purge_records('users'))", 1),
    "in-a-loop": ("for t in ['a', 'b']:\n    purge_records(t)", 2),
    "aliased": ("wipe = purge_records\nwipe('users')", 1),
}


@DENY
@pytest.mark.parametrize("form", list(FORMS))
def test_code_run_elsewhere_calling_the_tool(deny: bool, form: str, log: RemoteLog) -> None:
    code, calls = FORMS[form]
    if deny:
        register_hook(P.PRE_TOOL_CALL, refuse, tools=["purge_records"])
    executor, requests = run_elsewhere(log, code)
    assert len(log.lines()) == (0 if deny else calls)
    assert executor.sent == ([] if deny else [code])  # a refused action never leaves this process
    assert (REFUSAL in json.dumps(requests[-1])) is deny


HIDDEN_FORMS = {
    "globals": "globals()['purge_' + 'records']('users')",
    "exec": "exec('purge_' + 'records(\"users\")')",
    "computed-getattr": "import sys\ngetattr(sys.modules[__name__], 'purge_' + 'records')('users')",
}


@DENY
@pytest.mark.parametrize("form", list(HIDDEN_FORMS))
def test_code_run_elsewhere_hiding_the_tool_is_refused(deny: bool, form: str, log: RemoteLog) -> None:
    if deny:
        register_hook(P.PRE_TOOL_CALL, refuse, tools=["purge_records"])
    _, requests = run_elsewhere(log, HIDDEN_FORMS[form])
    assert len(log.lines()) == (0 if deny else 1)
    assert (HIDDEN in json.dumps(requests[-1])) is deny


def test_an_argument_based_deny_sees_the_literal_arguments(log: RemoteLog) -> None:
    def no_secret(ctx: ToolCallHookContext) -> None:
        if ctx.tool_input.get("table") == "secret":
            raise HookAborted(reason="the secret table is protected", source="test")

    register_hook(P.PRE_TOOL_CALL, no_secret, tools=["purge_records"])
    run_elsewhere(log, "purge_records('public')")
    run_elsewhere(log, "purge_records(table='secret')")
    assert log.lines() == ["public"]


@DENY
def test_scoped_deny_and_agent_filter(deny: bool, log: RemoteLog) -> None:
    with scoped_hooks():
        register_scoped(P.PRE_TOOL_CALL, refuse, tools=["purge_records"], agents=["coder" if deny else "someone"])
        run_elsewhere(log, "purge_records('users')")
    assert len(log.lines()) == (0 if deny else 1)


def test_which_executors_run_the_code_here() -> None:
    """The guards in the namespaces see an executor that calls ``exec``; one that ships the code does not."""
    assert runs_here(SimpleCodeExecutor(locals={}, globals={}).execute)
    assert runs_here(closure_executor({}))
    assert runs_here(module_executor)
    assert not runs_here(ProcessExecutor(RemoteLog(Path("unused"), "PURGE_LOG")).execute)
