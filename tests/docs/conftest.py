"""No docs block is skipped, and the run says how many blocks ran and which are fragments.

A block either runs or carries a fragment marker; a skip (an importorskip in a
block's test, a missing framework) would hide a block that does not run, so
here it fails instead, with the way out.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

_HERE = "tests/docs/"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome: Any = yield
    report = outcome.get_result()
    if report.skipped and item.nodeid.startswith(_HERE) and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = (
            f"{item.nodeid} was skipped ({report.longrepr}); a docs block must run or be marked "
            "<!-- fragment: why --> on the line before its fence"
        )


def pytest_terminal_summary(terminalreporter: Any) -> None:
    from tests.docs.blocks import all_blocks

    ran = [r for key in ("passed", "failed") for r in terminalreporter.stats.get(key, [])
           if "test_block_runs_as_written" in r.nodeid and r.when == "call"]
    if not ran:
        return
    passed = [r for r in ran if r.passed]
    fragments = [b for b in all_blocks() if b.fragment is not None]
    terminalreporter.write_sep("-", f"docs blocks: {len(passed)} ran and passed, {len(fragments)} fragments")
    for block in fragments:
        terminalreporter.write_line(f"  fragment {block.id}: {block.fragment or '(no reason given)'}")
