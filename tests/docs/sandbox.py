"""Where and how a docs block runs: a fresh process in a copy of examples/, as a reader would.

The reader's setup is a clone with hookport installed, working in examples/ (the
offline agent, the hook modules, the policy file and the app the pages name).
Each block gets its own copy of that folder, so a block's files and state never
reach the next one. A Python block runs as a script, or under pytest when it
defines tests (the pages' test examples are tests); a shell block runs under
``bash -e``, with this environment's ``python`` and ``hookport`` first on PATH.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.docs.blocks import ROOT, Block

EXAMPLES = ROOT / "examples"
TIMEOUT = 240.0
"""Seconds per block: importing a framework (crewai, google-adk) on a loaded 2-core machine takes a while."""
OFFLINE = {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "AGNO_TELEMETRY": "false", "HF_HUB_DISABLE_TELEMETRY": "1"}
"""Beside the root conftest's telemetry switches (already in os.environ): what the frameworks the
blocks import would otherwise fetch or send at import (LiteLLM's price list, Agno's and HF's telemetry)."""
TESTS = re.compile(r"^(?:async\s+)?def test_\w*\(", re.M)


def prepare(where: Path) -> Path:
    """A copy of examples/ at `where`: the working directory of one block."""
    shutil.copytree(EXAMPLES, where, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    return where


def environment() -> dict[str, str]:
    """The test's environment (telemetry off, the offline API key) with this Python's scripts first
    on PATH and no HOOKPORT_* setting of the caller's leaking into the block."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOOKPORT_") and k != "PYTHONPATH"}
    env.update({k: v for k, v in OFFLINE.items() if k not in env})
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def command(block: Block, where: Path) -> list[str]:
    """Write the block into `where` and return the command that runs it."""
    if block.language == "bash":
        (where / "block.sh").write_text(block.code, encoding="utf-8")
        return ["bash", "-e", "block.sh"]
    if TESTS.search(block.code):
        (where / "test_block.py").write_text(block.code, encoding="utf-8")
        return [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:hypothesispytest",
                "test_block.py"]
    (where / "block.py").write_text(block.code, encoding="utf-8")
    return [sys.executable, "block.py"]


def run(block: Block, where: Path) -> subprocess.CompletedProcess[str]:
    prepare(where)
    return subprocess.run(command(block, where), cwd=where, env=environment(), capture_output=True, text=True,
                          timeout=TIMEOUT, stdin=subprocess.DEVNULL)


def syntax_error(block: Block) -> str | None:
    """A fragment need not run, but it must parse: pseudo-code reads as code and misleads."""
    if block.language == "bash":
        done = subprocess.run(["bash", "-n"], input=block.code, capture_output=True, text=True)
        return (done.stderr.strip() or "bash -n failed") if done.returncode else None
    try:
        compile(block.code, block.id, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
    except SyntaxError as error:
        return f"{error.msg} (line {block.line + (error.lineno or 0)})"
    return None
