"""``hookport audit verify decisions.jsonl``: is the decision log's chain whole?

Each line carries its own ``sha256`` (of its canonical JSON without it) and the
``prev_sha256`` of the line before (`hookport.policy.log`). So a line whose
content was changed no longer matches its hash; a line removed, inserted or moved
breaks the next line's ``prev_sha256`` (and ``seq``); a write cut short leaves a
last line that is not JSON or has no newline. Lines cut off the end leave a
shorter chain that is whole: pass the head you recorded (``--head``, printed by
every successful verify) to catch that too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookport.policy.log import GENESIS, line_sha256

__all__ = ["Verdict", "verify"]

REQUIRED = ("time", "run", "agent", "tool", "point", "rule", "outcome", "reason", "args_sha256", "prev_sha256", "sha256")


@dataclass(frozen=True)
class Verdict:
    """The result: how many lines are whole, the last one's hash, and the first problem (None: intact)."""

    path: str
    lines: int
    head: str
    bad_line: int | None = None
    problem: str | None = None

    @property
    def intact(self) -> bool:
        return self.problem is None

    def message(self) -> str:
        if self.intact:
            return f"{self.path}: intact, {self.lines} line{'' if self.lines == 1 else 's'}, head {self.head}"
        where = f"line {self.bad_line}" if self.bad_line is not None else "the file"
        return f"{self.path}: NOT intact: {where}: {self.problem} ({self.lines} lines before it are whole)"


def verify(path: str | Path, head: str | None = None) -> Verdict:
    """Check every line of the log at `path`; `head` is the ``sha256`` its last line should have.

    Raises OSError when the file cannot be read."""
    data = Path(path).read_bytes()
    name = str(path)
    previous, good = GENESIS, 0
    hashes: list[str] = []
    lines = data.split(b"\n")
    complete = data.endswith(b"\n") or not data
    if complete:
        lines = lines[:-1]
    for number, line in enumerate(lines, start=1):
        problem = check_line(line, number, previous, last=number == len(lines) and not complete)
        if problem:
            return Verdict(name, good, previous, number, problem)
        previous, good = json.loads(line)["sha256"], number
        hashes.append(previous)
    if head is not None and not previous.startswith(head.lower()):
        seen = [n for n, sha in enumerate(hashes, start=1) if sha.startswith(head.lower())]
        problem = (
            f"the expected head {head} is line {seen[0]}, so {good - seen[0]} lines were added after it"
            if seen else f"the expected head {head} is not in the file: lines were removed from its end"
        )
        return Verdict(name, good, previous, None, problem)
    return Verdict(name, good, previous)


def check_line(line: bytes, number: int, previous: str, *, last: bool) -> str | None:
    """The problem with one line, given the hash the line before it ended on."""
    if last:
        return "the last line has no newline: the file was truncated or a write was cut short"
    try:
        record: Any = json.loads(line)
    except ValueError:
        return "not a JSON line: it was changed, or cut short"
    if not isinstance(record, dict):
        return "not a JSON object: it was changed"
    missing = [key for key in REQUIRED if key not in record]
    if missing:
        return f"lacks {', '.join(missing)}: it was changed, or is not a decision log line"
    if line_sha256(record) != record["sha256"]:
        return "its content does not match its sha256: the line was changed"
    if record["prev_sha256"] != previous:
        before = "the genesis value" if number == 1 else f"line {number - 1}'s sha256"
        return (f"its prev_sha256 does not match {before}: a line was removed, inserted or moved here "
                f"(or the line before was changed and its hash recomputed)")
    if record.get("seq") not in (None, number):
        return f"its seq is {record.get('seq')}, not {number}: lines were removed or moved"
    return None
