"""A remote executor whose remote side is a Python process of its own, on this machine.

smolagents' remote executors (E2B, Docker, Modal, Blaxel) differ only in how they reach
their kernel: ``RemotePythonExecutor`` sends the tools' source (``send_tools``), the
agent's state (``send_variables``) and each code action through ``run_code_raise_errors``,
and reads back the logs, the last expression's value and the ``FinalAnswerException`` that
the final answer raises remotely. `ProcessExecutor` is that transport to a child Python
process (a persistent namespace, as a kernel keeps; offline, ``!pip install`` gives a
package missing here an empty stand-in module), so every test runs smolagents' own
executor code and the tools really run in another process. The tools write a line per
run to the file ``$ARCHIVE_LOG`` names (`archive_log`).
"""

from __future__ import annotations

import base64
import inspect
import json
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

from smolagents import Tool
from smolagents.monitoring import AgentLogger, LogLevel
from smolagents.remote_executors import RemotePythonExecutor
from smolagents.utils import AgentError

from tests.adapters.smolagents.tools import text_tool
from tests.support.remote_log import RemoteLog

_CHILD = r"""
import ast, contextlib, importlib.util, io, json, sys, types
namespace = {"__name__": "__main__"}


def stand_in(name):
    module = types.ModuleType(name)
    module.__getattr__ = lambda attr: type(attr, (), {})
    return module


for line in sys.stdin:
    code = json.loads(line)["code"]
    out, answer = io.StringIO(), {"result": None, "final": None, "error": None}
    if code.lstrip().startswith("!pip install"):  # offline: a package missing here gets a stand-in module
        for package in code.split()[2:]:
            module = {"pillow": "PIL"}.get(package, package)
            if importlib.util.find_spec(module) is None:
                sys.modules[module] = stand_in(module)
        code = ""
    try:
        tree = ast.parse(code)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        with contextlib.redirect_stdout(out):
            exec(compile(tree, "<remote>", "exec"), namespace)
            if last is not None:
                value = eval(compile(ast.Expression(last.value), "<remote>", "eval"), namespace)
                answer["result"] = value if isinstance(value, (str, int, float, bool, type(None))) else repr(value)
    except BaseException as error:
        if type(error).__name__ == "FinalAnswerException":
            answer["final"] = error.value
        else:
            answer["error"] = type(error).__name__ + ": " + str(error)
    answer["logs"] = out.getvalue()
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
"""

_SIGNATURE = inspect.signature(RemotePythonExecutor.run_code_raise_errors).parameters
_TUPLES = "return_final_answer" in _SIGNATURE
"""smolagents 1.15: ``run_code_raise_errors(code, return_final_answer)`` answers ``(output, logs)``."""


class ProcessExecutor(RemotePythonExecutor):
    """``RemotePythonExecutor`` over a child process's stdin and stdout."""

    def __init__(self, log: RemoteLog) -> None:
        super().__init__(additional_imports=[], logger=AgentLogger(LogLevel.OFF))
        self.sent: list[str] = []
        self._child = subprocess.Popen(
            [sys.executable, "-u", "-c", _CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            env=log.env(),
        )

    def _ask(self, code: str) -> dict[str, Any]:
        self.sent.append(code)
        assert self._child.stdin is not None and self._child.stdout is not None
        self._child.stdin.write(json.dumps({"code": code}) + "\n")
        self._child.stdin.flush()
        return json.loads(self._child.stdout.readline())

    def run_code_raise_errors(self, code: str, return_final_answer: bool = False) -> Any:
        answer = self._ask(code)
        if answer["error"]:
            raise AgentError(f"{answer['logs']}\nExecuting code yielded an error:\n{answer['error']}", self.logger)
        if _TUPLES:
            return answer["result"], answer["logs"]
        from smolagents.local_python_executor import CodeOutput

        if answer["final"] is not None:
            value = answer["final"]
            if hasattr(self, "_deserialize_final_answer"):  # 1.2x: "safe:..." (or "pickle:...")
                output = self._deserialize_final_answer(value, getattr(self, "allow_pickle", False))
            else:  # 1.20: a base64 pickle
                output = pickle.loads(base64.b64decode(value))
            return CodeOutput(output=output, logs=answer["logs"], is_final_answer=True)
        return CodeOutput(output=answer["result"], logs=answer["logs"], is_final_answer=False)

    def cleanup(self) -> None:
        if self._child.poll() is None:
            assert self._child.stdin is not None
            self._child.stdin.close()
            self._child.wait(timeout=10)


@text_tool("archive_note", "Archive a note.", note="the note")
class RemoteArchiveTool(Tool):
    """A tool smolagents can send: its source is self-contained (it runs in the remote process)."""

    def forward(self, note: str) -> str:
        import os

        with open(os.environ["ARCHIVE_LOG"], "a") as log:
            log.write(note + "\n")
        return "archived " + note


def archive_log(folder: Path) -> RemoteLog:
    """Where the remote process's `RemoteArchiveTool` writes the notes it archived (``$ARCHIVE_LOG``)."""
    return RemoteLog(folder / "archived.log", "ARCHIVE_LOG")
