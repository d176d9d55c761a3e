"""The decision log (``[audit] path``): one hash-chained line per decision, whole under many
threads and many processes, and `verify` names the first line that was tampered with."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from hookport import HookAborted, InterceptionPoint, dispatch, execution, register_hook
from hookport.canonical import args_sha256
from hookport.contexts import ToolCallHookContext
from hookport.outcomes import report
from hookport.policy import PolicyError, load_policy
from hookport.policy.log import GENESIS, line_sha256
from hookport.policy.verify import verify

P = InterceptionPoint

POLICY = """\
[[deny]]
tools = ["delete_file"]
reason = "no deletes"

[[redact]]
pattern = 'sk-[A-Za-z0-9]{8,}'
replacement = "[KEY]"
in = ["tool_args"]

[audit]
path = "decisions.jsonl"
"""

FIELDS = ["time", "run", "agent", "tool", "point", "rule", "outcome", "reason", "args_sha256", "framework",
          "seq", "prev_sha256", "sha256"]


def policy_file(directory: Path, extra: str = "") -> Path:
    path = directory / "policy.toml"
    path.write_text(POLICY + extra)
    return path


def call(name: str, ran: list[str], agent: str | None = None, **args: Any) -> None:
    try:
        dispatch(P.PRE_TOOL_CALL, ToolCallHookContext(name, dict(args), agent_role=agent, framework="test"))
    except HookAborted:
        return
    ran.append(name)


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def warn_on_send(ctx: Any) -> None:
    """A hook that lets the call through and reports it (as a ``[[warn]]`` rule does)."""
    report(ctx, "team.hooks:warn_on_send", "warn", f"mail to {ctx.tool_input['to']}")


def test_each_decision_is_a_chained_line(tmp_path: Path) -> None:
    load_policy(policy_file(tmp_path))
    register_hook(P.PRE_TOOL_CALL, warn_on_send, tools=["send_email"])
    ran: list[str] = []
    with execution("app", run_id="run-7"):
        call("delete_file", ran, agent="janitor", path="/etc/passwd")
        call("read_file", ran, path="notes.txt")  # nothing decided: no line
        call("send_email", ran, to="bob@example.com")
    assert ran == ["read_file", "send_email"]
    log = lines(tmp_path / "decisions.jsonl")
    assert [list(line) for line in log] == [FIELDS, FIELDS]
    deny, warn = log
    assert {k: deny[k] for k in ("run", "agent", "tool", "point", "rule", "outcome", "reason", "framework", "seq")} == {
        "run": "run-7", "agent": "janitor", "tool": "delete_file", "point": "pre_tool_call",
        "rule": "policy.toml:1:deny[0]", "outcome": "deny", "reason": "no deletes", "framework": "test", "seq": 1,
    }
    assert deny["args_sha256"] == args_sha256({"path": "/etc/passwd"})
    assert deny["prev_sha256"] == GENESIS and deny["sha256"] == line_sha256(deny)
    assert (warn["rule"], warn["outcome"], warn["reason"]) == ("team.hooks:warn_on_send", "warn", "mail to bob@example.com")
    assert warn["prev_sha256"] == deny["sha256"] and warn["seq"] == 2
    assert deny["time"].endswith("Z") and "args" not in deny
    assert verify(tmp_path / "decisions.jsonl").intact


def test_the_digest_is_of_the_arguments_as_decided(tmp_path: Path) -> None:
    """A hook rewrote the arguments before the rule decided: the line digests what the tool would get."""
    def rewrite(ctx: Any) -> None:
        ctx.tool_input["path"] = "/tmp/sandbox/" + ctx.tool_input["path"]

    register_hook(P.PRE_TOOL_CALL, rewrite)
    load_policy(policy_file(tmp_path))
    call("delete_file", [], path="a.txt")
    (line,) = lines(tmp_path / "decisions.jsonl")
    assert line["args_sha256"] == args_sha256({"path": "/tmp/sandbox/a.txt"})


def test_a_rules_own_digest_wins(tmp_path: Path) -> None:
    def decide(ctx: Any) -> None:
        report(ctx, "custom", "would_deny", "audit only", args_sha256="ab" * 32)

    register_hook(P.PRE_TOOL_CALL, decide)
    load_policy(policy_file(tmp_path))
    call("read_file", [], path="a.txt")
    (line,) = lines(tmp_path / "decisions.jsonl")
    assert (line["rule"], line["outcome"], line["args_sha256"]) == ("custom", "would_deny", "ab" * 32)


def test_raw_lines_carry_the_arguments_after_redaction(tmp_path: Path) -> None:
    load_policy(policy_file(tmp_path, "raw = true\n"))
    call("delete_file", [], path="notes.txt", token="sk-abcdefghijkl", nested={"keys": ["sk-mnopqrstuvwx"]})
    (line,) = lines(tmp_path / "decisions.jsonl")
    assert line["args"] == {"path": "notes.txt", "token": "[KEY]", "nested": {"keys": ["[KEY]"]}}
    assert "sk-abc" not in (tmp_path / "decisions.jsonl").read_text()


def test_a_refusal_reported_as_an_outcome_is_one_line(tmp_path: Path) -> None:
    def refuse(ctx: Any) -> None:
        report(ctx, "gate", "deny", "closed")
        raise HookAborted("closed", source="gate")

    register_hook(P.PRE_TOOL_CALL, refuse)
    load_policy(policy_file(tmp_path))
    call("search", [])
    assert [(line["rule"], line["outcome"]) for line in lines(tmp_path / "decisions.jsonl")] == [("gate", "deny")]


def test_unregistering_stops_the_log(tmp_path: Path) -> None:
    policy = load_policy(policy_file(tmp_path))
    call("delete_file", [])
    policy.unregister()
    register_hook(P.PRE_TOOL_CALL, lambda ctx: report(ctx, "x", "warn"))
    call("delete_file", [])
    assert len(lines(tmp_path / "decisions.jsonl")) == 1


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("missing-dir/decisions.jsonl", "the directory {dir}/missing-dir does not exist"),
        (".", "it is a directory"),
    ],
)
def test_an_audit_path_that_cannot_be_written_is_an_error_at_load(tmp_path: Path, path: str, problem: str) -> None:
    file = tmp_path / "policy.toml"
    file.write_text(f'[[deny]]\ntools = ["x"]\n\n[audit]\npath = "{path}"\n')
    with pytest.raises(PolicyError) as raised:
        load_policy(file)
    assert raised.value.problems == [
        f"line 5: audit.path: cannot write {path!r} ({(tmp_path / path)}): {problem.format(dir=tmp_path)}"
    ]


def test_audit_settings_are_validated(tmp_path: Path) -> None:
    file = tmp_path / "policy.toml"
    file.write_text('[audit]\npath = "d.jsonl"\nraw = "yes"\nrotate = 3\n')
    with pytest.raises(PolicyError) as raised:
        load_policy(file)
    assert raised.value.problems == [
        "line 3: audit.raw: Input should be a valid boolean, got 'yes' (a string)",
        "line 4: audit.rotate: unknown key 'rotate'",
    ]


def test_the_baselines_log_stays_when_a_team_includes_it(tmp_path: Path) -> None:
    (tmp_path / "base.toml").write_text('[audit]\npath = "org.jsonl"\n')
    team = tmp_path / "team.toml"
    team.write_text('[policy]\ninclude = ["base.toml"]\n\n[audit]\npath = "team.jsonl"\n')
    with pytest.raises(PolicyError, match=r"line 5: audit.path: 'team.jsonl' differs from the 'org.jsonl' of base.toml"):
        load_policy(team)
    team.write_text('[policy]\ninclude = ["base.toml"]\n\n[[deny]]\ntools = ["x"]\n')
    load_policy(team)
    call("x", [])
    assert lines(tmp_path / "org.jsonl")[0]["rule"] == "team.toml:4:deny[0]"


def test_many_threads_never_break_the_chain(tmp_path: Path) -> None:
    load_policy(policy_file(tmp_path))
    start = threading.Barrier(16)

    def worker(number: int) -> None:
        start.wait()
        with execution("app", run_id=f"thread-{number}"):
            for index in range(40):
                call("delete_file", [], path=f"{number}-{index}")

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    log = lines(tmp_path / "decisions.jsonl")
    assert len(log) == 16 * 40
    assert sorted(line["args_sha256"] for line in log) == sorted(
        args_sha256({"path": f"{n}-{i}"}) for n in range(16) for i in range(40)
    )
    verdict = verify(tmp_path / "decisions.jsonl")
    assert verdict.intact and verdict.lines == 640, verdict.message()


WRITER = """
import sys
from hookport import HookAborted, InterceptionPoint, dispatch, execution, load_policy
from hookport.contexts import ToolCallHookContext

