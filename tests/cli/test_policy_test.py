"""``hookport policy test POLICY CASES``: the real command on real files (no framework involved)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.cli.command import hookport

BASE = """\
[allow]
tools = ["read_file", "search", "send_email", "delete_file"]

[[deny]]
tools = ["delete_file"]
reason = "the organisation allows no deletes"
"""

TEAM = """\
[policy]
include = ["base.toml"]

[[deny]]
tools = ["send_email"]
reason = "the team sends no mail"

[limits]
max_tool_calls = 3
"""

CASES = """\
[[case]]
name = "deletes are refused by the baseline"
tool = "delete_file"
args = { path = "/etc/passwd" }
expect = "deny"
rule = "base.toml:deny[0]"

[[case]]
tool = "send_email"
args = { to = "bob@example.com" }
agent = "support"
expect = "deny"
rule = "team.toml:deny[0]"

[[case]]
tool = "read_file"
expect = "allow"

[[case]]
name = "the fourth call of a run is over the limit"
tool = "search"
before = ["read_file", "search", { tool = "read_file", args = { path = "b" } }]
expect = "deny"
rule = "limits.max_tool_calls"

[[case]]
tool = "http_post"
expect = "deny"
rule = "allow"
"""


def policy_test(directory: Path, cases: str, team: str = TEAM) -> subprocess.CompletedProcess[str]:
    (directory / "base.toml").write_text(BASE)
    (directory / "team.toml").write_text(team)
    (directory / "cases.toml").write_text(cases)
    return hookport("policy", "test", "team.toml", "cases.toml", cwd=directory)


def test_every_case_passes(tmp_path: Path) -> None:
    done = policy_test(tmp_path, CASES)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = done.stdout.splitlines()
    assert rows[0].split() == ["case", "expect", "got", "rule", "reason"]
    assert [row.split()[0] for row in rows[1:6]] == ["PASS"] * 5
    assert "base.toml:4:deny[0]" in rows[1] and "the organisation allows no deletes" in rows[1]
    assert "team.toml:4:deny[0]" in rows[2]
    assert "team.toml:9:limits.max_tool_calls" in rows[4]
    assert rows[-1] == "PASS: 5/5 cases"


def test_a_mismatch_exits_1_and_says_what_happened(tmp_path: Path) -> None:
    cases = CASES + '\n[[case]]\nname = "mail is fine"\ntool = "send_email"\nexpect = "allow"\n'
    done = policy_test(tmp_path, cases)
    assert done.returncode == 1
    failing = [row for row in done.stdout.splitlines() if row.startswith("FAIL ")]
    assert len(failing) == 1
    assert failing[0].split()[:7] == ["FAIL", "mail", "is", "fine", "allow", "deny", "team.toml:4:deny[0]"]
    assert done.stdout.splitlines()[-1] == "FAIL: 5/6 cases"


def test_a_policy_change_that_breaks_a_case_fails_it(tmp_path: Path) -> None:
    """The point of policy tests: the team drops its mail rule, and the case that relied on it fails."""
    done = policy_test(tmp_path, CASES, team=TEAM.replace("[[deny]]\ntools = [\"send_email\"]", "[[deny]]\ntools = [\"shell\"]"))
    assert done.returncode == 1
    assert any(row.startswith("FAIL") and "send_email" in row for row in done.stdout.splitlines())


def test_a_bad_cases_file_exits_2_naming_the_line(tmp_path: Path) -> None:
    done = policy_test(tmp_path, '[[case]]\ntool = "read_file"\nexpect = "allowed"\n')
    assert done.returncode == 2
    assert done.stdout == ""
    assert "policy cases.toml: line 3: case[0].expect: 'allowed' is not one of allow, deny, approve, warn" in done.stderr


def test_a_bad_policy_exits_2_naming_the_file_and_line(tmp_path: Path) -> None:
    done = policy_test(tmp_path, CASES, team=TEAM.replace('include = ["base.toml"]', 'include = ["org.toml"]'))
    assert done.returncode == 2
    assert "policy team.toml: line 2: policy.include[0]: cannot read 'org.toml'" in done.stderr


def test_the_doctor_lists_the_files_of_a_layered_policy(tmp_path: Path) -> None:
    (tmp_path / "base.toml").write_text(BASE)
    (tmp_path / "team.toml").write_text(TEAM)
    done = hookport("doctor", "--policy", "team.toml", cwd=tmp_path, timeout=120)
    assert "  files, baseline first: base.toml, team.toml" in done.stdout
    assert "  base.toml:4:deny[0]  deny: refused: the organisation allows no deletes" in done.stdout


LANGUAGE = """\
[[approval]]
hook = "approvers:ask_a_person"
tools = ["pay_invoice"]
when = "args.amount > 1000"
reason = "large payments need a person"

[[flow]]
after = ["read_secrets"]
deny = ["send_email"]
reason = "no mail once secrets were read"

[[warn]]
tools = ["search"]
reason = "searches are logged"

[[deny]]
tools = ["delete_file"]
mode = "audit"
"""

LANGUAGE_CASES = """\
[[case]]
tool = "pay_invoice"
args = { amount = 5000 }
expect = "approve"
rule = "approval[0]"

[[case]]
tool = "pay_invoice"
args = { amount = 10 }
expect = "allow"

[[case]]
tool = "send_email"
before = ["search", "read_secrets"]
expect = "deny"
rule = "flow[0]"

[[case]]
tool = "send_email"
before = ["search"]
expect = "allow"

[[case]]
tool = "search"
expect = "warn"
rule = "warn[0]"

[[case]]
tool = "delete_file"
expect = "would_deny"
rule = "deny[0]"
"""


def test_the_rules_language_cases_and_no_approver_is_asked(tmp_path: Path) -> None:
    """An approval case is decided without calling the approver (it would write asked.txt)."""
    (tmp_path / "approvers.py").write_text(
        "def ask_a_person(ctx):\n    open('asked.txt', 'a').write(ctx.tool_name)\n    return True\n")
    (tmp_path / "policy.toml").write_text(LANGUAGE)
    (tmp_path / "cases.toml").write_text(LANGUAGE_CASES)
    done = hookport("policy", "test", "policy.toml", "cases.toml", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = done.stdout.splitlines()
    assert "policy.toml:1:approval[0]" in rows[1] and "asks approvers:ask_a_person" in rows[1]
    assert "policy.toml:7:flow[0]" in rows[3] and "no mail once secrets were read" in rows[3]
    assert "would_deny" in rows[6]
    assert rows[-1] == "PASS: 6/6 cases"
    assert not (tmp_path / "asked.txt").exists()
