"""The examples the CrewAI docs and demo show are run, so they cannot rot."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from hookport import HookAborted, adapters
from tests.adapters.crewai.harness import CrewAIHarness
from tests.conformance.harness import Turn

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "frameworks" / "crewai.md"


def example(marker: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    found = re.search(rf"<!-- example: {marker} -->\s*```python\n(.*?)```", text, re.S)
    assert found, f"no example {marker!r} in {DOC}"
    return found.group(1)


def test_ported_hook_module_runs_on_crewai(uninstalled: None) -> None:
    namespace: dict[str, Any] = {"__name__": "policies"}
    exec(compile(example("crewai-port"), "policies.py", "exec"), namespace)
    try:
        assert "crewai" in adapters.installed()
        harness = CrewAIHarness()

        refused = harness.run([Turn.call("purge_records", table="users"), Turn.final("The SECRET is safe.")])
        refused.raise_error()
        assert refused.runs_of("purge_records") == []
        assert "Tool execution blocked by hook. Tool: purge_records" in refused.seen_by_model()
        assert refused.output == "The [redacted] is safe."

        intern = harness.run([Turn.final("never")], agent="intern")
        assert isinstance(intern.error, HookAborted) and intern.error.source == "policy"
        assert intern.model_inputs == []
    finally:
        adapters.uninstall("crewai")


def test_quickstart_demo_prints_its_trace() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "quickstart_crewai.py")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    assert "praisonai before_tool  read_file" in out and "praisonai before_tool  delete_file" in out
    assert "crewai before_tool     refused delete_file" in out
    assert "tool                   read_file ran on notes.txt" in out
    assert "this must never print" not in out
    assert "Tool execution blocked by hook. Tool: delete_file" in out
    assert "[card number redacted]" in out and "4111" not in out.split("The crew's final answer:")[1]
    assert "notes.txt still exists: True" in out
