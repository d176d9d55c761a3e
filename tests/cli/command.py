"""Run the installed ``hookport`` command (the console script next to this Python, else ``-m``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def hookport_command() -> list[str]:
    script = Path(sys.executable).parent / "hookport"
    return [str(script)] if script.exists() else [sys.executable, "-m", "hookport.cli"]


def hookport(*arguments: str, cwd: Path | None = None, timeout: float = 60, **env: str) -> subprocess.CompletedProcess[str]:
    """``hookport ARGUMENTS...`` with no HOOKPORT_* setting inherited (plus `env`)."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("HOOKPORT_")}
    environ.update(env)
    return subprocess.run([*hookport_command(), *arguments], cwd=cwd, env=environ, capture_output=True, text=True,
                          timeout=timeout, check=False)
