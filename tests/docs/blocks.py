"""The fenced code blocks of README.md and docs/, as the docs test runs them.

A block is a fence whose language is a Python or a shell one (```python, ```bash
and their aliases, so a block cannot escape the test by its spelling). A block
that is not meant to run as written says so on the line right before its fence:

    <!-- fragment -->
    <!-- fragment: why it cannot run as written -->

Everything else is run (tests/docs/test_code_blocks.py).
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LANGUAGES = {"python": "python", "py": "python", "python3": "python", "bash": "bash", "sh": "bash", "shell": "bash",
             "zsh": "bash"}
"""Fence languages the test runs, and as what."""

FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})\s*(?P<lang>[\w+-]*)")
FRAGMENT = re.compile(r"^\s*<!--\s*fragment(?:\s*:\s*(?P<why>.*?))?\s*-->\s*$")


@dataclass(frozen=True)
class Block:
    """One fenced block: where it is, what it holds, and whether it is a marked fragment."""

    path: str
    """Relative to the repository root (``docs/cli.md``)."""
    line: int
    """The line of the opening fence, from 1."""
    language: str
    """``python`` or ``bash`` (an alias such as ``sh`` is read as the language it is)."""
    code: str
    fragment: str | None
    """None for a block that runs; the marker's reason (possibly empty) for a fragment."""

    @property
    def id(self) -> str:
        return f"{self.path}:{self.line}"

    def numbered(self) -> str:
        """The block with the page's own line numbers, for a failure message."""
        return "\n".join(f"{self.line + i:5} | {text}" for i, text in enumerate(self.code.splitlines(), 1))


def pages(root: Path = ROOT) -> list[Path]:
    """README.md and every page under docs/ (compat-matrix.md is generated and has no code)."""
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def extract(path: Path, root: Path = ROOT) -> list[Block]:
    """The runnable-language blocks of one Markdown file, in order."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        fence, indent = opening["fence"], len(opening["indent"])
        end = index + 1
        while end < len(lines) and not _closes(lines[end], fence, indent):
            end += 1
        language = LANGUAGES.get(opening["lang"].lower())
        if language:
            marker = FRAGMENT.match(lines[index - 1]) if index else None
            found.append(
                Block(
                    path=path.relative_to(root).as_posix(),
                    line=index + 1,
                    language=language,
                    code=textwrap.dedent("\n".join(lines[index + 1 : end])) + "\n",
                    fragment=(marker["why"] or "") if marker else None,
                )
            )
        index = end + 1
    return found


def all_blocks(root: Path = ROOT) -> list[Block]:
    return [block for page in pages(root) for block in extract(page, root)]


def stray_markers(path: Path, root: Path = ROOT) -> list[str]:
    """Fragment markers that mark nothing: not right before a Python or shell fence."""
    lines = path.read_text(encoding="utf-8").splitlines()
    stray = []
    for index, text in enumerate(lines):
        if FRAGMENT.match(text):
            following = FENCE.match(lines[index + 1]) if index + 1 < len(lines) else None
            if not following or following["lang"].lower() not in LANGUAGES:
                stray.append(f"{path.relative_to(root).as_posix()}:{index + 1}")
    return stray


def _closes(text: str, fence: str, indent: int) -> bool:
    stripped = text.strip()
    return (
        len(text) - len(text.lstrip()) <= indent + 3
        and stripped.startswith(fence[0] * len(fence))
        and not stripped.strip(fence[0])
    )
