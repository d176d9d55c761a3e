"""``hookport doctor --policy``: the rules of a policy file and the tools each names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hookport.cli import main

POLICY = (
    '[allow]\ntools = ["read_file", "send_email"]\n\n[[deny]]\ntools = ["delete_flie"]\nreason = "no deletes"\n\n'
    "[limits]\nmax_model_calls = 20\n\n"
    '[[approval]]\nhook = "team_approvals:ask"\ntools = ["send_email"]\ntimeout = 30\n'
)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "team_approvals.py").write_text("def ask(ctx):\n    return False\n")
    (tmp_path / "policy.toml").write_text(POLICY)
    monkeypatch.chdir(tmp_path)  # the approval hook imports from here, as `hookport run` finds it
    return tmp_path


def test_lists_each_rule_with_the_tools_it_names(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["doctor", "--policy", "policy.toml"])
    out = capsys.readouterr().out
    section = out.split("policy policy.toml", 1)[1]
    assert "(policy.toml): 4 rules" in section
    assert "policy.toml:1:allow  allow: only these tools run\n      tools: read_file, send_email" in section
    assert "policy.toml:4:deny[0]  deny: refused: no deletes\n      tools: delete_flie" in section
    assert "policy.toml:9:limits.max_model_calls  limit: at most 20 model calls per run" in section
    assert "policy.toml:11:approval[0]  approval: team_approvals:ask decides, refused after 30s" in section
    assert "tools the rules name (each must be a tool your agents have): delete_flie, read_file, send_email" in section
    assert status in (0, 1) and "verdict:" in out  # the framework diagnosis is still there


def test_json_and_a_broken_policy(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["doctor", "--json", "--policy", "policy.toml"])
    document = json.loads(capsys.readouterr().out)
    assert [rule["tools"] for rule in document["policy"]["rules"]] == [
        ["read_file", "send_email"], ["delete_flie"], None, ["send_email"],
    ]
    (project / "policy.toml").write_text('[[denny]]\ntools = ["x"]\n')
    assert main(["doctor", "--policy", "policy.toml"]) == 1
    assert "NOT VALID\n  line 1: denny: unknown key 'denny'" in capsys.readouterr().out
