"""Every fenced python and bash block of README.md and docs/ runs as written, or is a marked fragment.

One test per block, named by its page and line (``docs/cli.md:22``). A block runs
in a fresh process in a copy of examples/ (tests/docs/sandbox.py says how); a
failure shows the block with the page's line numbers and what it printed. A
block marked ``<!-- fragment: why -->`` is not run, but it must still parse. No
block is ever skipped: tests/docs/conftest.py turns a skip here into a failure.

The blocks import frameworks and the offline agent, so they run in the
``docs-run`` tox env, which installs every framework (HOOKPORT_DOCS_RUN=1);
elsewhere this module is not collected.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.docs import sandbox
from tests.docs.blocks import LANGUAGES, ROOT, Block, all_blocks, pages, stray_markers

if os.environ.get("HOOKPORT_DOCS_RUN") != "1":
    pytest.skip("the docs blocks run in the docs-run tox env (every framework installed)", allow_module_level=True)

BLOCKS = all_blocks()
FEWEST = 60
"""The pages held 61 such blocks when this test was written: finding fewer means the extractor broke."""


def _text(output: str | bytes | None) -> str:
    return output.decode(errors="replace") if isinstance(output, bytes) else output or ""


def _shown(block: Block, done: object, what: str) -> str:
    out, err = _text(getattr(done, "stdout", None)), _text(getattr(done, "stderr", None))
    return (
        f"{block.id}: {what}\n--- the block ({block.language}) ---\n{block.numbered()}\n"
        f"--- stdout ---\n{out[-4000:]}\n--- stderr ---\n{err[-6000:]}"
    )


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.fragment is None], ids=lambda b: b.id)
def test_block_runs_as_written(block: Block, tmp_path: Path) -> None:
    try:
        done = sandbox.run(block, tmp_path)
    except subprocess.TimeoutExpired as timed_out:
        pytest.fail(_shown(block, timed_out, f"still running after {sandbox.TIMEOUT:.0f}s"))
    assert done.returncode == 0, _shown(block, done, f"exit status {done.returncode}")


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.fragment is not None], ids=lambda b: b.id)
def test_fragment_parses(block: Block) -> None:
    """A fragment is reported, not run; pseudo-code that is not even valid syntax is still an error."""
    error = sandbox.syntax_error(block)
    assert error is None, f"{block.id}: a fragment that does not parse: {error}\n{block.numbered()}"


def test_the_extractor_finds_every_block() -> None:
    """Counted a second, simpler way (every opening fence line of a runnable language), and not too few."""
    opening = re.compile(rf"^\s*(`{{3,}}|~{{3,}})\s*({'|'.join(LANGUAGES)})\b", re.I)
    counted = sum(
        1 for page in pages() for line in page.read_text(encoding="utf-8").splitlines() if opening.match(line)
    )
    assert len(BLOCKS) == counted
    assert len(BLOCKS) >= FEWEST, f"only {len(BLOCKS)} blocks found in {len(pages())} pages"
    assert {b.language for b in BLOCKS} == {"python", "bash"}


def test_every_fragment_marker_marks_a_block() -> None:
    """A marker separated from its fence (a blank line, a prose line) marks nothing, and the block would run."""
    stray = [where for page in pages() for where in stray_markers(page, ROOT)]
    assert not stray, f"fragment markers not on the line right before a python/bash fence: {stray}"

