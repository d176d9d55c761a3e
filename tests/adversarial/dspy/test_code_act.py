"""Bypass attempts on ``dspy.CodeAct``: the tools' source runs in the interpreter's own process.

CodeAct sends each tool function's source into its interpreter and runs the model's code
there. On DSPy 3.4 the interpreter is DSPy's own ``LocalInterpreter`` (a persistent
CPython worker process); before 3.4, where DSPy offers only the Deno sandbox (not on
this machine), `ProcessInterpreter` stands in for it with the same protocol. Each test
counts the lines the refused tool wrote in that process: 0 with the deny, and the twin
(no deny) shows the code really reached it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

dspy = pytest.importorskip("dspy")

from hookport import HookAborted, InterceptionPoint, register_hook  # noqa: E402
from hookport.contexts import ToolCallHookContext  # noqa: E402
from tests.adapters.dspy.harness import build_lm, chat_fields, dspy_version  # noqa: E402
from tests.conformance.harness import Turn  # noqa: E402
from tests.support.openai_server import ScriptedOpenAIServer  # noqa: E402

P = InterceptionPoint
DENY = pytest.mark.parametrize("deny", [False, True], ids=["twin", "deny"])
REFUSED = "Tool call archive_note was refused: archiving is not allowed"
HIDDEN = "hookport cannot tell which tools this code calls"


@pytest.fixture(autouse=True)
def _installed(dspy_adapter: Any) -> None:
    return None


def archive_note(note: str) -> str:
    """Archive a note (runs in the interpreter's process: it writes a line there)."""
    import os

    with open(os.environ["ARCHIVE_LOG"], "a") as log:
        log.write(note + "\n")
    return "archived " + note


def refuse(ctx: ToolCallHookContext) -> None:
    raise HookAborted(reason="archiving is not allowed", source="test")


_CHILD = r"""
import contextlib, io, json, sys
namespace = {"__name__": "__main__"}
for line in sys.stdin:
    out, answer = io.StringIO(), {"error": None}
    try:
        with contextlib.redirect_stdout(out):
            exec(json.loads(line)["code"], namespace)
    except Exception as error:
        answer["error"] = type(error).__name__ + ": " + str(error)
    answer["output"] = out.getvalue()
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
"""


class ProcessInterpreter:
    """DSPy's interpreter protocol over a persistent child Python process (the Deno sandbox's shape)."""

    def __init__(self) -> None:
        self._child = subprocess.Popen([sys.executable, "-u", "-c", _CHILD], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, text=True)

    @property
    def tools(self) -> dict[str, Any]:
        return {}

    def start(self) -> None:
        return None

    def execute(self, code: str, variables: dict[str, Any] | None = None) -> Any:
        assert self._child.stdin is not None and self._child.stdout is not None
        self._child.stdin.write(json.dumps({"code": code}) + "\n")
        self._child.stdin.flush()
        answer = json.loads(self._child.stdout.readline())
        if answer["error"]:
            raise RuntimeError(answer["error"])
        return answer["output"]

    __call__ = execute

    def shutdown(self) -> None:
        if self._child.poll() is None:
            assert self._child.stdin is not None
            self._child.stdin.close()
            self._child.wait(timeout=10)


def code_act(tools: list[Any]) -> Any:
    if dspy_version() >= (3, 4):
        from dspy.primitives import LocalInterpreter

        return dspy.CodeAct("question -> answer", tools=tools, max_iters=2, interpreter_factory=LocalInterpreter)
    if dspy_version() >= (3,):
        return dspy.CodeAct("question -> answer", tools=tools, max_iters=2, interpreter=ProcessInterpreter())
    act = dspy.CodeAct("question -> answer", tools=tools, max_iters=2)
    act.interpreter = ProcessInterpreter()  # 2.6 builds its Deno interpreter in __init__
    return act


def run(code: str, log: Path, monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """One CodeAct run whose first (and last) code action is `code`; the model's requests."""
    monkeypatch.setenv("ARCHIVE_LOG", str(log))
    server = ScriptedOpenAIServer(by_conversation=False).start()
    try:
        server.script([Turn.final(chat_fields({"generated_code": f"```python\n{code}\n```", "finished": True})),
                       Turn.final(chat_fields({"reasoning": "done", "answer": "done"}))])
        with dspy.context(lm=build_lm(server.base_url)):
            code_act([archive_note])(question="Archive it.")
        return list(server.requests)
    finally:
        server.stop()


def archived(log: Path) -> list[str]:
    return log.read_text().split("\n")[:-1] if log.exists() else []


FORMS = {
    "call": ("print(archive_note('weekly'))", 1),
    "keywords": ("archive_note(note='weekly')", 1),
    "in-a-loop": ("for n in ['a', 'b']:\n    archive_note(n)", 2),
    "aliased": ("keep = archive_note\nprint(keep('weekly'))", 1),
}


@DENY
@pytest.mark.parametrize("form", list(FORMS))
def test_code_act_code_calling_the_tool(deny: bool, form: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, calls = FORMS[form]
    if deny:
        register_hook(P.PRE_TOOL_CALL, refuse, tools=["archive_note"])
    requests = run(code, tmp_path / "archived.log", monkeypatch)
    assert len(archived(tmp_path / "archived.log")) == (0 if deny else calls)
    assert (REFUSED in json.dumps(requests[-1])) is deny  # the extractor reads the refusal


HIDDEN_FORMS = {
    "globals": "globals()['archive_' + 'note']('weekly')",
    "exec": "exec('archive_' + 'note(\"weekly\")')",
}


@DENY
@pytest.mark.parametrize("form", list(HIDDEN_FORMS))
def test_code_act_code_hiding_the_tool_is_refused(deny: bool, form: str, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    if deny:
        register_hook(P.PRE_TOOL_CALL, refuse, tools=["archive_note"])
    requests = run(HIDDEN_FORMS[form], tmp_path / "archived.log", monkeypatch)
    assert len(archived(tmp_path / "archived.log")) == (0 if deny else 1)
    assert (HIDDEN in json.dumps(requests[-1])) is deny


def test_code_act_argument_based_deny(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_secret(ctx: ToolCallHookContext) -> None:
        if ctx.tool_input.get("note") == "secret":
            raise HookAborted(reason="secret notes stay", source="test")

    register_hook(P.PRE_TOOL_CALL, no_secret, tools=["archive_note"])
    run("archive_note('public')", tmp_path / "archived.log", monkeypatch)
    run("archive_note(note='secret')", tmp_path / "archived.log", monkeypatch)
    assert archived(tmp_path / "archived.log") == ["public"]
    assert os.environ["ARCHIVE_LOG"] == str(tmp_path / "archived.log")