load_policy(sys.argv[1])
name = sys.argv[2]
with execution("app", run_id=name):
    for index in range(int(sys.argv[3])):
        try:
            dispatch(InterceptionPoint.PRE_TOOL_CALL, ToolCallHookContext("delete_file", {"path": f"{name}-{index}"}))
        except HookAborted:
            pass
"""


def test_many_processes_never_break_the_chain(tmp_path: Path) -> None:
    policy = policy_file(tmp_path)
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    writers = [
        subprocess.Popen([sys.executable, str(script), str(policy), f"process-{n}", "150"], stderr=subprocess.PIPE, text=True)
        for n in range(6)
    ]
    for writer in writers:
        _, error = writer.communicate(timeout=120)
        assert writer.returncode == 0, error
    log = lines(tmp_path / "decisions.jsonl")
    assert len(log) == 6 * 150
    assert {line["run"] for line in log} == {f"process-{n}" for n in range(6)}
    verdict = verify(tmp_path / "decisions.jsonl")
    assert verdict.intact and verdict.lines == 900, verdict.message()


def test_a_forked_child_appends_to_the_same_chain(tmp_path: Path) -> None:
    """The child must not share the parent's descriptor (and so its lock): it opens its own."""
    import os

    load_policy(policy_file(tmp_path))
    call("delete_file", [], path="parent")
    pid = os.fork()
    if pid == 0:  # the child
        try:
            for index in range(300):
                call("delete_file", [], path=f"child-{index}")
        finally:
            os._exit(0)
    for index in range(300):
        call("delete_file", [], path=f"parent-{index}")
    os.waitpid(pid, 0)
    verdict = verify(tmp_path / "decisions.jsonl")
    assert verdict.intact and verdict.lines == 601, verdict.message()


