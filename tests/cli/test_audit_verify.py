"""``hookport audit verify FILE`` on a real decision log, intact and tampered with in every way."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hookport import HookAborted, InterceptionPoint, dispatch, execution, load_policy
from hookport.contexts import ToolCallHookContext

from tests.cli.command import hookport


def verify(path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    return hookport("audit", "verify", str(path), *options)


@pytest.fixture
def log(tmp_path: Path) -> Path:
    """Five decisions written by a real policy."""
    policy = tmp_path / "policy.toml"
    policy.write_text('[[deny]]\ntools = ["delete_file"]\nreason = "no deletes"\n\n[audit]\npath = "decisions.jsonl"\n')
    loaded = load_policy(policy)
    with execution("app", run_id="run-1"):
        for index in range(5):
            try:
                dispatch(InterceptionPoint.PRE_TOOL_CALL, ToolCallHookContext("delete_file", {"path": f"f{index}"}))
            except HookAborted:
                pass
    loaded.unregister()
    return tmp_path / "decisions.jsonl"


def rewrite(path: Path, change: object) -> None:
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(change(lines)))  # type: ignore[operator]


def test_an_intact_log(log: Path) -> None:
    done = verify(log)
    assert done.returncode == 0, done.stderr
    head = json.loads(log.read_text().splitlines()[-1])["sha256"]
    assert done.stdout.strip() == f"{log}: intact, 5 lines, head {head}"
    assert verify(log, "--head", head[:12]).returncode == 0


def changed_reason(lines: list[str]) -> list[str]:
    record = json.loads(lines[2])
    record["reason"] = "allowed after all"
    return [*lines[:2], json.dumps(record) + "\n", *lines[3:]]


def changed_and_rehashed(lines: list[str]) -> list[str]:
    from hookport.policy.log import line_sha256

    record = json.loads(lines[2])
    record["outcome"] = "allow"
    record["sha256"] = line_sha256(record)
    return [*lines[:2], json.dumps(record) + "\n", *lines[3:]]


@pytest.mark.parametrize(
    ("change", "line", "problem"),
    [
        (changed_reason, 3, "its content does not match its sha256: the line was changed"),
        (changed_and_rehashed, 4, "its prev_sha256 does not match line 3's sha256"),
        (lambda lines: lines[:1] + lines[2:], 2, "its prev_sha256 does not match line 1's sha256: a line was removed"),
        (lambda lines: lines[1:], 1, "its prev_sha256 does not match the genesis value"),
        (lambda lines: [lines[0], lines[2], lines[1], *lines[3:]], 2, "its prev_sha256 does not match line 1's sha256"),
        (lambda lines: [*lines[:4], lines[4][:40]], 5, "the last line has no newline: the file was truncated"),
        (lambda lines: [*lines[:2], "{\"outcome\": \"allow\"}\n", *lines[2:]], 3, "lacks time, run, agent"),
        (lambda lines: [*lines[:2], "not json\n", *lines[2:]], 3, "not a JSON line"),
    ],
    ids=["changed", "changed-and-rehashed", "removed", "first-removed", "reordered", "truncated", "inserted", "garbage"],
)
def test_tampering_names_the_first_bad_line(log: Path, change: object, line: int, problem: str) -> None:
    rewrite(log, change)
    done = verify(log)
    assert done.returncode == 1
    assert done.stdout == ""
    assert f"{log}: NOT intact: line {line}: {problem}" in done.stderr


def test_lines_cut_off_the_end_need_the_recorded_head(log: Path) -> None:
    head = json.loads(log.read_text().splitlines()[-1])["sha256"]
    rewrite(log, lambda lines: lines[:3])
    assert verify(log).returncode == 0  # a shorter chain is whole in itself...
    done = verify(log, "--head", head)
    assert done.returncode == 1  # ...but its head is not the one recorded
    assert f"the expected head {head} is not in the file: lines were removed from its end" in done.stderr


def test_a_missing_file_is_status_2(tmp_path: Path) -> None:
    done = verify(tmp_path / "nope.jsonl")
    assert done.returncode == 2
    assert "cannot read" in done.stderr and "nope.jsonl" in done.stderr


def test_the_policy_keeps_writing_after_a_verified_log(log: Path) -> None:
    """Appending to an existing log continues its chain (the writer reads the last line's hash)."""
    policy = log.parent / "policy.toml"
    load_policy(policy)
    try:
        dispatch(InterceptionPoint.PRE_TOOL_CALL, ToolCallHookContext("delete_file", {}))
    except HookAborted:
        pass
    done = verify(log)
    assert done.returncode == 0 and ", 6 lines," in done.stdout, done.stderr


def test_the_command_is_on_the_parser() -> None:
    done = subprocess.run([sys.executable, "-m", "hookport.cli", "audit", "verify", "--help"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0 and "--head" in done.stdout
