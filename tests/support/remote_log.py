"""The set-up the remote-code bypass tests share (llama-index's and smolagents'): `RemoteLog`.

Their tools run in a child Python process, where no counter of this process reaches, so a
tool writes a line per real execution to the file an environment variable names; the test
starts the child with `RemoteLog.env` and counts `RemoteLog.lines`. The tools' bodies stay
in each suite: their source is what is shipped to the child, so it must be self-contained.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class RemoteLog:
    """A file the remote side's tools append a line to each time one of them really runs."""

    path: Path
    variable: str
    """The environment variable the tools read the file's path from."""

    def env(self) -> dict[str, str]:
        """This process's environment, and `variable` naming the file: what the child is started with."""
        return {**os.environ, self.variable: str(self.path)}

    def lines(self) -> list[str]:
        """The lines the tools wrote, in order (none while no tool ran)."""
        return self.path.read_text().split("\n")[:-1] if self.path.exists() else []
