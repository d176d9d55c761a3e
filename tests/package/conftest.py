"""Helpers for the package tests: uv, fresh venvs outside the checkout, commands run there."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def uv() -> list[str]:
    found = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if found is None:
        pytest.fail("the package tests need uv (the `package` tox env installs it)")
    return [found]


def clean_environment() -> dict[str, str]:
    """This process's environment without anything that points Python at the checkout or a venv."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env = {k: v for k, v in env.items() if not k.startswith("HOOKPORT_")}
    return env


def run(command: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        command, cwd=cwd, env=clean_environment(), capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done


def make_venv(where: Path) -> Path:
    """A fresh venv on this Python; returns its python."""
    run([*uv(), "venv", "--quiet", "--python", sys.executable, str(where)], cwd=where.parent)
    return where / "bin" / "python"