def test_a_log_moved_aside_starts_a_new_chain_in_a_new_file(tmp_path: Path) -> None:
    """Rotation (logrotate, a move between verifies): the writer follows the path, not the old file."""
    load_policy(policy_file(tmp_path))
    call("delete_file", [], path="1")
    (tmp_path / "decisions.jsonl").rename(tmp_path / "decisions.1.jsonl")
    call("delete_file", [], path="2")
    call("delete_file", [], path="3")
    assert len(lines(tmp_path / "decisions.1.jsonl")) == 1
    new = lines(tmp_path / "decisions.jsonl")
    assert [line["seq"] for line in new] == [1, 2] and new[0]["prev_sha256"] == GENESIS
    assert verify(tmp_path / "decisions.1.jsonl").intact and verify(tmp_path / "decisions.jsonl").intact


def test_the_rules_language_decisions_are_one_line_each(tmp_path: Path) -> None:
    """warn, would_deny (audit mode) and a deny the rule reports and raises: one line each."""
    file = tmp_path / "policy.toml"
    file.write_text('[[warn]]\ntools = ["search"]\nreason = "searches are logged"\n\n'
                    '[[deny]]\ntools = ["delete_file"]\nmode = "audit"\n\n'
                    '[[deny]]\ntools = ["shell"]\nreason = "no shell"\n\n[audit]\npath = "d.jsonl"\n')
    load_policy(file)
    ran: list[str] = []
    for name in ("search", "delete_file", "shell"):
        call(name, ran, cmd="ls")
    assert ran == ["search", "delete_file"]
    log = lines(tmp_path / "d.jsonl")
    assert [(line["rule"], line["outcome"]) for line in log] == [
        ("policy.toml:1:warn[0]", "warn"), ("policy.toml:5:deny[0]", "would_deny"), ("policy.toml:9:deny[1]", "deny")]
    assert {line["args_sha256"] for line in log} == {args_sha256({"cmd": "ls"})}
    assert verify(tmp_path / "d.jsonl").intact
